"""The rules of Loot N Run: ``make_setup``, ``new_game``, ``apply``, ``replay``.

``apply(state, command)`` validates a command and returns the next state and the
events it caused, or raises :class:`RuleError` (a ``ValueError``) whose message a
player understands; the state passed in is never changed.  Every accepted command is
kept in the state, and :class:`Undo` rebuilds the state by replaying all of them but
the last: the simplest way to be sure an undo restores exactly what was there.

What the companion enforces, and what it leaves to the table (docs/lootnrun.md):
it knows the turn order and every score for certain; the number of cards in front of
each player it knows only by counting the actions entered.  It refuses a Run or an
Awaken that its count says is impossible (no cards: Loot is forced), and a correction
can fix the count when the table and the companion disagree.  Cards entered in a
reveal are taken as the truth even when their number differs from the count (a
``HandRecounted`` event says so).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from companion.games.text import unfit_character
from companion.games.tuples import replace_at
from companion.i18n import N_, Msg, msg, word

from .cards import Card, Guardian, card_problem
from .commands import (
    Awaken,
    Command,
    Correction,
    FinalReveal,
    Loot,
    Run,
    Undo,
    WerewolfKeep,
)
from .errors import RuleError
from .events import (
    Awakened,
    CardsKept,
    Caught,
    Corrected,
    Escaped,
    Event,
    FrankBenefit,
    GameOver,
    GameStarted,
    HandRecounted,
    Looted,
    MummyBenefit,
    Ran,
    Revealed,
    TargetReached,
    TurnStarted,
    Undone,
    WerewolfBenefit,
)
from .history import Action, Gain, GainReason, HistoryEntry
from .scoring import RunScore, awaken_outcome, run_score
from .state import MAX_NAME, MAX_PLAYERS, MIN_PLAYERS, Phase, Player, Setup, State

__all__ = [
    "WEREWOLF_DRAW",
    "Events",
    "RuleError",
    "apply",
    "awaken_targets",
    "can_loot",
    "can_run",
    "can_undo",
    "make_setup",
    "must_loot",
    "new_game",
    "replay",
]

Events = list[Event]
#: Cards the Werewolf benefit draws: one from each of the two piles.
WEREWOLF_DRAW = 2


# -- setup -----------------------------------------------------------------------


def make_setup(players: Iterable[tuple[str, str]], first: int = 0) -> Setup:
    """A checked setup from (name, colour) pairs in clockwise seating order.

    Names and colours are stripped of surrounding spaces.  ``first`` is the index of
    the starting player.
    """
    setup = Setup(tuple(Player(name.strip(), colour.strip()) for name, colour in players), first)
    _check_setup(setup)
    return setup


def _check_setup(setup: Setup) -> None:
    players = setup.players
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RuleError(
            "Loot N Run is for {least} to {most} players, not {count}.",
            least=MIN_PLAYERS,
            most=MAX_PLAYERS,
            count=len(players),
        )
    seen: dict[str, str] = {}
    colours: dict[str, str] = {}
    for p in players:
        if not p.name.strip():
            raise RuleError("Every player needs a name.")
        if unfit_character(p.name) is not None:
            raise RuleError("A name cannot hold control or text-direction characters.")
        if len(p.name.strip()) > MAX_NAME:
            raise RuleError(
                "A name has at most {n} characters: shorten {name}.",
                n=MAX_NAME,
                name=p.name.strip()[:MAX_NAME] + "\u2026",
            )
        if not p.colour.strip():
            raise RuleError("{name} needs a colour for their scoring token.", name=p.name)
        key = p.name.strip().casefold()
        if key in seen:
            raise RuleError(
                "Two players are called {name}: give everyone a different name.", name=p.name
            )
        seen[key] = p.name
        colour = p.colour.strip().casefold()
        if colour in colours:
            raise RuleError(
                "{first} and {name} both chose {colour}: every player takes tokens of their own "
                "colour.",
                first=colours[colour],
                name=p.name,
                colour=word(p.colour.capitalize()),
            )
        colours[colour] = p.name
    if not 0 <= setup.first < len(players):
        raise RuleError("The first player must be one of the players.")


def new_game(setup: Setup) -> tuple[State, Events]:
    """Every token on 0, nobody holds a card, the first player's turn 1."""
    _check_setup(setup)
    n = len(setup.players)
    state = State(
        setup=setup,
        phase=Phase.PLAYING,
        current=setup.first,
        turn=1,
        scores=(0,) * n,
        hands=(0,) * n,
        revealed=(False,) * n,
    )
    events: Events = [
        GameStarted(tuple(p.name for p in setup.players), setup.target),
        TurnStarted(setup.first, 1, False),
    ]
    return state, events


