"""Sensors on gpiozero's MockFactory: the 74HC165 chain over SPI, direct pins, a diode
matrix, the real debouncer behind them, the scan thread, and the simulated board."""

from __future__ import annotations

import math
import queue
import random
import time
from collections.abc import Iterator

import pytest
from gpiozero import Device, DigitalOutputDevice, InputDevice
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board.config import BoardConfig, default_config, default_config_text, parse_config
from companion.board.debounce import OccupancyChange
from companion.board.gpio_sensors import DiodeMatrix, DirectPins, MockWiringError
from companion.board.mock_board import MockBoard
from companion.board.sensors import SensorBackendUnavailable, Sensors, next_scan
from companion.board.shift_register import Mock74HC165Chain, ShiftRegisterChain, input_name
from companion.games.mummy.maze import parse_cell_name


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """A private MockFactory passed as pin_factory; the global one is never touched."""
    before = Device.pin_factory
    f = MockFactory()
    yield f
    assert Device.pin_factory is before
    f.close()
    f.reset()


@pytest.fixture(scope="module")
def config() -> BoardConfig:
    return default_config()


def settle(config: BoardConfig) -> float:
    return config.sensors.settle_ms / 1000


def first_scan_after_settle(config: BoardConfig, step: float = 0.005) -> float:
    """When scans ``step`` apart from an edge confirm it (the settle time, 91 ms for the
    reference reed board, is no multiple of the scan step)."""
    return math.ceil(settle(config) / step - 1e-6) * step


def scans(sensors: Sensors, start: float, stop: float, step: float) -> list[OccupancyChange]:
    """scan_once at start, start + step, ... up to and including stop (fake clock)."""
    changes: list[OccupancyChange] = []
    n = round((stop - start) / step)
    for i in range(n + 1):
        changes += sensors.scan_once(start + i * step)
    return changes


SMALL_BOARD = """
[board]
name = "small test board"
columns = 2
rows = 2
cell_pitch_mm = 25.0

[pads]
camp_slots = 1
sarcophagus_slots = 1

[sensors]
{sensors}
scan_hz = 200
settle_ms = 40

[sensors.layout]
{layout}
camp = [{camp}]
sarcophagus = [{sarcophagus}]

[leds]
pin = 10
count = 6
max_milliamps = 1000

[leds.layout]
camp = [4]
sarcophagus = [5]
"""


def small_config(
    sensors: str, layout: str = "", camp: int = 4, sarcophagus: int = 5
) -> BoardConfig:
    text = SMALL_BOARD.format(sensors=sensors, layout=layout, camp=camp, sarcophagus=sarcophagus)
    return parse_config(text, "<small board>")


# -- the 74HC165 chain ------------------------------------------------------------------


def chain_pins(config: BoardConfig) -> tuple[int, int, int, int, int]:
    s = config.sensors
    assert s.clock_pin and s.data_pin and s.select_pin and s.load_pin
    return s.clock_pin, s.data_pin, s.select_pin, s.load_pin, s.chips


def test_chain_reads_exactly_the_bits_set_on_the_mock(
    factory: MockFactory, config: BoardConfig
) -> None:
    assert config.sensors.chips == 19 and config.sensors.count == 152
    pins = chain_pins(config)
    with (
        Mock74HC165Chain(*pins, pin_factory=factory) as mock,
        ShiftRegisterChain(*pins, pin_factory=factory) as chain,
    ):
        assert chain.count == 152
        for index in range(152):
            mock.inputs = 1 << index
            assert chain.read() == 1 << index, input_name(index)
        rng = random.Random(165)
        for _ in range(30):
            value = rng.getrandbits(152)
            mock.inputs = value
            assert chain.read() == value
        mock.inputs = (1 << 152) - 1
        assert chain.read() == (1 << 152) - 1


