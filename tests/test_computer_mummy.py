"""The computer mummy plays fair (its decisions depend on the mummy's view and events
only), and the deduction aid never knows more than the mummy may."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.mummy.belief import Belief
from companion.games.mummy.commands import Command, Move
from companion.games.mummy.computer import ComputerMummy, Level, computer_seed
from companion.games.mummy.engine import RuleError, apply, new_game
from companion.games.mummy.events import FigureMoved
from companion.games.mummy.maze import mask_cells
from companion.games.mummy.moves import destinations_mask
from companion.games.mummy.players import RandomSeekerBot
from companion.games.mummy.simulate import setup_for
from companion.games.mummy.state import Options, Phase, Setup, State
from companion.games.mummy.views import mummy_view, visible_events


def _computer(setup: Setup, level: Level) -> ComputerMummy:
    return ComputerMummy(
        setup.maze,
        tuple(tuple(c.value for c in figs) for figs in setup.seekers),
        level,
        seed=computer_seed(setup.seed),
        exactly=setup.options.mummy_moves_exactly,
    )


def _twin_games(setup: Setup, level: Level, pick: int, commands: int = 400):
    """Two games that give the mummy the same view and events but, where a move has a
    choice, put the seekers on different cells: the computer mummies must decide alike.
    Yields how many mummy decisions were compared and how many seeker moves differed."""
    a, events_a = new_game(setup)
    b, events_b = new_game(setup)
    mummy_a, mummy_b = _computer(setup, level), _computer(setup, level)
    aid_a, aid_b = Belief(setup.maze, setup.figure_owner), Belief(setup.maze, setup.figure_owner)
    seekers = RandomSeekerBot(setup.seed)
    decisions = differing = 0
    for _ in range(commands):
        if a.winner is not None:
            break
        view_a, view_b = mummy_view(a), mummy_view(b)
        if view_a != view_b:
            break  # the mummy can tell the games apart from here (a catch in one only)
        if a.is_mummy_turn:
            command_a, command_b = mummy_a.choose(view_a), mummy_b.choose(view_b)
            assert command_a == command_b
            decisions += 1
        else:
            command_a = seekers.choose(a)
            command_b = _other_cell(b, command_a, pick)
            differing += command_a != command_b
        a, events_a = apply(a, command_a)
        try:
            b, events_b = apply(b, command_b)
        except RuleError:
            break
        seen_a, seen_b = visible_events(events_a, "mummy"), visible_events(events_b, "mummy")
        if seen_a != seen_b:
            break
        for mummy, aid, seen, state in ((mummy_a, aid_a, seen_a, a), (mummy_b, aid_b, seen_b, b)):
            mummy.observe(seen)
            aid.learn_view(mummy_view(state))
            aid.observe(seen)
        assert aid_a.possible == aid_b.possible and aid_a.prob == aid_b.prob
    return decisions, differing


def _other_cell(state: State, command: Command, pick: int) -> Command:
    """The same seeker command, but a move to another legal cell when there is one."""
    if not isinstance(command, Move) or state.announced is None:
        return command
    cells = mask_cells(destinations_mask(state, state.figure, state.announced))
    return Move(cells[pick % len(cells)])


@pytest.mark.parametrize("level", list(Level))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), seekers=st.integers(1, 4), pick=st.integers(0, 50))
def test_identical_views_give_identical_decisions(default_maze, level, seed, seekers, pick):
    options = Options(mummy_moves_exactly=seed % 3 == 0)
    decisions, differing = _twin_games(setup_for(default_maze, seekers, seed, options), level, pick)
    assert decisions >= 0 and differing >= 0


def test_the_twin_games_really_differ_and_reach_the_mummy(default_maze):
    """The property above is not empty: seekers stand elsewhere while the mummy decides."""
    total_decisions = total_differing = 0
    for seed in range(6):
        d, m = _twin_games(setup_for(default_maze, 4, seed), Level.HARD, pick=seed + 1)
        total_decisions += d
        total_differing += m
    assert total_decisions > 20
    assert total_differing > 20


def test_the_computer_mummy_refuses_a_secret_event(default_maze):
    setup = setup_for(default_maze, 2, 1)
    mummy = _computer(setup, Level.NORMAL)
    with pytest.raises(ValueError, match="secret"):
        mummy.observe([FigureMoved(0, setup.maze.start_node, 3)])


def test_the_computer_seed_tells_nothing_of_the_game_seed():
    assert computer_seed(7) != 7
    assert computer_seed(7) == computer_seed(7)
    assert computer_seed(7) != computer_seed(8)


def test_the_belief_always_holds_the_true_cell(default_maze):
    """Whatever the seekers do, every figure stands on a cell the aid still shows."""
    for seed in range(80):
        setup = setup_for(default_maze, 1 + seed % 4, seed)
        state, events = new_game(setup)
        belief = Belief(setup.maze, setup.figure_owner)
        mummy = _computer(setup, Level.NORMAL)
        seekers = RandomSeekerBot(seed)
        for _ in range(600):
            if state.winner is not None:
                break
            command = (
                mummy.choose(mummy_view(state)) if state.is_mummy_turn else seekers.choose(state)
            )
            state, events = apply(state, command)
            seen = visible_events(events, "mummy")
            belief.learn_view(mummy_view(state))
            belief.observe(seen)
            mummy.observe(seen)
            if state.phase is Phase.SEEKER_MOVING:
                continue  # announced: the belief is already where the move will end
            for figure, node in enumerate(state.positions):
                if node >= 0:
                    assert (belief.possible[figure] >> node) & 1, (seed, figure, node)


@pytest.mark.parametrize(("level", "looks_ahead"), [("hard", True), ("normal", False)])
def test_the_hard_mummy_looks_ahead_on_the_fast_engine(
    default_maze, monkeypatch, level, looks_ahead
):
    from companion.games.mummy import computer
    from companion.games.mummy.fast import FastGame
    from companion.games.mummy.simulate import mummy_player, play_fast

    games: list[FastGame] = []

    class Counted(FastGame):
        def __init__(self, state: State) -> None:
            games.append(self)
            super().__init__(state)

    monkeypatch.setattr(computer, "FastGame", Counted)
    setup = setup_for(default_maze, 4, 7)
    result = play_fast(setup, mummy_player(level, setup))
    assert result.finished
    assert bool(games) is looks_ahead
    if looks_ahead:  # several sampled worlds for each of its moves
        assert len(games) > 4 * result.state.rounds
