"""Events: what happened, as the engine reports it after each command.

Every event is public except :class:`FigureMoved`, which the mummy never sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .dice import Face
from .maze import Treasure
from .state import MummyMoveKind, Winner


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""
    #: True for events that would tell the mummy where a seeker is.
    secret_from_mummy: ClassVar[bool] = False


@dataclass(frozen=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    figure: int


@dataclass(frozen=True)
class MummyTurnStarted(Event):
    kind: ClassVar[str] = "mummy_turn_started"
    dice_out: int


@dataclass(frozen=True)
class Resolved(Event):
    """A seeker resolved (``forced``: all five dice had shown the mummy)."""

    kind: ClassVar[str] = "resolved"
    figure: int
    steps: int
    forced: bool


@dataclass(frozen=True)
class DiceRolled(Event):
    kind: ClassVar[str] = "dice_rolled"
    figure: int
    faces: tuple[Face, ...]
    dice_out: int


@dataclass(frozen=True)
class TurnLost(Event):
    """All five dice show the mummy: the figure stays and the turn is lost."""

    kind: ClassVar[str] = "turn_lost"
    figure: int


@dataclass(frozen=True)
class SeekerSkipped(Event):
    """The figure cannot move at all: no resolving, no rolling."""

    kind: ClassVar[str] = "seeker_skipped"
    figure: int


@dataclass(frozen=True)
class Announced(Event):
    kind: ClassVar[str] = "announced"
    figure: int
    face: Face


@dataclass(frozen=True)
class FigureMoved(Event):
    kind: ClassVar[str] = "figure_moved"
    secret_from_mummy: ClassVar[bool] = True
    figure: int
    from_node: int
    to: int


@dataclass(frozen=True)
class CardPlayed(Event):
    kind: ClassVar[str] = "card_played"
    figure: int
    seeker: int
    treasure: Treasure
    cards_left: int


@dataclass(frozen=True)
class MummyDieRolled(Event):
    kind: ClassVar[str] = "mummy_die_rolled"
    value: int
    steps: int


@dataclass(frozen=True)
class MummyMoveStarted(Event):
    kind: ClassVar[str] = "mummy_move_started"
    move: MummyMoveKind
    steps: int


@dataclass(frozen=True)
class MummyMoved(Event):
    kind: ClassVar[str] = "mummy_moved"
    from_node: int
    to: int
    steps_left: int


@dataclass(frozen=True)
class MummyMoveEnded(Event):
    kind: ClassVar[str] = "mummy_move_ended"
    at: int


@dataclass(frozen=True)
class SeekerCaught(Event):
    """The mummy entered a seeker's cell: the figure goes to the sarcophagus."""

    kind: ClassVar[str] = "seeker_caught"
    figure: int
    seeker: int
    at: int
    ankhs_left: int


@dataclass(frozen=True)
class SeekerOut(Event):
    kind: ClassVar[str] = "seeker_out"
    seeker: int


@dataclass(frozen=True)
class GameWon(Event):
    kind: ClassVar[str] = "game_won"
    winner: Winner


@dataclass(frozen=True)
class CardsRevealed(Event):
    """The end showed every seeker's unplayed cards, and the host undid it: the game
    goes on with those cards known to the whole table."""

    kind: ClassVar[str] = "cards_revealed"


@dataclass(frozen=True)
class CardsDealtAgain(Event):
    """The unplayed cards were dealt again: ``cards`` is how many each seeker holds (as
    before); which ones only each seeker's own page says."""

    kind: ClassVar[str] = "cards_dealt_again"
    cards: tuple[int, ...]
