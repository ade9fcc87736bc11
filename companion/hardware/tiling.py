"""Putting a true-scale sheet on paper: one page when it fits, tiles when it does not.

A sheet is never scaled: a 25 mm cell must print as 25 mm.  When a sheet is larger
than the printable area of the chosen page (inside a 10 mm margin, which every
printer can print), it is cut into a grid of tiles that overlap by at least
``OVERLAP`` mm, in the orientation that needs the fewest pages.  Every tile carries:

- alignment marks (a circle with a cross) at the same sheet positions on both pages of
  each overlap, so the pages can be laid over each other exactly;
- a dashed trim line in the middle of each overlap on the page to the left of it and
  above it: trim along it, lay the page over its neighbour, match the marks, tape;
- a label with the page number, its row and column, and a small map of all pages.

A 12 x 12 maze at 25 mm is 300 mm wide, 3 mm more than an A3 sheet, so the default
maze sheet takes two A3 pages (or four A4 pages); a print shop can print the SVG in
one piece on A2 or SRA3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .drawing import Circle, Drawing, Item, Line, Rect, Style, Text

#: Printable margin kept free on every page edge (mm).
MARGIN = 10.0
#: Least overlap between neighbouring tiles (mm).
OVERLAP = 12.0
MARK_RADIUS = 2.5
MARK_STYLE = Style(stroke="#000000", width=0.2)
TRIM_STYLE = Style(stroke="#000000", width=0.25, dash=(3.0, 2.0))


@dataclass(frozen=True)
class PageSize:
    """A paper size in portrait orientation (mm)."""

    name: str
    width: float
    height: float


PAGE_SIZES = {
    "a4": PageSize("A4", 210.0, 297.0),
    "a3": PageSize("A3", 297.0, 420.0),
    "a2": PageSize("A2", 420.0, 594.0),
}


@dataclass(frozen=True)
class Tile:
    """One printed page: which part of the sheet it shows, where, and its marks.

    ``window`` is (x, y, width, height) on the sheet; ``origin`` is where the window's
    top-left corner lies on the page; ``furniture`` (marks, trim lines, the label) is
    in page coordinates and is drawn over the sheet.
    """

    page_width: float
    page_height: float
    window: tuple[float, float, float, float]
    origin: tuple[float, float]
    furniture: tuple[Item, ...]


def tile_count(length: float, printable: float, overlap: float = OVERLAP) -> int:
    """Pages needed along one side for a sheet ``length`` mm long."""
    if length <= printable + 1e-9:
        return 1
    return math.ceil((length - printable) / (printable - overlap) - 1e-9) + 1


def _windows(length: float, printable: float, count: int) -> list[tuple[float, float]]:
    """(start, length) of each tile's window along one side, spread evenly."""
    if count == 1:
        return [(0.0, length)]
    step = (length - printable) / (count - 1)
    return [(i * step, printable) for i in range(count)]


def orientation(sheet: Drawing, page: PageSize, margin: float = MARGIN) -> tuple[float, float]:
    """(page width, page height) in the orientation that needs the fewest pages.

    On a tie the orientation whose shape matches the sheet's wins.
    """
    options = [(page.width, page.height), (page.height, page.width)]

    def cost(size: tuple[float, float]) -> tuple[int, int]:
        w, h = size
        pages = tile_count(sheet.width, w - 2 * margin) * tile_count(sheet.height, h - 2 * margin)
        matches = (w >= h) == (sheet.width >= sheet.height)
        return (pages, 0 if matches else 1)

    return min(options, key=cost)


def plan_tiles(
    sheet: Drawing, page: PageSize, *, margin: float = MARGIN, overlap: float = OVERLAP
) -> list[Tile]:
    """The pages that print ``sheet`` at true scale on paper of size ``page``."""
    page_w, page_h = orientation(sheet, page, margin)
    print_w, print_h = page_w - 2 * margin, page_h - 2 * margin
    columns = _windows(sheet.width, print_w, tile_count(sheet.width, print_w, overlap))
    rows = _windows(sheet.height, print_h, tile_count(sheet.height, print_h, overlap))
    total = len(columns) * len(rows)
    tiles = []
    for r, (wy, wh) in enumerate(rows):
        for c, (wx, ww) in enumerate(columns):
            ox = margin + (print_w - ww) / 2 if len(columns) == 1 else margin
            oy = margin + (print_h - wh) / 2 if len(rows) == 1 else margin
            window = (wx, wy, ww, wh)
            items: list[Item] = []
            if total > 1:
                items += _marks(window, (ox, oy), columns, rows, r, c)
            items += _label(sheet, page, (page_w, page_h), margin, total, columns, rows, r, c)
            tiles.append(Tile(page_w, page_h, window, (ox, oy), tuple(items)))
    return tiles


