"""Printable sheets: valid SVG at true scale, every treasure once with its own shape,
the rooms and pads of the config, PDF pages of the right size, tiles that overlap and
align, and the files committed in hardware/ equal to what the generators make now."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import pairwise
from pathlib import Path

import pytest

import companion.hardware.drawing as vector
from companion.board.config import BoardConfig, example_config_text, parse_config
from companion.board.score_track import track_path
from companion.cli import main
from companion.games.crypt.board import maze_cell, parse_square
from companion.games.mummy.maze import Colour, Maze
from companion.games.mummy.maze_file import parse_maze
from companion.hardware.build import outputs, reference_config, sheet_bytes, stale
from companion.hardware.crypt_overlay import crypt_sheet
from companion.hardware.diagram import wiring_diagram
from companion.hardware.drawing import Drawing, Group, Line, iter_items, text_width, to_svg
from companion.hardware.icons import FAMILIES
from companion.hardware.sheets import MARGIN, SheetError, maze_sheet, room_layout
from companion.hardware.tiling import OVERLAP, PAGE_SIZES, plan_tiles, tile_count
from companion.hardware.track_legend import TARGET, track_sheet
from companion.hardware.wiring import power_budget

SVG = "{http://www.w3.org/2000/svg}"
HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
MM_TO_PT = 72 / 25.4


@pytest.fixture(scope="module")
def ref1() -> BoardConfig:
    return reference_config("reference-1")


@pytest.fixture(scope="module")
def maze_svg(default_maze: Maze, ref1: BoardConfig) -> ET.Element:
    return ET.fromstring(to_svg(maze_sheet(default_maze, ref1)))


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == cls]


def mm(value: str | None) -> float:
    assert value is not None and value.endswith("mm"), value
    return float(value[:-2])


def check_svg(drawing: Drawing) -> ET.Element:
    """Parse the SVG of a drawing and check its size is in mm and matches its viewBox."""
    root = ET.fromstring(to_svg(drawing))
    assert root.tag == f"{SVG}svg"
    width, height = mm(root.get("width")), mm(root.get("height"))
    assert (width, height) == pytest.approx((drawing.width, drawing.height), abs=0.01)
    assert root.get("viewBox") == f"0 0 {width:g} {height:g}"
    return root


# -- the maze sheet --------------------------------------------------------------------


def test_maze_sheet_is_valid_svg_at_true_scale(default_maze: Maze, ref1: BoardConfig) -> None:
    drawing = maze_sheet(default_maze, ref1)
    check_svg(drawing)
    pitch = ref1.cell_pitch_mm
    # The rooms add one cell on the north and south sides; nothing east or west.
    assert drawing.width == pytest.approx(2 * MARGIN + ref1.columns * pitch)
    walls = next(i for i in drawing.items if isinstance(i, Group) and i.id == "walls")
    points: list[tuple[float, ...]] = []
    for item in iter_items(walls.items):
        if isinstance(item, Line):
            points += [(item.x1, item.y1), (item.x2, item.y2)]
        elif isinstance(item, vector.Path):
            points += [args for _, args in item.commands if args]
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    # Walls span the grid and the rooms: 12 cells wide, 12 + 2 cells tall.
    assert max(xs) - min(xs) == pytest.approx(ref1.columns * pitch)
    assert max(ys) - min(ys) == pytest.approx((ref1.rows + 2) * pitch)


def test_pitch_comes_from_the_config(default_maze: Maze) -> None:
    text = example_config_text("reference-1-pi").replace(
        "cell_pitch_mm = 25.0", "cell_pitch_mm = 20.0"
    )
    small = parse_config(text, "pitch-20.toml")
    drawing = maze_sheet(default_maze, small)
    assert drawing.width == pytest.approx(2 * MARGIN + 12 * 20.0)
    root = check_svg(drawing)
    lines = root.find(f"{SVG}g[@id='cell-lines']")
    assert lines is not None
    xs = sorted({float(line.get("x1", "0")) for line in lines if line.get("x1") == line.get("x2")})
    steps = {round(b - a, 2) for a, b in pairwise(xs)}
    assert steps == {20.0}


def test_every_treasure_is_drawn_once_with_its_own_shape(
    default_maze: Maze, maze_svg: ET.Element
) -> None:
    treasures = groups(maze_svg, "treasure")
    assert len(treasures) == 23
    titles = sorted(g.get("data-title", "") for g in treasures)
    assert titles == sorted(t.title for t in default_maze.treasures)
    shapes = [g.get("data-shape", "") for g in treasures]
    assert len(set(shapes)) == 23
    by_title = {t.title: t for t in default_maze.treasures}
    for g in treasures:
        treasure = by_title[g.get("data-title", "")]
        badge, glyph = g.get("data-shape", "").split("/")
        # The badge tells the colour, the glyph tells the treasure.
        assert badge == FAMILIES[treasure.colour].badge
        assert glyph and not glyph.startswith(("dots", "polygon"))
        assert g.get("data-cell") == default_maze.cell_name(treasure.cell)
        # The mission card's title is printed on the cell.
        text = " ".join(t.text or "" for t in g.iter(f"{SVG}text"))
        assert text == treasure.title
    assert len({f.badge for f in FAMILIES.values()}) == len(Colour)


def test_start_field_and_sarcophagus_have_the_configs_slots(
    default_maze: Maze, ref1: BoardConfig, maze_svg: ET.Element
) -> None:
    slots = groups(maze_svg, "slot")
    camp = [g for g in slots if g.get("data-room") == "camp"]
    sarc = [g for g in slots if g.get("data-room") == "sarcophagus"]
    assert len(camp) == ref1.camp_slots == 4
    assert len(sarc) == ref1.sarcophagus_slots == 4
    assert [g.get("data-position") for g in camp] == [f"camp slot {i}" for i in range(1, 5)]
    rooms = {room.kind: room for room in room_layout(default_maze, ref1)}
    # The sarcophagus spans its two openings, D1 and I1, its slots between them.
    assert (rooms["sarcophagus"].first, rooms["sarcophagus"].last) == (3, 8)
    assert rooms["sarcophagus"].openings == (3, 8)
    assert rooms["sarcophagus"].slots == (4, 5, 6, 7)
    # The camp lies behind F12 and grows to hold four slots.
    assert rooms["camp"].openings == (5,)
    assert len(rooms["camp"].slots) == 4 and 5 in range(rooms["camp"].first, rooms["camp"].last + 1)


def test_openings_are_gaps_in_the_outer_wall(default_maze: Maze, ref1: BoardConfig) -> None:
    drawing = maze_sheet(default_maze, ref1)
    walls = next(i for i in drawing.items if getattr(i, "id", None) == "walls")
    pitch = ref1.cell_pitch_mm
    top = MARGIN + 18.0 + pitch  # title block, then the sarcophagus band
    segments = [
        (min(w.x1, w.x2), max(w.x1, w.x2))
        for w in iter_items((walls,))
        if isinstance(w, Line) and w.y1 == w.y2 == pytest.approx(top)
    ]
    covered = lambda x: any(a <= x <= b for a, b in segments)  # noqa: E731
    for col in range(12):
        centre = MARGIN + (col + 0.5) * pitch
        assert covered(centre) == (col not in (3, 8)), f"column {col}"


def test_assembly_layer_marks_every_sensor_and_pixel(default_maze: Maze, ref1: BoardConfig) -> None:
    root = check_svg(maze_sheet(default_maze, ref1, assembly=True))
    marks = groups(root, "position")
    assert len(marks) == ref1.positions
    seen = {g.get("data-position"): g for g in marks}
    assert len(seen) == ref1.positions
    for position in range(ref1.positions):
        g = seen[ref1.position_name(position)]
        assert g.get("data-sensor") == str(ref1.sensors.indices[position])
        assert g.get("data-pixel") == str(ref1.leds.indices[position])
    # C4 is sensor 38 (row 4 of 12 cells, third column): chip 4, input G.
    c4 = seen["C4"]
    assert c4.get("data-sensor") == "38"
    assert c4.get("data-wired") == "chip 4 input G (pin 5)"
    assert root.find(f".//{SVG}g[@id='led-chain']") is not None


def test_a_custom_maze_gets_distinct_abstract_glyphs() -> None:
    text = """name: Little tomb
