"""The companion's web server on a thread (the tests' and the bench's server): it is the
guarded server ``companion run`` serves with, it stops from its own thread with every
connection closed and no error in any thread, and a loop that died is named when it
stops (a hang in a browser test then has its cause)."""

from __future__ import annotations

import http.client
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bench.clients import Site
from companion.bench.streams import PHONES
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from companion.web import create_app
from tests.test_service import start


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    appliance = start(tmp_path)
    try:
        yield create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    finally:
        appliance.hub.end_streams()
        appliance.close()


@pytest.fixture
def thread_errors() -> Iterator[list[BaseException | None]]:
    """What any thread raised while the test ran."""
    caught: list[BaseException | None] = []
    before = threading.excepthook
    threading.excepthook = lambda args: caught.append(args.exc_value)
    try:
        yield caught
    finally:
        threading.excepthook = before


def _get(port: int, path: str = "/healthz") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def _idle(port: int) -> socket.socket:
    """A keep-alive connection that has had one answer and now waits, as a phone's does."""
    phone = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    phone.request("GET", "/healthz")
    answer = phone.getresponse()
    answer.read()
    assert answer.status == 200 and not answer.will_close
    assert phone.sock is not None
    return phone.sock


def test_it_is_the_guarded_server_with_the_limits_it_was_given(app) -> None:
    with ServerThread(app, limits=Limits(connections_per_address=2, threads=2)) as web:
        assert app.extensions["companion.limits"] is web.limits  # the streams' limits too
        held = [_idle(web.port) for _ in range(2)]
        try:
            # A third connection from this device is turned away in words, not left waiting.
            with socket.create_connection(("127.0.0.1", web.port), timeout=5) as third:
                answer = third.recv(65536)
            assert answer.startswith(b"HTTP/1.1 503")
            assert b"Too many connections from this device" in answer
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.3)  # the server reads the closes
        assert _get(web.port).startswith(b"HTTP/1.1 200")


def test_stopping_closes_every_connection_and_no_thread_fails(app, thread_errors) -> None:
    site: Site | None = None
    for _ in range(15):
        site = _start_and_stop_with_phones_on(app, site)
    assert thread_errors == []


def _start_and_stop_with_phones_on(app: Any, site: Site | None) -> Site:
    with ServerThread(app, limits=Limits(threads=2)) as web:
        idle = [_idle(web.port) for _ in range(4)]
        if site is None:
            site = Site(web.port)  # a host and every seat joined
        site.port, site.base = web.port, web.url  # the same phones, the server started again
        paths = {"table": "/api/table/stream", "mummy": "/api/mummy/stream"}
        streams = [site.open_stream(seat, path) for seat, path in paths.items()]
    assert not web.alive
    for sock in idle:  # each phone's connection is closed by the server
        sock.settimeout(5)
        assert sock.recv(1) == b""
        sock.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", web.port), timeout=1)
    for sock in streams:  # (streams are the broadcaster's, not the server's)
        sock.close()
    return site


def test_a_loop_that_died_is_named_when_it_stops(app, thread_errors) -> None:
    web = ServerThread(app, limits=Limits(threads=2))

    class Broken:
        """A socket the loop cannot ask (as a handle closed under its feet)."""

        def readable(self) -> bool:
            raise OSError(9, "Bad file descriptor")

        def writable(self) -> bool:
            return False

        def close(self) -> None:
            pass

    web.server._map[10_000] = Broken()
    web.start()
    deadline = time.monotonic() + 5
    while web.alive and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not web.alive
    with pytest.raises(RuntimeError, match=r"loop thread died while it served.*Bad file"):
        web.stop()
    assert len(thread_errors) == 1  # and the thread's own error was reported as it happened


def test_a_server_never_started_stops_quietly(app) -> None:
    web = ServerThread(app)
    port = web.port
    web.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_a_handed_off_stream_is_closed_by_waitress_own_loop_only(app, monkeypatch) -> None:
    """The streams leave waitress from a worker thread; waitress's loop walks its maps
    unlocked, so only that loop may close a channel (a map changed under its walk stops
    it for good: every page then hangs)."""
    from waitress.channel import HTTPChannel

    closed_in: list[str] = []
    close = HTTPChannel.handle_close

    def recorded(channel: Any) -> None:
        closed_in.append(threading.current_thread().name)
        close(channel)

    monkeypatch.setattr(HTTPChannel, "handle_close", recorded)
    with ServerThread(app, limits=Limits(threads=4), name="waitress-loop") as web:
        site = Site(web.port)
        time.sleep(0.3)  # the seats' joining connections closed
        closed_in.clear()
        socks = [site.open_stream(seat, path) for seat, path in PHONES]
        broadcaster = app.extensions["companion.broadcaster"]
        deadline = time.monotonic() + 5
        while broadcaster.count < len(PHONES) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert broadcaster.count == len(PHONES)
        # Waitress lets go of each handed-off connection within a second or two ...
        while len(closed_in) < len(PHONES) and time.monotonic() < deadline:
            time.sleep(0.02)
        # ... in its own loop thread, and the phones' streams stay open.
        assert len(closed_in) >= len(PHONES)
        assert set(closed_in) == {"waitress-loop"}
        assert broadcaster.count == len(PHONES)
        assert _get(web.port).startswith(b"HTTP/1.1 200")
        for sock in socks:
            sock.close()


def test_a_phone_reloading_its_stream_fast_is_never_turned_away(app) -> None:
    """A page reloaded again and again (a child's thumb on reload) opens a stream each
    time: the connections waitress has let go to the stream thread, closed by its loop a
    moment later, do not count against the device's connections meanwhile."""
    with ServerThread(app, limits=Limits(connections_per_address=8, threads=2)) as web:
        site = Site(web.port)
        time.sleep(0.3)  # the seats' joining connections closed
        for _ in range(30):
            site.open_stream("table", "/api/table/stream").close()  # (a 503 raises here)
        assert _get(web.port).startswith(b"HTTP/1.1 200")
