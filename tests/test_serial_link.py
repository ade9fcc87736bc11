"""The firmware logic with stand-ins, and SerialLink against the simulated Pico over a pty.

The first half drives ``Firmware.step`` by hand with a fake clock (deterministic); the
second runs the real firmware logic in ``SimulatedPico``'s thread and the host's
``SerialLink`` on the other end of a pty (or a socket), as in mock mode.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from companion.board.firmware_sim import (
    NeoPixel,
    ShiftRegisterKeys,
    SimulatedPico,
    Strip,
    Switches,
    board_module,
)
from companion.board.serial_link import SerialLink
from companion.firmware import protocol as p
from companion.firmware.firmware import VERSION, Firmware

# -- the firmware logic, stepped by hand ---------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000

    def __call__(self) -> int:
        return self.now


class FakeSerial:
    """``usb_cdc.data`` with the host's end in the same object."""

    def __init__(self) -> None:
        self.connected = True
        self.rx = bytearray()
        self.tx = bytearray()
        self.seq = 0
        self.decoder = p.FrameDecoder()
        self.short_next: int | None = None

    @property
    def in_waiting(self) -> int:
        return len(self.rx)

    def read(self, size: int) -> bytes:
        data = bytes(self.rx[:size])
        del self.rx[:size]
        return data

    def write(self, data: bytes) -> int:
        if self.short_next is not None:  # usb_cdc: write_timeout ran out part way
            data, self.short_next = data[: self.short_next], None
        self.tx += data
        return len(data)

    def host_send(self, msg_type: int, payload: bytes = b"") -> bytes:
        frame = p.encode_frame(msg_type, self.seq, payload)
        self.seq = (self.seq + 1) & 0xFF
        self.rx += frame
        return frame

    def device_frames(self) -> list[tuple[int, int, bytes]]:
        frames = self.decoder.feed(bytes(self.tx))
        self.tx.clear()
        return frames


class Bench:
    """A firmware on the bench: 16 sensors on a 74HC165 stand-in, 8 GRB pixels."""

    def __init__(self, sensors: int = 16, pixels: int = 8, max_events: int = 64, **options: Any):
        board = board_module()
        self.switches = Switches(sensors)
        self.strip = Strip(pixels, "GRB")
        board.GP3.device = self.switches
        board.GP28.device = self.strip
        self.keys = ShiftRegisterKeys(
            clock=board.GP2,
            data=board.GP3,
            latch=board.GP4,
            key_count=sensors,
            value_when_pressed=False,
            max_events=max_events,
        )
        self.pixels = NeoPixel(board.GP28, pixels, auto_write=False, pixel_order="GRB")
        self.serial = FakeSerial()
        self.clock = FakeClock()
        options = {"settle_ms": 30, "heartbeat_ms": 500, "snapshot_ms": 2000, **options}
        self.firmware = Firmware(self.keys, self.pixels, self.serial, self.clock, **options)

    def run(self, ms: int, step_ms: int = 10) -> list[tuple[int, int, bytes]]:
        """Step the firmware for ``ms`` of fake time; the frames it sent meanwhile."""
        end = self.clock.now + ms
        while True:
            self.firmware.step()
            if self.clock.now >= end:
                break
            self.clock.now += step_ms
        return self.serial.device_frames()


def of_type(frames: list[tuple[int, int, bytes]], msg_type: int) -> list[bytes]:
    return [payload for kind, _, payload in frames if kind == msg_type]


def test_firmware_says_hello_then_a_snapshot_once_the_scans_settle() -> None:
    bench = Bench()
    bench.switches.set(5, True)
    first = bench.run(0)
    assert [kind for kind, _, _ in first[:1]] == [p.HELLO]
    assert p.decode_hello(first[0][2]) == (1, 16, 8, "GRB", VERSION)
    assert of_type(first, p.SNAPSHOT) == []  # not before the first scans settle
    frames = first + bench.run(40)
    (snapshot,) = of_type(frames, p.SNAPSHOT)
    assert p.unpack_states(*p.decode_snapshot(snapshot))[5] is True
    assert [seq for _, seq, _ in frames] == list(range(len(frames)))


