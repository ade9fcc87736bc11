"""Scenario tests for every rule of Loot N Run (RULES.md, section 2) and properties.

Each scenario quotes the rule (or the example of the source texts in seeds/) that it
checks.  The engine is driven only through its public API: ``make_setup``,
``new_game``, ``apply`` and the commands; cards are written with ``Card.of``, whose
arguments are the treasure symbols by type number (``Card.of(1, 1, 4)``: two symbols
of type 1 and one of type 4).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.lootnrun.cards import Card, Guardian, RoomColour, card_problem
from companion.games.lootnrun.commands import (
    Awaken,
    Command,
    Correction,
    FinalReveal,
    Loot,
    Run,
    Undo,
    WerewolfKeep,
)
from companion.games.lootnrun.engine import (
    RuleError,
    apply,
    awaken_targets,
    can_run,
    make_setup,
    must_loot,
    new_game,
    replay,
)
from companion.games.lootnrun.events import (
    Awakened,
    CardsKept,
    Caught,
    Escaped,
    Event,
    FrankBenefit,
    GameOver,
    HandRecounted,
    MummyBenefit,
    Ran,
    TargetReached,
    TurnStarted,
    Undone,
    WerewolfBenefit,
)
from companion.games.lootnrun.history import Action, GainReason
from companion.games.lootnrun.record import (
    FormatError,
    command_from_json,
    command_to_json,
    read_record,
    write_record,
)
from companion.games.lootnrun.scoring import awaken_outcome, run_score
from companion.games.lootnrun.state import Phase, State
from companion.games.lootnrun.views import (
    chart_view,
    events_view,
    outcome_view,
    run_view,
    table_view,
)
from companion.i18n.catalog import localize

MUMMY, WEREWOLF, FRANK = Guardian.MUMMY, Guardian.WEREWOLF, Guardian.FRANK
NAMES = ("Anna", "Ben", "Cleo", "Dev", "Eli", "Fay")
COLOURS = ("red", "blue", "green", "yellow", "white", "black")


def game(players: int = 3, first: int = 0) -> State:
    setup = make_setup(zip(NAMES[:players], COLOURS[:players], strict=True), first)
    return new_game(setup)[0]


def play(state: State, *commands: Command) -> State:
    for command in commands:
        state, _ = apply(state, command)
    return state


def events_of(state: State, command: Command) -> tuple[State, list[Event]]:
    return apply(state, command)


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def refused(state: State, command: Command, *words: str) -> str:
    """Apply a command that must be refused; the state must not change."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as info:
        apply(state, command)
    assert state == before
    message = str(info.value)
    for w in words:
        assert w in message, message
    return message


def with_cards(state: State, **hands: int) -> State:
    """Give the named players cards: a correction sets a count without taking a turn."""
    for name, cards in hands.items():
        state = play(state, Correction(NAMES.index(name), 0, "test setup", cards=cards))
    return state


# -- setup ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_two_to_six_players_start_on_zero_with_the_first_player(players):
    """Each player's token starts on the 0 space; play starts with the chosen player."""
    state = game(players, first=players - 1)
    assert state.scores == (0,) * players
    assert state.hands == (0,) * players
    assert state.current == players - 1
    assert state.turn == 1
    assert state.phase is Phase.PLAYING


@pytest.mark.parametrize(("players", "target"), [(2, 35), (3, 35), (4, 35), (5, 35), (6, 30)])
def test_the_target_is_35_or_30_with_six_players(players, target):
    """The game ends when a player reaches 35 points (30 points with 6 players)."""
    assert game(players).target == target


@pytest.mark.parametrize(
    ("players", "words"),
    [
        ([("Anna", "red")], "2 to 6 players, not 1"),
        ([(n, c) for n, c in zip(NAMES, COLOURS, strict=True)] + [("Gus", "pink")], "not 7"),
        ([("Anna", "red"), ("  ", "blue")], "needs a name"),
        ([("Anna", "red"), ("Ben", "")], "Ben needs a colour"),
        ([("Anna", "red"), ("anna", "blue")], "Two players are called anna"),
        ([("Anna", "red"), ("Ben", "Red")], "Anna and Ben both chose Red"),
    ],
)
def test_bad_setups_are_refused_in_player_words(players, words):
    with pytest.raises(RuleError, match=words):
        make_setup(players)


def test_the_first_player_must_exist():
    with pytest.raises(RuleError, match="first player"):
        make_setup([("Anna", "red"), ("Ben", "blue")], first=2)


# -- the arithmetic of a Run ------------------------------------------------------


def test_run_scores_one_point_per_treasure_symbol():
    """Run: count the treasure symbols and move that many spaces."""
    score = run_score([Card.of(1, 2), Card.of(3, 4, 4)])
    assert (score.symbols, score.points) == (5, 5)
    assert score.doubled_types == ()


def test_run_ignores_guardians_and_amulets():
    """Ignore guardians and amulets: just move your token."""
    plain = run_score([Card.of(1), Card.of(2, 2)])
    guarded = run_score([Card.of(1, amulets=2), Card.of(2, 2, guardian=MUMMY)])
    assert plain.points == guarded.points == 3


