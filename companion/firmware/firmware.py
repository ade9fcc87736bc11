"""The board firmware's logic: sensor changes out as frames, LED frames in as pixels.

It runs on the Pico under CircuitPython (code.py builds the real keypad, NeoPixel and
usb_cdc objects and calls ``Firmware.run``) and, unchanged, under CPython with the small
stand-ins of companion/board/firmware_sim.py, so tests drive the real logic end to end.
This is the one copy: the host imports it from the companion package and
``companion firmware install`` copies it to the board.

The firmware stays simple, as in Klipper: it reports, it shows, and the host decides.
"""

#: True on the Pico, where the firmware files sit at the top of CIRCUITPY; False when the
#: host imports this module as companion.firmware.firmware.  mypy is told which one it
#: checks (always_true / always_false = ON_PICO), so both imports are type-checked.
ON_PICO = "." not in __name__
if ON_PICO:
    import protocol
else:
    from . import protocol

try:  # noqa: SIM105 (no contextlib on CircuitPython) - for the type comments only
    from typing import Any  # noqa: F401
except ImportError:
    pass

VERSION = "1.1.0"


def make_keys(settings, board, keypad):
    # type: (Any, Any, Any) -> Any
    """The key scanner described by ``settings`` (a diode matrix or a 74HC165 chain)."""
    scanner = getattr(settings, "SCANNER", "matrix")
    options = {
        "interval": getattr(settings, "SCAN_INTERVAL", 0.02),
        "max_events": getattr(settings, "MAX_EVENTS", 64),
    }
    if scanner == "matrix":
        kind = keypad.KeyMatrix
        options["row_pins"] = [getattr(board, name) for name in settings.ROW_PINS]
        options["column_pins"] = [getattr(board, name) for name in settings.COLUMN_PINS]
        options["columns_to_anodes"] = getattr(settings, "COLUMNS_TO_ANODES", True)
    elif scanner == "shift_register":
        kind = keypad.ShiftRegisterKeys
        options["clock"] = getattr(board, settings.CLOCK_PIN)
        options["data"] = getattr(board, settings.DATA_PIN)
        options["latch"] = getattr(board, settings.LATCH_PIN)
        options["key_count"] = settings.KEY_COUNT
        options["value_when_pressed"] = getattr(settings, "VALUE_WHEN_PRESSED", False)
        options["value_to_latch"] = getattr(settings, "VALUE_TO_LATCH", True)
    else:
        raise ValueError("settings.SCANNER must be 'matrix' or 'shift_register'")
    threshold = getattr(settings, "DEBOUNCE_THRESHOLD", 1)
    if threshold > 1:
        try:  # debounce_threshold is recent; older releases refuse the keyword
            return kind(debounce_threshold=threshold, **options)
        except TypeError:
            pass
    return kind(**options)


def make_pixels(settings, board, neopixel):
    # type: (Any, Any, Any) -> Any
    """The NeoPixel strip, written only when the firmware calls ``show()``."""
    return neopixel.NeoPixel(
        getattr(board, settings.PIXEL_PIN),
        settings.PIXEL_COUNT,
        brightness=1.0,  # the host owns brightness and the current limit
        auto_write=False,
        pixel_order=getattr(settings, "PIXEL_ORDER", "GRB"),
    )


def make_status_led(settings, board, digitalio):
    # type: (Any, Any, Any) -> Any
    """The on-board LED (lit while a host talks to the board), or None."""
    name = getattr(settings, "STATUS_LED_PIN", None)
    if not name or not hasattr(board, name):
        return None
    led = digitalio.DigitalInOut(getattr(board, name))
    led.direction = digitalio.Direction.OUTPUT
    return led


