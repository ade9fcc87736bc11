"""JSON forms of cards, commands and setups, and game records (JSON Lines).

The page posts commands as JSON; the service journals a game as its setup plus its
commands, one JSON object a line, and resumes by replaying them::

    {"record": "pyramid-companion/lootnrun", "version": 1, "first": 0,
     "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]}
    {"cmd": "loot"}
    {"cmd": "run", "cards": [{"treasures": [2, 0, 0, 0, 1, 0]}, {"treasures": [1, 0, 0, 0, 0, 0]}]}
    {"cmd": "awaken", "target": 0,
     "cards": [{"treasures": [0, 1, 0, 0, 0, 0], "amulets": 0, "guardian": "frank"}]}
    {"cmd": "werewolf_keep", "kept": 1}
    {"cmd": "correction", "player": 1, "points": -2, "reason": "miscounted", "cards": null}
    {"cmd": "final_reveal", "player": 0, "cards": []}
    {"cmd": "undo"}

A card is ``{"treasures": [six counts, type 1 first], "amulets": 0, "guardian": null,
"colour": null}``; every key but ``treasures`` may be left out.  Turn actions may carry
``"player"`` (who the phone speaks for).  Unknown keys are an error naming the key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from companion.games.records import Fields, RecordError, choice, replay_record, whole

from .cards import Card, Guardian, RoomColour
from .commands import (
    COMMAND_TYPES,
    Awaken,
    Command,
    Correction,
    FinalReveal,
    Loot,
    Run,
    Undo,
    WerewolfKeep,
)
from .engine import apply, new_game
from .errors import RuleError
from .state import Player, Setup, State

RECORD_KIND = "pyramid-companion/lootnrun"
RECORD_VERSION = 1


class FormatError(RecordError):
    """JSON that is not a card, command, setup or record; ``line`` is 1-based, if known."""


# -- cards -----------------------------------------------------------------------


def card_to_json(card: Card) -> dict[str, Any]:
    return {
        "treasures": list(card.treasures),
        "amulets": card.amulets,
        "guardian": None if card.guardian is None else card.guardian.value,
        "colour": None if card.colour is None else card.colour.value,
    }


def card_from_json(data: Any) -> Card:
    obj = _object(data, "a card", {"treasures", "amulets", "guardian", "colour"})
    treasures = obj.get("treasures")
    if not isinstance(treasures, list):
        raise FormatError('a card needs "treasures": a list of six counts')
    guardian = obj.get("guardian")
    colour = obj.get("colour")
    try:
        return Card(
            tuple(_int(v, "a treasure count") for v in treasures),
            _int(obj.get("amulets", 0), '"amulets"'),
            None if guardian is None else choice(guardian, Guardian, '"guardian"'),
            None if colour is None else choice(colour, RoomColour, '"colour"'),
        )
    except RecordError as e:
        raise FormatError(e.message) from e
    except RuleError as e:
        raise FormatError(str(e)) from e


def _cards(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise FormatError('"cards" is a list of cards')
    return tuple(card_from_json(c) for c in value)


# -- commands --------------------------------------------------------------------


def command_to_json(command: Command) -> dict[str, Any]:
    data: dict[str, Any] = {"cmd": command.kind}
    if isinstance(command, Run | Awaken | FinalReveal):
        data["cards"] = [card_to_json(c) for c in command.cards]
    if isinstance(command, Awaken):
        data["target"] = command.target
    if isinstance(command, WerewolfKeep):
        data["kept"] = command.kept
    if isinstance(command, Correction):
        data.update(points=command.points, reason=command.reason, cards=command.cards)
    player = getattr(command, "player", None)
    if player is not None:
        data["player"] = player
    return data


_COMMAND_KEYS = {
    "loot": {"player"},
    "run": {"cards", "player"},
    "awaken": {"target", "cards", "player"},
    "werewolf_keep": {"kept", "player"},
    "correction": {"player", "points", "reason", "cards"},
    "final_reveal": {"player", "cards"},
    "undo": set(),
}


def command_from_json(data: Any) -> Command:
    """A command from its JSON form (see the module docstring)."""
    kind = data.get("cmd") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in COMMAND_TYPES:
        kinds = ", ".join(COMMAND_TYPES)
        raise FormatError(f'a command is an object with "cmd" one of: {kinds}')
    obj = _object(data, f"a {kind} command", {"cmd", *_COMMAND_KEYS[kind]})
    player = _optional_int(obj.get("player"), '"player"')
    if kind == "loot":
        return Loot(player)
    if kind == "run":
        return Run(_cards(obj.get("cards")), player)
    if kind == "awaken":
        return Awaken(_int(obj.get("target"), '"target"'), _cards(obj.get("cards")), player)
    if kind == "werewolf_keep":
        return WerewolfKeep(_int(obj.get("kept"), '"kept"'), player)
    if kind == "correction":
        reason = obj.get("reason")
        if not isinstance(reason, str):
            raise FormatError('a correction needs a "reason" (text)')
        return Correction(
            _int(obj.get("player"), '"player"'),
            _int(obj.get("points", 0), '"points"'),
            reason,
            _optional_int(obj.get("cards"), '"cards"'),
        )
    if kind == "final_reveal":
        return FinalReveal(_int(obj.get("player"), '"player"'), _cards(obj.get("cards", [])))
    return Undo()


# -- setups and records ----------------------------------------------------------


def setup_to_json(setup: Setup) -> dict[str, Any]:
    return {
        "record": RECORD_KIND,
        "version": RECORD_VERSION,
        "players": [{"name": p.name, "colour": p.colour} for p in setup.players],
        "first": setup.first,
    }


def setup_from_json(data: Any) -> Setup:
    if isinstance(data, Fields):
        data = data.data
    obj = _object(data, "a setup", {"record", "version", "players", "first"})
    if obj.get("record") != RECORD_KIND:
        raise FormatError(f'not a Loot N Run record (expected "record": "{RECORD_KIND}")')
    if obj.get("version") != RECORD_VERSION:
        raise FormatError(f"record version {obj.get('version')!r} is not {RECORD_VERSION}")
    players = obj.get("players")
    if not isinstance(players, list):
        raise FormatError('"players" is a list of {"name": ..., "colour": ...}')
    parsed = []
    for p in players:
        po = _object(p, "a player", {"name", "colour"})
        name, colour = po.get("name"), po.get("colour")
        if not isinstance(name, str) or not isinstance(colour, str):
            raise FormatError('a player has a "name" and a "colour" (text)')
        parsed.append(Player(name, colour))
    return Setup(tuple(parsed), _int(obj.get("first", 0), '"first"'))


def write_record(setup: Setup, commands: Iterable[Command]) -> str:
    """The record of a game: the setup line, then one line per command."""
    lines = [setup_to_json(setup), *(command_to_json(c) for c in commands)]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def read_record(text: str) -> State:
    """Replay a record; a bad line raises FormatError with its line number."""
    try:
        return replay_record(
            text,
            setup_from_json,
            lambda _, data: command_from_json(data),
            lambda setup: new_game(setup)[0],
            lambda state, command: apply(state, command)[0],
        )[2]
    except RecordError as e:
        raise FormatError(e.message, e.line) from e


# -- small parsers ---------------------------------------------------------------


def _object(data: Any, what: str, keys: set[str]) -> dict[str, Any]:
    try:
        return Fields(data, what, keys).data
    except RecordError as e:
        raise FormatError(e.message) from e


def _int(value: Any, what: str) -> int:
    try:
        return whole(value, what)
    except RecordError as e:
        raise FormatError(e.message) from e


def _optional_int(value: Any, what: str) -> int | None:
    return None if value is None else _int(value, what)


__all__ = [
    "RECORD_KIND",
    "RECORD_VERSION",
    "FormatError",
    "card_from_json",
    "card_to_json",
    "command_from_json",
    "command_to_json",
    "read_record",
    "setup_from_json",
    "setup_to_json",
    "write_record",
]
