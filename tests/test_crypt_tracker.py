"""The crypt tracker's judgement of the board against the game (pure scenarios).

Board positions are the maze board's cells (``row * 12 + col``) then the pads; the
crypt board lies on the central 8x8 (a1 = cell C10 = 110, h8 = J3 = 33).  Only the
meeples are figures on the board; cubes and locks are light.
"""

from __future__ import annotations

import pytest

from companion.games.crypt.board import maze_cell, parse_square, square_at_maze_cell
from companion.games.crypt.commands import EnterChamber, Move, PlaceCube, PlaceMeeple
from companion.games.crypt.engine import apply, new_game
from companion.games.crypt.moves import destinations
from companion.games.crypt.state import Phase, State
from companion.service.crypt_tracker import CryptBoard, judge

RED, BLUE = 0, 1
BOARD = CryptBoard(camp_slots=4, sarcophagus_slots=4)
CAMP_1 = 144
A1_CELL = 0  # maze cell A1, top left of the maze board, off the crypt board


def sq(name: str) -> int:
    return parse_square(name)


def at(name: str) -> int:
    """The board position under a square."""
    return maze_cell(sq(name))


def cells(*names: str) -> frozenset[int]:
    return frozenset(at(n) for n in names)


def mask(names: str) -> int:
    out = 0
    for name in names.split():
        out |= 1 << sq(name)
    return out


def placing() -> State:
    return new_game(2, first_player=RED)[0]


def meeple_phase(*, red: str | None = None) -> State:
    """All cubes placed (Red's on c3..., Blue's on c6...); Red puts a meeple down first."""
    state = placing()
    reds = ["c3", "d3", "e3", "f3", "c2", "d2", "e2", "f2", "a3", "b3"]
    blues = ["c6", "d6", "e6", "f6", "c7", "d7", "e7", "f7", "a6", "b6"]
    for red_cube, blue_cube in zip(reds, blues, strict=True):
        state, _ = apply(state, PlaceCube(sq(blue_cube)))  # Red places Blue's cubes
        state, _ = apply(state, PlaceCube(sq(red_cube)))
    assert state.phase is Phase.PLACING_MEEPLES
    if red is not None:
        state, _ = apply(state, PlaceMeeple(sq(red)))
    return state


def moving(
    red_cubes: str = "c3 a4",
    blue_cubes: str = "c6 b1",
    meeples: tuple[str, str] = ("a1", "h8"),
    to_move: int = RED,
    locks: str = "d4 e4 d5 e5",
) -> State:
    """A moving-phase position (cubes not on the board count as collected)."""
    state = placing()
    cubes = (mask(red_cubes), mask(blue_cubes))
    return state.evolve(
        phase=Phase.MOVING,
        to_move=to_move,
        cubes=cubes,
        in_hand=(0, 0),
        meeples=(sq(meeples[0]), sq(meeples[1])),
        locks=mask(locks),
        collected=tuple(10 - c.bit_count() for c in cubes),
        locks_taken=(4 - mask(locks).bit_count(), 0),
    )


# -- the board map ---------------------------------------------------------------------


def test_the_crypt_board_lies_on_the_central_cells_of_the_maze_board():
    assert all(BOARD.position(s) == maze_cell(s) for s in range(64))
    assert all(BOARD.square(p) == square_at_maze_cell(p) for p in range(BOARD.positions))
    assert (at("a1"), at("h8")) == (110, 33)
    assert BOARD.square(CAMP_1) is None and BOARD.square(A1_CELL) is None
    assert str(BOARD.name(at("c3"))) == "c3"
    assert str(BOARD.name(A1_CELL)) == "A1 (off the crypt board)"
    assert str(BOARD.name(CAMP_1)) == "camp slot 1" and str(BOARD.name(151)) == "sarcophagus slot 4"


def test_another_board_size_centres_the_crypt_board():
    board = CryptBoard(10, 10)
    assert board.position(sq("a8")) == 1 * 10 + 1
    assert board.square(board.position(sq("e4"))) == sq("e4")
    with pytest.raises(ValueError, match="at least 8x8"):
        CryptBoard(6, 6)


