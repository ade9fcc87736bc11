"""The host end of the USB serial link to the board firmware (reference design 2).

``SerialLink`` opens the port by URL (``serial.serial_for_url``: a device path, a pty,
``socket://``, ``loop://``), decodes frames in a reader thread, keeps the host's view of
the sensors in step with the device (a sequence gap means "ask for a SNAPSHOT"; the
SNAPSHOT is the truth), keeps the firmware fed (keepalive, the LED image) and reopens
the port with backoff when the device vanishes.  ``DeviceTracker`` is its pure part:
decoded frames in, sensor changes out.  The wire format is protocol.py
(firmware/PROTOCOL.md).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import serial

from companion.closing import Closing
from companion.firmware import protocol
from companion.firmware.firmware import VERSION as BUNDLED_FIRMWARE
from companion.pi import usb_ports

log = logging.getLogger(__name__)

#: ``(index, pressed)`` of one sensor that changed.
SensorChange = tuple[int, bool]
#: ``on_event(index, pressed, at)``: ``at`` is the host's ``time.monotonic()`` on receipt.
EventCallback = Callable[[int, bool, float], None]
#: ``on_status("connected" | "disconnected")``.
StatusCallback = Callable[[str], None]
#: ``on_frame(type, seq, payload)``: every valid frame from the device (for monitors).
FrameCallback = Callable[[int, int, bytes], None]

CONNECTED = "connected"
DISCONNECTED = "disconnected"
_PORT_ERRORS = (serial.SerialException, OSError)


@dataclass(frozen=True)
class DeviceInfo:
    """What the firmware said about itself in its HELLO."""

    protocol: int
    sensor_count: int
    pixel_count: int
    pixel_order: str
    firmware_version: str


@dataclass(frozen=True)
class DeviceCounters:
    """The device's own counters from its last HEARTBEAT (frames from the host)."""

    uptime_ms: int
    rx_frames: int
    rx_dropped: int
    rx_lost: int
    key_overflows: int


def _version(text: str) -> tuple[int, ...]:
    """``"1.2.10"`` as ``(1, 2, 10)``; what is not a number counts as 0."""
    return tuple(int(part) if part.isdigit() else 0 for part in text.split("+")[0].split("."))


def refusal(info: DeviceInfo) -> str:
    """Why the host will not play with this board, in words that say how to fix it, or ""."""
    update = (
        "update the board: mount its CIRCUITPY drive, run `companion firmware install` "
        'and press RESET (hardware/README.md, "Updating the Pico")'
    )
    if info.protocol != protocol.PROTOCOL_VERSION:
        return (
            f"board refused: its firmware {info.firmware_version} speaks protocol "
            f"{info.protocol}, this companion speaks {protocol.PROTOCOL_VERSION}; {update}"
        )
    if _version(info.firmware_version) < _version(BUNDLED_FIRMWARE):
        return (
            f"board refused: its firmware {info.firmware_version} is older than the "
            f"{BUNDLED_FIRMWARE} this companion carries; {update}"
        )
    return ""


