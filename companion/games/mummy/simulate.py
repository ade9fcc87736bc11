"""Self-play: complete games between the automatic players, and their statistics."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .commands import Command, EndMummyMove, MummyStep, RollMummyDie
from .computer import ComputerMummy, Level, computer_seed
from .engine import apply, new_game
from .events import (
    Announced,
    CardPlayed,
    Event,
    MummyMoved,
    MummyMoveStarted,
    SeekerCaught,
    SeekerOut,
)
from .fast import FastGame
from .maze import Maze
from .players import MummyBot, SeekerBot
from .state import FigureColour, Options, Phase, Setup, State
from .views import mummy_view, visible_events

#: Safety stop: a game longer than this many commands is reported as unfinished.
MAX_COMMANDS = 20_000
SEEKER_COLOURS = tuple(FigureColour)


@dataclass(frozen=True)
class GameResult:
    state: State
    commands: tuple[Command, ...]

    @property
    def mummy_won(self) -> bool:
        return self.state.winner is not None and self.state.winner.is_mummy

    @property
    def finished(self) -> bool:
        return self.state.winner is not None


def setup_for(maze: Maze, seekers: int, seed: int, options: Options | None = None) -> Setup:
    """A setup with ``seekers`` seekers (1 means the two-player game with two figures)."""
    if not 1 <= seekers <= 4:
        raise ValueError("seekers must be 1 to 4")
    figures = SEEKER_COLOURS[:2] if seekers == 1 else SEEKER_COLOURS[:seekers]
    groups = (figures,) if seekers == 1 else tuple((c,) for c in figures)
    return Setup(maze=maze, seekers=groups, seed=seed, options=options or Options())


def play_game(
    setup: Setup,
    *,
    seeker: Callable[[State], Command] | None = None,
    check: Callable[[State], None] | None = None,
) -> GameResult:
    """Play one complete game with the reference engine; ``check`` is called on every
    state (for invariants)."""
    state, events = new_game(setup)
    seeker_choose = seeker or SeekerBot(setup.maze).choose
    mummy = MummyBot(setup)
    mummy.observe(visible_events(events, "mummy"))
    exactly = setup.options.mummy_moves_exactly
    commands: list[Command] = []
    while state.winner is None and len(commands) < MAX_COMMANDS:
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, exactly)
        else:
            command = seeker_choose(state)
        state, events = apply(state, command)
        commands.append(command)
        mummy.observe(visible_events(events, "mummy"))
        if check is not None:
            check(state)
    return GameResult(state, tuple(commands))


def play_fast(setup: Setup, mummy: MummyPlayer | None = None) -> GameResult:
    """Play one complete game on the fast path (``fast.FastGame``) between the seeker
    bots and ``mummy`` (default: the self-play :class:`MummyBot`)."""
    state, events = new_game(setup)
    game = FastGame(state)
    seeker_choose = SeekerBot(setup.maze).choose
    player = mummy or BotMummy(setup)
    player.observe(events)
    commands: list[Command] = []
    append, decide, observe, play = commands.append, player.decide, player.observe, game.apply
    mummy_roll, mummy_moving, game_over = Phase.MUMMY_ROLL, Phase.MUMMY_MOVING, Phase.GAME_OVER
    for _ in range(MAX_COMMANDS):
        phase = game.phase
        if phase is game_over:
            break
        mummys = phase is mummy_moving or phase is mummy_roll
        command = decide(game) if mummys else seeker_choose(game)
        append(command)
        observe(play(command))
    return GameResult(game.freeze(), tuple(commands))


class MummyPlayer(Protocol):
    """A mummy in self-play: told every event (it keeps only what it may see), asked
    for a command on its turns."""

    def observe(self, events: list[Event]) -> None: ...

    def decide(self, game: FastGame) -> Command: ...


class ComputerPlayer:
    """The computer mummy in self-play: it is handed the mummy's view and events only."""

    def __init__(self, setup: Setup, level: Level) -> None:
        self.computer = ComputerMummy(
            setup.maze,
            tuple(tuple(c.value for c in figs) for figs in setup.seekers),
            level,
            seed=computer_seed(setup.seed),
            exactly=setup.options.mummy_moves_exactly,
        )

    def observe(self, events: list[Event]) -> None:
        self.computer.observe(visible_events(events, "mummy"))

    def decide(self, game: FastGame) -> Command:
        return self.computer.choose(self.view(game))

    @staticmethod
    def view(game: FastGame) -> dict[str, Any]:
        """What the mummy's page would receive now."""
        return mummy_view(game.freeze())


class OmniscientMummy:
    """The upper-bound reference: it sees every figure and hunts the nearest one.
    Never offered at the table."""

    def __init__(self, setup: Setup) -> None:
        self.maze = setup.maze
        self.exactly = setup.options.mummy_moves_exactly

    def observe(self, events: list[Event]) -> None:
        """It needs no events: it reads the game."""

    def decide(self, game: FastGame) -> Command:
        if game.phase is Phase.MUMMY_ROLL:
            return RollMummyDie()
        maze = self.maze
        mummy = game.mummy
        seekers = [p for p in game.positions if 0 <= p < maze.cell_count]
        if maze.is_cell(mummy):
            firsts = maze.adjacent[mummy]
        else:
            firsts = tuple(o.cell for o in maze.openings(mummy))
        best: tuple[int, int] | None = None
        for target in seekers:
            dist = maze.distances_from(target)
            for first in firsts:
                if dist[first] >= 0 and (best is None or dist[first] < best[0]):
                    best = (dist[first], first)
        if best is None:
            return EndMummyMove() if not self.exactly else MummyStep(firsts[0])
        return MummyStep(best[1])


