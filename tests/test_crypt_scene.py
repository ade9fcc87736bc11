"""The crypt's LED scene: cubes in player colours, locks white, feedback on top (pure)."""

from __future__ import annotations

from companion.board.crypt_scene import (
    CUBE_LEVEL,
    LOCK_COLOUR,
    LOCK_LEVEL,
    MEEPLE_LEVEL,
    PLAYER_COLOURS,
    crypt_scene,
    player_rgb,
)
from companion.board.render import HINT_COLOUR, LIFTED_COLOUR, Geometry, render
from companion.board.scene import Mode
from companion.games.crypt.board import maze_cell, parse_square
from companion.games.crypt.commands import EnterChamber, PlaceCube
from companion.games.crypt.engine import apply, new_game
from companion.games.crypt.state import Phase

GEOMETRY = Geometry(12, 12, 4, 4)
POSITIONS = GEOMETRY.positions


def at(name: str) -> int:
    return maze_cell(parse_square(name))


def scaled(colour: tuple[int, int, int], level: float) -> tuple[int, int, int]:
    return (round(colour[0] * level), round(colour[1] * level), round(colour[2] * level))


def test_a_new_game_shows_the_four_locks_in_white_and_nothing_else():
    state, _ = new_game(2)
    scene = crypt_scene(state, POSITIONS)
    assert scene.mode is Mode.PLAY
    lock = scaled(LOCK_COLOUR, LOCK_LEVEL)
    assert dict(scene.paint) == {at(s): lock for s in ("d4", "e4", "d5", "e5")}
    frame = render(scene, 0.0, GEOMETRY)
    assert frame[at("d4")] == lock and frame[at("c3")] == (0, 0, 0)


def test_placed_cubes_show_in_their_owners_colours():
    state, _ = new_game(2, colours=("violet", "orange"))
    state, _ = apply(state, PlaceCube(parse_square("c3")))  # violet places orange's cube
    state, _ = apply(state, PlaceCube(parse_square("f6")))
    paint = dict(crypt_scene(state, POSITIONS).paint)
    assert paint[at("c3")] == scaled(PLAYER_COLOURS["orange"], CUBE_LEVEL)
    assert paint[at("f6")] == scaled(PLAYER_COLOURS["violet"], CUBE_LEVEL)


def test_a_touch_shows_the_cube_to_be_at_full_brightness():
    state, _ = new_game(2)
    paint = dict(crypt_scene(state, POSITIONS, touch=parse_square("c3")).paint)
    assert paint[at("c3")] == PLAYER_COLOURS["blue"]  # red places blue's cubes


def test_hints_never_cover_a_cube_they_light_it_up_instead():
    state, _ = new_game(2)
    state, _ = apply(state, PlaceCube(parse_square("c3")))
    state, _ = apply(state, PlaceCube(parse_square("a3")))  # a red cube
    state = state.evolve(phase=Phase.MOVING, meeples=(parse_square("a1"), parse_square("h8")))
    hints = frozenset({at("a2"), at("a3")})
    scene = crypt_scene(state, POSITIONS, hints=hints, lifted=frozenset({at("a1")}))
    assert scene.hints == {at("a2")}
    assert dict(scene.paint)[at("a3")] == PLAYER_COLOURS["red"]
    frame = render(scene, 0.0, GEOMETRY)
    assert frame[at("a2")] == HINT_COLOUR and frame[at("a1")] == LIFTED_COLOUR
    assert frame[at("h8")] == scaled(PLAYER_COLOURS["blue"], MEEPLE_LEVEL)


def test_the_winners_meeple_shines_at_the_end():
    state, _ = new_game(2)
    state = state.evolve(
        phase=Phase.MOVING,
        in_hand=(0, 0),
        locks=0,
        meeples=(parse_square("d4"), parse_square("h8")),
    )
    state, _ = apply(state, EnterChamber())
    scene = crypt_scene(state, POSITIONS)
    assert scene.mode is Mode.SEEKERS_WIN and scene.winners == {at("d4")}
    render(scene, 0.5, GEOMETRY)


def test_an_unknown_colour_still_lights():
    assert player_rgb("mauve") != (0, 0, 0) and player_rgb("mauve") != LOCK_COLOUR
