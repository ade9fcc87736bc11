"""``companion selftest``: walk through the hardware and find what is broken.

1. LEDs: every position lights in turn (a chase), so a dead pixel or a wrong layout
   shows; on the simulated board the recorded frames are checked automatically.
2. Empty board: a sensor that reads a magnet with nothing on the board is stuck.
3. Every position: the person (or, with ``--mock``, the test itself) puts a figure on
   each cell and pad; a sensor that never changes is dead or has no magnet over it.  By
   hand, one position at a time is lit and one figure on it must make exactly that
   sensor read: the ghost check of a full-size diode matrix (hardware/troubleshooting.md).
The summary names every fault; the exit status is non-zero when there is one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .config import BoardConfig
from .mock_board import MockBoard, mock_factory
from .pin_factory import open_pin_factory
from .pixels import LedOutput, MockPixels, Pixels, open_pixels
from .sensors import Sensors
from .serial_board import SerialBoard, SimulatedPicoBoard

CHASE_COLOUR = (255, 255, 255)
#: The position a simulated fault is injected at (``--inject-fault``).
FAULT_POSITION = "D5"


@dataclass
class Report:
    leds_checked: bool = False
    led_faults: list[str] = field(default_factory=list)
    stuck: list[int] = field(default_factory=list)
    never_seen: list[int] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.led_faults or self.stuck or self.never_seen or self.wrong)


def run_selftest(
    config: BoardConfig,
    *,
    mock: bool,
    inject_fault: bool = False,
    seconds: float = 300.0,
    out: Callable[[str], None] = print,
    pin_factory: Any = None,
    pixels: Pixels | None = None,
) -> Report:
    """Run every stage and print what it finds; see the module docstring.

    ``pin_factory`` and ``pixels`` replace the hardware (tests; with ``mock`` they are made).
    """
    report = Report()
    factory = pin_factory
    board: Any = None
    link: SerialBoard | None = None
    if mock:
        factory = factory or mock_factory(config)
        if config.sensors.backend == "serial":
            board = SimulatedPicoBoard(config)
        else:
            board = MockBoard(config, factory)
        if inject_fault:
            dead = board.position(FAULT_POSITION)
            board.kill(dead)
            out(f"(simulation: the sensor under {FAULT_POSITION} is made dead)")
    elif factory is None and config.sensors.backend != "serial":
        factory = open_pin_factory()  # the Pi's lgpio factory, as `companion run` opens it
    out(f"Self-test of {config.name} ({config.positions} positions)")
    try:
        if config.sensors.backend == "serial":
            link = SerialBoard(config, board.url if board is not None else config.sensors.port)
            if not link.wait_connected(3.0):
                out(f"The board's microcontroller does not answer on {link.link.url}.")
                report.wrong.append("no answer from the microcontroller")
                return _summary(config, report, out)
        if pixels is None:
            pixels = link.pixels if link is not None and config.leds.driver == "serial" else None
        pixels = pixels or open_pixels(config.leds, mock)
        backend = link.backend if link is not None else None
        with (
            LedOutput(config.leds, pixels) as leds,
            Sensors(config.sensors, pin_factory=factory, backend=backend) as sensors,
        ):
            _check_leds(config, leds, pixels, report, out, board)
            _check_empty(config, sensors, report, out, board, link)
            if board is not None:
                _walk_simulated(config, sensors, board, report, out, link)
            else:
                _walk_by_hand(config, sensors, report, out, seconds, leds)
    finally:
        if link is not None:
            link.close()
        if board is not None:
            board.close()
    return _summary(config, report, out)


def _lit(pixels: Pixels, board: Any, want: int) -> list[int] | None:
    """The pixels lit after a show, where the test can see them (None: a real strip)."""
    if isinstance(pixels, MockPixels):
        return [i for i, colour in enumerate(pixels.colours()) if any(colour)]
    if isinstance(board, SimulatedPicoBoard):
        strip = board.pico.strip
        strip.wait_for(lambda lit: any(lit[want]), 1.0)
        return [i for i, colour in enumerate(strip.colors()) if any(colour)]
    return None


def _check_leds(
    config: BoardConfig,
    leds: LedOutput,
    pixels: Pixels,
    report: Report,
    out: Callable[[str], None],
    board: Any = None,
) -> None:
    out("LEDs: every position lights in turn; watch for a dark or misplaced one.")
    dark = [(0, 0, 0)] * config.positions
    for position in range(config.positions):
        frame = list(dark)
        frame[position] = CHASE_COLOUR
        leds.show(frame)
        want = config.leds.indices[position]
        lit = _lit(pixels, board, want)
        if lit is not None:
            if lit != [want]:
                report.led_faults.append(
                    f"{config.position_name(position)} lit pixels {lit}, expected [{want}]"
                )
        else:
            time.sleep(0.02)
    leds.off()
    report.leds_checked = True
    out(f"LEDs: {config.positions} positions lit in turn.")


def _settle(config: BoardConfig) -> float:
    return config.sensors.settle_ms / 1000


def _synced(link: SerialBoard | None, index: int | None, pressed: bool) -> None:
    """With a firmware link, wait until the host has heard of a simulated change."""
    if link is None:
        return
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        states = link.link.states()
        if index is None and not any(states):
            return
        if index is not None and index < len(states) and states[index] == pressed:
            return
        time.sleep(0.002)


def _check_empty(
    config: BoardConfig,
    sensors: Sensors,
    report: Report,
    out: Callable[[str], None],
    board: Any,
    link: SerialBoard | None = None,
) -> None:
    if board is not None:
        board.set_occupied(())
        _synced(link, None, False)
    else:
        out("Sensors: clear the board of every figure and magnet.")
    if board is not None:
        now = 0.0
        step = 1.0 / config.sensors.scan_hz
        while now <= _settle(config) + 2 * step:
            sensors.scan_once(now)
            now += step
    else:
        sensors.start()
        time.sleep(_settle(config) + 0.2)
        sensors.stop()
    report.stuck = sorted(sensors.snapshot())
    for position in report.stuck:
        out(f"  {config.position_name(position)}: reads a magnet on the empty board (stuck?)")
    out(f"Sensors on the empty board: {len(report.stuck)} active.")


def _walk_simulated(
    config: BoardConfig,
    sensors: Sensors,
    board: Any,
    report: Report,
    out: Callable[[str], None],
    link: SerialBoard | None = None,
) -> None:
    """Put a simulated magnet on every position in turn and check what the sensors say."""
    step = 1.0 / config.sensors.scan_hz
    now = 10.0
    for position in range(config.positions):
        if position in report.stuck:
            continue
        board.place(position)
        _synced(link, config.sensors.indices[position], True)
        seen = False
        for _ in range(int(_settle(config) / step) + 3):
            for change in sensors.scan_once(now):
                if change.occupied and change.position == position:
                    seen = True
                elif change.occupied:
                    report.wrong.append(
                        f"a figure on {config.position_name(position)} was seen on "
                        f"{config.position_name(change.position)}"
                    )
            now += step
            if seen:
                break
        board.lift(position)  # settles during the next position's scans
        _synced(link, config.sensors.indices[position], False)
        if not seen:
            report.never_seen.append(position)
    out(f"Sensors: a figure was put on each of {config.positions} positions.")


def _walk_by_hand(
    config: BoardConfig,
    sensors: Sensors,
    report: Report,
    out: Callable[[str], None],
    seconds: float,
    leds: LedOutput,
) -> None:
    """Light one position at a time; one figure on it must make exactly that sensor read.

    On a full-size diode matrix this is the ghost check: a column that recovers too
    slowly (no external pull-up) makes a closed switch read on the next row as well.
    """
    out(
        "Sensors: one position at a time is lit. Put ONE figure on the lit cell or pad, "
        "then lift it; exactly that position must read. Ctrl-C ends early; "
        f"{seconds:.0f} s at most."
    )
    stuck = set(report.stuck)
    remaining = [p for p in range(config.positions) if p not in stuck]
    seen: set[int] = set()
    deadline = time.monotonic() + seconds
    settle = _settle(config) + 0.1

    def active() -> set[int]:
        return set(sensors.snapshot()) - stuck

    def wait(until: Callable[[set[int]], bool]) -> set[int] | None:
        while time.monotonic() < deadline:
            now = active()
            if until(now):
                return now
            time.sleep(0.02)
        return None

    sensors.start()
    try:
        dark = [(0, 0, 0)] * config.positions
        for position in remaining:
            frame = list(dark)
            frame[position] = CHASE_COLOUR
            leds.show(frame)
            if wait(bool) is None:
                break
            time.sleep(settle)  # let a figure set down, and any ghost show up
            now = active()
            name = config.position_name(position)
            if position in now:
                seen.add(position)
                out(f"  {name} seen ({len(remaining) - len(seen)} to go)")
            others = sorted(now - {position})
            if others:
                names = ", ".join(config.position_name(p) for p in others)
                report.wrong.append(
                    f"one figure on {name} also reads on {names} (a ghost: check the "
                    "matrix column pull-ups, the diodes, or a magnet too strong)"
                    if position in now
                    else f"a figure put on {name} was read on {names}"
                )
                out(f"  {report.wrong[-1]}")
            if wait(lambda now: not now) is None:
                break
        leds.off()
    except KeyboardInterrupt:
        out("  (stopped)")
    finally:
        sensors.stop()
    report.never_seen = sorted(set(remaining) - seen)


def _summary(config: BoardConfig, report: Report, out: Callable[[str], None]) -> Report:
    out("")
    out("Summary:")
    for fault in report.led_faults:
        out(f"  LED fault: {fault}")
    for position in report.stuck:
        out(f"  stuck sensor: {config.position_name(position)} reads a magnet with none there")
    for position in report.never_seen:
        out(
            f"  dead sensor: {config.position_name(position)} never changed "
            "(no magnet over it, a broken switch, or its wiring)"
        )
    for fault in report.wrong:
        out(f"  wiring: {fault}")
    if report.ok:
        out(f"  all {config.positions} LEDs and sensors are healthy.")
    return report