def replay(setup: Setup, commands: Iterable[Command]) -> State:
    """The state after applying ``commands`` to a new game (Undo included)."""
    state, _ = new_game(setup)
    for command in commands:
        state, _ = apply(state, command)
    return state


# -- apply -----------------------------------------------------------------------

Handler = Callable[[State, Command, Events], tuple[State, HistoryEntry]]


def apply(state: State, command: Command) -> tuple[State, Events]:
    """Apply one command; raise RuleError and change nothing if it is not allowed."""
    if isinstance(command, Undo):
        return _undo(state)
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleError("Unknown command {command}.", command=repr(command))
    events: Events = []
    new, entry = handler(state, command, events)
    entry = replace(entry, index=len(state.history), scores=new.scores)
    new = new.evolve(history=(*state.history, entry), commands=(*state.commands, command))
    return new, events


def _undo(state: State) -> tuple[State, Events]:
    if not state.commands:
        raise RuleError("There is nothing to undo.")
    last = state.commands[-1]
    previous = replay(state.setup, state.commands[:-1])
    return previous, [Undone(last.kind)]


# -- what may be done now (for pages and for the checks below) -------------------


def must_loot(state: State) -> bool:
    """The current player has no cards by the companion's count: Loot is forced.

    In the two-player game Awaken needs no card, so it stays open too.
    """
    return state.phase is Phase.PLAYING and state.hands[state.current] == 0


def can_loot(state: State) -> bool:
    return state.phase is Phase.PLAYING


def can_run(state: State) -> bool:
    return state.phase is Phase.PLAYING and state.hands[state.current] > 0


def awaken_targets(state: State) -> tuple[int, ...]:
    """The players the current player may awaken now (none when they may not Awaken)."""
    if state.phase is not Phase.PLAYING:
        return ()
    me = state.current
    if state.setup.awaken_needs_own_card and state.hands[me] == 0:
        return ()
    return tuple(p for p in range(len(state.players)) if p != me)


def can_undo(state: State) -> bool:
    return bool(state.commands)


# -- turn actions ----------------------------------------------------------------


def _loot(state: State, command: Command, events: Events) -> tuple[State, HistoryEntry]:
    assert isinstance(command, Loot)
    me = _actor(state, command.player)
    cards = state.hands[me] + 1
    events.append(Looted(me, cards))
    entry = _entry(state, me, Action.LOOT, cards_after=cards)
    state = state.evolve(hands=replace_at(state.hands, me, cards))
    return _end_turn(state, events, extra=False), entry


def _run(state: State, command: Command, events: Events) -> tuple[State, HistoryEntry]:
    assert isinstance(command, Run)
    me = _actor(state, command.player)
    name = state.name(me)
    if state.hands[me] == 0:
        raise RuleError(
            "{name} has no cards (by the companion's count), so {name} must Loot. If there are "
            "cards in front of them, correct the card count first.",
            name=name,
        )
    if not command.cards:
        raise RuleError("Enter every card {name} reveals: a Run reveals all of them.", name=name)
    _check_cards(command.cards, f"{name}'s")
    _recount(state, me, len(command.cards), events)
    run = run_score(command.cards)
    state = state.evolve(hands=replace_at(state.hands, me, 0))
    state = _move_token(state, me, run.points)
    events.append(Ran(me, run, state.scores[me]))
    state = _check_target(state, me, events)
    entry = _entry(
        state,
        me,
        Action.RUN,
        gains=(Gain(me, run.points, GainReason.RUN, run),),
        cards_revealed=len(command.cards),
    )
    return _next_or_end(state, events, entry)


