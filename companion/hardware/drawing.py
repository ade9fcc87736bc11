"""A small vector drawing model in millimetres, and its SVG form.

Sheets are built once as a ``Drawing`` (lines, rectangles, circles, paths and text,
grouped) and written both as SVG and as PDF (``pdf.py``), so the two can never show
different things.  Coordinates are millimetres with y pointing down, as in SVG; an
SVG is written with ``width``/``height`` in mm and a matching ``viewBox``, so one
user unit is one millimetre and the sheet prints at true scale.

Output is deterministic (numbers rounded to 0.01 mm, no dates, ids from the content),
so committed sheets can be compared byte for byte with freshly generated ones.
Text uses Helvetica (Arial and Liberation Sans have the same widths), whose widths
``text_width`` knows, so layout code can centre and wrap text the same way in both
formats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

#: A colour as ``"#rrggbb"``.
Colour = str

INK = "#1a1a1a"
FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', sans-serif"


@dataclass(frozen=True)
class Style:
    """How a shape is painted: stroke (None: no outline), its width, fill, dashes."""

    stroke: Colour | None = INK
    width: float = 0.25
    fill: Colour | None = None
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Line:
    """A straight line from (x1, y1) to (x2, y2)."""

    x1: float
    y1: float
    x2: float
    y2: float
    style: Style = Style()


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle; (x, y) is its top-left corner."""

    x: float
    y: float
    w: float
    h: float
    style: Style = Style()


@dataclass(frozen=True)
class Circle:
    """A circle around (cx, cy)."""

    cx: float
    cy: float
    r: float
    style: Style = Style()


#: One path command: ``("M", (x, y))``, ``("L", (x, y))``,
#: ``("C", (x1, y1, x2, y2, x, y))`` or ``("Z", ())``.
PathCommand = tuple[str, tuple[float, ...]]


@dataclass(frozen=True)
class Path:
    """Lines and cubic Bezier curves (``PathCommand``), open or closed with Z."""

    commands: tuple[PathCommand, ...]
    style: Style = Style()


@dataclass(frozen=True)
class Text:
    """A line of text; ``y`` is the baseline, ``anchor`` is start, middle or end."""

    x: float
    y: float
    text: str
    size: float = 3.0
    anchor: str = "start"
    fill: Colour = INK
    bold: bool = False


@dataclass(frozen=True)
class Group:
    """Items drawn together, moved by ``translate`` and then scaled by ``scale``.

    ``id``, ``cls`` and ``data`` become SVG attributes (``data`` as ``data-*``), so
    tests and tools can find a treasure or a layer in the SVG; the PDF ignores them.
    """

    items: tuple[Item, ...]
    id: str | None = None
    cls: str | None = None
    data: tuple[tuple[str, str], ...] = ()
    translate: tuple[float, float] = (0.0, 0.0)
    scale: float = 1.0


Item = Line | Rect | Circle | Path | Text | Group


@dataclass(frozen=True)
class Drawing:
    """A whole sheet: its size in mm, a title, and what is drawn on it."""

    width: float
    height: float
    title: str
    items: tuple[Item, ...]
    description: str = ""


# -- helpers for building drawings -----------------------------------------------------


def polygon(points: Sequence[tuple[float, float]], style: Style) -> Path:
    """A closed polygon through ``points``."""
    first, *rest = points
    commands: list[PathCommand] = [("M", first)]
    commands += [("L", p) for p in rest]
    commands.append(("Z", ()))
    return Path(tuple(commands), style)


def polyline(points: Sequence[tuple[float, float]], style: Style) -> Path:
    """An open line through ``points``."""
    first, *rest = points
    return Path((("M", first), *(("L", p) for p in rest)), style)


def regular_polygon(
    cx: float, cy: float, r: float, sides: int, style: Style, rotation: float = -90.0
) -> Path:
    """A regular polygon with circumradius ``r``; the first corner at ``rotation`` degrees."""
    points = []
    for i in range(sides):
        angle = math.radians(rotation + 360.0 * i / sides)
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return polygon(points, style)


def ellipse(cx: float, cy: float, rx: float, ry: float, style: Style) -> Path:
    """An ellipse as four cubic Bezier arcs (the same curves in SVG and PDF)."""
    k = 0.5522847498
    return Path(
        (
            ("M", (cx + rx, cy)),
            ("C", (cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry)),
            ("C", (cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy)),
            ("C", (cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry)),
            ("C", (cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy)),
            ("Z", ()),
        ),
        style,
    )


def arrow_head(x: float, y: float, dx: float, dy: float, size: float, colour: Colour = INK) -> Path:
    """A filled triangle with its tip at (x, y), pointing along (dx, dy)."""
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    bx, by = x - ux * size, y - uy * size
    half = size * 0.45
    return polygon(
        [(x, y), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)],
        Style(stroke=None, fill=colour),
    )


def iter_items(items: Iterable[Item]) -> Iterator[Item]:
    """Every item, groups included, depth first (for tests and counting)."""
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from iter_items(item.items)


# -- text metrics (Helvetica, from Adobe's AFM files; WinAnsi codes 32 to 126) ------------

