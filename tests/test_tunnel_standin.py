"""The tunnel edge's stand-in cuts a dropout's connections at once, on both sides: a held
stream that the Pi keeps sending ends with the dropout, not when the Pi ends it."""

from __future__ import annotations

import random
import socket
import ssl
import threading
import time
from collections.abc import Iterator

import pytest

from companion.tunnel.standin import PROFILES, StandIn


class EndlessStream:
    """A Pi's side that answers a GET with a head, then a line every 50 ms until it is cut."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.cut = threading.Event()
        self.head_sent = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            self.head_sent.set()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    conn.sendall(b"data: tick\n\n")
                except OSError:
                    self.cut.set()
                    return
                time.sleep(0.05)

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def stream() -> Iterator[EndlessStream]:
    upstream = EndlessStream()
    yield upstream
    upstream.close()


def _phone(port: int) -> ssl.SSLSocket:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    phone = context.wrap_socket(raw, server_hostname="127.0.0.1")
    phone.sendall(b"GET /live HTTP/1.1\r\nHost: x\r\n\r\n")
    return phone


def _ended(phone: ssl.SSLSocket) -> bool:
    """The connection ends with nothing read (a clean end or a reset)."""
    try:
        return phone.recv(65536) == b""
    except (ConnectionError, ssl.SSLError):
        return True
    finally:
        phone.close()


def test_a_dropout_ends_a_held_stream_on_both_sides_at_once(stream: EndlessStream) -> None:
    with StandIn(stream.port, PROFILES["cloudflare"], buffer_get=True) as edge:
        phone = _phone(edge.port)
        assert stream.head_sent.wait(5)
        time.sleep(0.2)  # the edge holds the GET's answer back, reading on
        began = time.monotonic()
        edge.drop()
        assert time.monotonic() - began < 2, "the dropout took as long as the stream"
        # The phone's side is gone: it reads an end, not an answer held for it.
        assert _ended(phone)
        # The Pi's side is gone too: its next lines find no one.
        assert stream.cut.wait(5), "the Pi's stream went on after the dropout"
        # While down, a new connection is refused; back up, one is taken again.
        assert _ended(_phone(edge.port))
        edge.drop(False)
        assert edge.down is False


class LateHead:
    """A Pi's side that answers each GET's head after ``delay_s``, then streams on."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                time.sleep(self.delay_s)
                conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
                for _ in range(200):
                    conn.sendall(b"data: tick\n\n")
                    time.sleep(0.05)
            except OSError:
                return


def test_a_dropout_as_the_answer_comes_is_never_lost() -> None:
    """Dropouts timed around the moment the Pi's answer arrives: each ends at once (one
    that landed with the answer was once lost, and the stream held the drop for seconds)."""
    rng = random.Random(33)
    upstream = LateHead(0.02)
    try:
        with StandIn(upstream.port, PROFILES["cloudflare"], buffer_get=True) as edge:
            for _ in range(150):
                phone = _phone(edge.port)
                time.sleep(upstream.delay_s + rng.uniform(-0.004, 0.004))
                began = time.monotonic()
                edge.drop()
                took = time.monotonic() - began
                edge.drop(False)
                phone.close()
                assert took < 2, f"a dropout took {took:.1f} s"
    finally:
        upstream.server.close()
