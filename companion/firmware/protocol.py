"""The wire protocol between the companion (host) and the board firmware, defined once.

This one file is the whole definition: the host imports it as companion.firmware.protocol
and ``companion firmware install`` copies it to the Pico, where firmware.py imports it.  It
is written in the Python both run: no typing, dataclasses or enum at runtime (the type
comments are for mypy only), only ``struct`` from the standard library.

A frame on the wire is ``COBS(type u8, seq u8, payload, crc16 u16 big-endian)`` followed
by one 0x00 byte; the CRC is CRC-16/CCITT-FALSE over the length of type, seq and payload
(u16, not sent) and then those bytes.  Every
message and its bytes are described in firmware/PROTOCOL.md.
"""

import struct

try:  # CPython has a C CRC-16/CCITT; CircuitPython's binascii does not.
    from binascii import crc_hqx as _crc_hqx
except ImportError:
    _crc_hqx = None  # type: ignore[assignment]

try:  # noqa: SIM105 (no contextlib on CircuitPython) - for the type comments only
    from collections.abc import Sequence  # noqa: F401
except ImportError:
    pass

PROTOCOL_VERSION = 1

# Device -> host
HELLO = 0x01
SNAPSHOT = 0x02
SENSOR_CHANGE = 0x03
HEARTBEAT = 0x04
ERROR = 0x05
# Host -> device
PING = 0x10
REQUEST_SNAPSHOT = 0x11
REQUEST_HELLO = 0x12
LED_FRAME = 0x13
LED_UPDATE = 0x14

MESSAGE_NAMES = {
    HELLO: "HELLO",
    SNAPSHOT: "SNAPSHOT",
    SENSOR_CHANGE: "SENSOR_CHANGE",
    HEARTBEAT: "HEARTBEAT",
    ERROR: "ERROR",
    PING: "PING",
    REQUEST_SNAPSHOT: "REQUEST_SNAPSHOT",
    REQUEST_HELLO: "REQUEST_HELLO",
    LED_FRAME: "LED_FRAME",
    LED_UPDATE: "LED_UPDATE",
}
DEVICE_MESSAGES = (HELLO, SNAPSHOT, SENSOR_CHANGE, HEARTBEAT, ERROR)
HOST_MESSAGES = (PING, REQUEST_SNAPSHOT, REQUEST_HELLO, LED_FRAME, LED_UPDATE)

# ERROR codes (device -> host)
ERR_UNKNOWN_TYPE = 1  # a frame type the device does not accept
ERR_BAD_PAYLOAD = 2  # the payload does not match its type
ERR_PIXEL_RANGE = 3  # more pixels, or a higher index, than the strip has

#: Largest payload: a 340-pixel LED_FRAME (2 + 1020 bytes) or a 4096-sensor SNAPSHOT.
MAX_PAYLOAD = 1024
#: Largest decoded frame: type, seq, payload, crc.
MAX_BODY = MAX_PAYLOAD + 4
#: Largest COBS-encoded frame (without its 0x00 delimiter).
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1
#: Most pixels in one LED_FRAME and most entries in one LED_UPDATE.
MAX_FRAME_PIXELS = (MAX_PAYLOAD - 2) // 3
MAX_UPDATE_ENTRIES = MAX_PAYLOAD // 5
#: Longest firmware version string in HELLO.
MAX_VERSION_BYTES = 64

_ZERO = b"\x00"


class ProtocolError(ValueError):
    """Bytes that are not a valid frame or payload (counted and dropped, never fatal)."""


# -- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) -----------


