"""The rules of the mummy maze: ``new_game`` and ``apply``.

``apply(state, command)`` validates a command and returns the next state and the
events it caused, or raises :class:`RuleError` (a ``ValueError``) whose message a
player understands; the state passed in is never changed.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.games.phrases import not_now
from companion.games.tuples import replace_at
from companion.i18n import N_, MessageError, Msg, counted, joined

from .commands import (
    Announce,
    Command,
    EndMummyMove,
    EndTurn,
    Move,
    MummyStep,
    PlayCard,
    Redeal,
    Resolve,
    Reveal,
    Roll,
    RollMummyDie,
)
from .dice import (
    SEEKER_DICE,
    SEEKER_DIE_FACES,
    Face,
    deal_seed,
    random_below,
    roll_seeker_dice,
    seed_state,
    shuffled,
)
from .events import (
    Announced,
    CardPlayed,
    CardsDealtAgain,
    CardsRevealed,
    DiceRolled,
    Event,
    FigureMoved,
    GameWon,
    MummyDieRolled,
    MummyMoved,
    MummyMoveEnded,
    MummyMoveStarted,
    MummyTurnStarted,
    Resolved,
    SeekerCaught,
    SeekerOut,
    SeekerSkipped,
    TurnLost,
    TurnStarted,
)
from .maze import TREASURE_COUNTS, Maze, Treasure
from .moves import can_move_at_all, destinations_mask, movable_faces, mummy_steps, why_not
from .state import (
    ANKHS_PER_FIGURE,
    FigureColour,
    MummyMoveKind,
    Options,
    Phase,
    Setup,
    Situation,
    State,
    Winner,
)
from .words import colour_word, die_word, face_word, place_word, treasure_word


class RuleError(MessageError):
    """A command the rules do not allow; the message says why in player words (a
    ``Msg`` the shell renders in the reader's language)."""


Events = list[Event]


def make_setup(
    maze: Maze,
    colours: tuple[FigureColour | str, ...] = (FigureColour.RED, FigureColour.BLUE),
    *,
    seed: int = 0,
    options: Options | None = None,
) -> Setup:
    """A setup for 1 to 4 seekers given by figure colour in turn order.

    With one seeker (the two-player game) that seeker also plays the next free colour.
    """
    figures = tuple(FigureColour(c) if isinstance(c, str) else c for c in colours)
    if not 1 <= len(figures) <= 4:
        raise RuleError("The game needs 1 to 4 seekers.")
    if len(set(figures)) != len(figures):
        raise RuleError("Every seeker needs a figure of their own colour.")
    if len(figures) == 1:
        spare = next(c for c in FigureColour if c not in figures)
        seekers: tuple[tuple[FigureColour, ...], ...] = ((figures[0], spare),)
    else:
        seekers = tuple((c,) for c in figures)
    return Setup(maze=maze, seekers=seekers, seed=seed, options=options or Options())


def new_game(setup: Setup) -> tuple[State, Events]:
    """Deal the mission cards, put the figures on the start field and start turn one."""
    if not 1 <= len(setup.seekers) <= 4:
        raise RuleError("The game needs 1 to 4 seekers.")
    counts = [len(figs) for figs in setup.seekers]
    if (len(counts) == 1 and counts != [2]) or (len(counts) > 1 and set(counts) != {1}):
        raise RuleError("One seeker plays two figures; two or more seekers play one each.")
    if not setup.options.mummy_die_faces or min(setup.options.mummy_die_faces) < 0:
        raise RuleError("The mummy die needs at least one face, none negative.")
    maze = setup.maze
    rng = seed_state(setup.seed)
    # The cards from their own stream (new games) or off the dice's (version 1 records).
    deal = seed_state(deal_seed(setup.seed)) if setup.own_deal_stream else rng
    per_colour = setup.cards_per_colour
    hands: list[list[Treasure]] = [[] for _ in setup.seekers]
    for colour in TREASURE_COUNTS:
        stack = tuple(t for t in maze.treasures if t.colour is colour)
        if len(stack) < per_colour * len(setup.seekers):
            raise RuleError(
                "The maze has too few treasures of the colour {colour} for this game.",
                colour=colour_word(colour),
            )
        if setup.hands is None:
            deck, deal = shuffled(deal, stack)
            for i, hand in enumerate(hands):
                hand.extend(deck[i * per_colour : (i + 1) * per_colour])
    if not setup.own_deal_stream:
        rng = deal  # the dice went on where the shuffles left the one stream
        deal = seed_state(deal_seed(setup.seed))  # a redeal draws on a stream of its own
    if setup.hands is not None:
        hands = [list(hand) for hand in _dealt_hands(setup)]
    figures = setup.figures
    state = State(
        setup=setup,
        rng=rng,
        phase=Phase.SEEKER_TURN,
        figure=0,
        positions=tuple(maze.start_node for _ in figures),
        mummy=maze.sarcophagus_node,
        ankhs=tuple(ANKHS_PER_FIGURE * len(figs) for figs in setup.seekers),
        mummy_ankhs=0,
        hands=tuple(tuple(h) for h in hands),
        played=tuple(() for _ in setup.seekers),
        deal=deal,
    )
    events: Events = []
    state = _begin_seeker_turn(state, 0, events)
    return state, events


def _dealt_hands(setup: Setup) -> tuple[tuple[Treasure, ...], ...]:
    """The hands dealt by hand (physical cards), checked like a dealer would check them."""
    hands = setup.hands or ()
    if len(hands) != len(setup.seekers):
        raise RuleError(
            "Enter the cards of every seeker: {count} hands are needed.", count=len(setup.seekers)
        )
    per_colour = setup.cards_per_colour
    on_maze = set(setup.maze.treasures)
    seen: set[Treasure] = set()
    for figures, hand in zip(setup.seekers, hands, strict=True):
        who = colour_word(figures[0])
        for treasure in hand:
            if treasure not in on_maze:
                raise RuleError(
                    "{who} holds a card for the {title}: no such treasure here.",
                    who=who,
                    title=treasure_word(treasure),
                )
            if treasure in seen:
                raise RuleError(
                    "The card of the {title} cannot be in two hands.", title=treasure_word(treasure)
                )
            seen.add(treasure)
        for colour in TREASURE_COUNTS:
            count = sum(1 for t in hand if t.colour is colour)
            if count != per_colour:
                raise RuleError(
                    "{who} needs {want} of each colour: {count} of {colour} entered.",
                    who=who,
                    want=counted(per_colour, "one card", "{n} cards"),
                    count=count,
                    colour=colour_word(colour),
                )
    return hands


def apply(state: State, command: Command) -> tuple[State, Events]:
    """Apply one command; raise RuleError and change nothing if the rules forbid it."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleError("Unknown command {command}.", command=repr(command))
    if state.phase is Phase.GAME_OVER:
        raise RuleError("The game is over.")
    events: Events = []
    return handler(state, command, events), events


# -- seeker commands -------------------------------------------------------------


def _resolve(state: State, command: Command, events: Events) -> State:
    if state.phase is not Phase.SEEKER_TURN:
        raise _refused(state, N_("resolve"))
    if not state.may_resolve:
        raise RuleError("Resolve only at the start of the turn, before rolling.")
    if state.dice_out == 0:
        raise RuleError("No dice lie mummy-up: there is nothing to resolve.")
    events.append(Resolved(state.figure, state.dice_out, forced=False))
    return _start_mummy_move(state, MummyMoveKind.RESOLVE, state.dice_out, events)


def _roll(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, Roll)
    if state.phase not in (Phase.SEEKER_TURN, Phase.SEEKER_ROLLED):
        raise _refused(state, N_("roll"))
    count = SEEKER_DICE - state.dice_out
    rng = state.rng
    if command.faces is None:
        faces, rng = roll_seeker_dice(rng, count)
    else:
        faces = tuple(command.faces)
        if len(faces) != count:
            if state.dice_out:
                raise RuleError(
                    "Roll {count} dice: {out} lie out mummy-up; {entered} faces were entered.",
                    count=count,
                    out=state.dice_out,
                    entered=len(faces),
                )
            raise RuleError(
                "Roll {count} dice; {entered} faces were entered.", count=count, entered=len(faces)
            )
        if any(f not in SEEKER_DIE_FACES for f in faces):
            raise RuleError("A white die shows 1, 2, 3, 4, an arrow or the mummy.")
    mummies = sum(1 for f in faces if f is Face.MUMMY)
    dice_out = state.dice_out + mummies
    events.append(DiceRolled(state.figure, faces, dice_out))
    rolled = tuple(f for f in faces if f is not Face.MUMMY)
    state = state.evolve(
        rng=rng,
        dice_out=dice_out,
        roll=rolled,
        may_resolve=False,
        phase=Phase.SEEKER_ROLLED,
    )
    if dice_out == SEEKER_DICE:
        events.append(TurnLost(state.figure))
        state = state.evolve(forced_resolve=True, roll=())
        return _end_seeker_turn(state, events)
    return state


def _announce(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, Announce)
    if state.phase is not Phase.SEEKER_ROLLED:
        raise _refused(state, N_("announce a die"))
    face = command.face
    if face not in state.roll:
        shown = joined(
            [face_word(f) for f in state.roll],
        )
        raise RuleError(
            "No die of this roll shows {face}: choose one of {shown}.",
            face=face_word(face),
            shown=shown,
        )
    targets = destinations_mask(state, state.figure, face)
    if not targets:
        if movable_faces(state, state.figure):
            raise RuleError(
                "{face} cannot be moved from here: try another die or roll again.",
                face=die_word(face),
            )
        raise RuleError(
            "{face} cannot be moved from here, nor any other die: roll again.",
            face=die_word(face),
        )
    events.append(Announced(state.figure, face))
    return state.evolve(announced=face, targets=targets, phase=Phase.SEEKER_MOVING)


def _move(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, Move)
    if state.phase is not Phase.SEEKER_MOVING or state.announced is None:
        raise _refused(state, N_("move the figure"))
    figure = state.figure
    to = command.to
    if (
        not (0 <= to < state.maze.cell_count)
        or not (destinations_mask(state, figure, state.announced) >> to) & 1
    ):
        raise RuleError(why_not(state, figure, state.announced, to))
    events.append(FigureMoved(figure, state.positions[figure], to))
    positions = replace_at(state.positions, figure, to)
    # Always wait for "play a card" or "end turn", card or not: ending the turn at once
    # would tell the mummy that the figure is not on a treasure of its cards.
    return state.evolve(
        positions=positions, announced=None, targets=0, roll=(), phase=Phase.SEEKER_CARD
    )


def _play_card(state: State, command: Command, events: Events) -> State:
    if state.phase is not Phase.SEEKER_CARD:
        raise _refused(state, N_("play a card"))
    seeker = state.seeker
    treasure = playable_card(state)
    if treasure is None:
        here = state.maze.cell_name(state.positions[state.figure])
        raise RuleError("You hold no card for the treasure on {here}: end the turn.", here=here)
    hand = tuple(t for t in state.hands[seeker] if t != treasure)
    played = (*state.played[seeker], treasure)
    events.append(CardPlayed(state.figure, seeker, treasure, len(hand)))
    state = state.evolve(
        hands=replace_at(state.hands, seeker, hand), played=replace_at(state.played, seeker, played)
    )
    if not hand:
        return _win(state, Winner(seeker, "played their last card"), events)
    return _end_seeker_turn(state, events)


def playable_card(state: Situation) -> Treasure | None:
    """The card the figure whose turn it is may play now, if any."""
    if state.phase is not Phase.SEEKER_CARD:
        return None
    treasure = state.maze.treasure_at(state.positions[state.figure])
    if treasure is not None and treasure in state.hands[state.seeker]:
        return treasure
    return None


def _end_turn(state: State, command: Command, events: Events) -> State:
    if state.phase is not Phase.SEEKER_CARD:
        raise _refused(state, N_("end the turn"))
    return _end_seeker_turn(state, events)


# -- mummy commands --------------------------------------------------------------


def _roll_mummy_die(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, RollMummyDie)
    if state.phase is not Phase.MUMMY_ROLL:
        raise _refused(state, N_("roll the mummy die"))
    faces = state.setup.options.mummy_die_faces
    rng = state.rng
    if command.value is None:
        index, rng = random_below(rng, len(faces))
        value = faces[index]
    else:
        value = command.value
        if value not in faces:
            shown = ", ".join(str(f) for f in sorted(set(faces)))
            raise RuleError(
                "The mummy die shows {shown}; {value} is not on it.", shown=shown, value=value
            )
    steps = value + state.dice_out
    events.append(MummyDieRolled(value, steps))
    state = state.evolve(rng=rng)
    return _start_mummy_move(state, MummyMoveKind.NORMAL, steps, events)


def _mummy_step(state: State, command: Command, events: Events) -> State:
    assert isinstance(command, MummyStep)
    if state.phase is not Phase.MUMMY_MOVING:
        raise _refused(state, N_("move the mummy"))
    maze = state.maze
    to = command.to
    if to not in mummy_steps(state):
        if to in (maze.start_node, maze.sarcophagus_node):
            raise RuleError("The mummy may never enter {cell}.", cell=place_word(maze, to))
        here = place_word(maze, state.mummy)
        there = maze.cell_name(to) if 0 <= to < maze.cell_count else str(to)
        raise RuleError(
            "The mummy moves one step at a time to a neighbouring open cell: {there} is not next "
            "to {here} (or a wall is in the way).",
            there=there,
            here=here,
        )
    steps_left = state.steps_left - 1
    events.append(MummyMoved(state.mummy, to, steps_left))
    state = state.evolve(mummy=to, steps_left=steps_left)
    caught = state.figure_at(to)
    if caught is not None:
        state = _catch(state, caught, events)
        if state.phase is Phase.GAME_OVER:
            return state
        return _finish_mummy_move(state, events)
    if steps_left == 0:
        return _finish_mummy_move(state, events)
    return state


def _end_mummy_move(state: State, command: Command, events: Events) -> State:
    if state.phase is not Phase.MUMMY_MOVING:
        raise _refused(state, N_("end the mummy's move"))
    if state.setup.options.mummy_moves_exactly and state.steps_left > 0:
        raise RuleError(
            "The mummy must use all its steps: {steps_left} left.", steps_left=state.steps_left
        )
    return _finish_mummy_move(state, events)


# -- the cards after a reveal ---------------------------------------------------------


def _reveal(state: State, command: Command, events: Events) -> State:
    events.append(CardsRevealed())
    return state.evolve(cards_known=True)


def _redeal(state: State, command: Command, events: Events) -> State:
    if not state.cards_known:
        raise RuleError(
            "The mission cards are secret: only after the end has shown them can they be "
            "dealt again."
        )
    if state.setup.hands is not None:
        raise RuleError(
            "The mission cards were dealt by hand, so the companion cannot deal them again: "
            "the cards the end showed stay known."
        )
    hands, deal = redealt(state)
    events.append(CardsDealtAgain(tuple(len(hand) for hand in hands)))
    return state.evolve(hands=hands, deal=deal, cards_known=False, redeals=state.redeals + 1)


def redealt(state: State) -> tuple[tuple[tuple[Treasure, ...], ...], int]:
    """Every seeker's unplayed cards dealt again, and the deal stream after it.

    Per colour, every card of that colour nobody has played (the hands and the cards
    the deal left over) is shuffled on the deal's own stream, and each seeker gets as
    many of it as they held: a fresh deal, so every new hand is as likely as any other
    (one may by chance hold a card it held before, and nobody else can tell)."""
    played = {t for cards in state.played for t in cards}
    hands: list[list[Treasure]] = [[] for _ in state.hands]
    deal = state.deal
    for colour in TREASURE_COUNTS:
        stack = tuple(t for t in state.maze.treasures if t.colour is colour and t not in played)
        deck, deal = shuffled(deal, stack)
        for hand, held in zip(hands, state.hands, strict=True):
            count = sum(1 for t in held if t.colour is colour)
            hand.extend(deck[:count])
            del deck[:count]
    return tuple(tuple(hand) for hand in hands), deal


# -- turn flow -------------------------------------------------------------------


def _start_mummy_move(state: State, kind: MummyMoveKind, steps: int, events: Events) -> State:
    events.append(MummyMoveStarted(kind, steps))
    state = state.evolve(phase=Phase.MUMMY_MOVING, mummy_move=kind, steps_left=steps)
    if steps == 0:
        return _finish_mummy_move(state, events)
    return state


def _finish_mummy_move(state: State, events: Events) -> State:
    events.append(MummyMoveEnded(state.mummy))
    kind = state.mummy_move
    state = state.evolve(mummy_move=None, steps_left=0)
    if kind is MummyMoveKind.NORMAL:
        state = state.evolve(rounds=state.rounds + 1)
        if state.forced_resolve:
            state = state.evolve(forced_resolve=False)
            events.append(Resolved(state.figure, state.dice_out, forced=True))
            return _start_mummy_move(state, MummyMoveKind.AFTER_NORMAL, state.dice_out, events)
        return _begin_seeker_turn(state, _first_figure(state), events)
    state = state.evolve(dice_out=0)
    if kind is MummyMoveKind.AFTER_NORMAL:
        return _begin_seeker_turn(state, _first_figure(state), events)
    # After a resolve the same seeker rolls all five dice, unless caught out or stuck.
    if state.figure_is_out(state.figure):
        return _end_seeker_turn(state, events)
    if not can_move_at_all(state, state.figure):
        events.append(SeekerSkipped(state.figure))
        return _end_seeker_turn(state, events)
    return state.evolve(phase=Phase.SEEKER_TURN, may_resolve=False)


def _begin_seeker_turn(state: State, figure: int, events: Events) -> State:
    """Start ``figure``'s turn, settling owed resolves and skipping stuck figures."""
    while True:
        if figure < 0:
            return _begin_mummy_turn(state, events)
        state = state.evolve(
            figure=figure,
            phase=Phase.SEEKER_TURN,
            may_resolve=True,
            roll=(),
            announced=None,
            targets=0,
        )
        events.append(TurnStarted(figure))
        if state.forced_resolve:
            state = state.evolve(forced_resolve=False)
            events.append(Resolved(figure, state.dice_out, forced=True))
            return _start_mummy_move(state, MummyMoveKind.RESOLVE, state.dice_out, events)
        if can_move_at_all(state, figure):
            return state
        events.append(SeekerSkipped(figure))
        figure = _next_figure(state, figure)


def _end_seeker_turn(state: State, events: Events) -> State:
    return _begin_seeker_turn(state, _next_figure(state, state.figure), events)


def _begin_mummy_turn(state: State, events: Events) -> State:
    events.append(MummyTurnStarted(state.dice_out))
    return state.evolve(phase=Phase.MUMMY_ROLL, roll=(), announced=None, may_resolve=False)


def _next_figure(state: State, figure: int) -> int:
    """The next figure in the round still in the game, or -1 for the mummy's turn."""
    for f in range(figure + 1, len(state.positions)):
        if not state.figure_is_out(f):
            return f
    return -1


def _first_figure(state: State) -> int:
    return _next_figure(state, -1)


def _catch(state: State, figure: int, events: Events) -> State:
    setup = state.setup
    seeker = setup.figure_owner[figure]
    ankhs_left = state.ankhs[seeker] - 1
    mummy_ankhs = state.mummy_ankhs + 1
    events.append(SeekerCaught(figure, seeker, state.mummy, ankhs_left))
    positions = replace_at(state.positions, figure, state.maze.sarcophagus_node)
    if ankhs_left == 0:
        events.append(SeekerOut(seeker))
        positions = tuple(
            -1 if setup.figure_owner[f] == seeker else p for f, p in enumerate(positions)
        )
    state = state.evolve(
        positions=positions,
        ankhs=replace_at(state.ankhs, seeker, ankhs_left),
        mummy_ankhs=mummy_ankhs,
    )
    if mummy_ankhs >= setup.win_ankhs:
        return _win(state, Winner(None, f"holds {mummy_ankhs} ankhs"), events)
    if all(a == 0 for a in state.ankhs):
        return _win(state, Winner(None, "every seeker is out"), events)
    return state


def _win(state: State, winner: Winner, events: Events) -> State:
    events.append(GameWon(winner))
    return state.evolve(phase=Phase.GAME_OVER, winner=winner, steps_left=0, mummy_move=None)


_PHASE_WORDS = {
    Phase.SEEKER_TURN: N_("it is time to resolve or roll"),
    Phase.SEEKER_ROLLED: N_("it is time to announce a die or roll again"),
    Phase.SEEKER_MOVING: N_("the announced die must be moved first"),
    Phase.SEEKER_CARD: N_("it is time to play the card or end the turn"),
    Phase.MUMMY_ROLL: N_("it is the mummy's turn to roll"),
    Phase.MUMMY_MOVING: N_("the mummy is moving"),
    Phase.GAME_OVER: N_("the game is over"),
}


def _not_now(state: State, action: str) -> Msg:
    return not_now(action, _PHASE_WORDS[state.phase])


def _refused(state: State, action: str) -> RuleError:
    """ "You cannot roll now: ..." (``action`` a catalog word, marked where it is used)."""
    return RuleError(_not_now(state, action))


_HANDLERS: dict[type[Command], Callable[[State, Command, Events], State]] = {
    Resolve: _resolve,
    Roll: _roll,
    Announce: _announce,
    Move: _move,
    PlayCard: _play_card,
    EndTurn: _end_turn,
    RollMummyDie: _roll_mummy_die,
    MummyStep: _mummy_step,
    EndMummyMove: _end_mummy_move,
    Reveal: _reveal,
    Redeal: _redeal,
}