class Firmware:
    """Sensors to SENSOR_CHANGE/SNAPSHOT frames, host frames to pixels, one ``step`` at a time.

    ``keys`` is a keypad scanner, ``pixels`` a NeoPixel strip, ``serial`` is usb_cdc.data
    and ``clock()`` returns milliseconds.  Nothing here blocks, so a test can call
    ``step`` with stand-ins and a fake clock.
    """

    def __init__(
        self,
        keys,  # type: Any
        pixels,  # type: Any
        serial,  # type: Any
        clock,  # type: Any
        pixel_order="GRB",  # type: str
        snapshot_ms=2000,  # type: int
        heartbeat_ms=500,  # type: int
        host_timeout_ms=3000,  # type: int
        settle_ms=100,  # type: int
        lost_step=12,  # type: int
        lost_level=48,  # type: int
        lost_period_ms=2000,  # type: int
        status_led=None,  # type: Any
        version=VERSION,  # type: str
        on_playing=None,  # type: Any
    ):
        # type: (...) -> None
        self.keys = keys
        self.pixels = pixels
        self.serial = serial
        self.clock = clock
        self.pixel_order = pixel_order
        self.snapshot_ms = snapshot_ms
        self.heartbeat_ms = heartbeat_ms
        self.host_timeout_ms = host_timeout_ms
        self.settle_ms = settle_ms
        self.lost_step = max(1, lost_step)
        self.lost_level = lost_level
        self.lost_period_ms = max(100, lost_period_ms)
        self.status_led = status_led
        self.version = version
        #: Called with True when a host starts talking and False when it is lost (code.py
        #: turns CircuitPython's autoreload off while a game is played).
        self.on_playing = on_playing
        #: A frame went out short: the next one starts with 0x00 so the host drops the rest.
        self.resync = False
        self.sensor_count = keys.key_count  # type: int
        self.pixel_count = len(pixels)  # type: int
        #: Pressed sensors as last reported to the host (the SNAPSHOT bitmask).
        self.state = bytearray((self.sensor_count + 7) // 8)
        #: What the host asked the strip to show, RGB; kept while the "host lost" pulse runs.
        self.image = bytearray(3 * self.pixel_count)
        self.decoder = protocol.FrameDecoder()
        self.tx_seq = 0
        self.host_seq = -1
        self.rx_lost = 0
        self.overflows = 0
        self.tx_errors = 0
        self.connected = False
        self.host_lost = True
        now = clock()
        self.started = now
        self.last_host = now
        self.settled_at = now + settle_ms
        self.next_snapshot = self.settled_at
        self.next_heartbeat = now
        self.next_pulse = now
        self.pulse = -1
        self._show_lost(now)

    @classmethod
    def from_settings(cls, settings, keys, pixels, serial, clock, status_led=None, on_playing=None):
        # type: (Any, Any, Any, Any, Any, Any, Any) -> Firmware
        """A firmware configured by a settings module (firmware/settings.py)."""
        return cls(
            keys,
            pixels,
            serial,
            clock,
            pixel_order=getattr(settings, "PIXEL_ORDER", "GRB"),
            snapshot_ms=getattr(settings, "SNAPSHOT_MS", 2000),
            heartbeat_ms=getattr(settings, "HEARTBEAT_MS", 500),
            host_timeout_ms=getattr(settings, "HOST_TIMEOUT_MS", 3000),
            settle_ms=getattr(settings, "SETTLE_MS", 100),
            lost_step=getattr(settings, "LOST_PIXEL_STEP", 12),
            lost_level=getattr(settings, "LOST_LEVEL", 48),
            status_led=status_led,
            on_playing=on_playing,
        )

    # -- the loop ----------------------------------------------------------------------

    def run(self, idle=None):
        # type: (Any) -> None
        """Step forever (code.py); ``idle()``, if given, runs between steps."""
        while True:
            self.step()
            if idle is not None:
                idle()

    def step(self):
        # type: () -> None
        """One pass: connection, host frames, key events, timers, the "host lost" pulse."""
        now = self.clock()
        self._check_connection(now)
        self._read_host(now)
        self._scan(now)
        if self.connected:
            if now >= self.next_snapshot:
                self.send_snapshot(now)
            if now >= self.next_heartbeat:
                self._send_heartbeat(now)
        if not self.host_lost and now - self.last_host > self.host_timeout_ms:
            self.host_lost = True
            self.pulse = -1
            self._playing(False)
        if self.host_lost and now >= self.next_pulse:
            self._show_lost(now)
        if self.status_led is not None:
            self.status_led.value = not self.host_lost or (now // 500) % 4 == 0

    def _check_connection(self, now):
        # type: (int) -> None
        connected = bool(self.serial.connected)
        if connected and not self.connected:
            self.connected = True
            self.decoder.reset()
            self.host_seq = -1
            self.send_hello()
            self.next_snapshot = max(now, self.settled_at)
        self.connected = connected

    # -- device -> host --------------------------------------------------------------

    def _send(self, msg_type, payload, lead=b""):
        # type: (int, bytes, bytes) -> None
        if not self.connected:
            return
        frame = protocol.encode_frame(msg_type, self.tx_seq, payload)
        self.tx_seq = (self.tx_seq + 1) & 0xFF
        if self.resync and not lead:
            lead = b"\x00"
        data = lead + frame
        try:
            written = self.serial.write(data)
        except Exception:  # a vanished port: the host resynchronises
            written = 0
        # usb_cdc's write() returns the bytes it took (fewer when write_timeout ran out):
        # a frame cut short is counted, and the next one ends it with a 0x00 first.
        self.resync = written is not None and written < len(data)
        if self.resync:
            self.tx_errors += 1

    def _playing(self, playing):
        # type: (bool) -> None
        if self.on_playing is not None:
            self.on_playing(playing)

    def send_hello(self):
        # type: () -> None
        """Who we are; preceded by 0x00 so a receiver drops any half frame before it."""
        payload = protocol.encode_hello(
            self.version, self.sensor_count, self.pixel_count, self.pixel_order
        )
        self._send(protocol.HELLO, payload, lead=b"\x00")

    def send_snapshot(self, now):
        # type: (int) -> None
        """Every sensor's state; deferred until the first scans after a (re)start settle."""
        if now < self.settled_at:
            self.next_snapshot = self.settled_at
            return
        self._send(protocol.SNAPSHOT, protocol.encode_snapshot(self.sensor_count, self.state))
        self.next_snapshot = now + self.snapshot_ms

    def _send_heartbeat(self, now):
        # type: (int) -> None
        decoder = self.decoder
        payload = protocol.encode_heartbeat(
            now - self.started, decoder.frames, decoder.dropped, self.rx_lost, self.overflows
        )
        self._send(protocol.HEARTBEAT, payload)
        self.next_heartbeat = now + self.heartbeat_ms

    def _scan(self, now):
        # type: (int) -> None
        events = self.keys.events
        if events.overflowed:
            # Key events were lost: start over from "all released"; keys still pressed
            # report again on the next scan, and the snapshot waits for that.
            events.clear()
            self.keys.reset()
            self.state = bytearray(len(self.state))
            self.overflows += 1
            self.settled_at = now + self.settle_ms
            self.next_snapshot = self.settled_at
            return
        while True:
            event = events.get()
            if event is None:
                return
            index = event.key_number
            bit = 1 << (index & 7)
            pressed = bool(event.pressed)
            if bool(self.state[index >> 3] & bit) == pressed:
                continue
            if pressed:
                self.state[index >> 3] |= bit
            else:
                self.state[index >> 3] &= ~bit & 0xFF
            self._send(protocol.SENSOR_CHANGE, protocol.encode_sensor_change(index, pressed, now))

    # -- host -> device --------------------------------------------------------------

    def _read_host(self, now):
        # type: (int) -> None
        if not self.connected:
            return
        waiting = self.serial.in_waiting
        if not waiting:
            return
        data = self.serial.read(waiting)
        if not data:
            return
        for msg_type, seq, payload in self.decoder.feed(data):
            if self.host_seq >= 0 and seq != (self.host_seq + 1) & 0xFF:
                self.rx_lost += (seq - self.host_seq - 1) & 0xFF
            self.host_seq = seq
            self.last_host = now
            if self.host_lost:
                self.host_lost = False
                self._playing(True)
                self.show_image()
            self._handle(msg_type, seq, payload, now)

    def _handle(self, msg_type, seq, payload, now):
        # type: (int, int, bytes, int) -> None
        try:
            if msg_type == protocol.PING:
                protocol.decode_empty(payload, "PING")
            elif msg_type == protocol.REQUEST_SNAPSHOT:
                protocol.decode_empty(payload, "REQUEST_SNAPSHOT")
                self.send_snapshot(now)
            elif msg_type == protocol.REQUEST_HELLO:
                protocol.decode_empty(payload, "REQUEST_HELLO")
                self.send_hello()
            elif msg_type == protocol.LED_FRAME:
                count, rgb = protocol.decode_led_frame(payload)
                if count > self.pixel_count:
                    self._error(protocol.ERR_PIXEL_RANGE, msg_type, seq)
                    return
                self.image[: len(rgb)] = rgb
                self.image[len(rgb) :] = bytes(len(self.image) - len(rgb))
                self.show_image()
            elif msg_type == protocol.LED_UPDATE:
                entries = protocol.decode_led_update(payload)
                for entry in entries:
                    if entry[0] >= self.pixel_count:
                        self._error(protocol.ERR_PIXEL_RANGE, msg_type, seq)
                        return
                self._update_image(entries)
            else:
                self._error(protocol.ERR_UNKNOWN_TYPE, msg_type, seq)
        except protocol.ProtocolError:
            self._error(protocol.ERR_BAD_PAYLOAD, msg_type, seq)

    def _error(self, code, msg_type, seq):
        # type: (int, int, int) -> None
        self._send(protocol.ERROR, protocol.encode_error(code, msg_type, seq))

    # -- pixels ----------------------------------------------------------------------

    def _update_image(self, entries):
        # type: (list[tuple[int, int, int, int]]) -> None
        image = self.image
        for index, red, green, blue in entries:
            offset = 3 * index
            image[offset] = red
            image[offset + 1] = green
            image[offset + 2] = blue
            if not self.host_lost:
                self.pixels[index] = (red, green, blue)
        if not self.host_lost:
            self._show()

    def show_image(self):
        # type: () -> None
        """Put the host's image on the strip."""
        image = self.image
        pixels = self.pixels
        for index in range(self.pixel_count):
            offset = 3 * index
            pixels[index] = (image[offset], image[offset + 1], image[offset + 2])
        self._show()

    def _show(self):
        # type: () -> None
        # The host scales every colour for brightness and its current limit (one place
        # owns both); the strip shows the values it was sent.
        self.pixels.brightness = 1.0
        self.pixels.show()

    def _show_lost(self, now):
        # type: (int) -> None
        """The "host lost" pattern: all dark but every ``lost_step``-th pixel, pulsing red."""
        half = self.lost_period_ms // 2
        phase = now % self.lost_period_ms
        ramp = phase if phase < half else self.lost_period_ms - phase
        level = 2 + (self.lost_level - 2) * ramp // half
        self.next_pulse = now + 40
        if level == self.pulse:
            return
        self.pulse = level
        pixels = self.pixels
        step = self.lost_step
        for index in range(self.pixel_count):
            pixels[index] = (level, 0, 0) if index % step == 0 else (0, 0, 0)
        pixels.brightness = 1.0
        pixels.show()
