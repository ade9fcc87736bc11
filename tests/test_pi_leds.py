"""The Pi's LED path: adafruit's real neopixel_spi over a stand-in spidev (the kernel's
edge); the bytes on the wire are decoded back into colours."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board.config import default_config
from companion.board.mock_spi import spidev_on
from companion.board.pixels import (
    NEOPIXEL_SPI_HZ,
    LedOutput,
    NeoPixelStrip,
    frame_bytes,
    open_pixels,
)

ONE, ZERO = 0b1111_0000, 0b1100_0000  # a WS2812 bit as one SPI byte at 6.4 MHz


class RecordingWire:
    """What a logic analyser on MOSI would see: every transfer with its bus and mode."""

    def __init__(self) -> None:
        self.transfers: list[tuple[int, int, int, int, bytes]] = []

    def exchange(self, bus: int, device: int, mode: int, speed_hz: int, data: bytes) -> bytes:
        self.transfers.append((bus, device, mode, speed_hz, data))
        return bytes(len(data))


def decode(data: bytes, order: str = "GRB") -> list[tuple[int, ...]]:
    """The colours a WS2812 strip takes from one SPI transfer (reset lows stripped)."""
    bits = data.strip(b"\0")
    assert set(bits) <= {ONE, ZERO}, "a byte that is neither a WS2812 one nor a zero"
    assert len(bits) % (8 * len(order)) == 0
    raw = bytes(
        int("".join("1" if b == ONE else "0" for b in bits[i : i + 8]), 2)
        for i in range(0, len(bits), 8)
    )
    return [
        tuple(raw[i + order.index(channel)] for channel in "RGB")
        for i in range(0, len(raw), len(order))
    ]


def stand_in() -> tuple[RecordingWire, SimpleNamespace]:
    wire = RecordingWire()
    return wire, SimpleNamespace(SpiDev=spidev_on(wire))


@settings(max_examples=30, deadline=None)
@given(
    colours=st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=1, max_size=40),
    order=st.sampled_from(["GRB", "RGB", "BRG"]),
)
def test_the_strip_gets_exactly_the_colours_set(
    colours: list[tuple[int, int, int]], order: str
) -> None:
    wire, spidev = stand_in()
    with NeoPixelStrip(10, len(colours), order, spidev=spidev) as strip:
        strip[:] = colours
        strip.show()
        bus, device, mode, speed, data = wire.transfers[-1]
        assert (bus, device, mode, speed) == (0, 0, 0, NEOPIXEL_SPI_HZ)
        assert decode(data, order) == colours
        # The frame starts and ends low for longer than a WS2812's reset (80 us).
        assert data.startswith(bytes(64)) and data.endswith(bytes(64))
    assert decode(wire.transfers[-1][4], order) == [(0, 0, 0)] * len(colours)  # closed dark


def test_the_led_output_reaches_the_wire_with_brightness_and_limiter() -> None:
    """What a game draws is what the strip shows: layout, gamma, brightness, limit."""
    config = default_config().leds
    wire, spidev = stand_in()
    pixels = open_pixels(config, mock=False, spidev=spidev)
    with LedOutput(config, pixels) as leds:
        frame = [(0, 0, 0)] * len(config.indices)
        frame[0] = (255, 0, 0)
        frame[5] = (0, 255, 255)
        leds.show(frame)
        shown = decode(wire.transfers[-1][4], config.byte_order)
        full = round(255 * config.brightness)
        assert shown[config.indices[0]] == (full, 0, 0)
        assert shown[config.indices[5]] == (0, full, full)
        assert sum(1 for c in shown if c != (0, 0, 0)) == 2
        assert len(wire.transfers[-1][4]) <= 4096  # one transfer: no gap inside a frame


def test_a_strip_off_the_mosi_pin_or_without_spidev_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValueError, match="GPIO10"):
        NeoPixelStrip(18, 8, spidev=stand_in()[1])
    monkeypatch.setitem(sys.modules, "spidev", None)  # py-spidev not installed
    with pytest.raises(ImportError, match="install spidev"):
        open_pixels(default_config().leds, mock=False)


@pytest.mark.parametrize(("pixels", "order"), [(152, "GRB"), (200, "GRB"), (124, "GRBW")])
def test_a_frame_is_as_long_on_the_wire_as_computed(pixels: int, order: str) -> None:
    wire = RecordingWire()
    spidev = SimpleNamespace(SpiDev=spidev_on(wire, bufsiz=65536))
    with NeoPixelStrip(10, pixels, order, spidev=spidev) as strip:
        strip.show()
        assert len(wire.transfers[-1][4]) == frame_bytes(pixels, order)


@pytest.mark.parametrize(
    ("pixels", "bufsiz", "warned"),
    [(152, "4096", False), (200, "4096", True), (200, "65536", False), (200, None, False)],
)
def test_a_strip_too_long_for_the_kernels_spi_buffer_says_how_to_raise_it(
    tmp_path, caplog, pixels: int, bufsiz: str | None, warned: bool
) -> None:
    """Beyond the buffer a frame goes out in pieces (a pause may latch half of it)."""
    path = tmp_path / "bufsiz"
    if bufsiz is not None:
        path.write_text(bufsiz + "\n")
    wire = RecordingWire()
    spidev = SimpleNamespace(SpiDev=spidev_on(wire, bufsiz=int(bufsiz or 4096)))
    with caplog.at_level("WARNING"), NeoPixelStrip(10, pixels, spidev=spidev, bufsiz_path=path):
        pass
    said = [r.getMessage() for r in caplog.records if "spidev.bufsiz=65536" in r.getMessage()]
    assert bool(said) is warned
    if warned:
        assert f"{frame_bytes(pixels, 'GRB')} bytes" in said[0] and "cmdline.txt" in said[0]
