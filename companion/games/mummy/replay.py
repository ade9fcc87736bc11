"""A finished maze game, moment by moment: the frames of its replay (functional core).

A pure function of the record (its setup and accepted commands): one frame for the
start and one after every command, each with the whole truth (where every figure and
the mummy stood, the dice, every hand) and the events of that command, and, where the
mummy's deduction aid was on, what the aid showed the mummy then.  What a seat knew at a
frame is cut out of it by ``seat_view``, with the same rules as the live pages
(``views.visible_events``; the mummy never sees a figure nor a seeker's cards).

The replay holds every seeker's position: ``frames`` refuses a game that is not over
(``NotOver``), so no caller can build one of a running game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .belief import Belief, belief_figures
from .commands import Command
from .engine import apply, new_game
from .events import Event, MummyMoved, SeekerCaught
from .maze import Maze
from .state import State
from .views import mummy_view, visible_events


class NotOver(ValueError):
    """A replay was asked of a game that has not ended: it would show the seekers."""


@dataclass(frozen=True)
class Frame:
    """One moment: the state after ``command`` (None: the start) and its events."""

    index: int
    command: Command | None
    state: State
    events: tuple[Event, ...]
    #: How many nodes of the mummy's whole path it had walked by now (its start is 1).
    walked: int
    #: The deduction aid as the mummy's page showed it (None: the aid was off).
    aid: tuple[dict[str, Any], ...] | None


@dataclass(frozen=True)
class CatchAt:
    """A catch of the reveal: the frame it happened in, the figure and the node."""

    frame: int
    seeker: int
    figure: int
    at: int


@dataclass(frozen=True)
class Replay:
    frames: tuple[Frame, ...]
    #: Every node the mummy stood on, in order, from its start.
    path: tuple[int, ...]
    catches: tuple[CatchAt, ...]


def replay(setup: Any, commands: Sequence[Command], *, aid: bool = False) -> Replay:
    """Every frame of a finished game (``NotOver`` if it is not over)."""
    state, events = new_game(setup)
    belief = Belief(setup.maze, setup.figure_owner) if aid else None
    path = [state.mummy]
    frames = [Frame(0, None, state, tuple(events), 1, _aid(belief, state, events))]
    catches: list[CatchAt] = []
    for index, command in enumerate(commands, 1):
        state, events = apply(state, command)
        for event in events:
            if isinstance(event, MummyMoved):
                path.append(event.to)
            elif isinstance(event, SeekerCaught):
                catches.append(CatchAt(index, event.seeker, event.figure, event.at))
        frames.append(
            Frame(index, command, state, tuple(events), len(path), _aid(belief, state, events))
        )
    if not state.is_over:
        raise NotOver("the game is not over: its replay would show where the seekers are")
    return Replay(tuple(frames), tuple(path), tuple(catches))


def _aid(belief: Belief | None, state: State, events: list[Event]) -> tuple[Any, ...] | None:
    """Feed the belief what the mummy's page got (as the live aid does) and read it."""
    if belief is None:
        return None
    belief.learn_view(mummy_view(state))
    belief.observe(visible_events(events, "mummy"))
    return tuple(belief_figures(belief, state.setup.maze, state.setup.figures))


#: The seats a replay can be seen from besides the truth.
TRUTH = "truth"


def seats(setup: Any) -> list[str]:
    """The views a replay offers: the truth, the mummy, each seeker, the table screen."""
    return [TRUTH, "mummy", *(f"seeker{i}" for i in range(len(setup.seekers))), "table"]


def seat_rules(setup: Any, seat: str) -> dict[str, Any]:
    """What ``seat`` could know during the game, as data the viewer applies to every
    frame: whether it saw the figures, whose cards, the events a figure's move makes
    (the mummy never heard of them), and the deduction aid (the mummy's, if it was on)."""
    if seat == TRUTH:
        hands = list(range(len(setup.seekers)))
    elif seat.startswith("seeker"):
        hands = [int(seat.removeprefix("seeker"))]
    else:
        hands = []
    mummy = seat == "mummy"
    return {"board": not mummy, "hands": hands, "secret_events": not mummy, "aid": mummy}


def seat_view(frame: Frame, seat: str) -> dict[str, Any]:
    """What ``seat`` knew at ``frame``: the figures (not the mummy), the hands it could
    see, the events it was told of, and for the mummy the aid if it was on."""
    state = frame.state
    rules = seat_rules(state.setup, seat)
    return {
        "positions": list(state.positions) if rules["board"] else None,
        "hands": {i: list(state.hands[i]) for i in rules["hands"]},
        "events": visible_events(
            list(frame.events), "table" if rules["secret_events"] else "mummy"
        ),
        "aid": frame.aid if rules["aid"] or seat == TRUTH else None,
    }


def place_xy(maze: Maze, node: int) -> tuple[float, float] | None:
    """Where a node is drawn, in cells from the top left (a room: just outside the
    maze by its first opening; None for a figure out of the game)."""
    if maze.is_cell(node):
        row, col = divmod(node, maze.width)
        return (col + 0.5, row + 0.5)
    if node not in (maze.start_node, maze.sarcophagus_node):
        return None
    opening = maze.openings(node)[0]
    row, col = divmod(opening.cell, maze.width)
    drow, dcol = opening.side.delta
    return (col + 0.5 + dcol * 1.3, row + 0.5 + drow * 1.3)
