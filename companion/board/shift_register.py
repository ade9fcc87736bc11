"""A chain of 74HC165 parallel-in shift registers read over gpiozero's SPI interface.

Wiring (reference design 1): every chip's CLK on the SPI clock, CLK INH on the SPI
select line (low while reading), SH/LD on a plain GPIO, each chip's QH into the
next chip's SER, the last chip's QH into MISO, the first chip's SER to ground.  The
chain has SPI1 to itself (clock GPIO21, MISO GPIO19, CE0 GPIO18: ``/dev/spidev1.0``
from ``dtoverlay=spi1-1cs``); SPI0 is the NeoPixels'.

Bit order: chip 0 is the FIRST chip of the chain (the one farthest from the Pi,
SER grounded), chip ``chips - 1`` the last (its QH drives MISO).  Input A..H of
chip c is bit ``8 * c + 0..7`` of ``read()``; so sensor index i is chip ``i // 8``,
input ``"ABCDEFGH"[i % 8]``.  On the wire the first bit out is H of the last chip,
then its G .. A, then H .. A of the chip before it, down to A of chip 0: reading
``chips`` bytes MSB first and joining them big-endian gives exactly that number.

SPI mode 2 (clock idles high, sample on the falling edge): the 74HC165 shifts on
the RISING edge of CLK (or of CLK INH), so the master must sample before it; mode
2 does that both in gpiozero's software SPI (which samples right after the leading
edge) and on a hardware bus, and it never shifts when CLK INH is released.

Why a bus of its own: the clock idles high in mode 2 and low in the LEDs' mode 0.  On
a shared bus every scan after an LED frame would switch the mode, and a controller
that sets the clock's new idle level only after chip select went low (upstream
``spi-dw-core``, the Pi 5's SPI) makes a rising edge while CLK INH is low: the chips
shift once before the first bit and every sensor reads one place off.  On its own bus
the mode is set once; the one transfer that may still see the idle level change (the
first after start-up) is a throw-away read (``ShiftRegisterChain.__init__``).
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from gpiozero import Device, DigitalOutputDevice
from gpiozero.exc import DeviceClosed, SPISoftwareFallback
from gpiozero.pins.mock import (
    MockSPIClockPin,
    MockSPIDevice,
    MockSPISelectPin,
)
from gpiozero.pins.spi import SPISoftware

from companion.closing import Closing
from companion.errors import StartupError

from .config import SPI1_PINS
from .gpio_sensors import BoundedHistory, MockDrivenPin, PinName, WatchedMockPin, mock_pin

#: CPOL=1, CPHA=0: see the module docstring.
SPI_CLOCK_MODE = 2
#: The chain's SPI clock: gpiozero's default on both its hardware buses, named here
#: because the clock wiring's budget (companion/hardware/clock.py) is computed for it.
SPI_CLOCK_HZ = 500_000


def register_spi1() -> None:
    """Tell gpiozero where SPI1 is, so that its pins get the hardware bus.

    gpiozero 2.0.1 knows only SPI0's pins (``gpiozero.pins.data.SPI_HARDWARE_PINS``) and
    would bit-bang any other bus.  SPI1 with the ``spi1-1cs`` overlay has one chip
    select, CE0 on GPIO18; with it in the table, ``factory.spi()`` on those pins gives
    ``LGPIOHardwareSPI`` (``lgpio.spi_open(1, 0, ...)``: ``/dev/spidev1.0``) on a Pi, and
    in mock mode ``LocalPiHardwareSPI`` over the stand-in spidev.  Idempotent.
    """
    from gpiozero.pins.data import SPI_HARDWARE_PINS

    by_function = {function: f"GPIO{gpio}" for gpio, function in SPI1_PINS.items()}
    SPI_HARDWARE_PINS.setdefault(
        1,
        {
            "clock": by_function["SCLK"],
            "mosi": by_function["MOSI"],
            "miso": by_function["MISO"],
            "select": (by_function["CE0"],),
        },
    )


register_spi1()


class SPIUnavailable(StartupError, RuntimeError):
    """The chain's hardware SPI bus did not open; gpiozero would have bit-banged it."""


def _open_spi(factory: Any, **pins: PinName | None) -> Any:
    """``factory.spi(**pins)``: hardware SPI on a hardware bus's pins, never bit-banged.

    gpiozero falls back to bit-banging a hardware bus's pins with only a warning when
    the bus does not open (spidev or lgpio missing, SPI off): at 100 scans a second
    that costs most of a Pi core, so it is a start-up error here that says what to do.
    Pins of no hardware bus get gpiozero's software SPI, as asked.

    Also works around gpiozero 2.0.1's software SPI bus: ``SPISoftwareBus.__init__``
    calls ``Device.__init__()`` without the factory it was given, so gpiozero looks for
    a global default factory (on a PC with only a ``MockFactory`` passed in that raises
    ``BadPinFactory``; on a Pi it opens a second factory).  While the interface is
    built, the given factory stands in as the default (only if there is none).
    """
    set_default = Device.pin_factory is None
    if set_default:
        Device.pin_factory = factory
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SPISoftwareFallback)
            return factory.spi(**pins)
    except SPISoftwareFallback as fallback:
        detail = str(fallback)
        todo = "install spidev" if "spidev" in detail else "enable SPI"
        if pins.get("clock_pin") in SPI1_PINS:
            enable = (
                "enable SPI1: dtoverlay=spi1-1cs,cs0_pin=18 in /boot/firmware/config.txt and "
                "reboot, ls /dev/spidev1.0 must list it"
            )
        else:
            enable = "enable SPI: sudo raspi-config nonint do_spi 0 and reboot"
        raise SPIUnavailable(
            f"the sensor chain's hardware SPI bus did not open ({detail}): {todo} "
            f"({enable}; install spidev and lgpio: sudo ./install.sh does both)"
        ) from None
    finally:
        if set_default and Device.pin_factory is factory:
            Device.pin_factory = None


