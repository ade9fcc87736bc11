"""Gamma, the current limiter on worst-case frames, the pixel drivers and the LED output."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board.config import BoardConfig, LedConfig, default_config
from companion.board.limiter import estimate_milliamps, gamma_table, limit, output_table
from companion.board.pixels import (
    LedClosedError,
    LedOutput,
    MockPixels,
    open_pixels,
)
from companion.board.render import RGB, Geometry, render
from companion.board.scene import Scene

WHITE: RGB = (255, 255, 255)
RED: RGB = (255, 0, 0)


@pytest.fixture
def board() -> BoardConfig:
    return default_config()


@pytest.fixture
def leds(board: BoardConfig) -> LedConfig:
    return board.leds


@pytest.fixture
def output(leds: LedConfig) -> LedOutput:
    return LedOutput(leds, MockPixels(leds.count, byteorder=leds.byte_order))


def recorded(out: LedOutput) -> bytes:
    pixels = out.pixels
    assert isinstance(pixels, MockPixels)
    assert pixels.last_frame is not None
    return pixels.last_frame


# -- gamma ---------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [1.0, 1.8, 2.2, 2.6, 2.8, 3.5])
def test_the_gamma_table_is_monotonic_from_dark_to_full(gamma: float) -> None:
    table = gamma_table(gamma)
    assert len(table) == 256
    assert table[0] == 0 and table[255] == 255
    assert all(a <= b for a, b in itertools.pairwise(table))
    assert all(table[v] >= 1 for v in range(1, 256))  # nothing lit goes dark


def test_gamma_one_is_the_identity_and_higher_gamma_darkens_the_middle() -> None:
    assert gamma_table(1.0) == bytes(range(256))
    assert gamma_table(2.6)[128] < gamma_table(2.2)[128] < 128


def test_brightness_scales_the_corrected_output() -> None:
    assert output_table(2.6, 1.0) == gamma_table(2.6)
    assert output_table(2.6, 0.5)[255] == 128
    assert output_table(2.6, 0.0) == bytes(256)
    with pytest.raises(ValueError):
        output_table(2.6, 1.5)


# -- the limiter ---------------------------------------------------------------------


def test_a_white_pixel_draws_three_channels_and_its_idle_current() -> None:
    assert estimate_milliamps([WHITE], 20.0, 1.0) == pytest.approx(61.0)
    assert estimate_milliamps([(0, 0, 0)] * 10, 20.0, 1.0) == pytest.approx(10.0)


def test_152_white_pixels_at_full_brightness_are_held_to_4000_ma() -> None:
    frame = [WHITE] * 152  # 152 x 60 mA + 152 mA idle = 9272 mA wanted
    assert estimate_milliamps(frame, 20.0, 1.0) == pytest.approx(9272.0)
    limited, scale = limit(frame, 4000.0, 20.0, 1.0)
    assert estimate_milliamps(limited, 20.0, 1.0) <= 4000.0
    wled = (4000.0 - 152.0) / (9272.0 - 152.0)  # WLED's scale
    assert scale == pytest.approx(wled, rel=0.01)
    assert estimate_milliamps(limited, 20.0, 1.0) >= 0.98 * 4000.0  # and not much lower
    assert len(set(limited)) == 1  # all pixels scaled alike: white stays white


def test_the_worst_case_of_the_default_board_is_held_to_its_limit(leds: LedConfig) -> None:
    frame = [WHITE] * leds.count
    limited, _ = limit(frame, leds.max_milliamps, leds.milliamps_per_channel, leds.idle_milliamps)
    draw = estimate_milliamps(limited, leds.milliamps_per_channel, leds.idle_milliamps)
    assert draw <= leds.max_milliamps


def test_a_frame_within_the_limit_is_untouched() -> None:
    frame = ((10, 20, 30),) * 152 + (WHITE,) * 10
    limited, scale = limit(frame, 4000.0, 20.0, 1.0)
    assert limited == frame and scale == 1.0


def test_if_idle_alone_exceeds_the_limit_everything_goes_dark() -> None:
    limited, scale = limit([WHITE] * 152, 100.0, 20.0, 1.0)
    assert scale == 0.0 and limited == ((0, 0, 0),) * 152


channel = st.integers(0, 255)
frames = st.lists(st.tuples(channel, channel, channel), min_size=1, max_size=300)


@settings(max_examples=300, deadline=None)
@given(
    frame=frames,
    headroom=st.floats(0.0, 20_000.0, allow_nan=False),
    per_channel=st.floats(1.0, 100.0),
    idle=st.floats(0.0, 10.0),
)
def test_the_limited_estimate_never_exceeds_the_limit(
    frame: list[RGB], headroom: float, per_channel: float, idle: float
) -> None:
    max_ma = idle * len(frame) + headroom  # any limit at or above the idle draw
    limited, scale = limit(frame, max_ma, per_channel, idle)
    assert len(limited) == len(frame)
    assert estimate_milliamps(limited, per_channel, idle) <= max_ma + 1e-6
    assert 0.0 <= scale <= 1.0
    assert all(
        0 <= lc <= c
        for px, lpx in zip(frame, limited, strict=True)
        for c, lc in zip(px, lpx, strict=True)
    )


# -- MockPixels ----------------------------------------------------------------------


def test_mock_pixels_record_the_bytes_of_every_frame_in_their_byte_order() -> None:
    with MockPixels(3, byteorder="GRB", history=2) as pixels:
        pixels[0] = (1, 2, 3)
        for _ in range(5):
            pixels.show()
        assert pixels.frames_shown == 5
        assert len(pixels.frames) == 2  # bounded
        assert pixels.last_frame == bytes([2, 1, 3, 0, 0, 0, 0, 0, 0])
        assert pixels.colours()[0] == (1, 2, 3)
    assert pixels.last_frame == bytes(9)  # closing blanks
    with pytest.raises(LedClosedError):
        pixels.show()
    pixels.close()  # twice is harmless


def test_mock_pixels_dim_with_the_librarys_own_brightness() -> None:
    pixels = MockPixels(1, byteorder="RGB", brightness=0.5)
    pixels[0] = (200, 100, 0)
    pixels.show()
    assert pixels.last_frame == bytes([100, 50, 0])


# -- LedOutput -----------------------------------------------------------------------


def test_position_a1_lights_its_configured_pixel_in_grb_order(output: LedOutput) -> None:
    leds = output.config
    assert leds.byte_order == "GRB" and leds.brightness == 0.5
    frame = [(0, 0, 0)] * len(leds.indices)
    frame[0] = RED  # cell A1
    report = output.show(frame)
    data = recorded(output)
    index = leds.indices[0]  # 143: the strip starts at A12 and snakes along the rows
    assert data[3 * index : 3 * index + 3] == bytes([0, 128, 0])  # G, R, B; 255 at 50%
    assert sum(data) == 128  # nothing else is lit
    assert report.scale == 1.0
    assert report.milliamps == pytest.approx(128 * 20 / 255 + leds.count * 1.0)


def test_every_position_reaches_its_own_pixel(output: LedOutput) -> None:
    leds = output.config
    frame = [(p % 256, 0, 0) for p in range(len(leds.indices))]
    output.show(frame)
    pixels = output.pixels
    assert isinstance(pixels, MockPixels)
    colours = pixels.colours()
    table = output_table(leds.gamma, leds.brightness)
    for position, index in enumerate(leds.indices):
        assert colours[index] == (table[position % 256], 0, 0)


def test_pixels_no_position_uses_stay_dark(leds: LedConfig) -> None:
    longer = dataclasses.replace(leds, count=leds.count + 8)
    with LedOutput(longer, MockPixels(longer.count)) as out:
        out.show([WHITE] * len(longer.indices))
        colours = out.pixels.colours()  # type: ignore[attr-defined]
        assert all(c == (0, 0, 0) for c in colours[leds.count :])
        assert all(c != (0, 0, 0) for c in colours[: leds.count])


def test_the_output_limits_the_bytes_that_reach_the_strip(leds: LedConfig) -> None:
    full = dataclasses.replace(leds, brightness=1.0)
    with LedOutput(full, MockPixels(full.count)) as out:
        report = out.show([WHITE] * len(full.indices))
        data = recorded(out)
        pixels = [tuple(data[i : i + 3]) for i in range(0, len(data), 3)]
        drawn = estimate_milliamps(pixels, full.milliamps_per_channel, full.idle_milliamps)
        assert drawn <= full.max_milliamps
        assert report.limited and report.scale < 0.5
        assert report.milliamps == pytest.approx(drawn)
        assert report.wanted_milliamps == pytest.approx(152 * 61.0)
        assert out.get_status()["limiter_scale"] == round(report.scale, 3)


def test_off_shows_an_all_dark_frame(output: LedOutput) -> None:
    output.show([WHITE] * len(output.config.indices))
    report = output.off()
    assert recorded(output) == bytes(3 * output.config.count)
    assert report.milliamps == pytest.approx(output.config.count * output.config.idle_milliamps)


def test_close_blanks_the_strip_and_refuses_more_frames(output: LedOutput) -> None:
    output.show([WHITE] * len(output.config.indices))
    output.close()
    assert recorded(output) == bytes(3 * output.config.count)
    with pytest.raises(LedClosedError):
        output.show([WHITE] * len(output.config.indices))
    with pytest.raises(LedClosedError):
        output.off()
    output.close()


def test_the_output_is_a_context_manager(leds: LedConfig) -> None:
    pixels = MockPixels(leds.count, byteorder=leds.byte_order)
    with LedOutput(leds, pixels) as out:
        out.show([RED] * len(leds.indices))
    assert out.closed and pixels.closed
    assert pixels.last_frame == bytes(3 * leds.count)


def test_the_output_takes_over_the_brightness(leds: LedConfig) -> None:
    pixels = MockPixels(leds.count, byteorder=leds.byte_order, brightness=0.2)
    out = LedOutput(leds, pixels)
    assert pixels.brightness == 1.0  # dimming twice would fool the limiter
    out.close()


def test_bad_frames_are_refused(output: LedOutput) -> None:
    with pytest.raises(ValueError, match="152 colours"):
        output.show([RED] * 3)
    with pytest.raises(ValueError):
        output.show([(256, 0, 0)] * 152)
    with pytest.raises(ValueError):
        output.show([(-1, 0, 0)] * 152)


def test_a_rendered_scene_goes_through(board: BoardConfig, output: LedOutput) -> None:
    scene = Scene(positions=board.positions, mummy=5, hints=frozenset({4, 6, 17}))
    report = output.show(render(scene, 0.0, Geometry.of(board)))
    assert report.scale == 1.0 and report.milliamps < 300


# -- choosing and opening a driver ---------------------------------------------------


def test_mock_mode_opens_mock_pixels(leds: LedConfig) -> None:
    pixels = open_pixels(leds, mock=True)
    assert isinstance(pixels, MockPixels)
    assert len(pixels) == leds.count and pixels.byteorder == leds.byte_order
    pixels.close()


def test_the_serial_driver_has_no_pi_strip(leds: LedConfig) -> None:
    serial = dataclasses.replace(leds, driver="serial", pin=None)
    with pytest.raises(ValueError, match="serial"):
        open_pixels(serial, mock=False)
    assert isinstance(open_pixels(serial, mock=True), MockPixels)
