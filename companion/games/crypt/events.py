"""Events: what happened, as the engine reports it after each command.

Everything in Into the Crypt is open information, so every event may be shown to
every player.  Squares are ``int`` (see :mod:`.board`); :func:`event_json` gives the
JSON-safe form with square names.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .board import square_name
from .state import EndReason, Phase


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class TurnStarted(Event):
    """It is now ``player``'s turn in ``phase``."""

    kind: ClassVar[str] = "turn_started"
    player: int
    phase: Phase


@dataclass(frozen=True)
class CubePlaced(Event):
    """``placer`` put one of ``owner``'s cubes on ``square``; ``left`` still to place."""

    kind: ClassVar[str] = "cube_placed"
    placer: int
    owner: int
    square: int
    left: int


@dataclass(frozen=True)
class MeeplePlaced(Event):
    kind: ClassVar[str] = "meeple_placed"
    player: int
    square: int


@dataclass(frozen=True)
class MeepleMoved(Event):
    kind: ClassVar[str] = "meeple_moved"
    player: int
    from_square: int
    to: int


@dataclass(frozen=True)
class CubeCollected(Event):
    """``player`` stopped on their own cube and took it (1 point)."""

    kind: ClassVar[str] = "cube_collected"
    player: int
    square: int
    left_on_board: int


@dataclass(frozen=True)
class LockRemoved(Event):
    """``player`` ended on a lock space and removed the lock (1 point)."""

    kind: ClassVar[str] = "lock_removed"
    player: int
    square: int
    locks_left: int


@dataclass(frozen=True)
class ChamberEntered(Event):
    """``player`` entered the chamber and claimed the white meeple (2 points)."""

    kind: ClassVar[str] = "chamber_entered"
    player: int


@dataclass(frozen=True)
class Passed(Event):
    kind: ClassVar[str] = "passed"
    player: int


@dataclass(frozen=True)
class GameOver(Event):
    """The game ended: final scores in player order and the winners (ties shared)."""

    kind: ClassVar[str] = "game_over"
    reason: EndReason
    scores: tuple[int, ...]
    winners: tuple[int, ...]


_SQUARE_FIELDS = frozenset({"square", "from_square", "to"})


def event_json(event: Event) -> dict[str, Any]:
    """The JSON-safe form of an event, squares by name."""
    out: dict[str, Any] = {"kind": event.kind}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name in _SQUARE_FIELDS:
            value = square_name(value)
        elif isinstance(value, Phase | EndReason):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out
