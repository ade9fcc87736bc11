"""Scenario tests for every rule of the mummy maze (RULES.md, section 1).

Each test is written from the rules text and quotes the rule it checks in its
docstring.  The engine is driven only through its public API: ``new_game``,
``apply`` with physical dice (``Roll(faces=...)``, ``RollMummyDie(value=...)``) so
every outcome is fixed, and ``State.evolve`` to put figures and the mummy where a
scenario needs them.

The test maze (6x6, cells "A1" top left to "F6" bottom right)::

        sarc          sarc
      +  +--+--+--+--+  +
    1 |                 |     row 1: open corridor A1..F1
      +  +--+--+--+--+--+
    2 |                 |     row 2: corridor A2..F2 (arrow slides), joined at A1 and F3
      +--+--+--+--+--+  +
    3 |     |  |        |     C3: walls north, west and east
      +  +  +  +  +  +  +
    4 |     |           |
      +  +  +  +  +  +  +
    5 |        |        |
      +  +  +  +  +  +  +
    6 |  |  |  |        |     A6, B6: dead ends (open only to the north)
      +--+--+  +--+--+--+
             start            the start field lies south of C6; column C3..C6 is straight
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from companion.games.mummy.commands import (
    Announce,
    Command,
    EndMummyMove,
    EndTurn,
    Move,
    MummyStep,
    PlayCard,
    Resolve,
    Roll,
    RollMummyDie,
)
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import RuleError, apply, make_setup, new_game
from companion.games.mummy.events import (
    Announced,
    CardPlayed,
    DiceRolled,
    Event,
    FigureMoved,
    GameWon,
    MummyDieRolled,
    MummyMoved,
    MummyMoveEnded,
    MummyMoveStarted,
    MummyTurnStarted,
    Resolved,
    SeekerCaught,
    SeekerOut,
    SeekerSkipped,
    TurnLost,
    TurnStarted,
)
from companion.games.mummy.maze import Colour, Maze, Treasure, parse_cell_name
from companion.games.mummy.maze_file import parse_maze
from companion.games.mummy.moves import can_move_at_all, legal_destinations, mummy_steps
from companion.games.mummy.state import (
    FigureColour,
    MummyMoveKind,
    Options,
    Phase,
    State,
)
from companion.games.mummy.views import mummy_view, seeker_view, table_view, visible_events

ONE, TWO, THREE, FOUR = Face.ONE, Face.TWO, Face.THREE, Face.FOUR
ARROW, MUMMY = Face.ARROW, Face.MUMMY

MAZE_TEXT = """\
# Hand-drawn test maze for the rules tests.
name: Test pyramid
start: C6 south
sarcophagus: A1 north, F1 north
treasure: B1 red scarab
treasure: C1 blue vase
treasure: D1 white mask
treasure: E1 green ring
treasure: B2 red dagger
treasure: C2 blue crown
treasure: E2 white idol
treasure: F2 yellow key
treasure: A3 red goblet
treasure: B3 blue bowl
treasure: C3 white lamp
treasure: D3 green bird
treasure: E3 yellow coin
treasure: B4 red amulet
treasure: C4 blue mirror
treasure: D4 white staff
treasure: E4 green jar
treasure: F4 yellow fan
treasure: B5 red snake
treasure: C5 blue cat
treasure: D5 white sphinx
treasure: E5 green book
treasure: F5 yellow bell
maze:
+  +--+--+--+--+  +
|                 |
+  +--+--+--+--+--+
|                 |
+--+--+--+--+--+  +
|     |  |        |
+  +  +  +  +  +  +
|     |           |
+  +  +  +  +  +  +
|        |        |
+  +  +  +  +  +  +
|  |  |  |        |
+--+--+  +--+--+--+
"""

#: Seeker colours for games with 1 to 4 seekers (in turn order).
COLOURS = {
    1: ("red",),
    2: ("red", "blue"),
    3: ("red", "turquoise", "blue"),
    4: ("red", "turquoise", "blue", "violet"),
}


# -- fixtures and helpers ----------------------------------------------------------


@pytest.fixture(scope="module")
def maze() -> Maze:
    return parse_maze(MAZE_TEXT)


def start_game(maze: Maze, seekers: int = 2, **options: Any) -> State:
    setup = make_setup(maze, COLOURS[seekers], options=Options(**options) if options else None)
    state, _ = new_game(setup)
    return state


@pytest.fixture
def game2(maze: Maze) -> State:
    """Two seekers (red, blue): red begins."""
    return start_game(maze, 2)


@pytest.fixture
def game3(maze: Maze) -> State:
    """Three seekers (red, turquoise, blue)."""
    return start_game(maze, 3)


@pytest.fixture
def solo(maze: Maze) -> State:
    """The two-player game: one seeker with two figures."""
    return start_game(maze, 1)


def at(name: str) -> int:
    """Cell number of a cell name of the 6x6 test maze."""
    return parse_cell_name(name, 6, 6)


def node(maze: Maze, where: str) -> int:
    if where == "start":
        return maze.start_node
    if where == "sarc":
        return maze.sarcophagus_node
    if where == "out":
        return -1
    return at(where)


def place(
    state: State,
    figures: dict[int, str] | None = None,
    *,
    mummy: str | None = None,
    **fields: Any,
) -> State:
    """Put figures (by figure number) and the mummy on nodes: "C2", "start", "sarc", "out"."""
    changes = dict(fields)
    if figures:
        positions = list(state.positions)
        for figure, where in figures.items():
            positions[figure] = node(state.maze, where)
        changes["positions"] = tuple(positions)
    if mummy is not None:
        changes["mummy"] = node(state.maze, mummy)
    return state.evolve(**changes)


def treasure(maze: Maze, name: str) -> Treasure:
    found = maze.treasure_at(at(name))
    assert found is not None, f"no treasure on {name}"
    return found


def give(state: State, seeker: int, *cells: str) -> State:
    """Set a seeker's hand to the cards of the treasures on ``cells``."""
    cards = tuple(treasure(state.maze, c) for c in cells)
    hands = tuple(
        cards if i == seeker else tuple(t for t in hand if t not in cards)
        for i, hand in enumerate(state.hands)
    )
    return state.evolve(hands=hands)


RED_HAND = ("B2", "C1", "D1", "E1", "F2")  # dagger, vase, mask, ring, key
BLUE_HAND = ("B1", "C2", "E2", "D3", "E3")  # scarab, crown, idol, bird, coin


def deal_fixed(state: State) -> State:
    """Known hands for a two-seeker game: one card of each colour each."""
    return give(give(state, 0, *RED_HAND), 1, *BLUE_HAND)


def run(state: State, *commands: Command) -> tuple[State, list[Event]]:
    """Apply commands one after the other; return the last state and all events."""
    events: list[Event] = []
    for command in commands:
        state, more = apply(state, command)
        events.extend(more)
    return state, events


def roll(*faces: Face) -> Roll:
    return Roll(faces=tuple(faces))


def walk(state: State, *cells: str) -> tuple[State, list[Event]]:
    """The mummy steps through ``cells`` one step at a time."""
    return run(state, *(MummyStep(at(c)) for c in cells))


def assert_readable(message: str) -> None:
    """A RuleError message a player understands: a sentence, no Python internals."""
    assert message, "empty message"
    assert message[0].isalnum(), message
    assert message.endswith("."), message
    for internal in ("Traceback", "<", ">", "Face.", "Phase.", "None", "object at", "{"):
        assert internal not in message, message