def _crc_table():
    # type: () -> tuple[int, ...]
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16_pure(data, crc=0xFFFF):
    # type: (bytes | bytearray | memoryview, int) -> int
    """CRC-16/CCITT-FALSE with a 256-entry table; what the firmware runs on the Pico."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def crc16(data, crc=0xFFFF):
    # type: (bytes | bytearray | memoryview, int) -> int
    """CRC-16/CCITT-FALSE of ``data`` (``crc16(b"123456789") == 0x29B1``)."""
    if _crc_hqx is not None:
        return _crc_hqx(data, crc)
    return crc16_pure(data, crc)


def frame_crc(data):
    # type: (bytes | bytearray | memoryview) -> int
    """The CRC a frame carries: CRC-16/CCITT-FALSE over ``len(data)`` (u16, not sent) and
    ``data`` (type, seq, payload).  Covering the length makes a frame that lost trailing
    bytes fail the check; without it, a frame whose payload and CRC end in 0x00 still
    passes when COBS framing drops its final zero (the fuzzer finds those)."""
    size = len(data)
    return crc16(data, crc16(bytes((size >> 8, size & 0xFF))))


# -- COBS ----------------------------------------------------------------------------------


def cobs_encode(data):
    # type: (bytes | bytearray) -> bytes
    """Consistent Overhead Byte Stuffing: ``data`` without any 0x00 byte, +1 byte per 254."""
    data = bytes(data)
    out = bytearray()
    size = len(data)
    pos = 0
    while True:
        zero = data.find(_ZERO, pos)
        if zero < 0:
            zero = size
        while zero - pos >= 254:
            out.append(0xFF)
            out += data[pos : pos + 254]
            pos += 254
        out.append(zero - pos + 1)
        out += data[pos:zero]
        if zero >= size:
            return bytes(out)
        pos = zero + 1


def cobs_decode(data):
    # type: (bytes | bytearray) -> bytes
    """Undo ``cobs_encode``; raise ProtocolError for a zero byte or a block cut short."""
    data = bytes(data)
    out = bytearray()
    size = len(data)
    pos = 0
    while pos < size:
        code = data[pos]
        if code == 0:
            raise ProtocolError("zero byte inside a COBS frame")
        end = pos + code
        if end > size:
            raise ProtocolError("COBS block runs past the end of the frame")
        block = data[pos + 1 : end]
        if block.find(_ZERO) >= 0:
            raise ProtocolError("zero byte inside a COBS block")
        out += block
        pos = end
        if code < 0xFF and pos < size:
            out.append(0)
    return bytes(out)


# -- frames --------------------------------------------------------------------------------


def encode_frame(msg_type, seq, payload=b""):
    # type: (int, int, bytes | bytearray) -> bytes
    """The bytes to send for one message, 0x00 delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {len(payload)} bytes is over {MAX_PAYLOAD}")
    body = bytearray(2 + len(payload) + 2)
    body[0] = msg_type & 0xFF
    body[1] = seq & 0xFF
    body[2 : 2 + len(payload)] = payload
    crc = frame_crc(memoryview(body)[: 2 + len(payload)])
    body[-2] = crc >> 8
    body[-1] = crc & 0xFF
    return cobs_encode(body) + _ZERO


def decode_frame(encoded):
    # type: (bytes | bytearray) -> tuple[int, int, bytes]
    """``(type, seq, payload)`` of one COBS-encoded frame given without its 0x00."""
    if len(encoded) > MAX_ENCODED:
        raise ProtocolError("frame too long")
    body = cobs_decode(encoded)
    if len(body) < 4:
        raise ProtocolError("frame too short")
    if frame_crc(body[:-2]) != (body[-2] << 8) | body[-1]:
        raise ProtocolError("bad CRC")
    return body[0], body[1], body[2:-2]


