"""The tracker's judgement of the board against the game (pure, from RULES.md's flow)."""

from __future__ import annotations

import pytest

from companion.games.mummy.commands import Announce, Move, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.simulate import setup_for
from companion.i18n.catalog import render
from companion.mazes import load_maze
from companion.service.mummy_tracker import BoardMap, _places, judge

FACES = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW)


@pytest.fixture
def board(default_maze):
    return BoardMap.for_board(default_maze.cell_count, 4, 4)


@pytest.fixture
def moving(default_maze):
    """Red has announced a 1 and may step from the camp onto the entrance cell."""
    state, _ = new_game(setup_for(default_maze, 2, 3))
    state, _ = apply(state, Roll(FACES))
    state, _ = apply(state, Announce(Face.ONE))
    return state


def home(board, state):
    return frozenset(board.expected(state).values())


def test_a_board_as_expected_matches(default_maze, board):
    state, _ = new_game(setup_for(default_maze, 2, 3))
    j = judge(state, home(board, state), board)
    assert j.matches and j.command is None and j.message is None


def test_lifting_the_moving_figure_lights_its_cell(board, moving):
    occupied = home(board, moving) - {board.camp[0]}
    j = judge(moving, occupied, board, hints=True)
    assert j.matches and j.lifted == {board.camp[0]}
    assert j.hints == {moving.maze.start[0].cell}
    assert j.hint_pulses == 1, "red's hints pulse once (render.HINT_PULSES)"
    assert str(j.message) == "Put Red down 1 step from camp slot 1."


def test_a_legal_placement_becomes_the_move(board, moving):
    entrance = moving.maze.start[0].cell
    occupied = (home(board, moving) - {board.camp[0]}) | {entrance}
    j = judge(moving, occupied, board)
    assert j.command == Move(entrance)
    assert j.matches


def test_an_illegal_placement_says_why_and_changes_nothing(board, moving):
    far = 0  # A1, nowhere near one step from the camp
    occupied = (home(board, moving) - {board.camp[0]}) | {far}
    j = judge(moving, occupied, board)
    assert j.command is None and not j.matches
    assert j.errors == {far}
    assert j.hints == {moving.maze.start[0].cell}
    assert str(j.message).startswith("Red may not stop on A1: A1 is not exactly 1 step from")


def test_a_figure_put_back_is_waiting_again(board, moving):
    j = judge(moving, home(board, moving), board)
    assert j.matches and not j.lifted and str(j.message) == "Move Red 1 step."


def test_the_wrong_figure_lifted_is_a_restore(board, moving):
    occupied = home(board, moving) - {board.camp[1]}
    j = judge(moving, occupied, board)
    assert not j.matches and j.missing == {board.camp[1]}
    assert "put Turquoise back on camp slot 2" in str(j.message)


def test_two_hands_at_once_is_a_restore(board, moving):
    entrance = moving.maze.start[0].cell
    occupied = (home(board, moving) - {board.camp[0], board.camp[1]}) | {entrance}
    j = judge(moving, occupied, board)
    assert j.command is None and not j.matches
    assert j.missing == {board.camp[0], board.camp[1]} and j.unexpected == {entrance}


def test_a_knocked_figure_outside_a_move_is_a_restore(default_maze, board):
    state, _ = new_game(setup_for(default_maze, 3, 3))
    occupied = (home(board, state) - {board.camp[2]}) | {40}
    j = judge(state, occupied, board)
    assert not j.matches
    assert (
        str(j.message) == "Restore the board: take the figure off E4; put Blue back on camp slot 3."
    )


def test_a_caught_figure_must_go_to_the_sarcophagus(default_maze, board):
    state, _ = new_game(setup_for(default_maze, 2, 3))
    cell = 60
    caught = state.evolve(positions=(default_maze.sarcophagus_node, state.positions[1]), mummy=cell)
    occupied = frozenset({cell, board.camp[1]})  # the figure still stands where it was caught
    j = judge(caught, occupied, board)
    assert not j.matches
    assert j.missing == {board.sarcophagus[0]} and j.unexpected == {cell}
    # In the order hands do it: off the cell where it was caught, into the sarcophagus.
    assert str(j.message) == (
        "Red was caught. Take the figure off A6 and put it into the sarcophagus."
    )
    assert render(j.message, "de") == (
        "Rot wurde gefangen. Nimm die Figur von A6 und stell sie in den Sarkophag."
    )


def test_a_figure_never_in_the_sarcophagus_is_put_into_it_not_back(default_maze, board):
    """Caught, and lifted off its cell before it went into the sarcophagus: it goes in,
    it is not "put back" where it never stood."""
    state, _ = new_game(setup_for(default_maze, 2, 3))
    caught = state.evolve(positions=(default_maze.sarcophagus_node, state.positions[1]), mummy=60)
    j = judge(caught, frozenset({board.camp[1]}), board)
    assert str(j.message) == "Restore the board: put Red into the sarcophagus (slot 1)."
    assert "back on" not in str(j.message)
    assert render(j.message, "de") == (
        "Stell das Brett wieder her: Stell Rot in den Sarkophag (Platz 1)."
    )


def test_stray_figures_on_several_slots_read_as_a_list():
    state, _ = new_game(setup_for(load_maze(None)[0], 4, 1))
    board = BoardMap.for_board(144, 4, 4)
    assert str(_places(board, state, frozenset({146, 147}))) == "camp slots 3 and 4"
    assert str(_places(board, state, frozenset({3, 146, 150}))) == (
        "D1, camp slot 3 and sarcophagus slot 3"
    )
