"""The fast simulation path plays exactly like the reference engine: same events after
every command, same final state, same refusals (thousands of random games)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.mummy.commands import (
    Announce,
    Command,
    EndMummyMove,
    EndTurn,
    Move,
    MummyStep,
    PlayCard,
    Resolve,
    Roll,
    RollMummyDie,
)
from companion.games.mummy.dice import SEEKER_DIE_FACES, Face, random_below, roll_seeker_dice
from companion.games.mummy.engine import RuleError, apply, new_game
from companion.games.mummy.fast import FastGame
from companion.games.mummy.players import MummyBot, RandomSeekerBot
from companion.games.mummy.simulate import MAX_COMMANDS, play_fast, play_game, setup_for
from companion.games.mummy.state import Options, State
from companion.games.mummy.views import visible_events

GAMES = 500  # x 4 seeker counts: 2,000 random games


def _both_ways(setup, seeker_seed: int) -> tuple[State, int]:
    state, events = new_game(setup)
    fast = FastGame(state)
    seekers = RandomSeekerBot(seeker_seed)
    mummy = MummyBot(setup)
    mummy.observe(visible_events(events, "mummy"))
    exactly = setup.options.mummy_moves_exactly
    commands = 0
    while state.winner is None and commands < MAX_COMMANDS:
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, exactly)
        else:
            command = seekers.choose(state)
        state, events = apply(state, command)
        assert fast.apply(command) == events
        mummy.observe(visible_events(events, "mummy"))
        commands += 1
    assert fast.freeze() == state
    return state, commands


@pytest.mark.parametrize("seekers", [1, 2, 3, 4])
def test_random_games_give_the_same_events_and_states_on_both_paths(default_maze, seekers):
    finished = 0
    for seed in range(GAMES):
        options = Options(mummy_moves_exactly=seed % 5 == 0)
        state, _ = _both_ways(setup_for(default_maze, seekers, 50_000 + seed, options), seed)
        finished += state.winner is not None
    assert finished >= GAMES - 5  # a random seeker may wander past MAX_COMMANDS


def test_bot_games_are_the_same_on_both_paths(default_maze):
    for seekers in (1, 2, 3, 4):
        for seed in range(25):
            setup = setup_for(default_maze, seekers, seed)
            slow, fast = play_game(setup), play_fast(setup)
            assert slow.commands == fast.commands
            assert slow.state == fast.state


@given(rng=st.integers(0, 2**64 - 1), count=st.integers(0, 5))
def test_a_roll_of_the_white_dice_is_one_random_number_per_die(rng, count):
    """roll_seeker_dice inlines the generator for speed: the faces and the next state
    must be those of one random_below(6) per die, so records replay alike."""
    faces, state = [], rng
    for _ in range(count):
        index, state = random_below(state, 6)
        faces.append(SEEKER_DIE_FACES[index])
    assert roll_seeker_dice(rng, count) == (tuple(faces), state)


_ANY_COMMAND = st.one_of(
    st.just(Resolve()),
    st.just(Roll()),
    st.builds(Roll, st.lists(st.sampled_from(list(Face)), max_size=6).map(tuple)),
    st.builds(Announce, st.sampled_from(list(Face))),
    st.builds(Move, st.integers(-2, 150)),
    st.just(PlayCard()),
    st.just(EndTurn()),
    st.just(RollMummyDie()),
    st.builds(RollMummyDie, st.integers(0, 8)),
    st.builds(MummyStep, st.integers(-2, 150)),
    st.just(EndMummyMove()),
)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), seekers=st.integers(1, 4), noise=st.lists(_ANY_COMMAND))
def test_any_command_is_refused_or_played_alike(default_maze, seed, seekers, noise):
    """Commands from anywhere (mostly illegal) interleaved with a random game: the fast
    path refuses with the engine's message and stays unchanged, or plays alike."""
    setup = setup_for(default_maze, seekers, seed)
    state, _ = new_game(setup)
    fast = FastGame(state)
    seekers_bot = RandomSeekerBot(seed)
    mummy = MummyBot(setup)
    pending: list[Command] = list(noise)
    for _ in range(400):
        if state.winner is not None:
            break
        if pending:
            command = pending.pop()
        elif state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
        else:
            command = seekers_bot.choose(state)
        try:
            state, events = apply(state, command)
        except RuleError as exc:
            with pytest.raises(RuleError) as refused:
                fast.apply(command)
            assert str(refused.value) == str(exc)
            assert fast.freeze() == state
            continue
        assert fast.apply(command) == events
        mummy.observe(visible_events(events, "mummy"))
    assert fast.freeze() == state
