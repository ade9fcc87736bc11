"""Events: what happened, as the engine reports it after each command.

Every event is public (Loot N Run has no hidden information the companion knows).
A page can announce them ("Ben is caught! Anna: Mummy +9") and then redraw from the view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .cards import Guardian
from .scoring import RunScore


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class GameStarted(Event):
    kind: ClassVar[str] = "game_started"
    players: tuple[str, ...]
    target: int


@dataclass(frozen=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    player: int
    turn: int
    extra_turn: bool


@dataclass(frozen=True)
class Looted(Event):
    kind: ClassVar[str] = "looted"
    player: int
    cards: int  # the companion's count after the draw


@dataclass(frozen=True)
class HandRecounted(Event):
    """The cards entered differ from the companion's count; the entry is taken as true."""

    kind: ClassVar[str] = "hand_recounted"
    player: int
    counted: int
    revealed: int


@dataclass(frozen=True)
class Ran(Event):
    kind: ClassVar[str] = "ran"
    player: int
    run: RunScore
    score: int  # the player's score after the Run


@dataclass(frozen=True)
class Awakened(Event):
    kind: ClassVar[str] = "awakened"
    player: int
    target: int
    amulets: int
    guardians: int
    escaped: bool


@dataclass(frozen=True)
class Escaped(Event):
    """The target had amulets >= guardians: it scores its cards as a Run and discards them."""

    kind: ClassVar[str] = "escaped"
    target: int
    run: RunScore
    score: int


@dataclass(frozen=True)
class Caught(Event):
    """Guardians outnumbered amulets: the target discards everything and scores nothing."""

    kind: ClassVar[str] = "caught"
    target: int
    benefits: tuple[Guardian, ...]


@dataclass(frozen=True)
class MummyBenefit(Event):
    kind: ClassVar[str] = "mummy_benefit"
    player: int
    run: RunScore
    score: int


@dataclass(frozen=True)
class WerewolfBenefit(Event):
    """The awakener draws one card from each pile; the engine waits for WerewolfKeep."""

    kind: ClassVar[str] = "werewolf_benefit"
    player: int


@dataclass(frozen=True)
class CardsKept(Event):
    kind: ClassVar[str] = "cards_kept"
    player: int
    kept: int
    cards: int


@dataclass(frozen=True)
class FrankBenefit(Event):
    """The awakener plays exactly one extra turn."""

    kind: ClassVar[str] = "frank_benefit"
    player: int


@dataclass(frozen=True)
class Corrected(Event):
    kind: ClassVar[str] = "corrected"
    player: int
    points: int
    reason: str
    score: int
    cards: int | None


@dataclass(frozen=True)
class TargetReached(Event):
    """A player reached the target: every player now reveals their remaining cards."""

    kind: ClassVar[str] = "target_reached"
    player: int
    score: int
    target: int


@dataclass(frozen=True)
class Revealed(Event):
    kind: ClassVar[str] = "revealed"
    player: int
    run: RunScore
    score: int


@dataclass(frozen=True)
class GameOver(Event):
    """Everyone has revealed (or a correction changed the final scores)."""

    kind: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class Undone(Event):
    """The last command (of ``command`` kind) was taken back."""

    kind: ClassVar[str] = "undone"
    command: str
