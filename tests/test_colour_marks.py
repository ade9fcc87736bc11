"""Colour is never the only sign: every pair of the pages' colour marks (seeker figures,
treasures, the players' rows; maze.js COLOURS and SHAPES) stays apart under simulated
protanopia, deuteranopia and tritanopia (colorspacious, CAM02-UCS), or carries
different shapes."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

colorspacious = pytest.importorskip("colorspacious")

MAZE_JS = Path(__file__).resolve().parent.parent / "companion/web/static/maze.js"
#: A colour difference (CAM02-UCS) two marks keep to be told apart by colour alone.
APART = 20.0
DEFICIENCIES = ("protanomaly", "deuteranomaly", "tritanomaly")


def table(name: str) -> dict[str, str]:
    """A ``const NAME = {key: "value", ...}`` table of maze.js."""
    text = MAZE_JS.read_text()
    body = re.search(rf"const {name} = \{{(.*?)\}};", text, re.S)
    assert body is not None, name
    return dict(re.findall(r'(\w+): "([^"]+)"', body.group(1)))


def rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return r, g, b


def seen(colour: tuple[float, float, float], deficiency: str) -> object:
    cvd = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
    return colorspacious.cspace_convert(colour, cvd, "CAM02-UCS")


def test_every_pair_of_marks_is_apart_by_colour_or_shape() -> None:
    colours, shapes = table("COLOURS"), table("SHAPES")
    assert set(colours) == set(shapes), "every colour needs its shape"
    assert len(set(shapes.values())) == len(shapes), "two colours share a shape"
    for deficiency in DEFICIENCIES:
        for a, b in itertools.combinations(colours, 2):
            distance = colorspacious.deltaE(
                seen(rgb(colours[a]), deficiency),
                seen(rgb(colours[b]), deficiency),
                input_space="CAM02-UCS",
            )
            if distance < APART:
                assert shapes[a] != shapes[b], (deficiency, a, b, distance)


def test_a_treasure_colour_has_the_same_shape_on_the_pages_and_the_printed_maze() -> None:
    from companion.hardware.icons import FAMILIES

    shapes = table("SHAPES")
    assert {c.value: f.badge for c, f in FAMILIES.items()} == {
        c.value: shapes[c.value] for c in FAMILIES
    }


def test_the_printed_treasures_are_apart_by_colour_or_badge_and_each_has_its_own_icon(
    default_maze,
) -> None:
    """The printed maze's badges (icons.py FAMILIES) under the same three simulations,
    and every treasure's icon (badge and glyph) its own."""
    from companion.hardware.icons import FAMILIES, assign_glyphs, shape_id

    for deficiency in DEFICIENCIES:
        for a, b in itertools.combinations(FAMILIES, 2):
            distance = colorspacious.deltaE(
                seen(rgb(FAMILIES[a].fill), deficiency),
                seen(rgb(FAMILIES[b].fill), deficiency),
                input_space="CAM02-UCS",
            )
            if distance < APART:
                assert FAMILIES[a].badge != FAMILIES[b].badge, (deficiency, a, b, distance)
    treasures = default_maze.treasures
    ids = [
        shape_id(t.colour, name)
        for t, (name, _) in zip(treasures, assign_glyphs(treasures), strict=True)
    ]
    assert len(set(ids)) == len(treasures) == 23
