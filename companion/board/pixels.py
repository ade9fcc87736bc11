"""The NeoPixel drivers and the LED output that pushes rendered frames to them.

``LedOutput`` turns a frame of logical positions (from ``render``) into the bytes on
the strip: it maps every position to its pixel index (``[leds.layout]``), applies gamma
and the configured brightness, then the current limiter, and shows the result.  The
pixel drivers only hold and send bytes:

- ``NeoPixelStrip``: adafruit's ``neopixel_spi`` on GPIO10 (SPI0 MOSI), writing through
  ``/dev/spidev0.0`` with py-spidev: the same path on a Pi 3, 4, 5 and Zero 2 W, and
  no root (the ``spi`` group may open the device).  Why this one and not Blinka's
  ``neopixel`` (rpi_ws281x on a Pi 4, the PIO package on a Pi 5) is in
  hardware/README.md.  SPI must be on and, on a Pi 3 or 4, the core clock fixed
  (Pi 3 and Zero 2 W: ``core_freq=250``; Pi 4: ``core_freq=500`` and
  ``core_freq_min=500``): the installer does both.
- ``MockPixels``: a real ``adafruit_pixelbuf.PixelBuf`` (so byte order is the
  library's) whose transmit records every frame's bytes, for mock mode and tests.

Both drivers run at PixelBuf brightness 1.0: ``LedOutput`` applies the configured
brightness itself, before the limiter, so that the limiter sees the bytes that
really reach the strip.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import adafruit_pixelbuf

from companion.closing import Closing

from .config import SPI_MOSI_PINS, LedConfig
from .limiter import estimate_milliamps, limit, output_table
from .render import DARK, RGB


class LedClosedError(RuntimeError):
    """The pixels (or the LED output) were closed and cannot show frames any more."""


class Pixels(Protocol):
    """What ``LedOutput`` needs of a driver: a PixelBuf-like strip with ``close()``."""

    brightness: float

    def __len__(self) -> int: ...

    def __setitem__(self, index: slice, value: Sequence[RGB]) -> None: ...

    def show(self) -> None: ...

    def close(self) -> None: ...


class MockPixels(Closing, adafruit_pixelbuf.PixelBuf):  # type: ignore[misc]
    """A PixelBuf that records the bytes of every shown frame instead of sending them.

    ``frames`` keeps the newest ``history`` frames (bytes in the strip's byte order,
    as they would go down the wire); ``frames_shown`` counts all of them.
    """

    def __init__(
        self, count: int, *, byteorder: str = "GRB", brightness: float = 1.0, history: int = 120
    ) -> None:
        super().__init__(count, byteorder=byteorder, brightness=brightness, auto_write=False)
        self.frames: deque[bytes] = deque(maxlen=history)
        self.frames_shown = 0
        self.closed = False

    def _transmit(self, buffer: bytearray) -> None:
        if self.closed:
            raise LedClosedError("the mock pixels are closed")
        self.frames.append(bytes(buffer))
        self.frames_shown += 1

    @property
    def last_frame(self) -> bytes | None:
        """The bytes of the newest shown frame, or None before the first."""
        return self.frames[-1] if self.frames else None

    def colours(self, frame: bytes | None = None) -> tuple[tuple[int, ...], ...]:
        """A recorded frame (default: the newest) as one colour per pixel, RGB(W) order."""
        data = self.last_frame if frame is None else frame
        if data is None:
            return ()
        order: tuple[int, ...] = self._byteorder
        bpp: int = self._bpp
        return tuple(
            tuple(data[start + offset] for offset in order) for start in range(0, len(data), bpp)
        )

    def close(self) -> None:
        """Blank the pixels (a last, dark frame is recorded) and refuse further frames."""
        if self.closed:
            return
        self.fill(0)
        self.show()
        self.closed = True


#: WS2812 data at 800 kHz as SPI bytes at 6.4 MHz: one byte per bit (neopixel_spi's default).
NEOPIXEL_SPI_HZ = 6_400_000
#: The kernel's spidev buffer: a longer write goes out as several transfers.
SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")

log = logging.getLogger(__name__)


def frame_bytes(count: int, byte_order: str) -> int:
    """One frame on the wire: an SPI byte per colour bit, between two 80 us resets
    (neopixel_spi's default reset time)."""
    reset = round(NEOPIXEL_SPI_HZ * 80e-6 / 8)
    return 8 * count * len(byte_order) + 2 * reset


def spidev_bufsiz(path: Path = SPIDEV_BUFSIZ) -> int | None:
    """The kernel's spidev buffer size, or None where it cannot be read (no spidev)."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


class SpidevBus:
    """busio.SPI's interface (what ``neopixel_spi`` writes to) over a spidev device.

    ``spidev`` is the py-spidev module (or a stand-in at the kernel's edge in tests);
    writes go to ``/dev/spidev{bus}.{device}`` with no Blinka board layer in between, so
    no board detection, gpiod or root is involved.
    """

    def __init__(self, spidev: Any, bus: int, device: int) -> None:
        self._dev: Any = spidev.SpiDev()
        try:
            self._dev.open(bus, device)
        except OSError as exc:
            raise OSError(
                exc.errno,
                f"/dev/spidev{bus}.{device} did not open ({exc.strerror}): enable SPI "
                "(sudo raspi-config nonint do_spi 0, then reboot) and let the service user "
                "in the spi group",
            ) from exc
        self.node = (bus, device)

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def configure(
        self, *, baudrate: int = 100_000, polarity: int = 0, phase: int = 0, bits: int = 8
    ) -> None:
        if bits != 8:
            raise ValueError("the Pi's SPI sends 8-bit words only")
        self._dev.max_speed_hz = baudrate
        mode = polarity << 1 | phase
        if self._dev.mode != mode:
            self._dev.mode = mode

    @property
    def frequency(self) -> int:
        return int(self._dev.max_speed_hz)

    def write(self, buffer: bytes | bytearray, start: int = 0, end: int | None = None) -> None:
        self._dev.writebytes2(bytes(buffer[start:end]))

    def close(self) -> None:
        self._dev.close()


class NeoPixelStrip(Closing):
    """A NeoPixel strip on SPI0's MOSI (GPIO10), driven by adafruit's ``neopixel_spi``.

    One path on the Pi 3, 4, 5 and Zero 2 W, without root: the library turns every data
    bit into one SPI byte at 6.4 MHz and writes the frame to ``/dev/spidev0.0`` (the
    ``spi`` group may open it).  On a Pi 3 or 4 the SPI clock follows the core clock, so
    the installer fixes it in config.txt.  ``spidev`` is py-spidev by default.
    """

    def __init__(
        self,
        pin: int,
        count: int,
        byte_order: str = "GRB",
        *,
        spidev: Any = None,
        bufsiz_path: Path = SPIDEV_BUFSIZ,
    ) -> None:
        if pin not in SPI_MOSI_PINS:
            raise ValueError(
                f"leds.pin = {pin}: the NeoPixels are driven through SPI0's MOSI, "
                f"so their data line goes on GPIO{min(SPI_MOSI_PINS)}"
            )
        if spidev is None:
            try:
                spidev = importlib.import_module("spidev")
            except ImportError as exc:
                raise ImportError(
                    "the NeoPixels need spidev: install spidev (sudo ./install.sh installs "
                    "it), or run with --mock"
                ) from exc
        # neopixel_spi's bus helper imports Blinka's digitalio (for type hints), which on a
        # Pi loads Blinka's gpiod pins; never let Blinka offer to pip-install at import.
        os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
        import neopixel_spi

        self.bus = SpidevBus(spidev, *SPI_MOSI_PINS[pin])
        try:
            self._strip: Any = neopixel_spi.NeoPixel_SPI(
                self.bus,
                count,
                pixel_order=byte_order,
                brightness=1.0,
                auto_write=False,
                frequency=NEOPIXEL_SPI_HZ,
            )
        except BaseException:
            self.bus.close()
            raise
        self.closed = False
        frame, bufsiz = frame_bytes(count, byte_order), spidev_bufsiz(bufsiz_path)
        if bufsiz is not None and frame > bufsiz:
            log.warning(
                "a frame for %d pixels is %d bytes, more than the kernel's SPI buffer (%d): "
                "it goes out in pieces, and a pause between them may latch half a frame. "
                "Add spidev.bufsiz=65536 to the one line of /boot/firmware/cmdline.txt "
                "and reboot",
                count,
                frame,
                bufsiz,
            )

    @property
    def brightness(self) -> float:
        return float(self._strip.brightness)

    @brightness.setter
    def brightness(self, value: float) -> None:
        self._strip.brightness = value

    def __len__(self) -> int:
        return len(self._strip)

    def __setitem__(self, index: slice, value: Sequence[RGB]) -> None:
        self._strip[index] = value

    def show(self) -> None:
        if self.closed:
            raise LedClosedError("the NeoPixel strip is closed")
        self._strip.show()

    def close(self) -> None:
        """Blank the strip and release the SPI device."""
        if self.closed:
            return
        self.closed = True
        try:
            self._strip.deinit()
        finally:
            self.bus.close()


def open_pixels(config: LedConfig, mock: bool, *, spidev: Any = None) -> Pixels:
    """The pixel driver for ``config``: recorded frames in mock mode, else the strip."""
    if mock:
        return MockPixels(config.count, byteorder=config.byte_order)
    if config.driver == "neopixel" and config.pin is not None:
        return NeoPixelStrip(config.pin, config.count, config.byte_order, spidev=spidev)
    raise ValueError(
        f"leds.driver = {config.driver}: the microcontroller drives these pixels "
        "over the serial link, not the Pi"
    )


@dataclass(frozen=True)
class LedReport:
    """What the last frame drew: the estimate before and after the limiter, and its scale."""

    wanted_milliamps: float
    milliamps: float
    scale: float

    @property
    def limited(self) -> bool:
        return self.scale < 1.0


class LedOutput(Closing):
    """Shows rendered frames on pixels: layout, gamma, brightness, current limiter."""

    def __init__(self, config: LedConfig, pixels: Pixels) -> None:
        if len(pixels) != config.count:
            raise ValueError(f"the pixels have {len(pixels)} LEDs, leds.count is {config.count}")
        self.config = config
        self.pixels = pixels
        # Brightness is applied here, before the limiter; the driver must not dim again.
        pixels.brightness = 1.0
        self._table = output_table(config.gamma, config.brightness)
        self._dark = [DARK] * config.count
        self.frames_shown = 0
        self.last = LedReport(0.0, 0.0, 1.0)
        self.closed = False

    def show(self, frame: Sequence[RGB]) -> LedReport:
        """Show one colour per logical position; pixels no position uses stay dark."""
        if self.closed:
            raise LedClosedError("the LED output is closed")
        indices = self.config.indices
        if len(frame) != len(indices):
            raise ValueError(f"a frame needs {len(indices)} colours, got {len(frame)}")
        table = self._table
        # bytes() checks that every channel is a whole number from 0 to 255.
        raw = bytes([channel for colour in frame for channel in colour])
        if len(raw) != 3 * len(indices):
            raise ValueError("every colour of a frame needs exactly three channels")
        out = raw.translate(table)
        pixels = list(self._dark)
        for position, index in enumerate(indices):
            at = 3 * position
            pixels[index] = (out[at], out[at + 1], out[at + 2])
        return self._write(pixels)

    def off(self) -> LedReport:
        """Show all pixels dark."""
        if self.closed:
            raise LedClosedError("the LED output is closed")
        return self._write(list(self._dark))

    def _write(self, pixels: list[RGB]) -> LedReport:
        config = self.config
        per_channel, idle = config.milliamps_per_channel, config.idle_milliamps
        wanted = estimate_milliamps(pixels, per_channel, idle)
        limited, scale = limit(pixels, config.max_milliamps, per_channel, idle)
        self.pixels[:] = limited
        self.pixels.show()
        self.frames_shown += 1
        drawn = wanted if scale == 1.0 else estimate_milliamps(limited, per_channel, idle)
        self.last = LedReport(wanted_milliamps=wanted, milliamps=drawn, scale=scale)
        return self.last

    def get_status(self) -> dict[str, Any]:
        """JSON-safe status for the status page and ``companion selftest``."""
        return {
            "frames": self.frames_shown,
            "milliamps": round(self.last.milliamps, 1),
            "wanted_milliamps": round(self.last.wanted_milliamps, 1),
            "limiter_scale": round(self.last.scale, 3),
            "max_milliamps": self.config.max_milliamps,
            "closed": self.closed,
        }

    def close(self) -> None:
        """Blank and close the pixels; closing twice is harmless."""
        if self.closed:
            return
        self.closed = True
        self.pixels.close()