class FrameDecoder:
    """Splits a byte stream into frames; corrupt frames are counted and dropped.

    A receiver can start anywhere and survive any garbage: whatever precedes the next
    0x00 is one candidate frame, kept only if it decodes and its CRC matches.
    """

    def __init__(self):
        # type: () -> None
        self._buffer = bytearray()
        self._discarding = False
        self.frames = 0  # type: int
        self.bad_cobs = 0  # type: int
        self.bad_crc = 0  # type: int
        self.too_long = 0  # type: int
        self.too_short = 0  # type: int

    @property
    def dropped(self):
        # type: () -> int
        """Candidate frames thrown away, for any reason."""
        return self.bad_cobs + self.bad_crc + self.too_long + self.too_short

    def reset(self):
        # type: () -> None
        """Forget a partly received frame (after a reconnect); the counters stay."""
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data):
        # type: (bytes | bytearray | memoryview) -> list[tuple[int, int, bytes]]
        """Take received bytes; return the ``(type, seq, payload)`` of each complete frame."""
        if not isinstance(data, bytes):
            data = bytes(data)
        frames = []  # type: list[tuple[int, int, bytes]]
        size = len(data)
        pos = 0
        while pos < size:
            end = data.find(_ZERO, pos)
            if end < 0:
                self._keep(data[pos:])
                break
            if self._discarding:
                self._discarding = False
            elif self._buffer:
                self._keep(data[pos:end])
                if not self._discarding:
                    self._frame(bytes(self._buffer), frames)
                self._discarding = False
            elif end > pos:
                self._frame(data[pos:end], frames)
            self._buffer = bytearray()
            pos = end + 1
        return frames

    def _keep(self, chunk):
        # type: (bytes) -> None
        if self._discarding:
            return
        if len(self._buffer) + len(chunk) > MAX_ENCODED:
            self.too_long += 1
            self._discarding = True
            self._buffer = bytearray()
            return
        self._buffer += chunk

    def _frame(self, encoded, frames):
        # type: (bytes, list[tuple[int, int, bytes]]) -> None
        if len(encoded) > MAX_ENCODED:
            self.too_long += 1
            return
        try:
            body = cobs_decode(encoded)
        except ProtocolError:
            self.bad_cobs += 1
            return
        if len(body) < 4:
            self.too_short += 1
            return
        if frame_crc(body[:-2]) != (body[-2] << 8) | body[-1]:
            self.bad_crc += 1
            return
        self.frames += 1
        frames.append((body[0], body[1], body[2:-2]))


# -- messages ------------------------------------------------------------------------------
# Multi-byte integers are big-endian.  Each decode_* raises ProtocolError on a payload that
# does not match its type exactly (wrong length, out-of-range value).


def _need(payload, size, name):
    # type: (bytes | bytearray, int, str) -> None
    if len(payload) != size:
        raise ProtocolError(f"{name} payload must be {size} bytes, not {len(payload)}")


def decode_empty(payload, name="message"):
    # type: (bytes | bytearray, str) -> None
    """PING, REQUEST_SNAPSHOT and REQUEST_HELLO carry no payload."""
    _need(payload, 0, name)


def encode_hello(firmware_version, sensor_count, pixel_count, pixel_order="RGB", protocol=None):
    # type: (str, int, int, str, int | None) -> bytes
    """HELLO: protocol u8, sensors u16, pixels u16, pixel order 4 ASCII, version UTF-8."""
    if protocol is None:
        protocol = PROTOCOL_VERSION
    order = pixel_order.encode("utf-8")
    if len(order) > 4:
        raise ProtocolError("pixel order is at most 4 letters")
    version = firmware_version.encode("utf-8")[:MAX_VERSION_BYTES]
    head = struct.pack(">BHH", protocol, sensor_count, pixel_count)
    return head + order + b" " * (4 - len(order)) + version


def decode_hello(payload):
    # type: (bytes | bytearray) -> tuple[int, int, int, str, str]
    """``(protocol, sensor_count, pixel_count, pixel_order, firmware_version)``."""
    if len(payload) < 9 or len(payload) > 9 + MAX_VERSION_BYTES:
        raise ProtocolError(f"HELLO payload must be 9 to {9 + MAX_VERSION_BYTES} bytes")
    protocol, sensors, pixels = struct.unpack(">BHH", bytes(payload[:5]))
    try:
        order = bytes(payload[5:9]).decode("utf-8").strip()
        version = bytes(payload[9:]).decode("utf-8")
    except UnicodeError:
        raise ProtocolError("HELLO text is not ASCII/UTF-8") from None
    return protocol, sensors, pixels, order, version


