"""Sensors read straight from GPIO pins: one pin per pad, or a diode matrix.

Both are for small boards (a full 12 x 12 maze needs a shift-register chain or the
firmware link).  ``read()`` returns raw electrical levels, bit i = input i is high;
``Sensors`` turns levels into occupancy with the config's ``active_low``.

The inputs are plain gpiozero ``InputDevice``s, polled by the scan loop: they take
no edge callbacks, so a board of pads does not start one event thread per pin.

The mock side (``MockDrivenPin``, ``MockDiodeMatrix``) lets gpiozero's
``MockFactory`` play the switches; ``MockBoard`` builds on it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import DigitalOutputDevice, InputDevice
from gpiozero.exc import DeviceClosed
from gpiozero.pins.mock import MockPin

from companion.closing import Closing

from .diode_matrix import matrix_reads

#: Pin name as gpiozero takes it: a BCM number or a name such as ``"GPIO17"``.
PinName = int | str


class DirectPins(Closing):
    """One input per sensor; bit i of ``read()`` is the level of ``pins[i]``.

    ``pull_up`` picks the internal resistor: True (pull-up) for reed switches and
    open-drain Hall switches that pull the pin low (config ``active_low = true``),
    False (pull-down) for sensors that drive the pin high when active.
    """

    def __init__(
        self, pins: Sequence[PinName], *, pull_up: bool = True, pin_factory: Any = None
    ) -> None:
        self._devices: list[Any] = []
        try:
            for pin in pins:
                self._devices.append(InputDevice(pin, pull_up=pull_up, pin_factory=pin_factory))
        except BaseException:
            self.close()
            raise
        self._pins: list[Any] = [device.pin for device in self._devices]
        self._closed = False

    @property
    def count(self) -> int:
        return len(self._devices)

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> int:
        """All inputs at once: bit i set while ``pins[i]`` is high."""
        if self._closed:
            raise DeviceClosed("the pins are closed")
        raw = 0
        bit = 1
        for pin in self._pins:
            if pin.state:
                raw |= bit
            bit <<= 1
        return raw

    def close(self) -> None:
        """Release every pin; safe to call twice."""
        self._closed = True
        for device in self._devices:
            device.close()
        self._devices = []
        self._pins = []

    def __repr__(self) -> str:
        return f"<DirectPins {'closed' if self._closed else f'{self.count} pins'}>"


class DiodeMatrix(Closing):
    """A diode matrix: rows are driven one at a time, columns are read.

    With ``pull_up=True`` (the usual wiring, as CircuitPython's ``KeyMatrix``) the
    columns have pull-ups, the active row is driven low and idle rows high, and the
    diodes point from column (anode) to row (cathode): a closed switch on the
    active row pulls its column low.  With ``pull_up=False`` everything is mirrored
    (pull-downs, active row high, anodes on the rows).  The diodes are required:
    idle rows are driven, not floated.

    Bit ``row * len(column_pins) + column`` of ``read()`` is the column's level
    while that row was active.  ``row_delay_s`` busy-waits after selecting a row
    for long, slow lines (pull-up RC); the pin calls themselves take microseconds.
    """

    def __init__(
        self,
        row_pins: Sequence[PinName],
        column_pins: Sequence[PinName],
        *,
        pull_up: bool = True,
        row_delay_s: float = 0.0,
        pin_factory: Any = None,
    ) -> None:
        self._rows: list[Any] = []
        self._columns: list[Any] = []
        self._row_delay = row_delay_s
        try:
            for pin in row_pins:
                self._rows.append(
                    DigitalOutputDevice(
                        pin, active_high=not pull_up, initial_value=False, pin_factory=pin_factory
                    )
                )
            for pin in column_pins:
                self._columns.append(InputDevice(pin, pull_up=pull_up, pin_factory=pin_factory))
        except BaseException:
            self.close()
            raise
        self._column_pins: list[Any] = [device.pin for device in self._columns]
        self._closed = False

    @property
    def count(self) -> int:
        return len(self._rows) * len(self._columns)

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> int:
        """Scan every row once: bit ``row * columns + column`` = that column's level."""
        if self._closed:
            raise DeviceClosed("the matrix is closed")
        raw = 0
        bit = 1
        delay = self._row_delay
        for row in self._rows:
            row.on()
            try:
                if delay:
                    end = time.perf_counter() + delay
                    while time.perf_counter() < end:
                        pass
                for pin in self._column_pins:
                    if pin.state:
                        raw |= bit
                    bit <<= 1
            finally:
                row.off()
        return raw

    def close(self) -> None:
        """Release every pin; safe to call twice."""
        self._closed = True
        for device in (*self._rows, *self._columns):
            device.close()
        self._rows = []
        self._columns = []
        self._column_pins = []

    def __repr__(self) -> str:
        if self._closed:
            return "<DiodeMatrix closed>"
        return f"<DiodeMatrix {len(self._rows)} rows x {len(self._columns)} columns>"


# -- mock side ------------------------------------------------------------------------

#: How many state changes a mock pin remembers; gpiozero's MockPin keeps them all,
#: which grows without bound when a scan loop toggles pins 200 times a second.
MOCK_PIN_HISTORY = 64


class MockWiringError(RuntimeError):
    """A simulated device could not be wired to the mock pins (they were taken)."""


def mock_pin(factory: Any, name: PinName, pin_class: type) -> Any:
    """The factory's pin ``name`` as an instance of ``pin_class``.

    ``MockFactory`` keeps one pin object per pin and hands it out again whatever
    class is asked for, so a simulation must create its pins before devices open
    them.  A pin of another class that nobody holds is replaced; one in use is an
    error saying to build the mock first.
    """
    pin = factory.pin(name, pin_class=pin_class)
    if isinstance(pin, pin_class):
        return pin
    # MockFactory has no public way to ask whether a pin is reserved.
    holders = [ref() for ref in factory._reservations.get(pin.info, ()) if ref() is not None]
    if holders:
        raise MockWiringError(
            f"{pin.info.name} is already in use by {holders[0]!r}: create the simulated "
            "board before opening the sensors on the same MockFactory"
        )
    del factory.pins[pin.info]
    return factory.pin(name, pin_class=pin_class)


def bounded_states(states: Any) -> deque[Any]:
    """A pin's state history, capped at ``MOCK_PIN_HISTORY`` entries."""
    return deque(states, maxlen=MOCK_PIN_HISTORY)


class BoundedHistory:
    """Mixin for gpiozero mock pins: keep only the last ``MOCK_PIN_HISTORY`` states
    (a mock pin otherwise remembers every change, forever, at 200 scans a second)."""

    states: Any

    def clear_states(self) -> None:
        super().clear_states()  # type: ignore[misc]
        self.states = bounded_states(self.states)


class WatchedMockPin(BoundedHistory, MockPin):  # type: ignore[misc]
    """A mock pin that calls ``on_change()`` whenever its level changes, as the chips
    or diodes wired to it would see the line."""

    def __init__(self, factory: Any, info: Any) -> None:
        self.on_change: Callable[[], object] | None = None
        super().__init__(factory, info)

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if self.on_change is not None:
            self.on_change()
        return changed


class MockDrivenPin(BoundedHistory, MockPin):  # type: ignore[misc]
    """A mock input pin whose level the simulated world sets (``drive(level)``).

    Unlike a plain ``MockPin``, the level survives a device opening the pin and
    setting its pull (the pull only shows while nothing drives the pin).
    """

    def __init__(self, factory: Any, info: Any) -> None:
        self.external: bool | None = None
        super().__init__(factory, info)

    def drive(self, level: bool | None) -> None:
        """Drive the pin ``level`` from outside; None leaves it to its pull."""
        self.external = level
        if self._function != "input":
            return
        if level is None:
            self._set_pull(self._pull)
        elif level:
            self.drive_high()
        else:
            self.drive_low()

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.external is not None:
            if self.external:
                self.drive_high()
            else:
                self.drive_low()


class MockMatrixRowPin(WatchedMockPin):
    """A mock row pin that tells its ``MockDiodeMatrix`` whenever it changes, also when
    it turns from input to output (a driven row starts pressing its crossings)."""

    def _set_function(self, value: str) -> None:
        super()._set_function(value)
        if self.on_change is not None:
            self.on_change()


class MockDiodeMatrix(Closing):
    """The switches and diodes of a ``DiodeMatrix`` on a ``MockFactory``.

    ``pressed`` is a bit mask of closed crossings (bit ``row * columns + column``);
    whenever a row pin changes, every column shows what the driven rows press.
    ``pull_up`` must match the ``DiodeMatrix`` (it sets the diode direction).
    Create it before the ``DiodeMatrix`` opens the pins.
    """

    def __init__(
        self,
        row_pins: Sequence[PinName],
        column_pins: Sequence[PinName],
        *,
        pull_up: bool = True,
        pin_factory: Any,
    ) -> None:
        self._pull_up = pull_up
        self._lock = threading.RLock()
        self._pressed = 0
        #: Faulty diodes by crossing (``DIODE_FAULTS``); the others are good.
        self.diodes: dict[int, str] = {}
        self._columns: list[MockDrivenPin] = [
            mock_pin(pin_factory, name, MockDrivenPin) for name in column_pins
        ]
        self._rows: list[MockMatrixRowPin] = [
            mock_pin(pin_factory, name, MockMatrixRowPin) for name in row_pins
        ]
        width = len(self._columns)
        self._row_shift = [row * width for row in range(len(self._rows))]
        self._width_mask = (1 << width) - 1
        for row in self._rows:
            row.on_change = self.update
        self.update()

    @property
    def count(self) -> int:
        return len(self._rows) * len(self._columns)

    @property
    def pressed(self) -> int:
        return self._pressed

    @pressed.setter
    def pressed(self, mask: int) -> None:
        if mask >> self.count:
            raise ValueError(f"pressed has bits beyond the {self.count} crossings")
        with self._lock:
            self._pressed = mask
            self.update()

    def update(self) -> None:
        """Set every column from the rows being driven to their active level."""
        with self._lock:
            active_level = not self._pull_up
            hit = 0
            reads = matrix_reads(self._pressed, len(self._rows), len(self._columns), self.diodes)
            for row, shift in zip(self._rows, self._row_shift, strict=True):
                if row._function == "output" and bool(row._state) == active_level:
                    hit |= (reads >> shift) & self._width_mask
            rest = self._pull_up
            for column, pin in enumerate(self._columns):
                level = active_level if hit >> column & 1 else rest
                if pin.external != level:
                    pin.drive(level)

    def close(self) -> None:
        """Unhook from the pins and let the columns go back to their pulls."""
        with self._lock:
            for row in self._rows:
                row.on_change = None
            for pin in self._columns:
                pin.drive(None)
