"""What the LEDs show for Into the Crypt: a pure function from the game to a ``Scene``.

Into the Crypt has no cubes on the table: the LEDs under the central 8x8 cells of the
maze board show them (``Scene.paint``), so the light is the board.

====================  =========================================  ===================
element               colour                                     level, motion
====================  =========================================  ===================
a player's cube       the player's colour                        50%, steady
a lock (crypt)        white                                      60%, steady
a meeple's cell       the meeple's colour                        20%, steady
cube-to-be (touch)    the cube owner's colour                    100%, steady
reachable cube/lock   its colour, while the mover's meeple is    100%, steady
                      lifted
legal destination     the renderer's hint (sky blue)             <= 25%, steady
lifted, errors, "put a figure here", "take this away": the renderer's feedback
game over             the renderer's win sparkles; the winners' meeples steady white
====================  =========================================  ===================

Cubes and locks differ from the renderer's feedback by motion (feedback blinks,
cubes do not) and locks from a lifted meeple (30% white) by brightness, so the board
reads without relying on colour alone.  While the player to move holds their meeple
up, the cubes and locks it could stop on light up to full, the empty squares it could
stop on show the hint colour: a hint never covers a cube's colour.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.crypt.board import maze_cell, squares_of
from companion.games.crypt.state import State

from .scene import Mode, Scene

RGB = tuple[int, int, int]

#: The players' colours as LEDs show them (white is the locks' colour, so no player
#: may take it; magenta and bluish green are close to the renderer's feedback colours,
#: so they are not offered either).
PLAYER_COLOURS: dict[str, RGB] = {
    "red": (255, 20, 10),
    "blue": (20, 60, 255),
    "green": (20, 200, 30),
    "yellow": (255, 190, 0),
    "violet": (150, 40, 255),
    "turquoise": (0, 200, 200),
    "orange": (255, 100, 0),
}
#: A colour the table does not know is shown as amber (never white, never dark).
FALLBACK_COLOUR: RGB = (255, 170, 60)
LOCK_COLOUR: RGB = (255, 255, 255)

#: The board position under each square on the 12x12 maze board (``board.maze_cell``).
MAZE_CELLS: tuple[int, ...] = tuple(maze_cell(sq) for sq in range(64))

CUBE_LEVEL = 0.5
LOCK_LEVEL = 0.6
MEEPLE_LEVEL = 0.2
HIGHLIGHT_LEVEL = 1.0


def player_rgb(colour: str) -> RGB:
    """The LED colour of a player's colour name."""
    return PLAYER_COLOURS.get(colour, FALLBACK_COLOUR)


def _scale(colour: RGB, level: float) -> RGB:
    r, g, b = colour
    return (round(r * level), round(g * level), round(b * level))


def crypt_scene(
    state: State,
    positions: int,
    *,
    hints: frozenset[int] = frozenset(),
    lifted: frozenset[int] = frozenset(),
    errors: frozenset[int] = frozenset(),
    missing: frozenset[int] = frozenset(),
    unexpected: frozenset[int] = frozenset(),
    touch: int | None = None,
    cells: Sequence[int] = MAZE_CELLS,
) -> Scene:
    """The scene for a crypt game and the tracker's feedback (board positions).

    ``positions`` is the number of positions of the board (cells and pads);
    ``hints`` are the legal destinations of a lifted meeple, ``touch`` the square a
    magnet rests on during the placing phase (its cube is shown before it is placed).
    ``cells`` gives the board position under each square (the centre of the board).
    """
    if state.is_over:
        winners = frozenset(cells[state.meeples[p]] for p in state.winners if state.meeples[p] >= 0)
        return Scene(
            positions=positions,
            mode=Mode.SEEKERS_WIN,
            errors=errors,
            missing=missing,
            unexpected=unexpected,
            winners=winners,
        )
    colours = [player_rgb(c) for c in state.setup.colours]
    levels: dict[int, tuple[RGB, float]] = {}
    for player, sq in enumerate(state.meeples):
        if sq >= 0:
            levels[cells[sq]] = (colours[player], MEEPLE_LEVEL)
    pieces: set[int] = set()  # cells holding a cube or a lock
    for owner, mask in enumerate(state.cubes):
        for sq in squares_of(mask):
            levels[cells[sq]] = (colours[owner], CUBE_LEVEL)
            pieces.add(cells[sq])
    for sq in squares_of(state.locks):
        levels[cells[sq]] = (LOCK_COLOUR, LOCK_LEVEL)
        pieces.add(cells[sq])
    if touch is not None:
        owner = state.setup.owner_placed_by(state.to_move)
        levels[cells[touch]] = (colours[owner], HIGHLIGHT_LEVEL)
    empty_hints = set()
    for position in hints:
        if position in pieces:
            levels[position] = (levels[position][0], HIGHLIGHT_LEVEL)
        else:
            empty_hints.add(position)
    paint = tuple(
        (position, _scale(colour, level)) for position, (colour, level) in sorted(levels.items())
    )
    return Scene(
        positions=positions,
        mode=Mode.PLAY,
        hints=frozenset(empty_hints),
        lifted=lifted,
        errors=errors,
        missing=missing,
        unexpected=unexpected,
        paint=paint,
    )
