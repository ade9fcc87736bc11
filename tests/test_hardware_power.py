"""The tile build's power numbers: one function (pcb_power.tile_power) that the guide's
table quotes and these tests check against IPC-2221, the parts' ratings and the config."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.board.config import load_config
from companion.hardware import pcb_power
from companion.hardware.pcb_power import ipc2221_width_mm, power_markdown, tile_power

ROOT = Path(__file__).parents[1]
TILES = ROOT / "companion/board/data/reference-3-tiles.toml"


@pytest.fixture(scope="module")
def power():
    return tile_power(load_config(TILES))


def test_the_guide_quotes_the_power_table_of_the_function():
    readme = (ROOT / "hardware/README.md").read_text("utf-8")
    assert power_markdown(tile_power(load_config(TILES))) in readme


def test_ipc2221_widths_match_the_published_chart():
    # 1 A, 1 oz outer copper, 10 K rise: 11.8 mil (0.30 mm) on IPC-2221's chart
    assert ipc2221_width_mm(1.0, 10.0, 35.0, inner=False) == pytest.approx(0.30, abs=0.01)
    # an inner layer needs about 2.6 x the width of an outer one of the same copper
    inner = ipc2221_width_mm(1.0, 10.0, 35.0, inner=True)
    assert inner / ipc2221_width_mm(1.0, 10.0, 35.0, inner=False) == pytest.approx(2.6, abs=0.1)


def test_the_current_comes_from_the_datasheet_and_the_configured_limit(power):
    config = load_config(TILES)
    assert power.led_full_ma == 3 * config.leds.milliamps_per_channel + config.leds.idle_milliamps
    assert power.tile_max_ma == 16 * power.led_full_ma
    assert power.board_max_ma == config.leds.max_milliamps
    assert all(row <= power.board_max_ma for row in power.row_max_ma)


def test_the_copper_carries_the_current_and_the_far_tiles_keep_their_voltage(power):
    assert power.width_outer_mm < 0.4  # every LED's stub is 0.4 mm and carries one LED
    assert power.width_inner_mm < power.plane_width_mm
    assert pcb_power.describe_drop_ok(power, floor_v=4.5)  # WS2812B-2020: 3.7 V at least
    assert power.worst_drop_v < 0.5


def test_the_fuse_is_above_the_load_and_below_every_rating_in_its_path(power):
    assert power.fuse_a >= 1.25 * power.board_max_ma / 1000
    assert power.fuse_a <= pcb_power.VH_RATED_A
    assert power.fuse_a in pcb_power.FUSES
    assert not power.per_tile_fuse  # a tile's plane carries what the fuse lets through
    assert ipc2221_width_mm(power.fuse_a, 10.0, 17.5, inner=True) < power.plane_width_mm
