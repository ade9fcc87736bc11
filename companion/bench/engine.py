"""``companion bench --only engine``: the rules engine and the computer mummy.

Legal-destination queries against a plain breadth-first reference, complete self-play
games (on ``engine.apply`` and on the fast path), and how long each level of the
computer mummy thinks per decision.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from companion.bench.figures import Figure, percentile
from companion.games.mummy.maze import DIRECTIONS

#: Targets from the issue, printed with the figures.
TARGETS = {
    "engine.legal_destinations_per_s": "at least 5x the reference",
    "engine.fast_games_per_s": "at least 500 games/s",
    "mummy.think_p99.easy": "within 200 ms",
    "mummy.think_p99.normal": "within 200 ms",
    "mummy.think_p99.hard": "within 200 ms",
}


def _timed(run: Callable[[], None]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def reference_destinations(state: Any, figure: int, steps: int) -> set[int]:
    """Breadth-first search over (cell, steps taken): the plain way to answer the query."""
    maze = state.maze
    others = {p for f, p in enumerate(state.positions) if f != figure and maze.is_cell(p)}
    start = state.positions[figure]
    seen: set[tuple[int, int]] = set()
    queue: list[tuple[int, int]] = []
    if maze.is_cell(start):
        queue.append((start, 0))
    else:
        queue += [(o.cell, 1) for o in maze.openings(start) if o.cell != state.mummy]
    ends = set()
    while queue:
        cell, taken = queue.pop(0)
        if (cell, taken) in seen:
            continue
        seen.add((cell, taken))
        if taken == steps:
            if cell not in others:
                ends.add(cell)
            continue
        for d in DIRECTIONS:
            nxt = maze.neighbour(cell, d)
            if nxt is not None and nxt != state.mummy:
                queue.append((nxt, taken + 1))
    return ends


def bench_engine(quick: bool) -> list[Figure]:
    from companion.games.mummy.dice import NUMBER_FACES
    from companion.games.mummy.engine import apply, new_game
    from companion.games.mummy.moves import legal_destinations
    from companion.games.mummy.players import MummyBot, RandomSeekerBot
    from companion.games.mummy.simulate import play_fast, play_game, setup_for, simulate
    from companion.games.mummy.views import visible_events
    from companion.mazes import load_maze

    maze, _ = load_maze(None)
    states = []  # positions from the middle of random games

    for seed in range(10 if quick else 40):
        state, events = new_game(setup_for(maze, 4, seed))
        bot, mummy = RandomSeekerBot(seed), MummyBot(state.setup)
        for i in range(200):
            if state.is_over:
                break
            command = (
                mummy.choose(state.phase, state.mummy, state.steps_left, False)
                if state.is_mummy_turn
                else bot.choose(state)
            )
            state, events = apply(state, command)
            mummy.observe(visible_events(events, "mummy"))
            if i % 20 == 0:
                states.append(state)
    queries = [(s, f, face) for s in states for f in range(4) for face in NUMBER_FACES]

    def fast_pass() -> None:
        for state, figure, face in queries:
            legal_destinations(state, figure, face)

    def reference_pass() -> None:
        for state, figure, face in queries:
            reference_destinations(state, figure, int(face))

    # Alternate the two and keep each one's best pass, so that a noisy moment on the
    # machine does not land on one side of the ratio only.
    fast_best = slow_best = float("inf")
    for _ in range(2 if quick else 5):
        fast_best = min(fast_best, _timed(fast_pass))
        slow_best = min(slow_best, _timed(reference_pass))
    fast = len(queries) / fast_best
    slow = len(queries) / slow_best
    games = 20 if quick else 200
    started = time.perf_counter()
    for seed in range(games):
        play_game(setup_for(maze, 4, seed))
    games_per_s = games / (time.perf_counter() - started)
    _, seconds = simulate(maze, 4, games)  # as `companion simulate` measures it
    fast_games_per_s = games / seconds
    played = [play_fast(setup_for(maze, 4, seed)) for seed in range(games)]
    replay_apply, replay_fast = _replay_rates(played)
    return [
        Figure(
            "engine.legal_destinations_per_s",
            fast,
            "queries/s",
            slow,
            "breadth-first reference",
        ),
        Figure("engine.self_play_games_per_s", games_per_s, "games/s", note="4 seekers, bots"),
        Figure(
            "engine.fast_games_per_s",
            fast_games_per_s,
            "games/s",
            games_per_s,
            "the same games on engine.apply",
            note="4 seekers, bots, fast path",
        ),
        Figure(
            "engine.fast_replay_games_per_s",
            replay_fast,
            "games/s",
            replay_apply,
            "the same commands on engine.apply",
            note="the engine alone: recorded 4-seeker games played again",
        ),
        *bench_think_time(quick),
    ]


def _replay_rates(played: list[Any]) -> tuple[float, float]:
    """Games a second when only the engine works: each game's commands played again on
    ``engine.apply`` and on the fast path."""
    from companion.games.mummy.engine import apply, new_game
    from companion.games.mummy.fast import FastGame

    started = time.perf_counter()
    for result in played:
        state, _ = new_game(result.state.setup)
        for command in result.commands:
            state, _ = apply(state, command)
    slow = len(played) / (time.perf_counter() - started)
    started = time.perf_counter()
    for result in played:
        game = FastGame(new_game(result.state.setup)[0])
        for command in result.commands:
            game.apply(command)
    fast = len(played) / (time.perf_counter() - started)
    return slow, fast


def bench_think_time(quick: bool) -> list[Figure]:
    """How long each level of the computer mummy thinks per decision (one core)."""
    from companion.games.mummy.computer import Level
    from companion.games.mummy.simulate import ComputerPlayer, play_fast, setup_for
    from companion.mazes import load_maze

    maze, _ = load_maze(None)
    figures = []
    for level in Level:
        times: list[float] = []
        learning: list[float] = []
        for seed in range(3 if quick else 20):
            setup = setup_for(maze, 4, 70_000 + seed)
            player = ComputerPlayer(setup, level)
            timed = _TimedDecisions(player, times, learning)
            play_fast(setup, timed)
        figures.append(
            Figure(
                f"mummy.learn_p99.{level.value}",
                percentile(learning, 99) * 1000,
                "ms",
                note="taking in one command's events (on the seekers' turns)",
            )
        )
        figures.append(
            Figure(
                f"mummy.think_p99.{level.value}",
                percentile(times, 99) * 1000,
                "ms",
                note=f"{len(times)} decisions, 4 seekers, "
                f"mean {1000 * sum(times) / len(times):.2f} ms",
            )
        )
    return figures


class _TimedDecisions:
    """A self-play mummy that notes how long each of its decisions took."""

    def __init__(self, player: Any, times: list[float], learning: list[float]) -> None:
        self.player = player
        self.times = times
        self.learning = learning

    def observe(self, events: Any) -> None:
        started = time.perf_counter()
        self.player.observe(events)
        self.learning.append(time.perf_counter() - started)

    def decide(self, game: Any) -> Any:
        view = self.player.view(game)
        started = time.perf_counter()
        command = self.player.computer.choose(view)
        self.times.append(time.perf_counter() - started)
        return command


def bench_think_decisions(level: str, quick: bool) -> list[float]:
    """Every decision time (s) of one level of the computer mummy over a few games."""
    from companion.games.mummy.computer import Level
    from companion.games.mummy.simulate import ComputerPlayer, play_fast, setup_for
    from companion.mazes import load_maze

    maze, _ = load_maze(None)
    times: list[float] = []
    for seed in range(3 if quick else 20):
        setup = setup_for(maze, 4, 70_000 + seed)
        play_fast(setup, _TimedDecisions(ComputerPlayer(setup, Level(level)), times, []))
    return times