def test_firmware_reports_changes_with_sequence_numbers_and_keeps_time() -> None:
    bench = Bench()
    bench.run(100)
    bench.switches.set(3, True)
    bench.switches.set(3, False)
    frames = bench.run(0)
    changes = [p.decode_sensor_change(x)[:2] for x in of_type(frames, p.SENSOR_CHANGE)]
    assert changes == [(3, True), (3, False)]
    frames = bench.run(2000)
    assert len(of_type(frames, p.HEARTBEAT)) == 4
    assert len(of_type(frames, p.SNAPSHOT)) == 1


def test_request_snapshot_and_request_hello_are_answered() -> None:
    bench = Bench()
    bench.run(100)
    bench.serial.host_send(p.REQUEST_SNAPSHOT)
    bench.serial.host_send(p.REQUEST_HELLO)
    frames = bench.run(0)
    assert [kind for kind, _, _ in frames] == [p.SNAPSHOT, p.HELLO]


def test_key_queue_overflow_starts_over_and_the_snapshot_waits_for_the_rescan() -> None:
    bench = Bench(max_events=4)
    bench.run(100)
    for index in range(6):  # more changes than the queue holds between two steps
        bench.switches.set(index, True)
    for index in range(3):
        bench.switches.set(index, False)
    frames = bench.run(0)
    assert of_type(frames, p.SNAPSHOT) == []
    assert bench.keys.events.overflowed is False
    frames = bench.run(60)
    changes = [p.decode_sensor_change(x)[:2] for x in of_type(frames, p.SENSOR_CHANGE)]
    assert changes == [(3, True), (4, True), (5, True)]  # re-reported after the reset
    snapshot = of_type(frames, p.SNAPSHOT)[-1]
    assert p.unpack_states(*p.decode_snapshot(snapshot))[:7] == [False] * 3 + [True] * 3 + [False]
    frames = bench.run(500)
    assert p.decode_heartbeat(of_type(frames, p.HEARTBEAT)[-1])[4] == 1


def test_led_frame_and_update_reach_the_strip_in_its_byte_order() -> None:
    bench = Bench()
    bench.run(10)
    rgb = bytes(range(24))
    bench.serial.host_send(p.LED_FRAME, p.encode_led_frame(rgb))
    bench.run(0)
    assert bench.strip.colors() == [tuple(rgb[i : i + 3]) for i in range(0, 24, 3)]
    bench.serial.host_send(p.LED_UPDATE, p.encode_led_update([(7, 200, 100, 50)]))
    bench.run(0)
    assert bench.strip.colors()[7] == (200, 100, 50)
    assert bench.strip._buffer[21:24] == bytes((100, 200, 50))  # GRB on the wire to the strip
    bench.serial.host_send(p.LED_FRAME, p.encode_led_frame(bytes((9, 9, 9))))
    bench.run(0)
    assert bench.strip.colors() == [(9, 9, 9)] + [(0, 0, 0)] * 7  # the rest goes dark


@pytest.mark.parametrize(
    ("msg_type", "payload", "code"),
    [
        (p.LED_FRAME, p.encode_led_frame(bytes(3 * 9)), p.ERR_PIXEL_RANGE),
        (p.LED_UPDATE, p.encode_led_update([(8, 1, 1, 1)]), p.ERR_PIXEL_RANGE),
        (p.LED_FRAME, b"\x00\x02\x01", p.ERR_BAD_PAYLOAD),
        (p.PING, b"x", p.ERR_BAD_PAYLOAD),
        (p.HELLO, b"", p.ERR_UNKNOWN_TYPE),
        (0x7F, b"", p.ERR_UNKNOWN_TYPE),
    ],
)
def test_frames_the_firmware_cannot_use_are_answered_with_error(
    msg_type: int, payload: bytes, code: int
) -> None:
    bench = Bench()
    bench.run(10)
    before = bench.strip.shows
    bench.serial.host_send(msg_type, payload)
    (error,) = of_type(bench.run(0), p.ERROR)
    assert p.decode_error(error) == (code, msg_type, bench.serial.seq - 1)
    # A valid frame ends "host lost" (the image, still dark, is shown); nothing else changes.
    assert bench.strip.shows == before + 1
    assert bench.strip.colors() == [(0, 0, 0)] * 8


def test_firmware_shows_the_hosts_colours_as_sent_brightness_is_the_hosts_alone() -> None:
    """One place owns brightness and the current limit (the host): the Pico adds none."""
    bench = Bench()
    bench.run(10)
    bench.serial.host_send(p.LED_FRAME, p.encode_led_frame(bytes([10, 200, 255]) * 8))
    bench.run(0)
    assert bench.strip.colors() == [(10, 200, 255)] * 8
    assert bench.pixels.brightness == 1.0


