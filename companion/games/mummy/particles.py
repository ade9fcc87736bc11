"""The hard computer mummy's guesses: where each seeker figure is *and* which cards its
seeker holds, as weighted guesses (particles) kept from the mummy's events only.

A guess moves as a seeker who heads for the nearest treasure of their cards would:
among the faces rolled, the announced one is the best move of a guess that holds the
right cards, so the announcement itself tells the mummy which guesses to believe.
Some guesses move anywhere the die allows, so that a seeker who plays otherwise (a
person) is still followed.  Cards played, catches and the mummy's empty steps rule
guesses out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .dice import Face, next_random
from .events import (
    Announced,
    CardPlayed,
    CardsDealtAgain,
    DiceRolled,
    Event,
    MummyMoved,
    SeekerCaught,
    SeekerOut,
)
from .maze import Colour, Maze, mask_cells
from .moves import arrow_mask

#: Guesses kept per figure.
GUESSES = 48
#: Weight of a guess whose best move was not the announced die (seekers err).
ASTRAY = 0.15
#: Share of each guess's weight that moves anywhere the die allows.
WANDER = 0.15

Guess = tuple[int, frozenset[int]]  # (node, the treasure cells of the seeker's cards)


class Guesses:
    """Per figure, weighted guesses of (node, cards); see the module docstring."""

    def __init__(self, maze: Maze, figure_owner: tuple[int, ...], seed: int) -> None:
        self.maze = maze
        self.owner = figure_owner
        self.rng = seed
        self.mummy = maze.sarcophagus_node
        self.rolls: list[tuple[Face, ...]] = [() for _ in figure_owner]
        self.played: set[int] = set()
        self.guesses: list[dict[Guess, float]] = []
        # Every seeker starts with one card of each colour (two in the two-player game).
        per_colour = 2 if len(set(figure_owner)) == 1 else 1
        colours = {c.value: per_colour for c in Colour}
        for _ in figure_owner:
            found: dict[Guess, float] = {}
            for _ in range(GUESSES):
                guess = (maze.start_node, self._deal(colours, frozenset()))
                found[guess] = found.get(guess, 0.0) + 1.0
            self.guesses.append(_normalised(found))

    # -- learning ----------------------------------------------------------------------

    def observe(self, events: Iterable[Event]) -> None:
        for event in events:
            if event.secret_from_mummy:
                raise ValueError("the mummy's guesses were shown a secret event")
            if isinstance(event, DiceRolled):
                self.rolls[event.figure] = tuple(f for f in event.faces if f is not Face.MUMMY)
            elif isinstance(event, Announced):
                self._move(event.figure, event.face)
            elif isinstance(event, MummyMoved):
                self.mummy = event.to
                for f in range(len(self.owner)):
                    self._keep(f, lambda g, to=event.to: g[0] != to)
            elif isinstance(event, SeekerCaught):
                self._caught(event.figure)
            elif isinstance(event, CardPlayed):
                self._card(event.figure, event.seeker, event.treasure.cell)
            elif isinstance(event, SeekerOut):
                for f, owner in enumerate(self.owner):
                    if owner == event.seeker:
                        self.guesses[f] = {}
            elif isinstance(event, CardsDealtAgain):
                self._dealt_again()

    # -- reading -----------------------------------------------------------------------

    def where(self, figure: int) -> dict[int, float]:
        """How likely ``figure`` is on each node."""
        out: dict[int, float] = {}
        for (node, _), w in self.guesses[figure].items():
            out[node] = out.get(node, 0.0) + w
        return out

    def draw(self, figure: int, value: int) -> Guess | None:
        """A guess for ``figure`` drawn with a 64-bit random ``value``."""
        target = (value >> 11) / float(1 << 53)
        acc = 0.0
        last = None
        for guess, w in self.guesses[figure].items():
            acc += w
            last = guess
            if target < acc:
                return guess
        return last

    # -- updates -----------------------------------------------------------------------

    def _move(self, figure: int, face: Face) -> None:
        maze = self.maze
        mummy_bit = 1 << self.mummy if maze.is_cell(self.mummy) else 0
        roll = tuple(dict.fromkeys(self.rolls[figure])) or (face,)
        moved: dict[Guess, float] = {}
        for (node, hand), w in self.guesses[figure].items():
            best = _greedy(maze, node, hand, roll, self.mummy, mummy_bit)
            ends = _ends(maze, node, face, mummy_bit)
            if not ends:
                continue
            if best is not None and best[0] is face:
                keep, target = w * (1 - WANDER), best[1]
            else:
                keep, target = w * ASTRAY * (1 - WANDER), -1
            cells = mask_cells(ends)
            if target < 0:
                spread = keep / len(cells)
                for c in cells:
                    moved[(c, hand)] = moved.get((c, hand), 0.0) + spread
            else:
                moved[(target, hand)] = moved.get((target, hand), 0.0) + keep
            wander = w * WANDER * (1.0 if target >= 0 else ASTRAY) / len(cells)
            for c in cells:
                moved[(c, hand)] = moved.get((c, hand), 0.0) + wander
        if moved:
            self.guesses[figure] = self._thinned(_normalised(moved))

    def _keep(self, figure: int, ok: Any) -> None:
        kept = {g: w for g, w in self.guesses[figure].items() if ok(g)}
        if kept:
            self.guesses[figure] = _normalised(kept)

    def _caught(self, figure: int) -> None:
        """The figure is in the sarcophagus; its cards are still what they were."""
        out: dict[Guess, float] = {}
        for (_, hand), w in self.guesses[figure].items():
            guess = (self.maze.sarcophagus_node, hand)
            out[guess] = out.get(guess, 0.0) + w
        self.guesses[figure] = out

    def _card(self, figure: int, seeker: int, cell: int) -> None:
        """A card was played: the figure stands on it, and nobody else holds it."""
        self.played.add(cell)
        colour = self._colour(cell)
        for f, owner in enumerate(self.owner):
            out: dict[Guess, float] = {}
            for (node, hand), w in self.guesses[f].items():
                if owner == seeker:
                    if cell not in hand:  # the guess had another card of that colour
                        hand = frozenset(c for c in hand if self._colour(c) is not colour) | {cell}
                    hand = hand - {cell}
                    if f == figure:
                        node = cell
                elif cell in hand:
                    hand = self._swap(hand, cell)
                out[(node, hand)] = out.get((node, hand), 0.0) + w
            self.guesses[f] = _normalised(out)

    def _swap(self, hand: frozenset[int], cell: int) -> frozenset[int]:
        """Another card of the same colour instead of ``cell`` (which was played)."""
        colour = self._colour(cell)
        pool = [
            t.cell
            for t in self.maze.treasures
            if t.colour is colour and t.cell not in self.played and t.cell not in hand
        ]
        rest = hand - {cell}
        if not pool:
            return rest
        value, self.rng = next_random(self.rng)
        return rest | {pool[value % len(pool)]}

    def _deal(self, colours: Mapping[str, int], taken: frozenset[int]) -> frozenset[int]:
        hand: set[int] = set()
        for colour, count in colours.items():
            pool = [
                t.cell
                for t in self.maze.treasures
                if t.colour is Colour(colour) and t.cell not in self.played and t.cell not in taken
            ]
            for _ in range(int(count)):
                if not pool:
                    break
                value, self.rng = next_random(self.rng)
                hand.add(pool.pop(value % len(pool)))
        return frozenset(hand)

    def _dealt_again(self) -> None:
        """The unplayed cards were dealt again: every guess keeps its figure's node and
        the colours of its cards, and guesses new cards of them."""
        for f, guesses in enumerate(self.guesses):
            out: dict[Guess, float] = {}
            for (node, hand), w in guesses.items():
                colours: dict[str, int] = {}
                for cell in hand:
                    colour = self._colour(cell)
                    if colour is not None:
                        colours[colour.value] = colours.get(colour.value, 0) + 1
                guess = (node, self._deal(colours, frozenset()))
                out[guess] = out.get(guess, 0.0) + w
            self.guesses[f] = _normalised(out) if out else out

    def _colour(self, cell: int) -> Colour | None:
        treasure = self.maze.treasure_at(cell)
        return None if treasure is None else treasure.colour

    def _thinned(self, guesses: dict[Guess, float]) -> dict[Guess, float]:
        """At most GUESSES guesses: the likeliest ones."""
        if len(guesses) <= GUESSES:
            return guesses
        kept = sorted(guesses.items(), key=lambda gw: -gw[1])[:GUESSES]
        return _normalised(dict(kept))


def _ends(maze: Maze, node: int, face: Face, mummy_bit: int) -> int:
    if face is Face.ARROW:
        return arrow_mask(maze, node, mummy_bit)
    return maze.reach_exactly(node, int(face), mummy_bit)


def _greedy(
    maze: Maze, node: int, hand: frozenset[int], roll: tuple[Face, ...], mummy: int, mummy_bit: int
) -> tuple[Face, int] | None:
    """The move a seeker heading for the nearest of ``hand`` makes (as the seeker bots)."""
    table = maze.distances_to_nearest(hand)
    mummy_dist = maze.distances_from(mummy) if maze.is_cell(mummy) else None
    best: tuple[float, Face, int] | None = None
    for face in roll:
        for cell in mask_cells(_ends(maze, node, face, mummy_bit)):
            score = 100.0 if cell in hand else -float(table[cell])
            if mummy_dist is not None and 0 <= mummy_dist[cell] <= 3:
                score -= 4 - mummy_dist[cell]
            if best is None or score > best[0]:
                best = (score, face, cell)
    return None if best is None else (best[1], best[2])


def _normalised(guesses: dict[Guess, float]) -> dict[Guess, float]:
    total = sum(guesses.values())
    if total <= 0:
        return guesses
    return {g: w / total for g, w in guesses.items()}
