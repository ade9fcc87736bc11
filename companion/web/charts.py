"""The statistics as pictures: SVG drawn from the figures (pure functions).

Each picture is an ``<svg role="img">`` with a title a screen reader reads, and every
bar and cell carries its number as text: colour is never the only sign (the seekers'
bars are also striped, and the legend names both).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from markupsafe import Markup, escape

from companion.games.mummy.maze import Maze, column_letter
from companion.games.statistics import NameTally, Tally

#: Drawing units.
ROW = 34
LABEL_W = 170
BAR_W = 330


def _svg(width: int, height: int, title: str, body: str, defs: str = "") -> Markup:
    return Markup(
        f'<svg class="stats-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{defs}{body}</svg>"
    )


STRIPES = (
    '<defs><pattern id="stripes" width="8" height="8" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect width="8" height="8" fill="#36c"/>'
    '<rect width="3" height="8" fill="#7fb6ff"/></pattern></defs>'
)


def _legend(first: str, first_mark: str, second: str, second_mark: str) -> str:
    """Two swatches with their words above the bars."""
    x = LABEL_W
    return (
        f'<rect x="{x}" y="4" width="16" height="16" {first_mark}/>'
        f'<text x="{x + 22}" y="17">{escape(first)}</text>'
        f'<rect x="{x + 170}" y="4" width="16" height="16" {second_mark}/>'
        f'<text x="{x + 192}" y="17">{escape(second)}</text>'
    )


def win_bars(title: str, rows: Sequence[tuple[str, Tally]], mummy: str, seekers: str) -> Markup:
    """One bar per group: the mummy's wins (solid) and the seekers' (striped), each
    with its count written on it, and the games of the group at the end."""
    height = ROW * (len(rows) + 1) + 10
    parts = [_legend(mummy, 'class="bar-mummy"', seekers, 'class="bar-seekers"')]
    for i, (label, t) in enumerate(rows):
        y = ROW * (i + 1)
        share = t.mummy / t.games if t.games else 0.0
        mw = round(BAR_W * share)
        parts.append(f'<text x="4" y="{y + 20}">{escape(label)}</text>')
        parts.append(
            f'<rect x="{LABEL_W}" y="{y + 4}" width="{mw}" height="24" class="bar-mummy"/>'
            f'<rect x="{LABEL_W + mw}" y="{y + 4}" width="{BAR_W - mw}" height="24" '
            'class="bar-seekers"/>'
        )
        if t.mummy:
            parts.append(
                f'<text x="{LABEL_W + 4}" y="{y + 21}" fill="#1b1712" '
                f'style="fill:#1b1712">{t.mummy}</text>'
            )
        if t.seekers:
            parts.append(
                f'<text x="{LABEL_W + BAR_W - 4}" y="{y + 21}" text-anchor="end" '
                f'style="paint-order:stroke;stroke:#000;stroke-width:3px">{t.seekers}</text>'
            )
        parts.append(f'<text x="{LABEL_W + BAR_W + 8}" y="{y + 21}">= {t.games}</text>')
    return _svg(LABEL_W + BAR_W + 60, height, title, "".join(parts), STRIPES)


def name_bars(title: str, rows: Sequence[NameTally], wins: str, games: str) -> Markup:
    """Per name: games played (outline) and won (filled), both written as numbers."""
    top = max((r.games for r in rows), default=1) or 1
    height = ROW * (len(rows) + 1) + 10
    parts = [_legend(wins, 'fill="#e0a84a"', games, 'fill="none" stroke="#f3ead8"')]
    for i, r in enumerate(rows):
        y = ROW * (i + 1)
        gw = round(BAR_W * r.games / top)
        ww = round(BAR_W * r.wins / top)
        parts.append(
            f'<text x="4" y="{y + 20}">{escape(r.name)}</text>'
            f'<rect x="{LABEL_W}" y="{y + 4}" width="{gw}" height="24" fill="none" '
            'stroke="#f3ead8"/>'
            f'<rect x="{LABEL_W}" y="{y + 4}" width="{ww}" height="24" fill="#e0a84a"/>'
            f'<text x="{LABEL_W + max(gw, ww) + 6}" y="{y + 21}">{r.wins} / {r.games}</text>'
        )
    return _svg(LABEL_W + BAR_W + 80, height, title, "".join(parts))


def heat_map(
    title: str,
    maze: Maze,
    counts: Mapping[int, int],
    label: Callable[[str, int], str],
    rooms: Mapping[str, int],
) -> Markup:
    """The maze with every cell shaded by how often the mummy caught a figure there,
    the count written in the cell, the columns' letters and the rows' numbers around it
    (to find "C7" as the words name it), and ``rooms``' counts (a place off the grid,
    by its name) below the maze."""
    c = 40
    w, h = maze.width, maze.height
    top = max([*counts.values(), *rooms.values()], default=0) or 1
    parts = []
    for col in range(w):
        parts.append(
            f'<text x="{col * c + c / 2}" y="-10" text-anchor="middle" class="coord">'
            f"{column_letter(col)}</text>"
        )
    for row in range(h):
        parts.append(
            f'<text x="-10" y="{row * c + c / 2 + 5}" text-anchor="end" class="coord">'
            f"{row + 1}</text>"
        )
    for cell in range(maze.cell_count):
        row, col = divmod(cell, w)
        n = counts.get(cell, 0)
        alpha = 0.0 if n == 0 else 0.2 + 0.8 * n / top
        name = maze.cell_name(cell)
        parts.append(
            f'<rect x="{col * c}" y="{row * c}" width="{c}" height="{c}" class="cell-heat" '
            f'fill="#2a241c"/><rect x="{col * c}" y="{row * c}" width="{c}" height="{c}" '
            f'fill="#ff3b2f" fill-opacity="{alpha:.2f}"><title>'
            f"{escape(label(name, n))}</title></rect>"
        )
        if n:
            parts.append(
                f'<text x="{col * c + c / 2}" y="{row * c + c / 2 + 7}" text-anchor="middle" '
                f'class="count">{n}'
                "</text>"
            )
    for i, (room, n) in enumerate(sorted(rooms.items())):
        parts.append(
            f'<text x="0" y="{h * c + 28 + 24 * i}" class="coord">{escape(label(room, n))}</text>'
        )
    sides = maze.open_sides
    for cell in range(maze.cell_count):
        row, col = divmod(cell, w)
        x, y = col * c, row * c
        open_ = {d.value for d in sides[cell]}
        if "north" not in open_:
            parts.append(f'<line x1="{x}" y1="{y}" x2="{x + c}" y2="{y}" class="wall"/>')
        if "west" not in open_:
            parts.append(f'<line x1="{x}" y1="{y}" x2="{x}" y2="{y + c}" class="wall"/>')
        if row == h - 1:
            parts.append(f'<line x1="{x}" y1="{y + c}" x2="{x + c}" y2="{y + c}" class="wall"/>')
        if col == w - 1:
            parts.append(f'<line x1="{x + c}" y1="{y}" x2="{x + c}" y2="{y + c}" class="wall"/>')
    style = (
        "<style>.wall{stroke:#d8c9a8;stroke-width:3;stroke-linecap:round}"
        ".heat .coord{font-size:22px}.heat .count{font-size:20px;font-weight:bold;"
        "paint-order:stroke;stroke:#000;stroke-width:3px}</style>"
    )
    below = 24 * len(rooms) + (10 if rooms else 0)
    return Markup(
        f'<svg class="stats-chart heat" viewBox="-40 -40 {w * c + 48} {h * c + 48 + below}" '
        f'role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{style}{''.join(parts)}</svg>"
    )
