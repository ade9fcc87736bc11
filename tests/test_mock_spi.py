"""Mock mode's hardware SPI bus: gpiozero's real LocalPiHardwareSPI over the stand-in
spidev, and the 74HC165 chain answering it exactly as it answers the bit-banged bus."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from gpiozero import Device
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.local import LocalPiHardwareSPI
from gpiozero.pins.mock import MockFactory, MockSPIDevice
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board.config import default_config
from companion.board.mock_board import MockBoard, mock_factory
from companion.board.pixels import NeoPixelStrip
from companion.board.sensors import Sensors, open_backend
from companion.board.shift_register import Mock74HC165Chain, ShiftRegisterChain

# SPI1 with CE0, as in reference design 1; GPIO 20/19/16 are no hardware bus.
BUS = (21, 19, 18, 25)
NOT_A_BUS = (20, 19, 16, 26)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    before = Device.pin_factory
    f = mock_factory(default_config())
    yield f
    assert Device.pin_factory is before
    f.close()
    f.reset()


def open_pair(
    factory: MockFactory, pins: tuple[int, int, int, int], chips: int
) -> tuple[Mock74HC165Chain, ShiftRegisterChain]:
    return (
        Mock74HC165Chain(*pins, chips, pin_factory=factory),
        ShiftRegisterChain(*pins, chips, pin_factory=factory),
    )


def test_the_bus_pins_get_hardware_spi_and_other_pins_are_bit_banged(
    factory: MockFactory,
) -> None:
    mock, chain = open_pair(factory, BUS, 2)
    with mock, chain:
        assert isinstance(chain.spi, LocalPiHardwareSPI)
        assert repr(chain.spi) == "SPI(port=1, device=0)"
    mock, chain = open_pair(factory, NOT_A_BUS, 2)
    with mock, chain:
        assert not isinstance(chain.spi, LocalPiHardwareSPI)


@settings(max_examples=60, deadline=None)
@given(chips=st.integers(1, 20), data=st.data())
def test_hardware_and_bit_banged_reads_agree(chips: int, data: st.DataObject) -> None:
    """Whatever the switches show, both buses read the same number from the chips."""
    values = data.draw(st.lists(st.integers(0, (1 << 8 * chips) - 1), min_size=1, max_size=4))
    hardware, software = mock_factory(default_config()), MockFactory()
    try:
        fast_mock, fast = open_pair(hardware, BUS, chips)
        slow_mock, slow = open_pair(software, BUS, chips)
        with fast_mock, fast, slow_mock, slow:
            assert isinstance(fast.spi, LocalPiHardwareSPI)
            assert not isinstance(slow.spi, LocalPiHardwareSPI)
            for value in values:
                fast_mock.inputs = slow_mock.inputs = value
                assert fast.read() == slow.read()
                assert fast.read() == value
                # Raw transfers without a load pulse shift the register on in both.
                assert fast.spi.read(chips + 1) == slow.spi.read(chips + 1)
                assert fast_mock.register == slow_mock.register
    finally:
        for f in (hardware, software):
            f.close()
            f.reset()


def test_a_transfer_without_a_load_pulse_shifts_out_what_was_latched(
    factory: MockFactory,
) -> None:
    mock, chain = open_pair(factory, BUS, 3)
    with mock, chain:
        mock.inputs = 0xABCDEF
        assert chain.read() == 0xABCDEF
        mock.inputs = 0x123456
        assert chain.spi.read(3) == [0, 0, 0]  # zeros from the grounded SER
        mock.serial_in = True  # SER tied high: ones follow the last bit
        assert chain.spi.read(4) == [0, 0, 0, 0xFF]
        assert chain.read() == 0x123456


def test_the_clock_mode_decides_what_the_chips_answer(factory: MockFactory) -> None:
    mock, chain = open_pair(factory, BUS, 1)
    with mock, chain:
        mock.inputs = 0b1000_0001
        chain.spi.clock_mode = 1  # the first rising edge shifts before the first sample
        assert chain.read() == 0b0000_0010
        chain.spi.clock_mode = 0  # sampling on the shifting edge: refused, not guessed
        with pytest.raises(ValueError, match="mode 0 samples on the edge"):
            chain.read()
        chain.spi.clock_mode = 2
        mock.inputs = 0b1000_0011
        # From mode 0 to 2 the clock's idle level rises after CLK INH went low (the worst
        # case BoardWire models): one stray shift, every input read one place on.
        assert chain.read() == 0b0000_0110
        assert chain.read() == 0b1000_0011  # the mode stays: no stray edge any more


def test_the_kernel_refuses_what_a_pi_refuses(factory: MockFactory) -> None:
    """The stand-in spidev answers as a Pi's SPI controller: MSB first, 8-bit words."""
    mock, chain = open_pair(factory, BUS, 1)
    with mock, chain:
        with pytest.raises(OSError, match="Invalid argument"):
            chain.spi.lsb_first = True
        with pytest.raises(OSError, match="Invalid argument"):
            chain.spi.bits_per_word = 16
        assert chain.spi.clock_mode == 2
        with pytest.raises(OverflowError, match="4096"):
            chain.spi.read(4097)