# -- placing cubes: taps on the phone, touches with a magnet ------------------------------


def test_an_empty_board_in_the_placing_phase_matches_and_says_whose_turn():
    j = judge(placing(), frozenset(), BOARD)
    assert j.matches and j.command is None
    assert str(j.message) is not None and str(j.message).startswith(
        "Red places one of Blue's cubes"
    )


def test_a_magnet_resting_on_a_free_square_is_a_touch_not_yet_a_cube():
    j = judge(placing(), cells("c3"), BOARD)
    assert j.matches and j.touch == sq("c3") and j.command is None
    assert str(j.message) == "Lift the magnet to put Blue's cube on c3."


def test_lifting_the_magnet_after_a_touch_places_the_cube():
    j = judge(placing(), frozenset(), BOARD, touched=sq("c3"))
    assert j.matches and j.command == PlaceCube(sq("c3"))


def test_a_touch_that_is_no_longer_legal_places_nothing():
    state, _ = apply(placing(), PlaceCube(sq("c3")))  # the square is taken meanwhile
    j = judge(state, frozenset(), BOARD, touched=sq("c3"))
    assert j.command is None and j.matches


@pytest.mark.parametrize(
    ("square", "reason"),
    [
        ("b1", "b1 lies on a green corner tile: no cube may be placed there."),
        ("d4", "d4 is a crypt space: no cube may be placed in the crypt."),
    ],
)
def test_a_touch_where_no_cube_may_go_is_an_error_with_the_reason(square, reason):
    j = judge(placing(), cells(square), BOARD)
    assert not j.matches and j.touch is None and j.command is None
    assert j.errors == cells(square)
    assert str(j.message) == f"{reason} Lift the magnet."


def test_a_touch_on_a_square_holding_a_cube_is_an_error():
    state, _ = apply(placing(), PlaceCube(sq("c3")))
    j = judge(state, cells("c3"), BOARD)
    assert j.errors == cells("c3") and "already holds a cube" in str(j.message or "")


def test_figures_off_the_crypt_board_or_on_a_pad_must_be_taken_away():
    j = judge(placing(), frozenset({A1_CELL, CAMP_1}), BOARD)
    assert not j.matches and j.unexpected == {A1_CELL, CAMP_1} and not j.missing
    assert str(j.message) == (
        "Put the board right: take the figures off A1 (off the crypt board) and camp slot 1."
    )


def test_two_magnets_at_once_are_no_touch():
    j = judge(placing(), cells("c3", "f6"), BOARD)
    assert not j.matches and j.touch is None and j.unexpected == cells("c3", "f6")


# -- placing the meeples -------------------------------------------------------------------


def test_the_free_corners_are_hinted_when_a_meeple_is_to_be_placed():
    j = judge(meeple_phase(), frozenset(), BOARD)
    assert j.matches and j.hints == cells("a1", "a8", "h1", "h8")
    assert str(j.message) == "Red: put your meeple on a free corner (a1, a8, h1, h8)."


def test_a_meeple_put_on_a_free_corner_is_placed():
    j = judge(meeple_phase(), cells("h1"), BOARD)
    assert j.matches and j.command == PlaceMeeple(sq("h1"))


def test_a_meeple_put_elsewhere_is_an_error_with_the_corners_as_hints():
    state = meeple_phase(red="a1")  # Blue's turn; Red stands on a1
    j = judge(state, cells("a1", "c4"), BOARD)
    assert not j.matches and j.command is None
    assert j.errors == cells("c4") and j.hints == cells("a8", "h1", "h8")
    assert str(j.message) == (
        "A meeple starts on a corner space (a1, a8, h1, h8), not on c4. "
        "Blue's meeple starts on a free corner (a8, h1, h8)."
    )


