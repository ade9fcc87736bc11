"""A Raspberry Pi Pico running the board firmware, simulated on the host.

The firmware's own logic (companion/firmware/firmware.py, the file copied to the Pico)
runs in a thread against small CPython stand-ins for CircuitPython's ``board``,
``digitalio``, ``keypad``, ``neopixel`` and ``usb_cdc``.  The host reaches it through a
pty (a device path, as /dev/ttyACM1) or a TCP socket
(``socket://`` URL), so ``SerialLink`` and mock mode talk to it as to the real board.

The stand-ins model the hardware, not the timing: a switch change reaches the key
event queue at once (no scan interval or debounce), and the strip shows a frame the
moment ``show()`` is called.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable, Sequence
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from adafruit_pixelbuf import PixelBuf

from companion.closing import Closing
from companion.firmware.firmware import Firmware, make_keys, make_pixels, make_status_led

from .diode_matrix import matrix_reads

if TYPE_CHECKING:
    from .config import BoardConfig

#: Pins a builder can use on a Pico (GP23 to GP25 and GP29 are taken on the board).
USABLE_PINS = tuple(f"GP{n}" for n in (*range(23), 26, 27, 28))


def ticks_ms() -> int:
    """The simulated board's millisecond clock."""
    return time.monotonic_ns() // 1_000_000


# -- board and digitalio ---------------------------------------------------------------