start: C4 south
sarcophagus: A1 north, F1 north
treasure: A1 red lamp
treasure: B1 red comb
treasure: C1 red crown
treasure: D1 red ring
treasure: E1 red pot
treasure: F1 blue lamp
treasure: A2 blue comb
treasure: B2 blue ring
treasure: C2 blue pot
treasure: D2 blue mirror
treasure: E2 white lamp
treasure: F2 white comb
treasure: A3 white ring
treasure: B3 white pot
treasure: C3 white bowl
treasure: D3 green lamp
treasure: E3 green comb
treasure: F3 green ring
treasure: A4 green pot
treasure: B4 yellow lamp
treasure: D4 yellow comb
treasure: E4 yellow ring
treasure: F4 yellow pot
maze:
+  +--+--+--+--+  +
|        |        |
+--+  +  +  +--+  +
|     |     |     |
+  +--+--+  +  +--+
|           |     |
+  +--+  +--+  +  +
|     |           |
+--+--+  +--+--+--+
"""
    maze = parse_maze(text)
    config_text = (
        example_config_text("reference-1-pi")
        .replace("columns = 12", "columns = 6")
        .replace("rows = 12", "rows = 4")
        .replace("chips = 19", "chips = 4")
        .replace("count = 152", "count = 32")
        .replace("[144, 145, 146, 147]", "[24, 25, 26, 27]")
        .replace("[148, 149, 150, 151]", "[28, 29, 30, 31]")
    )
    config = parse_config(config_text, "little.toml")
    root = check_svg(maze_sheet(maze, config, assembly=True))
    shapes = [g.get("data-shape", "") for g in groups(root, "treasure")]
    assert len(shapes) == len(set(shapes)) == 23
    assert "circle/crown" in shapes
    assert any(s.split("/")[1].startswith(("dots", "polygon")) for s in shapes)
    assert len(groups(root, "position")) == 32
    with pytest.raises(SheetError, match="6x4"):
        maze_sheet(maze, reference_config("reference-1"))


def test_text_widths_are_helvetica_metrics() -> None:
    assert text_width("A", 10.0) == pytest.approx(6.67)
    assert text_width("Hi", 1.0, bold=True) == pytest.approx((722 + 278) / 1000)


# -- the crypt overlay and the track --------------------------------------------------


def test_crypt_overlay_squares_tiles_and_crypt(ref1: BoardConfig) -> None:
    drawing = crypt_sheet(ref1)
    root = check_svg(drawing)
    squares = groups(root, "square")
    assert len(squares) == 64
    kinds = [g.get("data-kind") for g in squares]
    assert kinds.count("green") == 16 and kinds.count("crypt") == 4
    crypt = sorted(g.get("data-square", "") for g in squares if g.get("data-kind") == "crypt")
    assert crypt == ["d4", "d5", "e4", "e5"]
    rects = {g.get("data-square"): g.find(f"{SVG}rect") for g in squares}
    a8, h1 = rects["a8"], rects["h1"]
    assert a8 is not None and h1 is not None
    # True scale: a8's corner to h1's far corner is 8 squares of the pitch.
    span = float(h1.get("x", "0")) + float(h1.get("width", "0")) - float(a8.get("x", "0"))
    assert span == pytest.approx(8 * ref1.cell_pitch_mm)


def test_crypt_assembly_layer_uses_the_maze_cells_under_the_squares(ref1: BoardConfig) -> None:
    root = check_svg(crypt_sheet(ref1, assembly=True))
    names = {g.get("data-position") for g in groups(root, "position")}
    assert len(names) == 64
    assert ref1.position_name(maze_cell(parse_square("a8"))) == "C3"
    assert {"C3", "J3", "C10", "J10", "F6", "G7"} <= names
    assert "B2" not in names and "K11" not in names


def test_track_legend_follows_the_led_track(ref1: BoardConfig) -> None:
    root = check_svg(track_sheet(ref1))
    spaces = groups(root, "space")
    assert [g.get("data-score") for g in spaces] == [str(i) for i in range(TARGET + 1)]
    path = track_path(ref1.columns, ref1.rows, TARGET)
    assert [g.get("data-cell") for g in spaces] == [ref1.position_name(c) for c in path]
    assert spaces[0].get("data-cell") == "A1"


def test_wiring_diagrams_are_valid_svg() -> None:
    for name in ("reference-1", "reference-2"):
        config = reference_config(name)
        root = check_svg(wiring_diagram(config))
        text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
        if name == "reference-1":
            assert "74HC165 chip 18" in text and "74HC165 chip 0" in text
            assert "pin 40: GPIO21 SPI1 SCLK" in text and "pin 12: GPIO18 SPI1 CE0" in text
            assert "19 x 74HC165 on SPI1 (its own bus), NeoPixels on SPI0 (GPIO10)." in text
        else:
            assert "GP28 (pin 34)" in text and "COL 12" in text
        assert "74AHCT125" in text and "at least 5 A" in text


# -- pages and PDF -------------------------------------------------------------------


def pdf_pages(data: bytes) -> list[tuple[float, float]]:
    """Every page's MediaBox size in points; checks the cross-reference offsets too."""
    assert data.startswith(b"%PDF-1.4\n")
    assert data.rstrip().endswith(b"%%EOF")
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    assert data[xref:].startswith(b"xref\n")
    table = data[xref:].split(b"trailer")[0].splitlines()[3:]
    for number, row in enumerate(table, start=1):
        offset = int(row.split()[0])
        assert data[offset:].startswith(f"{number} 0 obj".encode()), number
    boxes = re.findall(rb"/Type /Page /Parent 2 0 R /MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    count = int(re.search(rb"/Type /Pages /Kids \[[^\]]*\] /Count (\d+)", data).group(1))  # type: ignore[union-attr]
    assert count == len(boxes)
    return [(float(w), float(h)) for w, h in boxes]


