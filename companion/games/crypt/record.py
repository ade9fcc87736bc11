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

from collections.abc import Mapping
from typing import Any

from .commands import Command, parse_command
from .engine import make_setup
from .state import Options, Setup

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


def setup_from_json(data: Mapping[str, Any]) -> Setup:
    """A checked setup from its JSON form; ValueError (RuleError) if it is not one."""
    if data.get("record") != RECORD_KIND:
        raise ValueError(f"not an Into the Crypt record: {data.get('record')!r}")
    if data.get("version") != RECORD_VERSION:
        raise ValueError(f"unknown Into the Crypt record version {data.get('version')!r}")
    options = Options(
        cubes_per_player=int(data["cubes_per_player"]), quiet_rounds=int(data["quiet_rounds"])
    )
    return make_setup(
        int(data["players"]),
        int(data["first_player"]),
        seed=int(data["seed"]),
        options=options,
        colours=tuple(str(c) for c in data["colours"]),
    )


def command_to_json(command: Command) -> dict[str, Any]:
    """A command as a record line (squares by name)."""
    return command.to_json()


def command_from_json(data: Mapping[str, Any]) -> Command:
    """A command from a record line; ValueError with a readable message if malformed."""
    return parse_command(data)
