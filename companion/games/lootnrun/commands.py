"""Commands: what the players ask the engine to do.

Turn actions (Loot, Run, Awaken, WerewolfKeep) are taken by the player whose turn it
is; their optional ``player`` lets a phone say who it speaks for, so that a tap from a
phone whose turn has passed is refused instead of being booked to someone else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .cards import Card


@dataclass(frozen=True)
class Command:
    """Base of all commands; ``kind`` is the name used in JSON and game records."""

    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class Loot(Command):
    """Draw a card (no points); forced when the player has no cards."""

    kind: ClassVar[str] = "loot"
    player: int | None = None


@dataclass(frozen=True)
class Run(Command):
    """Reveal all own cards (``cards``, as entered), score them, discard them."""

    kind: ClassVar[str] = "run"
    cards: tuple[Card, ...]
    player: int | None = None


@dataclass(frozen=True)
class Awaken(Command):
    """Reveal every card in front of ``target`` (``cards``, as entered).

    The engine counts amulets and guardians and resolves the escape or the catch and
    its benefits; a Werewolf benefit then waits for :class:`WerewolfKeep`.
    """

    kind: ClassVar[str] = "awaken"
    target: int
    cards: tuple[Card, ...]
    player: int | None = None


@dataclass(frozen=True)
class WerewolfKeep(Command):
    """Werewolf benefit: of the two cards drawn (one from each pile), ``kept`` were kept."""

    kind: ClassVar[str] = "werewolf_keep"
    kept: int
    player: int | None = None


@dataclass(frozen=True)
class Correction(Command):
    """Move ``player``'s token by ``points`` (+N or -N), for a ``reason``; not a turn.

    ``cards``, when given, also sets the companion's count of the player's cards (for
    a draw that was never entered, for instance).
    """

    kind: ClassVar[str] = "correction"
    player: int
    points: int
    reason: str
    cards: int | None = None


@dataclass(frozen=True)
class FinalReveal(Command):
    """After the end: ``player`` reveals their remaining ``cards`` (maybe none) and scores them."""

    kind: ClassVar[str] = "final_reveal"
    player: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class Undo(Command):
    """Take back the last accepted command (repeat to go further back)."""

    kind: ClassVar[str] = "undo"


COMMAND_TYPES: dict[str, type[Command]] = {
    c.kind: c for c in (Loot, Run, Awaken, WerewolfKeep, Correction, FinalReveal, Undo)
}