def rejects(state: State, command: Command, match: str) -> str:
    """``command`` raises RuleError (message matching ``match``) and changes nothing."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError, match=match) as info:
        apply(state, command)
    assert state == before
    message = str(info.value)
    assert_readable(message)
    return message


MOVE_ORDER = (ONE, TWO, THREE, FOUR, ARROW)


def take_turn(
    state: State,
    faces: Iterable[Face] | None = None,
    *,
    face: Face | None = None,
    to: str | None = None,
) -> tuple[State, list[Event]]:
    """One whole seeker turn: roll ``faces``, announce ``face`` and move to ``to``.

    Defaults: roll 1, 2, 3, ... on every free die, announce the first face that can
    be moved, move to the lowest-numbered legal cell, do not play a card.
    """
    assert state.phase is Phase.SEEKER_TURN, state.phase
    if faces is None:
        faces = MOVE_ORDER[: 5 - state.dice_out]
    state, events = run(state, Roll(faces=tuple(faces)))
    if state.phase is not Phase.SEEKER_ROLLED:
        return state, events  # all five dice showed the mummy
    if face is None:
        face = next(f for f in state.roll if legal_destinations(state, state.figure, f))
    dest = legal_destinations(state, state.figure, face)[0] if to is None else at(to)
    state, more = run(state, Announce(face), Move(dest))
    events += more
    if state.phase is Phase.SEEKER_CARD:
        state, more = run(state, EndTurn())
        events += more
    return state, events


def to_mummy_turn(state: State) -> tuple[State, list[Event]]:
    """Let every seeker who still has the turn take a plain turn."""
    events: list[Event] = []
    for _ in range(8):
        if state.phase is not Phase.SEEKER_TURN:
            break
        state, more = take_turn(state)
        events += more
    assert state.phase is Phase.MUMMY_ROLL, state.phase
    return state, events


def of_type(events: list[Event], kind: type[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def names(cells: Iterable[int]) -> list[str]:
    return [f"{chr(ord('A') + c % 6)}{c // 6 + 1}" for c in cells]


def dests(state: State, face: Face, figure: int | None = None) -> list[str]:
    return names(legal_destinations(state, state.figure if figure is None else figure, face))


# -- the test maze itself ------------------------------------------------------------


def test_test_maze_is_a_valid_game_maze(maze: Maze) -> None:
    """Components: 23 treasures, 5 red, 5 blue, 5 white, 4 green, 4 yellow; a start
    field and a sarcophagus with two openings."""
    counts = Counter(t.colour for t in maze.treasures)
    assert counts == {
        Colour.RED: 5,
        Colour.BLUE: 5,
        Colour.WHITE: 5,
        Colour.GREEN: 4,
        Colour.YELLOW: 4,
    }
    assert len({t.cell for t in maze.treasures}) == 23
    assert len(maze.start) == 1
    assert len(maze.sarcophagus) == 2
    assert names(maze.adjacent[at("A6")]) == ["A5"]  # a dead end
    assert names(maze.adjacent[at("C3")]) == ["C4"]


# -- setup -----------------------------------------------------------------------------


@pytest.mark.parametrize("seekers", [2, 3, 4])
def test_setup_mummy_in_sarcophagus_seekers_on_start_with_three_ankhs(
    maze: Maze, seekers: int
) -> None:
    """Setup: "The mummy starts on the sarcophagus. Every seeker starts on the start
    field with 3 ankhs." Order of play: "The seeker to the mummy's left begins"."""
    setup = make_setup(maze, COLOURS[seekers])
    state, events = new_game(setup)
    assert state.mummy == maze.sarcophagus_node
    assert state.positions == (maze.start_node,) * seekers
    assert state.ankhs == (3,) * seekers
    assert state.mummy_ankhs == 0
    assert state.dice_out == 0
    assert state.phase is Phase.SEEKER_TURN
    assert state.figure == 0
    assert events == [TurnStarted(0)]


@pytest.mark.parametrize("seekers", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_setup_deals_one_card_of_each_colour(maze: Maze, seekers: int, seed: int) -> None:
    """Setup: "each seeker gets one card of each colour, kept secret. The remaining
    cards are set aside unseen." """
    state, _ = new_game(make_setup(maze, COLOURS[seekers], seed=seed))
    dealt: list[Treasure] = []
    for hand in state.hands:
        assert sorted(t.colour.value for t in hand) == sorted(c.value for c in Colour)
        dealt.extend(hand)
    assert len(set(dealt)) == 5 * seekers  # nobody shares a card
    assert set(dealt) <= set(maze.treasures)
    assert state.played == ((),) * seekers


def test_two_player_setup(maze: Maze) -> None:
    """Two players: "The seeker plays two figures with both figures' ankhs (6), holds
    10 cards (two of each colour)"."""
    setup = make_setup(maze, ("red",))
    assert len(setup.seekers) == 1
    assert len(setup.seekers[0]) == 2
    assert setup.seekers[0][0] is FigureColour.RED
    state, _ = new_game(setup)
    assert state.positions == (maze.start_node, maze.start_node)
    assert state.ankhs == (6,)
    assert len(state.hands) == 1
    assert Counter(t.colour for t in state.hands[0]) == dict.fromkeys(Colour, 2)
    assert len(set(state.hands[0])) == 10
    assert state.mummy == maze.sarcophagus_node


@pytest.mark.parametrize(
    "colours",
    [(), ("red", "red"), ("red", "blue", "turquoise", "violet", "red")],
)
def test_setup_needs_one_to_four_seekers_of_distinct_colours(
    maze: Maze, colours: tuple[str, ...]
) -> None:
    """Components: "Up to 4 seeker figures: red, turquoise, blue, violet"; one player
    is the mummy, "the others (1 to 4 people) are seekers"."""
    with pytest.raises(RuleError) as info:
        make_setup(maze, colours)
    assert_readable(str(info.value))


# -- order of play ----------------------------------------------------------------------


def test_every_seeker_in_turn_then_the_mummy_then_every_seeker_again(game3: State) -> None:
    """Order of play: "every seeker in turn, then the mummy, then every seeker again,
    and so on." The mummy's normal move comes "after the last seeker"."""
    state = game3
    order = []
    for _ in range(3):
        order.append(state.figure)
        state, events = take_turn(state)
    assert order == [0, 1, 2]
    assert state.phase is Phase.MUMMY_ROLL
    assert state.is_mummy_turn
    assert MummyTurnStarted(0) in events
    state, events = run(state, RollMummyDie(1), MummyStep(at("A1")))
    assert state.phase is Phase.SEEKER_TURN
    assert state.figure == 0
    assert TurnStarted(0) in events
    assert state.rounds == 1


def test_two_player_game_both_figures_move_in_the_same_order_before_the_mummy(
    solo: State,
) -> None:
    """Two players: the seeker "makes a normal seeker turn with each figure, always in
    the same order, before the mummy moves"."""
    state = solo
    assert (state.figure, state.seeker) == (0, 0)
    state, _ = take_turn(state)
    assert (state.figure, state.seeker) == (1, 0)
    state, _ = take_turn(state)
    assert state.phase is Phase.MUMMY_ROLL
    state, _ = run(state, RollMummyDie(1), MummyStep(at("F1")))
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 0)
    state, _ = take_turn(state)
    assert state.figure == 1


# -- resolve ------------------------------------------------------------------------------


def test_resolve_needs_mummy_dice_lying_out(game2: State) -> None:
    """A seeker's turn, 1. Resolve: "if dice showing the mummy face are lying out from
    earlier seekers' turns, the seeker may resolve them"."""
    rejects(game2, Resolve(), "nothing to resolve")