_HELVETICA = (
    "278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 556 556 556 556 "
    "556 556 556 556 556 556 278 278 584 584 584 556 1015 667 667 722 722 667 611 778 "
    "722 278 500 667 556 833 722 778 667 778 722 667 611 722 667 944 667 667 611 278 "
    "278 278 469 556 333 556 556 500 556 556 278 556 556 222 222 500 222 833 556 556 "
    "556 556 333 500 278 556 500 722 500 500 500 334 260 334 584"
)
_HELVETICA_BOLD = (
    "278 333 474 556 556 889 722 238 333 333 389 584 278 333 278 278 556 556 556 556 "
    "556 556 556 556 556 556 333 333 584 584 584 611 975 722 722 722 722 667 611 778 "
    "722 278 556 722 611 833 722 778 667 778 722 667 611 722 667 944 667 667 611 333 "
    "278 333 584 556 333 556 611 556 611 556 333 611 611 278 278 556 278 889 611 611 "
    "611 611 389 556 333 611 556 778 556 556 500 389 280 389 584"
)
WIDTHS = {
    False: tuple(int(w) for w in _HELVETICA.split()),
    True: tuple(int(w) for w in _HELVETICA_BOLD.split()),
}


def char_width(char: str, bold: bool = False) -> int:
    """Width of one character in thousandths of the font size."""
    code = ord(char)
    if 32 <= code <= 126:
        return WIDTHS[bold][code - 32]
    return 556


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` in mm at font size ``size`` mm."""
    return sum(char_width(c, bold) for c in text) * size / 1000.0


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """Split ``text`` at spaces into lines no wider than ``width`` where possible."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size, bold) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


# -- SVG ---------------------------------------------------------------------------------


def num(value: float) -> str:
    """A coordinate as short, stable text: 0.01 mm resolution, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _style_attrs(style: Style) -> str:
    parts = [
        f'fill="{style.fill or "none"}"',
        f'stroke="{style.stroke or "none"}"',
    ]
    if style.stroke:
        parts.append(f'stroke-width="{num(style.width)}"')
        if style.dash:
            parts.append(f'stroke-dasharray="{" ".join(num(d) for d in style.dash)}"')
    return " ".join(parts)


def path_data(commands: Iterable[PathCommand]) -> str:
    """SVG path data (``d``) for path commands."""
    out = []
    for op, args in commands:
        out.append(" ".join([op, *(num(a) for a in args)]))
    return " ".join(out)


def _svg_item(item: Item, indent: str, out: list[str]) -> None:
    if isinstance(item, Line):
        out.append(
            f'{indent}<line x1="{num(item.x1)}" y1="{num(item.y1)}" x2="{num(item.x2)}" '
            f'y2="{num(item.y2)}" {_style_attrs(item.style)}/>'
        )
    elif isinstance(item, Rect):
        out.append(
            f'{indent}<rect x="{num(item.x)}" y="{num(item.y)}" width="{num(item.w)}" '
            f'height="{num(item.h)}" {_style_attrs(item.style)}/>'
        )
    elif isinstance(item, Circle):
        out.append(
            f'{indent}<circle cx="{num(item.cx)}" cy="{num(item.cy)}" r="{num(item.r)}" '
            f"{_style_attrs(item.style)}/>"
        )
    elif isinstance(item, Path):
        out.append(f'{indent}<path d="{path_data(item.commands)}" {_style_attrs(item.style)}/>')
    elif isinstance(item, Text):
        anchor = "" if item.anchor == "start" else f' text-anchor="{item.anchor}"'
        weight = ' font-weight="bold"' if item.bold else ""
        out.append(
            f'{indent}<text x="{num(item.x)}" y="{num(item.y)}" font-size="{num(item.size)}"'
            f'{anchor}{weight} fill="{item.fill}">{escape(item.text)}</text>'
        )
    else:
        attrs = ""
        if item.id:
            attrs += f" id={quoteattr(item.id)}"
        if item.cls:
            attrs += f" class={quoteattr(item.cls)}"
        for key, value in item.data:
            attrs += f" data-{key}={quoteattr(value)}"
        transform = []
        if item.translate != (0.0, 0.0):
            transform.append(f"translate({num(item.translate[0])} {num(item.translate[1])})")
        if item.scale != 1.0:
            transform.append(f"scale({item.scale:.4f})")
        if transform:
            attrs += f' transform="{" ".join(transform)}"'
        out.append(f"{indent}<g{attrs}>")
        for child in item.items:
            _svg_item(child, indent + "  ", out)
        out.append(f"{indent}</g>")


def svg_lines(items: Iterable[Item], indent: str = "") -> list[str]:
    """SVG elements for ``items``, one line each (for a document of one's own)."""
    out: list[str] = []
    for item in items:
        _svg_item(item, indent, out)
    return out


def to_svg(drawing: Drawing) -> str:
    """The drawing as a standalone SVG document at true scale (user unit = 1 mm)."""
    w, h = num(drawing.width), num(drawing.height)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}" stroke-linecap="round" '
        'stroke-linejoin="round">',
        f"  <title>{escape(drawing.title)}</title>",
    ]
    if drawing.description:
        out.append(f"  <desc>{escape(drawing.description)}</desc>")
    out.append(f'  <rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff" stroke="none"/>')
    for item in drawing.items:
        _svg_item(item, "  ", out)
    out.append("</svg>")
    return "\n".join(out) + "\n"