def test_a_type_on_two_cards_scores_double():
    """Bonus: if a treasure type is on two or more cards, that type scores double."""
    score = run_score([Card.of(1, 1), Card.of(1, 3)])
    by_type = {t.treasure_type: t for t in score.types}
    assert by_type[1].points == 6  # 3 symbols on 2 cards: doubled
    assert by_type[3].points == 1
    assert score.points == 7


def test_symbols_on_one_card_alone_are_not_doubled():
    """The bonus counts cards, not symbols: three of a type on one card is 3 points."""
    assert run_score([Card.of(5, 5, 5)]).points == 3


def test_several_types_can_be_doubled_in_one_run_cups_and_chests():
    """You can double more than one treasure type in a Run (cups and chests, for instance)."""
    cups, chests = 1, 2
    score = run_score([Card.of(cups, chests), Card.of(cups), Card.of(chests, chests)])
    assert score.doubled_types == (cups, chests)
    assert score.points == 2 * 2 + 2 * 3


@pytest.mark.parametrize("cards", [3, 4])
def test_a_type_is_never_tripled_or_quadrupled(cards):
    """A single type cannot be tripled or quadrupled if it is on 3 or 4 cards."""
    score = run_score([Card.of(6)] * cards)
    assert score.points == 2 * cards
    assert score.types[0].doubled


def test_run_breakdown_lists_only_the_types_shown_in_type_order():
    score = run_score([Card.of(4, 2), Card.of(2)])
    assert [t.treasure_type for t in score.types] == [2, 4]
    view = localize(run_view(score), "en")
    assert view["types"][0] == {
        "type": 2,
        "name": "type 2",
        "symbols": 2,
        "cards": 2,
        "doubled": True,
        "points": 4,
    }
    assert view["points"] == 5


def test_a_room_card_shows_one_to_three_treasures():
    """Rule sheet: between 1 and 3 treasures per card, in six types."""
    assert card_problem(Card.of(1)) is None
    assert card_problem(Card.of(1, 2, 3)) is None
    assert "shows 0 treasure symbols" in str(card_problem(Card(amulets=1)) or "")
    assert "1 to 3" in str(card_problem(Card.of(1, 1, 1, 1)) or "")


def test_card_shape_is_checked_on_construction():
    with pytest.raises(RuleError, match="6 types"):
        Card((1, 0, 0))
    with pytest.raises(RuleError, match="negative"):
        Card((1, -1, 0, 0, 0, 0))
    with pytest.raises(RuleError, match="numbered 1 to 6"):
        Card.of(7)
    card = Card.of(2, 2, 6, amulets=1, guardian=FRANK, colour=RoomColour.RED)
    assert card.treasures == (0, 2, 0, 0, 0, 1)
    assert card.count(2) == 2 and card.symbols == 3


# -- turn order and Loot ----------------------------------------------------------


def test_play_passes_clockwise_and_wraps_around():
    """When your action is done, play passes in clockwise order."""
    state = game(4, first=2)
    order = []
    for _ in range(6):
        order.append(state.current)
        state = play(state, Loot())
    assert order == [2, 3, 0, 1, 2, 3]
    assert state.turn == 7


def test_loot_draws_a_card_without_points_and_ends_the_turn():
    """Loot: draw the top card of either deck and place it in front of you."""
    state, events = events_of(game(3), Loot())
    assert state.hands == (1, 0, 0)
    assert state.scores == (0, 0, 0)
    assert kinds(events) == ["looted", "turn_started"]
    entry = state.history[-1]
    assert (entry.turn, entry.player, entry.action, entry.points) == (1, 0, Action.LOOT, 0)
    assert entry.cards_after == 1


def test_loot_is_always_allowed_even_with_cards():
    state = play(game(2), Loot(), Loot(), Loot())
    assert state.hands == (2, 1)


def test_loot_is_forced_without_cards_run_is_refused():
    """Loot: you must do this action if you have no cards in front of you."""
    state = game(3)
    assert must_loot(state) and not can_run(state)
    refused(state, Run((Card.of(1),)), "Anna has no cards", "must Loot")


def test_loot_is_forced_without_cards_awaken_is_refused_with_three_players():
    """Awaken: you must have at least one card to do this (except with 2 players)."""
    state = play(game(3), Loot(), Loot())  # Anna and Ben hold a card; Cleo none
    assert state.current == 2
    assert awaken_targets(state) == ()
    refused(state, Awaken(0, (Card.of(1),)), "need a card of your own", "Loot instead")


def test_with_two_players_awaken_needs_no_card_of_ones_own():
    """2 Players: you don't need any cards to do the Awaken action."""
    state = play(game(2), Loot())  # Anna holds a card; Ben none
    assert state.current == 1 and state.hands[1] == 0
    assert awaken_targets(state) == (0,)
    state = play(state, Awaken(0, (Card.of(3, 4),)))
    assert state.scores == (2, 0)  # no guardian: Anna escapes and scores
    assert state.hands == (0, 0)


def test_a_run_with_no_card_entered_is_refused():
    state = with_cards(game(3), Anna=2)
    refused(state, Run(()), "Enter every card Anna reveals")


def test_a_turn_action_from_a_phone_whose_turn_has_passed_is_refused():
    state = game(3)
    refused(state, Loot(player=1), "It is Anna's turn, not Ben's")
    assert play(state, Loot(player=0)).hands == (1, 0, 0)


