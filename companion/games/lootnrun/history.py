"""The history of a game: every accepted action with its player, turn and points.

The history is part of the game state, so a page can show it, draw a score-over-turns
chart from it, and undo is simply "the state without the last action".  Each accepted
command (except Undo) adds exactly one entry.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .cards import Guardian
from .scoring import RunScore


class Action(enum.Enum):
    """What a history entry records."""

    LOOT = "loot"
    RUN = "run"
    AWAKEN = "awaken"
    WEREWOLF_KEEP = "werewolf_keep"  # the second half of a catch with a Werewolf
    CORRECTION = "correction"  # not a turn: a fix of the track or of a card count
    FINAL_REVEAL = "final_reveal"


class GainReason(enum.Enum):
    """Why points moved on the track."""

    RUN = "run"  # the player's own Run
    ESCAPE = "escape"  # the target of an Awaken escaped and scored its cards
    MUMMY = "mummy"  # the awakener's Mummy benefit: the caught player's cards
    REVEAL = "reveal"  # the final reveal
    CORRECTION = "correction"


@dataclass(frozen=True)
class Gain:
    """Points that moved one player's token, with the Run arithmetic behind them."""

    player: int
    points: int
    reason: GainReason
    run: RunScore | None = None  # None for corrections


@dataclass(frozen=True)
class HistoryEntry:
    """One accepted action.

    ``turn`` is the number of the turn it belongs to (turns count from 1, a Frank extra
    turn is a turn of its own; a correction carries the number of the turn in progress).
    ``player`` is who acted (for a correction or a final reveal: whose score or cards).
    ``scores`` is every player's score after the action, for the chart.
    """

    index: int
    turn: int
    player: int
    action: Action
    gains: tuple[Gain, ...] = ()
    scores: tuple[int, ...] = ()
    #: The action was taken in a Frank extra turn.
    extra_turn: bool = False
    #: Cards the player holds by the companion's count after the action.
    cards_after: int = 0
    #: Cards entered (revealed) with the action: Run, Awaken (the target's), final reveal.
    cards_revealed: int = 0
    #: Awaken: the target, the counts, whether the target escaped, benefits that took effect.
    target: int | None = None
    amulets: int = 0
    guardians: int = 0
    escaped: bool | None = None
    benefits: tuple[Guardian, ...] = ()
    #: Werewolf benefit: cards kept (0 to 2).
    kept: int | None = None
    #: Correction: the reason given, and the card count set (None: unchanged).
    reason: str = ""
    cards_set: int | None = None
    #: The action made a player reach the target: the final reveal began.
    ended_game: bool = False

    @property
    def points(self) -> int:
        """All points this action moved on the track."""
        return sum(g.points for g in self.gains)

    def points_for(self, player: int) -> int:
        """Points this action gave ``player`` (negative for a correction downwards)."""
        return sum(g.points for g in self.gains if g.player == player)
