"""What each role may know (RULES.md, the information rules), as JSON-safe dicts.

Everything sent to a phone goes through one of these functions.  The mummy's view
has no field that could carry a seeker's position or a seeker's cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .events import Event
from .maze import DIRECTIONS, Maze, Treasure
from .moves import legal_destinations, mummy_steps
from .state import Phase, State
from .symbols import symbols

View = dict[str, Any]


def maze_view(maze: Maze, *, treasures: bool = True) -> View:
    """The maze as every role sees it: walls, openings and (optionally) treasures."""
    return {
        "name": maze.name,
        "width": maze.width,
        "height": maze.height,
        "open_sides": [[d.value for d in DIRECTIONS if d in s] for s in maze.open_sides],
        "start": [{"cell": o.cell, "side": o.side.value} for o in maze.start],
        "sarcophagus": [{"cell": o.cell, "side": o.side.value} for o in maze.sarcophagus],
        "treasures": _treasures(maze.treasures, maze) if treasures else [],
    }


def mummy_view(state: State) -> View:
    """What the mummy player may see: never a seeker's position, never a seeker's cards."""
    view = _public(state)
    view["role"] = "mummy"
    view["maze"] = maze_view(state.maze, treasures=state.setup.options.mummy_sees_treasures)
    if state.phase is Phase.MUMMY_MOVING:
        view["mummy_steps"] = mummy_steps(state)
    return view


def seeker_view(state: State, seeker: int) -> View:
    """What one seeker may see: the board, and their own cards only."""
    view = _public(state)
    view["role"] = "seeker"
    view["seeker"] = seeker
    view["maze"] = maze_view(state.maze)
    view["positions"] = _positions(state)
    view["hand"] = _treasures(state.hands[seeker], state.maze)
    mine = state.setup.figure_owner[state.figure] == seeker
    if mine and state.phase is Phase.SEEKER_MOVING and state.announced is not None:
        view["legal_destinations"] = legal_destinations(state, state.figure, state.announced)
    return view


def table_view(state: State) -> View:
    """The shared screen: the board as the seekers see it, but nobody's cards."""
    view = _public(state)
    view["role"] = "table"
    view["maze"] = maze_view(state.maze)
    view["positions"] = _positions(state)
    return view


def visible_events(events: list[Event], role: str) -> list[Event]:
    """The events a role may be told of: the mummy never learns where a figure moved."""
    if role == "mummy":
        return [e for e in events if not e.secret_from_mummy]
    return list(events)


def _public(state: State) -> View:
    setup = state.setup
    seekers = []
    for i, figures in enumerate(setup.seekers):
        colours: dict[str, int] = {}
        for t in state.hands[i]:
            colours[t.colour.value] = colours.get(t.colour.value, 0) + 1
        seekers.append(
            {
                "index": i,
                "figures": [c.value for c in figures],
                "ankhs": state.ankhs[i],
                "out": state.is_out(i),
                "played": _treasures(state.played[i], state.maze),
                "card_colours": colours,
                "cards_left": len(state.hands[i]),
            }
        )
    winner = state.winner
    return {
        "phase": state.phase.value,
        "turn": None if state.is_mummy_turn or state.is_over else state.figure,
        "turn_colour": None
        if state.is_mummy_turn or state.is_over
        else setup.figures[state.figure].value,
        "mummy": state.mummy,
        "mummy_ankhs": state.mummy_ankhs,
        "mummy_needs": setup.win_ankhs,
        "seekers": seekers,
        # Once the game is over no die is in play: none stays on any page.
        "dice_out": 0 if state.is_over else state.dice_out,
        "roll": [] if state.is_over else [f.label for f in state.roll],
        "announced": state.announced.label if state.announced else None,
        "may_resolve": state.phase is Phase.SEEKER_TURN
        and state.may_resolve
        and state.dice_out > 0,
        "mummy_move": state.mummy_move.value if state.mummy_move else None,
        "steps_left": state.steps_left,
        "rounds": state.rounds,
        "winner": None
        if winner is None
        else {"seeker": winner.seeker, "mummy": winner.is_mummy, "reason": winner.reason},
    }


def _positions(state: State) -> list[dict[str, Any]]:
    return [
        {"figure": f, "colour": c.value, "node": state.positions[f]}
        for f, c in enumerate(state.setup.figures)
    ]


def _treasures(treasures: Iterable[Treasure], maze: Maze) -> list[dict[str, Any]]:
    """Treasures as a page draws them: cell, colour, name and their own symbol."""
    marks = symbols(maze)
    return [
        {"cell": t.cell, "colour": t.colour.value, "name": t.name, "symbol": marks[t]}
        for t in treasures
    ]