def test_pdf_pages_have_the_paper_size(default_maze: Maze, ref1: BoardConfig) -> None:
    sheet = maze_sheet(default_maze, ref1)
    a3 = pdf_pages(sheet_bytes(sheet, "pdf", "a3"))
    a4 = pdf_pages(sheet_bytes(sheet, "pdf", "a4"))
    a2 = pdf_pages(sheet_bytes(sheet, "pdf", "a2"))
    # 300 mm of grid is wider than A3's 297 mm: two A3 pages, four A4 pages, one A2.
    assert len(a3) == 2 and len(a4) == 4 and len(a2) == 1
    for pages, size in ((a3, "a3"), (a4, "a4"), (a2, "a2")):
        paper = PAGE_SIZES[size]
        expected = sorted((paper.width * MM_TO_PT, paper.height * MM_TO_PT))
        for w, h in pages:
            assert sorted((w, h)) == pytest.approx(expected, abs=0.01)
    crypt = pdf_pages(sheet_bytes(crypt_sheet(ref1), "pdf", "a3"))
    assert crypt == [pytest.approx((297 * MM_TO_PT, 420 * MM_TO_PT), abs=0.01)]


def test_tiles_cover_the_sheet_and_overlap_with_marks(
    default_maze: Maze, ref1: BoardConfig
) -> None:
    sheet = maze_sheet(default_maze, ref1)
    tiles = plan_tiles(sheet, PAGE_SIZES["a4"])
    assert len(tiles) == 4
    xs = sorted({t.window[0] for t in tiles})
    ys = sorted({t.window[1] for t in tiles})
    w, h = tiles[0].window[2], tiles[0].window[3]
    assert xs[0] == ys[0] == 0.0
    assert xs[-1] + w == pytest.approx(sheet.width) and ys[-1] + h == pytest.approx(sheet.height)
    assert xs[0] + w - xs[1] >= OVERLAP and ys[0] + h - ys[1] >= OVERLAP

    def marks(tile: object) -> set[tuple[float, float]]:
        """Alignment mark centres in sheet coordinates."""
        (wx, wy, _, _), (ox, oy) = tile.window, tile.origin  # type: ignore[attr-defined]
        return {
            (round(c.cx - ox + wx, 3), round(c.cy - oy + wy, 3))
            for c in tile.furniture  # type: ignore[attr-defined]
            if type(c).__name__ == "Circle"
        }

    # Neighbours share marks at the same place on the sheet; the four share the middle.
    top_left, top_right, bottom_left, _ = (marks(t) for t in tiles)
    assert len(top_left & top_right) == 3 and len(top_left & bottom_left) == 3
    for tile in tiles:
        _, _, ww, wh = tile.window
        ox, oy = tile.origin
        assert ox >= 10 and oy >= 10
        assert ox + ww <= tile.page_width - 10 + 1e-9 and oy + wh <= tile.page_height - 10 + 1e-9
    assert tile_count(190.0, 190.0) == 1 and tile_count(191.0, 190.0) == 2