class Pin:
    """A microcontroller pin; ``device`` is what the simulation wired to it, ``driven`` the
    level a ``DigitalInOut`` output puts on it (None: nothing drives it)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.device: Any = None
        self.driven: bool | None = None

    def __repr__(self) -> str:
        return f"board.{self.name}"


def board_module() -> ModuleType:
    """A stand-in ``board`` module for the Pico: GP0 to GP28 and LED (GP25)."""
    module = ModuleType("board")
    for number in range(29):
        setattr(module, f"GP{number}", Pin(f"GP{number}"))
    vars(module).update(LED=module.GP25)
    return module


class Direction:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class Pull:
    UP = "UP"
    DOWN = "DOWN"


class DigitalInOut:
    """``digitalio.DigitalInOut``: a pin whose level the simulation can read back.

    An output drives its pin (``Pin.driven``); an input reads its pull, or, on a matrix
    column, the level a closed crossing's diode passes from a driven row (``Switches``).
    ``opened`` lists every pin a ``DigitalInOut`` was made on (tests: what boot.py touched).
    """

    opened: ClassVar[list[str]] = []

    def __init__(self, pin: Pin) -> None:
        self.pin = pin
        self.direction = Direction.INPUT
        self.pull: str | None = None
        self._value = False
        DigitalInOut.opened.append(pin.name)

    @property
    def value(self) -> bool:
        if self.direction == Direction.OUTPUT:
            return self._value
        pulled = self.pull == Pull.UP
        device = self.pin.device
        if isinstance(device, Switches):
            return device.column_level(self.pin, pulled)
        return pulled

    @value.setter
    def value(self, value: bool) -> None:
        self._value = bool(value)
        if self.direction == Direction.OUTPUT:
            self.pin.driven = self._value

    def switch_to_output(self, value: bool = False, drive_mode: Any = None) -> None:
        self.direction = Direction.OUTPUT
        self.value = value

    def switch_to_input(self, pull: str | None = None) -> None:
        self.direction = Direction.INPUT
        self.pull = pull
        self.pin.driven = None

    def deinit(self) -> None:
        self.pin.driven = None

    def __enter__(self) -> DigitalInOut:
        return self

    def __exit__(self, *exc: object) -> None:
        self.deinit()


def digitalio_module() -> ModuleType:
    module = ModuleType("digitalio")
    vars(module).update(DigitalInOut=DigitalInOut, Direction=Direction, Pull=Pull)
    return module


# -- keypad ----------------------------------------------------------------------------


class Event:
    """``keypad.Event``: one key transition."""

    def __init__(
        self, key_number: int = 0, pressed: bool = True, timestamp: int | None = None
    ) -> None:
        self.key_number = key_number
        self.pressed = pressed
        self.timestamp = ticks_ms() if timestamp is None else timestamp

    @property
    def released(self) -> bool:
        return not self.pressed

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Event)
            and self.key_number == other.key_number
            and self.pressed == other.pressed
        )

    def __hash__(self) -> int:
        return hash((self.key_number, self.pressed))

    def __repr__(self) -> str:
        kind = "pressed" if self.pressed else "released"
        return f"<Event: key_number {self.key_number} {kind}>"


class EventQueue:
    """``keypad.EventQueue``: bounded; when full, new events are lost and ``overflowed`` set."""

    def __init__(self, max_events: int) -> None:
        self._events: deque[Event] = deque()
        self._max = max_events
        self._lock = threading.Lock()
        self.overflowed = False

    def put(self, event: Event) -> None:
        """What the scanner does on a transition (not part of the CircuitPython API)."""
        with self._lock:
            if len(self._events) >= self._max:
                self.overflowed = True
            else:
                self._events.append(event)

    def get(self) -> Event | None:
        with self._lock:
            return self._events.popleft() if self._events else None

    def get_into(self, event: Event) -> bool:
        got = self.get()
        if got is None:
            return False
        event.key_number, event.pressed, event.timestamp = (
            got.key_number,
            got.pressed,
            got.timestamp,
        )
        return True

    def clear(self) -> None:
        with self._lock:
            self._events.clear()
            self.overflowed = False

    def __len__(self) -> int:
        return len(self._events)

    def __bool__(self) -> bool:
        return bool(self._events)


class Switches:
    """The physical sensors: which are closed now; scanners wired to them see changes."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._closed: set[int] = set()
        #: Faulty matrix diodes by sensor index (``diode_matrix.DIODE_FAULTS``): what a
        #: ``KeyMatrix`` reads follows them; a shift-register chain has no diodes.
        self.diodes: dict[int, str] = {}
        self._scanners: list[_Scanner] = []
        self.lock = threading.Lock()
        #: A diode matrix's wires (rows, columns, anodes on the columns), or None.
        self.matrix: tuple[tuple[Pin, ...], tuple[Pin, ...], bool] | None = None

    def column_level(self, pin: Pin, pulled_high: bool) -> bool:
        """What a matrix column reads with its pull: a closed crossing's diode passes a
        row driven the other way (anodes on the columns: a row driven low pulls the
        column low; anodes on the rows: a row driven high pulls it high)."""
        if self.matrix is None or pin not in self.matrix[1]:
            return pulled_high
        rows, columns, anodes = self.matrix
        column = columns.index(pin)
        for r, row in enumerate(rows):
            if row.driven is None or r * len(columns) + column not in self._closed:
                continue
            if anodes and not row.driven and pulled_high:
                return False
            if not anodes and row.driven and not pulled_high:
                return True
        return pulled_high

    @property
    def pressed(self) -> frozenset[int]:
        return frozenset(self._closed)

    def set(self, index: int, pressed: bool) -> None:
        if not 0 <= index < self.count:
            raise IndexError(f"no sensor {index}: there are {self.count}")
        with self.lock:
            if pressed:
                self._closed.add(index)
            else:
                self._closed.discard(index)
            for scanner in self._scanners:
                scanner.scan()

    def set_diode(self, index: int, fault: str | None) -> None:
        """Make the diode at ``index`` faulty (``open``, ``shorted``, ``reversed``) or
        good again (None); the scanners look again."""
        with self.lock:
            if fault is None:
                self.diodes.pop(index, None)
            else:
                self.diodes[index] = fault
            for scanner in self._scanners:
                scanner.scan()

    def attach(self, scanner: _Scanner) -> None:
        with self.lock:
            self._scanners.append(scanner)
            scanner.scan()

    def detach(self, scanner: _Scanner) -> None:
        with self.lock:
            if scanner in self._scanners:
                self._scanners.remove(scanner)


def _switches(pin: Pin) -> Switches:
    if not isinstance(pin.device, Switches):
        raise ValueError(f"{pin!r} is not wired to the simulated sensors")
    return pin.device