# -- Run ----------------------------------------------------------------------------


def test_run_scores_the_cards_discards_them_and_passes_play():
    """Run: reveal all your cards, score them, then discard all your cards."""
    state = play(game(3), *[Loot()] * 6)  # two rounds: everyone holds 2 cards
    assert (state.current, state.turn, state.hands) == (0, 7, (2, 2, 2))
    state, events = events_of(state, Run((Card.of(1, 1), Card.of(1, 2, 3))))
    assert state.scores == (8, 0, 0)  # type 1: 3 symbols on 2 cards -> 6, types 2 and 3 -> 2
    assert state.hands == (0, 2, 2)
    assert state.current == 1
    ran = next(e for e in events if isinstance(e, Ran))
    assert ran.run.points == 8 and ran.score == 8
    entry = state.history[-1]
    assert entry.action is Action.RUN and entry.points == 8 and entry.turn == 7
    assert entry.gains[0].reason is GainReason.RUN
    text = localize(table_view(state), "en")["history"][-1]["text"]
    assert text == "Anna ran with 2 cards: 8 points (type 1 doubled)."


def test_bad_cards_are_refused_naming_the_card():
    state = with_cards(game(3), Anna=2)
    refused(state, Run((Card.of(1), Card.of(1, 2, 3, 4))), "Anna's card 2", "1 to 3")
    refused(state, Run((Card.of(1), Card.of(2, amulets=9))), "Anna's card 2", "amulets")


def test_the_entered_cards_win_over_the_companions_count():
    """The physical game is the truth: a different number of cards is taken as entered."""
    state = with_cards(game(3), Anna=1)
    state, events = events_of(state, Run((Card.of(1), Card.of(2))))
    assert HandRecounted(0, counted=1, revealed=2) in events
    assert state.scores[0] == 2 and state.hands[0] == 0


# -- Awaken: escape ---------------------------------------------------------------


def awaken_ready(players: int = 3, ben: int = 3) -> State:
    """Anna (to play) holds a card and Ben ``ben`` cards."""
    return with_cards(game(players), Anna=1, Ben=ben)


def test_awaken_escape_when_amulets_equal_guardians():
    """Amulets equal to or more than guardians: the player escapes."""
    cards = (Card.of(4, amulets=1), Card.of(5, guardian=MUMMY))
    outcome = awaken_outcome(cards)
    assert (outcome.amulets, outcome.guardians, outcome.escaped) == (1, 1, True)
    assert play(awaken_ready(), Awaken(1, cards)).scores == (0, 2, 0)


def test_awaken_escape_scores_the_target_as_a_run_and_discards():
    cards = (Card.of(1, 1, amulets=1), Card.of(1, guardian=MUMMY), Card.of(2))
    state, events = events_of(awaken_ready(), Awaken(1, cards))
    assert state.scores == (0, 7, 0)  # type 1: 3 symbols on 2 cards -> 6; type 2 -> 1
    assert state.hands == (1, 0, 0)  # Ben discards; Anna keeps her card
    assert kinds(events) == ["awakened", "escaped", "turn_started"]
    assert isinstance(events[0], Awakened) and events[0].escaped
    assert isinstance(events[1], Escaped) and events[1].score == 7
    assert state.current == 1  # play passes clockwise from the awakener
    entry = state.history[-1]
    assert (entry.player, entry.target, entry.escaped) == (0, 1, True)
    assert entry.points_for(1) == 7 and entry.points_for(0) == 0
    assert entry.gains[0].reason is GainReason.ESCAPE


def test_awaken_escape_with_more_amulets_than_guardians():
    cards = (Card.of(3, amulets=2), Card.of(4, guardian=WEREWOLF))
    state = play(awaken_ready(), Awaken(1, cards))
    assert state.scores == (0, 2, 0)
    assert state.phase is Phase.PLAYING


def test_awaken_without_guardians_or_amulets_is_an_escape():
    state = play(awaken_ready(), Awaken(1, (Card.of(5),)))
    assert state.scores == (0, 1, 0)


# -- Awaken: caught and the benefits -----------------------------------------------


def test_caught_target_discards_everything_and_scores_nothing():
    """More guardians than amulets: caught, discards all cards, scores nothing."""
    cards = (Card.of(1, 1, guardian=FRANK), Card.of(2))
    state, events = events_of(awaken_ready(), Awaken(1, cards))
    assert state.scores == (0, 0, 0)
    assert state.hands[1] == 0
    assert any(isinstance(e, Caught) and e.benefits == (FRANK,) for e in events)


def test_amulets_have_no_effect_when_guardians_outnumber_them():
    """Amulets have NO EFFECT if guardians outnumber them (and score nothing)."""
    cards = (
        Card.of(1, amulets=2),
        Card.of(2, guardian=MUMMY),
        Card.of(3, guardian=MUMMY),
        Card.of(4, guardian=MUMMY),
    )
    state = play(awaken_ready(ben=4), Awaken(1, cards))
    outcome = awaken_outcome(cards)
    assert (outcome.amulets, outcome.guardians, outcome.escaped) == (2, 3, False)
    assert state.scores == (4, 0, 0)  # Anna's Mummy benefit: 4 symbols, no doubles