def test_mock_chain_behaves_like_the_chips(factory: MockFactory) -> None:
    """Driven by hand as in the datasheet: load, QH first, shift on rising CLK."""
    mock = Mock74HC165Chain(11, 9, 7, 25, 2, pin_factory=factory)
    clock = DigitalOutputDevice(11, pin_factory=factory)
    inhibit = DigitalOutputDevice(7, initial_value=True, pin_factory=factory)
    load = DigitalOutputDevice(25, active_high=False, pin_factory=factory)  # on = SH/LD low
    data = InputDevice(9, pin_factory=factory)
    try:
        mock.inputs = 0b10000000_00000001  # H of the last chip (1), A of the first (0)
        load.on()
        load.off()
        mock.inputs = 0  # no load pulse: the register keeps what was latched
        assert mock.register == 0b10000000_00000001
        inhibit.off()
        bits = []
        for _ in range(16):
            bits.append(int(data.value))  # QH before the rising edge
            clock.on()
            clock.off()
        assert bits == [1] + [0] * 14 + [1]  # H of chip 1 first, A of chip 0 last
        assert mock.register == 0  # all shifted out, zeros in from the grounded SER
        # Clocks while CLK INH is high do nothing.
        load.on()
        load.off()
        inhibit.on()
        clock.on()
        clock.off()
        assert mock.register == 0
        assert input_name(0) == "chip 0 input A" and input_name(151) == "chip 18 input H"
    finally:
        for device in (clock, inhibit, load, data):
            device.close()
        mock.close()


def test_chain_without_load_pulse_reads_the_old_register(factory: MockFactory) -> None:
    with (
        Mock74HC165Chain(11, 9, 7, 25, 3, pin_factory=factory) as mock,
        ShiftRegisterChain(11, 9, 7, 25, 3, pin_factory=factory) as chain,
    ):
        mock.inputs = 0xABCDEF
        assert chain.read() == 0xABCDEF
        mock.inputs = 0x123456
        # Raw SPI without a load pulse: the register was shifted out, zeros follow.
        assert chain.spi.read(3) == [0, 0, 0]
        assert chain.read() == 0x123456


# -- positions ------------------------------------------------------------------------


def test_magnet_on_c4_reports_the_position_of_c4(factory: MockFactory, config: BoardConfig) -> None:
    c4 = parse_cell_name("C4", config.columns, config.rows)
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        assert board.position("C4") == c4
        assert s.scan_once(0.0) == []
        board.place(c4)
        assert s.scan_once(1.0) == []
        assert s.scan_once(1.0 + settle(config)) == [
            OccupancyChange(c4, True, at=1.0 + settle(config), since=1.0)
        ]
        assert s.snapshot() == {c4}
        assert config.position_name(c4) == "C4"


def remapped_default() -> BoardConfig:
    """The default board wired differently: serpentine columns from the bottom right."""
    text = default_config_text()
    head, rest = text.split("[sensors.layout]", 1)
    layout, tail = rest.split("[leds]", 1)
    layout = (
        layout.replace('order = "rows"', 'order = "columns"')
        .replace('origin = "top-left"', 'origin = "bottom-right"')
        .replace("serpentine = false", "serpentine = true")
        .replace("camp = [144, 145, 146, 147]", "camp = [151, 144, 150, 145]")
        .replace("sarcophagus = [148, 149, 150, 151]", "sarcophagus = [146, 149, 147, 148]")
    )
    return parse_config(head + "[sensors.layout]" + layout + "[leds]" + tail, "<remapped>")


@pytest.mark.parametrize(
    "board_config", [default_config(), remapped_default()], ids=["rows", "remapped"]
)
def test_every_position_maps_to_its_own_sensor(
    factory: MockFactory, board_config: BoardConfig
) -> None:
    wait = settle(board_config)
    with (
        MockBoard(board_config, factory) as board,
        Sensors(board_config.sensors, pin_factory=factory) as s,
    ):
        t = 0.0
        s.scan_once(t)
        for position in range(board_config.positions):
            board.place(position)
            t += 0.005
            edge = t
            s.scan_once(t)
            t += wait
            assert s.scan_once(t) == [OccupancyChange(position, True, t, edge)]
            board.lift(position)
            t += 0.005
            s.scan_once(t)
            t += wait
            assert [c.occupied for c in s.scan_once(t)] == [False]
        assert s.snapshot() == frozenset()
    if board_config.sensors.indices != tuple(range(152)):
        # The remapped board really is remapped: sensor 0 sits under L12.
        assert board_config.sensors.indices.index(0) == parse_cell_name("L12", 12, 12)


def test_mock_board_sets_several_figures_at_once(factory: MockFactory, config: BoardConfig) -> None:
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        camp = list(config.camp_positions())
        sarcophagus = list(config.sarcophagus_positions())
        board.set_occupied([*camp, sarcophagus[0], board.position("L12")])
        assert board.occupied == {*camp, sarcophagus[0], 143}
        scans(s, 0.0, 0.1, 0.005)
        assert s.snapshot() == board.occupied
        assert board.position("camp slot 1") == 144
        stats = s.stats()
        assert stats["scans"] == 21 and stats["scan_hz"] == pytest.approx(200)


