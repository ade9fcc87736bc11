"""The rules of Into the Crypt: ``new_game`` and ``apply`` (RULES.md, section 3).

``apply(state, command)`` validates a command and returns the next state and the
events it caused, or raises :class:`RuleError` (a ``ValueError``) whose message a
player understands; the state passed in is never changed.  The rules have no chance
in them, so a game is fully rebuilt by replaying its commands (:func:`replay`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from companion.games.phrases import not_now
from companion.games.tuples import replace_at
from companion.i18n import N_, MessageError, Msg, counted, msg, word

from .board import (
    CORNER_SQUARES,
    CRYPT_MASK,
    CRYPT_SQUARES,
    bit,
    is_corner,
    is_crypt,
    is_green,
    is_square,
    line_between,
    square_name,
)
from .commands import Command, EnterChamber, Move, Pass, PlaceCube, PlaceMeeple
from .events import (
    ChamberEntered,
    CubeCollected,
    CubePlaced,
    Event,
    GameOver,
    LockRemoved,
    MeepleMoved,
    MeeplePlaced,
    Passed,
    TurnStarted,
)
from .moves import can_enter_chamber, destinations, move_mask
from .state import (
    CUBES_PER_PLAYER,
    DEFAULT_COLOURS,
    OFF_BOARD,
    EndReason,
    Options,
    Phase,
    Setup,
    State,
)

Events = list[Event]


class RuleError(MessageError):
    """A command the rules do not allow; the message says why in player words."""


def make_setup(
    players: int = 2,
    first_player: int = 0,
    *,
    seed: int = 0,
    options: Options | None = None,
    colours: tuple[str, ...] | None = None,
) -> Setup:
    """A checked setup: 2 players (10 cubes each) or the 4-player variant (6 each)."""
    if players not in CUBES_PER_PLAYER:
        raise RuleError("Into the Crypt is played by 2 players, or 4 in the variant.")
    if not 0 <= first_player < players:
        raise RuleError("The first player must be one of players 0 to {last}.", last=players - 1)
    opts = options or Options()
    cubes = CUBES_PER_PLAYER[players] if opts.cubes_per_player is None else opts.cubes_per_player
    if not 1 <= cubes * players <= 44:
        raise RuleError("Each player needs at least one cube, and all cubes must fit: 44 spaces.")
    if opts.quiet_rounds < 1:
        raise RuleError("The no-progress limit must be at least one round.")
    names = DEFAULT_COLOURS[:players] if colours is None else tuple(colours)
    if len(names) != players or len(set(names)) != players:
        raise RuleError("Every player needs a colour of their own.")
    return Setup(
        players=players,
        first_player=first_player,
        cubes_per_player=cubes,
        quiet_rounds=opts.quiet_rounds,
        colours=names,
        seed=seed,
    )


def new_game(
    players: int = 2,
    first_player: int = 0,
    *,
    seed: int = 0,
    options: Options | None = None,
    colours: tuple[str, ...] | None = None,
) -> tuple[State, Events]:
    """Set up the board (four locks in the crypt) and start the placing phase."""
    setup = make_setup(players, first_player, seed=seed, options=options, colours=colours)
    return start_game(setup)


def start_game(setup: Setup) -> tuple[State, Events]:
    """The first state of a game with this setup: the first player places a cube."""
    n = setup.players
    state = State(
        setup=setup,
        phase=Phase.PLACING_CUBES,
        to_move=setup.first_player,
        cubes=(0,) * n,
        in_hand=(setup.cubes_per_player,) * n,
        meeples=(OFF_BOARD,) * n,
        locks=CRYPT_MASK,
        collected=(0,) * n,
        locks_taken=(0,) * n,
    )
    return state, [TurnStarted(setup.first_player, Phase.PLACING_CUBES)]


def apply(state: State, command: Command) -> tuple[State, Events]:
    """Apply one command; raise RuleError and change nothing if the rules forbid it."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleError("Unknown command {command}.", command=repr(command))
    if state.phase is Phase.GAME_OVER:
        raise RuleError("The game is over.")
    events: Events = []
    new = handler(state, command, events)
    return new.evolve(ply=state.ply + 1), events


def replay(setup: Setup, commands: Iterable[Command]) -> tuple[State, Events]:
    """Rebuild a game from its setup and accepted commands (RuleError if one is bad)."""
    state, events = start_game(setup)
    for command in commands:
        state, more = apply(state, command)
        events.extend(more)
    return state, events


# -- phase 1: placing --------------------------------------------------------------