def test_rendering_is_deterministic(default_maze: Maze, ref1: BoardConfig) -> None:
    one = sheet_bytes(maze_sheet(default_maze, ref1), "pdf", "a4")
    two = sheet_bytes(maze_sheet(default_maze, ref1), "pdf", "a4")
    assert one == two
    assert b"CreationDate" not in one and b"/ID" not in one


# -- the committed files and the command ----------------------------------------------


def test_committed_hardware_files_are_up_to_date() -> None:
    """hardware/ holds exactly what the generators make now (make -C hardware)."""
    names = {o.name for o in outputs()}
    assert names <= {p.name for p in HARDWARE.iterdir()}
    assert stale(HARDWARE) == [], "run: make -C hardware"


def test_maze_render_command_writes_svg_and_pdf(
    tmp_path: Path, default_maze: Maze, ref1: BoardConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    svg, pdf = tmp_path / "maze.svg", tmp_path / "maze.pdf"
    assert main(["maze", "render", "--out", str(svg), "--out", str(pdf), "--page", "a4"]) == 0
    assert "320 x 420 mm" in capsys.readouterr().out
    # Without --config the built-in board is reference design 1.
    assert svg.read_text() == to_svg(maze_sheet(default_maze, ref1))
    assert len(pdf_pages(pdf.read_bytes())) == 4
    out = tmp_path / "crypt.svg"
    assert main(["maze", "render", "--sheet", "crypt", "--assembly", "--out", str(out)]) == 0
    assert len(groups(ET.parse(out).getroot(), "position")) == 64
    assert main(["maze", "render", "--out", str(tmp_path / "maze.png")]) == 2


def test_maze_render_refuses_a_maze_of_another_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "board.toml"
    config.write_text(
        example_config_text("reference-1-pi")
        .replace("columns = 12", "columns = 10")
        .replace("rows = 12", "rows = 10")
    )
    assert main(["maze", "render", "--config", str(config), "--out", str(tmp_path / "m.svg")]) == 1
    assert "12x12 cells but the board config" in capsys.readouterr().err


def test_build_guide_quotes_the_reference_configs(ref1: BoardConfig) -> None:
    """The build guide's numbers are the configs' (the generated pages hold the rest)."""
    guide = (HARDWARE / "README.md").read_text()
    budget = power_budget(ref1)
    ref2 = reference_config("reference-2")
    assert power_budget(ref2) == budget
    assert f"at least {budget.supply_amps:g} A ({5 * budget.supply_amps:g} W)" in guide
    assert f"{budget.full_white:,.0f} mA" in guide
    assert f"`leds.max_milliamps = {ref1.leds.max_milliamps:g}`" in guide
    assert f"{budget.pixels_at_full_white} pixels at full white" in guide
    assert f"| {ref1.positions} | reed switches" in guide
    assert f"| {ref1.sensors.chips} | 74HC165" in guide
    assert f"| {ref2.positions} | 1N4148" in guide
    named = set(re.findall(r"`([\w-]+\.(?:svg|pdf))`", guide))
    assert named <= {o.name for o in outputs()}, named - {o.name for o in outputs()}
    for page in ("assembly.md", "troubleshooting.md"):
        assert (HARDWARE / page).is_file() and f"]({page})" in guide
