"""The Loot N Run score track on the LEDs: a pure function of the game, its last change
and the time (companion/board/score_track.py)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.board.render import SEEKERS_WIN_WINNER, Geometry, render
from companion.board.scene import Mode
from companion.board.score_track import (
    ANIMATION_SECONDS,
    SHARE_SECONDS,
    SWEEP_SECONDS,
    TrackMove,
    TrackView,
    animation_elapsed,
    centre_cells,
    colour_rgb,
    hex_colour,
    player_colours,
    track_paint,
    track_path,
    track_scene,
)

RED, BLUE, GREEN = (255, 0, 0), (0, 70, 255), (0, 220, 40)
BOARD = Geometry(12, 12, camp_slots=4, sarcophagus_slots=4)


def paint(view: TrackView, t: float = 0.0, move: TrackMove | None = None) -> dict[int, tuple]:
    return dict(track_paint(view, 12, 12, t, move))


def cell_of(score: int, target: int = 35) -> int:
    return track_path(12, 12, target)[min(score, target)]


def adjacent(a: int, b: int, columns: int) -> bool:
    (ra, ca), (rb, cb) = divmod(a, columns), divmod(b, columns)
    return abs(ra - rb) + abs(ca - cb) == 1


# -- the path ------------------------------------------------------------------------


@pytest.mark.parametrize("target", [30, 35])
def test_the_track_on_the_board_runs_round_the_edge_from_the_top_left_corner(target):
    path = track_path(12, 12, target)
    assert len(path) == target + 1
    assert path[0] == 0  # space 0 in the top-left corner
    assert path[:12] == tuple(range(12))  # along the top row
    assert path[12:23] == tuple(r * 12 + 11 for r in range(1, 12))  # down the right column
    assert all(r in (0, 11) or c in (0, 11) for r, c in (divmod(p, 12) for p in path))


@given(
    columns=st.integers(1, 16),
    rows=st.integers(1, 16),
    target=st.integers(1, 255),
)
def test_any_track_that_fits_is_a_walk_of_distinct_cells_inside_the_grid(columns, rows, target):
    if target + 1 > columns * rows:
        with pytest.raises(ValueError, match="needs"):
            track_path(columns, rows, target)
        return
    path = track_path(columns, rows, target)
    assert len(path) == target + 1
    assert len(set(path)) == len(path)  # no cell twice
    assert all(0 <= p < columns * rows for p in path)
    assert all(adjacent(a, b, columns) for a, b in itertools.pairwise(path))


def test_a_track_longer_than_the_edge_spirals_inwards():
    path = track_path(12, 12, 60)  # the outer ring holds 44 spaces
    assert path[44] == 1 * 12 + 1  # the next ring starts inside the first corner
    assert len(set(path)) == 61


def test_a_board_too_small_or_a_target_below_one_is_refused():
    with pytest.raises(ValueError, match="36 cells; the board has 35"):
        track_path(5, 7, 35)
    with pytest.raises(ValueError):
        track_path(12, 12, 0)


# -- tokens --------------------------------------------------------------------------


def test_every_token_shows_in_its_colour_on_the_space_of_its_score():
    view = TrackView((RED, BLUE, GREEN), (0, 7, 35), 35, current=0)
    frame = paint(view)
    assert frame[cell_of(0)] == RED
    assert frame[cell_of(7)] == BLUE
    assert frame[cell_of(35)] == GREEN


def test_empty_spaces_are_dim_the_fifths_brighter_and_the_goal_gold():
    view = TrackView((RED, BLUE), (0, 0), 35)
    frame = paint(view)
    plain, fifth, goal = frame[cell_of(1)], frame[cell_of(5)], frame[cell_of(35)]
    assert 0 < max(plain) < max(fifth) < max(goal) < 255
    assert goal[0] > goal[2]  # gold: red and green, little blue
    # Nothing beyond the track but the turn marker in the middle is lit.
    path = set(track_path(12, 12, 35))
    assert set(frame) - path <= set(centre_cells(12, 12))


def test_a_score_past_the_target_stays_on_the_goal_space():
    frame = paint(TrackView((RED, BLUE), (41, 3), 35))
    assert frame[cell_of(35)] == RED


def test_players_on_the_same_space_take_turns_once_a_second_with_a_dip_between():
    view = TrackView((RED, BLUE, GREEN), (4, 4, 9), 35)
    shared = cell_of(4)
    assert paint(view, 0.2)[shared] == RED
    assert paint(view, SHARE_SECONDS + 0.2)[shared] == BLUE
    assert paint(view, 2 * SHARE_SECONDS + 0.2)[shared] == RED  # two players: back to red
    assert paint(view, SHARE_SECONDS - 0.05)[shared] == (0, 0, 0)  # the dip between colours
    # A token alone on its space does not blink.
    assert {paint(view, t / 10)[cell_of(9)] for t in range(30)} == {GREEN}


def test_whose_turn_it_is_glows_dimly_in_the_middle_of_the_board():
    frame = paint(TrackView((RED, BLUE), (0, 0), 35, current=1))
    for cell in centre_cells(12, 12):
        r, _, b = frame[cell]
        assert r == 0 and 0 < b < 255  # blue, dimmed
    assert not set(centre_cells(12, 12)) & set(paint(TrackView((RED, BLUE), (0, 0), 35)))


# -- the animation of a Run or an Awaken --------------------------------------------


def test_after_a_run_the_token_sweeps_from_its_old_space_to_its_new_one_then_stops():
    view = TrackView((RED, BLUE), (12, 0), 35, current=1)
    move = TrackMove(before=(2, 0), after=(12, 0), at=100.0)
    path = track_path(12, 12, 35)

    def head(t: float) -> int:
        frame = paint(view, t, move)
        spaces = [s for s in range(2, 13) if frame.get(path[s]) == RED]
        assert len(spaces) == 1, spaces
        return spaces[0]

    heads = [head(100.0 + i * SWEEP_SECONDS / 10) for i in range(10)]
    assert heads[0] == 2  # it starts where it was
    assert heads == sorted(heads) and heads[-1] > heads[0]  # and only moves forward
    assert head(100.0 + SWEEP_SECONDS - 0.01) == 12  # it arrives ...
    arriving = paint(view, 100.0 + SWEEP_SECONDS + 0.01, move)[path[12]]
    assert arriving != RED and arriving[1] > 0  # ... with a whitish flash
    end = 100.0 + ANIMATION_SECONDS + 0.001
    assert animation_elapsed(move, end) is None  # and it ends
    assert paint(view, end, move) == paint(view, end)
    # The trail behind the head is dimmer than the head.
    mid = paint(view, 100.0 + SWEEP_SECONDS / 3, move)
    reds = [c for s in range(2, 13) if (c := mid[path[s]])[1] == c[2] == 0 and c[0]]
    assert sorted(reds) == [(38, 0, 0), (102, 0, 0), RED]  # head and two trail cells


def test_an_undo_sweeps_the_token_back():
    view = TrackView((RED,) * 1 + (BLUE,), (2, 0), 35)
    move = TrackMove(before=(12, 0), after=(2, 0), at=0.0)
    path = track_path(12, 12, 35)
    early = paint(view, 0.05, move)
    assert early.get(path[12]) == RED or early.get(path[11]) == RED


def test_a_caught_player_blinks_while_the_animation_plays():
    view = TrackView((RED, BLUE), (9, 4), 35, current=1)
    move = TrackMove(before=(9, 4), after=(9, 4), at=10.0, caught=0)
    seen = {paint(view, 10.0 + i / 16, move)[cell_of(9)] for i in range(16)}
    assert seen == {RED, (0, 0, 0)}
    assert paint(view, 10.0 + ANIMATION_SECONDS + 0.1, move)[cell_of(9)] == RED


def test_the_frame_is_the_same_for_the_same_inputs():
    view = TrackView((RED, BLUE, GREEN), (3, 3, 3), 35, current=2)
    move = TrackMove(before=(0, 3, 3), after=(3, 3, 3), at=1.0)
    assert paint(view, 1.4, move) == paint(view, 1.4, move)


# -- the scene -----------------------------------------------------------------------


def test_the_scene_during_play_paints_the_track_for_the_renderer():
    view = TrackView((RED, BLUE), (5, 0), 35, current=0)
    scene = track_scene(view, BOARD, 3.0)
    assert scene.mode is Mode.PLAY and scene.positions == BOARD.positions
    frame = render(scene, 3.0, BOARD)
    assert frame[cell_of(5)] == RED
    assert all(c == (0, 0, 0) for c in frame[BOARD.cells :])  # the pads stay dark


def test_no_game_shows_the_idle_animation():
    assert track_scene(None, BOARD, 0.0).mode is Mode.IDLE


def test_the_winner_is_celebrated_then_the_final_track_is_shown_in_a_loop():
    view = TrackView((RED, BLUE, GREEN), (41, 30, 41), 35, over=True, winners=(0, 2))
    move = TrackMove(before=(41, 30, 33), after=(41, 30, 41), at=50.0)
    # The last reveal's sweep plays first.
    assert track_scene(view, BOARD, 50.5, move).mode is Mode.PLAY
    start = 50.0 + ANIMATION_SECONDS
    party = track_scene(view, BOARD, start + 1.0, move)
    assert party.mode is Mode.SEEKERS_WIN
    assert party.winners == {cell_of(35)}  # both winners stand on the goal space
    assert render(party, start + 1.0, BOARD)[cell_of(35)] == SEEKERS_WIN_WINNER
    final = track_scene(view, BOARD, start + 5.0, move)
    assert final.mode is Mode.PLAY
    assert dict(final.paint)[cell_of(30)] == BLUE
    assert track_scene(view, BOARD, start + 8.0, move).mode is Mode.SEEKERS_WIN  # again


# -- colours -------------------------------------------------------------------------


def test_colour_names_hex_and_unknown_names():
    assert colour_rgb(" Red ") == RED
    assert colour_rgb("Türkis") == colour_rgb("turquoise")
    assert colour_rgb("#f80") == (255, 136, 0) == colour_rgb("#FF8800")
    assert colour_rgb("sparkly") is None
    assert max(colour_rgb("black") or (0, 0, 0)) > 0  # a dark LED would look empty
    assert hex_colour((255, 136, 0)) == "#ff8800"


def test_players_with_unknown_colours_get_colours_nobody_else_has():
    colours = player_colours(["red", "sparkly", "glitter", "blue"])
    assert colours[0] == RED and colours[3] == (0, 70, 255)
    assert len(set(colours)) == 4
