"""Game records: a game is its setup plus its commands, as JSON Lines.

Line 1 is the setup, every further line one command (docs/game-records.md)::

    {"record": "pyramid-companion/mummy", "version": 1, "seed": 7,
     "seekers": [["red"], ["blue"]], "options": {...}, "maze": "<maze file text>"}
    {"cmd": "roll"}
    {"cmd": "roll", "faces": ["mummy", "1", "arrow"]}
    {"cmd": "announce", "face": "4"}
    {"cmd": "move", "to": "C4"}
    {"cmd": "mummy_step", "to": "D1"}

Dice without ``faces``/``value`` come from the game's seeded RNG, so a record
replays to the same state every time.  A setup with ``"hands"`` (each seeker's cards
by treasure cell, ``[["B4", "F4", ...], ...]``) was dealt by hand: physical mission
cards the seekers entered; without it the seed deals the cards.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .commands import (
    COMMAND_TYPES,
    Announce,
    Command,
    Move,
    MummyStep,
    Roll,
    RollMummyDie,
)
from .dice import Face
from .engine import RuleError, apply, new_game
from .maze import Maze, Treasure, parse_cell_name
from .maze_file import parse_maze
from .state import FigureColour, Options, Setup, State

RECORD_KIND = "pyramid-companion/mummy"
RECORD_VERSION = 1


class RecordError(ValueError):
    """A record that cannot be replayed; ``line`` is its 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


def setup_to_json(setup: Setup, maze_text: str) -> dict[str, Any]:
    o = setup.options
    data: dict[str, Any] = {
        "record": RECORD_KIND,
        "version": RECORD_VERSION,
        "seed": setup.seed,
        "seekers": [[c.value for c in figs] for figs in setup.seekers],
        "options": {
            "mummy_die_faces": list(o.mummy_die_faces),
            "mummy_moves_exactly": o.mummy_moves_exactly,
            "mummy_sees_treasures": o.mummy_sees_treasures,
        },
    }
    if setup.hands is not None:
        data["hands"] = [[setup.maze.cell_name(t.cell) for t in hand] for hand in setup.hands]
    data["maze"] = maze_text
    return data


def setup_from_json(data: dict[str, Any]) -> Setup:
    if data.get("record") != RECORD_KIND:
        raise ValueError(f'not a mummy-maze record (expected "record": "{RECORD_KIND}")')
    if data.get("version") != RECORD_VERSION:
        raise ValueError(f"record version {data.get('version')!r} is not {RECORD_VERSION}")
    maze = parse_maze(str(data["maze"]))
    opts = data.get("options", {})
    options = Options(
        mummy_die_faces=tuple(int(v) for v in opts.get("mummy_die_faces", (1, 2, 3, 4, 5, 6))),
        mummy_moves_exactly=bool(opts.get("mummy_moves_exactly", False)),
        mummy_sees_treasures=bool(opts.get("mummy_sees_treasures", True)),
    )
    seekers = tuple(tuple(FigureColour(c) for c in figs) for figs in data["seekers"])
    hands = data.get("hands")
    return Setup(
        maze=maze,
        seekers=seekers,
        seed=int(data.get("seed", 0)),
        options=options,
        hands=None if hands is None else tuple(_hand(maze, cells) for cells in hands),
    )


def _hand(maze: Maze, cells: list[str]) -> tuple[Treasure, ...]:
    """A dealt hand from the cell names of its treasures."""
    hand = []
    for name in cells:
        treasure = maze.treasure_at(parse_cell_name(str(name), maze.width, maze.height))
        if treasure is None:
            raise ValueError(f"no treasure on {name} for a dealt card")
        hand.append(treasure)
    return tuple(hand)


def command_to_json(command: Command, maze: Maze) -> dict[str, Any]:
    out: dict[str, Any] = {"cmd": command.kind}
    if isinstance(command, Roll) and command.faces is not None:
        out["faces"] = [f.label for f in command.faces]
    elif isinstance(command, Announce):
        out["face"] = command.face.label
    elif isinstance(command, Move | MummyStep):
        out["to"] = maze.cell_name(command.to)
    elif isinstance(command, RollMummyDie) and command.value is not None:
        out["value"] = command.value
    return out


def command_from_json(data: dict[str, Any], maze: Maze) -> Command:
    kind = data.get("cmd")
    cls = COMMAND_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown command {kind!r} (one of {', '.join(COMMAND_TYPES)})")
    if cls is Roll:
        faces = data.get("faces")
        return Roll(None if faces is None else tuple(Face.parse(f) for f in faces))
    if cls is Announce:
        return Announce(Face.parse(data.get("face")))
    if cls is Move or cls is MummyStep:
        to = parse_cell_name(str(data.get("to", "")), maze.width, maze.height)
        return Move(to) if cls is Move else MummyStep(to)
    if cls is RollMummyDie:
        value = data.get("value")
        return RollMummyDie(None if value is None else int(value))
    return cls()


def write_record(setup: Setup, maze_text: str, commands: Iterable[Command]) -> str:
    """A whole record as JSON Lines text."""
    lines = [json.dumps(setup_to_json(setup, maze_text))]
    lines += [json.dumps(command_to_json(c, setup.maze)) for c in commands]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Replay:
    setup: Setup
    commands: tuple[Command, ...]
    state: State


def replay(text: str) -> Replay:
    """Replay a record; raise RecordError at the first bad line or rule error."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not text.strip():
        raise RecordError(1, "the record is empty")
    try:
        setup = setup_from_json(json.loads(lines[0]))
        state, _ = new_game(setup)
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordError(1, f"bad setup: {exc}") from exc
    commands: list[Command] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("each line must be a JSON object")
            command = command_from_json(data, setup.maze)
        except ValueError as exc:
            raise RecordError(number, f"bad command: {exc}") from exc
        try:
            state, _ = apply(state, command)
        except RuleError as exc:
            raise RecordError(number, str(exc)) from exc
        commands.append(command)
    return Replay(setup, tuple(commands), state)
