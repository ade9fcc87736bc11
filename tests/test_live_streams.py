"""Live streams on the real server: phones on their streams hold no server thread, the
maze comes once, and a phone that vanishes is let go within seconds."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.bench.clients import Site
from companion.bench.streams import PHONES
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from companion.web import create_app


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Any, Site]]:
    """The mock appliance behind the companion's web server with only two worker threads."""
    from tests.test_service import start

    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    try:
        with ServerThread(app, limits=Limits(threads=2)) as web:
            try:
                yield app, Site(web.port)
            finally:
                appliance.hub.end_streams()
    finally:
        appliance.close()


def _events(sock: Any, want: int, within: float = 5.0) -> list[dict[str, Any]]:
    """The next ``want`` data messages of a stream (fewer if it goes quiet)."""
    sock.setblocking(True)
    sock.settimeout(0.2)
    got, events, deadline = b"", [], time.monotonic() + within
    while len(events) < want and time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            break
        got += chunk
        *done, got = got.split(b"\n\n")
        events += [json.loads(e.split(b"data: ", 1)[1]) for e in done if b"data: " in e]
    return events


def _until(check: Any, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_twelve_phones_on_two_server_threads_leave_the_pages_free(live):
    app, site = live
    socks = [site.open_stream(seat, path) for seat, path in PHONES]
    try:
        broadcaster = app.extensions["companion.broadcaster"]
        assert _until(lambda: broadcaster.count == len(PHONES))
        # Both worker threads are free: every page still answers at once.
        assert site.page_ms("/healthz") < 2000
        assert site.page_ms("/table", site.cookies["table"]) < 2000
    finally:
        for sock in socks:
            sock.close()


def test_the_maze_comes_in_the_first_message_only(live):
    _, site = live
    sock = site.open_stream("table", "/api/table/stream")
    try:
        first = _events(sock, 1)[0]
        assert first["view"]["maze"]["width"] > 0
        site.toggle(site.magnets[0])  # a figure lifted: the table's page changes
        later = _events(sock, 1)
        assert later and "maze" not in later[0]["view"]
        assert later[0]["view"].keys() == first["view"].keys() - {"maze"}
    finally:
        sock.close()


def test_a_phone_that_vanishes_is_let_go_within_seconds(live):
    app, site = live
    socks = [site.open_stream("seeker0", "/api/seeker/stream") for _ in range(6)]
    broadcaster = app.extensions["companion.broadcaster"]
    assert _until(lambda: broadcaster.count == 6)
    for sock in socks[:4]:
        sock.close()
    assert _until(lambda: broadcaster.count == 2, within=3.0)
    for sock in socks[4:]:
        sock.close()


def test_a_stream_ends_when_its_seat_is_taken_over(live):
    _, site = live
    sock = site.open_stream("mummy", "/api/mummy/stream")
    try:
        assert _events(sock, 1)[0]["role"] == "mummy"
        site.host_post("/api/host/codes")  # new codes: every phone must join again
        assert _events(sock, 1) == [{"stale": True}]
        sock.setblocking(True)
        sock.settimeout(3)
        assert sock.recv(4096) == b""  # and the server closes the connection
    finally:
        sock.close()


def test_a_phone_that_stops_reading_is_dropped_not_buffered():
    """A phone asleep on its stream: unsent bytes stay under the bound, then it is let go."""
    from companion.web.broadcast import MAX_PENDING, Broadcaster

    server_end, phone = socket.socketpair()
    phone.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    news = "data: " + "x" * 30_000 + "\n\n"
    broadcaster = Broadcaster()
    broadcaster.add(server_end, lambda: (news, True))
    try:
        assert _until(lambda: broadcaster.count == 1)
        for _ in range(200):
            if broadcaster.count == 0:
                break
            broadcaster.wake()
            time.sleep(0.02)
        assert broadcaster.count == 0
        phone.settimeout(2)
        received = 0
        while chunk := phone.recv(65536):
            received += len(chunk)
        assert received < 10 * MAX_PENDING  # what the kernel held, not an endless buffer
    finally:
        phone.close()


@given(
    st.lists(st.lists(st.integers(min_value=0, max_value=3), max_size=8), min_size=1, max_size=12)
)
def test_the_announcements_sent_as_news_rebuild_the_whole_log(logs: list[list[int]]) -> None:
    """However the log changes (new entries, the oldest dropped, an undo rewriting it),
    the page's log rebuilt from the news is the server's log."""
    from companion.web.stream import LogDelta

    delta, page = LogDelta(), []
    for log in logs:
        sent = delta.slim({"log": list(log)})
        keep = sent.get("log_keep", 0)
        page = page[len(page) - keep :] + sent["log"]
        assert page == log