def test_mummy_benefit_scores_the_targets_cards_as_the_awakeners_run_with_doubling():
    """Mummy: immediately score that player's cards as though you ran with them."""
    cards = (Card.of(2, 2, guardian=MUMMY), Card.of(2, 5), Card.of(5, 5))
    state, events = events_of(awaken_ready(), Awaken(1, cards))
    # type 2: 3 symbols on 2 cards -> 6; type 5: 3 symbols on 2 cards -> 6
    assert state.scores == (12, 0, 0)
    assert state.hands == (1, 0, 0)  # the awakener's own cards stay in front of her
    assert kinds(events) == ["awakened", "caught", "mummy_benefit", "turn_started"]
    entry = state.history[-1]
    assert entry.points_for(0) == 12 and entry.gains[0].reason is GainReason.MUMMY
    assert entry.benefits == (MUMMY,)
    assert state.current == 1


def test_each_guardian_type_gives_its_benefit_only_once():
    """You get each type of guardian's benefit only once, no matter how many you reveal."""
    cards = (Card.of(1, guardian=MUMMY), Card.of(1, guardian=MUMMY), Card.of(2))
    state, events = events_of(awaken_ready(), Awaken(1, cards))
    assert sum(isinstance(e, MummyBenefit) for e in events) == 1
    # type 1: 2 symbols on 2 cards -> 4; type 2: 1; scored once, not once per Mummy card
    assert state.scores == (5, 0, 0)


def test_werewolf_benefit_waits_for_the_cards_kept():
    """Werewolf: draw 1 card from each pile, keep the ones you like, discard the others."""
    cards = (Card.of(1, guardian=WEREWOLF), Card.of(2))
    state, events = events_of(awaken_ready(ben=2), Awaken(1, cards))
    assert kinds(events) == ["awakened", "caught", "werewolf_benefit"]
    assert state.phase is Phase.WEREWOLF_KEEP and state.current == 0
    refused(state, Loot(), "Werewolf cards Anna keeps")
    refused(state, WerewolfKeep(3), "keeps 0, 1 or 2")
    refused(state, WerewolfKeep(-1), "keeps 0, 1 or 2")
    refused(state, WerewolfKeep(1, player=2), "It is Anna's turn")
    state, events = events_of(state, WerewolfKeep(2))
    assert state.hands == (3, 0, 0)
    assert state.scores == (0, 0, 0)  # the Werewolf brings cards, no points
    assert kinds(events) == ["cards_kept", "turn_started"]
    assert state.current == 1 and state.phase is Phase.PLAYING
    entry = state.history[-1]
    assert (entry.action, entry.kept, entry.points, entry.turn) == (
        Action.WEREWOLF_KEEP,
        2,
        0,
        state.history[-2].turn,
    )


@pytest.mark.parametrize("kept", [0, 1, 2])
def test_werewolf_keeps_zero_one_or_two(kept):
    state = play(awaken_ready(), Awaken(1, (Card.of(1, guardian=WEREWOLF),)), WerewolfKeep(kept))
    assert state.hands[0] == 1 + kept


def test_werewolf_keep_outside_the_benefit_is_refused():
    refused(game(3), WerewolfKeep(1), "no Werewolf cards to keep")


def test_frank_gives_exactly_one_extra_turn_however_many_franks():
    """Frank: play one extra turn (only once, no matter how many you reveal)."""
    cards = (Card.of(1, guardian=FRANK), Card.of(2, guardian=FRANK), Card.of(3))
    state, events = events_of(awaken_ready(), Awaken(1, cards))
    assert kinds(events) == ["awakened", "caught", "frank_benefit", "turn_started"]
    assert events[-1] == TurnStarted(0, 2, extra_turn=True)
    assert state.current == 0 and state.extra_turn
    state = play(state, Loot())  # the extra turn
    assert state.current == 1 and not state.extra_turn  # then play passes clockwise
    assert state.history[-1].extra_turn


def test_the_extra_turn_may_be_any_action_and_a_new_frank_gives_a_new_turn():
    """'Then play a new turn with an action of your choice.'"""
    state = play(awaken_ready(), Awaken(1, (Card.of(1, guardian=FRANK),)))
    state = with_cards(state, Cleo=1)
    state = play(state, Awaken(2, (Card.of(4, guardian=FRANK),)))  # another catch
    assert state.current == 0 and state.extra_turn
    state = play(state, Run((Card.of(6),)))
    assert state.scores == (1, 0, 0) and state.current == 1


def test_benefits_are_resolved_mummy_then_werewolf_then_frank():
    """If you find more than one type: first the Mummy, then the Werewolf, finally Frank."""
    cards = (
        Card.of(1, guardian=FRANK),
        Card.of(2, guardian=WEREWOLF),
        Card.of(3, guardian=MUMMY),
    )
    state, events = events_of(awaken_ready(), Awaken(1, cards))
    assert kinds(events) == ["awakened", "caught", "mummy_benefit", "werewolf_benefit"]
    assert isinstance(events[1], Caught) and events[1].benefits == (MUMMY, WEREWOLF, FRANK)
    assert state.scores == (3, 0, 0)
    state, events = events_of(state, WerewolfKeep(1))
    assert kinds(events) == ["cards_kept", "frank_benefit", "turn_started"]
    assert state.current == 0 and state.extra_turn and state.hands[0] == 2


