"""The deal from a secret stream of its own (issue 34): the cards are shuffled from a
stream derived one-way from the seed, so the dice that every page shows say nothing of
them; records of version 1 (cards off the dice's stream) replay as they were played."""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.mummy.commands import Roll
from companion.games.mummy.dice import deal_seed, seed_state, shuffled
from companion.games.mummy.engine import apply, make_setup, new_game
from companion.games.mummy.record import replay, setup_from_json, setup_to_json, write_record
from companion.games.mummy.simulate import play_game

COLOURS = ("red", "blue", "turquoise", "violet")


def first_roll(setup):
    state, _ = new_game(setup)
    state, events = apply(state, Roll())
    return state.roll, events


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), seekers=st.integers(1, 4))
def test_the_dice_are_the_same_whatever_the_cards(default_maze, seed, seekers):
    """The dice come from the seed alone: dealt by the companion or by hand, the same
    seed rolls the same dice, so no roll on any page carries a trace of the deal."""
    setup = make_setup(default_maze, COLOURS[:seekers], seed=seed)
    dealt, _ = new_game(setup)
    assert dealt.rng == seed_state(seed)  # dealing took nothing from the dice's stream
    other_hands = tuple(reversed(dealt.hands)) if seekers > 1 else None
    by_hand = replace(setup, hands=other_hands or dealt.hands)
    assert first_roll(setup)[0] == first_roll(by_hand)[0]
    # The deal is the shuffle of the cards' own stream, derived one-way from the seed.
    deal = seed_state(deal_seed(seed))
    stack = tuple(t for t in default_maze.treasures if t.colour is dealt.hands[0][0].colour)
    deck, _ = shuffled(deal, stack)
    assert dealt.hands[0][0] == deck[0]


def test_new_records_are_version_2_and_old_ones_replay_their_old_deal(
    default_maze, default_maze_text
):
    """A new game's record says version 2; a version 1 record (the companion before)
    deals its cards off the dice's stream and replays move for move as it was played."""
    setup = make_setup(default_maze, ("red", "blue"), seed=11)
    data = setup_to_json(setup, default_maze_text)
    assert data["version"] == 2 and setup_from_json(data).own_deal_stream
    old = replace(setup, own_deal_stream=False)
    played = play_game(old)
    old_data = setup_to_json(old, default_maze_text)
    assert old_data["version"] == 1
    again = setup_from_json(json.loads(json.dumps(old_data)))
    assert not again.own_deal_stream
    state, _ = new_game(again)
    for command in played.commands:
        state, _ = apply(state, command)
    assert state == played.state
    # Written out and read back whole, it replays to the same end.
    assert replay(write_record(old, default_maze_text, played.commands)).state == played.state
    # One seed deals differently in the two formats: a new game is no old game's twin.
    seeds = range(20)
    assert any(
        new_game(make_setup(default_maze, ("red", "blue"), seed=s))[0].hands
        != new_game(
            replace(make_setup(default_maze, ("red", "blue"), seed=s), own_deal_stream=False)
        )[0].hands
        for s in seeds
    )