def test_resolve_only_before_rolling(game2: State) -> None:
    """A seeker's turn: Resolve is step 1, before 2. Roll."""
    state, _ = take_turn(game2, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    assert (state.figure, state.dice_out) == (1, 2)
    state, _ = run(state, roll(ONE, TWO, THREE))
    rejects(state, Resolve(), "cannot resolve now")


def test_resolve_makes_an_intermediate_move_then_the_seeker_rolls_all_five(
    game2: State,
) -> None:
    """Resolve: "The mummy immediately makes an intermediate move (as many steps as
    mummy faces lying out, without the mummy die); then all five dice are free again
    and the seeker rolls all five." """
    state, _ = take_turn(game2, (MUMMY, MUMMY, MUMMY, ONE, TWO), face=ONE)
    state = place(state, {0: "C6", 1: "C2"}, mummy="E5")
    assert (state.figure, state.dice_out) == (1, 3)
    state, events = run(state, Resolve())
    assert events == [Resolved(1, 3, forced=False), MummyMoveStarted(MummyMoveKind.RESOLVE, 3)]
    assert state.phase is Phase.MUMMY_MOVING
    assert state.steps_left == 3
    rejects(state, RollMummyDie(4), "cannot roll the mummy die now")  # no mummy die
    state, events = walk(state, "E4", "E3", "D3")
    assert of_type(events, MummyMoveEnded) == [MummyMoveEnded(at("D3"))]
    assert state.phase is Phase.SEEKER_TURN
    assert state.figure == 1
    assert state.dice_out == 0
    rejects(state, Resolve(), "only at the start of the turn")
    rejects(state, roll(ONE, TWO), "Roll 5 dice")
    state, _ = run(state, roll(ONE, TWO, THREE, FOUR, ARROW))
    assert state.roll == (ONE, TWO, THREE, FOUR, ARROW)


def test_intermediate_move_may_stop_early_by_default(game2: State) -> None:
    """The mummy's turn: "Decision (German 'darf ziehen'): up to that many steps; it may
    stop early"; the intermediate move follows "otherwise the same rules"."""
    state, _ = take_turn(game2, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    state, _ = run(state, Resolve(), MummyStep(at("A1")), EndMummyMove())
    assert state.mummy == at("A1")
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 1, 0)


def test_next_seeker_may_resolve_dice_left_by_an_earlier_seeker(game3: State) -> None:
    """Resolve: dice "lying out from earlier seekers' turns" may be resolved by the next
    seeker; a seeker who does not resolve rolls only the free dice."""
    state, _ = take_turn(game3, (MUMMY, ONE, TWO, THREE, FOUR), face=ONE)
    state, _ = take_turn(state, (MUMMY, ONE, TWO, THREE), face=TWO)
    assert (state.figure, state.dice_out) == (2, 2)
    state, events = run(state, Resolve())
    assert MummyMoveStarted(MummyMoveKind.RESOLVE, 2) in events


# -- rolling ------------------------------------------------------------------------------


def test_roll_sets_mummy_faces_aside(game2: State) -> None:
    """2. Roll: "roll every die that is not lying out mummy-up (at the start of the
    game: all five). Every die that shows the mummy is set aside mummy-up and stays
    out." """
    state, events = run(game2, roll(MUMMY, ONE, MUMMY, ARROW, FOUR))
    assert events == [DiceRolled(0, (MUMMY, ONE, MUMMY, ARROW, FOUR), 2)]
    assert state.dice_out == 2
    assert state.roll == (ONE, ARROW, FOUR)
    assert state.phase is Phase.SEEKER_ROLLED


def test_reroll_only_with_the_dice_that_did_not_show_the_mummy(game2: State) -> None:
    """2. Roll: "they may roll again, but only with the dice that did not show the
    mummy; this may be repeated any number of times, each time setting aside new
    mummy dice." """
    state, _ = run(game2, roll(MUMMY, ONE, MUMMY, ARROW, FOUR))
    rejects(state, roll(ONE, TWO, THREE, FOUR, ARROW), "Roll 3 dice: 2 lie out mummy-up")
    state, _ = run(state, roll(MUMMY, TWO, TWO))
    assert (state.dice_out, state.roll) == (3, (TWO, TWO))
    state, _ = run(state, roll(ONE, ONE))
    assert (state.dice_out, state.roll) == (3, (ONE, ONE))
    state, _ = run(state, roll(FOUR, MUMMY))
    assert (state.dice_out, state.roll) == (4, (FOUR,))
    rejects(state, roll(ONE, ONE), "Roll 1 dice")
    state, _ = run(state, roll(THREE))
    assert (state.dice_out, state.roll) == (4, (THREE,))


@pytest.mark.parametrize("count", [0, 1, 4, 6])
def test_entering_the_wrong_number_of_dice_is_an_error(game2: State, count: int) -> None:
    """2. Roll: "at the start of the game: all five" dice are rolled."""
    rejects(game2, Roll(faces=(ONE,) * count), "Roll 5 dice")


def test_entering_the_wrong_number_of_dice_with_dice_out(game2: State) -> None:
    """2. Roll: "roll every die that is not lying out mummy-up"."""
    state, _ = take_turn(game2, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    rejects(state, roll(ONE, TWO, THREE, FOUR, ARROW), "Roll 3 dice: 2 lie out")
    rejects(state, roll(ONE, TWO), "Roll 3 dice")
    state, _ = run(state, roll(ONE, TWO, THREE))
    assert state.dice_out == 2


def test_mummy_dice_stay_out_across_seeker_turns(game3: State) -> None:
    """2. Roll: a mummy die "is set aside mummy-up and stays out" for the next seekers."""
    state, _ = take_turn(game3, (MUMMY, ONE, TWO, THREE, FOUR), face=ONE)
    assert (state.figure, state.dice_out) == (1, 1)
    rejects(state, roll(ONE, TWO, THREE, FOUR, ARROW), "Roll 4 dice")
    state, _ = take_turn(state, (MUMMY, MUMMY, TWO, THREE), face=TWO)
    assert (state.figure, state.dice_out) == (2, 3)
    state, events = run(state, roll(ONE, TWO))
    assert events == [DiceRolled(2, (ONE, TWO), 3)]


def test_mummy_dice_stay_out_after_the_mummys_normal_move_and_keep_counting(
    game2: State,
) -> None:
    """The mummy's turn: "After a normal move the mummy dice on the seeker dice stay
    out and keep counting; only a seeker's Resolve clears them." """
    state, _ = take_turn(game2, (MUMMY, ONE, TWO, THREE, FOUR), face=ONE)
    state, _ = take_turn(state, (MUMMY, ONE, TWO, THREE), face=TWO)
    assert state.phase is Phase.MUMMY_ROLL
    state, events = run(state, RollMummyDie(1))
    assert MummyDieRolled(1, 3) in events
    state, _ = run(state, MummyStep(at("F1")), EndMummyMove())
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 0, 2)
    state, _ = take_turn(state, (ONE, TWO, THREE))
    state, _ = take_turn(state, (ONE, TWO, THREE))
    assert state.phase is Phase.MUMMY_ROLL
    state, events = run(state, RollMummyDie(1))
    assert MummyDieRolled(1, 3) in events
    assert state.steps_left == 3


# -- announcing -----------------------------------------------------------------------


def test_announce_only_a_face_of_the_last_roll(game2: State) -> None:
    """3. Move: "the seeker picks one of the dice of the last roll that shows 1, 2, 3, 4
    or arrow, announces it aloud"."""
    state, _ = run(game2, roll(ONE, TWO, ONE, TWO, MUMMY))
    rejects(state, Announce(FOUR), "No die of this roll shows 4: choose one of 1, 2, 1 and 2")
    rejects(state, Announce(ARROW), "No die of this roll shows the arrow")
    rejects(state, Announce(MUMMY), "No die of this roll shows mummy")
    state, _ = run(state, roll(FOUR, THREE, THREE, FOUR))  # the last roll counts
    rejects(state, Announce(ONE), "No die of this roll shows 1")
    state, events = run(state, Announce(FOUR))
    assert events == [Announced(0, FOUR)]
    assert state.phase is Phase.SEEKER_MOVING
    assert state.announced is FOUR


def test_announce_needs_a_roll_first(game2: State) -> None:
    """A seeker's turn: 3. Move comes after 2. Roll."""
    rejects(game2, Announce(ONE), "cannot announce a die now")
    rejects(game2, Move(at("C6")), "cannot move the figure now")


def test_announced_value_is_told_to_the_mummy_but_not_the_destination(game2: State) -> None:
    """3. Move: the seeker "announces it aloud (the mummy learns the value, never the
    path or destination)"."""
    state, events = run(game2, roll(ONE, TWO, THREE, FOUR, ARROW), Announce(TWO))
    assert Announced(0, TWO) in visible_events(events, "mummy")
    assert mummy_view(state)["announced"] == "2"
    state, events = run(state, Move(at("C5")))
    assert FigureMoved(0, state.maze.start_node, at("C5")) in events
    assert not of_type(visible_events(events, "mummy"), FigureMoved)


def test_a_number_that_cannot_be_moved_is_refused_with_a_hint(game2: State) -> None:
    """3. Move: "A number must be moved in full. If it cannot be, the seeker must roll
    again (step 2)." """
    # Red in the dead end A6, Blue in front of it on A5: 1 would end on Blue and the
    # arrow cannot leave A6; 2 jumps Blue.
    state = place(game2, {0: "A6", 1: "A5"}, mummy="E5")
    state, _ = run(state, roll(ONE, ARROW, ONE, ARROW, ONE))
    message = rejects(state, Announce(ONE), "try another die or roll again")
    assert message.startswith("1 cannot be moved")
    rejects(state, Announce(ARROW), "try another die or roll again")
    state, _ = run(state, roll(ARROW, ONE, TWO, ONE, ONE))  # roll again
    state, _ = run(state, Announce(TWO))
    assert dests(state, TWO) == ["A4", "B5", "A6"]
    state, _ = run(state, Move(at("B5")))
    assert state.positions[0] == at("B5")


# -- number moves -----------------------------------------------------------------------


def test_number_move_has_exact_length_and_may_revisit_cells(game2: State) -> None:
    """3. Move: "Only orthogonal steps; changes of direction are allowed; the same cell
    may be entered several times in one move (going back and forth). A number must be
    moved in full." """
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    assert dests(state, ONE) == ["B2", "D2"]
    assert dests(state, THREE) == ["A1", "B2", "D2", "F2"]  # B2, D2: back and forth
    assert dests(state, FOUR) == ["B1", "A2", "C2", "E2", "F3"]
    state, _ = run(state, roll(THREE, ONE, ONE, ONE, ONE), Announce(THREE))
    rejects(state, Move(at("E2")), "E2 is not exactly 3 steps from C2")  # 2 steps away
    rejects(state, Move(at("F3")), "not exactly 3 steps")  # 4 steps away
    rejects(state, Move(at("C2")), "not exactly 3 steps")
    state, _ = run(state, Move(at("D2")))
    assert state.positions[0] == at("D2")


def test_number_move_may_return_to_its_own_cell(game2: State) -> None:
    """3. Move: "the same cell may be entered several times in one move (going back
    and forth)": C2 -> B2 -> C2 moves a 2 in full."""
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    assert dests(state, TWO) == ["A2", "C2", "E2"]


def test_number_move_may_jump_over_seekers(game3: State) -> None:
    """3. Move: "With a number, other seekers may be jumped over (their cells count as
    steps)"."""
    state = place(game3, {0: "C2", 1: "D2", 2: "E6"}, mummy="E5")
    assert "F2" in dests(state, THREE)  # only reachable through D2
    state, events = run(state, roll(THREE, ONE, ONE, ONE, ONE), Announce(THREE), Move(at("F2")))
    assert FigureMoved(0, at("C2"), at("F2")) in events
    assert state.positions[:2] == (at("F2"), at("D2"))


def test_number_move_never_ends_on_an_occupied_cell(game3: State) -> None:
    """3. Move: "a move never ends on an occupied cell: one figure per cell"."""
    state = place(game3, {0: "C2", 1: "D2", 2: "E6"}, mummy="E5")
    assert dests(state, ONE) == ["B2"]
    state, _ = run(state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE))
    rejects(state, Move(at("D2")), "Turquoise stands on D2")
    state, _ = run(state, Move(at("B2")))
    assert state.positions[0] == at("B2")


