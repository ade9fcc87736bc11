"""The computer mummy: plays the mummy's seat from what the mummy's page receives.

Its only inputs are the mummy's view (``views.mummy_view``, a JSON-safe dict) and the
mummy's event stream (``views.visible_events(..., "mummy")``); it is never given a
:class:`State`, and refuses an event the mummy may not see.  Levels:

- ``easy``: every cell a figure could reach is as likely as any other; it picks one of
  its three best plans at random.
- ``normal``: seekers are assumed to head for the treasures of the colours they still
  hold and to keep away from the mummy; it plays the step sequence that most likely
  catches someone, or else ends nearest to where the seekers probably are.
- ``hard``: takes normal's best plans and looks ahead on the fast engine: it samples
  seeker positions and hands from its belief, plays each plan and the seekers' likely
  answers (the seeker bots), and keeps the plan with the best expected outcome.

Its randomness comes from a seed the caller derives from the game's seed (never the
game's seed itself, which deals the cards), so its choices replay exactly.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from .belief import Belief
from .commands import Command, EndMummyMove, MummyStep, RollMummyDie
from .dice import next_random
from .engine import RuleError
from .events import (
    Event,
    MummyMoved,
    MummyMoveStarted,
    Resolved,
    SeekerCaught,
    TurnLost,
    TurnStarted,
)
from .fast import FastGame
from .maze import Colour, Maze, Treasure
from .particles import Guesses
from .players import SeekerBot
from .state import FigureColour, MummyMoveKind, Options, Phase, Setup, State

_MASK64 = (1 << 64) - 1

#: The mummy's view as its page receives it: JSON-safe data, no game state.
MummySight = Mapping[str, Any]


class Level(enum.Enum):
    """How well the computer mummy plays."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


#: How sharply seekers are assumed to head for their treasures (normal and hard).
AIM = 0.5
#: Paths the plan search may look at per decision (keeps think time bounded).
MAX_PATHS = 3000
#: Hard: how many of normal's best plans it looks ahead on, over how many sampled worlds.
HARD_PLANS = 4
HARD_WORLDS = 6
#: Commands a look-ahead may play before the mummy's next turn (a safety stop).
LOOKAHEAD_COMMANDS = 120


def computer_seed(game_seed: int) -> int:
    """The computer mummy's seed from the game's seed, one-way: it learns nothing of the
    dealt cards or the coming dice from it."""
    digest = hashlib.blake2b(game_seed.to_bytes(16, "little", signed=True), person=b"mummy-ai")
    return int.from_bytes(digest.digest()[:8], "little")


