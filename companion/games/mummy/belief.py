"""What the mummy can deduce about the hidden seekers, from what the mummy may see.

For every seeker figure the belief keeps the exact set of nodes the figure can still be
on (a bit mask, a superset of the truth: unknown figures are assumed anywhere they could
be) and a probability over that set (seekers head for treasures of the colours they
still hold and keep away from the mummy).  It learns only from the mummy's events
(announced dice, cards played, catches, skipped turns, the mummy's own empty steps)
and from the mummy's view (card colours left); it is handed nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .dice import Face
from .events import (
    Announced,
    CardPlayed,
    Event,
    MummyMoved,
    SeekerCaught,
    SeekerOut,
    SeekerSkipped,
)
from .maze import DIRECTIONS, Colour, Maze, mask_cells
from .moves import arrow_mask

#: Probabilities below this are dropped (the exact set of possible cells keeps them).
PRUNE = 1e-5
#: Weight of a cell an arrow slide may stop on early (another figure in the way).
ARROW_EARLY = 0.05


class Belief:
    """Per figure: the nodes it can be on, and how likely each one is."""

    def __init__(self, maze: Maze, figure_owner: tuple[int, ...], *, aim: float = 1.0) -> None:
        self.maze = maze
        self.owner = figure_owner
        #: How strongly seekers are assumed to head for their treasures (0: at random).
        self.aim = aim
        start = maze.start_node
        self.possible = [1 << start for _ in figure_owner]
        self.prob: list[dict[int, float]] = [{start: 1.0} for _ in figure_owner]
        self.mummy = maze.sarcophagus_node
        #: Per seeker, the treasure cells they may still be after (from the card colours).
        self.wanted: list[frozenset[int]] = [
            frozenset(t.cell for t in maze.treasures) for _ in set(figure_owner)
        ]
        self._played: set[int] = set()
        self._rays = [self._ray_cells(c) for c in range(maze.cell_count)]

    # -- learning ----------------------------------------------------------------------

    def learn_view(self, view: Mapping[str, Any]) -> None:
        """Take the card colours each seeker still holds from the mummy's view."""
        played = {int(t["cell"]) for s in view["seekers"] for t in s["played"]}
        self._played = played
        treasures = self.maze.treasures
        for i, seeker in enumerate(view["seekers"]):
            colours = {Colour(c) for c, n in seeker["card_colours"].items() if n}
            self.wanted[i] = frozenset(
                t.cell for t in treasures if t.colour in colours and t.cell not in played
            )

    def observe(self, events: Iterable[Event]) -> None:
        """Learn from events the mummy may see; a secret event is refused."""
        for event in events:
            if event.secret_from_mummy:
                raise ValueError("the mummy's belief was shown a secret event")
            if isinstance(event, Announced):
                self._spread(event.figure, event.face)
            elif isinstance(event, MummyMoved):
                self.mummy = event.to
                for f in range(len(self.owner)):
                    self._rule_out(f, 1 << event.to)
            elif isinstance(event, SeekerCaught):
                self._place(event.figure, self.maze.sarcophagus_node)
            elif isinstance(event, CardPlayed):
                self._place(event.figure, event.treasure.cell)
                self._played.add(event.treasure.cell)
            elif isinstance(event, SeekerOut):
                for f, owner in enumerate(self.owner):
                    if owner == event.seeker:
                        self.possible[f] = 0
                        self.prob[f] = {}
            elif isinstance(event, SeekerSkipped):
                self._stuck(event.figure)

    # -- reading -----------------------------------------------------------------------

    def cells(self, figure: int) -> list[int]:
        """The grid cells ``figure`` can still be on."""
        return mask_cells(self.possible[figure] & self.maze.cells_mask)

    def mass(self) -> dict[int, float]:
        """Per node, the expected number of figures on it."""
        total: dict[int, float] = {}
        for dist in self.prob:
            for node, p in dist.items():
                total[node] = total.get(node, 0.0) + p
        return total

    # -- updates -----------------------------------------------------------------------

    def _place(self, figure: int, node: int) -> None:
        self.possible[figure] = 1 << node
        self.prob[figure] = {node: 1.0}

    def _rule_out(self, figure: int, bits: int) -> None:
        if not self.possible[figure] & bits or not self.possible[figure] & ~bits:
            return  # nothing to learn, or it would leave nowhere (the figure is caught)
        self.possible[figure] &= ~bits
        dist = {n: p for n, p in self.prob[figure].items() if not (bits >> n) & 1}
        self.prob[figure] = _normalised(dist) or self._uniform(figure)

    def _uniform(self, figure: int) -> dict[int, float]:
        nodes = mask_cells(self.possible[figure])
        return {n: 1.0 / len(nodes) for n in nodes} if nodes else {}

    def _stuck(self, figure: int) -> None:
        """The figure could not move at all: every way out is a wall, the mummy or
        (perhaps) another figure."""
        maze = self.maze
        others = 0
        for f, bits in enumerate(self.possible):
            if f != figure:
                others |= bits
        blocked = others | (1 << self.mummy)
        keep = 0
        for cell in mask_cells(self.possible[figure] & maze.cells_mask):
            if all((blocked >> n) & 1 for n in maze.adjacent[cell]):
                keep |= 1 << cell
        if keep:
            self._rule_out(figure, self.possible[figure] & ~keep)

    def _spread(self, figure: int, face: Face) -> None:
        maze = self.maze
        mummy_bit = 1 << self.mummy if maze.is_cell(self.mummy) else 0
        seeker = self.owner[figure]
        score = self._scores(seeker)
        possible = 0
        new: dict[int, float] = {}
        for node, p in self.prob[figure].items():
            if face is Face.ARROW:
                ends = arrow_mask(maze, node, mummy_bit)
                early = self._early(node, mummy_bit) & ~ends
            else:
                ends = maze.reach_exactly(node, int(face), mummy_bit)
                early = 0
            cells = mask_cells(ends)
            weights = [score[c] for c in cells]
            extra = mask_cells(early)
            weights += [score[c] * ARROW_EARLY for c in extra]
            total = sum(weights)
            if total <= 0:
                continue
            for c, w in zip(cells + extra, weights, strict=True):
                new[c] = new.get(c, 0.0) + p * w / total
        for node in mask_cells(self.possible[figure]):
            if face is Face.ARROW:
                possible |= arrow_mask(maze, node, mummy_bit) | self._early(node, mummy_bit)
            else:
                possible |= maze.reach_exactly(node, int(face), mummy_bit)
        if not possible:
            return  # cannot happen in a real game; keep what is known
        self.possible[figure] = possible
        kept = {n: p for n, p in new.items() if p >= PRUNE and (possible >> n) & 1}
        self.prob[figure] = _normalised(kept) or self._uniform(figure)

    def _scores(self, seeker: int) -> list[float]:
        """How attractive each cell is as the end of a seeker's move (unnormalised)."""
        maze = self.maze
        if self.aim == 0:
            return [1.0] * maze.cell_count
        wanted = self.wanted[seeker]
        table = maze.distances_to_nearest(wanted) if wanted else [0] * maze.cell_count
        mummy_dist = (
            maze.distances_from(self.mummy) if maze.is_cell(self.mummy) else [-1] * maze.cell_count
        )
        aim = self.aim
        scores = []
        for cell in range(maze.cell_count):
            value = -min(table[cell], 30) + (4.0 if cell in wanted else 0.0)
            md = mummy_dist[cell]
            if 0 <= md <= 3:
                value -= 4 - md
            scores.append(math.exp(aim * value))
        return scores

    def _early(self, node: int, blocked: int) -> int:
        """Cells an arrow slide from ``node`` passes (where another figure could stop it)."""
        maze = self.maze
        if maze.is_cell(node):
            starts = [(node, ray) for ray in self._rays[node]]
        else:  # from a room: out through an opening, then straight on
            starts = [
                (o.cell, maze.rays[o.cell][DIRECTIONS.index(o.side.opposite)])
                for o in maze.openings(node)
                if not (blocked >> o.cell) & 1
            ]
        out = 0
        for first, ray in starts:
            if first != node:
                out |= 1 << first
            for cell in ray:
                if (blocked >> cell) & 1:
                    break
                out |= 1 << cell
        return out

    def _ray_cells(self, cell: int) -> tuple[tuple[int, ...], ...]:
        return self.maze.rays[cell]


def _normalised(dist: dict[int, float]) -> dict[int, float]:
    total = sum(dist.values())
    if total <= 0:
        return {}
    return {n: p / total for n, p in dist.items()}


def belief_figures(belief: Belief, maze: Maze, colours: Sequence[Any]) -> list[dict[str, Any]]:
    """What the deduction aid shows per seeker figure: its colour, the cells it can still
    be on with a shade (1: the likeliest), their count, and whether it may still be on
    the start field (no cell of the maze: at the start every figure is there)."""
    figures = []
    for f, colour in enumerate(colours):
        cells = belief.cells(f)
        probs = belief.prob[f]
        top = max((probs.get(c, 0.0) for c in cells), default=0.0) or 1.0
        figures.append(
            {
                "colour": getattr(colour, "value", colour),
                "count": len(cells),
                "start": bool((belief.possible[f] >> maze.start_node) & 1),
                "cells": cells,
                "shade": [round(probs.get(c, 0.0) / top, 3) for c in cells],
            }
        )
    return figures
