"""The Into the Crypt tracker: from the occupied board positions and the game, what happened.

Into the Crypt is played on the central 8x8 cells of the 12x12 maze board (an overlay
sheet covers the maze; ``board.maze_cell`` maps a square to its cell).  Only the
meeples are magnetic figures; the cubes and the locks are shown by the LEDs, so the
sensors are expected to see exactly one magnet per meeple that is on the board and
nothing anywhere else.  Like the mummy game's tracker (``mummy_tracker.py``) this is a pure
function of the game state and the occupancy, plus one remembered square (below):

* **Placing cubes**: the player to move may tap a square on the phone, or *touch* it
  with a magnet.  A magnet resting on a square where the cube may go is a touch
  (``touch``, shown by lighting the cube-to-be); the cube is placed when the magnet is
  lifted again and the board has been quiet for the quiet period.  The service
  remembers the last touched square and passes it back as ``touched``.  Decision:
  *on lifting*, not after resting, because a magnet left on the board after its cube
  had been placed would have to be flagged as a stray figure, and because touch-and-go
  is what a tap is; the square the magnet rested on last counts, so sliding over the
  board places nothing on the squares passed.  A touch on a square where no cube may
  go is shown as an error, with the reason.
* **Placing meeples**: a magnet put down on a free corner by the player to move is
  their meeple (a ``PlaceMeeple`` command); anywhere else it is an error.
* **Moving**: the player to move lifts their meeple and puts it down; a legal
  destination is a ``Move``, an illegal one an error with the engine's reason
  (``why_not_move``) and the legal destinations as hints.  Entering the chamber and
  passing need no board action: the phone gives them.
* **Restore**: whenever the board disagrees with the game otherwise (a knocked
  meeple, the computer opponent's move still to be carried out, a figure left outside
  the crypt board or on a pad), the wrong positions are named (``missing`` and
  ``unexpected``) and nothing is taken as a move until the board is put right.

Board positions are the maze board's: cells ``row * 12 + col`` (0 to 143; the square
a1 is cell C10, see ``board.maze_cell``), then the camp pads, then the sarcophagus
pads.  Cells outside the central 8x8 and the pads play no part, so they matter only
when something stands on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.crypt.board import file_of, rank_of, square_name
from companion.games.crypt.commands import Command, Move, PlaceCube, PlaceMeeple
from companion.games.crypt.engine import RuleError, apply, why_not_move
from companion.games.crypt.moves import (
    can_enter_chamber,
    destinations,
    free_corners,
    placeable_mask,
)
from companion.games.crypt.state import Phase, State
from companion.i18n import Msg, joined, msg, word

#: The crypt board's side: it lies on the central 8x8 cells of the board.
SQUARES_SIDE = 8


@dataclass(frozen=True)
class CryptBoard:
    """The maze board as the crypt uses it: the cells (the crypt board on the central
    8x8), then the pads beside it.

    On the 12x12 maze board the mapping is ``board.maze_cell`` (maze columns C-J, rows
    3-10); a board of another size (at least 8x8) centres the crypt board the same way,
    so a companion built for a custom maze still runs the crypt.
    """

    columns: int = 12
    rows: int = 12
    camp_slots: int = 0
    sarcophagus_slots: int = 0

    def __post_init__(self) -> None:
        if self.columns < SQUARES_SIDE or self.rows < SQUARES_SIDE:
            raise ValueError(
                f"Into the Crypt needs a board of at least 8x8 cells, not "
                f"{self.columns}x{self.rows}"
            )

    @property
    def cells(self) -> int:
        return self.columns * self.rows

    @property
    def positions(self) -> int:
        """Every position with a sensor and an LED: the cells, then the pads."""
        return self.cells + self.camp_slots + self.sarcophagus_slots

    @property
    def _first_column(self) -> int:
        return (self.columns - SQUARES_SIDE) // 2

    @property
    def _first_row(self) -> int:
        return (self.rows - SQUARES_SIDE) // 2

    def position(self, square: int) -> int:
        """The board position (cell) under a crypt square; rank 8 is the top row."""
        row = self._first_row + SQUARES_SIDE - 1 - rank_of(square)
        return row * self.columns + self._first_column + file_of(square)

    @property
    def cells_by_square(self) -> tuple[int, ...]:
        """The position under each square, a1 to h8 (for the scene)."""
        return tuple(self.position(sq) for sq in range(SQUARES_SIDE * SQUARES_SIDE))

    def square(self, position: int) -> int | None:
        """The crypt square on a board position (None: off the central 8x8, or a pad)."""
        if not 0 <= position < self.cells:
            return None
        row, col = divmod(position, self.columns)
        file = col - self._first_column
        rank = SQUARES_SIDE - 1 - (row - self._first_row)
        if 0 <= file < SQUARES_SIDE and 0 <= rank < SQUARES_SIDE:
            return rank * SQUARES_SIDE + file
        return None

    def expected(self, state: State) -> dict[int, int]:
        """Player -> board position of their meeple, for every meeple on the board."""
        return {p: self.position(sq) for p, sq in enumerate(state.meeples) if sq >= 0}

    def name(self, position: int) -> Msg:
        """A position as players call it: ``c3`` on the crypt board, ``A1`` (the maze
        cell's name) outside it, ``camp slot 2`` for a pad."""
        sq = self.square(position)
        if sq is not None:
            return word(square_name(sq))
        if 0 <= position < self.cells:
            row, col = divmod(position, self.columns)
            return msg("{cell} (off the crypt board)", cell=f"{chr(ord('A') + col)}{row + 1}")
        pad = position - self.cells
        if pad < self.camp_slots:
            return msg("camp slot {n}", n=pad + 1)
        return msg("sarcophagus slot {n}", n=pad - self.camp_slots + 1)


@dataclass(frozen=True)
class CryptJudgement:
    """What the board shows and what it means for the game."""

    #: A legal placement: apply it once the board has been quiet for the quiet period.
    command: Command | None = None
    #: True when the board is as the game expects, apart from the move in hand.
    matches: bool = True
    #: Board positions (as the LEDs use them).
    lifted: frozenset[int] = field(default_factory=frozenset)
    errors: frozenset[int] = field(default_factory=frozenset)
    hints: frozenset[int] = field(default_factory=frozenset)
    missing: frozenset[int] = field(default_factory=frozenset)
    unexpected: frozenset[int] = field(default_factory=frozenset)
    #: The square a magnet rests on where the player to move may place a cube: the
    #: cube goes there when the magnet is lifted (the service passes it back as
    #: ``touched``).
    touch: int | None = None
    #: What the players should do, in their words (None: nothing to say).
    message: Msg | None = None
    #: ``command`` replaces the last one: the hand carried the meeple on (the service
    #: judged the board as before that command).
    replaces: bool = False


def judge(
    state: State,
    occupied: frozenset[int],
    board: CryptBoard,
    *,
    touched: int | None = None,
    placements: bool = True,
) -> CryptJudgement:
    """Judge the board against the game (see the module docstring).

    ``touched``: the square last touched by a magnet in the placing phase (the cube
    goes there once the magnet is lifted).  With ``placements`` False (just after an
    undo, or while the computer opponent is to move) nothing on the board is taken as
    a command: the board must match the game as it is.
    """
    if state.is_over:
        return CryptJudgement()  # the figures may be packed away: nothing to put right
    expected = board.expected(state)
    should = frozenset(expected.values())
    gone = should - occupied
    extra = occupied - should
    if placements:
        if state.phase is Phase.PLACING_CUBES and not gone:
            judgement = _placing_cubes(state, extra, board, touched)
        elif state.phase is Phase.PLACING_MEEPLES and not gone:
            judgement = _placing_meeple(state, extra, board)
        elif state.phase is Phase.MOVING:
            judgement = _moving(state, gone, extra, board, expected[state.to_move])
        else:
            judgement = None
        if judgement is not None:
            return judgement
    if not gone and not extra:
        return CryptJudgement()
    return CryptJudgement(
        matches=False,
        missing=gone,
        unexpected=extra,
        message=restore_message(state, board, expected, gone, extra),
    )


def _colour(state: State, player: int) -> Msg:
    return word(state.colour(player).capitalize())


def _placing_cubes(
    state: State, extra: frozenset[int], board: CryptBoard, touched: int | None
) -> CryptJudgement | None:
    placer = _colour(state, state.to_move)
    owner = _colour(state, state.setup.owner_placed_by(state.to_move))
    placeable = placeable_mask(state)
    if not extra:
        if touched is not None and (placeable >> touched) & 1:
            return CryptJudgement(
                command=PlaceCube(touched),
                message=msg(
                    "{placer} puts one of {owner}'s cubes on {square}.",
                    placer=placer,
                    owner=owner,
                    square=square_name(touched),
                ),
            )
        return CryptJudgement(
            message=msg(
                "{placer} places one of {owner}'s cubes: tap a free space on the phone, "
                "or touch it with a magnet and lift the magnet again.",
                placer=placer,
                owner=owner,
            )
        )
    if len(extra) != 1:
        return None
    (position,) = extra
    sq = board.square(position)
    if sq is None:
        return None
    if (placeable >> sq) & 1:
        return CryptJudgement(
            touch=sq,
            message=msg(
                "Lift the magnet to put {owner}'s cube on {square}.",
                owner=owner,
                square=square_name(sq),
            ),
        )
    return CryptJudgement(
        matches=False,
        errors=frozenset({position}),
        message=msg("{reason} Lift the magnet.", reason=_reason(state, PlaceCube(sq))),
    )


def _placing_meeple(state: State, extra: frozenset[int], board: CryptBoard) -> CryptJudgement:
    player = _colour(state, state.to_move)
    corners = free_corners(state)
    hints = frozenset(board.position(c) for c in corners)
    names = ", ".join(square_name(c) for c in corners)
    if not extra:
        return CryptJudgement(
            hints=hints,
            message=msg(
                "{player}: put your meeple on a free corner ({corners}).",
                player=player,
                corners=names,
            ),
        )
    if len(extra) == 1:
        (position,) = extra
        sq = board.square(position)
        if sq is not None and sq in corners:
            return CryptJudgement(command=PlaceMeeple(sq))
        if sq is not None:
            reason = _reason(state, PlaceMeeple(sq))
        else:
            reason = msg("{place} is not on the crypt board.", place=board.name(position))
        return CryptJudgement(
            matches=False,
            errors=frozenset({position}),
            hints=hints,
            message=msg(
                "{reason} {player}'s meeple starts on a free corner ({corners}).",
                reason=reason,
                player=player,
                corners=names,
            ),
        )
    return CryptJudgement(
        matches=False,
        unexpected=extra,
        hints=hints,
        message=msg(
            "Only one meeple at a time: take the figures off "
            "{places}, then {player} puts one on a free corner ({corners}).",
            places=_names(board, extra),
            player=player,
            corners=names,
        ),
    )


def _moving(
    state: State, gone: frozenset[int], extra: frozenset[int], board: CryptBoard, home: int
) -> CryptJudgement | None:
    player = _colour(state, state.to_move)
    start = square_name(state.meeples[state.to_move])
    targets = destinations(state)
    hints = frozenset(board.position(sq) for sq in targets)
    chamber = can_enter_chamber(state)
    if not gone and not extra:
        if not targets and chamber:
            return CryptJudgement(
                message=msg(
                    "{player} cannot move: enter the chamber on the phone, or pass.", player=player
                )
            )
        if not targets:
            return CryptJudgement(
                message=msg("{player} cannot move: pass on the phone.", player=player)
            )
        if chamber:
            return CryptJudgement(
                message=msg(
                    "{player} to move: lift your meeple from {start}, "
                    "or enter the chamber on the phone.",
                    player=player,
                    start=start,
                )
            )
        return CryptJudgement(
            message=msg(
                "{player} to move: lift your meeple from {start}.", player=player, start=start
            )
        )
    if gone != {home}:
        return None
    lifted = frozenset({home})
    if not extra:
        if not targets:
            return CryptJudgement(
                lifted=lifted,
                message=msg(
                    "{player} cannot move: put the meeple back on {start} and pass.",
                    player=player,
                    start=start,
                ),
            )
        return CryptJudgement(
            lifted=lifted,
            hints=hints,
            message=msg(
                "Put {player} down in a straight line from {start}.", player=player, start=start
            ),
        )
    if len(extra) != 1:
        return None
    (position,) = extra
    sq = board.square(position)
    if sq is not None and sq in targets:
        return CryptJudgement(command=Move(sq), lifted=lifted)
    reason = (
        why_not_move(state, sq) if sq is not None else msg("a meeple stays on the crypt board.")
    )
    return CryptJudgement(
        matches=False,
        lifted=lifted,
        errors=frozenset({position}),
        hints=hints,
        message=msg(
            "{player} may not stop on {place}: {reason}",
            player=player,
            place=board.name(position),
            reason=reason,
        ),
    )


def _reason(state: State, command: Command) -> Msg:
    """The engine's player-facing reason why ``command`` is refused."""
    try:
        apply(state, command)
    except RuleError as exc:
        return exc.message
    return msg("That is not allowed now.")  # pragma: no cover - callers pass refused commands


def _names(board: CryptBoard, positions: frozenset[int]) -> Msg:
    return joined([board.name(p) for p in sorted(positions)])


def restore_message(
    state: State,
    board: CryptBoard,
    expected: dict[int, int],
    gone: frozenset[int],
    extra: frozenset[int],
) -> Msg:
    """What to do to make the board match the game, in player words.

    One meeple missing and one figure elsewhere is a meeple to carry over (the
    computer opponent's move, or a move taken back): "Move Blue's meeple from h8 to
    h3."  Otherwise each missing meeple and each stray figure is named.
    """
    owners = {position: player for player, position in expected.items()}
    if len(gone) == 1 and len(extra) == 1:
        (to,) = gone
        (at,) = extra
        return msg(
            "Move {player}'s meeple from {start} to {place}.",
            player=_colour(state, owners[to]),
            start=board.name(at),
            place=board.name(to),
        )
    parts = [
        msg(
            "put {player}'s meeple on {place}",
            player=_colour(state, owners[position]),
            place=board.name(position),
        )
        for position in sorted(gone)
    ]
    if len(extra) == 1:
        parts.append(msg("take the figure off {places}", places=_names(board, extra)))
    elif extra:
        parts.append(msg("take the figures off {places}", places=_names(board, extra)))
    text = parts[0]
    for part in parts[1:]:
        text = msg("{a}; {b}", a=text, b=part)
    return msg("Put the board right: {what}.", what=text)