class ComputerMummy:
    """A computer player for the mummy's seat; see the module docstring."""

    def __init__(
        self,
        maze: Maze,
        figures: tuple[tuple[str, ...], ...],
        level: Level,
        *,
        seed: int,
        exactly: bool = False,
    ) -> None:
        """``figures``: each seeker's figure colours in turn order (as the view lists them)."""
        self.maze = maze
        self.level = level
        self.seed = seed & _MASK64
        self.exactly = exactly
        self.owner = tuple(i for i, figs in enumerate(figures) for _ in figs)
        self.belief = Belief(maze, self.owner, aim=0.0 if level is Level.EASY else AIM)
        self._setup = Setup(
            maze=maze,
            seekers=tuple(tuple(FigureColour(c) for c in figs) for figs in figures),
            options=Options(mummy_moves_exactly=exactly),
        )
        #: Hard also guesses each seeker's cards (see particles.py).
        self.guesses = Guesses(maze, self.owner, self.seed) if level is Level.HARD else None
        self._seen = 0
        self._plan: list[int] = []
        self._planned = False
        self._figure = 0
        self._forced = False

    # -- the mummy's inputs -------------------------------------------------------------

    def observe(self, events: Iterable[Event]) -> None:
        """The mummy's events, in order (each command's visible events)."""
        events = list(events)
        self.belief.observe(events)  # refuses a secret event
        if self.guesses is not None:
            self.guesses.observe(events)
        for event in events:
            self._seen += 1
            if isinstance(event, TurnStarted):
                self._figure = event.figure
            elif isinstance(event, TurnLost):
                self._forced = True
            elif isinstance(event, Resolved):
                self._figure = event.figure
                self._forced = self._forced and not event.forced
            elif isinstance(event, MummyMoveStarted):
                self._plan, self._planned = [], False
            elif isinstance(event, MummyMoved):
                if self._plan and self._plan[0] == event.to:
                    self._plan.pop(0)
                else:  # someone else moved the mummy: plan again from where it is
                    self._plan, self._planned = [], False

    def choose(self, view: MummySight) -> Command:
        """The mummy's next command, from its view (on the mummy's turn only).  Asking
        again before the command is played gives the same command."""
        phase = view["phase"]
        if phase == Phase.MUMMY_ROLL.value:
            return RollMummyDie()
        if phase != Phase.MUMMY_MOVING.value:
            raise RuleError("It is not the mummy's turn.")
        if not self._planned:
            self.belief.learn_view(view)
            self._plan = self._make_plan(view)
            self._planned = True
        if self._plan:
            return MummyStep(self._plan[0])
        if self.exactly and int(view["steps_left"]) > 0:
            return MummyStep(self._any_step(int(view["mummy"])))
        return EndMummyMove()

    # -- planning -----------------------------------------------------------------------

    def _make_plan(self, view: MummySight) -> list[int]:
        mummy = int(view["mummy"])
        steps = int(view["steps_left"])
        rng = (self.seed + self._seen * 0x9E3779B97F4A7C15) & _MASK64
        plans = self._candidates(view, mummy, steps)
        if not plans:
            return []
        if self.level is Level.EASY:
            pick, _ = next_random(rng)
            return plans[pick % min(3, len(plans))][1]
        if self.level is Level.NORMAL or len(plans) == 1:
            return plans[0][1]
        return self._look_ahead(view, plans[:HARD_PLANS], rng)

    def _candidates(
        self, view: MummySight, mummy: int, steps: int
    ) -> list[tuple[float, list[int]]]:
        """Step sequences (up to ``steps`` long, no cell twice), best first, scored by the
        chance of a catch on the way and how close the end is to the likely seekers."""
        maze = self.maze
        weight = self._weights(view)
        probs = self._probs()
        catch_at = {n: min(1.0, p) for n, p in _weighted_mass(probs, weight).items()}
        reach = 3 + int(view["dice_out"]) + 3  # an average die plus the dice lying out
        end_values: dict[int, float] = {}

        def end_value(cell: int) -> float:
            value = end_values.get(cell)
            if value is None:
                dist = maze.distances_from(cell)
                value = 0.0
                for f, figure_probs in enumerate(probs):
                    w = weight[f]
                    for node, p in figure_probs.items():
                        if node < maze.cell_count:
                            d = dist[node]
                        else:
                            d = _room_distance(maze, node, dist)
                        if 0 <= d <= reach:
                            value += w * p * (1.0 - d / (reach + 1))
                end_values[cell] = value
            return value

        results: list[tuple[float, list[int]]] = []
        if not self.exactly or steps == 0:
            here = end_value(mummy) if maze.is_cell(mummy) else 0.0
            results.append((0.3 * here, []))
        budget = [MAX_PATHS]

        def walk(cell: int, path: list[int], visited: int, caught: float, alive: float) -> None:
            budget[0] -= 1
            p = catch_at.get(cell, 0.0)
            caught += alive * p
            alive *= 1.0 - p
            results.append((caught + 0.3 * alive * end_value(cell), list(path)))
            if len(path) >= steps or alive <= 0.0 or budget[0] <= 0:
                return
            for nxt in maze.adjacent[cell]:
                if not (visited >> nxt) & 1:
                    path.append(nxt)
                    walk(nxt, path, visited | (1 << nxt), caught, alive)
                    path.pop()

        firsts = (
            maze.adjacent[mummy]
            if maze.is_cell(mummy)
            else tuple(o.cell for o in maze.openings(mummy))
        )
        start_bit = 1 << mummy if maze.is_cell(mummy) else 0
        for first in firsts:
            walk(first, [first], start_bit | (1 << first), 0.0, 1.0)
        if self.exactly:
            results = [(v, self._padded(p, steps)) for v, p in results if p or not steps]
        results.sort(key=lambda r: (-r[0], len(r[1]), r[1]))
        return results

    def _weights(self, view: MummySight) -> list[float]:
        """How much catching each figure is worth: more for seekers near their last card."""
        seekers = view["seekers"]
        return [1.0 + 0.2 * (5 - min(5, int(seekers[owner]["cards_left"]))) for owner in self.owner]

    def _probs(self) -> list[dict[int, float]]:
        """Per figure, how likely it is on each node (hard: from its guesses of cards)."""
        if self.guesses is None:
            return self.belief.prob
        out = []
        for f, possible in enumerate(self.belief.possible):
            where = {n: p for n, p in self.guesses.where(f).items() if (possible >> n) & 1}
            total = sum(where.values())
            out.append({n: p / total for n, p in where.items()} if total else self.belief.prob[f])
        return out

    def _padded(self, path: list[int], steps: int) -> list[int]:
        """A path made exactly ``steps`` long by stepping back and forth at its end."""
        if not path:
            return path
        out = list(path)
        back = out[-2] if len(out) > 1 else self.maze.adjacent[out[-1]][0]
        a, b = back, out[-1]
        while len(out) < steps:
            out.append(a)
            a, b = b, a
        return out

    def _any_step(self, mummy: int) -> int:
        maze = self.maze
        if maze.is_cell(mummy):
            return maze.adjacent[mummy][0]
        return maze.openings(mummy)[0].cell

    # -- hard: look ahead on sampled worlds ----------------------------------------------

    def _look_ahead(
        self, view: MummySight, plans: list[tuple[float, list[int]]], rng: int
    ) -> list[int]:
        worlds = []
        for _ in range(HARD_WORLDS):
            world, rng = self._sample_world(view, rng)
            if world is not None:
                worlds.append(world)
        if not worlds:
            return plans[0][1]
        best: tuple[float, int] | None = None
        for i, (score, path) in enumerate(plans):
            total = 0.0
            for world in worlds:
                total += self._rollout(world, path)
            value = score + total / len(worlds)
            if best is None or value > best[0]:
                best = (value, i)
        assert best is not None
        return plans[best[1]][1]

    def _sample_world(self, view: MummySight, rng: int) -> tuple[State | None, int]:
        """Seeker positions and hands drawn from the belief, the rest from the view."""
        maze = self.maze
        positions: list[int] = []
        taken: set[int] = set()
        guessed: dict[int, frozenset[int]] = {}
        for f, probs in enumerate(self._probs()):
            if not probs:
                positions.append(-1)
                continue
            node = -1
            for _ in range(6):
                value, rng = next_random(rng)
                guess = self.guesses.draw(f, value) if self.guesses is not None else None
                if guess is not None and (self.belief.possible[f] >> guess[0]) & 1:
                    node = guess[0]
                    guessed.setdefault(self.owner[f], guess[1])
                else:
                    node = _draw(probs, value)
                if node not in taken or not maze.is_cell(node):
                    break
            if node in taken and maze.is_cell(node):
                return None, rng
            taken.add(node)
            positions.append(node)
        seekers = view["seekers"]
        played_cells = {int(t["cell"]) for s in seekers for t in s["played"]}
        free = [t for t in maze.treasures if t.cell not in played_cells]
        hands: list[tuple[Treasure, ...]] = []
        for index, seeker in enumerate(seekers):
            cards = guessed.get(index)
            if cards is not None and all(c not in played_cells for c in cards):
                hands.append(tuple(maze.treasure_by_cell[c] for c in sorted(cards)))
                continue
            hand: list[Treasure] = []
            for colour, count in seeker["card_colours"].items():
                pool = [t for t in free if t.colour is Colour(colour)]
                for _ in range(int(count)):
                    if not pool:
                        return None, rng
                    value, rng = next_random(rng)
                    card = pool.pop(value % len(pool))
                    free.remove(card)
                    hand.append(card)
            hands.append(tuple(hand))
        by_cell = maze.treasure_by_cell
        played = tuple(
            tuple(by_cell[int(t["cell"])] for t in seeker["played"]) for seeker in seekers
        )
        kind = view["mummy_move"]
        value, rng = next_random(rng)
        state = State(
            setup=self._setup,
            rng=value,
            phase=Phase.MUMMY_MOVING,
            figure=self._figure,
            positions=tuple(positions),
            mummy=int(view["mummy"]),
            ankhs=tuple(int(s["ankhs"]) for s in seekers),
            mummy_ankhs=int(view["mummy_ankhs"]),
            hands=tuple(hands),
            played=played,
            dice_out=int(view["dice_out"]),
            may_resolve=False,
            forced_resolve=self._forced,
            mummy_move=MummyMoveKind(kind) if kind else MummyMoveKind.NORMAL,
            steps_left=int(view["steps_left"]),
            rounds=int(view["rounds"]),
        )
        return state, rng

    def _rollout(self, world: State, path: list[int]) -> float:
        """Play ``path`` in a sampled world, then the seekers' answers up to the mummy's
        next turn: a catch counts 1, a seeker within reach of the next move up to 0.7."""
        game = FastGame(world)
        caught = 0.0
        try:
            for cell in path:
                events = game.apply(MummyStep(cell))
                if any(isinstance(e, SeekerCaught) for e in events):
                    caught = 1.0
                    break
            if game.phase is Phase.MUMMY_MOVING:
                game.apply(EndMummyMove())
        except RuleError:
            return caught
        bot = SeekerBot(self.maze)
        for _ in range(LOOKAHEAD_COMMANDS):
            if game.is_over or game.is_mummy_turn:
                break
            try:
                game.apply(bot.choose(game))
            except RuleError:
                break
        if game.winner is not None:
            return caught + (1.0 if game.winner.is_mummy else -1.0)
        maze = self.maze
        if not maze.is_cell(game.mummy):
            return caught
        dist = maze.distances_from(game.mummy)
        reach = 4 + game.dice_out
        near = 0.0
        for node in game.positions:
            if 0 <= node < maze.cell_count and 0 <= dist[node] <= reach:
                near = max(near, 1.0 - dist[node] / (reach + 1))
        return caught + 0.7 * near


def _weighted_mass(probs: list[dict[int, float]], weight: list[float]) -> dict[int, float]:
    total: dict[int, float] = {}
    for f, figure_probs in enumerate(probs):
        for node, p in figure_probs.items():
            total[node] = total.get(node, 0.0) + p * weight[f]
    return total


def _draw(probs: dict[int, float], value: int) -> int:
    """A node drawn from ``probs`` with a 64-bit random ``value``."""
    target = (value >> 11) / float(1 << 53)
    acc = 0.0
    last = -1
    for node, p in probs.items():
        acc += p
        last = node
        if target < acc:
            return node
    return last


def _room_distance(maze: Maze, room: int, dist: tuple[int, ...]) -> int:
    """Steps from the cell ``dist`` was measured from to a figure standing in a room."""
    steps = [dist[o.cell] for o in maze.openings(room) if dist[o.cell] >= 0]
    return min(steps) + 1 if steps else -1
