"""The Into the Crypt overlay: the 8x8 board, printed to lie on the maze's centre.

Into the Crypt is played on the central 8x8 cells of the maze board (maze cells C3
to J10, docs/crypt.md), so its board is a sheet laid over the maze at the same
pitch: square a8 on maze cell C3, h1 on J10, rank 1 towards the camp.  It shows the
4x4 tiles of 2x2 squares (thicker lines), the four green corner tiles (no cubes),
the yellow tiles, the crypt across the middle with a lock on each of its squares and
the white meeple in the centre, and the four start corners.  Every square carries
its name (a1..h8) and the maze cell beneath it, and crop marks show where to cut.

Square colours, names and cells come from ``companion.games.crypt.board``, the same
module the engine uses.  With ``assembly=True`` each square also shows the sensor and
pixel of its maze cell (``sheets.assembly_layer``).
"""

from __future__ import annotations

from companion.board.config import BoardConfig
from companion.games.crypt.board import (
    FILES,
    MAZE_WIDTH,
    SIZE,
    file_of,
    is_corner,
    is_crypt,
    is_green,
    maze_cell,
    rank_of,
    square_name,
)
from companion.games.mummy.maze import column_letter

from .drawing import (
    INK,
    Circle,
    Drawing,
    Group,
    Item,
    Line,
    Rect,
    Style,
    Text,
    ellipse,
    polygon,
)
from .sheets import MARGIN, SheetError, assembly_layer

TITLE_HEIGHT = 18.0
CROP_SPACE = 12.0
LEGEND_HEIGHT = 26.0
GREEN = "#8fcf8a"
YELLOW = "#f6e08a"
CRYPT = "#4f9e57"


def crop_marks(
    x: float, y: float, w: float, h: float, gap: float = 3.0, length: float = 7.0
) -> list[Item]:
    """Short lines outside each corner of a box, in line with its edges: cut here."""
    style = Style(stroke=INK, width=0.2)
    items: list[Item] = []
    for cx, dx in ((x, -1), (x + w, 1)):
        for cy, dy in ((y, -1), (y + h, 1)):
            items.append(Line(cx + dx * gap, cy, cx + dx * (gap + length), cy, style))
            items.append(Line(cx, cy + dy * gap, cx, cy + dy * (gap + length), style))
    return items


def padlock(cx: float, cy: float, size: float) -> list[Item]:
    """A lock (the white cube on a crypt square)."""
    body = Style(stroke=INK, width=0.3, fill="#ffffff")
    return [
        ellipse(
            cx,
            cy - size * 0.35,
            size * 0.32,
            size * 0.38,
            Style(stroke="#ffffff", width=size * 0.12),
        ),
        Rect(cx - size * 0.48, cy - size * 0.3, size * 0.96, size * 0.75, body),
        Circle(cx, cy + 0.02 * size, size * 0.1, Style(stroke=None, fill=INK)),
        Line(cx, cy + 0.05 * size, cx, cy + 0.25 * size, Style(stroke=INK, width=size * 0.08)),
    ]


def meeple(cx: float, cy: float, size: float, fill: str = "#ffffff") -> list[Item]:
    """A meeple silhouette of height ``size`` centred on (cx, cy)."""
    s = size / 2
    style = Style(stroke=INK, width=0.35, fill=fill)
    body = polygon(
        [
            (cx - 0.22 * s, cy - 0.45 * s),
            (cx - 0.9 * s, cy - 0.2 * s),
            (cx - 0.9 * s, cy + 0.05 * s),
            (cx - 0.4 * s, cy + 0.05 * s),
            (cx - 0.75 * s, cy + s),
            (cx - 0.1 * s, cy + s),
            (cx, cy + 0.55 * s),
            (cx + 0.1 * s, cy + s),
            (cx + 0.75 * s, cy + s),
            (cx + 0.4 * s, cy + 0.05 * s),
            (cx + 0.9 * s, cy + 0.05 * s),
            (cx + 0.9 * s, cy - 0.2 * s),
            (cx + 0.22 * s, cy - 0.45 * s),
        ],
        style,
    )
    return [body, Circle(cx, cy - 0.68 * s, 0.3 * s, style)]


def _square_labels(sq: int, x: float, y: float, p: float, cell: str) -> list[Item]:
    """The square's name and the maze cell under it, in two corners.

    On the crypt's squares both go to the outer corners, clear of the white meeple in
    the middle: the name in the corner farthest from the centre, the cell beside it.
    """
    if not is_crypt(sq):
        return [
            Text(x + 1.6, y + 4.4, square_name(sq), 3.4, fill=INK, bold=True),
            Text(x + p - 1.4, y + p - 1.6, cell, 2.0, "end", fill="#6b6b6b"),
        ]
    left = file_of(sq) < SIZE // 2
    top = rank_of(sq) >= SIZE // 2
    name_y = y + 4.4 if top else y + p - 1.6
    near, far = (x + 1.6, x + p - 1.4) if left else (x + p - 1.4, x + 1.6)
    return [
        Text(near, name_y, square_name(sq), 3.4, "start" if left else "end", "#ffffff", bold=True),
        Text(far, name_y, cell, 2.0, "end" if left else "start", "#e0e0e0"),
    ]


