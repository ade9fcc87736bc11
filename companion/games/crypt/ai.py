"""Computer opponents for Into the Crypt: a fair heuristic player and a random player.

Fairness: everything in this game is open information (the cubes, the meeples and
the locks lie on the table for everyone to see, and there are no dice or cards), so
a player sees the whole state; the computer reads nothing else.  It never looks at
the future beyond what its own search imagines, and it takes commands only from
:func:`.moves.legal_moves`, like a page showing hints.

Both players are pure functions of the state and a seed: the seed and the state's
ply counter drive a SplitMix64 number that breaks ties, so the same game always
gets the same choices, and a service can resume a game after a restart without
keeping any player object.

The computer opponent (:func:`choose_command`) searches one move of its own and
judges each result by

* the score difference to the best opponent (a point outweighs everything else);
* its *tempo*: how many moves its meeple needs to reach its next target (an own
  cube, a lock once the lock rule allows it, an open crypt space once entering the
  chamber would win), found by a breadth-first search over rook moves, and how many
  targets it could reach next turn;
* each opponent's immediate threat: the targets that opponent could take on its
  very next turn (so it blocks lines and never hands over the chamber).

It enters the chamber only when that wins the game outright.  Placing, it puts each
of the opponent's cubes where the opponent will find it hard to reach (against the
edge, the crypt or other players' cubes, and out of line with the opponent's other
cubes), and it starts its meeple on the corner with the best tempo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .board import CRYPT_MASK, NEIGHBOURS, RAYS, bit, squares_of
from .commands import Command, EnterChamber, Move, PlaceCube, PlaceMeeple
from .engine import apply
from .moves import legal_moves, reach_mask
from .state import Phase, State

Player = Callable[[State], Command]

_MASK64 = (1 << 64) - 1
#: A breadth-first search stops looking after this many moves.
_HORIZON = 6
_UNREACHABLE = _HORIZON + 2

#: Evaluation weights (points dominate; see the module docstring).
_POINT = 1000.0
_TEMPO = 100.0
_CHOICE = 10.0
_THREAT = 60.0
_WIN = 1e8
_TIE = -500.0


def _random(seed: int, ply: int, salt: int = 0) -> int:
    """A 64-bit SplitMix64 number for (seed, ply): the same inputs, the same number."""
    z = (seed * 0x9E3779B97F4A7C15 + ply * 0xBF58476D1CE4E5B9 + salt + 1) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def random_command(state: State, *, seed: int = 0) -> Command:
    """A uniformly random legal command (the baseline the computer must beat)."""
    moves = legal_moves(state)
    if not moves:
        raise ValueError("the game is over: there is nothing to choose")
    return moves[_random(seed, state.ply) % len(moves)]


def choose_command(state: State, *, seed: int = 0) -> Command:
    """The computer opponent's command for the player to move (see the module docstring)."""
    moves = legal_moves(state)
    if not moves:
        raise ValueError("the game is over: there is nothing to choose")
    if len(moves) == 1:
        return moves[0]
    if state.phase is Phase.PLACING_CUBES:
        values = [_placing_value(state, c) for c in moves]
    elif state.phase is Phase.PLACING_MEEPLES:
        values = [_corner_value(state, c) for c in moves]
    else:
        values = [_moving_value(state, c) for c in moves]
    best = max(values)
    top = [c for c, v in zip(moves, values, strict=True) if v >= best - 1e-9]
    return top[_random(seed, state.ply, 1) % len(top)]


def computer_player(seed: int = 0) -> Player:
    """The computer opponent as a function of the state only."""
    return lambda state: choose_command(state, seed=seed)


def random_player(seed: int = 0) -> Player:
    """The random player as a function of the state only."""
    return lambda state: random_command(state, seed=seed)


def play(state: State, players: Sequence[Player], *, max_commands: int = 10_000) -> State:
    """Play on until the game ends; ``players[p]`` chooses for player ``p``.

    The engine's no-progress rule ends every game; ``max_commands`` is only a guard.
    """
    for _ in range(max_commands):
        if state.is_over:
            return state
        state, _events = apply(state, players[state.to_move](state))
    return state


# -- placing -----------------------------------------------------------------------


def _placing_value(state: State, command: Command) -> float:
    """How hard a cube on this square will be for its owner to collect."""
    assert isinstance(command, PlaceCube)
    sq = command.square
    owner = state.setup.owner_placed_by(state.to_move)
    others = state.all_cubes_mask & ~state.cubes[owner]
    rays = RAYS[sq]
    value = 0.0
    # Sides the owner cannot come from: the edge, the locked crypt, other cubes.
    value += 4 - len(NEIGHBOURS[sq])
    for n in NEIGHBOURS[sq]:
        b = bit(n)
        if b & CRYPT_MASK:
            value += 1.0
        elif b & others:
            value += 0.5
    # Cubes of the owner in a clear line can be collected one after the other.
    own = state.cubes[owner]
    for ray in rays:
        for n in ray:
            b = bit(n)
            if b & own:
                value -= 0.75
                break
            if b & (others | CRYPT_MASK):
                break
    return value


