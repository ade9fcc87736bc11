"""Colour is never the only sign: every pair of the pages' colour marks (seeker figures,
treasures, the players' rows; maze.js COLOURS and SHAPES) stays apart under simulated
protanopia, deuteranopia and tritanopia (colorspacious, CAM02-UCS), or carries
different shapes; so do the printed maze's treasure badges and the printed seekers'
marks (figure bases and the maze's legend), which carry the pages' shapes and letters."""

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


def luminance(colour: tuple[float, float, float]) -> float:
    """WCAG relative luminance of an sRGB colour (0 to 1 a channel)."""
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_the_printed_seekers_carry_the_pages_letter_and_shape() -> None:
    """Each seeker's printed mark (figure base and maze sheet, seekers.py) has the shape
    the pages draw its figure in (maze.js SHAPES) and the letter on it (play.js: the
    colour's first letter, the same in German: Rot, Türkis, Blau, Violett)."""
    from companion.games.mummy.state import FigureColour
    from companion.hardware.seekers import SEEKER_MARKS

    shapes = table("SHAPES")
    assert "p.colour[0].toUpperCase()" in (MAZE_JS.parent / "play.js").read_text()
    assert set(SEEKER_MARKS) == set(FigureColour)
    for seeker, mark in SEEKER_MARKS.items():
        assert mark.shape == shapes[seeker.value], seeker
        assert mark.letter == seeker.value[0].upper(), seeker


def test_the_printed_seekers_are_apart_by_colour_or_by_shape_letter_and_notches() -> None:
    """The printed seekers' colours under simulated protanopia, deuteranopia and
    tritanopia: a pair too close to tell apart differs in shape, letter and notches
    (every pair does, so the figure bases tell them apart by touch too); each letter is
    readable on its colour (contrast at least 4.5:1)."""
    from companion.hardware.seekers import SEEKER_MARKS

    for deficiency in DEFICIENCIES:
        for a, b in itertools.combinations(SEEKER_MARKS, 2):
            ma, mb = SEEKER_MARKS[a], SEEKER_MARKS[b]
            distance = colorspacious.deltaE(
                seen(rgb(ma.fill), deficiency),
                seen(rgb(mb.fill), deficiency),
                input_space="CAM02-UCS",
            )
            if distance < APART:
                assert ma.shape != mb.shape, (deficiency, a, b, distance)
                assert ma.letter != mb.letter, (deficiency, a, b, distance)
                assert ma.notches != mb.notches, (deficiency, a, b, distance)
    for marks in (
        [m.shape for m in SEEKER_MARKS.values()],
        [m.letter for m in SEEKER_MARKS.values()],
        [m.notches for m in SEEKER_MARKS.values()],
    ):
        assert len(set(marks)) == len(SEEKER_MARKS), marks
    for seeker, mark in SEEKER_MARKS.items():
        light, dark = sorted((luminance(rgb(mark.fill)), luminance(rgb(mark.ink))))
        assert (dark + 0.05) / (light + 0.05) >= 4.5, seeker


def test_the_printed_maze_names_each_seeker_by_letter_shape_and_colour() -> None:
    """The committed maze sheets (hardware/maze.svg and the assembly sheet) draw each
    seeker's shape with its letter and name its colour beside it, so the printed board
    names every figure without its colour."""
    import xml.etree.ElementTree as ET

    from companion.hardware.seekers import SEEKER_MARKS

    ns = "{http://www.w3.org/2000/svg}"
    shapes = table("SHAPES")
    hardware = MAZE_JS.parents[3] / "hardware"
    for sheet in ("maze.svg", "maze-assembly.svg"):
        root = ET.parse(hardware / sheet).getroot()
        legend = root.find(f".//{ns}g[@id='legend']")
        assert legend is not None, sheet
        found = {
            g.get("data-seeker"): g for g in legend.iter(f"{ns}g") if g.get("class") == "seeker"
        }
        assert set(found) == {s.value for s in SEEKER_MARKS}, sheet
        words = [t.text or "" for t in legend.iter(f"{ns}text")]
        for seeker, mark in SEEKER_MARKS.items():
            g = found[seeker.value]
            assert g.get("data-shape") == shapes[seeker.value] == mark.shape
            assert [t.text for t in g.iter(f"{ns}text")] == [mark.letter], (sheet, seeker)
            drawn = [e for e in g if e.tag in (f"{ns}circle", f"{ns}path")]
            assert len(drawn) == 1 and drawn[0].get("fill") == mark.fill, (sheet, seeker)
            if mark.shape != "circle":  # a polygon: its corners are the shape's
                corners = 10 if mark.shape == "star" else {"pentagon": 5, "square": 4}[mark.shape]
                assert drawn[0].get("d", "").count("L") == corners - 1, (sheet, seeker)
            assert any(w.startswith(f"{mark.letter} {seeker.value}: {mark.shape}") for w in words)


def test_loot_n_runs_look_alike_pairs_are_those_of_its_lights() -> None:
    """The checked palette: every colour the setup offers has its light, and the pairs it
    warns of are exactly those whose lights fall closer than APART to a protanope,
    deuteranope or tritanope (LED colours taken as sRGB)."""
    from companion.board.score_track import NAMED_COLOURS
    from companion.games.lootnrun.palette import LOOK_ALIKE, PALETTE

    assert set(PALETTE) <= set(NAMED_COLOURS)
    close = set()
    for deficiency in DEFICIENCIES:
        for a, b in itertools.combinations(PALETTE, 2):
            light_a, light_b = (tuple(c / 255 for c in NAMED_COLOURS[x]) for x in (a, b))
            distance = colorspacious.deltaE(
                seen(light_a, deficiency), seen(light_b, deficiency), input_space="CAM02-UCS"
            )
            if distance < APART:
                close.add(frozenset((a, b)))
    assert close == set(LOOK_ALIKE)
    # The first three, the setup's defaults, are told apart by everyone.
    assert not {frozenset(p) for p in itertools.combinations(PALETTE[:3], 2)} & LOOK_ALIKE
