"""Reference design 2 behind the usual interfaces: the firmware link as a sensor
backend and as a pixel driver, and the simulated Pico as the mock board.

The link keeps the sensors' state as the firmware last reported it (the snapshot is
the truth); ``Sensors`` polls that state like any other backend, so debouncing, the
settle rule and the occupancy stream are the same for every board.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from companion.closing import Closing

from .config import BoardConfig
from .firmware_sim import SimulatedPico
from .mock_board import MockBoard, SensorFaults
from .serial_link import SerialLink

RGB = tuple[int, int, int]


class SerialSensorBackend:
    """``read()`` gives the pressed sensors as the link last synchronised them."""

    def __init__(self, link: SerialLink, count: int) -> None:
        self.link = link
        self.count = count

    def read(self) -> int:
        bits = 0
        for index, pressed in enumerate(self.link.states()[: self.count]):
            if pressed:
                bits |= 1 << index
        return bits

    def close(self) -> None:
        """The link belongs to the ``SerialBoard``; nothing to release here."""


class SerialPixels:
    """A pixel buffer whose ``show()`` sends one LED_FRAME (RGB) over the link."""

    def __init__(self, link: SerialLink, count: int) -> None:
        self.link = link
        self._pixels: list[RGB] = [(0, 0, 0)] * count
        self.brightness = 1.0
        self.frames_sent = 0
        self.closed = False

    def __len__(self) -> int:
        return len(self._pixels)

    def __setitem__(self, index: slice, value: Sequence[RGB]) -> None:
        self._pixels[index] = [tuple(v) for v in value]  # type: ignore[misc]

    def show(self) -> None:
        if self.closed:
            return
        self.link.send_frame(bytes(c for pixel in self._pixels for c in pixel))
        self.frames_sent += 1

    def close(self) -> None:
        if not self.closed:
            self._pixels = [(0, 0, 0)] * len(self._pixels)
            self.show()
            self.closed = True


class SerialBoard(Closing):
    """The link to the board's microcontroller: sensors, pixels and connection status."""

    def __init__(
        self,
        config: BoardConfig,
        url: str,
        *,
        on_status: Callable[[bool], None] | None = None,
    ) -> None:
        self.config = config
        self._on_status = on_status
        self.connected = False
        self._status_changed = threading.Event()
        self.link = SerialLink(url, on_event=_ignore, on_status=self._status)
        self.backend = SerialSensorBackend(self.link, config.sensors.count)
        self.pixels = SerialPixels(self.link, config.leds.count)

    def _status(self, status: str) -> None:
        self.connected = status == "connected"
        self._status_changed.set()
        if self._on_status is not None:
            self._on_status(self.connected)

    def wait_connected(self, timeout: float) -> bool:
        """Wait until the firmware has said hello and sent its snapshot."""
        deadline = timeout
        while not self.connected and deadline > 0:
            self._status_changed.clear()
            self._status_changed.wait(0.05)
            deadline -= 0.05
        return self.connected

    def close(self) -> None:
        self.pixels.close()
        self.link.close()


def _ignore(index: int, pressed: bool, at: float) -> None:
    """Sensor events are read as state by ``SerialSensorBackend``."""


class SimulatedPicoBoard(Closing):
    """The simulated board of reference design 2 with the ``MockBoard`` interface:
    magnets on logical positions close the simulated Pico's sensors.  The faults are
    ``MockBoard``'s (``SensorFaults``); ``scanner="matrix", columns=13`` (``options``)
    makes the Pico scan a diode matrix, whose diodes ``break_diode`` can spoil."""

    def __init__(self, config: BoardConfig, **options: Any) -> None:
        self.config = config
        self.pico = SimulatedPico.from_config(config, **options)
        self._indices = config.sensors.indices
        self._names = {config.position_name(p): p for p in range(config.positions)}
        self._magnets: dict[int, float] = {}
        self._faults = SensorFaults()
        self._closed: set[int] = set()

    def kill(self, position: int) -> None:
        """A dead sensor (for the self-test's injected fault): it never closes."""
        self._faults.clear(position)
        self._faults.dead.add(position)
        self._apply()

    def stick(self, position: int) -> None:
        """A stuck sensor: it is always closed."""
        self._faults.clear(position)
        self._faults.stuck.add(position)
        self._apply()

    def weaken(self, position: int) -> None:
        """A sensor that sees a figure at the centre only (``mock_board.WEAK_REACH_MM``)."""
        self._faults.clear(position)
        self._faults.weak.add(position)
        self._apply()

    def couple(self, position: int, neighbour: int) -> None:
        """A figure on ``position`` also closes the sensor under ``neighbour``."""
        self._faults.coupled.setdefault(position, set()).add(neighbour)
        self._apply()

    def break_diode(self, position: int, fault: str | None) -> None:
        """The diode of ``position``'s crossing ``open``, ``shorted``, ``reversed`` or
        good again (None); the Pico must scan a matrix."""
        self.pico.switches.set_diode(self._indices[position], fault)

    def heal(self, position: int | None = None) -> None:
        self._faults.clear(position)
        self._apply()

    @property
    def url(self) -> str:
        return self.pico.url

    @property
    def occupied(self) -> frozenset[int]:
        return frozenset(self._magnets)

    def position(self, name: str) -> int:
        return self._names[name]

    def place(self, position: int, offset_mm: float = 0.0) -> None:
        self._magnets[position] = offset_mm
        self._apply()

    def lift(self, position: int) -> None:
        self._magnets.pop(position, None)
        self._apply()

    def set_occupied(self, positions: Iterable[int]) -> None:
        self._magnets = dict.fromkeys(positions, 0.0)
        self._apply()

    def reads(self) -> frozenset[int]:
        """The sensor indices the Pico's scanner reads as pressed now (ghosts included)."""
        keys = self.pico.firmware.keys
        return frozenset(i for i, pressed in enumerate(keys._state) if pressed)

    def _apply(self) -> None:
        """Close and open the Pico's sensors as the figures and faults say."""
        closed = self._faults.closed(self._magnets)
        for position in sorted(self._closed - closed):
            self.pico.release(self._indices[position])
        for position in sorted(closed - self._closed):
            self.pico.press(self._indices[position])
        self._closed = closed

    def close(self) -> None:
        self.pico.close()


def simulated_board(config: BoardConfig, factory: Any) -> Any:
    """The simulated board of ``config`` (mock mode): the Pico's, scanning its diode matrix
    when the firmware's matrix is the config's sensors, or the Pi's pins' (``MockBoard``
    on ``factory``)."""
    from .boardcheck import matrix_columns

    if config.sensors.backend == "serial":
        columns = matrix_columns(config)
        if columns is not None:
            return SimulatedPicoBoard(config, scanner="matrix", columns=columns)
        return SimulatedPicoBoard(config)
    return MockBoard(config, factory)
