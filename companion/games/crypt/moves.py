"""Legal moves: where a meeple may go, where cubes and meeples may be placed.

Pure queries on a state.  Pages use :func:`legal_moves` for hints, the engine uses
the same functions to judge commands, and the computer opponent uses
:func:`reach_mask` directly on masks to look ahead without building states.
"""

from __future__ import annotations

from .board import CORNER_SQUARES, CRYPT_MASK, PLACEABLE_MASK, RAYS, squares_of
from .commands import Command, EnterChamber, Move, Pass, PlaceCube, PlaceMeeple
from .state import Phase, State


def reach_mask(start: int, own: int, blocked: int, locks: int, may_open: bool) -> int:
    """The squares a meeple on ``start`` may end a move on, as a mask.

    ``own``: the mover's cubes (the meeple must stop on the first one it reaches);
    ``blocked``: other players' cubes and meeples (never entered, never passed);
    ``locks``: crypt squares with a lock (never passed; a destination, where the lock
    is removed, only when ``may_open``, the lock rule).  A meeple starting in the
    crypt may not end on another crypt space but may cross an empty one on its way out.
    """
    from_crypt = (CRYPT_MASK >> start) & 1
    result = 0
    for ray in RAYS[start]:
        for sq in ray:
            b = 1 << sq
            if b & blocked:
                break
            if b & locks:
                if may_open and not from_crypt:
                    result |= b
                break
            if b & own:
                result |= b
                break
            if not (from_crypt and b & CRYPT_MASK):
                result |= b
    return result


def move_mask(state: State, player: int | None = None) -> int:
    """The squares ``player``'s meeple (default: the player to move) may move to."""
    p = state.to_move if player is None else player
    start = state.meeples[p]
    if state.phase is not Phase.MOVING or start < 0:
        return 0
    own = state.cubes[p]
    blocked = (state.all_cubes_mask & ~own) | (state.meeples_mask & ~(1 << start))
    return reach_mask(start, own, blocked, state.locks, state.may_open_lock(p))


def destinations(state: State, player: int | None = None) -> list[int]:
    """The squares ``player``'s meeple may move to, in square order."""
    return list(squares_of(move_mask(state, player)))


def can_enter_chamber(state: State) -> bool:
    """All locks are gone and the player to move begins the turn on a crypt space."""
    return state.phase is Phase.MOVING and state.locks == 0 and state.in_crypt(state.to_move)


def placeable_mask(state: State) -> int:
    """Empty squares a cube may go on: not green corner tiles, not the crypt."""
    if state.phase is not Phase.PLACING_CUBES:
        return 0
    return PLACEABLE_MASK & ~state.all_cubes_mask


def free_corners(state: State) -> list[int]:
    """Corner spaces without a meeple, in the order a1, a8, h1, h8."""
    if state.phase is not Phase.PLACING_MEEPLES:
        return []
    taken = set(state.meeples)
    return [c for c in CORNER_SQUARES if c not in taken]


def legal_moves(state: State) -> list[Command]:
    """Every command the player to move may give now (empty when the game is over).

    In the moving phase: each move, then entering the chamber if allowed, then
    passing, which is allowed only when no move exists (entering the chamber is a
    choice, never forced, so a player who may enter but cannot move may also pass).
    """
    phase = state.phase
    if phase is Phase.PLACING_CUBES:
        return [PlaceCube(sq) for sq in squares_of(placeable_mask(state))]
    if phase is Phase.PLACING_MEEPLES:
        return [PlaceMeeple(c) for c in free_corners(state)]
    if phase is Phase.MOVING:
        moves: list[Command] = [Move(sq) for sq in destinations(state)]
        has_move = bool(moves)
        if can_enter_chamber(state):
            moves.append(EnterChamber())
        if not has_move:
            moves.append(Pass())
        return moves
    return []
