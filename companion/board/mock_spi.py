"""A hardware SPI bus on gpiozero's mock pins, as gpiozero gives one on a Pi.

On a Pi, gpiozero answers ``factory.spi()`` for the pins of a hardware bus (clock on
GPIO11, MISO on GPIO9, select on GPIO8 or GPIO7 for SPI0) with spidev: one kernel
call per transfer, the clock made by the SPI block.  ``MockFactory`` always
bit-bangs instead, which costs a Python call per clock edge; at 200 scans a second
of 152 inputs that alone kept a laptop core a quarter busy in mock mode.
``MockHardwareSPI`` takes the Pi's path on mock pins: the transfer goes in one call
to the simulated device on that chip select (its ``spi_burst(bits, clock_mode)``), and
a select line with nothing behind it reads whatever MISO shows.  Shared buses keep
gpiozero's software SPI.  One known difference from the bit-banged bus: gpiozero's
software SPI moves the clock to a new idle level only at the next transfer, so its
first read after a mode change between CPOL 0 and 1 can be off by a bit; a hardware
bus (and this one) is not.
"""

from __future__ import annotations

from typing import Any, Protocol

from gpiozero import SPI
from gpiozero.exc import DeviceClosed
from gpiozero.pins.pi import spi_port_device


class BurstDevice(Protocol):
    """A simulated SPI device that can answer a whole transfer at once."""

    def spi_burst(self, bits: int, clock_mode: int) -> int:
        """Clock ``bits`` bits; return what MISO showed, first bit the highest."""


class MockHardwareSPI(SPI):  # type: ignore[misc]
    """gpiozero's ``SPI`` interface for a hardware bus's pins, on a ``MockFactory``."""

    def __init__(
        self,
        clock_pin: Any,
        mosi_pin: Any,
        miso_pin: Any,
        select_pin: Any,
        pin_factory: Any,
    ) -> None:
        self._port, self._device = spi_port_device(clock_pin, mosi_pin, miso_pin, select_pin)
        self._open = False
        super().__init__(pin_factory=pin_factory)
        reserved = {p for p in (clock_pin, mosi_pin, miso_pin, select_pin) if p is not None}
        self.pin_factory.reserve_pins(self, *reserved)
        self._select = pin_factory.pin(select_pin)
        self._miso = None if miso_pin is None else pin_factory.pin(miso_pin)
        self._mode = 0
        self._lsb_first = False
        self._select_high = False
        self._bits_per_word = 8
        self._rate = 500_000  # what gpiozero sets on spidev
        self._open = True

    def _conflicts_with(self, other: Any) -> bool:
        if isinstance(other, MockHardwareSPI):
            return (self._port, self._device) == (other._port, other._device)
        return True

    @property
    def closed(self) -> bool:
        return not self._open

    def close(self) -> None:
        if self._open:
            self._open = False
            self.pin_factory.release_all(self)
        super().close()

    def __repr__(self) -> str:
        if self.closed:
            return "MockHardwareSPI(closed)"
        return f"MockHardwareSPI(port={self._port}, device={self._device})"

    def transfer(self, data: list[int]) -> list[int]:
        """Clock out ``data`` and return the words read at the same time."""
        if self.closed:
            raise DeviceClosed("the SPI interface is closed")
        width = self._bits_per_word
        count = len(data) * width
        device = getattr(self._select, "spi_device", None)
        if device is None:
            stream = (1 << count) - 1 if self._miso is not None and self._miso.state else 0
        elif hasattr(device, "spi_burst"):
            stream = device.spi_burst(count, self._mode)
        else:
            raise TypeError(
                f"{type(device).__name__} on the select line answers only the bit-banged bus "
                "(it has no spi_burst)"
            )
        mask = (1 << width) - 1
        words = [(stream >> (count - width * (i + 1))) & mask for i in range(len(data))]
        if self._lsb_first:
            words = [int(f"{w:0{width}b}"[::-1], 2) for w in words]
        return words

    def _get_clock_mode(self) -> int:
        return self._mode

    def _set_clock_mode(self, value: int) -> None:
        if value not in range(4):
            raise ValueError(f"invalid SPI clock mode {value}")
        self._mode = value

    def _get_lsb_first(self) -> bool:
        return self._lsb_first

    def _set_lsb_first(self, value: bool) -> None:
        self._lsb_first = bool(value)

    def _get_select_high(self) -> bool:
        return self._select_high

    def _set_select_high(self, value: bool) -> None:
        self._select_high = bool(value)

    def _get_bits_per_word(self) -> int:
        return self._bits_per_word

    def _set_bits_per_word(self, value: int) -> None:
        if not 1 <= value <= 32:
            raise ValueError(f"invalid bits per word {value}")
        self._bits_per_word = value

    def _get_rate(self) -> int:
        return self._rate

    def _set_rate(self, value: int) -> None:
        self._rate = int(value)


class HardwareSPIMockFactory:
    """Mixin for a ``MockFactory``: hardware bus pins get ``MockHardwareSPI`` as on a Pi;
    other pins keep gpiozero's bit-banged software SPI."""

    def _get_spi_class(self, shared: bool, hardware: bool) -> Any:
        if hardware and not shared:
            return MockHardwareSPI
        return super()._get_spi_class(shared, hardware)  # type: ignore[misc]
