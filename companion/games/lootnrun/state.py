"""Players, the setup and the immutable state of a Loot N Run game."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any

from .commands import Command
from .history import HistoryEntry

MIN_PLAYERS = 2
MAX_PLAYERS = 6
#: The longest name a player may have (a score track line on a phone holds it).
MAX_NAME = 24
#: Points that end the game (RULES.md: 35, or 30 with 6 players).
TARGET = 35
TARGET_SIX_PLAYERS = 30


class Phase(enum.Enum):
    """What the game waits for."""

    PLAYING = "playing"  # the current player Loots, Runs or Awakens
    WEREWOLF_KEEP = "werewolf_keep"  # the awakener says how many Werewolf cards they keep
    FINAL_REVEAL = "final_reveal"  # every player enters their remaining cards
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class Player:
    """A player: a name and the colour of their scoring tokens (free text, e.g. "red")."""

    name: str
    colour: str


@dataclass(frozen=True)
class Setup:
    """Who plays: ``players`` in clockwise seating order, ``first`` the starting player.

    (The rules start with "the player who last saw a B-movie mummy".)
    """

    players: tuple[Player, ...]
    first: int = 0

    @property
    def target(self) -> int:
        """Points that end the game: 35, or 30 with six players."""
        return TARGET_SIX_PLAYERS if len(self.players) == MAX_PLAYERS else TARGET

    @property
    def awaken_needs_own_card(self) -> bool:
        """Awaken needs a card of one's own, except in the two-player game."""
        return len(self.players) > 2


@dataclass(frozen=True)
class State:
    """One moment of a game.  Never mutated: the engine returns new states.

    ``hands`` is the companion's count of the cards in front of each player.  The
    companion never sees the cards; it counts them from the actions entered (Loot +1,
    Werewolf + the cards kept, Run / being awakened / final reveal -> 0, a correction
    sets it).  ``commands`` are the accepted commands, so the state can be rebuilt by
    replaying them (that is how Undo works); ``history`` has one entry per command.
    """

    setup: Setup
    phase: Phase
    #: Whose turn it is (PLAYING), or the awakener choosing Werewolf cards.
    current: int
    #: Number of the turn in progress, from 1; a Frank extra turn counts as a turn.
    turn: int
    scores: tuple[int, ...]
    hands: tuple[int, ...]
    #: The current turn is a Frank extra turn.
    extra_turn: bool = False
    #: A Frank benefit waits for the Werewolf benefit to be resolved first.
    extra_turn_owed: bool = False
    #: Final reveal: who has entered their remaining cards.
    revealed: tuple[bool, ...] = ()
    #: The player who reached the target first.
    ended_by: int | None = None
    #: Everyone with the most points once the game is over (ties share the victory).
    winners: tuple[int, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    commands: tuple[Command, ...] = ()

    def evolve(self, **changes: Any) -> State:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @property
    def players(self) -> tuple[Player, ...]:
        return self.setup.players

    @property
    def target(self) -> int:
        return self.setup.target

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def name(self, player: int) -> str:
        return self.setup.players[player].name
