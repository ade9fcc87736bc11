"""Legal moves: where a figure may end with a die, and where the mummy may step.

Pure queries on a state; pages and LEDs use them to show hints, the engine to judge.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from companion.i18n import Msg, counted, msg

from .dice import MOVE_FACES, Face
from .maze import Maze, mask_cells
from .state import Situation, State
from .words import colour_word, place_word


def destinations_mask(state: Situation, figure: int, face: Face) -> int:
    """Bit mask of the grid cells where ``figure`` may end a move with ``face``."""
    # The hottest query of the engine: plain int comparisons, no enum lookups.
    maze = state.setup.maze
    positions = state.positions
    node = positions[figure]
    if node < 0 or face >= Face.MUMMY:
        return 0
    bits = maze.node_bits
    # No two figures share a cell, so "everyone but me" is everyone minus my cell.
    others = 0
    for position in positions:
        others |= bits[position]
    others &= ~bits[node]
    mummy = bits[state.mummy]
    if face == Face.ARROW:
        return arrow_mask(maze, node, mummy | others)
    return maze.reach_exactly(node, face, mummy) & ~others


def arrow_mask(maze: Maze, node: int, blocked: int) -> int:
    """Ends of the straight slides from ``node`` up to the next obstacle (at least one cell)."""
    result = 0
    if node < maze.cell_count:
        for ray in maze.rays[node]:
            end = node
            for nxt in ray:
                if (blocked >> nxt) & 1:
                    break
                end = nxt
            if end != node:
                result |= 1 << end
        return result
    for opening in maze.openings(node):
        if not (blocked >> opening.cell) & 1:
            result |= 1 << maze.slide(opening.cell, opening.side.opposite, blocked)
    return result


def free_arrow_masks(maze: Maze) -> tuple[int, ...]:
    """Per node, :func:`arrow_mask` with nothing in the way; computed once per maze."""
    table = _FREE_ARROWS.get(maze)
    if table is None:
        nodes = range(maze.cell_count + 2)
        table = _FREE_ARROWS[maze] = tuple(arrow_mask(maze, n, 0) for n in nodes)
    return table


_FREE_ARROWS: WeakKeyDictionary[Maze, tuple[int, ...]] = WeakKeyDictionary()


def legal_destinations(state: Situation, figure: int, face: Face) -> list[int]:
    """The cells where ``figure`` may end a move with ``face``, in cell order."""
    return mask_cells(destinations_mask(state, figure, face))


def movable_faces(state: Situation, figure: int) -> list[Face]:
    """The move faces (1-4, arrow) that ``figure`` could move from where it stands."""
    return [f for f in MOVE_FACES if destinations_mask(state, figure, f)]


def can_move_at_all(state: Situation, figure: int) -> bool:
    """False when no die (1, 2, 3, 4, arrow) could move the figure: it is skipped."""
    return any(destinations_mask(state, figure, f) for f in MOVE_FACES)


def mummy_steps(state: State) -> list[int]:
    """The cells the mummy may step to next (walls and rooms excluded)."""
    return _mummy_next(state.setup.maze, state.mummy)


def _mummy_next(maze: Maze, node: int) -> list[int]:
    if maze.is_cell(node):
        return sorted(maze.adjacent[node])
    return sorted(o.cell for o in maze.openings(node))


def mummy_routes(state: State) -> dict[int, list[int]]:
    """Each cell the mummy may end its move on, with the steps that take it there.

    Computed from the maze and the mummy alone, never the seekers (the mummy's page must
    not learn where they are): a seeker on the way is caught and ends the move there, as
    with single steps.  The route is a shortest one, the first in cell order where
    several are as short (the mummy picks another by stepping first).  With "exactly"
    the steps left over go back and forth from the destination to its first neighbour in
    cell order; a cell at an odd number of extra steps cannot be reached."""
    maze = state.setup.maze
    left = state.steps_left
    parent: dict[int, int] = {state.mummy: -1}
    frontier, depth = [state.mummy], 0
    while frontier and depth < left:
        depth += 1
        following = []
        for node in frontier:
            for cell in _mummy_next(maze, node):
                if cell not in parent:
                    parent[cell] = node
                    following.append(cell)
        frontier = following
    routes: dict[int, list[int]] = {}
    for cell in parent:
        if cell == state.mummy:
            continue
        route = [cell]
        while parent[route[-1]] != state.mummy:
            route.append(parent[route[-1]])
        route.reverse()
        if state.setup.options.mummy_moves_exactly:
            spare = left - len(route)
            back = maze.adjacent[cell]
            if spare % 2 or (spare and not back):
                continue
            route += [min(back, default=cell), cell] * (spare // 2)
        routes[cell] = route
    return dict(sorted(routes.items()))


def why_not(state: State, figure: int, face: Face, to: int) -> Msg:
    """A player-facing reason why ``figure`` may not end on ``to`` with ``face``."""
    maze = state.setup.maze
    name = maze.cell_name(to)
    if not maze.is_cell(to):
        if to == maze.start_node:
            return msg("No figure may move onto the start field.")
        if to == maze.sarcophagus_node:
            return msg("No figure may move into the sarcophagus.")
        return msg("There is no cell {cell} in this maze.", cell=to)
    if to == state.mummy:
        return msg("The mummy stands on {cell}: its cell can never be entered.", cell=name)
    other = state.figure_at(to)
    if other is not None and other != figure:
        return msg(
            "{colour} stands on {cell}: a move never ends on another figure.",
            colour=colour_word(state.setup.figures[other]),
            cell=name,
        )
    here = place_word(maze, state.positions[figure])
    if face is Face.ARROW:
        return msg(
            "With the arrow the figure slides straight from {here} to the last cell "
            "before a wall, the mummy, a figure or a room; {cell} is not such a cell.",
            here=here,
            cell=name,
        )
    return msg(
        "{cell} is not exactly {steps} from {here} along open corridors "
        "(walls and the mummy block the way).",
        cell=name,
        steps=counted(int(face), "{n} step", "{n} steps"),
        here=here,
    )