def test_a_frame_written_short_is_counted_and_the_next_one_resynchronises() -> None:
    """usb_cdc.data.write() returns what went out; a cut frame must not swallow the next."""
    bench = Bench()
    bench.run(200)
    bench.serial.short_next = 5  # the next write takes only 5 bytes
    bench.switches.set(3, True)
    bench.run(20)
    assert bench.firmware.tx_errors == 1
    bench.switches.set(4, True)
    frames = bench.run(20)
    changes = [p.decode_sensor_change(x)[:2] for x in of_type(frames, p.SENSOR_CHANGE)]
    assert changes == [(4, True)]  # the cut frame is dropped, the next arrives whole
    assert bench.serial.decoder.dropped == 1
    assert bench.firmware.tx_errors == 1 and not bench.firmware.resync


def test_the_firmware_says_when_a_game_is_played_and_when_the_host_is_lost() -> None:
    """code.py turns CircuitPython's autoreload off while playing, on again when lost."""
    calls: list[bool] = []
    bench = Bench(on_playing=calls.append, host_timeout_ms=3000)
    bench.run(100)
    assert calls == []
    bench.serial.host_send(p.PING)
    bench.run(10)
    assert calls == [True]
    bench.run(3200, step_ms=100)
    assert calls == [True, False]


def test_host_silence_shows_a_slow_red_pulse_and_the_image_comes_back() -> None:
    bench = Bench(pixels=30, host_timeout_ms=3000, lost_step=12)
    bench.run(10)
    blue = bytes((0, 0, 90)) * 30
    bench.serial.host_send(p.LED_FRAME, p.encode_led_frame(blue))
    bench.run(2900, step_ms=100)
    assert bench.strip.colors()[5] == (0, 0, 90)  # 2.9 s of silence: still the image
    bench.run(200)
    levels = set()
    for _ in range(40):
        bench.run(50)
        lit = bench.strip.colors()
        assert all(c == (0, 0, 0) for i, c in enumerate(lit) if i % 12)
        assert {lit[0], lit[12], lit[24]} == {lit[0]} and lit[0][1:] == (0, 0)
        levels.add(lit[0][0])
    assert len(levels) > 10 and max(levels) <= 48 and min(levels) >= 2
    bench.serial.host_send(p.PING)
    bench.run(0)
    assert bench.strip.colors() == [(0, 0, 90)] * 30


def test_firmware_survives_fuzzed_host_frames_and_shows_only_whole_ones() -> None:
    rng = random.Random(7)
    bench = Bench(pixels=20)
    bench.run(10)
    shown = bytes(60)
    for _ in range(5000):
        rgb = rng.randbytes(60)
        frame = bench.serial.host_send(p.LED_FRAME, p.encode_led_frame(rgb))
        del bench.serial.rx[-len(frame) :]
        kind = rng.randrange(4)
        if kind == 0:
            bench.serial.rx += frame
            shown = rgb
        elif kind == 1:
            bench.serial.rx += frame[: rng.randrange(1, len(frame) - 1)] + b"\x00"
        elif kind == 2:
            flipped = bytearray(frame[:-1])
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            bench.serial.rx += bytes(flipped) + b"\x00"
        else:
            bench.serial.rx += rng.randbytes(rng.randrange(1, 200)) + b"\x00"
        bench.clock.now += 1
        bench.firmware.step()
        assert bytes(bench.firmware.image) == shown
    frames = bench.serial.device_frames()
    heartbeat = p.decode_heartbeat(of_type(frames, p.HEARTBEAT)[-1])
    assert heartbeat[2] > 1000 and heartbeat[3] > 1000  # dropped, and lost by sequence


# -- SerialLink against the simulated Pico -------------------------------------------------

FAST: dict[str, Any] = {
    "heartbeat_ms": 100,
    "snapshot_ms": 500,
    "host_timeout_ms": 700,
    "settle_ms": 30,
}
LINK: dict[str, Any] = {
    "reconnect": (0.02, 0.2),
    "keepalive": 0.1,
    "silence": 0.5,
    "snapshot_retry": 0.1,
}


