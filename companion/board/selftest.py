"""``companion selftest``: walk through the hardware and find what is broken.

1. LEDs: every position lights in turn (a chase), so a dead pixel or a wrong layout
   shows; on the simulated board the recorded frames are checked automatically.
2. The sensors, by the board check's core (``boardcheck.py``, shared with the host's
   page ``/check``): the empty board (stuck sensors), then one lit position at a time
   with one figure on it (dead sensors, crosstalk, swapped wires: on a full-size diode
   matrix this is also the ghost check, hardware/troubleshooting.md).  With ``--mock``
   the test plays the maker and walks every step of the page too: the figure slid 5 mm
   off the centre (off-centre dead sensors) and, on a diode matrix, the three-figure
   rectangles (missing, shorted or reversed diodes).  ``--inject-fault KIND`` breaks
   the simulated board first.
The summary names every fault; the exit status is non-zero when there is one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.pi.pin_factory import open_pin_factory

from .boardcheck import (
    CENTRE_HOLD_S,
    OFFSET_MM,
    RECTANGLE_HOLD_S,
    BoardCheck,
    Fault,
    board_of,
    fault_message,
    matrix_columns,
)
from .config import BoardConfig
from .mock_board import mock_factory
from .pixels import LedOutput, MockPixels, Pixels, open_pixels
from .sensors import Sensors
from .serial_board import SerialBoard, SimulatedPicoBoard, simulated_board

CHASE_COLOUR = (255, 255, 255)
#: The position a simulated fault is injected at (``--inject-fault``).
FAULT_POSITION = "D5"
#: The neighbour a crosstalk fault couples it to.
FAULT_NEIGHBOUR = "E5"
#: The faults ``--inject-fault`` can break the simulated board with.
FAULTS = (
    "dead",
    "stuck",
    "off-centre",
    "crosstalk",
    "open-diode",
    "shorted-diode",
    "reversed-diode",
)


@dataclass
class Report:
    leds_checked: bool = False
    led_faults: list[str] = field(default_factory=list)
    stuck: list[int] = field(default_factory=list)
    never_seen: list[int] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    #: Every finding of the board check's core (stuck and dead ones included).
    faults: list[Fault] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.led_faults or self.stuck or self.never_seen or self.wrong)


def inject(board: Any, fault: str) -> str:
    """Break the simulated ``board`` with ``fault`` (one of ``FAULTS``) at ``FAULT_POSITION``;
    what was done, in words.  ValueError when this board cannot have that fault."""
    where = board.position(FAULT_POSITION)
    if fault == "dead":
        board.kill(where)
    elif fault == "stuck":
        board.stick(where)
    elif fault == "off-centre":
        board.weaken(where)
    elif fault == "crosstalk":
        board.couple(where, board.position(FAULT_NEIGHBOUR))
        return f"a figure on {FAULT_POSITION} also switches {FAULT_NEIGHBOUR}"
    elif fault.endswith("-diode"):
        if matrix_columns(board.config) is None:
            raise ValueError(
                f"--inject-fault {fault} needs a diode matrix board (reference design 2: "
                "--config companion/board/data/reference-2-pico.toml)"
            )
        board.break_diode(where, fault.removesuffix("-diode"))
        return f"the diode under {FAULT_POSITION} is {fault.removesuffix('-diode')}"
    else:
        raise ValueError(f"no such fault {fault!r}: one of {', '.join(FAULTS)}")
    return f"the sensor under {FAULT_POSITION} is {'weak' if fault == 'off-centre' else fault}"


def run_selftest(
    config: BoardConfig,
    *,
    mock: bool,
    inject_fault: bool | str = False,
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
        board = simulated_board(config, factory)
        if inject_fault:
            kind = inject_fault if isinstance(inject_fault, str) else "dead"
            try:
                out(f"(simulation: {inject(board, kind)})")
            except ValueError:
                board.close()
                raise
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
            if board is not None:
                check = BoardCheck(board_of(config))
                walk_simulated(check, sensors, board, link)
            else:
                check = BoardCheck(board_of(config), off_centre=False, diodes=False)
                _walk_by_hand(config, check, sensors, out, seconds, leds)
            _verdicts(config, check, report, out)
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


def _verdicts(
    config: BoardConfig, check: BoardCheck, report: Report, out: Callable[[str], None]
) -> None:
    """The core's findings as the self-test's report (a position never walked by hand
    counts as never seen, as before)."""
    report.faults = list(check.faults)
    report.stuck = sorted(f.position for f in check.of_kind("stuck"))
    out(f"Sensors on the empty board: {len(report.stuck)} active.")
    walked = set(check.checked) | set(report.stuck)
    dead = {f.position for f in check.of_kind("dead")}
    report.never_seen = sorted(dead | (set(range(config.positions)) - walked))
    names = check.board.names
    report.wrong = [
        str(fault_message(f, names)) for f in check.faults if f.kind not in ("stuck", "dead")
    ]
    out(f"Sensors: a figure was put on each of {len(check.checked)} positions.")
    if check.diodes_checked:
        out(f"Diodes: {len(check.diodes_checked)} tested with three figures on a rectangle.")


def _synced(link: SerialBoard | None, board: Any) -> None:
    """With a firmware link, wait until the host has heard what the simulated Pico reads."""
    if link is None:
        return
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        heard = {i for i, pressed in enumerate(link.link.states()) if pressed}
        if heard == board.reads():
            return
        time.sleep(0.003)


def walk_simulated(
    check: BoardCheck, sensors: Sensors, board: Any, link: SerialBoard | None = None
) -> None:
    """Walk every step of ``check`` on a simulated board, playing the maker: figures are
    put where the step says (slid 5 mm for the off-centre step) and the buttons pressed
    when a maker would, on a fake clock of scans."""
    step_s = 1.0 / sensors.config.scan_hz
    scans = int(_settle_of(sensors) / step_s) + 3
    clock = [10.0]

    def scan(times: int) -> None:
        for _ in range(times):
            sensors.scan_once(clock[0])
            clock[0] += step_s
            check.reading(sensors.snapshot(), clock[0])

    def act(figures: dict[int, float]) -> None:
        board.set_occupied(())
        for position, offset in figures.items():
            board.place(position, offset)
        _synced(link, board)

    while not check.done:
        step = check.step
        if step.kind == "empty":
            act({})
            scan(scans)
            if check.step == step:
                check.press("next")
        elif step.kind == "centre":
            assert step.position is not None
            act({})
            scan(scans)
            act({step.position: 0.0})
            scan(scans + int(CENTRE_HOLD_S / step_s) + 2)
            if check.step == step:
                check.press("skip")
        elif step.kind == "off_centre":
            assert step.position is not None
            act({step.position: OFFSET_MM})
            scan(scans)
            check.press("next")
        else:
            act(dict.fromkeys(step.figures, 0.0))
            scan(scans + int(RECTANGLE_HOLD_S / step_s) + 2)
            if check.step == step:
                check.press("next")
    board.set_occupied(())
    _synced(link, board)


def _settle_of(sensors: Sensors) -> float:
    return sensors.config.settle_ms / 1000


def _walk_by_hand(
    config: BoardConfig,
    check: BoardCheck,
    sensors: Sensors,
    out: Callable[[str], None],
    seconds: float,
    leds: LedOutput,
) -> None:
    """Light one position at a time; one figure on it must make exactly that sensor read.

    On a full-size diode matrix this is the ghost check: a column that recovers too
    slowly (no external pull-up) makes a closed switch read on the next row as well.
    A figure read only elsewhere for a settle time ends the position (swapped wires).
    """
    out("Sensors: clear the board of every figure and magnet.")
    out(
        "Then one position at a time is lit. Put ONE figure on the lit cell or pad, "
        "then lift it; exactly that position must read. Ctrl-C ends early; "
        f"{seconds:.0f} s at most. (The off-centre and diode steps: the host's page /check.)"
    )
    deadline = time.monotonic() + seconds
    settle = _settle(config) + 0.1
    elsewhere_since: float | None = None
    sensors.start()
    try:
        time.sleep(settle + 0.1)
        dark = [(0, 0, 0)] * config.positions
        shown: tuple[int, ...] | None = None
        while not check.done and time.monotonic() < deadline:
            now = time.monotonic()
            step = check.step
            check.reading(sensors.snapshot(), now)
            if check.step.kind == "empty" and check.step == step:
                check.press("next")  # stuck: whatever reads on the empty board
            step = check.step
            if step.figures != shown:
                frame = list(dark)
                for position in step.figures:
                    frame[position] = CHASE_COLOUR
                leds.show(frame)
                shown = step.figures
                if step.kind == "centre" and check.checked:
                    last = check.checked[-1]
                    left = config.positions - len(check.checked) - len(check.stuck)
                    out(f"  {config.position_name(last)} done ({left} to go)")
            loose = check.active - check.stuck
            if step.kind == "centre" and not check.waiting_for_clear and loose:
                if step.position in loose:
                    elsewhere_since = None
                elif elsewhere_since is None:
                    elsewhere_since = now
                elif now - elsewhere_since >= settle:
                    check.press("next")
                    elsewhere_since = None
            time.sleep(0.02)
        leds.off()
    except KeyboardInterrupt:
        out("  (stopped)")
    finally:
        sensors.stop()


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
        out(f"  {fault}")
    if report.ok:
        out(f"  all {config.positions} LEDs and sensors are healthy.")
    return report
