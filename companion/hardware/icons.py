"""The treasure icons: a shape family per colour and a glyph per treasure.

Colour alone does not tell treasures apart for everyone (red and green look alike to
one man in twelve) nor under a yellowish room light, so every colour has its own
badge shape and every treasure its own glyph inside it:

=========  ==========  ==============================
colour     badge       fill
=========  ==========  ==============================
red        circle      red, white glyph
blue       square      blue, white glyph
white      hexagon     white with a dark rim, dark glyph
green      triangle    green, white glyph
yellow     diamond     yellow, dark glyph
=========  ==========  ==============================

The 23 treasures of the default maze have drawn glyphs (a scarab, a sun disk, ...),
found by the words of the treasure's name; a treasure whose name matches none (a
custom maze) gets an abstract glyph (a ring of dots, a polygon), never one already
used, so each icon on a sheet is unique.  ``shape_id`` names badge and glyph, such as
``"circle/scarab"``: the SVG carries it, and the tests check that no two are equal.

Glyphs are drawn in a unit box from -1 to 1 (y down) and scaled into the badge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from companion.games.mummy import symbols
from companion.games.mummy.maze import Colour, Treasure

from .drawing import (
    INK,
    Circle,
    Group,
    Item,
    Line,
    Path,
    PathCommand,
    Rect,
    Style,
    ellipse,
    polygon,
    polyline,
    regular_polygon,
)


@dataclass(frozen=True)
class Family:
    """How the treasures of one colour are drawn."""

    badge: str  # circle, square, hexagon, triangle, diamond
    fill: str
    ink: str  # the glyph's colour


FAMILIES = {
    Colour.RED: Family("circle", "#c8102e", "#ffffff"),
    Colour.BLUE: Family("square", "#1f5fbf", "#ffffff"),
    Colour.WHITE: Family("hexagon", "#ffffff", INK),
    Colour.GREEN: Family("triangle", "#2e8b3e", "#ffffff"),
    Colour.YELLOW: Family("diamond", "#f2c300", INK),
}

Glyph = Callable[[str, str], list[Item]]


def _s(ink: str, width: float = 0.13) -> Style:
    return Style(stroke=ink, width=width)


def _f(ink: str) -> Style:
    return Style(stroke=None, fill=ink)


def _path(*commands: PathCommand, style: Style) -> Path:
    return Path(tuple(commands), style)


def _rotate(
    points: Sequence[tuple[float, float]], degrees: float, about: tuple[float, float]
) -> list[tuple[float, float]]:
    a = math.radians(degrees)
    cx, cy = about
    return [
        (
            cx + (x - cx) * math.cos(a) - (y - cy) * math.sin(a),
            cy + (x - cx) * math.sin(a) + (y - cy) * math.cos(a),
        )
        for x, y in points
    ]


def _petal(degrees: float, ink: str) -> Path:
    base = (0.0, 0.55)
    pts = _rotate(
        [(0.0, 0.55), (0.3, 0.15), (0.25, -0.45), (0.0, -0.8), (-0.25, -0.45), (-0.3, 0.15)],
        degrees,
        base,
    )
    return _path(
        ("M", pts[0]),
        ("C", (*pts[1], *pts[2], *pts[3])),
        ("C", (*pts[4], *pts[5], *pts[0])),
        ("Z", ()),
        style=_f(ink),
    )


# -- the glyphs of the default maze's treasures -----------------------------------------
# Each glyph takes the ink and the paper (badge) colour and returns items in the unit box.


def scarab(ink: str, paper: str) -> list[Item]:
    legs: list[Item] = []
    for side in (-1, 1):
        for (x1, y1), (x2, y2) in (
            ((0.35, -0.15), (0.85, -0.45)),
            ((0.4, 0.15), (0.9, 0.2)),
            ((0.35, 0.45), (0.8, 0.85)),
        ):
            legs.append(Line(side * x1, y1, side * x2, y2, _s(ink, 0.12)))
    return [
        *legs,
        ellipse(0, 0.18, 0.45, 0.6, _f(ink)),
        ellipse(0, -0.55, 0.3, 0.2, _f(ink)),
        Line(0, -0.3, 0, 0.72, _s(paper, 0.08)),
        Line(-0.3, -0.32, 0.3, -0.32, _s(paper, 0.08)),
    ]


def sun_disk(ink: str, paper: str) -> list[Item]:
    rays: list[Item] = []
    for i in range(8):
        a = math.radians(22.5 + 45 * i)
        rays.append(
            Line(
                0.62 * math.cos(a),
                0.62 * math.sin(a),
                0.92 * math.cos(a),
                0.92 * math.sin(a),
                _s(ink),
            )
        )
    return [Circle(0, 0, 0.47, _f(ink)), *rays]


def crown(ink: str, paper: str) -> list[Item]:
    return [
        polygon(
            [
                (-0.75, 0.55),
                (-0.75, -0.4),
                (-0.38, 0.02),
                (0, -0.65),
                (0.38, 0.02),
                (0.75, -0.4),
                (0.75, 0.55),
            ],
            _f(ink),
        ),
        Circle(0, -0.72, 0.12, _f(ink)),
        Line(-0.6, 0.35, 0.6, 0.35, _s(paper, 0.08)),
    ]


def amulet(ink: str, paper: str) -> list[Item]:
    return [
        Circle(0, -0.72, 0.15, _s(ink, 0.1)),
        _path(
            ("M", (0, -0.55)),
            ("C", (0.6, -0.1, 0.65, 0.85, 0, 0.85)),
            ("C", (-0.65, 0.85, -0.6, -0.1, 0, -0.55)),
            ("Z", ()),
            style=_f(ink),
        ),
        Circle(0, 0.35, 0.17, _f(paper)),
    ]


def obelisk(ink: str, paper: str) -> list[Item]:
    return [
        polygon([(-0.24, 0.75), (-0.16, -0.55), (0, -0.88), (0.16, -0.55), (0.24, 0.75)], _f(ink)),
        Rect(-0.45, 0.75, 0.9, 0.16, _f(ink)),
        Line(-0.16, -0.52, 0.16, -0.52, _s(paper, 0.06)),
    ]


def canopic_jar(ink: str, paper: str) -> list[Item]:
    return [
        _path(
            ("M", (-0.35, -0.2)),
            ("L", (0.35, -0.2)),
            ("C", (0.65, 0.1, 0.55, 0.75, 0.3, 0.88)),
            ("L", (-0.3, 0.88)),
            ("C", (-0.55, 0.75, -0.65, 0.1, -0.35, -0.2)),
            ("Z", ()),
            style=_f(ink),
        ),
        ellipse(0, -0.52, 0.27, 0.32, _f(ink)),
        Circle(-0.1, -0.55, 0.05, _f(paper)),
        Circle(0.1, -0.55, 0.05, _f(paper)),
        Line(-0.3, 0.05, 0.3, 0.05, _s(paper, 0.06)),
    ]


def hippo(ink: str, paper: str) -> list[Item]:
    return [
        ellipse(0.15, 0.0, 0.64, 0.42, _f(ink)),
        ellipse(-0.52, 0.08, 0.4, 0.3, _f(ink)),
        Circle(-0.62, -0.24, 0.08, _f(ink)),
        Circle(-0.42, -0.27, 0.08, _f(ink)),
        Rect(-0.32, 0.25, 0.2, 0.45, _f(ink)),
        Rect(-0.02, 0.25, 0.2, 0.45, _f(ink)),
        Rect(0.38, 0.25, 0.2, 0.45, _f(ink)),
        Rect(0.58, 0.15, 0.16, 0.5, _f(ink)),
        Circle(-0.5, -0.06, 0.05, _f(paper)),
        Circle(-0.84, 0.08, 0.04, _f(paper)),
        Line(0.0, -0.12, 0.35, -0.12, _s(paper, 0.05)),
    ]


def lotus(ink: str, paper: str) -> list[Item]:
    return [
        Line(0, 0.55, 0, 0.95, _s(ink, 0.14)),
        _petal(-42, ink),
        _petal(42, ink),
        _petal(0, ink),
        Line(0, 0.5, 0, -0.35, _s(paper, 0.06)),
    ]


def necklace(ink: str, paper: str) -> list[Item]:
    beads = []
    for i in range(7):
        a = math.radians(15 + 150 * i / 6)
        beads.append((0.68 * math.cos(a), -0.35 + 0.68 * math.sin(a)))
    items: list[Item] = [polyline(beads, _s(ink, 0.06))]
    items += [Circle(x, y, 0.13, _f(ink)) for x, y in beads]
    items.append(polygon([(0, 0.45), (0.2, 0.7), (0, 0.95), (-0.2, 0.7)], _f(ink)))
    return items


def flask(ink: str, paper: str) -> list[Item]:
    return [
        Circle(0, 0.38, 0.48, _f(ink)),
        Rect(-0.15, -0.7, 0.3, 0.7, _f(ink)),
        Rect(-0.25, -0.82, 0.5, 0.14, _f(ink)),
        ellipse(-0.18, 0.3, 0.09, 0.16, _f(paper)),
    ]


def scroll(ink: str, paper: str) -> list[Item]:
    return [
        Rect(-0.5, -0.42, 1.0, 0.84, _f(ink)),
        ellipse(-0.6, 0, 0.14, 0.52, _f(ink)),
        ellipse(0.6, 0, 0.14, 0.52, _f(ink)),
        Line(-0.32, -0.18, 0.32, -0.18, _s(paper, 0.07)),
        Line(-0.32, 0.02, 0.32, 0.02, _s(paper, 0.07)),
        Line(-0.32, 0.22, 0.12, 0.22, _s(paper, 0.07)),
    ]


def vase(ink: str, paper: str) -> list[Item]:
    return [
        _path(
            ("M", (-0.18, -0.62)),
            ("L", (0.18, -0.62)),
            ("L", (0.18, -0.42)),
            ("C", (0.62, -0.2, 0.62, 0.6, 0.22, 0.88)),
            ("L", (-0.22, 0.88)),
            ("C", (-0.62, 0.6, -0.62, -0.2, -0.18, -0.42)),
            ("Z", ()),
            style=_f(ink),
        ),
        Rect(-0.3, -0.78, 0.6, 0.16, _f(ink)),
        _path(
            ("M", (0.18, -0.55)), ("C", (0.75, -0.6, 0.75, -0.1, 0.42, -0.05)), style=_s(ink, 0.1)
        ),
        _path(
            ("M", (-0.18, -0.55)),
            ("C", (-0.75, -0.6, -0.75, -0.1, -0.42, -0.05)),
            style=_s(ink, 0.1),
        ),
    ]


def ibis(ink: str, paper: str) -> list[Item]:
    return [
        ellipse(0.18, 0.02, 0.45, 0.27, _f(ink)),
        _path(
            ("M", (-0.12, -0.05)),
            ("C", (-0.35, -0.4, -0.15, -0.6, -0.32, -0.68)),
            style=_s(ink, 0.13),
        ),
        Circle(-0.35, -0.7, 0.11, _f(ink)),
        _path(
            ("M", (-0.42, -0.68)),
            ("C", (-0.68, -0.6, -0.8, -0.35, -0.82, -0.1)),
            style=_s(ink, 0.08),
        ),
        Line(0.12, 0.25, 0.06, 0.82, _s(ink, 0.08)),
        Line(0.28, 0.25, 0.34, 0.82, _s(ink, 0.08)),
        Rect(-0.3, 0.8, 0.9, 0.14, _f(ink)),
    ]


def shroud(ink: str, paper: str) -> list[Item]:
    items: list[Item] = [
        _path(
            ("M", (0, -0.88)),
            ("C", (0.36, -0.88, 0.42, -0.52, 0.36, -0.22)),
            ("L", (0.3, 0.7)),
            ("C", (0.28, 0.9, -0.28, 0.9, -0.3, 0.7)),
            ("L", (-0.36, -0.22)),
            ("C", (-0.42, -0.52, -0.36, -0.88, 0, -0.88)),
            ("Z", ()),
            style=_f(ink),
        )
    ]
    for y in (-0.3, 0.0, 0.3, 0.58):
        items.append(Line(-0.3, y + 0.1, 0.3, y - 0.1, _s(paper, 0.06)))
    return items


def feather(ink: str, paper: str) -> list[Item]:
    return [
        _path(
            ("M", (0.0, 0.92)),
            ("C", (-0.35, 0.3, -0.4, -0.45, 0.05, -0.75)),
            ("C", (0.3, -0.92, 0.55, -0.75, 0.42, -0.55)),
            ("C", (0.45, 0.0, 0.3, 0.5, 0.0, 0.92)),
            ("Z", ()),
            style=_f(ink),
        ),
        _path(
            ("M", (0.0, 0.85)), ("C", (0.05, 0.2, 0.1, -0.3, 0.22, -0.62)), style=_s(paper, 0.06)
        ),
    ]


def eye_of_horus(ink: str, paper: str) -> list[Item]:
    return [
        Line(-0.72, -0.55, 0.78, -0.6, _s(ink, 0.14)),
        _path(
            ("M", (-0.78, -0.08)),
            ("C", (-0.4, -0.45, 0.4, -0.45, 0.8, -0.12)),
            ("C", (0.4, 0.22, -0.4, 0.22, -0.78, -0.08)),
            ("Z", ()),
            style=_s(ink, 0.1),
        ),
        Circle(0, -0.1, 0.19, _f(ink)),
        Line(-0.1, 0.14, -0.18, 0.78, _s(ink, 0.12)),
        _path(("M", (0.15, 0.14)), ("C", (0.3, 0.75, 0.75, 0.8, 0.62, 0.48)), style=_s(ink, 0.1)),
    ]


def palette(ink: str, paper: str) -> list[Item]:
    return [
        _path(
            ("M", (-0.55, -0.72)),
            ("L", (0.55, -0.72)),
            ("C", (0.72, 0.0, 0.5, 0.72, 0.0, 0.9)),
            ("C", (-0.5, 0.72, -0.72, 0.0, -0.55, -0.72)),
            ("Z", ()),
            style=_f(ink),
        ),
        Circle(-0.22, -0.22, 0.15, _f(paper)),
        Circle(0.22, -0.22, 0.15, _f(paper)),
        Circle(0, 0.25, 0.1, _f(paper)),
    ]


def cobra(ink: str, paper: str) -> list[Item]:
    return [
        Rect(-0.85, 0.72, 1.7, 0.16, _f(ink)),
        ellipse(0.05, 0.58, 0.5, 0.13, _s(ink, 0.12)),
        _path(
            ("M", (0.0, 0.0)),
            ("C", (0.05, 0.35, -0.45, 0.3, -0.4, 0.58)),
            style=_s(ink, 0.16),
        ),
        ellipse(0.0, -0.3, 0.33, 0.45, _f(ink)),
        ellipse(0.0, -0.8, 0.16, 0.11, _f(ink)),
        Line(0.0, -0.62, 0.0, 0.05, _s(paper, 0.06)),
        Line(-0.15, -0.35, 0.15, -0.35, _s(paper, 0.05)),
        Line(-0.12, -0.15, 0.12, -0.15, _s(paper, 0.05)),
    ]


def sceptre(ink: str, paper: str) -> list[Item]:
    return [
        Rect(-0.08, -0.4, 0.16, 1.32, _f(ink)),
        _path(
            ("M", (-0.08, -0.38)),
            ("L", (-0.55, -0.82)),
            ("C", (-0.2, -0.96, 0.2, -0.96, 0.55, -0.82)),
            ("L", (0.08, -0.38)),
            ("Z", ()),
            style=_f(ink),
        ),
        Line(-0.3, 0.5, 0.3, 0.5, _s(ink, 0.1)),
        Line(-0.04, -0.45, -0.3, -0.82, _s(paper, 0.05)),
        Line(0.04, -0.45, 0.3, -0.82, _s(paper, 0.05)),
        Line(0.0, -0.45, 0.0, -0.88, _s(paper, 0.05)),
    ]


def death_mask(ink: str, paper: str) -> list[Item]:
    items: list[Item] = [
        _path(
            ("M", (0, -0.88)),
            ("C", (0.5, -0.88, 0.62, -0.5, 0.65, -0.1)),
            ("L", (0.82, 0.82)),
            ("L", (-0.82, 0.82)),
            ("L", (-0.65, -0.1)),
            ("C", (-0.62, -0.5, -0.5, -0.88, 0, -0.88)),
            ("Z", ()),
            style=_f(ink),
        ),
        ellipse(0, -0.08, 0.32, 0.42, _f(paper)),
        Line(-0.2, -0.18, -0.07, -0.18, _s(ink, 0.07)),
        Line(0.07, -0.18, 0.2, -0.18, _s(ink, 0.07)),
        Line(-0.1, 0.12, 0.1, 0.12, _s(ink, 0.06)),
        Rect(-0.07, 0.36, 0.14, 0.36, _f(ink)),
    ]
    for x in (-0.72, -0.5, 0.5, 0.72):
        items.append(Line(x, 0.2, x * 1.05, 0.75, _s(paper, 0.05)))
    return items


def sun_barque(ink: str, paper: str) -> list[Item]:
    return [
        _path(
            ("M", (-0.92, -0.05)),
            ("C", (-0.55, 0.7, 0.55, 0.7, 0.92, -0.05)),
            ("C", (0.5, 0.32, -0.5, 0.32, -0.92, -0.05)),
            ("Z", ()),
            style=_f(ink),
        ),
        Circle(0, -0.32, 0.3, _f(ink)),
        Line(-0.5, 0.55, 0.5, 0.55, _s(ink, 0.06)),
    ]


def falcon(ink: str, paper: str) -> list[Item]:
    left = [
        (-0.16, -0.3),
        (-0.95, -0.55),
        (-0.82, -0.3),
        (-0.92, -0.12),
        (-0.72, -0.02),
        (-0.78, 0.18),
        (-0.14, 0.22),
    ]
    right = [(-x, y) for x, y in left]
    return [
        polygon(left, _f(ink)),
        polygon(right, _f(ink)),
        polygon([(-0.17, -0.42), (0.17, -0.42), (0.13, 0.5), (-0.13, 0.5)], _f(ink)),
        polygon([(-0.12, 0.45), (0.12, 0.45), (0.27, 0.88), (-0.27, 0.88)], _f(ink)),
        Circle(0, -0.56, 0.18, _f(ink)),
        Circle(0.05, -0.6, 0.05, _f(paper)),
    ]


def crook_and_flail(ink: str, paper: str) -> list[Item]:
    return [
        _path(
            ("M", (0.3, 0.88)),
            ("L", (-0.12, -0.42)),
            ("C", (-0.22, -0.8, -0.62, -0.88, -0.62, -0.52)),
            style=_s(ink, 0.14),
        ),
        Line(-0.3, 0.88, 0.22, -0.42, _s(ink, 0.14)),
        Line(0.22, -0.42, 0.5, -0.12, _s(ink, 0.09)),
        Line(0.22, -0.42, 0.6, -0.3, _s(ink, 0.09)),
        Line(0.22, -0.42, 0.62, -0.5, _s(ink, 0.09)),
    ]


#: Drawn glyphs, by the word of a treasure's name that finds them (``symbols.WORDS``).
GLYPHS: dict[str, Glyph] = {
    "scarab": scarab,
    "sun disk": sun_disk,
    "crown": crown,
    "amulet": amulet,
    "obelisk": obelisk,
    "canopic": canopic_jar,
    "hippo": hippo,
    "lotus": lotus,
    "necklace": necklace,
    "flask": flask,
    "scroll": scroll,
    "vase": vase,
    "ibis": ibis,
    "shroud": shroud,
    "feather": feather,
    "eye": eye_of_horus,
    "palette": palette,
    "cobra": cobra,
    "sceptre": sceptre,
    "mask": death_mask,
    "barque": sun_barque,
    "falcon": falcon,
    "crook": crook_and_flail,
}


def _abstract(name: str) -> Glyph:
    """An abstract glyph by its symbol's name: ``dots-N`` (a ring of N dots) or
    ``polygon-N`` (an N-gon with a hole)."""
    kind, _, count = name.partition("-")
    n = int(count)

    def draw(ink: str, paper: str) -> list[Item]:
        if kind == "polygon":
            return [regular_polygon(0, 0, 0.75, n, _f(ink)), Circle(0, 0, 0.2, _f(paper))]
        items: list[Item] = []
        for i in range(n):
            a = math.radians(-90 + 360 * i / n)
            items.append(Circle(0.55 * math.cos(a), 0.55 * math.sin(a), 0.17, _f(ink)))
        return items

    return draw


def glyph(name: str) -> Glyph:
    """The glyph of a symbol's name (``symbols.symbol_names``)."""
    drawn = {symbols.drawn(word): draw for word, draw in GLYPHS.items()}
    return drawn[name] if name in drawn else _abstract(name)