def test_source_example_one_amulet_three_guardians_werewolf_then_one_extra_turn():
    """Example: 1 amulet and 3 guardians (1 Werewolf + 2 Franks) in front of another player.

    More guardians than amulets: the Werewolf and the Frank benefits, in that order.
    Draw 2 cards and keep 0, 1 or 2; then play one new turn (only one).
    """
    cards = (
        Card.of(1, amulets=1),
        Card.of(2, guardian=WEREWOLF),
        Card.of(3, guardian=FRANK),
        Card.of(4, guardian=FRANK),
    )
    outcome = awaken_outcome(cards)
    assert (outcome.amulets, outcome.guardians) == (1, 3)
    assert outcome.benefits == (WEREWOLF, FRANK)
    state, events = events_of(awaken_ready(ben=4), Awaken(1, cards))
    assert [type(e) for e in events] == [Awakened, Caught, WerewolfBenefit]
    assert state.scores == (0, 0, 0)
    state, events = events_of(state, WerewolfKeep(2))
    assert [type(e) for e in events] == [CardsKept, FrankBenefit, TurnStarted]
    assert state.current == 0 and state.extra_turn
    state = play(state, Loot())
    assert state.current == 1, "only one extra turn"
    text = localize(table_view(state), "en")["history"][-3]["text"]
    assert "Werewolf: Anna draws a card from each pile. Frank: Anna plays one extra turn." in text


def test_awaken_needs_another_player_with_cards():
    state = awaken_ready()
    refused(state, Awaken(0, (Card.of(1),)), "cannot awaken themselves")
    refused(state, Awaken(5, (Card.of(1),)), "Choose one of the other players")
    refused(state, Awaken(2, ()), "Enter every card in front of Cleo")
    refused(state, Awaken(1, (Card.of(1, 2, 3, 4),)), "Ben's card 1")


def test_awaken_targets_list_the_other_players():
    assert awaken_targets(awaken_ready(4)) == (1, 2, 3)


# -- the end, the final reveal and the winners -------------------------------------


def near_the_end(players: int = 3, **scores: int) -> State:
    state = game(players)
    for name, points in scores.items():
        state = play(state, Correction(NAMES.index(name), points, "test setup"))
    return state


def test_reaching_the_target_ends_the_game_at_once():
    """As soon as one player reaches 35 points, all players reveal their remaining cards."""
    state = with_cards(near_the_end(Anna=30, Ben=20), Anna=2, Cleo=1)
    state, events = events_of(state, Run((Card.of(1, 1), Card.of(1, 2))))
    assert state.scores[0] == 37
    assert kinds(events) == ["ran", "target_reached"]  # no next turn
    assert events[-1] == TargetReached(0, 37, 35)
    assert state.phase is Phase.FINAL_REVEAL and state.ended_by == 0
    assert state.history[-1].ended_game
    refused(state, Loot(), "every player now reveals")
    refused(state, Run((Card.of(1),)), "every player now reveals")


def test_thirty_four_does_not_end_the_game():
    state = with_cards(near_the_end(Anna=30), Anna=1)
    state = play(state, Run((Card.of(1, 2, 3),)))
    assert state.scores[0] == 33 and state.phase is Phase.PLAYING
    state = play(near_the_end(Anna=31), Correction(0, 3, "fix"))
    assert state.scores[0] == 34 and state.phase is Phase.PLAYING


def test_six_players_end_at_thirty():
    state = with_cards(near_the_end(6, Anna=28), Anna=1)
    state = play(state, Run((Card.of(1, 2),)))
    assert state.scores[0] == 30 and state.phase is Phase.FINAL_REVEAL


def test_an_escape_can_end_the_game_for_the_target():
    state = with_cards(near_the_end(Ben=33), Anna=1, Ben=1)
    state = play(state, Awaken(1, (Card.of(4, 5),)))
    assert state.phase is Phase.FINAL_REVEAL and state.ended_by == 1


def test_a_mummy_benefit_that_reaches_the_target_ends_the_game_before_the_other_benefits():
    """Decision: 'as soon as' a player reaches the target: the Werewolf and Frank lapse."""
    state = with_cards(near_the_end(Anna=33), Anna=1, Ben=3)
    cards = (
        Card.of(1, 1, guardian=MUMMY),
        Card.of(2, guardian=WEREWOLF),
        Card.of(3, guardian=FRANK),
    )
    state, events = events_of(state, Awaken(1, cards))
    assert kinds(events) == ["awakened", "caught", "mummy_benefit", "target_reached"]
    assert state.phase is Phase.FINAL_REVEAL and state.scores[0] == 37
    assert state.history[-1].benefits == (MUMMY,) and state.history[-1].ended_game