class Recorder:
    """Collects what SerialLink reports, in order, and waits for it."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []
        self.changed = threading.Condition()

    def event(self, index: int, pressed: bool, at: float) -> None:
        with self.changed:
            self.log.append(("event", index, pressed, at))
            self.changed.notify_all()

    def status(self, status: str) -> None:
        with self.changed:
            self.log.append(("status", status))
            self.changed.notify_all()

    def events(self) -> list[tuple[int, bool]]:
        return [(entry[1], entry[2]) for entry in self.log if entry[0] == "event"]

    def wait(self, predicate: Callable[[], bool], timeout: float = 3.0) -> bool:
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    def wait_event(self, index: int, pressed: bool, timeout: float = 3.0) -> bool:
        return self.wait(lambda: (index, pressed) in self.events(), timeout)

    def wait_status(self, status: str, timeout: float = 3.0) -> bool:
        return self.wait(lambda: ("status", status) in self.log[-1:], timeout)


@pytest.fixture
def pico() -> Iterator[SimulatedPico]:
    with SimulatedPico(**FAST, poll_s=0.002) as pico:
        yield pico


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def link(pico: SimulatedPico, recorder: Recorder) -> Iterator[SerialLink]:
    with SerialLink(pico.url, on_event=recorder.event, on_status=recorder.status, **LINK) as link:
        assert recorder.wait_status("connected")
        yield link


def test_hello_and_the_first_snapshot_arrive_before_connected(
    pico: SimulatedPico, recorder: Recorder
) -> None:
    pico.press(3)
    pico.press(150)
    with SerialLink(pico.url, on_event=recorder.event, on_status=recorder.status, **LINK) as link:
        assert recorder.wait_status("connected")
        assert link.connected
        assert link.device is not None
        assert (link.device.sensor_count, link.device.pixel_count) == (156, 152)
        assert link.device.pixel_order == "GRB" and link.device.firmware_version == VERSION
        assert [entry[:3] for entry in recorder.log] == [
            ("event", 3, True),
            ("event", 150, True),
            ("status", "connected"),
        ]
        assert link.states()[3] and link.states()[150] and sum(link.states()) == 2
    assert recorder.log[-1] == ("status", "disconnected")


def test_press_and_release_reach_on_event_with_the_receipt_time(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    before = time.monotonic()
    pico.press(10)
    assert recorder.wait_event(10, True)
    pico.release(10)
    assert recorder.wait_event(10, False)
    at = [entry[3] for entry in recorder.log if entry[0] == "event"]
    assert before <= at[0] <= at[1] <= time.monotonic()


def test_a_lost_frame_is_noticed_and_the_snapshot_is_the_truth(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    pico.serial.lose_frames(1)
    pico.press(7)  # its SENSOR_CHANGE never arrives
    assert recorder.wait_event(7, True, timeout=1.0)  # the next frame shows the gap
    stats = link.stats()
    assert stats["lost"] >= 1 and stats["snapshots"] >= 2 and stats["snapshot_requests"] >= 1
    assert link.connected


def test_line_noise_is_dropped_and_counted(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    pico.serial.inject(b"\x13\x37 line noise \xff\xfe\x00\x05\x05\x05\x00")
    pico.press(20)
    assert recorder.wait_event(20, True)
    assert link.stats()["corrupt_dropped"] >= 2
    assert recorder.events() == [(20, True)]
    assert link.connected


def test_led_frames_and_updates_are_shown_on_the_simulated_strip(
    pico: SimulatedPico, link: SerialLink
) -> None:
    colours = [(i, 255 - i, i // 2) for i in range(152)]
    assert link.send_frame(colours)
    assert pico.strip.wait_for(lambda lit: lit == colours)
    assert link.send_update([(0, 1, 2, 3), (151, 4, 5, 6)])
    assert pico.strip.wait_for(lambda lit: lit[0] == (1, 2, 3) and lit[151] == (4, 5, 6))
    assert link.stats()["device_errors"] == 0


def test_unplug_marks_disconnected_and_replug_resyncs_losing_nothing(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    link.send_frame(bytes((0, 40, 0)) * 152)
    pico.press(1)
    assert recorder.wait_event(1, True)
    pico.unplug()
    assert recorder.wait_status("disconnected")
    assert not link.connected
    pico.press(2)  # the figures move while the cable is out
    pico.release(1)
    time.sleep(0.3)
    assert recorder.events() == [(1, True)]
    pico.replug()
    assert recorder.wait_status("connected")
    # The SNAPSHOT's differences first, then "connected": the board is whole again.
    assert [entry[:3] for entry in recorder.log[-3:]] == [
        ("event", 1, False),
        ("event", 2, True),
        ("status", "connected"),
    ]
    assert link.stats()["reconnects"] >= 1
    assert pico.strip.wait_for(lambda lit: lit == [(0, 40, 0)] * 152)


def test_firmware_reset_mid_game_resyncs_without_a_false_event(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    link.send_frame(bytes((30, 0, 30)) * 152)
    pico.press(4)
    assert recorder.wait_event(4, True)
    pico.reset()  # code.py restarts: all keys "released", HELLO, seq from 0, strip pulses
    pico.press(9)
    assert recorder.wait_event(9, True)
    assert recorder.wait(lambda: link.stats()["hellos"] >= 2)
    assert pico.strip.wait_for(lambda lit: lit == [(30, 0, 30)] * 152)
    time.sleep(0.2)
    assert recorder.events() == [(4, True), (9, True)]  # 4 never "released" by the reset
    assert link.connected and link.states()[4]


def test_a_silent_device_is_disconnected_until_it_speaks_and_resyncs(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    pico.pause()  # the firmware hangs; the USB port stays open
    pico.press(30)
    assert recorder.wait_status("disconnected", timeout=2.0)
    assert recorder.events() == []
    pico.resume()
    assert recorder.wait_status("connected", timeout=2.0)
    assert recorder.events() == [(30, True)]
    assert link.stats()["reconnects"] == 0  # the port was never lost


def test_host_silence_puts_the_strip_in_the_lost_pattern(
    pico: SimulatedPico, link: SerialLink
) -> None:
    link.send_frame(bytes((0, 0, 200)) * 152)
    assert pico.strip.wait_for(lambda lit: lit[1] == (0, 0, 200))
    link.close()  # the host falls silent
    started = time.monotonic()

    def lost(lit: list[tuple[int, int, int]]) -> bool:
        pattern = all(c == (0, 0, 0) for i, c in enumerate(lit) if i % 12)
        return pattern and all(lit[i][0] > 0 and lit[i][1:] == (0, 0) for i in range(0, 152, 12))

    assert pico.strip.wait_for(lost, timeout=2.0)
    assert 0.6 <= time.monotonic() - started <= 1.5
    levels = set()
    for _ in range(20):
        time.sleep(0.05)
        levels.add(pico.strip.colors()[0][0])
    assert len(levels) > 3  # it pulses
    with SerialLink(pico.url, on_event=lambda *_: None, **LINK):
        assert pico.strip.wait_for(lambda lit: lit == [(0, 0, 200)] * 152)


def test_socket_transport_connects_and_reconnects(recorder: Recorder) -> None:
    with (
        SimulatedPico(**FAST, transport="socket") as pico,
        SerialLink(pico.url, on_event=recorder.event, on_status=recorder.status, **LINK),
    ):
        assert pico.url.startswith("socket://127.0.0.1:")
        assert recorder.wait_status("connected")
        pico.press(42)
        assert recorder.wait_event(42, True)
        pico.unplug()
        assert recorder.wait_status("disconnected")
        pico.release(42)
        pico.replug()
        assert recorder.wait_status("connected")
        assert recorder.events() == [(42, True), (42, False)]


def test_a_missing_port_is_retried_with_exponential_backoff(recorder: Recorder) -> None:
    with SerialLink(
        "/nonexistent/ttyACM9",
        on_event=recorder.event,
        on_status=recorder.status,
        reconnect=(0.02, 0.16),
    ) as link:
        time.sleep(0.75)  # tries at 0, .02, .06, .14, .30, .46, .62: 7
        failures = link.stats()["open_failures"]
    assert 5 <= failures <= 8
    assert not link.connected and recorder.log == []


def test_from_config_builds_the_board_of_the_reference_design() -> None:
    from companion.board.config import example_config_text, parse_config

    config = parse_config(example_config_text("reference-2-pico"))
    with SimulatedPico.from_config(config, **FAST) as pico:
        assert pico.firmware.sensor_count == config.sensors.count == 156
        assert pico.firmware.pixel_count == config.leds.count == 152
        assert pico.strip.pixel_order == config.leds.byte_order


# -- figures -----------------------------------------------------------------------------


def _grew(log: list[tuple[Any, ...]], count: int) -> bool:
    return len(log) > count


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def test_figures_led_frame_cost_and_event_latency_over_a_pty(
    pico: SimulatedPico, link: SerialLink, recorder: Recorder
) -> None:
    """Bytes and time per 152-pixel frame, and press -> on_event latency (printed, -s)."""
    rng = random.Random(1)
    wire = [
        len(p.encode_frame(p.LED_FRAME, 0, p.encode_led_frame(rgb)))
        for rgb in (bytes(456), bytes([255]) * 456, rng.randbytes(456))
    ]
    # USB full speed: 12 Mbit/s raw; CDC bulk in practice ~1 MB/s (19 x 64-byte packets
    # per 1 ms frame at best, fewer with a busy host); the firmware's own work is extra.
    raw_ms = max(wire) * 8 / 12e6 * 1e3
    bulk_ms = max(wire) / 1e6 * 1e3

    frame_ms = []
    for n in range(60):
        colours = [((n + i) % 256, 7, 9) for i in range(152)]
        sent = time.monotonic()
        link.send_frame(colours)
        assert pico.strip.wait_for(colours.__eq__)
        frame_ms.append((pico.strip.shown_at - sent) * 1e3)

    latency_ms = []
    for n in range(300):
        index = n % 156
        for pressed in (True, False):
            count = len(recorder.log)
            started = time.monotonic()
            pico.set(index, pressed)
            assert recorder.wait(partial(_grew, recorder.log, count))
            latency_ms.append((recorder.log[-1][3] - started) * 1e3)
    assert len(latency_ms) == 600 and recorder.events()[-1] == (299 % 156, False)

    print(
        f"\nLED_FRAME, 152 pixels: {min(wire)}-{max(wire)} bytes on the wire "
        f"(458 payload + type, seq, CRC, COBS, delimiter); at USB full speed "
        f"{raw_ms:.2f} ms raw (12 Mbit/s), {bulk_ms:.2f} ms at ~1 MB/s CDC bulk\n"
        f"send_frame -> simulated strip over a pty: p50 {statistics.median(frame_ms):.2f} ms, "
        f"p99 {_percentile(frame_ms, 0.99):.2f} ms (n={len(frame_ms)})\n"
        f"press -> on_event over a pty: p50 {statistics.median(latency_ms):.2f} ms, "
        f"p99 {_percentile(latency_ms, 0.99):.2f} ms, max {max(latency_ms):.2f} ms "
        f"(n={len(latency_ms)})"
    )
    assert max(wire) <= 466
    # Sanity bounds only, on the median (a busy CI machine stretches the tail): the
    # figures a player waits on are ``companion bench --only serial``'s.
    assert statistics.median(latency_ms) < 50
    assert statistics.median(frame_ms) < 50


@pytest.mark.parametrize(
    ("protocol_version", "firmware", "says"),
    [
        (p.PROTOCOL_VERSION + 1, VERSION, f"speaks protocol {p.PROTOCOL_VERSION + 1}"),
        (p.PROTOCOL_VERSION, "0.9.0", f"0.9.0 is older than the {VERSION}"),
    ],
)
def test_a_board_of_another_protocol_or_an_older_firmware_is_refused(
    protocol_version: int, firmware: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link never plays with it, and the message says how to update the board."""
    real_encode = p.encode_hello
    monkeypatch.setattr(  # the firmware's HELLO, as an other protocol's firmware sends it
        p, "encode_hello", lambda *args: bytes([protocol_version]) + real_encode(*args)[1:]
    )
    recorder = Recorder()
    with SimulatedPico(**FAST, poll_s=0.002) as pico:
        pico.press(7)
        pico.firmware.version = firmware
        with SerialLink(
            pico.url, on_event=recorder.event, on_status=recorder.status, **LINK
        ) as link:
            deadline = time.monotonic() + 3
            while not link.tracker.hellos and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.6)  # snapshots and heartbeats keep arriving; none of them count
            assert link.tracker.hellos and link.stats()["frames_ok"] > 3
            assert not link.connected and recorder.log == []
            assert not any(link.states())
            refused = link.stats()["refused"]
            assert says in refused and "companion firmware install" in refused