def test_nothing_on_the_select_line_reads_the_idle_miso_level(factory: MockFactory) -> None:
    spi = factory.spi(clock_pin=11, miso_pin=9, select_pin=8)
    try:
        assert isinstance(spi, LocalPiHardwareSPI)
        assert spi.read(2) == [0, 0]
        factory.pin(9).drive_high()
        assert spi.read(2) == [0xFF, 0xFF]
    finally:
        spi.close()


def test_a_device_that_only_knows_the_bit_banged_bus_is_refused(factory: MockFactory) -> None:
    device = MockSPIDevice(11, miso_pin=9, select_pin=8, pin_factory=factory)
    spi = factory.spi(clock_pin=11, miso_pin=9, select_pin=8)
    try:
        with pytest.raises(TypeError, match="MockSPIDevice on the select line"):
            spi.read(1)
    finally:
        spi.close()
        device.close()


def test_the_bus_is_reserved_until_closed(factory: MockFactory) -> None:
    spi = factory.spi(clock_pin=11, miso_pin=9, select_pin=7)
    with pytest.raises(GPIOPinInUse):
        factory.spi(clock_pin=11, miso_pin=9, select_pin=7)
    spi.close()
    spi.close()
    assert spi.closed
    again = factory.spi(clock_pin=11, miso_pin=9, select_pin=7)
    assert again.read(1) == [0]
    again.close()


def test_the_simulated_board_is_scanned_through_the_hardware_bus() -> None:
    """What `companion run --mock` uses: a magnet on C4 reaches the debounced snapshot."""
    config = default_config()
    factory = mock_factory(config)
    try:
        with MockBoard(config, factory) as board:
            backend = open_backend(config.sensors, pin_factory=factory)
            assert isinstance(backend, ShiftRegisterChain)
            assert isinstance(backend.spi, LocalPiHardwareSPI)
            backend.close()
            sensors = Sensors(config.sensors, pin_factory=factory)
            c4 = board.position("C4")
            board.place(c4)
            with sensors:
                assert sensors.prime() == {c4}
    finally:
        factory.close()
        factory.reset()


def strip_on(factory: MockFactory, pixels: int) -> NeoPixelStrip:
    """The real NeoPixel driver (neopixel_spi over ``/dev/spidev0.0``) on the same stand-in
    kernel as the chain: both buses' transfers go through the board's one ``BoardWire``."""
    # HardwareSPIMockFactory makes its stand-in spidev when the first hardware bus opens.
    return NeoPixelStrip(10, pixels, spidev=SimpleNamespace(SpiDev=factory.spidev))


@settings(max_examples=25, deadline=None)
@given(inputs=st.integers(1, (1 << 152) - 1), frames=st.integers(1, 3))
def test_an_led_frame_between_two_scans_never_shifts_the_chain(inputs: int, frames: int) -> None:
    """Reference design 1 as configured: the chain on SPI1 in mode 2, the strip on SPI0 in
    mode 0.  Whatever the switches show, every scan reads them exactly, the first after
    start-up and every one after LED frames."""
    config = default_config()
    s = config.sensors
    assert s.clock_pin and s.data_pin and s.select_pin and s.load_pin
    pins = (s.clock_pin, s.data_pin, s.select_pin, s.load_pin)
    factory = mock_factory(config)
    try:
        mock, chain = open_pair(factory, pins, s.chips)
        with mock, chain, strip_on(factory, config.leds.count) as strip:
            mock.inputs = inputs
            assert chain.read() == inputs
            for _ in range(frames):
                strip[:] = [(255, 40, 0)] * config.leds.count
                strip.show()
            assert chain.read() == inputs
            wire = factory.spidev.wire
            assert {(bus, device, mode) for bus, device, mode, _ in wire.transfers} == {
                (1, 0, 2),  # /dev/spidev1.0, the chain
                (0, 0, 0),  # /dev/spidev0.0, the strip
            }
            assert wire.clock_idle_high == {0: False, 1: True}
    finally:
        factory.close()
        factory.reset()


def test_on_a_shared_bus_the_same_model_reads_every_sensor_one_place_off(
    factory: MockFactory,
) -> None:
    """The fault the own bus avoids, in the same stand-in: the chain on SPI0's CE1 beside
    the strip (the old wiring).  After an LED frame in mode 0 the scan's mode 2 raises
    the clock under CLK INH, and each sensor reads its neighbour's level.  This is what
    proves the test above could fail; whether a real controller raises the clock after
    chip select is a property of the Pi's SPI driver the stand-in cannot confirm."""
    mock, chain = open_pair(factory, (11, 9, 7, 25), 19)
    with mock, chain, strip_on(factory, 152) as strip:
        mock.inputs = inputs = 1 << 40 | 1 << 151 | 1
        assert chain.read() == inputs  # no LED frame yet: the bus stayed in mode 2
        strip.show()
        shifted = chain.read()
        assert shifted != inputs
        assert shifted == (inputs << 1) & ((1 << 152) - 1)  # sensor i reads sensor i - 1
        assert chain.read() == inputs  # the next scan without a frame is right again
