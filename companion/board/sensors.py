"""The board's sensors: scan the backend, debounce, report occupancy by position.

``Sensors`` builds the backend the config names (a 74HC165 chain, direct pins or a
diode matrix; the serial backend comes with the firmware link), reads it at
``scan_hz`` in a thread, turns levels into occupancy (``active_low``), debounces
every sensor with the settle rule and reports each change by LOGICAL POSITION
(cells in maze order, then camp slots, then sarcophagus slots) to a callback
and/or a queue.  ``scan_once`` does one scan by hand, for tests with a fake clock.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from companion.closing import Closing

from .config import SensorConfig
from .debounce import Debouncer, OccupancyChange
from .gpio_sensors import DiodeMatrix, DirectPins
from .shift_register import ShiftRegisterChain

__all__ = [
    "OccupancyChange",
    "SensorBackend",
    "SensorBackendUnavailable",
    "Sensors",
    "open_backend",
]

log = logging.getLogger(__name__)


class SensorBackend(Protocol):
    """What ``Sensors`` needs from a backend: one raw read of every input."""

    def read(self) -> int:
        """Bit i = input i is electrically high."""
        ...

    def close(self) -> None: ...


class SensorBackendUnavailable(NotImplementedError):
    """The config names a backend this module cannot build (the serial link)."""


def open_backend(config: SensorConfig, *, pin_factory: Any = None) -> SensorBackend:
    """Build the backend ``config.backend`` names on ``pin_factory``."""
    if config.backend == "shift_register":
        pins = (config.clock_pin, config.data_pin, config.select_pin, config.load_pin)
        clock, data, select, load = pins
        if clock is None or data is None or select is None or load is None:
            raise ValueError("the shift_register backend needs clock, data, select and load pins")
        return ShiftRegisterChain(clock, data, select, load, config.chips, pin_factory=pin_factory)
    if config.backend == "gpio":
        return DirectPins(config.pins, pull_up=config.active_low, pin_factory=pin_factory)
    if config.backend == "matrix":
        return DiodeMatrix(
            config.row_pins,
            config.column_pins,
            pull_up=config.active_low,
            pin_factory=pin_factory,
        )
    if config.backend == "serial":
        raise SensorBackendUnavailable(
            "the serial backend comes with the firmware link; pass its reader as "
            "Sensors(..., backend=...) or use shift_register, gpio or matrix"
        )
    raise ValueError(f"unknown sensor backend {config.backend!r}")


def next_scan(
    now: float, next_at: float, period: float, deadline: float | None
) -> tuple[float, float, bool]:
    """When the scan thread scans next, having scanned at ``now``: ``(next_at, wake,
    behind)``.  ``next_at`` is the next whole period's scan (moved on if ``now`` was it;
    started afresh at ``now`` when behind rather than scanning in a burst).  ``wake`` is
    that, or earlier the moment a change settles (``deadline``): a move is confirmed
    when it settles, not up to a period later."""
    behind = False
    if now >= next_at - period / 2:  # that was the period's scan
        next_at += period
        if next_at < now:
            behind = True
            next_at = now
    wake = next_at
    if deadline is not None and now < deadline < wake:
        wake = deadline
    return next_at, wake, behind


class Sensors(Closing):
    """Scans the board's sensors and reports occupancy changes by logical position.

    Changes go to ``on_change(change)`` (called in the scan thread; keep it short),
    are put on ``changes`` (a ``queue.Queue``) and/or go to ``on_changes(list)``, one
    call per scan with all its changes (a listener that judges the board at once must
    never see it half-way through one scan).  At start every occupied
    position is reported once it has settled, so a listener learns the starting
    board from the same stream.  ``clock`` stamps the scans; the scan thread paces
    itself with it too, so it must be a real clock (``time.monotonic``).
    """

    def __init__(
        self,
        config: SensorConfig,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[OccupancyChange], object] | None = None,
        changes: queue.Queue[OccupancyChange] | None = None,
        on_changes: Callable[[list[OccupancyChange]], object] | None = None,
        backend: SensorBackend | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.on_change = on_change
        self.changes = changes
        self.on_changes = on_changes
        self._count = config.count
        self._invert = (1 << self._count) - 1 if config.active_low else 0
        self._debouncer = Debouncer(self._count, config.settle_ms / 1000.0)
        #: Logical position of every sensor index (None: a spare input).
        self._position: list[int | None] = [None] * self._count
        for position, index in enumerate(config.indices):
            self._position[index] = position
        self._used = 0
        for index in config.indices:
            self._used |= 1 << index
        self._period = 1.0 / config.scan_hz
        self._scan_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._scans = 0
        self._errors = 0
        self._overruns = 0
        self._first_scan_at: float | None = None
        self._last_scan_at: float | None = None
        self._busy_total = 0.0
        self._busy_max = 0.0
        #: Called after every scan of the scan thread (systemd's watchdog: a stuck scan
        #: thread stops calling it and the service is restarted).
        self.heartbeat: Callable[[], object] | None = None
        # Last, so that nothing above can fail with the pins already taken.
        self._backend: SensorBackend | None = backend or open_backend(
            config, pin_factory=pin_factory
        )

    # -- scanning ---------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._backend is None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def prime(self) -> frozenset[int]:
        """Read the board once and take it as settled, without reporting changes.

        For start-up: the listener learns the board from the return value, and the
        stream then reports only what changes afterwards.
        """
        with self._scan_lock:
            if self._backend is None:
                raise RuntimeError("the sensors are closed")
            raw = (self._backend.read() ^ self._invert) & ((1 << self._count) - 1)
            self._debouncer = Debouncer(self._count, self.config.settle_ms / 1000.0, initial=raw)
        return self.snapshot()

    def scan_once(self, now: float | None = None) -> list[OccupancyChange]:
        """Read every sensor once, debounce, report and return the confirmed changes.

        ``now`` is the scan's time (default: ``clock()`` just before the read).
        """
        with self._scan_lock:
            backend = self._backend
            if backend is None:
                raise RuntimeError("the sensors are closed")
            started = time.perf_counter()
            if now is None:
                now = self.clock()
            raw = backend.read()
            found = self._debouncer.feed(raw ^ self._invert, now)
            changes = [
                OccupancyChange(position, change.occupied, change.at, change.since)
                for change in found
                if (position := self._position[change.position]) is not None
            ]
            busy = time.perf_counter() - started
            self._scans += 1
            self._busy_total += busy
            self._busy_max = max(self._busy_max, busy)
            if self._first_scan_at is None:
                self._first_scan_at = now
            self._last_scan_at = now
        for change in changes:
            self._deliver(change)
        if changes and self.on_changes is not None:
            try:
                self.on_changes(changes)
            except Exception:
                log.exception("on_changes failed for %s", changes)
        return changes

    def _deliver(self, change: OccupancyChange) -> None:
        if self.changes is not None:
            self.changes.put(change)
        if self.on_change is not None:
            try:
                self.on_change(change)
            except Exception:
                log.exception("on_change failed for %s", change)

    def start(self) -> None:
        """Scan in a background thread at ``config.scan_hz`` until ``stop()``."""
        if self._backend is None:
            raise RuntimeError("the sensors are closed")
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="sensor-scan", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the scan thread (the pins stay open; ``start()`` again resumes)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    def _run(self) -> None:
        period = self._period
        next_at = self.clock()
        while not self._stop.is_set():
            try:
                self.scan_once()
            except Exception:
                if self._backend is None:
                    break
                self._errors += 1
                if self._errors == 1 or self._errors % 1000 == 0:
                    log.exception("sensor scan failed (%d failures)", self._errors)
            if self.heartbeat is not None:
                self.heartbeat()
            now = self.clock()
            next_at, wake, behind = next_scan(now, next_at, period, self._debouncer.next_deadline())
            self._overruns += behind
            # A plain sleep wakes for less CPU than Event.wait; stop() waits a period at most.
            time.sleep(max(0.0, wake - now))

    # -- state ------------------------------------------------------------------------

    def snapshot(self) -> frozenset[int]:
        """Logical positions that are occupied (debounced)."""
        stable = self._debouncer.snapshot & self._used
        positions = []
        while stable:
            low = stable & -stable
            stable ^= low
            position = self._position[low.bit_length() - 1]
            if position is not None:
                positions.append(position)
        return frozenset(positions)

    def raw_snapshot(self) -> frozenset[int]:
        """Logical positions active in the last scan, before settling (for instant feedback)."""
        raw = self._debouncer.raw & self._used
        return frozenset(p for i, p in enumerate(self._position) if p is not None and raw >> i & 1)

    def stats(self) -> dict[str, Any]:
        """Scan figures, JSON-safe: target and achieved rate, scan times, failures."""
        with self._scan_lock:
            scans = self._scans
            first, last = self._first_scan_at, self._last_scan_at
            busy_total, busy_max = self._busy_total, self._busy_max
        rate = None
        if scans > 1 and first is not None and last is not None and last > first:
            rate = (scans - 1) / (last - first)
        return {
            "backend": self.config.backend,
            "sensors": self._count,
            "target_hz": self.config.scan_hz,
            "settle_s": self._debouncer.settle_s,
            "scans": scans,
            "scan_hz": rate,
            "mean_scan_s": busy_total / scans if scans else None,
            "max_scan_s": busy_max if scans else None,
            "overruns": self._overruns,
            "errors": self._errors,
            "running": self.running,
        }

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Stop scanning and release the backend's pins; safe to call twice."""
        self.stop()
        with self._scan_lock:
            backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("scanning" if self.running else "idle")
        return f"<Sensors {self.config.backend} {self._count} inputs {state}>"
