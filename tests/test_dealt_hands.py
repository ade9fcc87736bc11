"""Mission cards dealt by hand (physical cards the seekers entered): ``Setup.hands``."""

from __future__ import annotations

import pytest

from companion.games.mummy.commands import Announce, Move, PlayCard, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import RuleError, apply, new_game
from companion.games.mummy.maze import Maze, Treasure, parse_cell_name
from companion.games.mummy.record import replay, setup_to_json, write_record
from companion.games.mummy.simulate import setup_for
from companion.journal import Journal
from companion.mazes import load_maze
from companion.service.loop import ServiceError
from companion.service.mummy_service import Service
from companion.service.mummy_tracker import BoardMap

RED = ("B4", "F4", "J4", "A1", "A11")
BLUE = ("D5", "H5", "L5", "C2", "L11")


def hand(maze: Maze, cells: tuple[str, ...]) -> tuple[Treasure, ...]:
    found = [maze.treasure_at(parse_cell_name(c, maze.width, maze.height)) for c in cells]
    assert all(t is not None for t in found)
    return tuple(t for t in found if t is not None)


def dealt(maze: Maze, *hands: tuple[str, ...], seekers: int = 2):
    setup = setup_for(maze, seekers, seed=3)
    return setup.__class__(
        maze=setup.maze,
        seekers=setup.seekers,
        seed=setup.seed,
        options=setup.options,
        hands=tuple(hand(maze, h) for h in hands),
    )


def test_the_dealt_hands_are_the_seekers_cards(default_maze):
    state, _ = new_game(dealt(default_maze, RED, BLUE))
    assert state.hands == (hand(default_maze, RED), hand(default_maze, BLUE))
    assert state.played == ((), ())


def test_a_dealt_card_plays_like_a_shuffled_one(default_maze):
    """Red, one step from the red scarab of the dealt hand, goes there and plays it."""
    maze = default_maze
    state, _ = new_game(dealt(maze, RED, BLUE))
    scarab = hand(maze, RED)[0]
    state = state.evolve(positions=(maze.adjacent[scarab.cell][0], state.positions[1]))
    throw = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW)
    for command in (Roll(throw), Announce(Face.ONE), Move(scarab.cell)):
        state, _ = apply(state, command)
    state, events = apply(state, PlayCard())
    assert events[0].kind == "card_played"
    assert state.played[0] == (scarab,) and len(state.hands[0]) == 4


@pytest.mark.parametrize(
    ("hands", "words"),
    [
        ((RED,), "Enter the cards of every seeker: 2 hands are needed."),
        (
            (RED, ("B4", "H5", "L5", "C2", "L11")),
            "The card of the red scarab cannot be in two hands.",
        ),
        ((RED, ("D5", "B9", "L5", "C2", "L11")), "Turquoise needs one card of each colour"),
        ((RED, ("D5", "H5", "L5", "C2")), "Turquoise needs one card of each colour: 0 of Yellow"),
    ],
)
def test_wrong_hands_are_refused_in_words(default_maze, hands, words):
    with pytest.raises(RuleError, match=words.replace("(", r"\(")):
        new_game(dealt(default_maze, *hands))


def test_the_two_player_game_deals_two_of_each_colour(default_maze):
    state, _ = new_game(dealt(default_maze, RED + BLUE, seekers=1))
    assert len(state.hands[0]) == 10
    with pytest.raises(RuleError, match="needs 2 cards of each colour"):
        new_game(dealt(default_maze, RED, seekers=1))


def test_a_card_of_another_maze_is_refused(default_maze):
    setup = dealt(default_maze, RED, BLUE)
    stranger = Treasure(cell=0, colour=setup.hands[0][0].colour, name="paper crown")
    bad = setup.__class__(
        maze=setup.maze,
        seekers=setup.seekers,
        seed=0,
        options=setup.options,
        hands=((stranger, *setup.hands[0][1:]), setup.hands[1]),
    )
    with pytest.raises(RuleError, match="no such treasure here"):
        new_game(bad)


def test_the_dealt_hands_are_in_the_game_record(default_maze, default_maze_text):
    setup = dealt(default_maze, RED, BLUE)
    data = setup_to_json(setup, default_maze_text)
    assert data["hands"] == [list(RED), list(BLUE)]
    text = write_record(setup, default_maze_text, [Roll()])
    replayed = replay(text)
    assert replayed.setup == setup
    assert replayed.state.hands == (hand(default_maze, RED), hand(default_maze, BLUE))
    assert "hands" not in setup_to_json(setup_for(default_maze, 2, 3), default_maze_text)


def test_the_service_starts_and_resumes_a_game_with_dealt_hands(tmp_path):
    maze, text = load_maze(None)
    board = BoardMap.for_board(maze.cell_count, 4, 4)
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        service = Service(maze=maze, maze_text=text, journal=journal, board=board)
        service.new_game(["red", "blue"], hands=[list(RED), list(BLUE)])
        assert service.game.current.hands[1] == hand(maze, BLUE)
        with pytest.raises(ServiceError, match="There is no treasure on E5"):
            service.new_game(["red", "blue"], hands=[list(RED), ["E5"]])
        with pytest.raises(RuleError, match="Red needs one card of each colour: 2 of Red"):
            service.new_game(["red", "blue"], hands=[["B4", "D5", "J4", "A1", "A11"], list(BLUE)])
    with Journal(path) as journal:
        resumed = Service(maze=maze, maze_text=text, journal=journal, board=board)
        assert resumed.game.current.hands == (hand(maze, RED), hand(maze, BLUE))
