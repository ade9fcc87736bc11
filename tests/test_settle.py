"""The settle time of each kind of sensor, from scripted timelines of real hands: a
figure slid over a cell at the slowest hand speed, at every phase of the Pi's scans,
the DRV5032's samples and the Pico's keypad scans; reed bounce; a placement; a quick
lift and put-back.  Each timeline is played through the real debouncer."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest

from companion.board.config import default_config_text, example_config_text, parse_config
from companion.board.debounce import Debouncer
from companion.board.settle import (
    HALL_PERIOD_MAX_MS,
    PICO_SCAN_MS,
    PICO_THRESHOLD,
    REED_BOUNCE_MS,
    SLIDE_OVER_CELL_MS,
    longest_run_ms,
    settle_for,
)

Signal = Callable[[float], bool]
SCAN_MS = 10.0  # the Pi's scans at 100 Hz


def magnet(on: float, off: float) -> Signal:
    """The magnet is over the sensor from ``on`` to ``off`` (ms)."""
    return lambda t: on <= t < off


def reed(present: Signal, edges: tuple[float, ...]) -> Signal:
    """A reed switch: the magnet's presence, with contact bounce after each edge for
    ``REED_BOUNCE_MS`` (the contact flips every 0.2 ms as it closes, every 0.25 ms as
    it opens: no two bounces are alike)."""

    def read(t: float) -> bool:
        for number, edge in enumerate(edges):
            if edge <= t < edge + REED_BOUNCE_MS:
                flip = 0.2 if number % 2 == 0 else 0.25
                return present(t) != (math.floor((t - edge) / flip) % 2 == 1)
        return present(t)

    return read


def sampled(inner: Signal, phase: float, period: float) -> Signal:
    """A DRV5032: the field sampled every ``period``, the output held in between."""

    def read(t: float) -> bool:
        if t < phase:
            return False
        return inner(phase + math.floor((t - phase) / period) * period)

    return read


def keypad(inner: Signal, phase: float, until: float) -> Signal:
    """The Pico's keypad: a change reported once ``PICO_THRESHOLD`` scans agree."""
    reports: list[tuple[float, bool]] = []
    state, streak, t = False, 0, phase
    while t <= until:
        value = inner(t)
        streak = streak + 1 if value != state else 0
        if streak >= PICO_THRESHOLD:
            state, streak = value, 0
            reports.append((t, value))
        t += PICO_SCAN_MS

    def read(when: float) -> bool:
        seen = False
        for at, value in reports:
            if at <= when:
                seen = value
        return seen

    return read


def confirmed(
    raw: Signal, settle_ms: float, host_phase: float, until: float, scan_ms: float = SCAN_MS
) -> list[bool]:
    """The changes the Pi's debouncer confirms from scans of ``raw``."""
    debouncer = Debouncer(1, settle_ms / 1000)
    out: list[bool] = []
    t = host_phase
    while t <= until:
        out += [c.occupied for c in debouncer.feed(int(raw(t)), t / 1000)]
        t += scan_ms
    return out


def board(kind: str, serial: bool, on: float, off: float, phases: tuple[float, float]) -> Signal:
    """What the Pi reads of one sensor while a magnet is over it from ``on`` to ``off``."""
    hall_phase, pico_phase = phases
    present = magnet(on, off)
    sensor = reed(present, (on, off)) if kind == "reed" else sampled(present, hall_phase, 75)
    return keypad(sensor, pico_phase, off + 400) if serial else sensor


def phases(kind: str, serial: bool, step: float = 1.0) -> list[tuple[float, float]]:
    halls = [i * step for i in range(int(HALL_PERIOD_MAX_MS / step))] if kind == "hall" else [0]
    # The keypad's phases: every millisecond, and 0.05 ms steps within the reed's bounce.
    fine = [i * 0.05 for i in range(20)] + [float(i) for i in range(1, PICO_SCAN_MS)]
    picos = fine if serial else [0.0]
    return list(itertools.product(halls, picos))


def slides_counted(
    kind: str, serial: bool, settle_ms: float, step: float = 1.0, scan_ms: float = SCAN_MS
) -> int:
    """How many slides over a cell (every phase of the sensor's samples, the keypad's
    and the Pi's scans) the debouncer takes for a visit."""
    counted = 0
    for phase in phases(kind, serial, step):
        raw = board(kind, serial, 100.0, 100.0 + SLIDE_OVER_CELL_MS, phase)
        for host in range(10):
            counted += True in confirmed(raw, settle_ms, host * scan_ms / 10, 600.0, scan_ms)
    return counted


CASES = [("reed", False), ("hall", False), ("reed", True), ("hall", True)]