# -- bounce and slides through the real debouncer --------------------------------------


def test_bounce_gives_one_event(factory: MockFactory, config: BoardConfig) -> None:
    wait = settle(config)
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        d5 = board.position("D5")
        events: list[OccupancyChange] = []
        s.on_change = events.append
        for i in range(9):  # contact chatter, one raw flip per 1 ms scan, ends closed
            (board.place if i % 2 == 0 else board.lift)(d5)
            s.scan_once(i * 0.001)
        last_edge = 8 * 0.001
        scans(s, 0.009, 0.009 + 2 * wait, 0.001)
        (event,) = events
        assert (event.position, event.occupied, event.since) == (d5, True, last_edge)
        assert event.at == pytest.approx(last_edge + wait, abs=0.0011)


def test_slide_across_cells_reports_only_where_the_figure_stops(
    factory: MockFactory, config: BoardConfig
) -> None:
    wait = settle(config)
    changes: queue.Queue[OccupancyChange] = queue.Queue()
    with (
        MockBoard(config, factory) as board,
        Sensors(config.sensors, pin_factory=factory, changes=changes) as s,
    ):
        a2, b2, c2, d2 = (board.position(n) for n in ("A2", "B2", "C2", "D2"))
        board.place(a2)
        scans(s, 0.0, 0.2, 0.005)
        assert changes.get_nowait() == OccupancyChange(
            a2, True, pytest.approx(first_scan_after_settle(config)), 0.0
        )
        # Slid at hand speed: 30 ms over B2 and over C2, then it rests on D2.
        t = 0.5
        for cell in (b2, c2, d2):
            board.set_occupied([cell])
            scans(s, t, t + 0.025, 0.005)
            t += 0.030
        scans(s, t, t + 0.2, 0.005)
        got = []
        while not changes.empty():
            got.append(changes.get_nowait())
        assert [(c.position, c.occupied) for c in got] == [(a2, False), (d2, True)]
        assert got[0].since == 0.5 and got[1].since == pytest.approx(0.56)
        assert all(c.at - c.since >= wait - 1e-9 for c in got)
        assert s.snapshot() == {d2}


# -- the scan thread --------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(offsets=st.lists(st.floats(0.0, 0.5), min_size=1, max_size=6))
def test_the_scan_loop_confirms_a_change_when_it_settles_not_a_period_later(
    offsets: list[float],
) -> None:
    """The settle time (91 ms for the reference reed board) is no multiple of the scan
    period (10 ms): the scan loop scans once more at the moment a change settles, so a
    move is confirmed 91 ms after a scan first saw it, not at the next whole period
    (100 ms).  The loop's own schedule (``next_scan``) on a simulated clock: the real
    thread's timing is ``companion bench``'s to measure."""
    config = default_config()
    factory = MockFactory()
    wait = settle(config)
    period = 1 / config.sensors.scan_hz
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        e7 = board.position("E7")
        now = next_at = 0.0
        pending = [sum(offsets[: i + 1]) + 0.001 for i in range(len(offsets))]
        touched_at: list[float] = []
        took: list[float] = []
        while pending or s._debouncer.next_deadline() is not None:
            if pending and pending[0] <= now:  # a hand between two scans
                pending.pop(0)
                board.place(e7) if e7 not in board.occupied else board.lift(e7)
                touched_at.append(now)
            for change in s.scan_once(now):
                took.append(change.at - change.since)
                assert change.since - touched_at[-1] <= period + 1e-9  # seen at the next scan
            next_at, wake, behind = next_scan(now, next_at, period, s._debouncer.next_deadline())
            assert not behind
            if pending and now < pending[0] < wake:
                wake = pending[0]  # the hand moves whenever it likes
            now = wake
            assert now < 10, "the loop never confirmed the change"
    # Changes quicker than the settle time cancel out; every confirmed one took exactly it.
    assert took or len(touched_at) % 2 == 0
    assert all(abs(t - wait) < 1e-9 for t in took), took