def test_final_reveal_scores_every_players_remaining_cards_as_a_run():
    """All players reveal and score their remaining cards (as a Run, doubling included)."""
    state = with_cards(near_the_end(Anna=34, Ben=20, Cleo=25), Anna=1, Ben=2, Cleo=1)
    state = play(state, Run((Card.of(1),)))  # Anna reaches 35
    refused(state, FinalReveal(1, (Card.of(1, 2, 3, 4),)), "Ben's card 1")
    state, events = events_of(state, FinalReveal(1, (Card.of(2, 2), Card.of(2, 6))))
    assert state.scores == (35, 27, 25)  # type 2: 3 symbols on 2 cards -> 6, type 6 -> 1
    assert state.hands[1] == 0 and state.revealed == (False, True, False)
    refused(state, FinalReveal(1, ()), "Ben has already revealed")
    state = play(state, FinalReveal(0, ()))
    assert state.phase is Phase.FINAL_REVEAL
    state, events = events_of(state, FinalReveal(2, (Card.of(3, 3, 3),)))
    assert state.phase is Phase.GAME_OVER
    assert state.scores == (35, 27, 28)
    assert events[-1] == GameOver((0,), (35, 27, 28))
    assert state.winners == (0,)
    refused(state, FinalReveal(2, ()), "the game is over")
    refused(state, Loot(), "the game is over")


def test_the_final_reveal_can_overtake_the_player_who_ended_the_game():
    """The player with the most points wins, not the one who reached the target."""
    state = with_cards(near_the_end(Anna=34, Ben=30), Anna=1, Ben=3)
    state = play(state, Run((Card.of(1),)))
    state = play(
        state,
        FinalReveal(0, ()),
        FinalReveal(1, (Card.of(1, 1), Card.of(1), Card.of(2))),
        FinalReveal(2, ()),
    )
    assert state.scores == (35, 37, 0)
    assert state.winners == (1,)


def test_tied_players_share_the_victory():
    """In case of a tie, all tied players share the victory."""
    state = with_cards(near_the_end(Anna=34, Ben=33), Anna=1, Ben=1)
    state = play(state, Run((Card.of(1),)))
    state = play(state, FinalReveal(1, (Card.of(4, 5),)), FinalReveal(0, ()), FinalReveal(2, ()))
    assert state.scores == (35, 35, 0)
    assert state.winners == (0, 1)
    view = localize(table_view(state), "en")
    assert view["winner_names"] == ["Anna", "Ben"]
    assert [p["winner"] for p in view["players"]] == [True, True, False]


def test_final_reveal_before_the_end_is_refused():
    refused(game(3), FinalReveal(0, ()), "when a player reaches 35 points")


# -- corrections --------------------------------------------------------------------


def test_a_correction_moves_a_token_with_a_reason_and_is_not_a_turn():
    state = play(game(3), Loot())
    state = play(state, Correction(2, 5, " forgot a Run "))
    assert state.scores == (0, 0, 5)
    assert state.current == 1 and state.turn == 2  # still Ben's turn 2
    entry = state.history[-1]
    assert (entry.action, entry.player, entry.points, entry.reason, entry.turn) == (
        Action.CORRECTION,
        2,
        5,
        "forgot a Run",
        2,
    )
    state = play(state, Correction(2, -3, "counted twice"))
    assert state.scores == (0, 0, 2)
    assert (
        "Correction for Cleo: -3 points (counted twice)."
        in localize(table_view(state), "en")["history"][-1]["text"]
    )


def test_corrections_are_checked():
    state = near_the_end(Anna=3)
    refused(state, Correction(0, -4, "typo"), "Anna has 3 points", "below 0")
    refused(state, Correction(0, 1, "  "), "Say why")
    refused(state, Correction(0, 0, "nothing"), "changes nothing")
    refused(state, Correction(7, 1, "who?"), "Choose one of the players")
    refused(state, Correction(0, 0, "count", cards=-1), "not negative")


def test_a_correction_can_fix_the_companions_card_count():
    """A draw that was never entered: set the count, then Run is possible."""
    state = game(3)
    refused(state, Run((Card.of(1),)), "correct the card count first")
    state = play(state, Correction(0, 0, "looted without telling", cards=1))
    assert state.hands[0] == 1 and state.current == 0
    assert play(state, Run((Card.of(1),))).scores[0] == 1


def test_a_correction_that_reaches_the_target_ends_the_game():
    state = play(near_the_end(Anna=30), Correction(0, 5, "Run mis-entered"))
    assert state.phase is Phase.FINAL_REVEAL and state.history[-1].ended_game


def test_a_correction_after_the_game_recomputes_the_winners():
    state = with_cards(near_the_end(Anna=34, Ben=33), Anna=1)
    state = play(state, Run((Card.of(1),)), FinalReveal(0, ()), FinalReveal(1, ()))
    state = play(state, FinalReveal(2, ()))
    assert state.winners == (0,)
    state, events = events_of(state, Correction(1, 2, "last reveal mis-entered"))
    assert state.winners == (0, 1)
    assert events[-1] == GameOver((0, 1), (35, 35, 0))


# -- undo ---------------------------------------------------------------------------


def test_undo_takes_back_the_last_action_exactly():
    state = play(awaken_ready(), Loot())
    before = state
    state, events = events_of(state, Run((Card.of(1),)))
    undone, events = events_of(state, Undo())
    assert undone == before
    assert events == [Undone("run")]


def test_undo_with_nothing_to_undo_is_refused():
    refused(game(2), Undo(), "nothing to undo")


