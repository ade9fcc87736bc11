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
    magnets on logical positions close the simulated Pico's sensors."""

    def __init__(self, config: BoardConfig, **options: Any) -> None:
        self.config = config
        self.pico = SimulatedPico.from_config(config, **options)
        self._indices = config.sensors.indices
        self._names = {config.position_name(p): p for p in range(config.positions)}
        self._magnets: set[int] = set()
        self._dead: set[int] = set()

    def kill(self, position: int) -> None:
        """A dead sensor (for the self-test's injected fault): it never closes."""
        self._dead.add(position)
        self.pico.release(self._indices[position])

    @property
    def url(self) -> str:
        return self.pico.url

    @property
    def occupied(self) -> frozenset[int]:
        return frozenset(self._magnets)

    def position(self, name: str) -> int:
        return self._names[name]

    def place(self, position: int) -> None:
        self._magnets.add(position)
        if position not in self._dead:
            self.pico.press(self._indices[position])

    def lift(self, position: int) -> None:
        self._magnets.discard(position)
        self.pico.release(self._indices[position])

    def set_occupied(self, positions: Iterable[int]) -> None:
        wanted = set(positions)
        for position in sorted(self._magnets - wanted):
            self.lift(position)
        for position in sorted(wanted - self._magnets):
            self.place(position)

    def close(self) -> None:
        self.pico.close()