def test_next_scan_keeps_the_period_and_starts_afresh_when_behind() -> None:
    """A scan on time moves the next one a period on; one that ran late past the next
    period does not scan in a burst to catch up, and is counted as behind."""
    assert next_scan(0.0, 0.0, 0.01, None) == (0.01, 0.01, False)
    assert next_scan(0.004, 0.01, 0.01, None) == (0.01, 0.01, False)  # an extra scan
    assert next_scan(0.0, 0.0, 0.01, 0.005) == (0.01, 0.005, False)  # a change settles
    assert next_scan(0.0, 0.0, 0.01, 0.02) == (0.01, 0.01, False)
    assert next_scan(0.05, 0.01, 0.01, None) == (0.05, 0.05, True)


def test_scan_thread_reports_a_placement_once_it_has_settled(
    factory: MockFactory, config: BoardConfig
) -> None:
    changes: queue.Queue[OccupancyChange] = queue.Queue()
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        s.changes = changes
        s.start()
        assert s.running
        time.sleep(0.1)
        e7 = board.position("E7")
        placed = time.monotonic()
        board.place(e7)
        change = changes.get(timeout=2.0)
        arrived = time.monotonic()
        assert (change.position, change.occupied) == (e7, True)
        # Not a timing test (companion bench measures the latency): the event comes
        # after the settle time, and not absurdly later even on a loaded machine.
        assert settle(config) <= arrived - placed <= settle(config) + 1.0
        assert change.at - change.since >= settle(config) - 1e-9
        period = 1 / config.sensors.scan_hz
        assert change.since >= placed - period
        time.sleep(0.2)
        stats = s.stats()
        assert stats["running"] and stats["errors"] == 0
        assert stats["scans"] > 30
        assert 50 < stats["scan_hz"] <= config.sensors.scan_hz * 1.05
        assert 0 < stats["mean_scan_s"] <= stats["max_scan_s"]
        s.stop()
        assert not s.running


def test_close_releases_the_pins(factory: MockFactory, config: BoardConfig) -> None:
    with MockBoard(config, factory) as board:
        first = Sensors(config.sensors, pin_factory=factory)
        first.start()
        first.close()
        assert first.closed and not first.running
        first.close()  # twice is fine
        with pytest.raises(RuntimeError, match="closed"):
            first.scan_once(0.0)
        board.place(0)
        with Sensors(config.sensors, pin_factory=factory) as second:
            scans(second, 0.0, 0.1, 0.005)
            assert second.snapshot() == {0}


def test_failing_callback_does_not_stop_the_scan(factory: MockFactory, config: BoardConfig) -> None:
    def broken(change: OccupancyChange) -> None:
        raise RuntimeError("listener bug")

    changes: queue.Queue[OccupancyChange] = queue.Queue()
    with (
        MockBoard(config, factory) as board,
        Sensors(config.sensors, pin_factory=factory, on_change=broken, changes=changes) as s,
    ):
        board.place(3)
        board.place(4)
        scans(s, 0.0, 0.1, 0.005)
        assert {changes.get_nowait().position, changes.get_nowait().position} == {3, 4}


# -- faults and wiring mistakes ----------------------------------------------------------


def test_dead_sensor_never_reports_and_stuck_one_always(
    factory: MockFactory, config: BoardConfig
) -> None:
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        c4, f6 = board.position("C4"), board.position("F6")
        board.kill(c4)
        board.place(c4)
        board.stick(f6)
        assert board.faults == {c4: "dead", f6: "stuck"}
        changes = scans(s, 0.0, 0.5, 0.005)
        assert changes == [
            OccupancyChange(f6, True, pytest.approx(first_scan_after_settle(config)), 0.0)
        ]
        assert s.snapshot() == {f6}
        board.heal()
        changes = scans(s, 1.0, 1.5, 0.005)
        assert [(c.position, c.occupied) for c in changes] == [(c4, True), (f6, False)]


def test_serial_backend_is_named_as_coming_with_the_firmware_link(factory: MockFactory) -> None:
    config = parse_config(
        default_config_text()
        .replace(
            'backend = "shift_register"', 'backend = "serial"\nport = "/dev/ttyACM1"\ncount = 152'
        )
        .replace("clock_pin = 21", "")
        .replace("data_pin = 19 ", "")
        .replace("select_pin = 18 ", "")
        .replace("load_pin = 25", "")
        .replace("chips = 19", ""),
    )
    with pytest.raises(SensorBackendUnavailable, match="firmware link"):
        Sensors(config.sensors, pin_factory=factory)
    with pytest.raises(NotImplementedError, match="firmware link"):
        MockBoard(config, factory)