def test_repeated_undo_goes_back_to_the_start():
    start = game(3)
    state = play(start, Loot(), Loot(), Correction(0, 2, "x"), Loot())
    state = play(state, Undo(), Undo(), Undo(), Undo())
    assert state == start


def test_undo_back_into_the_werewolf_choice_and_out_of_the_end():
    state = play(awaken_ready(), Awaken(1, (Card.of(1, guardian=WEREWOLF),)))
    keep = play(state, WerewolfKeep(1))
    assert play(keep, Undo()) == state and state.phase is Phase.WEREWOLF_KEEP
    ended = play(near_the_end(Anna=34), Correction(0, 1, "x"))
    assert ended.phase is Phase.FINAL_REVEAL
    assert play(ended, Undo()).phase is Phase.PLAYING


# -- history, chart and views ------------------------------------------------------


def test_every_action_is_recorded_with_player_action_points_and_turn():
    state = play(
        awaken_ready(),
        Loot(),  # Anna, turn 1
        Run((Card.of(1, 2), Card.of(2))),  # Ben, turn 2: type 2 doubled -> 5
        Loot(),  # Cleo, turn 3
        Awaken(2, (Card.of(3, guardian=FRANK),)),  # Anna, turn 4: Cleo caught, Frank
        Loot(),  # Anna's extra turn 5
    )
    rows = [(e.turn, e.player, e.action.value, e.points) for e in state.history]
    assert rows[-5:] == [
        (1, 0, "loot", 0),
        (2, 1, "run", 5),
        (3, 2, "loot", 0),
        (4, 0, "awaken", 0),
        (5, 0, "loot", 0),
    ]
    assert len(state.history) == len(state.commands)
    assert [e.index for e in state.history] == list(range(len(state.history)))
    assert state.history[-1].scores == state.scores


def test_chart_has_a_point_per_turn_and_one_for_the_final_reveal():
    state = with_cards(game(2), Anna=1, Ben=1)
    state = play(state, Run((Card.of(1),)), Run((Card.of(2, 3),)), Correction(0, 34, "x"))
    state = play(state, FinalReveal(0, ()), FinalReveal(1, (Card.of(4),)))
    chart = localize(chart_view(state), "en")
    labels = [p["label"] for p in chart["points"]]
    assert labels == ["start", "turn 1", "turn 2", "turn 3", "final reveal"]
    assert chart["points"][1]["scores"] == [1, 0]
    assert chart["points"][-1]["scores"] == [35, 3]


def test_the_table_view_is_json_safe_and_says_what_may_be_done():
    state = play(awaken_ready(), Awaken(1, (Card.of(1, guardian=WEREWOLF),)))
    view = localize(table_view(state), "en")
    assert json.loads(json.dumps(view)) == view
    assert view["phase"] == "werewolf_keep"
    assert view["current_name"] == "Anna"
    assert view["actions"]["werewolf_keep"] == [0, 1, 2]
    assert view["actions"]["loot"] is False and view["actions"]["awaken"] == []
    assert view["target"] == 35 and view["players"][1]["cards"] == 0


def test_events_and_previews_are_json_safe():
    cards = (Card.of(1, 1, guardian=MUMMY), Card.of(1, amulets=1), Card.of(2, guardian=FRANK))
    _, events = events_of(awaken_ready(), Awaken(1, cards))
    data = localize(events_view(events), "en")
    assert json.loads(json.dumps(data)) == data
    assert data[1] == {"kind": "caught", "target": 1, "benefits": ["mummy", "frank"]}
    preview = localize(outcome_view(awaken_outcome(cards)), "en")
    assert preview["escaped"] is False and preview["run"]["points"] == 7


# -- records (JSON) ------------------------------------------------------------------


def test_a_record_replays_to_the_same_state():
    state = play(
        awaken_ready(),
        Awaken(1, (Card.of(1, guardian=WEREWOLF, colour=RoomColour.RED),)),
        WerewolfKeep(2, player=0),
        Loot(),
    )
    text = write_record(state.setup, state.commands)
    assert read_record(text) == state


def test_bad_records_and_commands_name_the_problem():
    with pytest.raises(FormatError, match='unknown key "colour"'):
        command_from_json({"cmd": "loot", "colour": 1})
    with pytest.raises(FormatError, match='"cmd" one of'):
        command_from_json({"cmd": "jump"})
    with pytest.raises(FormatError, match="6 types"):
        command_from_json({"cmd": "run", "cards": [{"treasures": [1, 2]}]})
    setup_line = write_record(game(2).setup, [])
    with pytest.raises(FormatError, match="line 2: Anna has no cards"):
        read_record(setup_line + '{"cmd": "run", "cards": [{"treasures": [1,0,0,0,0,0]}]}\n')


# -- properties ---------------------------------------------------------------------

cards_st = st.builds(
    lambda symbols, amulets, guardian: Card.of(*symbols, amulets=amulets, guardian=guardian),
    st.lists(st.integers(1, 6), min_size=1, max_size=3),
    st.integers(0, 2),
    st.none() | st.sampled_from(list(Guardian)),
)
reveal_st = st.lists(cards_st, min_size=0, max_size=6).map(tuple)


