"""Random self-play: thousands of complete games without an exception or a broken invariant."""

from __future__ import annotations

import pytest

from companion.games.mummy.players import RandomSeekerBot
from companion.games.mummy.simulate import play_game, setup_for, summarise
from companion.games.mummy.state import Options
from tests.invariants import check_invariants

GAMES_PER_KIND = 2_500  # x 4 seeker counts = 10,000 games


@pytest.mark.parametrize("seekers", [1, 2, 3, 4])
def test_thousands_of_bot_games_finish_with_every_invariant_kept(default_maze, seekers):
    results = []
    for seed in range(GAMES_PER_KIND):
        check = check_invariants if seed % 25 == 0 else None
        options = Options(mummy_moves_exactly=seed % 7 == 0)
        results.append(play_game(setup_for(default_maze, seekers, seed, options), check=check))
    for result in results:
        check_invariants(result.state)
    summary = summarise(results, seekers)
    assert summary.unfinished == 0
    # Both sides must be able to win: a game nobody can win (or lose) is broken.
    assert summary.mummy_wins > 0
    assert summary.seeker_wins > 0


@pytest.mark.parametrize("seekers", [1, 2, 3, 4])
def test_random_seekers_keep_every_invariant_at_every_step(default_maze, seekers):
    for seed in range(150):
        bot = RandomSeekerBot(seed)
        result = play_game(
            setup_for(default_maze, seekers, 10_000 + seed),
            seeker=bot.choose,
            check=check_invariants,
        )
        assert result.finished


def test_same_seed_same_game(default_maze):
    a = play_game(setup_for(default_maze, 4, 42))
    b = play_game(setup_for(default_maze, 4, 42))
    c = play_game(setup_for(default_maze, 4, 43))
    assert a.commands == b.commands and a.state == b.state
    assert a.commands != c.commands