def pack_states(states):
    # type: (Sequence[bool] | Sequence[int]) -> bytearray
    """Bitmask of pressed sensors: sensor i is bit ``i % 8`` (LSB first) of byte ``i // 8``."""
    mask = bytearray((len(states) + 7) // 8)
    for index in range(len(states)):
        if states[index]:
            mask[index >> 3] |= 1 << (index & 7)
    return mask


def unpack_states(count, mask):
    # type: (int, bytes | bytearray) -> list[bool]
    """The pressed state of each of ``count`` sensors from a bitmask."""
    return [bool(mask[i >> 3] & (1 << (i & 7))) for i in range(count)]


def encode_snapshot(sensor_count, mask):
    # type: (int, bytes | bytearray) -> bytes
    """SNAPSHOT: sensor count u16, then ``ceil(count / 8)`` bytes of pressed bits."""
    if len(mask) != (sensor_count + 7) // 8:
        raise ProtocolError("mask length does not match the sensor count")
    return struct.pack(">H", sensor_count) + bytes(mask)


def decode_snapshot(payload):
    # type: (bytes | bytearray) -> tuple[int, bytes]
    """``(sensor_count, mask)``; bits past the last sensor must be zero."""
    if len(payload) < 2:
        raise ProtocolError("SNAPSHOT payload too short")
    count = (payload[0] << 8) | payload[1]
    _need(payload, 2 + (count + 7) // 8, "SNAPSHOT")
    mask = bytes(payload[2:])
    if count & 7 and mask[-1] >> (count & 7):
        raise ProtocolError("SNAPSHOT has bits set past its last sensor")
    return count, mask


def encode_sensor_change(index, pressed, time_ms):
    # type: (int, bool, int) -> bytes
    """SENSOR_CHANGE: index u16, pressed u8 (1 pressed, 0 released), device time ms u32."""
    return struct.pack(">HBI", index, 1 if pressed else 0, time_ms & 0xFFFFFFFF)


def decode_sensor_change(payload):
    # type: (bytes | bytearray) -> tuple[int, bool, int]
    """``(index, pressed, time_ms)``."""
    _need(payload, 7, "SENSOR_CHANGE")
    index, pressed, time_ms = struct.unpack(">HBI", bytes(payload))
    if pressed > 1:
        raise ProtocolError("SENSOR_CHANGE pressed must be 0 or 1")
    return index, pressed == 1, time_ms


def encode_heartbeat(uptime_ms, rx_frames, rx_dropped, rx_lost, overflows):
    # type: (int, int, int, int, int) -> bytes
    """HEARTBEAT: uptime ms u32, then u16 counters (wrapping) of frames from the host
    received, dropped as corrupt and lost (sequence gaps), and key event queue overflows."""
    return struct.pack(
        ">IHHHH",
        uptime_ms & 0xFFFFFFFF,
        rx_frames & 0xFFFF,
        rx_dropped & 0xFFFF,
        rx_lost & 0xFFFF,
        overflows & 0xFFFF,
    )


def decode_heartbeat(payload):
    # type: (bytes | bytearray) -> tuple[int, int, int, int, int]
    """``(uptime_ms, rx_frames, rx_dropped, rx_lost, overflows)``."""
    _need(payload, 12, "HEARTBEAT")
    values = struct.unpack(">IHHHH", bytes(payload))
    return values[0], values[1], values[2], values[3], values[4]


def encode_error(code, about_type, about_seq):
    # type: (int, int, int) -> bytes
    """ERROR: code u8, type u8 and seq u8 of the host frame it is about."""
    return bytes((code & 0xFF, about_type & 0xFF, about_seq & 0xFF))


def decode_error(payload):
    # type: (bytes | bytearray) -> tuple[int, int, int]
    """``(code, about_type, about_seq)``."""
    _need(payload, 3, "ERROR")
    return payload[0], payload[1], payload[2]


def encode_led_frame(rgb):
    # type: (bytes | bytearray) -> bytes
    """LED_FRAME: pixel count u16, then R, G, B per pixel (always RGB on the wire)."""
    if len(rgb) % 3:
        raise ProtocolError("LED_FRAME colours must be 3 bytes per pixel")
    count = len(rgb) // 3
    if count > MAX_FRAME_PIXELS:
        raise ProtocolError(f"LED_FRAME holds at most {MAX_FRAME_PIXELS} pixels")
    return struct.pack(">H", count) + bytes(rgb)


def decode_led_frame(payload):
    # type: (bytes | bytearray) -> tuple[int, bytes]
    """``(pixel_count, rgb)``."""
    if len(payload) < 2:
        raise ProtocolError("LED_FRAME payload too short")
    count = (payload[0] << 8) | payload[1]
    _need(payload, 2 + 3 * count, "LED_FRAME")
    return count, bytes(payload[2:])


def encode_led_update(entries):
    # type: (Sequence[tuple[int, int, int, int]]) -> bytes
    """LED_UPDATE: for each changed pixel, index u16 then R, G, B."""
    if len(entries) > MAX_UPDATE_ENTRIES:
        raise ProtocolError(f"LED_UPDATE holds at most {MAX_UPDATE_ENTRIES} pixels")
    out = bytearray(5 * len(entries))
    pos = 0
    for index, red, green, blue in entries:
        struct.pack_into(">HBBB", out, pos, index, red, green, blue)
        pos += 5
    return bytes(out)


def decode_led_update(payload):
    # type: (bytes | bytearray) -> list[tuple[int, int, int, int]]
    """``[(index, r, g, b), ...]``."""
    if len(payload) % 5:
        raise ProtocolError("LED_UPDATE payload must be 5 bytes per pixel")
    entries = []
    for pos in range(0, len(payload), 5):
        index = (payload[pos] << 8) | payload[pos + 1]
        entries.append((index, payload[pos + 2], payload[pos + 3], payload[pos + 4]))
    return entries


def describe(msg_type, seq, payload):
    # type: (int, int, bytes | bytearray) -> str
    """One line for people: ``#12 SENSOR_CHANGE index=5 pressed=True t=1234``."""
    name = MESSAGE_NAMES.get(msg_type, f"TYPE_0x{msg_type:02X}")
    try:
        if msg_type == HELLO:
            proto, sensors, pixels, order, version = decode_hello(payload)
            text = f"protocol={proto} sensors={sensors} pixels={pixels} order={order}"
            text += f" version={version}"
        elif msg_type == SNAPSHOT:
            count, mask = decode_snapshot(payload)
            pressed = [i for i, on in enumerate(unpack_states(count, mask)) if on]
            text = f"sensors={count} pressed={pressed}"
        elif msg_type == SENSOR_CHANGE:
            index, down, time_ms = decode_sensor_change(payload)
            text = f"index={index} pressed={down} t={time_ms}"
        elif msg_type == HEARTBEAT:
            up, frames, dropped, lost, overflows = decode_heartbeat(payload)
            text = f"uptime={up} rx={frames} dropped={dropped} lost={lost} overflows={overflows}"
        elif msg_type == ERROR:
            code, about, about_seq = decode_error(payload)
            text = f"code={code} about_type=0x{about:02X} about_seq={about_seq}"
        elif msg_type == LED_FRAME:
            text = f"pixels={decode_led_frame(payload)[0]}"
        elif msg_type == LED_UPDATE:
            text = f"pixels={len(decode_led_update(payload))}"
        else:
            text = f"{len(payload)} bytes"
    except ProtocolError as exc:
        text = f"bad payload ({exc})"
    return f"#{seq} {name} {text}"