#: What the chain needs of the bus; each is set only where the bus differs, since
#: gpiozero's lgpio bus has a fixed bit order and word size and refuses any assignment.
SPI_SETTINGS = (("clock_mode", SPI_CLOCK_MODE), ("lsb_first", False), ("bits_per_word", 8))


def input_name(index: int) -> str:
    """Where sensor ``index`` is wired: ``"chip 4 input G"`` (chips count from 0)."""
    chip, bit = divmod(index, 8)
    return f"chip {chip} input {'ABCDEFGH'[bit]}"


class ShiftRegisterChain(Closing):
    """``chips`` chained 74HC165s: ``read()`` latches all inputs and returns them.

    Composed of gpiozero devices: an SPI interface from the pin factory (hardware
    SPI when the pins are a hardware bus gpiozero knows, else bit-banged) and a
    ``DigitalOutputDevice`` on SH/LD, idle high.
    """

    def __init__(
        self,
        clock_pin: PinName,
        data_pin: PinName,
        select_pin: PinName,
        load_pin: PinName,
        chips: int,
        *,
        pin_factory: Any = None,
    ) -> None:
        if chips < 1:
            raise ValueError(f"a chain needs at least one chip, got {chips}")
        self._chips = chips
        self._spi: Any = None
        # "on" = SH/LD low = load; created first so that it resolves the pin factory.
        self._load: Any = DigitalOutputDevice(
            load_pin, active_high=False, initial_value=False, pin_factory=pin_factory
        )
        try:
            self._spi = _open_spi(
                self._load.pin_factory,
                clock_pin=clock_pin,
                mosi_pin=None,
                miso_pin=data_pin,
                select_pin=select_pin,
            )
            for name, value in SPI_SETTINGS:
                if getattr(self._spi, name) != value:
                    setattr(self._spi, name, value)
            # A bit-banged bus has no rate (it clocks as fast as Python runs).
            if not isinstance(self._spi, SPISoftware) and self._spi.rate != SPI_CLOCK_HZ:
                self._spi.rate = SPI_CLOCK_HZ
            # The first transfer in mode 2 may move the clock to its idle level while
            # CLK INH is low (module docstring): that stray shift lands here, in a read
            # whose result nobody uses; every scan after it starts with a load pulse.
            self._spi.read(1)
        except BaseException:
            self.close()
            raise
        self._lock = threading.Lock()

    @property
    def chips(self) -> int:
        return self._chips

    @property
    def count(self) -> int:
        """How many inputs the chain has (8 per chip)."""
        return 8 * self._chips

    @property
    def closed(self) -> bool:
        return self._spi is None

    @property
    def spi(self) -> Any:
        """The gpiozero SPI interface (to see whether it is hardware or software)."""
        return self._spi

    def read(self) -> int:
        """Latch every input (SH/LD pulsed low) and shift them all in.

        Bit ``8 * chip + input`` (A=0 .. H=7) is that input's level, high = 1.
        """
        with self._lock:
            if self._spi is None:
                raise DeviceClosed("the shift-register chain is closed")
            self._load.on()
            self._load.off()
            words = self._spi.read(self._chips)
        return int.from_bytes(bytes(words), "big")

    def close(self) -> None:
        """Release the SPI interface and the load pin; safe to call twice."""
        if self._spi is not None:
            self._spi.close()
            self._spi = None
        if self._load is not None:
            self._load.close()
            self._load = None

    def __repr__(self) -> str:
        if self.closed:
            return "<ShiftRegisterChain closed>"
        # Not repr(self._spi): gpiozero 2.0.1's software SPI repr fails without MOSI.
        return f"<ShiftRegisterChain {self._chips} chips on {type(self._spi).__name__}>"


# -- mock side ------------------------------------------------------------------------


class Mock165ClockPin(BoundedHistory, MockSPIClockPin):  # type: ignore[misc]
    """The chain's CLK as a mock SPI clock pin, with a bounded state history."""


class Mock165SelectPin(BoundedHistory, MockSPISelectPin):  # type: ignore[misc]
    """The chain's CLK INH as a mock SPI select pin, with a bounded state history."""


class Mock165LoadPin(WatchedMockPin):
    """SH/LD: tells the chain about every change, as the chips see the line."""