class _Scanner:
    """What KeyMatrix and ShiftRegisterKeys share: a key state, an event queue, reset()."""

    def __init__(self, switches: Switches, key_count: int, max_events: int) -> None:
        self.key_count = key_count
        self.events = EventQueue(max_events)
        self._switches = switches
        self._state = [False] * key_count
        switches.attach(self)

    def _reads(self) -> frozenset[int]:
        """The keys this scanner reads as pressed now."""
        return self._switches.pressed

    def scan(self) -> None:
        """Queue an event for every key whose switch differs from the last scan."""
        closed = self._reads()
        for index in range(self.key_count):
            pressed = index in closed
            if pressed != self._state[index]:
                self._state[index] = pressed
                self.events.put(Event(index, pressed))

    def reset(self) -> None:
        """Assume every key released: keys still pressed report again on the next scan."""
        with self._switches.lock:
            self._state = [False] * self.key_count
            self.scan()

    def deinit(self) -> None:
        self._switches.detach(self)

    def __enter__(self) -> _Scanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.deinit()


class KeyMatrix(_Scanner):
    """``keypad.KeyMatrix``: key number = row * len(column_pins) + column."""

    def __init__(
        self,
        row_pins: Sequence[Pin],
        column_pins: Sequence[Pin],
        columns_to_anodes: bool = True,
        interval: float = 0.02,
        max_events: int = 64,
        debounce_threshold: int = 1,
    ) -> None:
        self.row_pins = tuple(row_pins)
        self.column_pins = tuple(column_pins)
        self.columns_to_anodes = columns_to_anodes
        super().__init__(_switches(row_pins[0]), len(row_pins) * len(column_pins), max_events)

    def _reads(self) -> frozenset[int]:
        """A matrix reads through its diodes: a faulty one can hide a key or add a ghost."""
        closed = self._switches.pressed
        if not self._switches.diodes:
            return closed
        mask = sum(1 << index for index in closed)
        rows, columns = len(self.row_pins), len(self.column_pins)
        reads = matrix_reads(mask, rows, columns, self._switches.diodes)
        return frozenset(i for i in range(self.key_count) if reads >> i & 1)

    def key_number_to_row_column(self, key_number: int) -> tuple[int, int]:
        return divmod(key_number, len(self.column_pins))

    def row_column_to_key_number(self, row: int, column: int) -> int:
        return row * len(self.column_pins) + column


class ShiftRegisterKeys(_Scanner):
    """``keypad.ShiftRegisterKeys`` for a 74HC165 chain."""

    def __init__(
        self,
        *,
        clock: Pin,
        data: Pin,
        latch: Pin,
        value_to_latch: bool = True,
        key_count: int,
        value_when_pressed: bool,
        interval: float = 0.02,
        max_events: int = 64,
        debounce_threshold: int = 1,
    ) -> None:
        self.value_when_pressed = value_when_pressed
        super().__init__(_switches(data), key_count, max_events)


def keypad_module() -> ModuleType:
    module = ModuleType("keypad")
    vars(module).update(
        Event=Event, EventQueue=EventQueue, KeyMatrix=KeyMatrix, ShiftRegisterKeys=ShiftRegisterKeys
    )
    return module


# -- neopixel --------------------------------------------------------------------------


class Strip:
    """The physical NeoPixels: what was last latched, decoded back to RGB."""

    def __init__(self, count: int, pixel_order: str = "GRB") -> None:
        self.count = count
        self.pixel_order = pixel_order
        self.shows = 0
        self.shown_at = 0.0
        self._buffer = bytes(len(pixel_order) * count)
        self._changed = threading.Condition()

    def latch(self, buffer: bytes) -> None:
        with self._changed:
            self._buffer = buffer
            self.shows += 1
            self.shown_at = time.monotonic()
            self._changed.notify_all()

    def colors(self) -> list[tuple[int, int, int]]:
        """The RGB of every pixel as lit (after the firmware's brightness)."""
        order, bpp, buffer = self.pixel_order, len(self.pixel_order), self._buffer
        red, green, blue = order.index("R"), order.index("G"), order.index("B")
        return [
            (buffer[i + red], buffer[i + green], buffer[i + blue])
            for i in range(0, len(buffer), bpp)
        ]

    def wait_for(
        self, predicate: Callable[[list[tuple[int, int, int]]], bool], timeout: float = 2.0
    ) -> bool:
        """Wait until the lit colours satisfy ``predicate``; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.colors()):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
        return True


class NeoPixel(PixelBuf):  # type: ignore[misc]  # PixelBuf is untyped
    """``neopixel.NeoPixel`` on adafruit's own PixelBuf: brightness and byte order are the
    library's; ``show()`` latches the bytes into the Strip wired to the pin."""

    def __init__(
        self,
        pin: Pin,
        n: int,
        *,
        bpp: int = 3,
        brightness: float = 1.0,
        auto_write: bool = True,
        pixel_order: str | None = None,
    ) -> None:
        if pixel_order is None:
            pixel_order = "GRB" if bpp == 3 else "GRBW"
        self.pin = pin
        super().__init__(n, byteorder=pixel_order, brightness=brightness, auto_write=auto_write)

    def _transmit(self, buffer: bytearray) -> None:
        if isinstance(self.pin.device, Strip):
            self.pin.device.latch(bytes(buffer))

    def deinit(self) -> None:
        pass