def _awaken(state: State, command: Command, events: Events) -> tuple[State, HistoryEntry]:
    assert isinstance(command, Awaken)
    me = _actor(state, command.player)
    name = state.name(me)
    target = command.target
    n = len(state.players)
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < n:
        raise RuleError("Choose one of the other players to awaken.")
    if target == me:
        raise RuleError("{name} cannot awaken themselves: choose another player.", name=name)
    if state.setup.awaken_needs_own_card and state.hands[me] == 0:
        raise RuleError(
            "With 3 or more players you need a card of your own to Awaken, and {name} has none "
            "(by the companion's count): Loot instead.",
            name=name,
        )
    them = state.name(target)
    if not command.cards:
        raise RuleError(
            "Enter every card in front of {them}. If {them} has no cards, there is nothing to "
            "awaken: choose a player with cards.",
            them=them,
        )
    _check_cards(command.cards, f"{them}'s")
    _recount(state, target, len(command.cards), events)
    outcome = awaken_outcome(command.cards)
    events.append(Awakened(me, target, outcome.amulets, outcome.guardians, outcome.escaped))
    state = state.evolve(hands=replace_at(state.hands, target, 0))
    entry = _entry(
        state,
        me,
        Action.AWAKEN,
        target=target,
        amulets=outcome.amulets,
        guardians=outcome.guardians,
        escaped=outcome.escaped,
        cards_revealed=len(command.cards),
    )
    if outcome.escaped:
        run = outcome.run
        state = _move_token(state, target, run.points)
        events.append(Escaped(target, run, state.scores[target]))
        state = _check_target(state, target, events)
        entry = replace(entry, gains=(Gain(target, run.points, GainReason.ESCAPE, run),))
        return _next_or_end(state, events, entry)
    events.append(Caught(target, outcome.benefits))
    return _resolve_benefits(state, outcome.benefits, outcome.run, entry, events)


def _resolve_benefits(
    state: State,
    benefits: tuple[Guardian, ...],
    run: RunScore,
    entry: HistoryEntry,
    events: Events,
) -> tuple[State, HistoryEntry]:
    """The awakener's benefits of a catch: Mummy, then Werewolf, then Frank, each once.

    ``entry.benefits`` lists the benefits that took effect.
    """
    me = state.current
    if Guardian.MUMMY in benefits:
        state = _move_token(state, me, run.points)
        events.append(MummyBenefit(me, run, state.scores[me]))
        state = _check_target(state, me, events)
        gains = (Gain(me, run.points, GainReason.MUMMY, run),)
        entry = replace(entry, gains=gains, benefits=(Guardian.MUMMY,))
        if state.phase is Phase.FINAL_REVEAL:
            # "As soon as" a player reaches the target the game ends: the Werewolf and
            # Frank benefits not yet resolved lapse.
            return state, replace(entry, ended_game=True)
    entry = replace(entry, benefits=benefits)
    frank = Guardian.FRANK in benefits
    if Guardian.WEREWOLF in benefits:
        # Frank (if any) follows once the Werewolf cards are chosen.
        events.append(WerewolfBenefit(me))
        return state.evolve(phase=Phase.WEREWOLF_KEEP, extra_turn_owed=frank), entry
    if frank:
        events.append(FrankBenefit(me))
    return _end_turn(state, events, extra=frank), entry


