"""The maze model: cells, walls, the start field, the sarcophagus and the treasures.

Cells are numbered row by row (``row * width + col``); row 1 is the top row of the
printed maze, columns are letters, so ``"B3"`` is column 2 of row 3.  The start field
(camp) and the sarcophagus lie outside the grid and join it through openings in the
outer wall.  Sets of cells are Python ints used as bit masks: moves over a whole set
are a handful of shifts, which keeps legal-move queries cheap.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass
from functools import cached_property


class Direction(enum.Enum):
    """The four orthogonal directions; values are the wall-art names."""

    NORTH = "north"
    EAST = "east"
    SOUTH = "south"
    WEST = "west"

    @property
    def opposite(self) -> Direction:
        return _OPPOSITE[self]

    @property
    def delta(self) -> tuple[int, int]:
        """(row, column) change of one step."""
        return _DELTA[self]


_OPPOSITE = {
    Direction.NORTH: Direction.SOUTH,
    Direction.SOUTH: Direction.NORTH,
    Direction.EAST: Direction.WEST,
    Direction.WEST: Direction.EAST,
}
_DELTA = {
    Direction.NORTH: (-1, 0),
    Direction.SOUTH: (1, 0),
    Direction.EAST: (0, 1),
    Direction.WEST: (0, -1),
}
DIRECTIONS = (Direction.NORTH, Direction.EAST, Direction.SOUTH, Direction.WEST)
_INDEX = {d: i for i, d in enumerate(DIRECTIONS)}
#: Walks up to this long (the longest die move) are answered from a table when nothing
#: blocks them.
FREE_WALK_STEPS = 4


class Colour(enum.Enum):
    """Treasure and mission-card colours."""

    RED = "red"
    BLUE = "blue"
    WHITE = "white"
    GREEN = "green"
    YELLOW = "yellow"


#: How many treasures (and mission cards) each colour has: 23 in all.
TREASURE_COUNTS = {
    Colour.RED: 5,
    Colour.BLUE: 5,
    Colour.WHITE: 5,
    Colour.GREEN: 4,
    Colour.YELLOW: 4,
}


@dataclass(frozen=True)
class Treasure:
    """A treasure printed on one maze cell; its mission card has the same name."""

    cell: int
    colour: Colour
    name: str

    @property
    def title(self) -> str:
        return f"{self.colour.value} {self.name}"


@dataclass(frozen=True)
class Opening:
    """A gap in the outer wall: ``cell`` is the grid cell, ``side`` the side of that
    cell that faces the room (so a figure leaving the room moves ``side.opposite``)."""

    cell: int
    side: Direction


@dataclass(frozen=True)
class Maze:
    """An immutable maze.  Build one with :func:`companion.games.mummy.maze_file.parse_maze`."""

    width: int
    height: int
    #: Per cell, the directions in which a step reaches another grid cell.
    open_sides: tuple[frozenset[Direction], ...]
    start: tuple[Opening, ...]
    sarcophagus: tuple[Opening, ...]
    treasures: tuple[Treasure, ...]
    name: str = "unnamed maze"

    # -- nodes -----------------------------------------------------------------
    @cached_property
    def cell_count(self) -> int:
        return self.width * self.height

    @cached_property
    def start_node(self) -> int:
        """Node number of the start field (not a grid cell)."""
        return self.width * self.height

    @cached_property
    def sarcophagus_node(self) -> int:
        """Node number of the sarcophagus (not a grid cell)."""
        return self.width * self.height + 1

    def is_cell(self, node: int) -> bool:
        return 0 <= node < self.cell_count

    def cell_name(self, node: int) -> str:
        """Player-facing name of a node: ``"C4"``, ``"the start field"``, ``"the sarcophagus"``."""
        if node == self.start_node:
            return "the start field"
        if node == self.sarcophagus_node:
            return "the sarcophagus"
        row, col = divmod(node, self.width)
        return f"{column_letter(col)}{row + 1}"

    def cell_at(self, row: int, col: int) -> int:
        return row * self.width + col

    def neighbour(self, cell: int, direction: Direction) -> int | None:
        """The grid cell one open step away, or None for a wall or the outer edge."""
        nxt = self.neighbour_table[cell][_INDEX[direction]]
        return None if nxt < 0 else nxt

    @cached_property
    def neighbour_table(self) -> tuple[tuple[int, int, int, int], ...]:
        """Per cell, the neighbour in each of DIRECTIONS (north, east, south, west) or -1."""
        table = []
        for cell, sides in enumerate(self.open_sides):
            row = []
            for d in DIRECTIONS:
                dr, dc = d.delta
                row.append(cell + dr * self.width + dc if d in sides else -1)
            table.append((row[0], row[1], row[2], row[3]))
        return tuple(table)

    @cached_property
    def adjacent(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, the grid cells one open step away."""
        return tuple(tuple(n for n in row if n >= 0) for row in self.neighbour_table)

    def openings(self, room: int) -> tuple[Opening, ...]:
        return self.start if room == self.start_node else self.sarcophagus

    def treasure_at(self, cell: int) -> Treasure | None:
        return self.treasure_by_cell.get(cell)

    @cached_property
    def treasure_by_cell(self) -> dict[int, Treasure]:
        return {t.cell: t for t in self.treasures}

    # -- bit-mask geometry -------------------------------------------------------
    @cached_property
    def cells_mask(self) -> int:
        return (1 << self.cell_count) - 1

    @cached_property
    def node_bits(self) -> tuple[int, ...]:
        """Bit of every node as a cell mask: rooms have none, and index -1 (a figure out
        of the game) reads the trailing 0."""
        return (*(1 << c for c in range(self.cell_count)), 0, 0, 0)

    @cached_property
    def side_masks(self) -> dict[Direction, int]:
        """For each direction, the cells that have an open side that way."""
        masks = dict.fromkeys(DIRECTIONS, 0)
        for cell, sides in enumerate(self.open_sides):
            for d in sides:
                masks[d] |= 1 << cell
        return masks

    @cached_property
    def room_exits(self) -> dict[int, int]:
        """For each room node, the mask of grid cells its openings lead to."""
        exits = {}
        for room in (self.start_node, self.sarcophagus_node):
            mask = 0
            for opening in self.openings(room):
                mask |= 1 << opening.cell
            exits[room] = mask
        return exits

    @cached_property
    def _expand_masks(self) -> tuple[int, int, int, int, int]:
        m = self.side_masks
        return (
            m[Direction.EAST],
            m[Direction.WEST],
            m[Direction.SOUTH],
            m[Direction.NORTH],
            self.width,
        )

    def expand(self, cells: int) -> int:
        """Every grid cell one open step away from any cell in ``cells``."""
        east, west, south, north, w = self._expand_masks
        return (
            ((cells & east) << 1)
            | ((cells & west) >> 1)
            | ((cells & south) << w)
            | ((cells & north) >> w)
        )

    @cached_property
    def _free_walks(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Per node and ``steps`` up to ``FREE_WALK_STEPS``: the ends of unobstructed walks
        (``steps * nodes + node``) and every cell such a walk can enter on the way."""
        nodes = self.cell_count + 2
        ends = [0] * (nodes * (FREE_WALK_STEPS + 1))
        passed = list(ends)
        for node in range(nodes):
            frontier = 1 << node if node < self.cell_count else 0
            ends[node] = frontier
            seen = 0
            for steps in range(1, FREE_WALK_STEPS + 1):
                if steps == 1 and node >= self.cell_count:
                    frontier = self.room_exits[node]
                else:
                    frontier = self.expand(frontier)
                seen |= frontier
                ends[steps * nodes + node] = frontier
                passed[steps * nodes + node] = seen
        return tuple(ends), tuple(passed)

    def reach_exactly(self, node: int, steps: int, blocked: int) -> int:
        """Cells at the end of some walk of exactly ``steps`` steps from ``node``.

        Walks may revisit cells but never enter or cross a cell in ``blocked`` nor a
        room (start field, sarcophagus); a walk from a room leaves through an opening.
        """
        if 0 < steps <= FREE_WALK_STEPS:
            # Nothing in the way of any such walk: the answer is in the table.
            ends, passed = self._free_walks
            i = steps * (self.cell_count + 2) + node
            if not blocked & passed[i]:
                return ends[i]
        is_cell = node < self.cell_count
        if steps <= 0:
            return 1 << node if is_cell else 0
        if is_cell:
            frontier = 1 << node
        else:
            frontier = self.room_exits[node] & ~blocked
            steps -= 1
        east, west, south, north, w = self._expand_masks
        open_ = ~blocked
        for _ in range(steps):
            frontier = (
                ((frontier & east) << 1)
                | ((frontier & west) >> 1)
                | ((frontier & south) << w)
                | ((frontier & north) >> w)
            ) & open_
        return frontier

    def slide(self, cell: int, direction: Direction, blocked: int) -> int:
        """The last cell before the next obstacle going straight from ``cell``."""
        for nxt in self.rays[cell][_INDEX[direction]]:
            if (blocked >> nxt) & 1:
                return cell
            cell = nxt
        return cell

    @cached_property
    def rays(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Per cell and direction (DIRECTIONS order), the open cells straight ahead up to
        the first wall, nearest first."""
        table = self.neighbour_table
        rays = []
        for cell in range(self.cell_count):
            per_direction = []
            for i in range(len(DIRECTIONS)):
                ray = []
                nxt = table[cell][i]
                while nxt >= 0:
                    ray.append(nxt)
                    nxt = table[nxt][i]
                per_direction.append(tuple(ray))
            rays.append(tuple(per_direction))
        return tuple(rays)

    # -- distances (for hints and automatic players) -----------------------------
    def distances_from(self, node: int) -> tuple[int, ...]:
        """Steps from ``node`` to every grid cell through open corridors (-1: unreachable)."""
        cache = self._distances
        cached = cache[node]
        if cached is not None:
            return cached
        dist = [-1] * self.cell_count
        queue: deque[int] = deque()
        if self.is_cell(node):
            dist[node] = 0
            queue.append(node)
        else:
            for opening in self.openings(node):
                dist[opening.cell] = 1
                queue.append(opening.cell)
        adjacent = self.adjacent
        while queue:
            cell = queue.popleft()
            for nxt in adjacent[cell]:
                if dist[nxt] < 0:
                    dist[nxt] = dist[cell] + 1
                    queue.append(nxt)
        result = tuple(dist)
        cache[node] = result
        return result

    def distances_to_nearest(self, cells: frozenset[int]) -> tuple[int, ...]:
        """Per node (grid cells, then start field and sarcophagus), the steps to the
        nearest of ``cells`` (0 for an empty set; large where none can be reached)."""
        cached = self._nearest.get(cells)
        if cached is not None:
            return cached
        far = 10_000
        if cells and self._fully_connected:
            table = list(
                map(min, *(self.distances_from(c) for c in cells), [far] * self.cell_count)
            )
            table += [0, 0]
        else:
            table = [0 if not cells else far] * (self.cell_count + 2)
            for cell in cells:
                for node, d in enumerate(self.distances_from(cell)):
                    if 0 <= d < table[node]:
                        table[node] = d
        if cells:
            for room in (self.start_node, self.sarcophagus_node):
                table[room] = min(table[o.cell] for o in self.openings(room)) + 1
        result = tuple(table)
        if len(self._nearest) < 4096:
            self._nearest[cells] = result
        return result

    @cached_property
    def _fully_connected(self) -> bool:
        return all(d >= 0 for d in self.distances_from(self.start_node))

    @cached_property
    def _nearest(self) -> dict[frozenset[int], tuple[int, ...]]:
        return {}

    @cached_property
    def _distances(self) -> list[tuple[int, ...] | None]:
        return [None] * (self.cell_count + 2)

    def next_step_towards(self, cell: int, target: int, blocked: int = 0) -> int | None:
        """A neighbouring cell of ``cell`` that shortens the corridor distance to ``target``."""
        dist = self.distances_from(target)
        best: int | None = None
        best_d = dist[cell]
        for nxt in self.adjacent[cell]:
            if (blocked >> nxt) & 1:
                continue
            if 0 <= dist[nxt] < best_d:
                best, best_d = nxt, dist[nxt]
        return best


def column_letter(col: int) -> str:
    return chr(ord("A") + col)


def parse_cell_name(name: str, width: int, height: int) -> int:
    """``"C4"`` -> cell number; raises ValueError naming the problem."""
    text = name.strip().upper()
    if len(text) < 2 or not text[0].isalpha() or not text[1:].isdigit():
        raise ValueError(f"{name!r} is not a cell name like 'C4'")
    col = ord(text[0]) - ord("A")
    row = int(text[1:]) - 1
    if not (0 <= col < width and 0 <= row < height):
        last = f"{column_letter(width - 1)}{height}"
        raise ValueError(f"{name!r} is outside the {width}x{height} maze (A1 to {last})")
    return row * width + col


def mask_cells(mask: int) -> list[int]:
    """The cell numbers set in a bit mask, in increasing order."""
    cells: list[int] = []
    append = cells.append
    while mask:
        # Taking the top bit is cheaper than isolating the lowest one (mask & -mask).
        top = mask.bit_length() - 1
        append(top)
        mask ^= 1 << top
    cells.reverse()
    return cells