def _corner_value(state: State, command: Command) -> float:
    assert isinstance(command, PlaceMeeple)
    p = state.to_move
    own = state.cubes[p]
    blocked = (state.all_cubes_mask & ~own) | state.meeples_mask
    dist, choice = _tempo(command.corner, own, blocked, state.locks, False, 0)
    return -_TEMPO * dist + _CHOICE * choice


# -- moving ------------------------------------------------------------------------


def _moving_value(state: State, command: Command) -> float:
    """The value for the player to move of the position after ``command``."""
    p = state.to_move
    scores = list(state.scores)
    if isinstance(command, EnterChamber):
        scores[p] += 2
        return _final_value(scores, p)
    if not isinstance(command, Move):  # Pass: nothing changes
        return _position_value(state, p, state.meeples[p], state.cubes[p], state.locks, scores)
    to = command.to
    b = bit(to)
    own = state.cubes[p]
    locks = state.locks
    if own & b:
        own &= ~b
        scores[p] += 1
    elif locks & b:
        locks &= ~b
        scores[p] += 1
    return _position_value(state, p, to, own, locks, scores)


def _final_value(scores: list[int], p: int) -> float:
    best_other = max(s for q, s in enumerate(scores) if q != p)
    if scores[p] > best_other:
        return _WIN
    if scores[p] == best_other:
        return _TIE
    return -_WIN


def _position_value(
    state: State, p: int, at: int, own: int, locks: int, scores: list[int]
) -> float:
    """Score difference, own tempo and the opponents' immediate threats."""
    others_cubes = 0
    for q, mask in enumerate(state.cubes):
        if q != p:
            others_cubes |= mask
    meeples = [(at if q == p else sq) for q, sq in enumerate(state.meeples)]
    meeples_mask = 0
    for sq in meeples:
        meeples_mask |= 1 << sq
    locks_left = locks.bit_count()
    best_other = max(s for q, s in enumerate(scores) if q != p)
    value = _POINT * (scores[p] - best_other)

    # Own tempo towards the next point.
    chamber_wins = locks == 0 and scores[p] + 2 > best_other
    if chamber_wins and (CRYPT_MASK >> at) & 1:
        dist, choice = 0, 1
    else:
        may_open = locks != 0 and own.bit_count() <= locks_left
        crypt_goal = CRYPT_MASK if chamber_wins else 0
        blocked = others_cubes | (meeples_mask & ~(1 << at))
        dist, choice = _tempo(at, own, blocked, locks, may_open, crypt_goal)
    value += -_TEMPO * dist + _CHOICE * choice

    # What each opponent could take on its very next move.
    for q, sq in enumerate(meeples):
        if q == p:
            continue
        q_own = state.cubes[q]
        if locks == 0 and (CRYPT_MASK >> sq) & 1:
            value -= 2 * _POINT  # it may enter the chamber next turn
            continue
        q_blocked = (others_cubes & ~q_own) | own | (meeples_mask & ~(1 << sq))
        q_may_open = locks != 0 and q_own.bit_count() <= locks_left
        reach = reach_mask(sq, q_own, q_blocked, locks, q_may_open)
        hits = reach & (q_own | (locks if q_may_open else 0))
        if hits:
            value -= _THREAT + 0.1 * _THREAT * (hits.bit_count() - 1)
    return value


def _tempo(
    start: int, own: int, blocked: int, locks: int, may_open: bool, crypt_goal: int
) -> tuple[int, int]:
    """(moves to the nearest target, targets reachable in that many moves).

    Targets are own cubes, locks when ``may_open``, and the empty crypt squares in
    ``crypt_goal``.  Other meeples are treated as if they stood still.
    """
    targets = own | (locks if may_open else 0) | (crypt_goal & ~locks)
    if not targets:
        return _UNREACHABLE, 0
    visited = 1 << start
    frontier: tuple[int, ...] = (start,)
    for dist in range(1, _HORIZON + 1):
        reached = 0
        for sq in frontier:
            reached |= reach_mask(sq, own, blocked, locks, may_open)
        reached &= ~visited
        hits = reached & targets
        if hits:
            return dist, hits.bit_count()
        if not reached:
            break
        visited |= reached
        frontier = squares_of(reached)
    return _UNREACHABLE, 0