def test_a_meeple_placed_on_the_phone_must_be_put_on_the_board():
    state = meeple_phase(red="a8")
    j = judge(state, frozenset(), BOARD)
    assert not j.matches and j.missing == cells("a8")
    assert str(j.message) == "Put the board right: put Red's meeple on a8."


# -- moving ------------------------------------------------------------------------------


def test_lifting_the_meeple_to_move_shows_where_it_may_go():
    state = moving()
    j = judge(state, cells("h8"), BOARD)
    assert j.matches and j.lifted == cells("a1")
    assert j.hints == frozenset(maze_cell(d) for d in destinations(state))
    assert cells("a4") <= j.hints  # Red's own cube on a4 stops the meeple there
    assert str(j.message) == "Put Red down in a straight line from a1."


def test_a_legal_placement_is_the_move():
    j = judge(moving(), cells("a4", "h8"), BOARD)
    assert j.matches and j.command == Move(sq("a4")) and j.lifted == cells("a1")


def test_an_illegal_placement_says_why_in_player_words():
    state = moving(red_cubes="c3", blue_cubes="a3 b1")
    j = judge(state, cells("a5", "h8"), BOARD)
    assert not j.matches and j.command is None
    assert j.errors == cells("a5") and j.lifted == cells("a1")
    assert j.hints == cells("a2")  # blocked upwards by Blue's cube, rightwards by b1
    assert str(j.message) == (
        "Red may not stop on a5: Blue's cube lies on a3: a meeple may not enter or pass "
        "a space with an opponent's cube."
    )


def test_a_meeple_put_off_the_crypt_board_is_an_error():
    j = judge(moving(), frozenset({A1_CELL, at("h8")}), BOARD)
    assert j.errors == {A1_CELL}
    assert str(j.message) == (
        "Red may not stop on A1 (off the crypt board): a meeple stays on the crypt board."
    )


def test_a_move_made_for_the_other_player_waits_on_the_board():
    """The computer moved Blue from h8 to h3: a person carries the meeple over."""
    state = moving(to_move=BLUE)
    state, _ = apply(state, Move(sq("h3")))
    j = judge(state, cells("a1", "h8"), BOARD)
    assert not j.matches and j.command is None
    assert j.missing == cells("h3") and j.unexpected == cells("h8")
    assert str(j.message) == "Move Blue's meeple from h8 to h3."
    assert judge(state, cells("a1", "h3"), BOARD).matches


def test_lifting_the_opponents_meeple_asks_to_put_it_back():
    j = judge(moving(), cells("a1"), BOARD)
    assert not j.matches and j.missing == cells("h8")
    assert str(j.message) == "Put the board right: put Blue's meeple on h8."


def test_without_placements_nothing_on_the_board_is_a_move():
    j = judge(moving(), cells("a4", "h8"), BOARD, placements=False)
    assert not j.matches and j.command is None
    assert j.missing == cells("a1") and j.unexpected == cells("a4")


def test_a_player_who_cannot_move_is_told_to_pass():
    state = moving(red_cubes="c3", blue_cubes="a2 b1 c4")
    assert not destinations(state)
    j = judge(state, cells("a1", "h8"), BOARD)
    assert j.matches and str(j.message) == "Red cannot move: pass on the phone."
    lifted = judge(state, cells("h8"), BOARD)
    assert lifted.matches and str(lifted.message) == (
        "Red cannot move: put the meeple back on a1 and pass."
    )


def test_the_chamber_is_offered_on_the_phone():
    state = moving(red_cubes="", blue_cubes="c6", meeples=("d4", "h8"), locks="")
    j = judge(state, cells("d4", "h8"), BOARD)
    assert (
        str(j.message)
        == "Red to move: lift your meeple from d4, or enter the chamber on the phone."
    )


def test_at_game_over_the_board_is_not_judged():
    state = moving(red_cubes="", blue_cubes="c6", meeples=("d4", "h8"), locks="")
    state, _ = apply(state, EnterChamber())
    assert state.is_over
    j = judge(state, frozenset({A1_CELL}), BOARD)
    assert j.matches and j.message is None and not j.unexpected