def _band_centres(windows: list[tuple[float, float]]) -> list[float]:
    """The middle of each overlap between neighbouring windows."""
    return [
        (windows[i + 1][0] + windows[i][0] + windows[i][1]) / 2 for i in range(len(windows) - 1)
    ]


def _marks(
    window: tuple[float, float, float, float],
    origin: tuple[float, float],
    columns: list[tuple[float, float]],
    rows: list[tuple[float, float]],
    r: int,
    c: int,
) -> list[Item]:
    wx, wy, ww, wh = window
    ox, oy = origin

    def page(x: float, y: float) -> tuple[float, float]:
        return (ox + x - wx, oy + y - wy)

    items: list[Item] = []
    xs = _band_centres(columns)
    ys = _band_centres(rows)
    # Trim lines: on the right and bottom overlaps of this page.
    if c < len(columns) - 1:
        x0, y0 = page(xs[c], wy)
        items.append(Line(x0, y0, x0, y0 + wh, TRIM_STYLE))
    if r < len(rows) - 1:
        x0, y0 = page(wx, ys[r])
        items.append(Line(x0, y0, x0 + ww, y0, TRIM_STYLE))
    # Alignment marks: along every overlap this page shares with a neighbour.
    points: set[tuple[float, float]] = set()
    for i, x in enumerate(xs):
        if i in (c - 1, c):
            for f in (0.15, 0.5, 0.85):
                points.add((x, wy + f * wh))
    for j, y in enumerate(ys):
        if j in (r - 1, r):
            for f in (0.15, 0.5, 0.85):
                points.add((wx + f * ww, y))
    for x, y in sorted(points):
        px, py = page(x, y)
        items.append(Circle(px, py, MARK_RADIUS, MARK_STYLE))
        items.append(Line(px - 2 * MARK_RADIUS, py, px + 2 * MARK_RADIUS, py, MARK_STYLE))
        items.append(Line(px, py - 2 * MARK_RADIUS, px, py + 2 * MARK_RADIUS, MARK_STYLE))
    return items


def _label(
    sheet: Drawing,
    page: PageSize,
    size: tuple[float, float],
    margin: float,
    total: int,
    columns: list[tuple[float, float]],
    rows: list[tuple[float, float]],
    r: int,
    c: int,
) -> list[Item]:
    """The page's name in the top margin, what to do in the bottom one, a map of pages."""
    page_w, page_h = size
    top = margin - 3.0
    bottom = page_h - margin + 4.0
    grey = "#444444"
    if total == 1:
        return [
            Text(margin, top, sheet.title, 2.4, fill=grey),
            Text(
                margin,
                bottom,
                f"Print at 100 % (actual size, no fit-to-page) on {page.name}.",
                2.2,
                fill=grey,
            ),
        ]
    number = r * len(columns) + c + 1
    items: list[Item] = [
        Text(
            margin,
            top,
            f"{sheet.title}: page {number} of {total} (row {r + 1}, column {c + 1})",
            2.4,
            fill=grey,
        ),
        Text(
            margin,
            bottom,
            f"{page.name} at 100 %. Trim along the dashed lines, lay each page over the "
            "next one and match the marks.",
            2.2,
            fill=grey,
        ),
    ]
    cell = min(2.4, 5.5 / len(rows))
    x0 = page_w - margin - cell * len(columns)
    y0 = top + 0.5 - cell * len(rows)
    for rr in range(len(rows)):
        for cc in range(len(columns)):
            here = (rr, cc) == (r, c)
            items.append(
                Rect(
                    x0 + cc * cell,
                    y0 + rr * cell,
                    cell,
                    cell,
                    Style(stroke=grey, width=0.15, fill=grey if here else None),
                )
            )
    return items