def neopixel_module() -> ModuleType:
    module = ModuleType("neopixel")
    vars(module).update(NeoPixel=NeoPixel, RGB="RGB", GRB="GRB", RGBW="RGBW", GRBW="GRBW")
    return module


# -- usb_cdc and the host side of the cable ----------------------------------------------


class _PtyPort:
    """The device end of a pty; the host opens a stable symlink to the other end."""

    def __init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="simulated-pico-")
        self.path = os.path.join(self._dir, "ttyACM-data")
        self._master: int | None = None
        self._slave: int | None = None

    @property
    def url(self) -> str:
        return self.path

    @property
    def connected(self) -> bool:
        return self._master is not None

    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        link = self.path + ".new"
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.path)

    def unplug(self) -> None:
        if os.path.lexists(self.path):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def fds(self) -> list[int]:
        return [] if self._master is None else [self._master]

    def read(self) -> bytes:
        if self._master is None:
            return b""
        try:
            return os.read(self._master, 65536)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes, timeout: float) -> int:
        master = self._master
        if master is None:
            return 0
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            try:
                view = view[os.write(master, view) :]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                select.select([], [master], [], left)
            except OSError:
                break
        return len(data) - len(view)

    def close(self) -> None:
        self.unplug()
        os.rmdir(self._dir)