@pytest.mark.parametrize(("kind", "serial"), CASES)
def test_a_figure_slid_over_a_cell_is_never_a_visit(kind: str, serial: bool) -> None:
    backend = "serial" if serial else "shift_register"
    settle = settle_for(kind, backend, 1000 / SCAN_MS)
    assert slides_counted(kind, serial, settle, 3.0 if kind == "hall" and serial else 1.0) == 0


@pytest.mark.parametrize(("kind", "serial"), CASES[:3])
def test_the_settle_time_is_no_longer_than_a_slide_needs(kind: str, serial: bool) -> None:
    """Scanned fast enough (1 ms, as a late scan may fall anywhere), some slide keeps
    the sensor occupied within 10 ms of the derived run: a settle time that much
    shorter takes it for a visit.  So the value is what these sensors need, not a
    round number with room to spare (a sampled Hall switch's 80 + 75 ms bound is
    reached within 5 ms: two samples 75 ms apart, 150 ms)."""
    run = longest_run_ms(kind, serial)
    assert slides_counted(kind, serial, run - 10, scan_ms=1.0) > 0
    assert slides_counted(kind, serial, run + 1, scan_ms=1.0) == 0


def test_the_runs_are_the_sensors_timing() -> None:
    assert longest_run_ms("reed", False) == SLIDE_OVER_CELL_MS + REED_BOUNCE_MS == 81
    assert longest_run_ms("hall", False) == SLIDE_OVER_CELL_MS + HALL_PERIOD_MAX_MS == 155
    assert longest_run_ms("reed", True) == 81 + PICO_SCAN_MS == 101
    assert settle_for("reed", "shift_register", 100) == 91
    assert settle_for("hall", "shift_register", 100) == 165
    assert settle_for("reed", "serial", 100) == 111


@pytest.mark.parametrize(("kind", "serial"), CASES)
def test_a_placement_is_one_change_within_the_settle_time(kind: str, serial: bool) -> None:
    """A figure put down and left (a reed bounces as it lands) is one change, confirmed
    the settle time after the Pi first sees it: late by the sensor's own delay only."""
    backend = "serial" if serial else "shift_register"
    settle = settle_for(kind, backend, 1000 / SCAN_MS)
    for phase in phases(kind, serial, 5.0):
        raw = board(kind, serial, 100.0, 10_000.0, phase)
        debouncer = Debouncer(1, settle / 1000)
        changes = []
        t = 0.0
        while t <= 700:
            changes += debouncer.feed(int(raw(t)), t / 1000)
            t += SCAN_MS
        assert [c.occupied for c in changes] == [True]
        late = changes[0].since * 1000 - 100  # the sensor's and the scans' delay
        delay = HALL_PERIOD_MAX_MS if kind == "hall" else REED_BOUNCE_MS
        delay += 2 * PICO_SCAN_MS if serial else 0
        assert late <= delay + SCAN_MS
        assert changes[0].at * 1000 - changes[0].since * 1000 < settle + SCAN_MS


@pytest.mark.parametrize(("kind", "serial"), CASES)
def test_a_quick_lift_and_put_back_is_no_change(kind: str, serial: bool) -> None:
    backend = "serial" if serial else "shift_register"
    settle = settle_for(kind, backend, 1000 / SCAN_MS)
    for phase in phases(kind, serial, 5.0):
        gone = magnet(100.0, 130.0)  # off the sensor for 30 ms
        present: Signal = lambda t, g=gone: not g(t)  # noqa: E731
        hall_phase, pico_phase = phase
        sensor = (
            reed(present, (100.0, 130.0))
            if kind == "reed"
            else sampled(present, hall_phase, HALL_PERIOD_MAX_MS)
        )
        raw = keypad(sensor, pico_phase, 800) if serial else sensor
        debouncer = Debouncer(1, settle / 1000, initial=1)
        t = 80.0  # the figure stands there from before (the sensors settled on it)
        while t <= 800:
            assert debouncer.feed(int(raw(t)), t / 1000) == []
            t += SCAN_MS


def test_the_reference_boards_use_the_derived_settle_time() -> None:
    pi = parse_config(default_config_text()).sensors
    assert pi.kind == "reed" and pi.settle_ms == settle_for("reed", pi.backend, pi.scan_hz)
    pico = parse_config(example_config_text("reference-2-pico")).sensors
    assert pico.settle_ms == settle_for("reed", "serial", pico.scan_hz)
    hall = default_config_text().replace('kind = "reed"', 'kind = "hall"')
    hall = "\n".join(line for line in hall.splitlines() if not line.startswith("settle_ms"))
    assert parse_config(hall).sensors.settle_ms == 165