def _place_cube(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, PlaceCube)
    if state.phase is not Phase.PLACING_CUBES:
        raise _refused(state, N_("place a cube"))
    sq = command.square
    if not is_square(sq):
        raise RuleError("There is no space {sq}: the board runs from a1 to h8.", sq=sq)
    name = square_name(sq)
    if is_green(sq):
        raise RuleError(
            "{name} lies on a green corner tile: no cube may be placed there.", name=name
        )
    if is_crypt(sq):
        raise RuleError("{name} is a crypt space: no cube may be placed in the crypt.", name=name)
    if state.all_cubes_mask & bit(sq):
        raise RuleError("{name} already holds a cube: one cube per space.", name=name)
    placer = state.to_move
    owner = state.setup.owner_placed_by(placer)
    left = state.in_hand[owner] - 1
    events.append(CubePlaced(placer, owner, sq, left))
    state = state.evolve(
        cubes=replace_at(state.cubes, owner, state.cubes[owner] | bit(sq)),
        in_hand=replace_at(state.in_hand, owner, left),
    )
    if not any(state.in_hand):
        return _begin_turn(state, state.setup.next_player(placer), Phase.PLACING_MEEPLES, events)
    return _begin_turn(state, state.setup.next_player(placer), Phase.PLACING_CUBES, events)


def _place_meeple(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, PlaceMeeple)
    if state.phase is not Phase.PLACING_MEEPLES:
        raise _refused(state, N_("place your meeple"))
    sq = command.corner
    corners = ", ".join(square_name(c) for c in CORNER_SQUARES)
    if not is_square(sq) or not is_corner(sq):
        where = square_name(sq) if is_square(sq) else str(sq)
        raise RuleError(
            "A meeple starts on a corner space ({corners}), not on {where}.",
            corners=corners,
            where=where,
        )
    other = state.meeple_at(sq)
    if other is not None:
        raise RuleError(
            "{colour}'s meeple already stands on {square}: choose a free corner.",
            colour=colour_name(state.colour(other)),
            square=square_name(sq),
        )
    player = state.to_move
    events.append(MeeplePlaced(player, sq))
    state = state.evolve(meeples=replace_at(state.meeples, player, sq))
    nxt = state.setup.next_player(player)
    if all(m != OFF_BOARD for m in state.meeples):
        return _begin_turn(state, nxt, Phase.MOVING, events)
    return _begin_turn(state, nxt, Phase.PLACING_MEEPLES, events)


# -- phase 2: moving ---------------------------------------------------------------


def _move(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, Move)
    if state.phase is not Phase.MOVING:
        raise _refused(state, N_("move your meeple"))
    player = state.to_move
    to = command.to
    if not is_square(to) or not (move_mask(state) >> to) & 1:
        raise RuleError(why_not_move(state, to))
    start = state.meeples[player]
    events.append(MeepleMoved(player, start, to))
    state = state.evolve(meeples=replace_at(state.meeples, player, to), passes_in_row=0)
    progress = False
    b = bit(to)
    if state.cubes[player] & b:
        own = state.cubes[player] & ~b
        collected = state.collected[player] + 1
        state = state.evolve(
            cubes=replace_at(state.cubes, player, own),
            collected=replace_at(state.collected, player, collected),
        )
        events.append(CubeCollected(player, to, own.bit_count()))
        progress = True
    elif state.locks & b:
        locks = state.locks & ~b
        state = state.evolve(
            locks=locks,
            locks_taken=replace_at(state.locks_taken, player, state.locks_taken[player] + 1),
        )
        events.append(LockRemoved(player, to, locks.bit_count()))
        progress = True
    return _end_moving_turn(state, progress, events)


def _enter_chamber(state: State, command: Command, events: Events) -> State:
    if state.phase is not Phase.MOVING:
        raise _refused(state, N_("enter the chamber"))
    if not can_enter_chamber(state):
        if state.locks:
            left = state.locks_left
            raise RuleError(
                counted(
                    left,
                    "The chamber opens only when all four locks are gone: {n} lock is left.",
                    "The chamber opens only when all four locks are gone: {n} locks are left.",
                )
            )
        crypt = ", ".join(square_name(s) for s in CRYPT_SQUARES)
        raise RuleError(
            "Enter the chamber from the crypt: begin your turn on {crypt}, then enter.", crypt=crypt
        )
    player = state.to_move
    events.append(ChamberEntered(player))
    state = state.evolve(chamber=player, passes_in_row=0)
    return _game_over(state, EndReason.CHAMBER, events)