def crypt_sheet(config: BoardConfig, *, assembly: bool = False) -> Drawing:
    """The 8x8 overlay at the config's pitch (see the module docstring)."""
    if assembly and (config.columns, config.rows) != (MAZE_WIDTH, MAZE_WIDTH):
        raise SheetError(
            f"the crypt overlay lies on a {MAZE_WIDTH}x{MAZE_WIDTH} maze board; the board config "
            f"{config.source} has {config.columns}x{config.rows} cells"
        )
    p = config.cell_pitch_mm
    side = SIZE * p
    width = 2 * MARGIN + 2 * CROP_SPACE + side
    height = MARGIN + TITLE_HEIGHT + 2 * CROP_SPACE + side + LEGEND_HEIGHT + MARGIN
    x0 = MARGIN + CROP_SPACE
    y0 = MARGIN + TITLE_HEIGHT + CROP_SPACE

    def box(sq: int) -> tuple[float, float]:
        return (x0 + file_of(sq) * p, y0 + (SIZE - 1 - rank_of(sq)) * p)

    fills: list[Item] = []
    labels: list[Item] = []
    marks: list[Item] = []
    for sq in range(SIZE * SIZE):
        x, y = box(sq)
        colour = CRYPT if is_crypt(sq) else GREEN if is_green(sq) else YELLOW
        kind = "crypt" if is_crypt(sq) else "green" if is_green(sq) else "yellow"
        fills.append(
            Group(
                (Rect(x, y, p, p, Style(stroke=None, fill=colour)),),
                cls="square",
                data=(("square", square_name(sq)), ("kind", kind)),
            )
        )
        row, col = divmod(maze_cell(sq), MAZE_WIDTH)
        labels += _square_labels(sq, x, y, p, f"{column_letter(col)}{row + 1}")
        if is_crypt(sq):
            marks += padlock(x + p / 2, y + p / 2 + 1.0, p * 0.34)
        if is_corner(sq):
            marks.append(
                Circle(
                    x + p / 2, y + p / 2, p * 0.3, Style(stroke=INK, width=0.35, dash=(1.2, 0.9))
                )
            )
            marks.append(Text(x + p / 2, y + p / 2 + 1.1, "start", 3.0, "middle", "#333333"))
    lines: list[Item] = []
    thin = Style(stroke="#555555", width=0.25)
    tile = Style(stroke=INK, width=0.9)
    for i in range(SIZE + 1):
        style = tile if i % 2 == 0 else thin
        lines.append(Line(x0 + i * p, y0, x0 + i * p, y0 + side, style))
        lines.append(Line(x0, y0 + i * p, x0 + side, y0 + i * p, style))
    crypt_box = Rect(x0 + 3 * p, y0 + 3 * p, 2 * p, 2 * p, Style(stroke=INK, width=1.6))
    centre = meeple(x0 + 4 * p, y0 + 4 * p, p * 0.5)
    items: list[Item] = [
        Group(tuple(fills), id="squares"),
        Group(tuple(lines), id="tiles"),
        Group((crypt_box,), id="crypt"),
        Group(tuple(labels), id="names"),
        Group(tuple(marks), id="marks"),
        Group(tuple(centre), id="white-meeple"),
        Group(tuple(crop_marks(x0, y0, side, side)), id="crop-marks"),
    ]
    if assembly:
        centres = {}
        for sq in range(SIZE * SIZE):
            x, y = box(sq)
            centres[maze_cell(sq)] = (x + p / 2, y + p / 2)
        items.append(assembly_layer(config, centres, p))
    title = "Into the Crypt: board overlay" + (" - assembly sheet" if assembly else "")
    header: list[Item] = [
        Text(MARGIN, MARGIN + 6.5, title, 6.5, bold=True),
        Text(
            MARGIN,
            MARGIN + 12.5,
            f"8 x 8 squares of {p:g} mm. Cut along the crop marks and lay it on maze cells "
            "C3 to J10: a8 on C3, h1 on J10, rank 1 towards the camp.",
            2.8,
            fill="#333333",
        ),
    ]
    ly = y0 + side + CROP_SPACE + 3.0
    legend: list[Item] = [
        Text(
            x0 + side / 2,
            y0 - 4.0,
            "rank 8: sarcophagus side (maze row 3)",
            2.6,
            "middle",
            "#333333",
        ),
        Text(
            x0 + side / 2,
            y0 + side + 6.5,
            "rank 1: camp side (maze row 10)",
            2.6,
            "middle",
            "#333333",
        ),
        Rect(MARGIN, ly, 6, 6, Style(stroke=INK, width=0.25, fill=GREEN)),
        Text(MARGIN + 8, ly + 4.4, "green corner tile: no cubes", 2.6),
        Rect(MARGIN + 60, ly, 6, 6, Style(stroke=INK, width=0.25, fill=YELLOW)),
        Text(MARGIN + 68, ly + 4.4, "yellow tile: cubes may be placed", 2.6),
        Rect(MARGIN + 132, ly, 6, 6, Style(stroke=INK, width=0.25, fill=CRYPT)),
        Text(MARGIN + 140, ly + 4.4, "the crypt: a lock on each square", 2.6),
        Text(
            MARGIN,
            ly + 12.5,
            "Meeples start on a free corner (a1, a8, h1, h8); the white meeple waits in the "
            f"middle of the crypt. Files {FILES[0]} to {FILES[-1]} run left to right.",
            2.6,
        ),
    ]
    items += [Group(tuple(header), id="title"), Group(tuple(legend), id="legend")]
    return Drawing(
        width,
        height,
        title,
        tuple(items),
        description=f"Into the Crypt board overlay, 8 x 8 squares of {p:g} mm, true scale.",
    )