def test_walls_are_obstacles_for_seekers(game2: State) -> None:
    """3. Move: "Walls ... are obstacles: never entered, never crossed." """
    state = place(game2, {0: "B2", 1: "E6"}, mummy="E5")
    assert dests(state, ONE) == ["A2", "C2"]  # B1 and B3 lie behind walls
    assert "B4" not in dests(state, TWO)  # B2 -> B3 -> B4 would cross a wall
    state, _ = run(state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE))
    rejects(state, Move(at("B1")), "not exactly 1 step from")
    rejects(state, Move(at("B3")), "walls and the mummy block the way")


def test_the_mummys_cell_is_never_entered_nor_crossed(game2: State) -> None:
    """3. Move: "Walls and the mummy's cell are obstacles: never entered, never
    crossed." """
    state = place(game2, {0: "C2", 1: "E6"}, mummy="D2")
    assert dests(state, ONE) == ["B2"]
    assert dests(state, THREE) == ["A1", "B2"]  # F2 would cross the mummy
    rolled, _ = run(state, roll(ONE, THREE, ONE, ONE, ONE))
    moving, _ = run(rolled, Announce(ONE))
    rejects(moving, Move(at("D2")), "The mummy stands on D2")
    moving, _ = run(rolled, Announce(THREE))
    rejects(moving, Move(at("F2")), "not exactly 3 steps")


def test_no_figure_moves_onto_the_start_or_into_the_sarcophagus(game2: State) -> None:
    """3. Move: "No figure ever moves onto the start field or into the sarcophagus." """
    maze = game2.maze
    state = place(game2, {0: "A1", 1: "C6"}, mummy="E5")
    assert dests(state, ONE) == ["B1", "A2"]
    # A1 -> sarcophagus -> F1 would be two steps: rooms are never passed through.
    assert dests(state, TWO) == ["A1", "C1", "B2"]
    assert dests(state, ONE, figure=1) == ["C5"]
    for face in MOVE_ORDER:
        for figure in (0, 1):
            assert all(maze.is_cell(c) for c in legal_destinations(state, figure, face))
    state, _ = run(state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE))
    rejects(state, Move(maze.sarcophagus_node), "into the sarcophagus")
    rejects(state, Move(maze.start_node), "onto the start field")


# -- arrow moves --------------------------------------------------------------------------


def test_arrow_slides_to_the_last_cell_before_a_wall(game2: State) -> None:
    """3. Move: "With the arrow, the figure goes straight, horizontally or vertically,
    to the last cell before the next obstacle." """
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    assert dests(state, ARROW) == ["A2", "F2"]
    state, _ = run(state, roll(ARROW, ONE, ONE, ONE, ONE), Announce(ARROW))
    rejects(state, Move(at("E2")), "slides straight from C2")
    state, events = run(state, Move(at("F2")))
    assert FigureMoved(0, at("C2"), at("F2")) in events


def test_arrow_stops_before_the_mummy(game2: State) -> None:
    """3. Move, arrow: "Obstacles here are: the mummy, other seekers, walls, the start
    field, the sarcophagus." """
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E2")
    assert dests(state, ARROW) == ["A2", "D2"]


def test_arrow_stops_before_other_seekers(game3: State) -> None:
    """3. Move, arrow: other seekers are obstacles (no jumping with the arrow)."""
    state = place(game3, {0: "C2", 1: "B2", 2: "E2"}, mummy="E5")
    assert dests(state, ARROW) == ["D2"]


def test_arrow_stops_before_the_start_field(game2: State) -> None:
    """3. Move, arrow: the start field is an obstacle (C3 slides south to C6)."""
    state = place(game2, {0: "C3", 1: "E6"}, mummy="E5")
    assert dests(state, ARROW) == ["C6"]


def test_arrow_stops_before_the_sarcophagus(game2: State) -> None:
    """3. Move, arrow: the sarcophagus is an obstacle (A2 slides north to A1)."""
    state = place(game2, {0: "A2", 1: "E6"}, mummy="E5")
    assert dests(state, ARROW) == ["A1", "F2"]


def test_arrow_must_move_at_least_one_cell(game3: State) -> None:
    """3. Move, arrow: "The figure must move at least one cell." """
    state = place(game3, {0: "C2", 1: "B2", 2: "D2"}, mummy="E5")
    assert dests(state, ARROW) == []
    state, _ = run(state, roll(ARROW, TWO, ARROW, ARROW, ARROW))
    rejects(state, Announce(ARROW), "Arrow cannot be moved from here: try another die")
    state, _ = run(state, Announce(TWO))  # numbers jump the neighbours
    assert dests(state, TWO) == ["A2", "C2", "E2"]


# -- leaving the rooms ------------------------------------------------------------------


def test_leaving_the_start_field_through_its_opening(game3: State) -> None:
    """Components/3. Move: the start field joins the maze at its opening; no figure
    moves back onto it."""
    state = game3
    assert dests(state, ONE) == ["C6"]
    assert dests(state, TWO) == ["C5"]
    assert dests(state, ARROW) == ["C3"]  # straight north to the wall above C3
    blocked = place(state, {1: "C4"})
    assert dests(blocked, ARROW) == ["C5"]
    blocked = place(state, {1: "C6"})
    assert dests(blocked, ONE) == []
    assert dests(blocked, ARROW) == []
    assert dests(blocked, TWO) == ["C5"]  # jumping the figure on C6


def test_leaving_the_sarcophagus_through_either_opening(game2: State) -> None:
    """3. Move: "The sarcophagus has two openings; a seeker in it leaves through either
    one with a normal move." """
    state = place(game2, {0: "sarc", 1: "E6"}, mummy="E5")
    assert dests(state, ONE) == ["A1", "F1"]
    assert dests(state, ARROW) == ["F1", "A2"]  # F1 is walled to the south
    for exit_cell in ("A1", "F1"):
        moved, events = run(
            state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE), Move(at(exit_cell))
        )
        assert moved.positions[0] == at(exit_cell)
        assert FigureMoved(0, state.maze.sarcophagus_node, at(exit_cell)) in events
    guarded = place(state, mummy="A1")
    assert dests(guarded, ONE) == ["F1"]


# -- playing cards ----------------------------------------------------------------------


def test_card_played_on_own_treasure_after_the_move(game2: State) -> None:
    """4. Play a card: "a seeker who ends the move on the treasure of one of their own
    cards may play that card face up, visible to everyone including the mummy." """
    state = give(game2, 0, "B2", "C1", "D1", "E1", "F2")
    state = place(state, {0: "C2", 1: "E6"}, mummy="E5")
    dagger = treasure(state.maze, "B2")
    rejects(state, PlayCard(), "cannot play a card now")  # not before the move
    state, _ = run(state, roll(ONE, ONE, ONE, ONE, ONE))
    rejects(state, PlayCard(), "cannot play a card now")
    state, _ = run(state, Announce(ONE), Move(at("B2")))
    assert state.phase is Phase.SEEKER_CARD
    assert state.figure == 0
    state, events = run(state, PlayCard())
    assert events[0] == CardPlayed(0, 0, dagger, 4)
    assert dagger not in state.hands[0]
    assert state.played[0] == (dagger,)
    assert CardPlayed(0, 0, dagger, 4) in visible_events(events, "mummy")
    played = [t["name"] for t in mummy_view(state)["seekers"][0]["played"]]
    assert played == ["dagger"]
    assert table_view(state)["seekers"][0]["played"][0]["name"] == "dagger"
    assert seeker_view(state, 1)["seekers"][0]["played"][0]["name"] == "dagger"
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 1)