def _werewolf_keep(state: State, command: Command, events: Events) -> tuple[State, HistoryEntry]:
    assert isinstance(command, WerewolfKeep)
    if state.phase is not Phase.WEREWOLF_KEEP:
        raise RuleError(
            "There are no Werewolf cards to keep: that benefit comes only when an awakened "
            "player is caught with a Werewolf."
            if state.phase is Phase.PLAYING
            else _not_now(state)
        )
    me = _check_player_matches(state, command.player)
    kept = command.kept
    if isinstance(kept, bool) or not isinstance(kept, int) or not 0 <= kept <= WEREWOLF_DRAW:
        raise RuleError(
            "The Werewolf draws one card from each pile: {name} keeps 0, 1 or 2.",
            name=state.name(me),
        )
    cards = state.hands[me] + kept
    events.append(CardsKept(me, kept, cards))
    state = state.evolve(hands=replace_at(state.hands, me, cards))
    entry = _entry(state, me, Action.WEREWOLF_KEEP, kept=kept, cards_after=cards)
    frank = state.extra_turn_owed
    if frank:
        events.append(FrankBenefit(me))
    return _end_turn(state, events, extra=frank), entry


# -- not turns: corrections and the final reveal ---------------------------------


def _correction(state: State, command: Command, events: Events) -> tuple[State, HistoryEntry]:
    assert isinstance(command, Correction)
    player = _check_player(state, command.player)
    name = state.name(player)
    points, cards = command.points, command.cards
    if isinstance(points, bool) or not isinstance(points, int):
        raise RuleError("A correction moves a token by a whole number of points.")
    if cards is not None and (isinstance(cards, bool) or not isinstance(cards, int) or cards < 0):
        raise RuleError("A card count is a whole number, not negative.")
    if not command.reason.strip():
        raise RuleError("Say why the score is corrected, so the history explains it.")
    if points == 0 and cards is None:
        raise RuleError("This correction changes nothing: give points (+ or -) or a card count.")
    if state.scores[player] + points < 0:
        raise RuleError(
            "{name} has {scores} points: the token cannot go below 0.",
            name=name,
            scores=state.scores[player],
        )
    if cards is not None:
        state = state.evolve(hands=replace_at(state.hands, player, cards))
    phase_before = state.phase
    state = _move_token(state, player, points)
    events.append(Corrected(player, points, command.reason.strip(), state.scores[player], cards))
    state = _check_target(state, player, events)
    entry = _entry(
        state,
        player,
        Action.CORRECTION,
        gains=(Gain(player, points, GainReason.CORRECTION),) if points else (),
        reason=command.reason.strip(),
        cards_set=cards,
        cards_after=state.hands[player],
        ended_game=state.phase is not phase_before,
    )
    if state.phase is Phase.GAME_OVER:
        state = _finish(state, events)
    return state, entry


def _final_reveal(state: State, command: Command, events: Events) -> tuple[State, HistoryEntry]:
    assert isinstance(command, FinalReveal)
    if state.phase is not Phase.FINAL_REVEAL:
        if state.phase is Phase.GAME_OVER:
            raise RuleError("Everyone has revealed their cards: the game is over.")
        raise RuleError(
            "The final reveal comes when a player reaches {target} points.", target=state.target
        )
    player = _check_player(state, command.player)
    name = state.name(player)
    if state.revealed[player]:
        raise RuleError("{name} has already revealed their cards.", name=name)
    _check_cards(command.cards, f"{name}'s")
    _recount(state, player, len(command.cards), events)
    run = run_score(command.cards)
    state = state.evolve(
        hands=replace_at(state.hands, player, 0), revealed=replace_at(state.revealed, player, True)
    )
    state = _move_token(state, player, run.points)
    events.append(Revealed(player, run, state.scores[player]))
    entry = _entry(
        state,
        player,
        Action.FINAL_REVEAL,
        gains=(Gain(player, run.points, GainReason.REVEAL, run),),
        cards_revealed=len(command.cards),
    )
    if all(state.revealed):
        state = _finish(state.evolve(phase=Phase.GAME_OVER), events)
    return state, entry


# -- helpers ---------------------------------------------------------------------


def _actor(state: State, player: int | None) -> int:
    """The player taking a turn action: the current player, if the phase allows it."""
    if state.phase is not Phase.PLAYING:
        raise RuleError(_not_now(state))
    return _check_player_matches(state, player)