@given(st.lists(cards_st, max_size=12))
def test_a_run_scores_at_least_its_symbols_and_never_more_than_twice(cards):
    score = run_score(cards)
    symbols = sum(c.symbols for c in cards)
    assert score.symbols == symbols
    assert symbols <= score.points <= 2 * symbols
    for t in score.types:
        assert t.points in (t.symbols, 2 * t.symbols)
        assert t.doubled == (t.cards >= 2)


@given(st.lists(cards_st, max_size=8), cards_st, st.randoms(use_true_random=False))
def test_a_run_does_not_depend_on_card_order_and_more_cards_never_score_less(cards, extra, rnd):
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert run_score(shuffled) == run_score(cards)
    assert run_score([*cards, extra]).points >= run_score(cards).points


def command_st(players: int) -> st.SearchStrategy[Command]:
    """Any command, sensible or not (for fuzzing)."""
    who = st.integers(-1, players)
    return st.one_of(
        st.builds(Loot, st.none() | who),
        st.builds(Run, reveal_st),
        st.builds(Awaken, who, reveal_st),
        st.builds(WerewolfKeep, st.integers(-1, 3)),
        st.builds(
            Correction,
            who,
            st.integers(-10, 10),
            st.sampled_from(["typo", "", "fix"]),
            st.none() | st.integers(-1, 4),
        ),
        st.builds(FinalReveal, who, reveal_st),
        st.just(Undo()),
    )


@st.composite
def sensible_command(draw: st.DrawFn, state: State) -> Command:
    """A command that is usually accepted, so games get to their end."""
    n = len(state.players)
    me = state.current
    if state.phase is Phase.WEREWOLF_KEEP:
        return WerewolfKeep(draw(st.integers(0, 2)))
    if state.phase is Phase.FINAL_REVEAL:
        waiting = [p for p in range(n) if not state.revealed[p]]
        p = draw(st.sampled_from(waiting))
        return FinalReveal(p, draw(st.lists(cards_st, max_size=state.hands[p]).map(tuple)))
    choice = draw(st.sampled_from(["loot", "loot", "run", "awaken", "awaken", "fix", "undo"]))
    if choice == "run" and state.hands[me]:
        size = state.hands[me]
        return Run(draw(st.lists(cards_st, min_size=size, max_size=size).map(tuple)))
    if choice == "awaken":
        targets = [p for p in awaken_targets(state) if state.hands[p]]
        if targets:
            t = draw(st.sampled_from(targets))
            size = state.hands[t]
            return Awaken(t, draw(st.lists(cards_st, min_size=size, max_size=size).map(tuple)))
    if choice == "fix":
        return Correction(draw(st.integers(0, n - 1)), draw(st.integers(1, 4)), "fix")
    if choice == "undo" and state.commands:
        return Undo()
    return Loot()


@st.composite
def played_game(draw: st.DrawFn) -> State:
    state = game(draw(st.integers(2, 6)), first=0)
    for _ in range(draw(st.integers(0, 80))):
        if state.is_over:
            break
        state = play(state, draw(sensible_command(state)))
    return state


PROPERTY = settings(max_examples=150, deadline=None)


@PROPERTY
@given(st.data())
def test_undo_after_any_action_returns_exactly_the_previous_state(data):
    state = data.draw(played_game())
    command = data.draw(sensible_command(state) if not state.is_over else st.just(Undo()))
    try:
        after, _ = apply(state, command)
    except RuleError:
        return
    if isinstance(command, Undo):
        return
    assert apply(after, Undo())[0] == state


@PROPERTY
@given(st.data())
def test_scores_never_decrease_except_by_correction_or_undo(data):
    state = game(data.draw(st.integers(2, 6)))
    for _ in range(data.draw(st.integers(1, 80))):
        if state.is_over:
            break
        command = data.draw(sensible_command(state))
        after, _ = apply(state, command)
        if not isinstance(command, Correction | Undo):
            assert all(a >= b for a, b in zip(after.scores, state.scores, strict=True))
        state = after


@PROPERTY
@given(played_game())
def test_a_game_is_its_commands_replayed_and_its_history_adds_up(state):
    assert replay(state.setup, state.commands) == state
    assert read_record(write_record(state.setup, state.commands)) == state
    assert len(state.history) == len(state.commands)
    totals = [0] * len(state.players)
    for entry in state.history:
        for g in entry.gains:
            totals[g.player] += g.points
        assert list(entry.scores) == totals
    assert tuple(totals) == state.scores
    assert all(s >= 0 for s in state.scores) and all(h >= 0 for h in state.hands)
    if state.phase is Phase.PLAYING:
        assert max(state.scores) < state.target
    if state.is_over:
        best = max(state.scores)
        assert state.winners == tuple(i for i, s in enumerate(state.scores) if s == best)
    view = localize(table_view(state), "en")
    assert json.loads(json.dumps(view)) == view
    for c in state.commands:
        assert command_from_json(json.loads(json.dumps(command_to_json(c)))) == c


@PROPERTY
@given(st.data())
def test_refused_commands_change_nothing_and_explain_themselves(data):
    state = data.draw(played_game())
    command = data.draw(command_st(len(state.players)))
    before = copy.deepcopy(state)
    try:
        apply(state, command)
    except RuleError as e:
        message = str(e)
        assert message[:1].isupper() and message.endswith((".", "!")), message
        assert "Traceback" not in message and "None" not in message
    assert state == before