def test_playing_a_card_is_optional(game2: State) -> None:
    """4. Play a card (optional)."""
    state = give(game2, 0, "B2", "C1", "D1", "E1", "F2")
    state = place(state, {0: "C2", 1: "E6"}, mummy="E5")
    state, _ = run(state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE), Move(at("B2")))
    state, events = run(state, EndTurn())
    assert not of_type(events, CardPlayed)
    assert treasure(state.maze, "B2") in state.hands[0]
    assert state.played[0] == ()
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 1)


def test_no_card_on_a_treasure_of_someone_elses_card(game2: State) -> None:
    """4. Play a card: only "the treasure of one of their own cards"."""
    state = give(game2, 0, "B1", "C1", "D1", "E1", "F2")
    state = give(state, 1, "B2", "C2", "D3", "E2", "E3")
    state = place(state, {0: "C2", 1: "E6"}, mummy="E5")
    state, _ = run(state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE), Move(at("B2")))
    # The game waits for "end turn" as it would for a card, so the mummy learns nothing.
    assert (state.phase, state.figure) == (Phase.SEEKER_CARD, 0)
    rejects(state, PlayCard(), "You hold no card for the treasure on B2: end the turn")
    state, _ = run(state, EndTurn())
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 1)  # the turn has passed
    rejects(state, PlayCard(), "cannot play a card now")
    rejects(state, EndTurn(), "cannot end the turn now")
    assert state.played == ((), ())


def test_the_last_card_wins_at_once(game2: State) -> None:
    """4. Play a card / End of the game: "Whoever plays their last card wins at once." """
    state = give(game2, 0, "B2")
    state = place(state, {0: "C2", 1: "E6"}, mummy="E5")
    state, events = run(state, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE), Move(at("B2")))
    state, events = run(state, PlayCard())
    assert state.phase is Phase.GAME_OVER
    assert state.winner is not None
    assert state.winner.seeker == 0
    assert not state.winner.is_mummy
    assert of_type(events, GameWon) == [GameWon(state.winner)]
    assert not of_type(events, TurnStarted)
    rejects(state, roll(ONE, ONE, ONE, ONE, ONE), "The game is over")
    rejects(state, RollMummyDie(3), "The game is over")


def test_two_player_game_either_figure_fulfils_any_card_and_all_ten_win(solo: State) -> None:
    """Two players: "Either figure may fulfil any of the cards. The seeker wins with all
    10 cards played"."""
    state = place(solo, {0: "C2", 1: "E6"}, mummy="E5")
    others = [t for t in state.hands[0] if t.cell != at("D5")][:9]
    state = give(state, 0, "D5").evolve(played=(tuple(others),))  # 9 already played
    state, _ = take_turn(state, face=ONE, to="B2")  # the first figure
    assert state.figure == 1
    state, _ = run(state, roll(TWO, TWO, TWO, TWO, TWO), Announce(TWO), Move(at("D5")))
    assert state.phase is Phase.SEEKER_CARD
    state, events = run(state, PlayCard())
    assert CardPlayed(1, 0, treasure(state.maze, "D5"), 0) in events
    assert len(state.played[0]) == 10
    assert state.winner is not None
    assert state.winner.seeker == 0


# -- all five dice show the mummy ------------------------------------------------------


def test_all_five_mummy_loses_the_turn_and_forces_a_resolve_of_five(game3: State) -> None:
    """Special cases: "All five dice show the mummy after a roll: the seeker loses the
    turn; the figure stays. At the start of the next seeker's turn the dice are
    resolved by force (intermediate move of 5)." """
    state = place(game3, {0: "C2"}, mummy="E5")
    state, events = run(state, roll(MUMMY, MUMMY, MUMMY, MUMMY, MUMMY))
    assert events == [
        DiceRolled(0, (MUMMY,) * 5, 5),
        TurnLost(0),
        TurnStarted(1),
        Resolved(1, 5, forced=True),
        MummyMoveStarted(MummyMoveKind.RESOLVE, 5),
    ]
    assert state.positions[0] == at("C2")  # the figure stays
    assert (state.phase, state.steps_left) == (Phase.MUMMY_MOVING, 5)
    state, _ = walk(state, "E4", "E3", "D3", "D4", "E4")
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 1, 0)
    rejects(state, Resolve(), "only at the start of the turn")
    state, _ = run(state, roll(ONE, TWO, THREE, FOUR, ARROW))
    assert state.phase is Phase.SEEKER_ROLLED


def test_all_five_mummy_counts_the_dice_already_lying_out(game3: State) -> None:
    """Special cases: "All five dice show the mummy after a roll" - including the
    dice that lay out mummy-up before the roll."""
    state, _ = take_turn(game3, (MUMMY, MUMMY, MUMMY, ONE, TWO), face=ONE)
    assert state.dice_out == 3
    state, events = run(state, roll(MUMMY, MUMMY))
    assert TurnLost(1) in events
    assert Resolved(2, 5, forced=True) in events
    assert state.positions[1] == state.maze.start_node


def test_all_five_mummy_before_the_mummy_normal_move_then_intermediate_move(
    game2: State,
) -> None:
    """Special cases: "If the seeker who lost the turn is the last before the mummy,
    the mummy first makes its normal move (5 + mummy die) and then an intermediate
    move of 5." """
    state, _ = take_turn(game2)  # Red to C6
    state, events = run(state, roll(MUMMY, MUMMY, MUMMY, MUMMY, MUMMY))
    assert events[1:] == [TurnLost(1), MummyTurnStarted(5)]
    assert state.phase is Phase.MUMMY_ROLL
    state, events = run(state, RollMummyDie(3))
    assert events == [MummyDieRolled(3, 8), MummyMoveStarted(MummyMoveKind.NORMAL, 8)]
    state, events = walk(state, "A1", "B1", "C1", "D1", "E1", "F1", "E1", "D1")
    assert events[-3:] == [
        MummyMoveEnded(at("D1")),
        Resolved(1, 5, forced=True),
        MummyMoveStarted(MummyMoveKind.AFTER_NORMAL, 5),
    ]
    assert (state.phase, state.steps_left) == (Phase.MUMMY_MOVING, 5)
    state, events = walk(state, "C1", "B1", "A1", "A2", "B2")
    assert TurnStarted(0) in events
    # The next round starts with all five dice free.
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 0, 0)
    rejects(state, Resolve(), "nothing to resolve")
    rejects(state, roll(ONE), "Roll 5 dice")
    state, _ = run(state, roll(ONE, TWO, THREE, FOUR, ARROW))
    assert state.phase is Phase.SEEKER_ROLLED


# -- a seeker who cannot move at all ---------------------------------------------------


def test_a_seeker_who_cannot_move_is_skipped_without_resolving_or_rolling(
    game2: State,
) -> None:
    """Special cases: "A seeker who cannot move at all (not with 1, 2, 3, 4 nor with
    the arrow, e.g. walled in on three sides and the mummy on the fourth) announces it
    and is skipped: no resolving, no rolling." """
    state, _ = take_turn(game2, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    # Back to Red's turn is not needed: put Blue into the dead end with the mummy on A5.
    state = place(game2, {1: "A6"}, mummy="A5")
    assert not can_move_at_all(state, 1)
    state, _ = run(state, roll(MUMMY, MUMMY, ONE, TWO, THREE), Announce(ONE))
    state, _ = run(state, Move(at("C6")))
    state, events = run(state, EndTurn())
    assert events == [TurnStarted(1), SeekerSkipped(1), MummyTurnStarted(2)]
    assert not of_type(events, Resolved)
    assert not of_type(events, DiceRolled)
    assert state.phase is Phase.MUMMY_ROLL
    assert state.dice_out == 2  # nothing was resolved
    assert state.positions[1] == at("A6")


def test_a_seeker_on_the_start_field_blocked_by_the_mummy_is_skipped(game3: State) -> None:
    """Special cases: a seeker who cannot move at all is skipped (here: on the start
    field, the mummy standing on its only opening cell)."""
    state = place(game3, {0: "C2", 2: "E4"}, mummy="C6")
    assert not can_move_at_all(state, 1)
    state, events = take_turn(state, face=ONE, to="B2")
    assert events[-3:] == [TurnStarted(1), SeekerSkipped(1), TurnStarted(2)]
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 2)


def test_the_first_seeker_is_skipped_when_the_mummy_walls_it_in(game2: State) -> None:
    """Special cases: a seeker who cannot move at all is skipped, also the first one
    of a round (the mummy has just walled it in)."""
    state, _ = to_mummy_turn(game2)
    state = place(state, {0: "A6", 1: "C2"}, mummy="A4")
    state, events = run(state, RollMummyDie(2), MummyStep(at("A5")), EndMummyMove())
    assert events[-3:] == [TurnStarted(0), SeekerSkipped(0), TurnStarted(1)]
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 1)