def _pass(state: State, command: Command, events: Events) -> State:
    if state.phase is not Phase.MOVING:
        raise _refused(state, N_("pass"))
    moves = destinations(state)
    if moves:
        raise RuleError(
            "You can still move (for example to {square}): pass only when no move is possible.",
            square=square_name(moves[0]),
        )
    player = state.to_move
    events.append(Passed(player))
    state = state.evolve(passes_in_row=state.passes_in_row + 1)
    if state.passes_in_row >= state.players:
        return _game_over(state, EndReason.ALL_PASSED, events)
    return _end_moving_turn(state, False, events)


def why_not_move(state: State, to: int) -> Msg:
    """A player-facing reason why the player to move may not move to ``to``."""
    if not is_square(to):
        return msg("There is no space {sq}: the board runs from a1 to h8.", sq=to)
    player = state.to_move
    start = state.meeples[player]
    name = square_name(to)
    if to == start:
        return msg("A move must cover at least one space.")
    path = line_between(start, to)
    if path is None:
        return msg(
            "A meeple moves in a straight line like a rook: {square} is not on the same "
            "row or column as {start}.",
            square=name,
            start=square_name(start),
        )
    if is_crypt(start) and is_crypt(to):
        return msg(
            "Your meeple is in the crypt: it may not move to another crypt space and "
            "must leave the crypt this turn."
        )
    for sq in path:
        here = square_name(sq)
        is_end = sq == to
        other = state.meeple_at(sq)
        if other is not None:
            colour = colour_name(state.colour(other))
            if is_end:
                return msg(
                    "{colour}'s meeple stands on {square}: you may not move there.",
                    colour=colour,
                    square=here,
                )
            return msg(
                "{colour}'s meeple stands on {square}: it cannot be passed.",
                colour=colour,
                square=here,
            )
        owner = state.cube_owner_at(sq)
        if owner is not None and owner != player:
            return msg(
                "{colour}'s cube lies on {square}: a meeple may "
                "not enter or pass a space with an opponent's cube.",
                colour=colour_name(state.colour(owner)),
                square=here,
            )
        if owner == player and not is_end:
            return msg(
                "Your cube on {square} is in the way: a meeple must stop on its own cube "
                "and collect it.",
                square=here,
            )
        if state.has_lock(sq):
            if not is_end:
                return msg(
                    "The lock on {square} is in the way: a locked crypt space cannot be crossed.",
                    square=here,
                )
            return counted(
                state.locks_left,
                "You may open a lock only with at most {n} of your cubes on the board "
                "({n} lock left); you still have {mine}.",
                "You may open a lock only with at most {n} of your cubes on the board "
                "({n} locks left); you still have {mine}.",
                mine=state.cubes_on_board(player),
            )
    return msg("Your meeple cannot move to {square}.", square=name)


def colour_name(colour: str) -> Msg:
    """A player's colour as a name ("Red"), in the reader's language."""
    return word(colour.capitalize())


# -- turn flow ---------------------------------------------------------------------


def _end_moving_turn(state: State, progress: bool, events: Events) -> State:
    quiet = 0 if progress else state.quiet_turns + 1
    state = state.evolve(quiet_turns=quiet)
    if quiet >= state.setup.quiet_turn_limit:
        return _game_over(state, EndReason.NO_PROGRESS, events)
    return _begin_turn(state, state.setup.next_player(state.to_move), Phase.MOVING, events)


def _begin_turn(state: State, player: int, phase: Phase, events: Events) -> State:
    events.append(TurnStarted(player, phase))
    return state.evolve(to_move=player, phase=phase)


def _game_over(state: State, reason: EndReason, events: Events) -> State:
    state = state.evolve(phase=Phase.GAME_OVER, end_reason=reason)
    events.append(GameOver(reason, state.scores, state.leaders))
    return state


_PHASE_WORDS = {
    Phase.PLACING_CUBES: N_("it is time to place your opponent's cubes"),
    Phase.PLACING_MEEPLES: N_("it is time to put the meeples on the corners"),
    Phase.MOVING: N_("the meeples are moving"),
    Phase.GAME_OVER: N_("the game is over"),
}


def _not_now(state: State, action: str) -> Msg:
    return not_now(action, _PHASE_WORDS[state.phase])


def _refused(state: State, action: str) -> RuleError:
    """ "You cannot roll now: ..." (``action`` a catalog word, marked where it is used)."""
    return RuleError(_not_now(state, action))


_HANDLERS: dict[type[Command], Callable[[State, Command, Events], State]] = {
    PlaceCube: _place_cube,
    PlaceMeeple: _place_meeple,
    Move: _move,
    EnterChamber: _enter_chamber,
    Pass: _pass,
}
