"""Each treasure carries its own symbol on the pages, the same as on the printed maze:
the names match by the same rule, the pages' sprite holds every symbol and is up to date,
and a custom maze's unnamed treasures get symbols of their own."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from companion.games.mummy import symbols
from companion.games.mummy.maze import Colour, Maze, Treasure
from companion.games.mummy.views import maze_view
from companion.hardware import icons
from companion.web import treasure_symbols
from tests.test_colour_marks import table

SVG = "{http://www.w3.org/2000/svg}"


def test_the_drawn_symbols_are_the_printed_mazes_glyphs() -> None:
    assert tuple(icons.GLYPHS) == symbols.WORDS


def test_a_treasure_on_the_page_is_its_badge_and_glyph_on_the_printed_maze(
    default_maze: Maze,
) -> None:
    shapes = table("SHAPES")
    printed = [
        icons.shape_id(t.colour, name)
        for t, (name, _) in zip(
            default_maze.treasures, icons.assign_glyphs(default_maze.treasures), strict=True
        )
    ]
    page = [f"{shapes[t['colour']]}/{t['symbol']}" for t in maze_view(default_maze)["treasures"]]
    assert page == printed
    assert len(set(page)) == len(default_maze.treasures) == 23


def test_the_pages_sprite_is_up_to_date_and_holds_every_symbol(default_maze: Maze) -> None:
    text = treasure_symbols.SPRITE.read_text()
    assert text == treasure_symbols.sprite(), "run: python -m companion.web.treasure_symbols"
    root = ET.fromstring(text)
    ids = {s.get("id") for s in root.iter(f"{SVG}symbol")}
    for name in symbols.symbol_names(default_maze.treasures):
        (symbol,) = [s for s in root.iter(f"{SVG}symbol") if s.get("id") == name]
        assert len(symbol) >= 1, f"{name} draws nothing"
    assert ids == set(treasure_symbols.names())


def test_a_custom_mazes_unnamed_treasures_get_symbols_of_their_own() -> None:
    treasures = [Treasure(i, Colour.RED, f"thing {i}") for i in range(6)] + [
        Treasure(6, Colour.BLUE, "golden scarab"),
        Treasure(7, Colour.BLUE, "second scarab"),
    ]
    names = symbols.symbol_names(treasures)
    assert len(set(names)) == len(names)
    assert names[6] == "scarab" and names[7].startswith(("dots", "polygon"))
    assert set(names) <= set(treasure_symbols.names())


def test_the_pages_glyph_ink_is_the_printed_mazes() -> None:
    """maze.js INKS repeats icons.py FAMILIES' ink per treasure colour: held equal."""

    def full(colour: str) -> str:
        h = colour.lstrip("#").lower()
        return "#" + ("".join(c * 2 for c in h) if len(h) == 3 else h)

    inks = table("INKS")
    assert {c.value: full(f.ink) for c, f in icons.FAMILIES.items()} == {
        k: full(v) for k, v in inks.items()
    }