class DeviceTracker:
    """The host's view of the device's sensors, fed decoded frames (pure: no I/O, no clock).

    In-sequence SENSOR_CHANGE frames update the view.  On any doubt (a sequence gap, a
    payload that does not parse, a new connection, a restarted device) changes stop being
    trusted until the next SNAPSHOT, which replaces the view and yields the differences:
    a lost frame can delay a change, never invent one.
    """

    def __init__(self) -> None:
        #: Pressed state of every sensor as the host believes it.
        self.states: list[bool] = []
        #: True while the view follows the device frame by frame.
        self.synced = False
        self.info: DeviceInfo | None = None
        self.counters: DeviceCounters | None = None
        self.last_error: tuple[int, int, int] | None = None
        #: Why the board is refused (protocol or firmware version), or "" when it is not.
        self.refused = ""
        #: Set when a SNAPSHOT is needed; cleared when one arrives.
        self.want_snapshot = True
        #: Set when the device may not show the host's LED image (restart, lost frames).
        self.want_image = False
        self.frames = 0
        self.lost = 0
        self.duplicates = 0
        self.bad_payloads = 0
        self.deferred = 0
        self.snapshots = 0
        self.hellos = 0
        self.errors = 0
        self._expected: int | None = None

    def restart(self) -> None:
        """A new connection or a silence: trust nothing until the next SNAPSHOT."""
        self._expected = None
        self._doubt()

    def _doubt(self) -> None:
        self.synced = False
        self.want_snapshot = True

    def handle(self, msg_type: int, seq: int, payload: bytes) -> list[SensorChange]:
        """Take one decoded frame; return the sensor changes it proves."""
        self.frames += 1
        if msg_type == protocol.HELLO:
            self._hello(seq, payload)
            return []
        if self.refused:
            return []  # nothing from a refused board counts until it says hello anew
        expected = self._expected
        if expected is not None and seq != expected:
            if seq == (expected - 1) & 0xFF:
                self.duplicates += 1
                return []
            self.lost += (seq - expected) & 0xFF
            self._doubt()
        self._expected = (seq + 1) & 0xFF
        try:
            if msg_type == protocol.SENSOR_CHANGE:
                return self._change(payload)
            if msg_type == protocol.SNAPSHOT:
                return self._snapshot(payload)
            if msg_type == protocol.HEARTBEAT:
                self._heartbeat(payload)
            elif msg_type == protocol.ERROR:
                self.last_error = protocol.decode_error(payload)
                self.errors += 1
                log.warning("board reports error %s", self.last_error)
            else:
                raise protocol.ProtocolError(f"unexpected message type 0x{msg_type:02X}")
        except protocol.ProtocolError as exc:
            self.bad_payloads += 1
            log.debug("bad payload from the board: %s", exc)
            self._doubt()
        return []

    def _hello(self, seq: int, payload: bytes) -> None:
        try:
            info = DeviceInfo(*protocol.decode_hello(payload))
        except protocol.ProtocolError:
            self.bad_payloads += 1
            self.restart()
            return
        self.info = info
        self.refused = refusal(info)
        if self.refused:
            log.error("%s", self.refused)
        self.hellos += 1
        self.counters = None
        self._expected = (seq + 1) & 0xFF
        self._doubt()
        self.want_image = True

    def _change(self, payload: bytes) -> list[SensorChange]:
        index, pressed, _ = protocol.decode_sensor_change(payload)
        if index >= len(self.states) and self.synced:
            raise protocol.ProtocolError(f"sensor {index} is past the last one")
        if not self.synced:
            self.deferred += 1
            return []
        if self.states[index] == pressed:
            return []
        self.states[index] = pressed
        return [(index, pressed)]

    def _snapshot(self, payload: bytes) -> list[SensorChange]:
        count, mask = protocol.decode_snapshot(payload)
        new = protocol.unpack_states(count, mask)
        old = self.states[:count] + [False] * (count - len(self.states))
        changes = [(index, state) for index, state in enumerate(new) if state != old[index]]
        self.states = new
        self.synced = True
        self.want_snapshot = False
        self.snapshots += 1
        return changes

    def _heartbeat(self, payload: bytes) -> None:
        counters = DeviceCounters(*protocol.decode_heartbeat(payload))
        before = self.counters
        if before is not None and (
            counters.rx_dropped != before.rx_dropped or counters.rx_lost != before.rx_lost
        ):
            self.want_image = True  # some of our LED frames may not have arrived
        self.counters = counters


#: Seconds between two warnings that the port may not be opened (it is retried meanwhile).
DENIED_WARNING_EVERY = 60.0


def denied(exc: BaseException) -> bool:
    """True when opening the port failed for want of permission (EACCES/EPERM): the
    device policy or the groups, not a missing Pico."""
    return getattr(exc, "errno", None) in (errno.EACCES, errno.EPERM)