def _check_player_matches(state: State, player: int | None) -> int:
    me = state.current
    if player is not None and player != me:
        who = (
            state.name(player)
            if isinstance(player, int) and 0 <= player < len(state.players)
            else "that player"
        )
        raise RuleError("It is {name}'s turn, not {who}'s.", name=state.name(me), who=who)
    return me


def _check_player(state: State, player: int) -> int:
    if isinstance(player, bool) or not isinstance(player, int):
        raise RuleError("Choose one of the players.")
    if not 0 <= player < len(state.players):
        raise RuleError("Choose one of the players.")
    return player


def _check_cards(cards: Sequence[Card], whose: str) -> None:
    for i, card in enumerate(cards, 1):
        if not isinstance(card, Card):
            raise RuleError("{whose} card {i} is not a card.", whose=whose, i=i)
        problem = card_problem(card)
        if problem is not None:
            raise RuleError("{whose} card {i} {problem}.", whose=whose, i=i, problem=problem)


def _recount(state: State, player: int, revealed: int, events: Events) -> None:
    counted = state.hands[player]
    if counted != revealed:
        events.append(HandRecounted(player, counted, revealed))


def _move_token(state: State, player: int, points: int) -> State:
    return state.evolve(scores=replace_at(state.scores, player, state.scores[player] + points))


def _check_target(state: State, player: int, events: Events) -> State:
    """During play, a player at or past the target ends the game: the final reveal begins."""
    score = state.scores[player]
    if state.phase in (Phase.PLAYING, Phase.WEREWOLF_KEEP) and score >= state.target:
        events.append(TargetReached(player, score, state.target))
        state = state.evolve(
            phase=Phase.FINAL_REVEAL, ended_by=player, extra_turn_owed=False, extra_turn=False
        )
    return state


def _next_or_end(state: State, events: Events, entry: HistoryEntry) -> tuple[State, HistoryEntry]:
    if state.phase is Phase.FINAL_REVEAL:
        return state, replace(entry, ended_game=True)
    return _end_turn(state, events, extra=False), entry


def _end_turn(state: State, events: Events, *, extra: bool) -> State:
    """Pass play clockwise, or give the same player their Frank extra turn."""
    player = state.current if extra else (state.current + 1) % len(state.players)
    turn = state.turn + 1
    events.append(TurnStarted(player, turn, extra))
    return state.evolve(
        phase=Phase.PLAYING, current=player, turn=turn, extra_turn=extra, extra_turn_owed=False
    )


def _finish(state: State, events: Events) -> State:
    best = max(state.scores)
    winners = tuple(p for p, s in enumerate(state.scores) if s == best)
    events.append(GameOver(winners, state.scores))
    return state.evolve(winners=winners)


def _entry(state: State, player: int, action: Action, **fields: Any) -> HistoryEntry:
    """A history entry for ``player`` in the turn in progress (index and scores: apply)."""
    entry = HistoryEntry(
        index=0,
        turn=state.turn,
        player=player,
        action=action,
        extra_turn=state.extra_turn,
        cards_after=state.hands[player],
    )
    return replace(entry, **fields)


_PHASE_WORDS = {
    Phase.WEREWOLF_KEEP: N_(
        "first say how many of the two Werewolf cards {name} keeps (0, 1 or 2)"
    ),
    Phase.FINAL_REVEAL: N_("the game has ended; every player now reveals their remaining cards"),
    Phase.GAME_OVER: N_("the game is over"),
}


def _not_now(state: State) -> Msg:
    """ "Not now: it is Ben's turn." in the reader's language."""
    words = _PHASE_WORDS.get(state.phase, N_("it is {name}'s turn"))
    return msg("Not now: {why}.", why=msg(words, name=state.name(state.current)))


_HANDLERS: dict[type[Command], Handler] = {
    Loot: _loot,
    Run: _run,
    Awaken: _awaken,
    WerewolfKeep: _werewolf_keep,
    Correction: _correction,
    FinalReveal: _final_reveal,
}