def test_a_seeker_hemmed_in_by_seekers_is_not_skipped(game2: State) -> None:
    """Special cases: only a seeker who cannot move "not with 1, 2, 3, 4 nor with the
    arrow" is skipped; numbers may jump other seekers."""
    state = place(game2, {0: "A6", 1: "A5"}, mummy="E5")
    assert can_move_at_all(state, 0)


# -- the mummy's normal move ------------------------------------------------------------


def test_mummy_normal_move_is_die_plus_mummy_faces_out(game2: State) -> None:
    """The mummy's turn: "roll the mummy die; the mummy may move that many steps plus
    one per mummy face lying out on the seeker dice." """
    state, _ = take_turn(game2, (MUMMY, ONE, TWO, THREE, FOUR), face=ONE)
    state, _ = take_turn(state, (MUMMY, ONE, TWO, THREE), face=TWO)
    rejects(state, roll(ONE, TWO, THREE), "cannot roll now")
    rejects(state, MummyStep(at("A1")), "cannot move the mummy now")
    state, events = run(state, RollMummyDie(4))
    assert events == [MummyDieRolled(4, 6), MummyMoveStarted(MummyMoveKind.NORMAL, 6)]
    assert (state.phase, state.steps_left) == (Phase.MUMMY_MOVING, 6)
    rejects(state, RollMummyDie(4), "cannot roll the mummy die now")
    state, events = walk(state, "A1", "B1", "C1", "D1", "E1", "F1")
    assert MummyMoveEnded(at("F1")) in events
    assert (state.phase, state.figure, state.mummy) == (Phase.SEEKER_TURN, 0, at("F1"))


def test_mummy_may_stop_its_normal_move_early(game2: State) -> None:
    """The mummy's turn: "Decision: up to that many steps; it may stop early"."""
    state, _ = to_mummy_turn(game2)
    state, events = run(state, RollMummyDie(6), MummyStep(at("F1")), MummyStep(at("E1")))
    assert state.steps_left == 4
    state, events = run(state, EndMummyMove())
    assert events[0] == MummyMoveEnded(at("E1"))
    assert (state.phase, state.figure, state.rounds) == (Phase.SEEKER_TURN, 0, 1)


def test_mummy_must_use_every_step_when_configured(maze: Maze) -> None:
    """The mummy's turn: "Decision: ... configurable to 'exactly'" (Options
    mummy_moves_exactly), for the normal and the intermediate move alike."""
    state = start_game(maze, 2, mummy_moves_exactly=True)
    state, _ = to_mummy_turn(state)
    state, _ = run(state, RollMummyDie(3), MummyStep(at("A1")))
    rejects(state, EndMummyMove(), "must use all its steps: 2 left")
    state, events = walk(state, "B1", "A1")
    assert MummyMoveEnded(at("A1")) in events
    assert state.phase is Phase.SEEKER_TURN
    state, _ = take_turn(state, (MUMMY, MUMMY, ONE, TWO, THREE))
    state, _ = run(state, Resolve(), MummyStep(at("B1")))
    rejects(state, EndMummyMove(), "must use all its steps: 1 left")
    state, _ = run(state, MummyStep(at("C1")))
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 1)


def test_mummy_never_moves_through_walls(game2: State) -> None:
    """The mummy's turn: "The mummy moves orthogonally one step at a time, never through
    walls"."""
    state, _ = to_mummy_turn(game2)
    state = place(state, {0: "E6", 1: "F6"}, mummy="B2")
    state, _ = run(state, RollMummyDie(6))
    assert names(mummy_steps(state)) == ["A2", "C2"]
    rejects(state, MummyStep(at("B1")), "a wall is in the way")
    rejects(state, MummyStep(at("B3")), "B3 is not next to B2")
    rejects(state, MummyStep(at("D2")), "one step at a time")
    rejects(state, MummyStep(at("C3")), "one step at a time")  # diagonal
    state, _ = run(state, MummyStep(at("C2")))
    assert state.mummy == at("C2")


def test_mummy_never_enters_the_start_field_or_the_sarcophagus(game2: State) -> None:
    """The mummy's turn: the mummy moves "never onto the start field or into the
    sarcophagus"."""
    maze = game2.maze
    state, _ = to_mummy_turn(game2)
    state = place(state, {0: "E6", 1: "F6"}, mummy="C6")
    state, _ = run(state, RollMummyDie(6))
    assert names(mummy_steps(state)) == ["C5"]
    rejects(state, MummyStep(maze.start_node), "never enter the start field")
    state = place(state, mummy="A1")
    assert maze.sarcophagus_node not in mummy_steps(state)
    rejects(state, MummyStep(maze.sarcophagus_node), "never enter the sarcophagus")


def test_mummy_leaves_the_sarcophagus_through_either_opening(game2: State) -> None:
    """Setup: "The mummy starts on the sarcophagus"; it has two openings."""
    state, _ = to_mummy_turn(game2)
    state, _ = run(state, RollMummyDie(1))
    assert names(mummy_steps(state)) == ["A1", "F1"]
    for cell in ("A1", "F1"):
        moved, _ = run(state, MummyStep(at(cell)))
        assert moved.mummy == at(cell)


def test_mummy_may_pass_back_over_cells(game2: State) -> None:
    """The mummy's turn: "It may pass back over cells." """
    state, _ = to_mummy_turn(game2)
    state, _ = run(state, RollMummyDie(4))
    state, events = walk(state, "A1", "B1", "A1", "B1")
    assert [e.to for e in of_type(events, MummyMoved)] == [at("A1"), at("B1"), at("A1"), at("B1")]
    assert state.mummy == at("B1")


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_mummy_die_shows_one_to_six_by_default(game2: State, value: int) -> None:
    """Components: "1 brown mummy die. Decision: 1 to 6"."""
    state, _ = to_mummy_turn(game2)
    state, events = run(state, RollMummyDie(value))
    assert events[0] == MummyDieRolled(value, value)
    assert state.steps_left == value


@pytest.mark.parametrize("value", [0, 7, -1])
def test_mummy_die_values_off_the_die_are_refused(game2: State, value: int) -> None:
    """Components: the mummy die shows "1 to 6"."""
    state, _ = to_mummy_turn(game2)
    rejects(state, RollMummyDie(value), f"{value} is not on it")


def test_mummy_die_faces_are_configurable(maze: Maze) -> None:
    """Components: mummy die "1 to 6, configurable" (Options mummy_die_faces)."""
    state = start_game(maze, 2, mummy_die_faces=(2, 3, 4))
    state, _ = to_mummy_turn(state)
    rejects(state, RollMummyDie(1), "The mummy die shows 2, 3, 4; 1 is not on it")
    rejects(state, RollMummyDie(6), "6 is not on it")
    state, events = run(state, RollMummyDie(4))
    assert events[0] == MummyDieRolled(4, 4)


def test_configured_mummy_die_rolled_by_the_companion_shows_only_its_faces(maze: Maze) -> None:
    """Components: the mummy die's faces are configurable; the companion's own roll
    (no physical value entered) only shows those faces."""
    seen = set()
    for seed in range(20):
        setup = make_setup(maze, COLOURS[2], seed=seed, options=Options(mummy_die_faces=(2, 5)))
        state, _ = new_game(setup)
        state, _ = to_mummy_turn(state)
        _, events = run(state, RollMummyDie())
        seen.add(of_type(events, MummyDieRolled)[0].value)
    assert seen == {2, 5}


def test_a_mummy_die_without_faces_is_refused(maze: Maze) -> None:
    """Components: the mummy die needs faces to be rolled."""
    with pytest.raises(RuleError) as info:
        new_game(make_setup(maze, COLOURS[2], options=Options(mummy_die_faces=())))
    assert_readable(str(info.value))


# -- catching ----------------------------------------------------------------------------


def test_catch_ends_the_move_and_sends_the_figure_to_the_sarcophagus(game2: State) -> None:
    """Catch: "the moment the mummy enters a cell holding a seeker, its move ends and
    that seeker is caught. The figure goes into the sarcophagus and the seeker gives
    the mummy one ankh ... The mummy stays on the cell where it caught." """
    maze = game2.maze
    state, _ = to_mummy_turn(game2)
    state = place(state, {0: "E5", 1: "C2"}, mummy="E3")
    state, _ = run(state, RollMummyDie(6), MummyStep(at("E4")))
    state, events = run(state, MummyStep(at("E5")))
    assert events[:3] == [
        MummyMoved(at("E4"), at("E5"), 4),
        SeekerCaught(0, 0, at("E5"), 2),
        MummyMoveEnded(at("E5")),
    ]
    assert state.positions == (maze.sarcophagus_node, at("C2"))
    assert state.ankhs == (2, 3)
    assert state.mummy_ankhs == 1
    assert state.mummy == at("E5")
    assert state.steps_left == 0
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 0)
    rejects(state, MummyStep(at("E6")), "cannot move the mummy now")
    # The caught seeker starts from the sarcophagus.
    assert dests(state, ONE) == ["A1", "F1"]
    assert mummy_view(state)["seekers"][0]["ankhs"] == 2
    assert mummy_view(state)["mummy_ankhs"] == 1


