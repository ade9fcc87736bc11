"""The game setup and the immutable game state of the mummy maze."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from .dice import Face
from .maze import Maze, Treasure


class FigureColour(enum.Enum):
    """The four seeker figures."""

    RED = "red"
    TURQUOISE = "turquoise"
    BLUE = "blue"
    VIOLET = "violet"


class Phase(enum.Enum):
    """What the game waits for."""

    SEEKER_TURN = "seeker_turn"  # resolve (if dice lie out and allowed) or roll
    SEEKER_ROLLED = "seeker_rolled"  # roll again or announce a die
    SEEKER_MOVING = "seeker_moving"  # move the figure by the announced die
    SEEKER_CARD = "seeker_card"  # play the card of this treasure, or end the turn
    MUMMY_ROLL = "mummy_roll"  # the mummy rolls its die for a normal move
    MUMMY_MOVING = "mummy_moving"  # the mummy steps, or ends its move early
    GAME_OVER = "game_over"


class MummyMoveKind(enum.Enum):
    """Why the mummy moves, which decides what follows the move."""

    NORMAL = "normal"  # after the last seeker
    RESOLVE = "intermediate"  # a seeker resolved (or was forced to): that seeker rolls next
    AFTER_NORMAL = "intermediate_after_normal"  # all five dice showed mummy before the mummy


@dataclass(frozen=True)
class Options:
    """Rule options; the defaults are the decisions in RULES.md."""

    #: Faces of the brown mummy die (RULES.md decision: 1 to 6).
    mummy_die_faces: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    #: The mummy must use every step of a normal or intermediate move (default: up to).
    mummy_moves_exactly: bool = False
    #: The mummy's page shows the treasures (default: yes, both sides show the same maze).
    mummy_sees_treasures: bool = True
    #: A first game: each new situation is explained once on its seat's page
    #: (``first_game.py``); off for later games.
    first_game: bool = False


#: Ankhs the mummy needs to win, by number of seekers (RULES.md: 1 seeker -> 3).
MUMMY_WIN_ANKHS = {1: 3, 2: 4, 3: 6, 4: 7}
ANKHS_PER_FIGURE = 3


@dataclass(frozen=True)
class Setup:
    """Everything fixed at the start: the maze, the seekers and their figures, options, seed.

    ``seekers`` holds each seeker's figure colours in turn order (the seeker on the
    mummy's left first).  With one seeker (the two-player game) that seeker has two
    figures; otherwise every seeker has one.
    """

    maze: Maze
    seekers: tuple[tuple[FigureColour, ...], ...]
    seed: int = 0
    options: Options = Options()
    #: Mission cards dealt by hand, per seeker (physical cards the seekers entered);
    #: None deals them from the seed.
    hands: tuple[tuple[Treasure, ...], ...] | None = None
    #: The cards are shuffled from a stream of their own, derived one-way from the seed
    #: (``dice.deal_seed``), apart from the dice: the dice that everyone sees tell nothing
    #: of the deal.  False only for games recorded before (record version 1), whose cards
    #: came off the dice's stream, so that they replay as they were played.
    own_deal_stream: bool = True

    @property
    def figures(self) -> tuple[FigureColour, ...]:
        return tuple(c for figs in self.seekers for c in figs)

    @property
    def figure_owner(self) -> tuple[int, ...]:
        return tuple(i for i, figs in enumerate(self.seekers) for _ in figs)

    @property
    def win_ankhs(self) -> int:
        return MUMMY_WIN_ANKHS[len(self.seekers)]

    @property
    def cards_per_colour(self) -> int:
        return 2 if len(self.seekers) == 1 else 1


@dataclass(frozen=True)
class Winner:
    """Who won and why; ``seeker`` is None when the mummy won."""

    seeker: int | None
    reason: str

    @property
    def is_mummy(self) -> bool:
        return self.seeker is None


@dataclass(frozen=True)
class State:
    """One moment of a game.  Never mutated: the engine returns new states.

    Figures are numbered in turn order; ``positions`` holds a node per figure (a grid
    cell, the start field or the sarcophagus node of the maze, -1 when out of the game).
    """

    setup: Setup
    rng: int
    phase: Phase
    #: Figure whose turn it is (meaningless on the mummy's turn).
    figure: int
    positions: tuple[int, ...]
    mummy: int
    #: Ankhs each seeker still holds.
    ankhs: tuple[int, ...]
    mummy_ankhs: int
    #: Mission cards each seeker still holds (secret) and has played (public).
    hands: tuple[tuple[Treasure, ...], ...]
    played: tuple[tuple[Treasure, ...], ...]
    #: White dice lying out mummy-up, kept across turns until a resolve.
    dice_out: int = 0
    #: The faces of the last roll that did not show the mummy.
    roll: tuple[Face, ...] = ()
    announced: Face | None = None
    #: Where the announced die may take the figure (bit mask), fixed when announced.
    targets: int = 0
    may_resolve: bool = True
    #: All five dice showed the mummy: an intermediate move of 5 is owed.
    forced_resolve: bool = False
    mummy_move: MummyMoveKind | None = None
    steps_left: int = 0
    #: Completed rounds (mummy turns).
    rounds: int = 0
    winner: Winner | None = None
    #: The end showed the unplayed cards and was undone: every hand is known to the table
    #: (``commands.Reveal``) until the host deals them again (``commands.Redeal``).
    cards_known: bool = False
    #: How often the unplayed cards were dealt again.
    redeals: int = 0
    #: The deal's own secret stream where the deal left it (the next redeal draws on).
    deal: int = 0

    def evolve(self, **changes: Any) -> State:
        """A copy with some fields changed (``dataclasses.replace`` without its overhead)."""
        assert changes.keys() <= _FIELDS, f"no such State fields: {changes.keys() - _FIELDS}"
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    @property
    def maze(self) -> Maze:
        return self.setup.maze

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def is_mummy_turn(self) -> bool:
        return self.phase in (Phase.MUMMY_ROLL, Phase.MUMMY_MOVING)

    @property
    def seeker(self) -> int:
        """The seeker whose figure has the turn."""
        return self.setup.figure_owner[self.figure]

    def is_out(self, seeker: int) -> bool:
        return self.ankhs[seeker] == 0

    def figure_is_out(self, figure: int) -> bool:
        return self.positions[figure] < 0

    def figure_at(self, node: int) -> int | None:
        """The figure standing on grid cell ``node`` (rooms hold several: None)."""
        if not self.setup.maze.is_cell(node):
            return None
        for f, pos in enumerate(self.positions):
            if pos == node:
                return f
        return None

    def seekers_mask(self, *, except_figure: int = -1) -> int:
        """Grid cells holding a seeker figure, as a bit mask."""
        limit = self.setup.maze.cell_count
        mask = 0
        for f, pos in enumerate(self.positions):
            if f != except_figure and 0 <= pos < limit:
                mask |= 1 << pos
        return mask

    def mummy_mask(self) -> int:
        return 1 << self.mummy if self.mummy < self.setup.maze.cell_count else 0


_FIELDS = frozenset(f.name for f in fields(State))


class Situation(Protocol):
    """What the legal-move queries and the seeker bots read of a game: a :class:`State`,
    or the mutable game of the fast simulation path (``fast.FastGame``)."""

    @property
    def setup(self) -> Setup: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def figure(self) -> int: ...
    @property
    def positions(self) -> Sequence[int]: ...
    @property
    def mummy(self) -> int: ...
    @property
    def hands(self) -> Sequence[Sequence[Treasure]]: ...
    @property
    def dice_out(self) -> int: ...
    @property
    def roll(self) -> Sequence[Face]: ...
    @property
    def may_resolve(self) -> bool: ...
    @property
    def announced(self) -> Face | None: ...
    @property
    def seeker(self) -> int: ...
    @property
    def maze(self) -> Maze: ...