def test_board_created_after_the_sensors_is_a_clear_error(
    factory: MockFactory, config: BoardConfig
) -> None:
    with (
        Sensors(config.sensors, pin_factory=factory),
        pytest.raises(MockWiringError, match="create the simulated board before"),
    ):
        MockBoard(config, factory)


# -- direct pins and the diode matrix ---------------------------------------------------

PAD_PINS = [4, 5, 6, 12, 13, 16]


def test_direct_pins_read_levels(factory: MockFactory) -> None:
    config = small_config(f'backend = "gpio"\nactive_low = true\npins = {PAD_PINS}')
    with MockBoard(config, factory) as board, DirectPins(PAD_PINS, pin_factory=factory) as pins:
        assert pins.read() == 0b111111  # pulled up, nothing closed
        board.place(3)
        assert pins.read() == 0b110111
        board.set_occupied([0, 5])
        assert pins.read() == 0b011110


@pytest.mark.parametrize("active_low", [True, False])
def test_direct_pins_through_sensors(factory: MockFactory, active_low: bool) -> None:
    config = small_config(
        f'backend = "gpio"\nactive_low = {str(active_low).lower()}\npins = {PAD_PINS}',
        layout='origin = "bottom-right"',
        camp=5,
        sarcophagus=4,
    )
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        assert s.scan_once(0.0) == []
        board.place(board.position("A1"))  # sensor 3: bottom-right origin
        board.place(board.position("camp slot 1"))
        assert factory.pin(PAD_PINS[3]).state == (not active_low)
        changes = scans(s, 0.005, 0.1, 0.005)
        assert [(c.position, c.occupied) for c in changes] == [(0, True), (4, True)]
        assert s.snapshot() == {0, 4}


ROWS, COLUMNS = [17, 22], [23, 24, 26]


def test_diode_matrix_reads_the_pressed_crossing(factory: MockFactory) -> None:
    config = small_config(
        f'backend = "matrix"\nactive_low = true\nrow_pins = {ROWS}\ncolumn_pins = {COLUMNS}'
    )
    with MockBoard(config, factory) as board, DiodeMatrix(ROWS, COLUMNS, pin_factory=factory) as m:
        assert m.count == 6
        assert m.read() == 0b111111
        board.place(5)  # row 1, column 2
        assert m.read() == 0b011111
        board.set_occupied([0, 4])  # rows 0 and 1: no ghosting thanks to the diodes
        assert m.read() == 0b101110
        # Between reads every row is idle and the columns rest at their pull-ups.
        assert all(factory.pin(c).state for c in COLUMNS)


@pytest.mark.parametrize("active_low", [True, False])
def test_diode_matrix_through_sensors(factory: MockFactory, active_low: bool) -> None:
    config = small_config(
        f'backend = "matrix"\nactive_low = {str(active_low).lower()}\n'
        f"row_pins = {ROWS}\ncolumn_pins = {COLUMNS}",
        layout='order = "columns"',
    )
    # order = "columns": A1=0, A2=1, B1=2, B2=3 (positions 0, 2, 1, 3).
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        b1 = board.position("B1")
        assert config.sensors.indices[b1] == 2
        board.place(b1)
        board.place(board.position("sarcophagus slot 1"))
        changes = scans(s, 0.0, 0.1, 0.005)
        assert [(c.position, c.occupied) for c in changes] == [(b1, True), (5, True)]
        board.lift(b1)
        changes = scans(s, 0.2, 0.3, 0.005)
        assert [(c.position, c.occupied) for c in changes] == [(b1, False)]
        assert s.snapshot() == {5}


def test_prime_takes_the_board_as_settled_without_events(
    factory: MockFactory, config: BoardConfig
) -> None:
    with MockBoard(config, factory) as board, Sensors(config.sensors, pin_factory=factory) as s:
        c4 = board.position("C4")
        board.place(c4)
        assert s.prime() == {c4}
        assert scans(s, 0.0, 0.5, 0.005) == []  # nothing new to report
        board.lift(c4)
        assert scans(s, 1.0, 1.5, 0.005) == [
            OccupancyChange(c4, False, pytest.approx(1.0 + first_scan_after_settle(config)), 1.0)
        ]
