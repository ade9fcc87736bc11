"""Game records: a game is its setup plus its commands, as JSON Lines.

Line 1 is the setup, every further line one command (docs/game-records.md)::

    {"record": "pyramid-companion/mummy", "version": 2, "seed": 7,
     "seekers": [["red"], ["blue"]], "options": {...}, "maze": "<maze file text>"}
    {"cmd": "roll"}
    {"cmd": "roll", "faces": ["mummy", "1", "arrow"]}
    {"cmd": "announce", "face": "4"}
    {"cmd": "move", "to": "C4"}
    {"cmd": "mummy_step", "to": "D1"}

Dice without ``faces``/``value`` come from the game's seeded RNG, so a record
replays to the same state every time.  A setup with ``"hands"`` (each seeker's cards
by treasure cell, ``[["B4", "F4", ...], ...]``) was dealt by hand: physical mission
cards the seekers entered; without it the seed deals the cards: from a stream of
their own derived one-way from the seed (version 2), or, in records of version 1, off
the dice's stream before the first roll (they replay as they were played).
``{"cmd": "reveal"}`` records that an undone end had shown the unplayed cards, and
``{"cmd": "redeal"}`` deals them again from the deal's own stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from companion.games.records import (
    Fields,
    RecordError,
    check_kind,
    choice,
    describe,
    each,
    replay_record,
    whole,
)

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
from .engine import apply, new_game
from .maze import Maze, Treasure, parse_cell_name
from .maze_file import MazeError, parse_maze
from .state import FigureColour, Options, Setup, State

RECORD_KIND = "pyramid-companion/mummy"
RECORD_VERSION = 2
#: The versions this companion replays (1: the cards came off the dice's stream).
READABLE_VERSIONS = (1, 2)


def setup_to_json(setup: Setup, maze_text: str) -> dict[str, Any]:
    o = setup.options
    data: dict[str, Any] = {
        "record": RECORD_KIND,
        "version": RECORD_VERSION if setup.own_deal_stream else 1,
        "seed": setup.seed,
        "seekers": [[c.value for c in figs] for figs in setup.seekers],
        "options": {
            "mummy_die_faces": list(o.mummy_die_faces),
            "mummy_moves_exactly": o.mummy_moves_exactly,
            "mummy_sees_treasures": o.mummy_sees_treasures,
        },
    }
    if o.first_game:
        data["options"]["first_game"] = True
    if setup.hands is not None:
        data["hands"] = [[setup.maze.cell_name(t.cell) for t in hand] for hand in setup.hands]
    data["maze"] = maze_text
    return data


SETUP_KEYS = ("record", "version", "seed", "seekers", "options", "hands", "maze")
OPTION_KEYS = ("mummy_die_faces", "mummy_moves_exactly", "mummy_sees_treasures", "first_game")


def setup_from_json(data: Any) -> Setup:
    """A checked setup from line 1 of a record; RecordError says what is wrong."""
    fields = data if isinstance(data, Fields) else Fields(data, "the setup")
    check_kind(fields, RECORD_KIND, READABLE_VERSIONS, "a mummy-maze")
    try:
        maze = parse_maze(fields.text("maze"))
    except MazeError as exc:
        raise RecordError(f"the maze in the setup is not a good maze: {exc}") from exc
    opts = fields.obj("options", OPTION_KEYS, default={})
    faces = opts.array("mummy_die_faces", default=[1, 2, 3, 4, 5, 6])
    options = Options(
        mummy_die_faces=each(faces, lambda v: whole(v, "a mummy die face", low=0, high=99)),
        mummy_moves_exactly=opts.boolean("mummy_moves_exactly", default=False),
        mummy_sees_treasures=opts.boolean("mummy_sees_treasures", default=True),
        first_game=opts.boolean("first_game", default=False),
    )
    seekers = each(fields.array("seekers"), _figures)
    _check_seekers(seekers)
    hands = fields.optional_array("hands")
    return Setup(
        maze=maze,
        seekers=seekers,
        seed=fields.integer("seed", default=0, low=0, high=2**64 - 1),
        options=options,
        hands=None if hands is None else each(hands, lambda cells: _hand(maze, cells)),
        own_deal_stream=fields.data["version"] != 1,
    )


def _figures(value: Any) -> tuple[FigureColour, ...]:
    if not isinstance(value, list):
        raise RecordError(f'each seeker in "seekers" is a list of colours, not {describe(value)}')
    return each(value, lambda c: choice(c, FigureColour, "a figure colour"))


def _check_seekers(seekers: tuple[tuple[FigureColour, ...], ...]) -> None:
    """What ``make_setup`` refuses on the host page is refused in a record too."""
    figures = [c for figs in seekers for c in figs]
    if not 1 <= len(seekers) <= 4:
        raise RecordError("the game needs 1 to 4 seekers")
    if len(set(figures)) != len(figures):
        raise RecordError("every figure needs a colour of its own")
    if [len(figs) for figs in seekers] != ([2] if len(seekers) == 1 else [1] * len(seekers)):
        raise RecordError("one seeker plays two figures; two or more seekers play one each")


def _hand(maze: Maze, cells: Any) -> tuple[Treasure, ...]:
    """A dealt hand from the cell names of its treasures."""
    if not isinstance(cells, list):
        raise RecordError(f'each hand in "hands" is a list of cell names, not {describe(cells)}')
    hand = []
    for name in cells:
        treasure = maze.treasure_at(_cell(name, maze, "a dealt card"))
        if treasure is None:
            raise RecordError(f"no treasure on {name} for a dealt card")
        hand.append(treasure)
    return tuple(hand)


def _cell(name: Any, maze: Maze, what: str) -> int:
    if not isinstance(name, str):
        raise RecordError(f'{what} is a cell name such as "C4", not {describe(name)}')
    try:
        return parse_cell_name(name, maze.width, maze.height)
    except ValueError as exc:
        raise RecordError(f"{what}: {exc}") from exc


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


_COMMAND_KEYS = {"roll": ("faces",), "announce": ("face",), "move": ("to",)}
_COMMAND_KEYS |= {"mummy_step": ("to",), "roll_mummy_die": ("value",)}


def command_from_json(data: Any, maze: Maze) -> Command:
    """A checked command from its JSON form; RecordError says what is wrong."""
    kind = data.get("cmd") if isinstance(data, dict) else data
    if not isinstance(kind, str) or kind not in COMMAND_TYPES:
        raise RecordError(
            f'a command is an object with "cmd" one of {", ".join(COMMAND_TYPES)}'
            f" (not {describe(kind)})"
        )
    cls = COMMAND_TYPES[kind]
    fields = Fields(data, f"a {kind} command", ("cmd", *_COMMAND_KEYS.get(kind, ())))
    if cls is Roll:
        faces = fields.optional_array("faces")
        return Roll(None if faces is None else each(faces, _face))
    if cls is Announce:
        return Announce(_face(fields.raw("face")))
    if cls is Move or cls is MummyStep:
        to = _cell(fields.raw("to"), maze, f"where a {kind} goes")
        return Move(to) if cls is Move else MummyStep(to)
    if cls is RollMummyDie:
        return RollMummyDie(fields.optional_integer("value", low=0, high=99))
    return cls()


def _face(value: Any) -> Face:
    try:
        return Face.parse(value)
    except ValueError as exc:
        raise RecordError(str(exc)) from exc


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
    setup, commands, state = replay_record(
        text,
        setup_from_json,
        lambda setup, data: command_from_json(data, setup.maze),
        lambda setup: new_game(setup)[0],
        lambda state, command: apply(state, command)[0],
    )
    return Replay(setup, tuple(commands), state)
