"""The seekers' marks on the printed side: each figure's letter, shape and notches.

Colour is never the only sign.  The pages draw each seeker's figure as a shape of its
colour with its letter (``maze.js`` SHAPES, ``play.js``: the colour's first letter); the
printed maze names the same letter and shape beside the colour's name (``sheets.py``),
and each printed figure base (``parts.py``) carries the letter and the shape raised on
its top and a count of notches in its rim that a finger can count:

=========  ======  ========  =======
seeker     letter  shape     notches
=========  ======  ========  =======
red        R       circle    1
turquoise  T       pentagon  2
blue       B       square    3
violet     V       star      4
=========  ======  ========  =======

The shapes' outlines come from one function, :func:`outline`, for the sheet and the
base alike (y up; the sheet flips it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.games.mummy.state import FigureColour

from .drawing import INK, Circle, Group, Item, Style, Text, polygon


@dataclass(frozen=True)
class SeekerMark:
    """How one seeker figure is told apart without its colour."""

    letter: str
    shape: str  # circle, pentagon, square or star: the pages' SHAPES
    notches: int  # in the figure base's rim
    fill: str  # its colour on the printed maze
    ink: str  # the letter's colour on that fill


SEEKER_MARKS = {
    FigureColour.RED: SeekerMark("R", "circle", 1, "#c8102e", "#ffffff"),
    FigureColour.TURQUOISE: SeekerMark("T", "pentagon", 2, "#17a5a5", INK),
    FigureColour.BLUE: SeekerMark("B", "square", 3, "#1f5fbf", "#ffffff"),
    FigureColour.VIOLET: SeekerMark("V", "star", 4, "#7b3fb0", "#ffffff"),
}


def outline(shape: str, r: float, segments: int = 48) -> list[tuple[float, float]]:
    """The corners of ``shape`` of size ``r`` centred on (0, 0), y up, counter-clockwise,
    in the pages' proportions (maze.js ``shapeEl``): a circle of radius ``r``, a square
    of half-side 0.9 r, a pentagon of radius 1.05 r and a five-pointed star of radius
    1.05 r (inner corners at half of ``r``), a corner pointing up."""
    if shape == "circle":
        return [
            (r * math.cos(2 * math.pi * i / segments), r * math.sin(2 * math.pi * i / segments))
            for i in range(segments)
        ]
    if shape == "square":
        a = 0.9 * r
        return [(-a, -a), (a, -a), (a, a), (-a, a)]
    corners = {"pentagon": (5, 1.0), "star": (10, 0.5)}
    if shape not in corners:
        raise ValueError(f"no outline for the shape {shape!r}")
    n, inner = corners[shape]
    points = []
    for i in range(n):
        angle = math.radians(90 + 360 * i / n)
        k = inner * r if i % 2 and inner != 1.0 else 1.05 * r
        points.append((k * math.cos(angle), k * math.sin(angle)))
    return points


#: The figure bases' letters as strokes on a 4 x 6 grid (x right, y up).
LETTER_STROKES: dict[str, tuple[tuple[tuple[float, float], ...], ...]] = {
    "R": (((0, 0), (0, 6), (3, 6), (4, 5), (4, 4), (3, 3), (0, 3)), ((2, 3), (4, 0))),
    "T": (((0, 6), (4, 6)), ((2, 6), (2, 0))),
    "B": (
        ((0, 0), (0, 6), (3, 6), (4, 5), (4, 4), (3, 3), (0, 3)),
        ((3, 3), (4, 2), (4, 1), (3, 0), (0, 0)),
    ),
    "V": (((0, 6), (2, 0), (4, 6)),),
}


def seeker_badge(seeker: FigureColour, x: float, y: float, r: float) -> Group:
    """``seeker``'s shape of size ``r`` on a printed sheet, centred on (x, y), in its
    colour with its letter; the SVG names the seeker, its letter and shape."""
    mark = SEEKER_MARKS[seeker]
    style = Style(stroke=INK, width=max(0.25, r * 0.08), fill=mark.fill)
    shape: Item
    if mark.shape == "circle":
        shape = Circle(0.0, 0.0, r, style)
    else:
        shape = polygon([(px, -py) for px, py in outline(mark.shape, r)], style)
    size = r * (0.95 if mark.shape == "star" else 1.15)
    letter = Text(0.0, size * 0.36, mark.letter, size, "middle", mark.ink, bold=True)
    return Group(
        (shape, letter),
        cls="seeker",
        data=(("seeker", seeker.value), ("letter", mark.letter), ("shape", mark.shape)),
        translate=(x, y),
    )
