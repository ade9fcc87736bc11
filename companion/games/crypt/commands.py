"""Commands: everything a player (or the board's sensors) can ask the engine to do.

Squares are ``int`` (see :mod:`.board`); :func:`parse_command` reads the JSON form a
page sends, with square names: ``{"kind": "move", "to": "e4"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .board import parse_square, square_name


@dataclass(frozen=True)
class Command:
    """Base of all commands; ``kind`` is the name used in JSON and game records."""

    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON-safe form, squares by name."""
        return {"kind": self.kind}


@dataclass(frozen=True)
class PlaceCube(Command):
    """Placing phase: put one of the next player's cubes on ``square``."""

    kind: ClassVar[str] = "place_cube"
    square: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "square": square_name(self.square)}


@dataclass(frozen=True)
class PlaceMeeple(Command):
    """Put one's own meeple on a free corner space (a1, a8, h1 or h8)."""

    kind: ClassVar[str] = "place_meeple"
    corner: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "corner": square_name(self.corner)}


@dataclass(frozen=True)
class Move(Command):
    """Move one's meeple in a straight line to ``to`` (collecting or unlocking there)."""

    kind: ClassVar[str] = "move"
    to: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "to": square_name(self.to)}


@dataclass(frozen=True)
class EnterChamber(Command):
    """From a crypt space, with all locks gone: claim the white meeple; the game ends."""

    kind: ClassVar[str] = "enter_chamber"


@dataclass(frozen=True)
class Pass(Command):
    """No move is possible: let the next player move."""

    kind: ClassVar[str] = "pass"


COMMAND_TYPES: dict[str, type[Command]] = {
    c.kind: c for c in (PlaceCube, PlaceMeeple, Move, EnterChamber, Pass)
}


def parse_command(data: Mapping[str, Any]) -> Command:
    """A command from its JSON form; ValueError with a readable message if malformed."""
    kind = data.get("kind")
    if kind == PlaceCube.kind:
        return PlaceCube(_square_field(data, "square"))
    if kind == PlaceMeeple.kind:
        return PlaceMeeple(_square_field(data, "corner"))
    if kind == Move.kind:
        return Move(_square_field(data, "to"))
    if kind == EnterChamber.kind:
        return EnterChamber()
    if kind == Pass.kind:
        return Pass()
    known = ", ".join(COMMAND_TYPES)
    raise ValueError(f"unknown command kind {kind!r}: expected one of {known}")


def _square_field(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f'"{data.get("kind")}" needs "{key}": a square name such as "e4"')
    return parse_square(value)