class _SocketPort:
    """A TCP listener on localhost; a connected client is the host holding the port open."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.port = 0
        self._listener: socket.socket | None = None
        self._client: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    @property
    def connected(self) -> bool:
        self._accept()
        return self._client is not None

    def plug(self) -> None:
        self._listener = socket.create_server((self.host, self.port))
        self._listener.setblocking(False)
        self.port = self._listener.getsockname()[1]

    def unplug(self) -> None:
        for sock in (self._client, self._listener):
            if sock is not None:
                sock.close()
        self._client = self._listener = None

    def fds(self) -> list[int]:
        return [s.fileno() for s in (self._listener, self._client) if s is not None]

    def _accept(self) -> None:
        if self._listener is None:
            return
        try:
            client, _ = self._listener.accept()
        except (BlockingIOError, OSError):
            return
        if self._client is not None:
            self._client.close()  # the host reopened the port
        client.setblocking(False)
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._client = client

    def read(self) -> bytes:
        self._accept()
        if self._client is None:
            return b""
        try:
            data = self._client.recv(65536)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self._client.close()
            self._client = None
        return data

    def write(self, data: bytes, timeout: float) -> int:
        client = self._client
        if client is None:
            return 0
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            try:
                view = view[client.send(view) :]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                select.select([], [client], [], left)
            except OSError:
                break
        return len(data) - len(view)

    def close(self) -> None:
        self.unplug()


class SimSerial:
    """``usb_cdc.data``: non-blocking reads, writes that give up after ``write_timeout``.

    ``lose_frames(n)`` drops the next n writes (lost frames on the wire) and ``inject``
    sends raw bytes to the host (line noise); both are test hooks.
    """

    def __init__(self, port: _PtyPort | _SocketPort) -> None:
        self.port = port
        self.timeout: float | None = 0.0
        self.write_timeout: float | None = 0.5
        self._rx = bytearray()
        self._lock = threading.Lock()
        self._lose = 0
        self.lost_writes = 0
        self.short_writes = 0

    @property
    def connected(self) -> bool:
        return self.port.connected

    @property
    def in_waiting(self) -> int:
        self._rx += self.port.read()
        return len(self._rx)

    def read(self, size: int | None = None) -> bytes:
        if size is None or size > len(self._rx):
            self._rx += self.port.read()
        size = len(self._rx) if size is None else min(size, len(self._rx))
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data

    def readinto(self, buffer: bytearray) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def write(self, buf: bytes) -> int:
        with self._lock:
            if self._lose:
                self._lose -= 1
                self.lost_writes += 1
                return len(buf)
            written = self.port.write(bytes(buf), self.write_timeout or 0.0)
        if written < len(buf):
            self.short_writes += 1
        return written

    def reset_input_buffer(self) -> None:
        self._rx.clear()

    def reset_output_buffer(self) -> None:
        pass

    def lose_frames(self, count: int = 1) -> None:
        with self._lock:
            self._lose += count

    def inject(self, data: bytes) -> None:
        with self._lock:
            self.port.write(data, 1.0)


def usb_cdc_module(data: SimSerial | None) -> ModuleType:
    module = ModuleType("usb_cdc")
    vars(module).update(console=None, data=data, enable=lambda console=True, data=False: None)
    return module


# -- the simulated board ----------------------------------------------------------------


class SimulatedPico(Closing):
    """A Pico with the board firmware, its sensors and its strip, reachable at ``url``.

    ``press``/``release`` close and open sensors; ``unplug``/``replug`` pull and put back
    the USB cable (the board keeps running, as when it is powered from the LED supply);
    ``reset`` restarts the firmware (a soft reload: HELLO again, sequence numbers from 0,
    the port stays); ``pause``/``resume`` hang it with USB up.  ``strip.colors()`` is what
    the LEDs show.
    """

    def __init__(
        self,
        sensor_count: int = 156,
        pixel_count: int = 152,
        *,
        scanner: str = "matrix",
        columns: int = 13,
        pixel_order: str = "GRB",
        transport: str = "pty",
        snapshot_ms: int = 2000,
        heartbeat_ms: int = 500,
        host_timeout_ms: int = 3000,
        settle_ms: int = 100,
        lost_step: int = 12,
        max_events: int = 64,
        poll_s: float = 0.005,
    ) -> None:
        self.settings = _settings(
            sensor_count,
            pixel_count,
            scanner=scanner,
            columns=columns,
            PIXEL_ORDER=pixel_order,
            SNAPSHOT_MS=snapshot_ms,
            HEARTBEAT_MS=heartbeat_ms,
            HOST_TIMEOUT_MS=host_timeout_ms,
            SETTLE_MS=settle_ms,
            LOST_PIXEL_STEP=lost_step,
            MAX_EVENTS=max_events,
        )
        if transport not in ("pty", "socket"):
            raise ValueError("transport must be 'pty' or 'socket'")
        self.board = board_module()
        self.keypad = keypad_module()
        self.neopixel = neopixel_module()
        self.digitalio = digitalio_module()
        self.switches = Switches(sensor_count)
        self.strip = Strip(pixel_count, pixel_order)
        self._wire()
        self._port: _PtyPort | _SocketPort = _PtyPort() if transport == "pty" else _SocketPort()
        self._port.plug()
        self.serial = SimSerial(self._port)
        self.usb_cdc = usb_cdc_module(self.serial)
        self._poll_s = poll_s
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._stop = threading.Event()
        self._paused = False
        self.resets = 0
        self.firmware = self._boot()
        self._thread = threading.Thread(target=self._run, name="simulated-pico", daemon=True)
        self._thread.start()

    @classmethod
    def from_config(cls, config: BoardConfig, **options: Any) -> SimulatedPico:
        """The simulated board for a ``serial`` sensors and LEDs config (mock mode)."""
        options.setdefault("scanner", "shift_register")
        options.setdefault("pixel_order", config.leds.byte_order)
        return cls(config.sensors.count, config.leds.count, **options)

    def _wire(self) -> None:
        """Connect the sensors and the strip to the pins settings name."""
        wire_board(self.settings, self.board, self.switches, self.strip)

    def _boot(self) -> Firmware:
        """What code.py does at every start."""
        keys = make_keys(self.settings, self.board, self.keypad)
        pixels = make_pixels(self.settings, self.board, self.neopixel)
        led = make_status_led(self.settings, self.board, self.digitalio)
        self.status_led = led
        return Firmware.from_settings(self.settings, keys, pixels, self.serial, ticks_ms, led)

    # -- the game's hands -------------------------------------------------------------

    @property
    def url(self) -> str:
        """What the host opens: a device path (pty) or a ``socket://`` URL."""
        return self._port.url

    @property
    def pressed(self) -> frozenset[int]:
        return self.switches.pressed

    def press(self, index: int) -> None:
        self.set(index, True)

    def release(self, index: int) -> None:
        self.set(index, False)

    def set(self, index: int, pressed: bool) -> None:
        self.switches.set(index, pressed)
        self._wake()

    # -- the cable and the reset button -------------------------------------------------

    @property
    def plugged(self) -> bool:
        return self._port.fds() != []

    def unplug(self) -> None:
        with self._lock:
            self._port.unplug()

    def replug(self) -> None:
        with self._lock:
            if not self.plugged:
                self._port.plug()
        self._wake()

    def pause(self) -> None:
        """The firmware hangs (stops stepping) while USB stays up: the host hears nothing."""
        self._paused = True

    def resume(self) -> None:
        self._paused = False
        self._wake()

    def reset(self) -> None:
        """Restart the firmware, as a soft reload of code.py: the port stays open."""
        with self._lock:
            self.firmware.keys.deinit()
            self.serial.reset_input_buffer()
            self.firmware = self._boot()
            self.resets += 1
        self._wake()

    def close(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._port.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    # -- the firmware's thread ----------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # closed or full: the loop is awake anyway
            os.write(self._wake_w, b"!")

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                if not self._paused:
                    self.firmware.step()
                fds = self._port.fds()
            try:
                select.select([self._wake_r, *fds], [], [], self._poll_s)
                os.read(self._wake_r, 4096)
            except (BlockingIOError, OSError, ValueError):
                pass


def wire_board(settings: Any, board: ModuleType, switches: Switches, strip: Strip) -> None:
    """Connect ``switches`` and ``strip`` to the pins ``settings`` (a settings.py) names."""
    if settings.SCANNER == "matrix":
        names = (*settings.ROW_PINS, *settings.COLUMN_PINS)
        switches.matrix = (
            tuple(getattr(board, name) for name in settings.ROW_PINS),
            tuple(getattr(board, name) for name in settings.COLUMN_PINS),
            getattr(settings, "COLUMNS_TO_ANODES", True),
        )
    else:
        names = (settings.CLOCK_PIN, settings.DATA_PIN, settings.LATCH_PIN)
    for name in names:
        getattr(board, name).device = switches
    getattr(board, settings.PIXEL_PIN).device = strip


def _settings(
    sensor_count: int, pixel_count: int, *, scanner: str, columns: int, **values: Any
) -> SimpleNamespace:
    """A settings module (companion/firmware/settings.py) for the simulated board."""
    settings = SimpleNamespace(
        SCANNER=scanner,
        SCAN_INTERVAL=0.02,
        DEBOUNCE_THRESHOLD=1,
        PIXEL_COUNT=pixel_count,
        STATUS_LED_PIN="LED",
        LOST_LEVEL=48,
        **values,
    )
    if scanner == "matrix":
        rows, rest = divmod(sensor_count, columns)
        if rest or rows + columns + 1 > len(USABLE_PINS):
            raise ValueError(
                f"{sensor_count} sensors are not a matrix of {columns} columns on a Pico; "
                "use scanner='shift_register'"
            )
        settings.ROW_PINS = USABLE_PINS[:rows]
        settings.COLUMN_PINS = USABLE_PINS[rows : rows + columns]
        settings.COLUMNS_TO_ANODES = True
    elif scanner == "shift_register":
        settings.CLOCK_PIN, settings.DATA_PIN, settings.LATCH_PIN = "GP2", "GP3", "GP4"
        settings.KEY_COUNT = sensor_count
        settings.VALUE_WHEN_PRESSED = False
    else:
        raise ValueError("scanner must be 'matrix' or 'shift_register'")
    settings.PIXEL_PIN = USABLE_PINS[-1]
    return settings


def main() -> int:
    """``python -m companion.board.firmware_sim``: run a simulated Pico until Ctrl-C."""
    with SimulatedPico() as pico:
        print(f"simulated Pico on {pico.url} (Ctrl-C to stop)")
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())