class SerialLink(Closing):
    """The link to the board firmware, reopened with backoff whenever the port fails.

    Sensor changes arrive as ``on_event(index, pressed, at)`` from the reader thread.
    While the device is away the link is "disconnected" and the game waits; when it is
    back, the first SNAPSHOT's differences are delivered before ``on_status("connected")``
    so a listener sees a complete board when it hears "connected".
    """

    def __init__(
        self,
        url: str,
        *,
        on_event: EventCallback,
        on_status: StatusCallback | None = None,
        on_frame: FrameCallback | None = None,
        baudrate: int = 115200,
        reconnect: tuple[float, float] = (0.1, 2.0),
        keepalive: float = 0.5,
        silence: float = 2.0,
        snapshot_retry: float = 0.25,
        read_timeout: float = 0.05,
        write_timeout: float = 1.0,
        opener: Callable[..., Any] = serial.serial_for_url,
        find_port: Callable[[], str] = usb_ports.find_data_port,
    ) -> None:
        if not 0 < reconnect[0] <= reconnect[1]:
            raise ValueError("reconnect must be (first delay, longest delay), 0 < first <= longest")
        self.url = url
        self.baudrate = baudrate
        self.on_event = on_event
        self.on_status = on_status
        self.on_frame = on_frame
        self._backoff = reconnect
        self._keepalive = keepalive
        self._silence = silence
        self._snapshot_retry = snapshot_retry
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._opener = opener
        self._find_port = find_port
        #: The device path opened last (``url`` itself unless it is "auto").
        self.port_name = ""
        self._port_problem = ""
        self._next_denied_warning = 0.0
        self.tracker = DeviceTracker()
        self._decoder = protocol.FrameDecoder()
        self._write_lock = threading.Lock()
        self._port: Any = None
        self._port_failed = False
        self._connected = False
        self._image: bytearray | None = None
        self._tx_seq = 0
        self._stop = threading.Event()
        self._opens = 0
        self._open_failures = 0
        self._frames_sent = 0
        self._bytes_sent = 0
        self._write_errors = 0
        self._snapshot_requests = 0
        self._last_rx = 0.0
        self._next_keepalive = 0.0
        self._next_snapshot_request = 0.0
        self._next_hello_request = 0.0
        self._thread = threading.Thread(target=self._run, name=f"serial-link {url}", daemon=True)
        self._thread.start()

    # -- what the game uses ------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the device talks and the host's view of the sensors is complete."""
        return self._connected

    @property
    def device(self) -> DeviceInfo | None:
        """The last HELLO: firmware version, sensor and pixel counts."""
        return self.tracker.info

    def states(self) -> list[bool]:
        """The pressed state of every sensor as last synchronised."""
        return list(self.tracker.states)

    def send_frame(self, rgb: bytes | bytearray | memoryview | Sequence[Sequence[int]]) -> bool:
        """Show a full frame (RGB, 3 bytes per pixel from pixel 0); kept and sent again
        whenever the device may have missed it.  False if the device is away right now."""
        if not isinstance(rgb, bytes | bytearray | memoryview):
            rgb = bytes(channel for pixel in rgb for channel in pixel)
        payload = protocol.encode_led_frame(bytes(rgb))
        self._image = bytearray(rgb)
        return self._send(protocol.LED_FRAME, payload)

    def send_update(self, pixels: Iterable[tuple[int, int, int, int]]) -> bool:
        """Change some pixels: ``(index, r, g, b)`` each; split into frames as needed."""
        entries = list(pixels)
        image = self._image
        if image is None and self.device is not None:
            image = self._image = bytearray(3 * self.device.pixel_count)
        if image is not None:
            for index, red, green, blue in entries:
                if 0 <= 3 * index < len(image):
                    image[3 * index : 3 * index + 3] = bytes((red, green, blue))
        sent = True
        step = protocol.MAX_UPDATE_ENTRIES
        for start in range(0, len(entries), step):
            payload = protocol.encode_led_update(entries[start : start + step])
            sent = self._send(protocol.LED_UPDATE, payload) and sent
        return sent

    def request_snapshot(self) -> bool:
        """Ask for a SNAPSHOT now (the link also does so by itself on any doubt)."""
        self._snapshot_requests += 1
        return self._send(protocol.REQUEST_SNAPSHOT, b"")

    def stats(self) -> dict[str, Any]:
        """JSON-safe counters: frames, corrupt frames dropped, lost frames, reconnects."""
        decoder, tracker = self._decoder, self.tracker
        counters = tracker.counters
        return {
            "url": self.url,
            "port": self.port_name,
            "refused": self.tracker.refused,
            "connected": self._connected,
            "frames_ok": decoder.frames,
            "corrupt_dropped": decoder.dropped,
            "bad_cobs": decoder.bad_cobs,
            "bad_crc": decoder.bad_crc,
            "too_long": decoder.too_long,
            "too_short": decoder.too_short,
            "bad_payloads": tracker.bad_payloads,
            "lost": tracker.lost,
            "duplicates": tracker.duplicates,
            "deferred_changes": tracker.deferred,
            "snapshots": tracker.snapshots,
            "hellos": tracker.hellos,
            "device_errors": tracker.errors,
            "opens": self._opens,
            "reconnects": max(0, self._opens - 1),
            "open_failures": self._open_failures,
            "frames_sent": self._frames_sent,
            "bytes_sent": self._bytes_sent,
            "write_errors": self._write_errors,
            "snapshot_requests": self._snapshot_requests,
            "device": None if counters is None else counters.__dict__.copy(),
        }

    def close(self) -> None:
        """Stop the reader thread and close the port (the status turns "disconnected")."""
        self._stop.set()
        port = self._port
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(Exception):  # any state: the reader times out anyway
                port.cancel_read()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    # -- writing -----------------------------------------------------------------------

    def _send(self, msg_type: int, payload: bytes) -> bool:
        with self._write_lock:
            port = self._port
            if port is None or self._port_failed:
                return False
            frame = protocol.encode_frame(msg_type, self._tx_seq, payload)
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            try:
                port.write(frame)
            except _PORT_ERRORS as exc:
                log.info("board link write failed: %s", exc)
                self._write_errors += 1
                self._port_failed = True
                return False
            self._frames_sent += 1
            self._bytes_sent += len(frame)
            return True

    # -- the reader thread -------------------------------------------------------------

    def _run(self) -> None:
        first, longest = self._backoff
        delay = first
        while not self._stop.is_set():
            try:
                name = usb_ports.resolve(self.url, self._find_port)
                if name != self.port_name:
                    if self.url == usb_ports.AUTO:
                        log.info('board port: %s (found by port = "auto")', name)
                    self.port_name = name
                port = self._opener(
                    name,
                    baudrate=self.baudrate,
                    timeout=self._read_timeout,
                    write_timeout=self._write_timeout,
                )
            except (*_PORT_ERRORS, ValueError) as exc:
                self._open_failures += 1
                now = time.monotonic()
                if denied(exc):  # the service may not open it: say so, once a minute
                    if now >= self._next_denied_warning:
                        self._next_denied_warning = now + DENIED_WARNING_EVERY
                        log.warning(
                            "cannot open %s: permission denied (%s); retrying. The service "
                            "user needs group dialout and the unit DeviceAllow=char-ttyACM "
                            "with cdc_acm loaded before it starts (systemd/README.md)",
                            self.port_name or self.url,
                            exc,
                        )
                elif str(exc) != self._port_problem:  # say it once, not at every retry
                    self._port_problem = str(exc)
                    level = logging.WARNING if self.url == usb_ports.AUTO else logging.DEBUG
                    log.log(level, "cannot open %s: %s", self.url, exc)
                self._stop.wait(delay)
                delay = min(delay * 2, longest)
                continue
            delay = first
            self._port_problem = ""
            try:
                self._session(port)
            except _PORT_ERRORS as exc:
                log.info("board link lost: %s", exc)
            except Exception:
                log.exception("board link reader failed; reopening the port")
            finally:
                self._detach(port)
            self._stop.wait(first)

    def _session(self, port: Any) -> None:
        with self._write_lock:
            self._port = port
            self._port_failed = False
        self._opens += 1
        self._decoder.reset()
        self.tracker.restart()
        now = time.monotonic()
        self._last_rx = now
        self._next_keepalive = now + self._keepalive
        self._next_snapshot_request = now + self._snapshot_retry
        self._next_hello_request = now + self._silence
        # The device may not notice the port opening (no DTR on a pty or a socket).
        self._send(protocol.REQUEST_HELLO, b"")
        while not self._stop.is_set():
            waiting = port.in_waiting
            data = port.read(waiting if waiting > 0 else 1)
            now = time.monotonic()
            if data:
                self._receive(data, now)
            self._tick(now)
            if self._port_failed:
                raise serial.SerialException("write to the board failed")

    def _detach(self, port: Any) -> None:
        with self._write_lock:
            self._port = None
        try:
            port.close()
        except Exception as exc:  # closing a vanished device may fail; it is gone anyway
            log.debug("closing %s: %s", self.url, exc)
        self._set_connected(False)

    def _receive(self, data: bytes, at: float) -> None:
        tracker = self.tracker
        for msg_type, seq, payload in self._decoder.feed(data):
            self._last_rx = at
            if self.on_frame is not None:
                self._call(self.on_frame, msg_type, seq, payload)
            for index, pressed in tracker.handle(msg_type, seq, payload):
                self._call(self.on_event, index, pressed, at)
            if msg_type == protocol.HELLO and tracker.info is not None:
                log.info("board says hello: %s", tracker.info)
            if tracker.want_image and not tracker.refused:
                tracker.want_image = False
                if self._image is not None:
                    self._send(protocol.LED_FRAME, protocol.encode_led_frame(bytes(self._image)))
            if tracker.want_snapshot and at >= self._next_snapshot_request:
                self._request_snapshot(at)
        if tracker.synced and not self._connected and not tracker.refused:
            self._set_connected(True)

    def _tick(self, now: float) -> None:
        if now >= self._next_keepalive:
            self._send(protocol.PING, b"")
            self._next_keepalive = now + self._keepalive
        if self.tracker.want_snapshot and now >= self._next_snapshot_request:
            self._request_snapshot(now)
        if now - self._last_rx > self._silence:
            if self._connected:
                log.info("board silent for %.1f s", now - self._last_rx)
                self.tracker.restart()
                self._set_connected(False)
            if now >= self._next_hello_request:
                self._send(protocol.REQUEST_HELLO, b"")
                self._next_hello_request = now + self._silence

    def _request_snapshot(self, now: float) -> None:
        self.request_snapshot()
        self._next_snapshot_request = now + self._snapshot_retry

    def _set_connected(self, connected: bool) -> None:
        if connected == self._connected:
            return
        self._connected = connected
        if self.on_status is not None:
            self._call(self.on_status, CONNECTED if connected else DISCONNECTED)

    @staticmethod
    def _call(callback: Callable[..., None], *args: Any) -> None:
        try:
            callback(*args)
        except Exception:
            log.exception("board link callback %r failed", callback)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.board.serial_link [URL]``: print what the board says."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("url", nargs="?", help="port or URL (default: a simulated Pico)")
    parser.add_argument("--frames", action="store_true", help="print every frame")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    pico = None
    url = args.url
    if url is None:
        from .firmware_sim import SimulatedPico

        pico = SimulatedPico()
        url = pico.url
        print(f"simulated Pico on {url}")

    def event(index: int, pressed: bool, at: float) -> None:
        print(f"{at:.3f} sensor {index} {'pressed' if pressed else 'released'}")

    def frame(msg_type: int, seq: int, payload: bytes) -> None:
        print(protocol.describe(msg_type, seq, payload))

    link = SerialLink(
        url,
        on_event=event,
        on_status=lambda status: print(f"board {status}"),
        on_frame=frame if args.frames else None,
    )
    try:
        while True:
            time.sleep(10)
            print(link.stats())
    except KeyboardInterrupt:
        return 0
    finally:
        link.close()
        if pico is not None:
            pico.close()


if __name__ == "__main__":
    raise SystemExit(main())
