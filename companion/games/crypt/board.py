"""The 8x8 board of Into the Crypt: square names, tiles, the crypt, and the maze overlay.

Squares are named like a chessboard, ``"a1"`` to ``"h8"``: files ``a``-``h`` run left
to right and ranks ``1``-``8`` run from the bottom edge (the side nearest the table
screen, the camp side of the maze board) to the top edge.  A square is an ``int``
``rank * 8 + file`` (a1 = 0, h1 = 7, a8 = 56, h8 = 63), and sets of squares are
``int`` bit masks, so a whole line of the board is a handful of shifts and the
legal-move queries stay cheap enough for the computer opponent.

The board is laid out of 4x4 tiles of 2x2 squares.  The four corner tiles are green
(no cube may be placed on them); the crypt tile lies across the centre and covers
d4, e4, d5 and e5.  The game is played on the central 8x8 of the 12x12 maze board
(maze columns C-J, maze rows 3-10); :func:`maze_cell` maps a square to its maze cell
so the sensors and LEDs of the maze board serve this game too.
"""

from __future__ import annotations

import enum

#: Squares along one side.
SIZE = 8
#: All 64 squares as a mask.
ALL_SQUARES = (1 << (SIZE * SIZE)) - 1
FILES = "abcdefgh"

#: Width of the maze board (12x12) that the 8x8 board lies on.
MAZE_WIDTH = 12
#: Maze column of file a (C) and maze row index (0-based, row 1 at the top) of rank 8
#: (maze row 3): the 8x8 board is the centre of the 12x12 maze board.
MAZE_FIRST_COL = 2
MAZE_FIRST_ROW = 2


class Direction(enum.Enum):
    """The four rook directions; the value is the (file, rank) step."""

    UP = (0, 1)
    DOWN = (0, -1)
    LEFT = (-1, 0)
    RIGHT = (1, 0)


def square(file: int, rank: int) -> int:
    """The square at ``file`` (0 = a) and ``rank`` (0 = rank 1)."""
    if not (0 <= file < SIZE and 0 <= rank < SIZE):
        raise ValueError(f"there is no square at file {file}, rank {rank}")
    return rank * SIZE + file


def file_of(sq: int) -> int:
    """0 for the a-file, 7 for the h-file."""
    return sq % SIZE


def rank_of(sq: int) -> int:
    """0 for rank 1, 7 for rank 8."""
    return sq // SIZE


def is_square(sq: int) -> bool:
    return 0 <= sq < SIZE * SIZE


def square_name(sq: int) -> str:
    """``"a1"`` for 0, ``"h8"`` for 63."""
    if not is_square(sq):
        raise ValueError(f"{sq} is not a square of the 8x8 board")
    return f"{FILES[file_of(sq)]}{rank_of(sq) + 1}"


def parse_square(name: str) -> int:
    """The square called ``name`` (``"e4"``, ``"E4"`` or ``" e4 "``).

    Raises ValueError with a player-facing message for anything else.
    """
    text = name.strip().lower()
    if len(text) == 2 and text[0] in FILES and text[1] in "12345678":
        return square(FILES.index(text[0]), int(text[1]) - 1)
    raise ValueError(f"{name!r} is not a square: use a1 to h8")


def bit(sq: int) -> int:
    """The mask holding only ``sq``."""
    return 1 << sq


def squares_of(mask: int) -> tuple[int, ...]:
    """The squares of a mask, in square order (a1, b1, ..., h8)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def mask_of(squares: tuple[int, ...] | list[int] | frozenset[int]) -> int:
    mask = 0
    for sq in squares:
        mask |= 1 << sq
    return mask


def _parse_all(*names: str) -> tuple[int, ...]:
    return tuple(parse_square(n) for n in names)


#: The crypt: the four central squares, each starting with a lock (a white cube).
CRYPT_SQUARES = _parse_all("d4", "e4", "d5", "e5")
CRYPT_MASK = mask_of(CRYPT_SQUARES)

#: The four corner spaces where the meeples start, in the order RULES.md names them.
CORNER_SQUARES = _parse_all("a1", "a8", "h1", "h8")
CORNER_MASK = mask_of(CORNER_SQUARES)

#: The four green corner tiles (2x2 squares each): no cube may be placed on them.
GREEN_SQUARES = tuple(
    square(f, r)
    for r in range(SIZE)
    for f in range(SIZE)
    if (f < 2 or f >= SIZE - 2) and (r < 2 or r >= SIZE - 2)
)
GREEN_MASK = mask_of(GREEN_SQUARES)

#: Where cubes may be placed (before counting occupied squares): 44 squares.
PLACEABLE_MASK = ALL_SQUARES & ~GREEN_MASK & ~CRYPT_MASK


def _ray(sq: int, direction: Direction) -> tuple[int, ...]:
    df, dr = direction.value
    f, r = file_of(sq) + df, rank_of(sq) + dr
    out = []
    while 0 <= f < SIZE and 0 <= r < SIZE:
        out.append(square(f, r))
        f, r = f + df, r + dr
    return tuple(out)


#: For every square, the squares in each direction, nearest first (empty at the edge).
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(sq, d) for d in Direction) for sq in range(SIZE * SIZE)
)

#: For every square, its orthogonal neighbours.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ray[0] for ray in RAYS[sq] if ray) for sq in range(SIZE * SIZE)
)


def is_crypt(sq: int) -> bool:
    return (CRYPT_MASK >> sq) & 1 == 1


def is_green(sq: int) -> bool:
    """True on the four green corner tiles."""
    return (GREEN_MASK >> sq) & 1 == 1


def is_corner(sq: int) -> bool:
    """True on a1, a8, h1 and h8, the meeples' start spaces."""
    return (CORNER_MASK >> sq) & 1 == 1


def line_between(start: int, end: int) -> tuple[int, ...] | None:
    """The squares a rook move from ``start`` to ``end`` passes, ``end`` included.

    None when the two squares are not on one rank or file (or are the same square).
    """
    for ray in RAYS[start]:
        if end in ray:
            return ray[: ray.index(end) + 1]
    return None


def maze_cell(sq: int) -> int:
    """The cell of the 12x12 maze board under ``sq`` (``row * 12 + col``, row 0 on top).

    a1 lies on maze cell C10 (row 9, column 2 = 110), h8 on J3 (row 2, column 9 = 33).
    """
    if not is_square(sq):
        raise ValueError(f"{sq} is not a square of the 8x8 board")
    row = MAZE_FIRST_ROW + (SIZE - 1 - rank_of(sq))
    col = MAZE_FIRST_COL + file_of(sq)
    return row * MAZE_WIDTH + col


def square_at_maze_cell(cell: int) -> int | None:
    """The square over maze cell ``cell``, or None outside the central 8x8."""
    if not 0 <= cell < MAZE_WIDTH * MAZE_WIDTH:
        return None
    row, col = divmod(cell, MAZE_WIDTH)
    file = col - MAZE_FIRST_COL
    rank = SIZE - 1 - (row - MAZE_FIRST_ROW)
    if 0 <= file < SIZE and 0 <= rank < SIZE:
        return square(file, rank)
    return None
