"""The 74HC165 chain under the Pi's real gpiozero classes: LGPIOFactory with its
LGPIOHardwareSPI over a stand-in ``lgpio`` module (the kernel's edge: gpiochip and
spidev calls), and the start-up error when the hardware bus does not open."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from gpiozero.exc import SPIFixedBitOrder

from companion.board.shift_register import ShiftRegisterChain, SPIUnavailable
from companion.pi.pin_factory import PinFactoryUnavailable, describe, open_pin_factory

CLOCK, MISO, CE0, LOAD = 21, 19, 18, 25
PI4_REVISION = 0xC03114  # what /proc/cpuinfo says on a Pi 4B 1.4
PI5_REVISION = 0xD04170  # a Pi 5 with 4 GB, rev 1.0


class Kernel:
    """A gpiochip and SPI1 with a 74HC165 chain on CE0, as lgpio's C library sees them."""

    def __init__(self) -> None:
        self.modes: dict[int, int] = {}
        self.levels: dict[int, int] = {}
        self.inputs = 0
        self.chips = 2
        self.register = 0
        self.spi_open: dict[int, tuple[int, int, int, int]] = {}
        self.refuse_spi = False

    def write(self, gpio: int, level: int) -> None:
        self.levels[gpio] = level
        if gpio == LOAD and not level:  # SH/LD low latches the inputs
            self.register = self.inputs

    def xfer(self, handle: int, count: int) -> bytes:
        bus, device, _baud, flags = self.spi_open[handle]
        assert (bus, device) == (1, 0), "the chain is /dev/spidev1.0"
        assert flags & 3 == 2, "the chain is read in SPI mode 2"
        assert self.levels.get(LOAD) == 1, "SH/LD must be high while shifting"
        data = self.register.to_bytes(self.chips, "big")[:count]
        return data + bytes(count - len(data))


def stand_in_lgpio(kernel: Kernel) -> ModuleType:
    """The ``lgpio`` module's calls that gpiozero makes, answered by ``kernel``."""
    m = ModuleType("lgpio")

    class error(Exception):
        pass

    out = 1 << 1
    handles = iter(range(10, 1000))
    values: dict[str, Any] = {
        "error": error,
        "SET_PULL_NONE": 0,
        "SET_PULL_UP": 32,
        "SET_PULL_DOWN": 64,
        "BOTH_EDGES": 3,
        "RISING_EDGE": 1,
        "FALLING_EDGE": 2,
        "gpiochip_open": lambda chip: 1,
        "gpiochip_close": lambda handle: 0,
        "gpio_claim_input": lambda h, g, flags=0: kernel.modes.__setitem__(g, 0),
        "gpio_claim_output": lambda h, g, level=0, flags=0: (
            kernel.modes.__setitem__(g, out),
            kernel.write(g, level),
        ),
        "gpio_free": lambda h, g: kernel.modes.pop(g, None),
        "gpio_get_mode": lambda h, g: kernel.modes.get(g, 0),
        "gpio_read": lambda h, g: kernel.levels.get(g, 0),
        "gpio_write": lambda h, g, level: kernel.write(g, int(level)),
    }

    def spi_open(bus: int, device: int, baud: int, flags: int) -> int:
        if kernel.refuse_spi:
            raise error("'no permission to open SPI device'")
        handle = next(handles)
        kernel.spi_open[handle] = (bus, device, baud, flags)
        return handle

    values["spi_open"] = spi_open
    values["spi_close"] = lambda handle: kernel.spi_open.pop(handle) and 0
    values["spi_xfer"] = lambda h, data: (len(data), bytearray(kernel.xfer(h, len(data))))
    values["spi_read"] = lambda h, count: (count, bytearray(kernel.xfer(h, count)))
    values["spi_write"] = lambda h, data: len(data)
    for name, value in values.items():
        setattr(m, name, value)
    return m


KERNEL = Kernel()
LGPIO = stand_in_lgpio(KERNEL)


@pytest.fixture(params=[PI4_REVISION, PI5_REVISION], ids=["pi4", "pi5"])
def lgpio_factory(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Any]:
    """gpiozero's real LGPIOFactory on the stand-in lgpio, as on a Pi 4B and a Pi 5."""
    KERNEL.__init__()  # type: ignore[misc]
    monkeypatch.setitem(sys.modules, "lgpio", LGPIO)
    module = importlib.import_module("gpiozero.pins.lgpio")
    assert module.lgpio is LGPIO, "gpiozero's lgpio module was bound to another lgpio"
    monkeypatch.setattr(module.LGPIOFactory, "_get_revision", lambda self: request.param)
    factory = open_pin_factory()
    yield factory
    factory.close()


def test_the_chain_opens_and_reads_under_the_lgpio_hardware_bus(lgpio_factory: Any) -> None:
    from gpiozero.pins.lgpio import LGPIOHardwareSPI

    with ShiftRegisterChain(CLOCK, MISO, CE0, LOAD, 2, pin_factory=lgpio_factory) as chain:
        assert type(chain.spi) is LGPIOHardwareSPI
        # /dev/spidev1.0 (SPI1, dtoverlay=spi1-1cs), 500 kHz, mode 2: the chain's own bus.
        assert list(KERNEL.spi_open.values()) == [(1, 0, 500_000, 2)]
        KERNEL.inputs = 0xA5C3
        assert chain.read() == 0xA5C3
        KERNEL.inputs = 0x0001
        assert chain.read() == 0x0001
    assert not KERNEL.spi_open, "closing the chain closes the SPI handle"


def test_the_lgpio_bus_refuses_what_the_chain_must_never_set(lgpio_factory: Any) -> None:
    """gpiozero's LGPIOHardwareSPI has a fixed bit order: assigning it raises."""
    chain = ShiftRegisterChain(CLOCK, MISO, CE0, LOAD, 1, pin_factory=lgpio_factory)
    with chain, pytest.raises(SPIFixedBitOrder):
        chain.spi.lsb_first = False


def test_a_bus_that_does_not_open_is_an_error_not_bit_banging(lgpio_factory: Any) -> None:
    KERNEL.refuse_spi = True
    with pytest.raises(SPIUnavailable, match="enable SPI1: dtoverlay=spi1-1cs,cs0_pin=18"):
        ShiftRegisterChain(CLOCK, MISO, CE0, LOAD, 1, pin_factory=lgpio_factory)


def test_the_pin_factory_is_lgpio_and_the_log_names_the_board(lgpio_factory: Any) -> None:
    line = describe(lgpio_factory)
    assert line.startswith("LGPIOFactory on /dev/gpiochip0")
    assert "4B" in line or "5B" in line


def test_without_lgpio_the_start_up_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)
    with pytest.raises(PinFactoryUnavailable, match="install"):
        open_pin_factory()