def test_catch_during_an_intermediate_move(game2: State) -> None:
    """Intermediate move: "otherwise the same rules" - a catch ends it at once; then
    the resolving seeker rolls all five dice."""
    state, _ = take_turn(game2, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    state = place(state, {0: "E4", 1: "C2"}, mummy="E3")
    state, events = run(state, Resolve(), MummyStep(at("E4")))
    assert SeekerCaught(0, 0, at("E4"), 2) in events
    assert MummyMoveEnded(at("E4")) in events  # one step was left
    assert state.positions[0] == state.maze.sarcophagus_node
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 1, 0)
    state, _ = run(state, roll(ONE, TWO, THREE, FOUR, ARROW))
    assert state.phase is Phase.SEEKER_ROLLED


def test_resolving_seeker_caught_rolls_from_the_sarcophagus(game2: State) -> None:
    """Intermediate move: "Afterwards the resolving seeker rolls all five dice" - also
    when the intermediate move caught that very seeker."""
    state, _ = take_turn(game2, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    state = place(state, {0: "C6", 1: "E4"}, mummy="E3")
    state, events = run(state, Resolve(), MummyStep(at("E4")))
    assert SeekerCaught(1, 1, at("E4"), 2) in events
    assert (state.phase, state.figure) == (Phase.SEEKER_TURN, 1)
    state, _ = run(state, roll(ONE, TWO, THREE, FOUR, ARROW))
    assert dests(state, ONE) == ["A1", "F1"]


def test_a_seeker_without_ankhs_is_out_and_skipped_from_then_on(game3: State) -> None:
    """Catch: "a seeker who gives up their last ankh is out of the game"."""
    state, _ = to_mummy_turn(game3)
    state = place(state, {1: "A1"}, ankhs=(3, 1, 3))
    state, events = run(state, RollMummyDie(2), MummyStep(at("A1")))
    assert SeekerCaught(1, 1, at("A1"), 0) in events
    assert SeekerOut(1) in events
    assert state.is_out(1)
    assert state.figure_is_out(1)
    assert state.figure_at(at("A1")) is None
    assert not state.is_over  # 1 ankh of 6
    assert mummy_view(state)["seekers"][1]["out"] is True
    # Next round: Red, then Blue, then the mummy - Turquoise never again.
    assert state.figure == 0
    state, events = take_turn(state)
    assert events[-1] == TurnStarted(2)
    state, events = take_turn(state)
    assert state.phase is Phase.MUMMY_ROLL
    state, events = run(state, RollMummyDie(1), MummyStep(at("B1")))
    assert state.figure == 0
    state, events = take_turn(state)
    assert TurnStarted(1) not in events


@pytest.mark.parametrize(("seekers", "needed"), [(1, 3), (2, 4), (3, 6), (4, 7)])
def test_mummy_wins_with_enough_ankhs(maze: Maze, seekers: int, needed: int) -> None:
    """End of the game: "The mummy wins at once when it holds 4 ankhs with 2 seekers, 6
    with 3 seekers, 7 with 4 seekers"; "Decision: with 1 seeker ... the threshold is 3"
    (two players: "the mummy wins with 3 ankhs")."""
    state, _ = to_mummy_turn(start_game(maze, seekers))
    state = place(state, {0: "A1"}, mummy_ankhs=needed - 1)
    won, events = run(state, RollMummyDie(5), MummyStep(at("A1")))
    assert won.phase is Phase.GAME_OVER
    assert won.winner is not None and won.winner.is_mummy
    assert won.mummy_ankhs == needed
    assert of_type(events, GameWon) == [GameWon(won.winner)]
    assert mummy_view(won)["winner"]["mummy"] is True
    rejects(won, MummyStep(at("B1")), "The game is over")
    # One ankh fewer is not enough.
    state = place(state, mummy_ankhs=needed - 2)
    going, _ = run(state, RollMummyDie(5), MummyStep(at("A1")))
    assert going.winner is None
    assert going.phase is Phase.SEEKER_TURN


def test_mummy_wins_when_every_seeker_is_out(game3: State) -> None:
    """End of the game: "Decision: ... if every seeker is out the mummy wins." """
    state, _ = to_mummy_turn(game3)
    state = place(state, {0: "out", 1: "A1", 2: "out"}, ankhs=(0, 1, 0), mummy_ankhs=2)
    state, events = run(state, RollMummyDie(5), MummyStep(at("A1")))
    assert SeekerOut(1) in events
    assert state.mummy_ankhs == 3  # below the 6 needed with 3 seekers
    assert state.phase is Phase.GAME_OVER
    assert state.winner is not None and state.winner.is_mummy


def test_two_player_catch_takes_one_of_the_shared_ankhs(solo: State) -> None:
    """Two players: the seeker plays "with both figures' ankhs (6)"; a catch costs one."""
    state, _ = to_mummy_turn(solo)
    state = place(state, {0: "A1", 1: "E6"})
    state, events = run(state, RollMummyDie(5), MummyStep(at("A1")))
    assert SeekerCaught(0, 0, at("A1"), 5) in events
    assert state.ankhs == (5,)
    assert state.positions == (state.maze.sarcophagus_node, at("E6"))


# -- the worked example -----------------------------------------------------------------


def test_worked_example_from_the_rules(maze: Maze) -> None:
    """Worked example: "Blue's turn; two dice lie mummy-up from earlier turns. Blue does
    not resolve and rolls the other three: mummy, 1, 2. The mummy die is set aside;
    Blue rerolls the remaining two: 1 and 4. Blue announces 4, moves four cells onto
    the red scarab, holds the red-scarab card and plays it. Red's turn: Red resolves;
    the mummy makes an intermediate move of 3 (three mummy faces out); then Red rolls
    all five dice." """
    state, _ = new_game(make_setup(maze, ("violet", "blue", "red")))
    state = place(state, {1: "C2"}, mummy="E5")
    state = give(state, 1, "B1", "C1", "D1", "E1", "F2")
    scarab = treasure(maze, "B1")
    assert scarab.title == "red scarab"
    # Violet's earlier turn leaves two dice mummy-up.
    state, _ = take_turn(state, (MUMMY, MUMMY, ONE, TWO, THREE), face=ONE)
    assert (state.figure, state.dice_out) == (1, 2)
    # Blue does not resolve and rolls the other three.
    state, events = run(state, roll(MUMMY, ONE, TWO))
    assert events == [DiceRolled(1, (MUMMY, ONE, TWO), 3)]
    assert (state.dice_out, state.roll) == (3, (ONE, TWO))
    state, _ = run(state, roll(ONE, FOUR))
    assert (state.dice_out, state.roll) == (3, (ONE, FOUR))
    state, events = run(state, Announce(FOUR))
    assert visible_events(events, "mummy") == [Announced(1, FOUR)]
    state, events = run(state, Move(at("B1")))
    assert events == [FigureMoved(1, at("C2"), at("B1"))]
    assert visible_events(events, "mummy") == []
    state, events = run(state, PlayCard())
    assert events[0] == CardPlayed(1, 1, scarab, 4)
    assert scarab in state.played[1]
    # Red's turn: Red resolves, the mummy makes an intermediate move of 3.
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 2, 3)
    state, events = run(state, Resolve())
    assert events == [Resolved(2, 3, forced=False), MummyMoveStarted(MummyMoveKind.RESOLVE, 3)]
    state, _ = walk(state, "E4", "E3", "D3")
    # Then Red rolls all five dice.
    assert (state.phase, state.figure, state.dice_out) == (Phase.SEEKER_TURN, 2, 0)
    rejects(state, roll(ONE, TWO), "Roll 5 dice")
    state, events = run(state, roll(ONE, TWO, THREE, FOUR, ARROW))
    assert events == [DiceRolled(2, (ONE, TWO, THREE, FOUR, ARROW), 0)]


# -- rule errors --------------------------------------------------------------------------


class _Bogus(Command):
    pass


def _states_in_every_phase(maze: Maze) -> list[State]:
    game = deal_fixed(start_game(maze, 2))
    game = place(game, {0: "C2", 1: "E6"}, mummy="E5")
    rolled, _ = run(game, roll(MUMMY, ONE, TWO, ONE, ONE))
    moving, _ = run(rolled, Announce(ONE))
    card, _ = run(moving, Move(at("B2")))
    with_dice_out, _ = run(card, EndTurn())  # Blue may resolve: one die lies out
    mummy_roll, _ = to_mummy_turn(with_dice_out)
    mummy_moving, _ = run(mummy_roll, RollMummyDie(3))
    over = give(game, 0, "B2")
    over, _ = run(over, roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE), Move(at("B2")), PlayCard())
    states = [game, rolled, moving, card, with_dice_out, mummy_roll, mummy_moving, over]
    assert [s.phase for s in states] == [
        Phase.SEEKER_TURN,
        Phase.SEEKER_ROLLED,
        Phase.SEEKER_MOVING,
        Phase.SEEKER_CARD,
        Phase.SEEKER_TURN,
        Phase.MUMMY_ROLL,
        Phase.MUMMY_MOVING,
        Phase.GAME_OVER,
    ]
    return states


