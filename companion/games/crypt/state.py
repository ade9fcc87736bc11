"""The setup and the immutable game state of Into the Crypt (RULES.md, section 3).

Players are numbered 0 to n-1 in turn order (n = 2, or 4 in the variant); play always
passes to the next number, wrapping round.  Every set of squares is an ``int`` bit
mask (see :mod:`.board`), so a state is a handful of ints and tuples: cheap to copy,
cheap to compare, and safe to share because nothing in it is ever mutated.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import Any

from .board import CRYPT_MASK, bit

#: Cubes per player: 10 in the two-player game, 6 in the four-player variant.
CUBES_PER_PLAYER = {2: 10, 4: 6}
#: Default colours of the players' cubes and meeples, in turn order.
DEFAULT_COLOURS = ("red", "blue", "green", "yellow")
#: Points for the white meeple (the mummy) claimed in the chamber.
WHITE_MEEPLE_POINTS = 2
#: Placeholder for a meeple not yet on the board.
OFF_BOARD = -1
NOBODY = -1


class Phase(enum.Enum):
    """What the game waits for."""

    PLACING_CUBES = "placing_cubes"  # the player to move places a cube of the next player
    PLACING_MEEPLES = "placing_meeples"  # the player to move puts their meeple on a corner
    MOVING = "moving"  # move, enter the chamber, or pass
    GAME_OVER = "game_over"


class EndReason(enum.Enum):
    """Why the game ended."""

    CHAMBER = "chamber"  # a player entered the chamber and claimed the white meeple
    ALL_PASSED = "all_passed"  # every player passed in a row: nothing can change any more
    NO_PROGRESS = "no_progress"  # too many turns in a row without a cube or lock collected


@dataclass(frozen=True)
class Options:
    """Rule settings; the defaults are the decisions in RULES.md and docs/crypt.md."""

    #: Cubes each player owns (None: 10 with two players, 6 with four).
    cubes_per_player: int | None = None
    #: Full rounds in a row in which nobody collects a cube or a lock before the game
    #: ends and is scored as it stands (docs/crypt.md, decision "endless games").
    quiet_rounds: int = 10


@dataclass(frozen=True)
class Setup:
    """Everything fixed at the start of a game.

    ``seed`` is not used by the rules (they have no chance in them); it is kept so a
    game record can re-create computer opponents that choose exactly as before.
    """

    players: int
    first_player: int
    cubes_per_player: int
    quiet_rounds: int
    colours: tuple[str, ...]
    seed: int = 0

    def next_player(self, player: int) -> int:
        """Whose turn follows ``player``'s."""
        return (player + 1) % self.players

    def owner_placed_by(self, player: int) -> int:
        """Whose cubes ``player`` places: the next player's (the opponent with two).

        Decision for the four-player variant: every player hands their cubes to the
        player before them in turn order, so each player places the next player's cubes.
        """
        return self.next_player(player)

    def placer_of(self, owner: int) -> int:
        """Who places ``owner``'s cubes."""
        return (owner - 1) % self.players

    @property
    def quiet_turn_limit(self) -> int:
        """Turns in a row without any collection after which the game ends."""
        return self.quiet_rounds * self.players

    @property
    def total_cubes(self) -> int:
        return self.cubes_per_player * self.players


@dataclass(frozen=True)
class State:
    """One moment of a game.  Never mutated: the engine returns new states."""

    setup: Setup
    phase: Phase
    #: Whose turn it is (in the placing phases too).
    to_move: int
    #: Each player's own cubes on the board (mask per owner).
    cubes: tuple[int, ...]
    #: Each owner's cubes not yet placed (held by the player who places them).
    in_hand: tuple[int, ...]
    #: Each player's meeple square, or OFF_BOARD before it is placed.
    meeples: tuple[int, ...]
    #: Crypt squares that still hold a lock (mask).
    locks: int
    #: Own cubes each player has collected from the board.
    collected: tuple[int, ...]
    #: Locks each player has removed from the crypt (each scores 1: RULES.md decision).
    locks_taken: tuple[int, ...]
    #: The player who entered the chamber and holds the white meeple, or NOBODY.
    chamber: int = NOBODY
    #: Consecutive passes in the moving phase.
    passes_in_row: int = 0
    #: Consecutive moving-phase turns (moves and passes) in which nothing was collected.
    quiet_turns: int = 0
    #: Commands accepted so far.
    ply: int = 0
    end_reason: EndReason | None = None

    def evolve(self, **changes: Any) -> State:
        """A copy with some fields changed (``dataclasses.replace`` without its overhead)."""
        assert changes.keys() <= _FIELDS, f"no such State fields: {changes.keys() - _FIELDS}"
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    # -- predicates and counts ---------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def locks_left(self) -> int:
        return self.locks.bit_count()

    @property
    def all_cubes_mask(self) -> int:
        """Every square holding a player's cube (locks not included)."""
        mask = 0
        for m in self.cubes:
            mask |= m
        return mask

    @property
    def meeples_mask(self) -> int:
        mask = 0
        for sq in self.meeples:
            if sq >= 0:
                mask |= 1 << sq
        return mask

    def cubes_on_board(self, player: int) -> int:
        """How many of ``player``'s own cubes are still on the board."""
        return self.cubes[player].bit_count()

    def may_open_lock(self, player: int) -> bool:
        """The lock rule: own cubes on the board at most the locks still in the crypt."""
        return self.locks != 0 and self.cubes_on_board(player) <= self.locks_left

    def cube_owner_at(self, sq: int) -> int | None:
        """Whose cube lies on ``sq`` (None: no player's cube; locks are not counted)."""
        b = bit(sq)
        for owner, mask in enumerate(self.cubes):
            if mask & b:
                return owner
        return None

    def meeple_at(self, sq: int) -> int | None:
        """Whose meeple stands on ``sq``, if any."""
        for player, at in enumerate(self.meeples):
            if at == sq:
                return player
        return None

    def has_lock(self, sq: int) -> bool:
        return (self.locks >> sq) & 1 == 1

    def in_crypt(self, player: int) -> bool:
        at = self.meeples[player]
        return at >= 0 and (CRYPT_MASK >> at) & 1 == 1

    def colour(self, player: int) -> str:
        return self.setup.colours[player]

    # -- scoring -------------------------------------------------------------------

    def score(self, player: int) -> int:
        """Collected cubes + removed locks + 2 for the white meeple."""
        white = WHITE_MEEPLE_POINTS if self.chamber == player else 0
        return self.collected[player] + self.locks_taken[player] + white

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self.score(p) for p in range(self.players))

    @property
    def leaders(self) -> tuple[int, ...]:
        """The players with the highest score now (several when tied)."""
        scores = self.scores
        best = max(scores)
        return tuple(p for p, s in enumerate(scores) if s == best)

    @property
    def winners(self) -> tuple[int, ...]:
        """Who won once the game is over (a tie is shared); empty while it runs."""
        return self.leaders if self.is_over else ()


_FIELDS = frozenset(f.name for f in fields(State))
