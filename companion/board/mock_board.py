"""The simulated physical board: magnets on positions, seen by mock sensors.

``MockBoard`` plays the hardware a board config describes on a gpiozero
``MockFactory``: a 74HC165 chain for ``shift_register``, switch levels on the pins
for ``gpio``, switches and diodes for ``matrix``.  ``Sensors`` opened on the same
factory then reads it through the real code path (SPI, pins, debouncer).  It is
what ``companion run --mock`` and ``companion selftest --mock`` stand on, and it
injects faults (``SensorFaults``, shared with the simulated Pico): a dead sensor (never
active), a stuck one (always active), a weak one (its field threshold is higher: it sees
a figure at the centre, not 5 mm off it), a coupled pair (a figure on one also switches
its neighbour), and on a matrix a diode open, shorted or reversed.

Create the MockBoard before the Sensors: it must own the mock pins first.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.closing import Closing

from .config import BoardConfig
from .gpio_sensors import MockDiodeMatrix, MockDrivenPin, mock_pin
from .mock_spi import HardwareSPIMockFactory
from .sensors import SensorBackendUnavailable
from .shift_register import Mock74HC165Chain

#: How far from its cell's centre a figure still closes a weak sensor (mm): a figure
#: the board check asks for 5 mm off the centre does not.
WEAK_REACH_MM = 2.0


@dataclass
class SensorFaults:
    """The sensors' injected faults by logical position, and what they make of the
    figures: which switches are closed (the electrical side is the board's)."""

    dead: set[int] = field(default_factory=set)
    stuck: set[int] = field(default_factory=set)
    weak: set[int] = field(default_factory=set)
    coupled: dict[int, set[int]] = field(default_factory=dict)

    def closed(self, figures: Mapping[int, float]) -> set[int]:
        """The positions whose switch is closed, for figures by position (with how
        far each stands from its cell's centre, in mm)."""
        closed = {p for p, off in figures.items() if p not in self.weak or off <= WEAK_REACH_MM}
        for position in figures:
            closed |= self.coupled.get(position, set())
        return (closed | self.stuck) - self.dead

    def by_position(self) -> dict[int, str]:
        """Every faulty position and its fault (``dead``, ``stuck``, ``weak``, ``coupled``)."""
        return {
            **dict.fromkeys(self.coupled, "coupled"),
            **dict.fromkeys(self.weak, "weak"),
            **dict.fromkeys(self.dead, "dead"),
            **dict.fromkeys(self.stuck, "stuck"),
        }

    def clear(self, position: int | None = None) -> None:
        """Repair ``position`` (every sensor if None)."""
        for group in (self.dead, self.stuck, self.weak):
            if position is None:
                group.clear()
            else:
                group.discard(position)
        if position is None:
            self.coupled.clear()
        else:
            self.coupled.pop(position, None)


class MockBoard(Closing):
    """Magnets on logical positions, shown to the sensors the config describes."""

    def __init__(self, config: BoardConfig, factory: Any) -> None:
        self.config = config
        self.factory = factory
        sensors = config.sensors
        self._indices = sensors.indices
        self._names = {config.position_name(p): p for p in range(config.positions)}
        self._invert = (1 << sensors.count) - 1 if sensors.active_low else 0
        self._lock = threading.Lock()
        #: The figures: position -> how far from the cell's centre it stands (mm).
        self._magnets: dict[int, float] = {}
        self._faults = SensorFaults()
        self._chain: Mock74HC165Chain | None = None
        self._matrix: MockDiodeMatrix | None = None
        self._pins: list[MockDrivenPin] = []
        self._levels: int | None = None
        self._closed = False
        if sensors.backend == "shift_register":
            clock, data = sensors.clock_pin, sensors.data_pin
            select, load = sensors.select_pin, sensors.load_pin
            if clock is None or data is None or select is None or load is None:
                raise ValueError(
                    "the shift_register backend needs clock, data, select and load pins"
                )
            self._chain = Mock74HC165Chain(
                clock, data, select, load, sensors.chips, pin_factory=factory
            )
        elif sensors.backend == "gpio":
            self._pins = [mock_pin(factory, pin, MockDrivenPin) for pin in sensors.pins]
        elif sensors.backend == "matrix":
            self._matrix = MockDiodeMatrix(
                sensors.row_pins,
                sensors.column_pins,
                pull_up=sensors.active_low,
                pin_factory=factory,
            )
        else:
            raise SensorBackendUnavailable(
                f"no simulated {sensors.backend} board here: the serial backend's "
                "simulation comes with the firmware link"
            )
        self._apply()

    # -- the figures ------------------------------------------------------------------

    @property
    def occupied(self) -> frozenset[int]:
        """Logical positions with a magnet on them (whatever the sensors say)."""
        return frozenset(self._magnets)

    def position(self, name: str) -> int:
        """The logical position called ``name``: ``"C4"``, ``"camp slot 1"`` ..."""
        text = name.strip()
        for key in (text, text.upper(), text.lower()):
            if key in self._names:
                return self._names[key]
        raise ValueError(f"{name!r} is not a position of {self.config.name!r}")

    def place(self, position: int, offset_mm: float = 0.0) -> None:
        """Put a figure on ``position``, ``offset_mm`` from its centre (or slide it there)."""
        self._check(position)
        with self._lock:
            self._magnets[position] = offset_mm
            self._apply()

    def lift(self, position: int) -> None:
        """Take the figure off ``position`` (nothing if there was none)."""
        self._check(position)
        with self._lock:
            self._magnets.pop(position, None)
            self._apply()

    def set_occupied(self, positions: Iterable[int]) -> None:
        """Exactly these positions have figures (centred), all changed at the same instant."""
        new = set(positions)
        for position in new:
            self._check(position)
        with self._lock:
            self._magnets = dict.fromkeys(new, 0.0)
            self._apply()

    # -- faults -----------------------------------------------------------------------

    def kill(self, position: int) -> None:
        """Break the sensor under ``position``: it never reads active."""
        self._fault(position, "dead")

    def stick(self, position: int) -> None:
        """Short the sensor under ``position``: it always reads active."""
        self._fault(position, "stuck")

    def weaken(self, position: int) -> None:
        """Raise the field threshold of the sensor under ``position``: it sees a figure at
        the centre, not one 5 mm off it (``WEAK_REACH_MM``)."""
        self._fault(position, "weak")

    def couple(self, position: int, neighbour: int) -> None:
        """A figure on ``position`` also switches the sensor under ``neighbour``."""
        self._check(neighbour)
        self._fault(position, "coupled", neighbour)

    def break_diode(self, position: int, fault: str | None) -> None:
        """Make the matrix diode of ``position`` ``open``, ``shorted`` or ``reversed``
        (None: good again); matrix boards only."""
        self._check(position)
        if self._matrix is None:
            raise ValueError("only a diode matrix has diodes")
        index = self._indices[position]
        with self._lock:
            if fault is None:
                self._matrix.diodes.pop(index, None)
            else:
                self._matrix.diodes[index] = fault
            self._apply()

    def _fault(self, position: int, kind: str, neighbour: int | None = None) -> None:
        self._check(position)
        with self._lock:
            faults = self._faults
            if kind == "coupled" and neighbour is not None:
                faults.coupled.setdefault(position, set()).add(neighbour)
            else:
                faults.clear(position)
                {"dead": faults.dead, "stuck": faults.stuck, "weak": faults.weak}[kind].add(
                    position
                )
            self._apply()

    def heal(self, position: int | None = None) -> None:
        """Repair the sensor under ``position`` (every sensor if None)."""
        if position is not None:
            self._check(position)
        with self._lock:
            self._faults.clear(position)
            self._apply()

    @property
    def faults(self) -> dict[int, str]:
        """Injected faults by position: ``"dead"``, ``"stuck"``, ``"weak"``, ``"coupled"``."""
        return self._faults.by_position()

    # -- the electrical side ----------------------------------------------------------

    def active_sensors(self) -> int:
        """Bit mask by sensor index of the sensors that are active now."""
        active = 0
        for position in self._faults.closed(self._magnets):
            active |= 1 << self._indices[position]
        return active

    def _apply(self) -> None:
        if self._closed:
            raise RuntimeError("the mock board is closed")
        active = self.active_sensors()
        if self._chain is not None:
            self._chain.inputs = active ^ self._invert
        elif self._matrix is not None:
            self._matrix.pressed = active
        else:
            levels = active ^ self._invert
            changed = levels ^ self._levels if self._levels is not None else -1
            for index, pin in enumerate(self._pins):
                if changed >> index & 1:
                    pin.drive(bool(levels >> index & 1))
            self._levels = levels

    def _check(self, position: int) -> None:
        if not 0 <= position < self.config.positions:
            raise ValueError(
                f"position {position} is not on the board (0 to {self.config.positions - 1})"
            )

    # -- lifetime ---------------------------------------------------------------------

    @property
    def chain(self) -> Mock74HC165Chain | None:
        """The simulated 74HC165 chain (shift_register boards)."""
        return self._chain

    @property
    def matrix(self) -> MockDiodeMatrix | None:
        """The simulated diode matrix (matrix boards)."""
        return self._matrix

    def close(self) -> None:
        """Unhook the simulation from the mock pins; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._chain is not None:
            self._chain.close()
        if self._matrix is not None:
            self._matrix.close()
        for pin in self._pins:
            pin.drive(None)

    def __repr__(self) -> str:
        return (
            f"<MockBoard {self.config.sensors.backend} {len(self._magnets)} figures"
            f"{', closed' if self._closed else ''}>"
        )


def mock_factory(config: BoardConfig) -> Any:
    """A gpiozero MockFactory for this board: plain mock pins, PWM-capable ones where
    the config needs PWM (the buzzer), since a mock pin cannot change its kind later,
    and hardware SPI on a hardware bus's pins, as gpiozero gives on a Pi."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    pwm = {f"GPIO{config.buzzer_pin}"} if config.buzzer_pin is not None else set()

    class BoardMockFactory(HardwareSPIMockFactory, MockFactory):  # type: ignore[misc]
        def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
            if pin_class is None and (f"GPIO{name}" in pwm or str(name) in pwm):
                pin_class = MockPWMPin
            return super().pin(name, pin_class=pin_class, **kwargs)

    return BoardMockFactory()
