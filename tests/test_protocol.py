"""The wire protocol (companion/firmware/protocol.py): framing, messages, a fuzzer."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.board.serial_link import DeviceTracker
from companion.firmware import protocol as p
from companion.firmware.firmware import VERSION as FIRMWARE_VERSION

ROOT = Path(__file__).resolve().parents[1]


def test_the_firmware_exists_once_in_the_repository() -> None:
    """The host imports companion/firmware/ and the installer copies it: no second copy."""
    firmware = ROOT / "companion" / "firmware"
    sources = {path.read_bytes(): path for path in firmware.glob("*.py")}
    names = {path.name for path in sources.values()}
    assert {"protocol.py", "firmware.py", "code.py", "boot.py"} <= names
    skip = {".venv", ".git", "node_modules", ".mypy_cache", ".pytest_cache"}
    for path in ROOT.rglob("*.py"):
        if skip & set(path.relative_to(ROOT).parts) or path.parent == firmware:
            continue
        assert path.read_bytes() not in sources or path.stat().st_size == 0, (
            f"{path} copies {sources[path.read_bytes()]}"
        )


# -- CRC and COBS ------------------------------------------------------------------------


def test_crc16_ccitt_false_check_value() -> None:
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16_pure(b"123456789") == 0x29B1
    assert p.crc16(b"") == 0xFFFF


@given(st.binary(max_size=2000))
def test_table_crc_matches_the_c_crc(data: bytes) -> None:
    assert p.crc16_pure(data) == p.crc16(data)


@given(st.binary(max_size=3000))
def test_cobs_round_trip(data: bytes) -> None:
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert p.cobs_decode(encoded) == data


@pytest.mark.parametrize("size", [0, 1, 253, 254, 255, 507, 508, 509, 1028])
@pytest.mark.parametrize("fill", [0x00, 0x01, 0xFF])
def test_cobs_block_edges(size: int, fill: int) -> None:
    data = bytes([fill]) * size
    assert p.cobs_decode(p.cobs_encode(data)) == data


@pytest.mark.parametrize("bad", [b"\x00", b"\x05\x01\x02", b"\x03\x01\x00", b"\x02"])
def test_cobs_rejects_malformed(bad: bytes) -> None:
    if bad == b"\x02":  # a block that promises one byte more than there is
        with pytest.raises(p.ProtocolError):
            p.cobs_decode(bad)
        return
    with pytest.raises(p.ProtocolError):
        p.cobs_decode(bad)


# -- frames ------------------------------------------------------------------------------

types = st.integers(0, 255)
seqs = st.integers(0, 255)
payloads = st.binary(max_size=p.MAX_PAYLOAD)


@given(types, seqs, payloads)
def test_frame_round_trip(msg_type: int, seq: int, payload: bytes) -> None:
    frame = p.encode_frame(msg_type, seq, payload)
    assert frame.endswith(b"\x00") and 0 not in frame[:-1]
    assert len(frame) <= p.MAX_ENCODED + 1
    assert p.decode_frame(frame[:-1]) == (msg_type, seq, payload)
    assert p.FrameDecoder().feed(frame) == [(msg_type, seq, payload)]


def test_payload_over_the_limit_is_refused() -> None:
    with pytest.raises(p.ProtocolError):
        p.encode_frame(p.LED_FRAME, 0, bytes(p.MAX_PAYLOAD + 1))


def test_limits_hold_a_152_pixel_frame_and_a_256_sensor_snapshot() -> None:
    frame = p.encode_frame(p.LED_FRAME, 0, p.encode_led_frame(bytes(3 * 152)))
    assert len(p.encode_led_frame(bytes(3 * 152))) == 458
    assert len(frame) <= p.MAX_ENCODED + 1
    snapshot = p.encode_snapshot(256, bytes(32))
    assert len(snapshot) == 34
    assert p.MAX_FRAME_PIXELS >= 152
    p.encode_snapshot(4096, bytes(512))  # the config's largest board still fits


frames = st.lists(st.tuples(types, seqs, st.binary(max_size=300)), max_size=8)


@given(frames, st.lists(st.integers(0, 4000), max_size=10))
def test_decoder_is_indifferent_to_chunking(
    sent: list[tuple[int, int, bytes]], cuts: list[int]
) -> None:
    stream = b"".join(p.encode_frame(*frame) for frame in sent)
    decoder = p.FrameDecoder()
    got: list[tuple[int, int, bytes]] = []
    last = 0
    for cut in sorted(c % (len(stream) + 1) for c in cuts):
        got += decoder.feed(stream[last:cut])
        last = cut
    got += decoder.feed(stream[last:])
    assert got == sent
    assert decoder.dropped == 0


@given(st.binary(max_size=2000), types, seqs, st.binary(max_size=200))
def test_decoder_resynchronises_after_garbage(
    garbage: bytes, msg_type: int, seq: int, payload: bytes
) -> None:
    decoder = p.FrameDecoder()
    decoder.feed(garbage)
    # A receiver loses at most the frame the garbage ran into; the next one comes through.
    frame = p.encode_frame(msg_type, seq, payload)
    got = decoder.feed(frame + frame)
    assert got[-1] == (msg_type, seq, payload)


def test_decoder_counts_each_kind_of_bad_frame() -> None:
    decoder = p.FrameDecoder()
    good = p.encode_frame(p.PING, 1)
    flipped = bytearray(p.encode_frame(p.PING, 2, b"abc"))
    flipped[3] ^= 0x10
    stream = (
        b"\x05\x01\x00"  # bad COBS: a block that runs past the frame
        + b"\x02\x07\x00"  # too short once decoded
        + bytes(flipped)  # bad CRC
        + b"\x01" * (p.MAX_ENCODED + 50)
        + b"\x00"  # too long
        + good
    )
    assert decoder.feed(stream) == [(p.PING, 1, b"")]
    assert (decoder.bad_cobs, decoder.too_short, decoder.bad_crc, decoder.too_long) == (1, 1, 1, 1)
    assert decoder.dropped == 4 and decoder.frames == 1


def test_too_long_counts_once_across_chunks() -> None:
    decoder = p.FrameDecoder()
    for _ in range(20):
        assert decoder.feed(b"\x01" * 500) == []
    assert decoder.feed(b"\x00" + p.encode_frame(p.PING, 9)) == [(p.PING, 9, b"")]
    assert decoder.too_long == 1


# -- messages ----------------------------------------------------------------------------


@given(
    st.text(max_size=20),
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFF),
    st.sampled_from(["RGB", "GRB", "GRBW", "BGR"]),
)
def test_hello_round_trip(version: str, sensors: int, pixels: int, order: str) -> None:
    payload = p.encode_hello(version, sensors, pixels, order)
    assert p.decode_hello(payload) == (p.PROTOCOL_VERSION, sensors, pixels, order, version)


@given(st.lists(st.booleans(), max_size=4096))
def test_snapshot_round_trip(states: list[bool]) -> None:
    payload = p.encode_snapshot(len(states), p.pack_states(states))
    count, mask = p.decode_snapshot(payload)
    assert count == len(states)
    assert p.unpack_states(count, mask) == states


def test_snapshot_with_bits_past_the_last_sensor_is_refused() -> None:
    with pytest.raises(p.ProtocolError):
        p.decode_snapshot(b"\x00\x03\x08")
    with pytest.raises(p.ProtocolError):
        p.decode_snapshot(b"\x00\x09\x00")  # 9 sensors need 2 bytes


@given(st.integers(0, 0xFFFF), st.booleans(), st.integers(0, 0xFFFFFFFF))
def test_sensor_change_round_trip(index: int, pressed: bool, time_ms: int) -> None:
    payload = p.encode_sensor_change(index, pressed, time_ms)
    assert p.decode_sensor_change(payload) == (index, pressed, time_ms)


@given(st.integers(0, 0xFFFFFFFF), *[st.integers(0, 0xFFFF)] * 4)
def test_heartbeat_round_trip(uptime: int, frames: int, dropped: int, lost: int, over: int) -> None:
    payload = p.encode_heartbeat(uptime, frames, dropped, lost, over)
    assert p.decode_heartbeat(payload) == (uptime, frames, dropped, lost, over)


@given(st.integers(0, 255), types, seqs)
def test_error_round_trip(code: int, about: int, seq: int) -> None:
    assert p.decode_error(p.encode_error(code, about, seq)) == (code, about, seq)


@given(st.binary(max_size=3 * p.MAX_FRAME_PIXELS).map(lambda b: b[: len(b) - len(b) % 3]))
def test_led_frame_round_trip(rgb: bytes) -> None:
    assert p.decode_led_frame(p.encode_led_frame(rgb)) == (len(rgb) // 3, rgb)


entries = st.tuples(st.integers(0, 0xFFFF), *[st.integers(0, 255)] * 3)


@given(st.lists(entries, max_size=p.MAX_UPDATE_ENTRIES))
def test_led_update_round_trip(update: list[tuple[int, int, int, int]]) -> None:
    assert p.decode_led_update(p.encode_led_update(update)) == update


@pytest.mark.parametrize(
    ("decode", "payload"),
    [
        (p.decode_sensor_change, b"\x00\x01\x01\x00\x00\x00"),
        (p.decode_sensor_change, b"\x00\x01\x02\x00\x00\x00\x00"),
        (p.decode_heartbeat, bytes(11)),
        (p.decode_error, bytes(4)),
        (p.decode_led_frame, b"\x00\x02" + bytes(5)),
        (p.decode_led_update, bytes(6)),
        (p.decode_hello, bytes(8)),
        (p.decode_empty, b"\x00"),
    ],
)
def test_payloads_of_the_wrong_shape_are_refused(decode: object, payload: bytes) -> None:
    with pytest.raises(p.ProtocolError):
        decode(payload)  # type: ignore[operator]


def test_describe_names_every_message() -> None:
    change = p.encode_sensor_change(5, True, 1234)
    assert (
        p.describe(p.SENSOR_CHANGE, 12, change) == "#12 SENSOR_CHANGE index=5 pressed=True t=1234"
    )
    assert "bad payload" in p.describe(p.SNAPSHOT, 0, b"\x01")
    for msg_type in p.MESSAGE_NAMES:
        assert p.describe(msg_type, 0, b"").startswith(f"#0 {p.MESSAGE_NAMES[msg_type]}")


# -- the fuzzer --------------------------------------------------------------------------

SENSORS = 156
CORRUPT_FRAMES = 100_000


def _bit_flip(frame: bytes, rng: random.Random) -> bytes:
    body = bytearray(frame[:-1])
    for _ in range(rng.randint(1, 4)):
        position = rng.randrange(len(body))
        body[position] ^= 1 << rng.randrange(8)
    return bytes(body) + b"\x00"


def test_fuzz_100k_bad_frames_no_false_event_and_recovery_within_one_snapshot() -> None:
    """The device's frames go through a channel that truncates, flips bits, duplicates,
    drops, and sprays random bytes, 100,000 times; the host's decoder and tracker must
    never raise, never report a sensor change that did not happen, and be right again
    at every SNAPSHOT that gets through."""
    rng = random.Random(0x5EED)
    decoder = p.FrameDecoder()
    tracker = DeviceTracker()
    truth = [False] * SENSORS
    seq = 0
    counts = dict.fromkeys(("truncated", "flipped", "random", "noise", "duplicated", "dropped"), 0)
    corrupt = valid = phantoms = events = recoveries = restarts = 0
    was_synced = False
    started = time.perf_counter()

    def device(msg_type: int, payload: bytes) -> tuple[int, int, bytes, bytes]:
        nonlocal seq
        frame = p.encode_frame(msg_type, seq, payload)
        sent = (msg_type, seq, payload, frame)
        seq = (seq + 1) & 0xFF
        return sent

    while corrupt < CORRUPT_FRAMES:
        clock_ms = (corrupt + valid) * 3
        roll = rng.random()
        if roll < 0.0005:  # the firmware restarts: HELLO, sequence numbers from 0
            seq = 0
            restarts += 1
            sent = device(p.HELLO, p.encode_hello(FIRMWARE_VERSION, SENSORS, 152, "GRB"))
        elif roll < 0.60:
            index = rng.randrange(SENSORS)
            truth[index] = not truth[index]
            change = p.encode_sensor_change(index, truth[index], clock_ms)
            sent = device(p.SENSOR_CHANGE, change)
        elif roll < 0.72:
            sent = device(p.SNAPSHOT, p.encode_snapshot(SENSORS, p.pack_states(truth)))
        else:
            sent = device(p.HEARTBEAT, p.encode_heartbeat(clock_ms, valid, 0, 0, 0))
        msg_type, _, _, frame = sent

        if rng.random() < 0.5:
            stream = frame
            valid += 1
        else:
            corrupt += 1
            kind = rng.choice(tuple(counts))
            counts[kind] += 1
            if kind == "truncated":
                stream = frame[: rng.randrange(1, len(frame) - 1)] + b"\x00"
            elif kind == "flipped":
                stream = _bit_flip(frame, rng)
            elif kind == "random":  # line noise between two frames; this one survives
                stream = rng.randbytes(rng.randint(1, 600)) + b"\x00" + frame
            elif kind == "noise":  # noise running into the frame: this one is lost
                stream = rng.randbytes(rng.randint(1, 40)).replace(b"\x00", b"\x01") + frame
            elif kind == "duplicated":
                stream = frame + frame
            else:
                stream = b""
        cut = rng.randint(0, len(stream))
        decoded = decoder.feed(stream[:cut]) + decoder.feed(stream[cut:])

        for got in decoded:
            if got != sent[:3]:
                phantoms += 1  # a corrupted frame that passed the CRC
            for index, pressed in tracker.handle(*got):
                events += 1
                assert truth[index] == pressed, f"false event: sensor {index} {pressed}"
        if decoded and tracker.synced:
            # Everything since the last SNAPSHOT arrived in order: the view is the truth.
            assert tracker.states == truth
            if not was_synced and msg_type == p.SNAPSHOT:
                recoveries += 1
        if decoded and msg_type == p.SNAPSHOT and decoded[-1] == sent[:3]:
            assert tracker.synced, "a SNAPSHOT that got through must resynchronise"
        was_synced = tracker.synced

    elapsed = time.perf_counter() - started
    print(
        f"\nfuzz: {corrupt} bad + {valid} good frames in {elapsed:.1f} s; {counts}; "
        f"decoder dropped {decoder.dropped} (cobs {decoder.bad_cobs}, crc {decoder.bad_crc}, "
        f"short {decoder.too_short}, long {decoder.too_long}); tracker lost {tracker.lost}, "
        f"duplicates {tracker.duplicates}, deferred {tracker.deferred}, "
        f"bad payloads {tracker.bad_payloads}; {events} events, {recoveries} recoveries, "
        f"{restarts} restarts, {phantoms} frames passed a CRC they should not have"
    )
    # A corrupted frame that still decodes has a 1 in 65,536 chance to match its CRC
    # (the length is covered too, so a frame cut short is no easier); the tracker must
    # then still refuse it (a wrong type, length, sequence number), as the truth check
    # above shows.  Allow ten times the expected number.
    assert phantoms <= 3 + 10 * decoder.bad_crc / 65536
    assert counts["duplicated"] > 0 and tracker.duplicates >= counts["duplicated"] // 2
    assert decoder.dropped > counts["truncated"] // 2
    assert tracker.lost > 0 and recoveries > 1000 and events > 10_000


def test_every_example_frame_in_the_protocol_document_decodes_as_it_says():
    """PROTOCOL.md is what someone writing another firmware reads: its examples must be
    real frames (right COBS, right CRC), and its HELLO names the firmware we ship."""
    text = (ROOT / "firmware" / "PROTOCOL.md").read_text("utf-8")
    examples = re.findall(r"`((?:[0-9a-f]{2} )+00)`", text)
    assert len(examples) >= 4
    said = []
    for example in examples:
        frame = bytes.fromhex(example)
        msg_type, seq, payload = p.decode_frame(frame[:-1])
        said.append(p.describe(msg_type, seq, payload))
    assert any("HELLO" in s and f"version={FIRMWARE_VERSION}" in s for s in said), said
    assert "#1 SNAPSHOT sensors=156 pressed=[5]" in said
    assert "#2 SENSOR_CHANGE index=5 pressed=True t=1234" in said
