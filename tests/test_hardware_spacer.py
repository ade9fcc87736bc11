"""The printed spacer on a circuit-board tile (``companion hardware spacer``): a closed
solid whose top holds the maze at the depth ``companion hardware magnets`` passes with the
DRV5032AJ, a millimetre either side too, measured on the mesh; pockets that clear every
part; a light path over each LED walled off from its neighbours."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.board.config import load_config
from companion.cli import main
from companion.hardware import tile_spacer
from companion.hardware.builds import HALL, STACK
from companion.hardware.magnets import analyse
from tests.test_hardware_parts import crossings

trimesh = pytest.importorskip("trimesh")

TILES = Path(__file__).parents[1] / "companion/board/data/reference-3-tiles.toml"
SIZE = 100.0


@pytest.fixture(scope="module")
def mesh(tmp_path_factory):
    out = tmp_path_factory.mktemp("spacer")
    assert main(["hardware", "spacer", "--out", str(out), "--config", str(TILES)]) == 0
    return trimesh.load(out / "pyramid-tile-spacer.stl", file_type="stl")


def at(mesh, x: float, y: float) -> list[float]:
    """Crossings of the vertical line at a board point (KiCad's y down)."""
    return crossings(mesh, x, SIZE - y)


def test_the_spacer_is_one_closed_solid_of_the_tiles_size(mesh):
    assert mesh.is_watertight and mesh.is_volume and mesh.volume > 0
    (x0, y0, z0), (x1, y1, z1) = mesh.bounds
    assert (x1 - x0, y1 - y0) == (pytest.approx(99.8), pytest.approx(99.8))
    assert z0 == pytest.approx(0.0) and z1 == pytest.approx(tile_spacer.depths().height_mm)


def test_the_maze_lies_at_a_depth_the_magnet_check_passes_a_millimetre_either_side(mesh):
    """The depth measured on the mesh over every sensor: the stack above the spacer's top,
    the top over the sensor's face, the element 0.65 mm below that face (TI SLVSDC7)."""
    config = load_config(TILES)
    pitch = config.cell_pitch_mm
    for row in range(4):
        for column in range(4):
            hits = at(mesh, pitch * (column + 0.5), pitch * (row + 0.5))
            # over the sensor: the pocket's ceiling, then plastic up to the top
            height = tile_spacer.depths().height_mm
            assert hits == [pytest.approx(tile_spacer.CELL_POCKET_DEPTH_MM), pytest.approx(height)]
            ceiling, top = hits
            assert ceiling > tile_spacer.SENSOR_HEIGHT_MM + 0.3  # clears the SOT-23
            depth = STACK.total_mm + (top - HALL.body_mm[2]) + 0.65
            assert depth == pytest.approx(tile_spacer.tile_depth())
    for d in (depth - 1.0, depth, depth + 1.0):
        verdict = analyse(HALL.build(depth_mm=d))
        assert verdict.passed, (d, verdict.operate_margin, verdict.release_margin)


def test_each_led_has_a_light_path_walled_off_from_its_neighbours(mesh):
    config = load_config(TILES)
    height = tile_spacer.depths().height_mm
    r_top = tile_spacer.LIGHT_TOP_MM / 2
    for x, y in tile_spacer.light_paths(config):
        assert at(mesh, x, y) == []  # open from the LED to the maze sheet
        # the cone opens upwards: near its rim the plastic stops short of the top face
        rim = at(mesh, x + r_top - 0.5, y)
        assert rim and rim[-1] < height - 0.4
        # beyond the path, in every direction, plastic from the board to the top: light
        # cannot cross under or over into the next cell
        for dx, dy in ((12.5, 0), (-12.5, 0), (0, 12.5 - tile_spacer.LED_OFFSET_MM + 3)):
            px, py = x + dx, y + dy
            if 1 < px < SIZE - 1 and 1 < py < SIZE - 1:
                inside_pocket = any(
                    x0 <= px <= x1 and y0 <= py <= y1
                    for x0, y0, x1, y1, _ in tile_spacer.pockets(config)
                )
                if not inside_pocket:
                    assert at(mesh, px, py) == [pytest.approx(0.0), pytest.approx(height)]


def test_no_two_cells_share_a_pocket(mesh):
    config = load_config(TILES)
    cells = tile_spacer.pockets(config)[:16]
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            apart = a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]
            assert apart, (a, b)
    # and the walls between them stand on the board: under a cell edge, solid from z = 0
    height = tile_spacer.depths().height_mm
    assert at(mesh, 25.0, 12.5) == [pytest.approx(0.0), pytest.approx(height)]


def test_the_guide_says_what_the_spacer_gives():
    readme = (Path(__file__).parents[1] / "hardware/README.md").read_text("utf-8")
    assert " ".join(tile_spacer.summary().split()) in " ".join(readme.split())
