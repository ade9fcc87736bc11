"""Index layouts: which sensor or pixel index each cell has, from a few words.

Boards are wired in rows or columns, often serpentine (every other line runs back),
starting from any corner; ``grid_indices`` turns that description into one index per
cell, so nobody types 144 numbers.  Logical positions are the cells in maze order
(row by row from the top left), then the camp slots, then the sarcophagus slots.
"""

from __future__ import annotations

from dataclasses import dataclass

ORDERS = ("rows", "columns")
ORIGINS = ("top-left", "top-right", "bottom-left", "bottom-right")


@dataclass(frozen=True)
class GridLayout:
    """How a chain of sensors or pixels runs through the grid."""

    order: str = "rows"  # the chain runs along rows (or columns) first
    origin: str = "top-left"  # the corner cell that has index ``first_index``
    serpentine: bool = False  # every other row (column) runs the other way
    first_index: int = 0
    #: Indices from one row (column) to the next; None: the row's length.  A diode
    #: matrix one column wider than the maze keeps row r of the maze on matrix row r.
    stride: int | None = None
    #: (columns, rows) of a circuit-board tile: the chain runs tile by tile, tiles in
    #: the order above, and inside each tile through its cells in the same order.
    tile: tuple[int, int] | None = None


def _position(col: int, row: int, columns: int, rows: int, layout: GridLayout) -> int:
    """Where (col, row) comes in a grid of ``columns`` x ``rows`` run as ``layout`` says."""
    r = rows - 1 - row if layout.origin.startswith("bottom") else row
    c = columns - 1 - col if layout.origin.endswith("right") else col
    if layout.order == "rows":
        line, pos, length = r, c, columns
    else:
        line, pos, length = c, r, rows
    if layout.serpentine and line % 2 == 1:
        pos = length - 1 - pos
    stride = length if layout.stride is None else layout.stride
    return line * stride + pos


def grid_indices(columns: int, rows: int, layout: GridLayout) -> list[int]:
    """The chain index of every cell, cells in maze order (row by row from the top left)."""
    if layout.order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}")
    if layout.origin not in ORIGINS:
        raise ValueError(f"origin must be one of {', '.join(ORIGINS)}")
    line_length = columns if layout.order == "rows" else rows
    stride = line_length if layout.stride is None else layout.stride
    if stride < line_length:
        raise ValueError(f"stride must be at least the {layout.order[:-1]} length {line_length}")
    indices = [0] * (columns * rows)
    if layout.tile is not None:
        across, down = layout.tile
        if layout.stride is not None:
            raise ValueError("a tiled layout has no stride")
        if across < 1 or down < 1 or columns % across or rows % down:
            raise ValueError(
                f"tiles of {across} x {down} cells do not divide the {columns} x {rows} maze"
            )
        for row in range(rows):
            for col in range(columns):
                tile = _position(
                    col // across, row // down, columns // across, rows // down, layout
                )
                inside = _position(col % across, row % down, across, down, layout)
                indices[row * columns + col] = layout.first_index + tile * across * down + inside
        return indices
    for row in range(rows):
        for col in range(columns):
            indices[row * columns + col] = layout.first_index + _position(
                col, row, columns, rows, layout
            )
    return indices


def logical_positions(columns: int, rows: int, camp: int, sarcophagus: int) -> int:
    """How many logical positions a board has: every cell, then every pad."""
    return columns * rows + camp + sarcophagus
