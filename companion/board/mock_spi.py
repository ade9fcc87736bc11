"""Mock mode's hardware SPI: gpiozero's own ``LocalPiHardwareSPI`` over a stand-in spidev.

On a Pi, gpiozero answers ``factory.spi()`` for the pins of a hardware bus (SPI0: clock
GPIO11, MISO GPIO9, select GPIO8 or GPIO7; SPI1, which shift_register.py adds to
gpiozero's table: clock GPIO21, MISO GPIO19, select GPIO18) with one of its hardware
classes: one kernel call per transfer, the clock made by the SPI block.  Mock mode does
the same with gpiozero's real ``LocalPiHardwareSPI`` (so it refuses what it refuses on
a Pi); only py-spidev, the thin wrapper around ``/dev/spidevB.D``, is replaced, by
``StandInSpiDev``.  It answers as a Pi's SPI controller does: 8-bit words only, MSB
first only (the kernel refuses the rest with ``EINVAL``), at most ``bufsiz`` bytes a
transfer.  Behind it a ``SpiWire`` plays the devices on the bus: in mock mode,
``BoardWire`` hands each transfer in one call to the simulated device on that chip
select (its ``spi_burst(bits, clock_mode)``), and a select line with nothing behind it
reads whatever MISO shows.  A transfer costs one Python call, not one per clock edge
as gpiozero's bit-banged mock bus would: that is what keeps mock mode's idle CPU low.

``BoardWire`` also keeps each bus's clock idle level (low from reset, CPOL of the last
transfer after it) and models the worst case of a mode change: the controller moves
the clock to the new idle level only after chip select went low, as upstream
``spi-dw-core`` (the Pi 5's SPI) does.  A transfer in mode 2 or 3 after one in mode 0
or 1 thus starts with a rising clock edge the selected device sees
(``stray_rising_edge``); a 74HC165 chain shifts on it.  What this cannot tell is
whether a given Pi's controller really does so (unconfirmed on hardware) or any
timing: it models the order of events at the kernel's edge, nothing analogue.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Protocol

from gpiozero.pins import local
from gpiozero.pins.pi import SPI_HARDWARE_PINS


class BurstDevice(Protocol):
    """A simulated SPI device that can answer a whole transfer at once."""

    def spi_burst(self, bits: int, clock_mode: int) -> int:
        """Clock ``bits`` bits; return what MISO showed, first bit the highest."""


class SpiWire(Protocol):
    """What is wired to a stand-in SPI bus: answers each transfer of 8-bit words."""

    def exchange(self, bus: int, device: int, mode: int, speed_hz: int, data: bytes) -> bytes:
        """Clock ``data`` out on ``bus``/``device`` (chip select) and return what came in."""


class StandInSpiDev:
    """py-spidev's ``SpiDev`` as a Raspberry Pi's kernel answers it, ``wire`` behind it.

    Make a class bound to a wire with ``spidev_on(wire)``: gpiozero constructs
    ``SpiDev()`` with no arguments, as it does with the real one.
    """

    wire: ClassVar[SpiWire]
    #: The kernel's spidev buffer (``spidev.bufsiz``, 4096 unless raised on the kernel line).
    bufsiz: ClassVar[int] = 4096

    def __init__(self, bus: int | None = None, device: int | None = None) -> None:
        self._node: tuple[int, int] | None = None
        self._mode = 0
        self._cshigh = False
        self.max_speed_hz = 125_000_000
        if bus is not None and device is not None:
            self.open(bus, device)

    def open(self, bus: int, device: int) -> None:
        self._node = (bus, device)

    def close(self) -> None:
        self._node = None

    def _check_open(self) -> tuple[int, int]:
        if self._node is None:
            raise OSError(errno.EBADF, "the SPI device is not open")
        return self._node

    @property
    def mode(self) -> int:
        return self._mode

    @mode.setter
    def mode(self, value: int) -> None:
        if value not in range(4):
            raise ValueError("The mode attribute must be an integer between 0 and 3.")
        self._mode = value

    @property
    def lsbfirst(self) -> bool:
        return False

    @lsbfirst.setter
    def lsbfirst(self, value: bool) -> None:
        if value:  # SPI_LSB_FIRST is not in the Pi's SPI controllers' mode bits
            raise OSError(errno.EINVAL, "Invalid argument")

    @property
    def bits_per_word(self) -> int:
        return 8

    @bits_per_word.setter
    def bits_per_word(self, value: int) -> None:
        if value != 8:  # the controller's bits_per_word_mask has 8 only
            raise OSError(errno.EINVAL, "Invalid argument")

    @property
    def cshigh(self) -> bool:
        return self._cshigh

    @cshigh.setter
    def cshigh(self, value: bool) -> None:
        self._cshigh = bool(value)

    def _transfer(self, values: Iterable[int]) -> bytes:
        bus, device = self._check_open()
        data = bytes(values)  # a word beyond 0..255 is refused, as by py-spidev
        if len(data) > self.bufsiz:
            raise OverflowError(f"Argument list size exceeds {self.bufsiz} bytes.")
        return self.wire.exchange(bus, device, self._mode, self.max_speed_hz, data)

    def xfer2(self, values: Sequence[int]) -> list[int]:
        return list(self._transfer(values))

    xfer = xfer2

    def readbytes(self, count: int) -> list[int]:
        return list(self._transfer(bytes(count)))

    def writebytes(self, values: Sequence[int]) -> None:
        self._transfer(values)

    def writebytes2(self, values: bytes | bytearray | Sequence[int]) -> None:
        """Like py-spidev: any length, sent in transfers of at most ``bufsiz`` bytes."""
        data = bytes(values)
        for start in range(0, len(data), self.bufsiz):
            self._transfer(data[start : start + self.bufsiz])


def spidev_on(wire: SpiWire, *, bufsiz: int = 4096) -> type[StandInSpiDev]:
    """A ``SpiDev`` class whose buses lead to ``wire``."""
    return type("SpiDev", (StandInSpiDev,), {"wire": wire, "bufsiz": bufsiz})


class BoardWire:
    """The devices of a mock board on SPI: the simulated device on each chip select.

    The device is found through the select pin (gpiozero's ``MockSPISelectPin.spi_device``),
    as the chips are wired: a ``Mock74HC165Chain`` made on SPI1 CE0's pin (GPIO18)
    answers transfers on ``/dev/spidev1.0``.
    """

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        #: Each bus's clock level between transfers: high after a mode 2 or 3 transfer.
        self.clock_idle_high: dict[int, bool] = {}
        #: Every transfer: (bus, device, mode, bytes), newest last (tests read it).
        self.transfers: list[tuple[int, int, int, int]] = []

    def exchange(self, bus: int, device: int, mode: int, speed_hz: int, data: bytes) -> bytes:
        pins = SPI_HARDWARE_PINS[bus]
        bits = 8 * len(data)
        del self.transfers[:-100]
        self.transfers.append((bus, device, mode, len(data)))
        chip: Any = getattr(self._factory.pin(pins["select"][device]), "spi_device", None)
        idle_high = bool(mode & 2)
        rises = idle_high and not self.clock_idle_high.get(bus, False)
        self.clock_idle_high[bus] = idle_high
        if rises and hasattr(chip, "stray_rising_edge"):
            # The new idle level arrives after chip select: the device sees the edge.
            chip.stray_rising_edge()
        if chip is None:
            stream = (1 << bits) - 1 if self._factory.pin(pins["miso"]).state else 0
        elif hasattr(chip, "spi_burst"):
            stream = chip.spi_burst(bits, mode)
        else:
            raise TypeError(
                f"{type(chip).__name__} on the select line answers only the bit-banged bus "
                "(it has no spi_burst)"
            )
        return stream.to_bytes(len(data), "big")


class HardwareSPIMockFactory:
    """Mixin for a ``MockFactory``: a hardware bus's pins get gpiozero's real
    ``LocalPiHardwareSPI`` (over ``StandInSpiDev`` and this board's wire), as on a Pi;
    other pins keep gpiozero's bit-banged software SPI."""

    spidev: type[StandInSpiDev]

    def _get_spi_class(self, shared: bool, hardware: bool) -> Any:
        if not hardware:
            return super()._get_spi_class(shared, hardware)  # type: ignore[misc]
        if not hasattr(self, "spidev"):
            self.spidev = spidev_on(BoardWire(self))
        # gpiozero bound ``spidev.SpiDev`` when it imported; the class it builds next
        # (straight after this call, in ``PiFactory.spi``) opens this board's stand-in.
        local.SpiDev = self.spidev
        return local.LocalPiHardwareSPIShared if shared else local.LocalPiHardwareSPI
