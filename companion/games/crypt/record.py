"""Game records of Into the Crypt: the setup and the commands as JSON.

A game is its setup plus its accepted commands (the rules have no chance in them), so
the journal stores exactly these and a resume is a replay::

    {"record": "pyramid-companion/crypt", "version": 1, "players": 2,
     "first_player": 0, "cubes_per_player": 10, "quiet_rounds": 10,
     "colours": ["red", "blue"], "seed": 7}
    {"kind": "place_cube", "square": "c3"}
    {"kind": "place_meeple", "corner": "a1"}
    {"kind": "move", "to": "a3"}

Extra keys in the setup (a service's own settings, such as which seat the computer
plays) are kept by the caller and ignored here.
"""

from __future__ import annotations

from typing import Any

from companion.games.records import (
    Fields,
    RecordError,
    check_kind,
    describe,
    each,
    replay_record,
)

from .commands import Command, parse_command
from .engine import apply, make_setup, start_game
from .state import Options, Setup, State

RECORD_KIND = "pyramid-companion/crypt"
RECORD_VERSION = 1


def setup_to_json(setup: Setup) -> dict[str, Any]:
    """The JSON-safe form of a setup (line 1 of a record)."""
    return {
        "record": RECORD_KIND,
        "version": RECORD_VERSION,
        "players": setup.players,
        "first_player": setup.first_player,
        "cubes_per_player": setup.cubes_per_player,
        "quiet_rounds": setup.quiet_rounds,
        "colours": list(setup.colours),
        "seed": setup.seed,
    }


def setup_from_json(data: Any) -> Setup:
    """A checked setup from its JSON form; ValueError (RecordError, RuleError) if not one.

    Extra keys (the service's own settings) are ignored."""
    fields = data if isinstance(data, Fields) else Fields(data, "the setup")
    check_kind(fields, RECORD_KIND, RECORD_VERSION, "an Into the Crypt")
    options = Options(
        cubes_per_player=fields.integer("cubes_per_player", low=1, high=99),
        quiet_rounds=fields.integer("quiet_rounds", low=1, high=999),
    )
    colours = fields.array("colours")
    return make_setup(
        fields.integer("players", low=1, high=4),
        fields.integer("first_player", low=0, high=3),
        seed=fields.integer("seed", low=0, high=2**64 - 1),
        options=options,
        colours=each(colours, lambda c: _colour(c)),
    )


def _colour(value: Any) -> str:
    if not isinstance(value, str):
        raise RecordError(f'each of "colours" is a colour name, not {describe(value)}')
    return value


def command_to_json(command: Command) -> dict[str, Any]:
    """A command as a record line (squares by name)."""
    return command.to_json()


def command_from_json(data: Any) -> Command:
    """A command from a record line; ValueError with a readable message if malformed."""
    return parse_command(Fields(data, "a command").data)


def read_record(text: str) -> tuple[Setup, State]:
    """Replay a record (JSON Lines); RecordError names the line of the first problem."""
    setup, _, state = replay_record(
        text,
        setup_from_json,
        lambda _, data: command_from_json(data),
        lambda setup: start_game(setup)[0],
        lambda state, command: apply(state, command)[0],
    )
    return setup, state