#: The mummies ``companion simulate --mummy`` can put against the seeker bots.
MUMMIES = ("easy", "normal", "hard", "bot", "omniscient")


def mummy_player(kind: str, setup: Setup) -> MummyPlayer:
    """A self-play mummy by name (see MUMMIES)."""
    if kind == "bot":
        return BotMummy(setup)
    if kind == "omniscient":
        return OmniscientMummy(setup)
    return ComputerPlayer(setup, Level(kind))


#: The events the self-play MummyBot learns from.
LEARNED = frozenset({Announced, CardPlayed, SeekerCaught, SeekerOut, MummyMoved, MummyMoveStarted})


class BotMummy:
    """The self-play :class:`MummyBot`, fed the mummy's events and its own move only."""

    def __init__(self, setup: Setup) -> None:
        self.bot = MummyBot(setup)
        self.exactly = setup.options.mummy_moves_exactly

    def observe(self, events: list[Event]) -> None:
        # Only the kinds of event the bot learns from (none of them secret).
        learn = self.bot.learn
        for event in events:
            if type(event) in LEARNED:
                learn(event)

    def decide(self, game: FastGame) -> Command:
        return self.bot.choose(game.phase, game.mummy, game.steps_left, self.exactly)


def simulate(
    maze: Maze,
    seekers: int,
    games: int,
    *,
    seed: int = 0,
    mummy: str = "bot",
    options: Options | None = None,
) -> tuple[Summary, float]:
    """Play ``games`` games (seeds ``seed``, ``seed + 1``, ...) on the fast path between
    the seeker bots and ``mummy`` (see MUMMIES): their summary and the seconds they took."""
    setups = (setup_for(maze, seekers, seed + i, options) for i in range(games))
    started = time.perf_counter()
    summary = summarise((play_fast(s, mummy_player(mummy, s)) for s in setups), seekers)
    return summary, time.perf_counter() - started


@dataclass(frozen=True)
class Summary:
    games: int
    seekers: int
    mummy_wins: int
    seeker_wins: int
    unfinished: int
    mean_rounds: float
    mean_commands: float

    def mummy_rate(self) -> tuple[float, float, float]:
        """The mummy's win rate with its 95 % confidence interval (Wilson score)."""
        return wilson(self.mummy_wins, self.games)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float, float]:
    """A rate and its Wilson score interval: (rate, low, high)."""
    if games == 0:
        return 0.0, 0.0, 1.0
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * ((rate * (1 - rate) / games + z * z / (4 * games * games)) ** 0.5)
    half /= 1 + z * z / games
    return rate, max(0.0, centre - half), min(1.0, centre + half)


def summarise(results: Iterable[GameResult], seekers: int) -> Summary:
    """Count the games as they come: a long simulation keeps no finished game."""
    games = mummy_wins = seeker_wins = rounds = commands = 0
    for result in results:
        games += 1
        if result.mummy_won:
            mummy_wins += 1
        elif result.finished:
            seeker_wins += 1
        rounds += result.state.rounds
        commands += len(result.commands)
    n = games or 1
    return Summary(
        games=games,
        seekers=seekers,
        mummy_wins=mummy_wins,
        seeker_wins=seeker_wins,
        unfinished=games - mummy_wins - seeker_wins,
        mean_rounds=rounds / n,
        mean_commands=commands / n,
    )


#: Column headings of the win table.
HEADINGS = {"bot": "bot (baseline)", "omniscient": "omniscient (reference)"}
COMPARED = ("hard", "bot", "omniscient")


def win_table(
    cells: dict[tuple[int, str], Summary], seekers: Sequence[int], mummies: Sequence[str]
) -> list[str]:
    """Each mummy's win rate for each seeker count (every pair in ``cells``), side by side
    as a Markdown table (the one in docs/computer-mummy.md); hard is set against the bot
    and the omniscient reference when all three were played."""
    compare = set(COMPARED) <= set(mummies)
    head = ["seekers", *(HEADINGS.get(m, m) for m in mummies)]
    if compare:
        head += ["hard - bot", "share of the bot-to-omniscient gap hard closes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k in seekers:
        row = [str(k)]
        for m in mummies:
            rate, low, high = cells[k, m].mummy_rate()
            row.append(f"{100 * rate:.1f} % ({100 * low:.1f}-{100 * high:.1f})")
        if compare:
            hard, bot, omni = (cells[k, m].mummy_rate()[0] for m in COMPARED)
            row.append(f"{100 * (hard - bot):+.1f} points")
            row.append(f"{100 * (hard - bot) / (omni - bot):.0f} %" if omni > bot else "-")
        lines.append("| " + " | ".join(row) + " |")
    return lines