class Mock74HC165Chain(MockSPIDevice):  # type: ignore[misc]
    """A simulated chain of 74HC165s behind the pins of a ``ShiftRegisterChain``.

    Set ``inputs`` (bit ``8 * chip + input``, 1 = the input is high) to what the
    switches show.  Like the chips: while SH/LD is low the register follows the
    inputs; on the rising edge of CLK OR CLK INH, with SH/LD high, it shifts one
    place towards QH and takes ``serial_in`` into chip 0's A; MISO always shows QH
    of the last chip.  Without a load pulse the register keeps what it had.
    Create it before the ``ShiftRegisterChain`` opens the pins.
    """

    def __init__(
        self,
        clock_pin: PinName,
        data_pin: PinName,
        select_pin: PinName,
        load_pin: PinName,
        chips: int,
        *,
        pin_factory: Any,
        serial_in: bool = False,
    ) -> None:
        if chips < 1:
            raise ValueError(f"a chain needs at least one chip, got {chips}")
        self._lock = threading.RLock()
        self._count = 8 * chips
        self._mask = (1 << self._count) - 1
        self._top = self._count - 1
        self._inputs = 0
        self._register = 0
        self.serial_in = serial_in
        self._gate = True
        # The pins must be ours before MockSPIDevice (and later the chain) fetch them.
        mock_pin(pin_factory, clock_pin, Mock165ClockPin)
        mock_pin(pin_factory, select_pin, Mock165SelectPin)
        self._miso: MockDrivenPin = mock_pin(pin_factory, data_pin, MockDrivenPin)
        self._load_pin: Mock165LoadPin = mock_pin(pin_factory, load_pin, Mock165LoadPin)
        super().__init__(
            clock_pin,
            mosi_pin=None,
            miso_pin=data_pin,
            select_pin=select_pin,
            clock_polarity=True,
            pin_factory=pin_factory,
        )
        self._gate = self._gate_level()
        self._load_pin.on_change = self.on_load
        self.on_load()

    @property
    def count(self) -> int:
        return self._count

    @property
    def inputs(self) -> int:
        """The levels on the parallel inputs (bit ``8 * chip + input``)."""
        return self._inputs

    @inputs.setter
    def inputs(self, mask: int) -> None:
        if mask & ~self._mask:
            raise ValueError(f"inputs has bits beyond the {self._count} inputs")
        with self._lock:
            self._inputs = mask
            if not self._load_pin._state:
                self._register = mask
                self._show()

    @property
    def register(self) -> int:
        """What the chips hold now (bit ``8 * chip + input``, QH of the last = top bit)."""
        return self._register

    def _gate_level(self) -> bool:
        return bool(self.clock_pin._state) or bool(self.select_pin._state)

    def _show(self) -> None:
        self._miso.drive(bool(self._register >> self._top & 1))

    def on_load(self) -> None:
        """SH/LD changed: while it is low the register follows the inputs."""
        with self._lock:
            if not self._load_pin._state:
                self._register = self._inputs
                self._show()

    def _edge(self) -> None:
        gate = self._gate_level()
        rising = gate and not self._gate
        self._gate = gate
        if rising:
            self._shift()

    def _shift(self) -> None:
        """One rising edge with CLK INH low: shift towards QH, unless SH/LD is low."""
        if self._load_pin._state:
            self._register = ((self._register << 1) | self.serial_in) & self._mask
            self._show()

    def on_clock(self) -> None:
        with self._lock:
            self._edge()

    def spi_burst(self, bits: int, clock_mode: int) -> int:
        """A whole hardware SPI transfer of ``bits`` clocks with CLK INH low, at once.

        In mode 2 QH is sampled before each rising edge shifts; in mode 1 the first
        rising edge comes before the first sample, so one bit is lost.  Modes 0 and 3
        sample on the very edge that shifts: real chips would answer by timing luck.
        """
        if clock_mode in (0, 3):
            raise ValueError(
                f"SPI mode {clock_mode} samples on the edge where the 74HC165 shifts; "
                f"read the chain in mode {SPI_CLOCK_MODE}"
            )
        with self._lock:
            if not self._load_pin._state:
                # SH/LD low: the chips ignore the clock and QH shows the last input H.
                return (1 << bits) - 1 if self._register >> self._top & 1 else 0
            early = 1 if clock_mode == 1 else 0
            fill = ((1 << (bits + early)) - 1) if self.serial_in else 0
            # The register followed by what SER shifts in, read from the top.
            stream = (self._register << (bits + early)) | fill
            self._register = stream & self._mask
            self._show()
            return (stream >> self._count) & ((1 << bits) - 1)

    def on_select(self) -> None:
        with self._lock:
            self._edge()

    def stray_rising_edge(self) -> None:
        """CLK rose while CLK INH was low, outside a transfer's bits (a bus that changed
        its clock polarity after chip select, mock_spi.BoardWire): one shift, as the
        chips take it."""
        with self._lock:
            self._shift()

    def close(self) -> None:
        """Unhook from the pins; MISO goes back to its pull."""
        super().close()
        self._load_pin.on_change = None
        self._miso.drive(None)