def _illegal_commands(maze: Maze) -> list[Command]:
    return [
        _Bogus(),
        Resolve(),
        Roll(faces=()),
        Roll(faces=(ONE,) * 6),
        Announce(FOUR),
        Announce(MUMMY),
        Move(maze.start_node),
        Move(maze.sarcophagus_node),
        Move(at("F6")),
        Move(99),
        Move(-1),
        PlayCard(),
        EndTurn(),
        RollMummyDie(0),
        RollMummyDie(9),
        MummyStep(maze.start_node),
        MummyStep(maze.sarcophagus_node),
        MummyStep(at("A6")),
        MummyStep(-1),
        MummyStep(99),
    ]


def test_every_rule_error_leaves_the_state_unchanged_and_is_readable(maze: Maze) -> None:
    """Every command the rules forbid is refused with a RuleError whose message a
    player understands, and the state passed in stays exactly as it was."""
    allowed = []
    refused = 0
    for state in _states_in_every_phase(maze):
        for command in _illegal_commands(maze):
            before = copy.deepcopy(state)
            try:
                apply(state, command)
            except RuleError as exc:
                assert_readable(str(exc))
                refused += 1
            else:
                allowed.append((state.phase, command))
            assert state == before, (state.phase, command)
    # The only commands of the list that are legal somewhere: playing the card or
    # ending the turn on an own treasure, and Blue resolving the die Red left out.
    assert allowed == [
        (Phase.SEEKER_CARD, PlayCard()),
        (Phase.SEEKER_CARD, EndTurn()),
        (Phase.SEEKER_TURN, Resolve()),
    ]
    assert refused == 8 * len(_illegal_commands(maze)) - len(allowed)


# -- what each role may know ------------------------------------------------------------


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = set(value)
        for v in value.values():
            found |= _keys(v)
        return found
    if isinstance(value, list):
        found = set()
        for v in value:
            found |= _keys(v)
        return found
    return set()


def _moved_elsewhere(state: State) -> State:
    """The same game with every figure on the board somewhere else."""
    spare = iter(("D6", "E6", "F6", "B6"))
    positions = tuple(p if not state.maze.is_cell(p) else at(next(spare)) for p in state.positions)
    return state.evolve(positions=positions)


def _other_cards(state: State, seekers: Iterable[int] | None = None) -> State:
    """The same game with every card in the given seekers' hands (default: all)
    exchanged for an unseen card of the same colour."""
    chosen = set(range(len(state.hands)) if seekers is None else seekers)
    held = {t for hand in state.hands for t in hand} | {t for p in state.played for t in p}
    pool = [t for t in state.maze.treasures if t not in held]
    hands = []
    for i, hand in enumerate(state.hands):
        if i not in chosen:
            hands.append(hand)
            continue
        new = []
        for card in hand:
            other = next(t for t in pool if t.colour is card.colour)
            pool.remove(other)
            new.append(other)
        hands.append(tuple(new))
    return state.evolve(hands=tuple(hands))


def test_mummy_view_never_contains_seeker_positions_or_cards(maze: Maze) -> None:
    """Information rules: the mummy sees seeker positions "never", which treasures a
    seeker still needs "no"."""
    for state in _states_in_every_phase(maze):
        view = mummy_view(state)
        text = json.dumps(view)
        assert json.loads(text) == view
        assert not {"positions", "hand", "legal_destinations"} & _keys(view)
        assert mummy_view(_moved_elsewhere(state)) == view, state.phase
        assert json.dumps(mummy_view(_moved_elsewhere(state))) == text
        assert _other_cards(state).hands != state.hands
        assert mummy_view(_other_cards(state)) == view, state.phase


def test_mummy_view_shows_the_public_information(game2: State) -> None:
    """Information rules: the mummy knows the maze, the treasure positions (Decision),
    its own position, announced die values, played cards, ankhs and the colours of
    each seeker's remaining cards."""
    state = place(deal_fixed(game2), {0: "C2", 1: "E6"}, mummy="E5")
    state, _ = run(state, roll(MUMMY, ONE, ONE, ONE, ONE), Announce(ONE), Move(at("B2")))
    state, _ = run(state, PlayCard(), roll(TWO, THREE, MUMMY, ARROW), Announce(TWO))
    view = mummy_view(state)
    assert view["mummy"] == at("E5")
    assert view["announced"] == "2"
    assert view["dice_out"] == 2
    assert view["turn_colour"] == "blue"
    assert [s["ankhs"] for s in view["seekers"]] == [3, 3]
    assert view["seekers"][0]["played"][0]["name"] == "dagger"
    assert view["seekers"][0]["card_colours"] == {
        "blue": 1,
        "white": 1,
        "green": 1,
        "yellow": 1,
    }
    assert view["seekers"][1]["card_colours"] == dict.fromkeys(
        ("red", "blue", "white", "green", "yellow"), 1
    )
    assert len(view["maze"]["treasures"]) == 23
    assert view["mummy_needs"] == 4


def test_treasures_on_the_mummys_page_are_configurable(maze: Maze) -> None:
    """Information rules: treasure positions for the mummy: "Decision: yes ...,
    configurable"."""
    state = start_game(maze, 2, mummy_sees_treasures=False)
    assert mummy_view(state)["maze"]["treasures"] == []
    assert len(seeker_view(state, 0)["maze"]["treasures"]) == 23
    assert len(table_view(state)["maze"]["treasures"]) == 23


def test_seekers_see_the_board_and_only_their_own_cards(game2: State) -> None:
    """Information rules: a seeker sees seeker positions "yes (they see the board)";
    which treasures a seeker still needs: "own cards only"."""
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    for seeker in (0, 1):
        view = seeker_view(state, seeker)
        assert [t["cell"] for t in view["hand"]] == [t.cell for t in state.hands[seeker]]
        assert [p["node"] for p in view["positions"]] == [at("C2"), at("E6")]
        json.dumps(view)
    # What Blue sees does not change when Red holds other cards of the same colours.
    changed = _other_cards(state, [0])
    assert changed.hands[1] == state.hands[1]
    assert seeker_view(changed, 1) == seeker_view(state, 1)
    assert seeker_view(changed, 0) != seeker_view(state, 0)


def test_table_view_shows_the_board_but_nobodys_cards(game2: State) -> None:
    """Information rules: the table (shared screen) shows seeker positions "yes", which
    treasures a seeker still needs "no"."""
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    view = table_view(state)
    assert "hand" not in _keys(view)
    assert [p["node"] for p in view["positions"]] == [at("C2"), at("E6")]
    assert table_view(_other_cards(state)) == view
    json.dumps(view)


def test_visible_events_hide_figure_moves_from_the_mummy(game2: State) -> None:
    """Information rules / 3. Move: the mummy learns the announced value, "never the
    path or destination"."""
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    _, events = run(state, roll(MUMMY, ONE, TWO, THREE, FOUR), Announce(THREE), Move(at("F2")))
    assert of_type(events, FigureMoved)
    shown = visible_events(events, "mummy")
    assert not of_type(shown, FigureMoved)
    assert shown == [e for e in events if not isinstance(e, FigureMoved)]
    assert of_type(shown, DiceRolled) and of_type(shown, Announced)
    assert visible_events(events, "seeker") == events
    assert visible_events(events, "table") == events


def test_mummy_cannot_tell_whether_a_seeker_may_play_a_card(game2: State) -> None:
    """Information rules: the mummy never sees seeker positions and does not know which
    treasures a seeker still needs - so what the mummy is shown after a move must not
    depend on whether the seeker holds the card of the treasure they stopped on."""
    state = place(game2, {0: "C2", 1: "E6"}, mummy="E5")
    holds = give(state, 0, "B2", "C1", "D1", "E1", "F2")  # red dagger on B2
    lacks = give(state, 0, "B1", "C1", "D1", "E1", "F2")  # red scarab instead
    assert mummy_view(holds) == mummy_view(lacks)  # same colours, same count
    commands = (roll(ONE, ONE, ONE, ONE, ONE), Announce(ONE), Move(at("B2")))
    after_holds, events_holds = run(holds, *commands)
    after_lacks, events_lacks = run(lacks, *commands)
    assert visible_events(events_holds, "mummy") == visible_events(events_lacks, "mummy")
    assert mummy_view(after_holds) == mummy_view(after_lacks)