def assign_glyphs(treasures: Sequence[Treasure]) -> list[tuple[str, Glyph]]:
    """A distinct (name, glyph) for each treasure, in order (the pages' symbols)."""
    return [(name, glyph(name)) for name in symbols.symbol_names(treasures)]


def shape_id(colour: Colour, glyph_name: str) -> str:
    """``"circle/scarab"``: the badge of the colour and the glyph."""
    return f"{FAMILIES[colour].badge}/{glyph_name}"


def badge(colour: Colour, r: float) -> tuple[list[Item], float, float]:
    """The badge of ``colour`` centred on (0, 0) at size ``r`` (a circle's radius).

    Returns the items, the y of the glyph's centre and the glyph's scale (the radius
    of the circle it must stay in).
    """
    family = FAMILIES[colour]
    style = Style(stroke=INK, width=max(0.25, r * 0.05), fill=family.fill)
    if family.badge == "circle":
        return [Circle(0, 0, r, style)], 0.0, r * 0.72
    if family.badge == "square":
        half = r * 0.9
        return [Rect(-half, -half, 2 * half, 2 * half, style)], 0.0, half * 0.8
    if family.badge == "hexagon":
        return [regular_polygon(0, 0, r * 1.05, 6, style, rotation=0)], 0.0, r * 0.75
    if family.badge == "triangle":
        big = r * 1.4
        centre = big * 0.25
        shape = regular_polygon(0, centre, big, 3, style)
        return [shape], centre + big * 0.08, big * 0.46
    half = r * 1.15
    return [polygon([(0, -half), (half, 0), (0, half), (-half, 0)], style)], 0.0, half * 0.6


def icon(colour: Colour, glyph: Glyph, x: float, y: float, r: float) -> list[Item]:
    """A treasure icon (badge and glyph) centred on (x, y)."""
    family = FAMILIES[colour]
    items, glyph_y, glyph_scale = badge(colour, r)
    inner = Group(
        tuple(glyph(family.ink, family.fill)), translate=(0.0, glyph_y), scale=glyph_scale
    )
    return [Group((*items, inner), translate=(x, y))]
