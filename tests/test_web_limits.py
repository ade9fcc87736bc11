"""One phone cannot take the table down: the web server's limits, on a real server.

Each test runs ``companion run --mock`` (or the same server with shorter timeouts) on
127.0.0.1; the attacker and the other phones are different loopback addresses
(127.0.0.x), as different phones on the Wi-Fi are.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.bench.clients import Site, run_companion
from companion.service.webserver import (
    RESERVED_FILES,
    WANTED_FILES,
    Limits,
    Throttled,
    create,
    limits_for,
)
from companion.web import create_app

HALF_A_HEAD = b"GET /table HTTP/1.1\r\nHost: companion\r\nX-Half: "


@dataclass
class Served:
    """A ``companion run --mock`` process, its seated table and its log so far."""

    proc: Any
    site: Site
    tmp: Path
    lines: list[str] = field(default_factory=list)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc, port, _ = run_companion(str(tmp_path), env={**os.environ, "TMPDIR": str(tmp)})
    served = Served(proc, Site(port), tmp)
    drain = threading.Thread(target=lambda: served.lines.extend(proc.stdout), daemon=True)
    drain.start()
    try:
        yield served
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        drain.join(timeout=5)


def connect(port: int, address: str) -> socket.socket:
    """A connection from ``address`` (a loopback address: another phone)."""
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))


def get(port: int, address: str, path: str, cookie: str = "") -> tuple[int, bytes, float]:
    """A page from ``address``: its status, body and seconds."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(address, 0))
    try:
        conn.request("GET", path, headers={"Cookie": cookie})
        res = conn.getresponse()
        return res.status, res.read(), time.monotonic() - started
    finally:
        conn.close()


def head_of(sock: socket.socket, within: float = 5.0) -> bytes:
    """The answer's head and whatever came with it (b"" if the server closed)."""
    sock.settimeout(within)
    got = b""
    deadline = time.monotonic() + within
    while b"\r\n\r\n" not in got and time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            break
        except ConnectionResetError:
            break
        if not chunk:
            break
        got += chunk
    return got


def stream(site: Site, address: str, seat: str, path: str) -> tuple[socket.socket, bytes]:
    """A device at ``address`` on ``seat`` asks for a live stream: the socket and the
    answer's head (and its JSON error, when refused)."""
    sock = connect(site.port, address)
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{site.port}\r\nAccept: text/event-stream\r\n"
        f"Cookie: {site.cookies[seat]}\r\n\r\n".encode()
    )
    answer = head_of(sock)
    if not answer.startswith(b"HTTP/1.1 200"):
        head, _, body = answer.partition(b"\r\n\r\n")
        length = int(next(iter(_header(head, b"content-length")), b"0"))
        while len(body) < length:
            chunk = sock.recv(4096)
            if not chunk:
                break
            body += chunk
        answer = head + b"\r\n\r\n" + body
    return sock, answer


def _header(head: bytes, name: bytes) -> list[bytes]:
    return [
        line.split(b":", 1)[1].strip()
        for line in head.split(b"\r\n")
        if line.lower().startswith(name + b":")
    ]


def error_of(answer: bytes) -> str:
    text: str = json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    return text


def test_one_laptop_playing_every_seat_in_its_own_window_is_served(served):
    """``make run`` on a laptop: the host, the mummy, two seekers and the table, each in a
    browser window of its own, open up to 6 connections each from one address (the
    player bench does this): every one of them is served, none turned away."""
    site = served.site
    windows = [connect(site.port, "127.0.0.1") for _ in range(5 * 6)]
    try:
        for sock in windows:
            sock.sendall(
                f"GET /table HTTP/1.1\r\nHost: 127.0.0.1:{site.port}\r\n"
                f"Cookie: {site.cookies['table']}\r\n\r\n".encode()
            )
        heads = [head_of(sock) for sock in windows]
        assert all(h.startswith(b"HTTP/1.1 200") for h in heads), [h[:40] for h in heads]
    finally:
        for sock in windows:
            sock.close()


def test_half_sent_requests_of_one_device_leave_the_table_answering(served):
    """130 idle connections with half a request each stopped every client (waitress's
    100 connections): now a device past its share is turned away at once."""
    site = served.site
    idle = [connect(site.port, "127.0.0.1") for _ in range(130)]
    try:
        for sock in idle:
            sock.sendall(HALF_A_HEAD)
        status, _, seconds = get(site.port, "127.0.0.2", "/healthz")
        assert status == 200 and seconds < 2
        status, body, seconds = get(site.port, "127.0.0.2", "/table", site.cookies["table"])
        assert status == 200 and seconds < 2 and b"<html" in body.lower()
        turned_away = [head_of(sock, 2) for sock in idle[Limits.connections_per_address :]]
        assert all(
            b"503" in h and b"Too many connections from this device" in h for h in turned_away
        )
    finally:
        for sock in idle:
            sock.close()


def test_streams_past_a_devices_share_are_refused_in_words_and_freed_when_closed(served):
    """One device on the watching seat could open 1,100 streams (and the fd table ran out)."""
    site = served.site
    share = Limits.streams_per_address
    opened = [stream(site, "127.0.0.3", "watch", "/crypt/api/stream") for _ in range(share)]
    try:
        assert all(answer.startswith(b"HTTP/1.1 200") for _, answer in opened)
        sock, refused = stream(site, "127.0.0.3", "watch", "/lootnrun/api/stream")
        sock.close()
        assert refused.startswith(b"HTTP/1.1 429")
        assert error_of(refused) == (
            "Too many live pages are open on this device: close a few, then reload this one."
        )
        other, answer = stream(site, "127.0.0.4", "watch", "/crypt/api/stream")  # another phone
        other.close()
        assert answer.startswith(b"HTTP/1.1 200")
    finally:
        for sock, _ in opened:
            sock.close()
    deadline = time.monotonic() + 5
    while True:  # the closed streams free the device's share within moments
        sock, answer = stream(site, "127.0.0.3", "watch", "/crypt/api/stream")
        sock.close()
        if answer.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert answer.startswith(b"HTTP/1.1 200")


def test_the_watching_seat_has_one_share_for_every_device_and_other_seats_stay_open(served):
    site = served.site
    opened: list[socket.socket] = []
    answers: list[bytes] = []
    try:
        for device in range(5):  # 5 devices, 10 streams each: more than the seat's 48
            for _ in range(10):
                sock, answer = stream(site, f"127.0.1.{device + 1}", "watch", "/crypt/api/stream")
                opened.append(sock)
                answers.append(answer)
        statuses = [a.split(b" ", 2)[1] for a in answers]
        assert statuses.count(b"200") == Limits.streams_watching
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 429")]
        assert len(refused) == 50 - Limits.streams_watching
        assert error_of(refused[0]) == (
            "Too many live pages are open for this seat: close a few, then reload this one."
        )
        sock, answer = stream(site, "127.0.0.9", "table", "/api/table/stream")
        opened.append(sock)
        assert answer.startswith(b"HTTP/1.1 200")  # the table's own seat is not the watchers'
    finally:
        for sock in opened:
            sock.close()


def _written(pid: int) -> int:
    io = Path(f"/proc/{pid}/io").read_text()
    return int(next(line for line in io.splitlines() if line.startswith("write_bytes:")).split()[1])


def test_a_huge_upload_is_refused_before_its_body_is_read_and_nothing_goes_to_disk(served):
    """A 300 MB upload was buffered to disk (about 250 MB) before the app refused it."""
    site = served.site
    before = _written(served.proc.pid)
    sock = connect(site.port, "127.0.0.5")
    try:
        sock.sendall(
            b"POST /api/host/board HTTP/1.1\r\nHost: companion\r\n"
            b"Content-Type: application/json\r\nContent-Length: 300000000\r\n\r\n"
        )
        started = time.monotonic()
        answer = head_of(sock, 3)  # not a byte of the body was sent
        assert answer.startswith(b"HTTP/1.1 413"), answer
        assert time.monotonic() - started < 2
    finally:
        sock.close()
    chunked = connect(site.port, "127.0.0.5")
    chunk = b"%x\r\n" % 65536 + b"x" * 65536 + b"\r\n"
    sent = 0
    try:
        chunked.sendall(
            b"POST /api/host/board HTTP/1.1\r\nHost: companion\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        chunked.settimeout(5)
        while sent < 20 * 1024 * 1024:  # the server closes long before 20 MB
            chunked.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    finally:
        chunked.close()
    assert sent < 20 * 1024 * 1024
    time.sleep(0.3)
    assert _written(served.proc.pid) - before == 0
    assert not any(served.tmp.iterdir())


@pytest.fixture
def quick_timeouts(tmp_path: Path) -> Iterator[int]:
    """The real app behind the guarded server, with idle and request timeouts of 1 s."""
    from tests.test_service import start

    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    server = create(app, host="127.0.0.1", port=0, limits=Limits(idle_s=1, request_s=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield int(server.effective_port)
    finally:
        server.task_dispatcher.shutdown()
        server.close()
        appliance.close()


def _closed_within(sock: socket.socket, seconds: float, trickle: bool = False) -> float | None:
    """Seconds until the server closed ``sock`` (None if it did not within ``seconds``);
    with ``trickle`` one more byte of a header every 0.2 s meanwhile."""
    started = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - started < seconds:
        try:
            if trickle:
                sock.sendall(b"x")
            if sock.recv(4096) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - started
    return None


def test_idle_and_trickled_requests_are_closed_within_seconds(quick_timeouts):
    port = quick_timeouts
    trickled = connect(port, "127.0.0.6")
    trickled.sendall(HALF_A_HEAD)
    idle = connect(port, "127.0.0.7")
    idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: companion\r\n\r\n")
    assert head_of(idle).startswith(b"HTTP/1.1 200")
    try:
        # one byte every 0.2 s keeps a connection busy, never its request alive
        seconds = _closed_within(trickled, 5, trickle=True)
        assert seconds is not None and seconds < 3.5
        assert _closed_within(idle, 4) is not None  # a kept-alive connection with nothing to do
    finally:
        trickled.close()
        idle.close()
    status, _, seconds = get(port, "127.0.0.8", "/healthz")  # an ordinary request still works
    assert status == 200 and seconds < 1


#: A guarded server of a plain app: ``connections`` in all, ``files`` handles at most.
SMALL_SERVER = """
import resource, sys
from companion.service.startup import setup_logging
from companion.service.webserver import Limits, create

def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]

connections, files = int(sys.argv[1]), int(sys.argv[2])
setup_logging()
server = create(app, host="127.0.0.1", port=0, limits=Limits(
    connections=connections, connections_per_address=1000, warn_every_s=2.0))
resource.setrlimit(resource.RLIMIT_NOFILE, (files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
print("port", server.effective_port, flush=True)
server.run()
"""


@contextmanager
def small_server(connections: int, files: int) -> Iterator[tuple[Any, int, list[str]]]:
    """``SMALL_SERVER`` in a process of its own: (process, port, its log lines)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SMALL_SERVER, str(connections), str(files)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    assert proc.stdout is not None
    try:
        port = int(proc.stdout.readline().split()[1])
        drain = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        drain.start()
        yield proc, port, lines
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _answers_again(port: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if get(port, "127.0.0.2", "/")[0] == 200:
                return True
        except OSError:
            time.sleep(0.1)
    return False


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_full_fd_table_is_a_rate_limited_warning_and_the_server_answers_afterwards():
    """519,428 "Too many open files" log lines (207 MB in 15 s): now one warning per
    interval, the loop waits instead of spinning, and the server answers once fds free."""
    with small_server(connections=1000, files=40) as (proc, port, lines):
        held = [connect(port, "127.0.0.1") for _ in range(60)]  # more than its 40 handles
        cpu = _cpu_s(proc.pid)
        time.sleep(3.0)
        spent = _cpu_s(proc.pid) - cpu
        for sock in held:
            sock.close()
        assert _answers_again(port)
    warnings = [line for line in lines if "no file handle left" in line]
    assert 1 <= len(warnings) <= 3, lines
    assert warnings[0].startswith("WARNING companion.web: no file handle left for a new connection")
    assert len(lines) <= 6  # no tracebacks, nothing repeated
    assert spent < 1.0  # it waited, it did not spin


def test_a_full_server_says_so_once_however_often_it_fills(tmp_path):
    """Waitress logs two lines each time its connection limit is reached and left:
    under connections that come and go, as many lines as connections."""
    with small_server(connections=8, files=1024) as (_, port, lines):
        held = [connect(port, "127.0.0.1") for _ in range(10)]
        for _ in range(30):  # fill it, free a place, fill it again
            held.pop(0).close()
            time.sleep(0.02)
            held.append(connect(port, "127.0.0.1"))
        for sock in held:
            sock.close()
        assert _answers_again(port)
    said = [line for line in lines if "connections open" in line]
    assert 1 <= len(said) <= 2, lines
    assert said[0] == (
        "WARNING companion.web: 8 connections open, as many as the server serves at once: "
        "new ones wait\n"
    )
    assert len(lines) <= 3


def test_a_warning_held_back_is_counted_in_the_next():
    now = [0.0]
    said: list[str] = []

    class Catch:
        def warning(self, message: str, *args: object) -> None:
            said.append(message % args)

    throttled = Throttled(Catch(), 10.0, clock=lambda: now[0])  # type: ignore[arg-type]
    assert throttled.warn("full: %s", "EMFILE")
    for step in range(1, 100):
        now[0] = step * 0.05
        assert not throttled.warn("full: %s", "EMFILE")
    now[0] = 10.0
    assert throttled.warn("full: %s", "EMFILE")
    assert said == ["full: EMFILE", "full: EMFILE (99 more since the last warning)"]


@pytest.mark.parametrize("files", [256, 1024, WANTED_FILES, 20000])
def test_connections_and_streams_fit_in_the_file_handles(files):
    limits = limits_for(files)
    assert limits.connections + limits.streams + RESERVED_FILES <= files
    assert limits.streams >= limits.streams_watching + limits.streams_per_seat


def test_a_stream_served_without_hand_over_frees_its_share_when_closed(table):
    """Under a server that keeps its streams (Flask's test client: a generator each),
    the same shares hold, and a closed stream, even one never read, gives its place back."""
    table.new_game()
    phone = table.device("seeker0")
    opened = [phone.get("/api/seeker/stream", buffered=False) for _ in range(12)]
    assert all(res.status_code == 200 for res in opened)
    refused = phone.get("/api/seeker/stream", buffered=False)
    assert refused.status_code == 429
    assert refused.json == {
        "error": "Too many live pages are open on this device: close a few, then reload this one."
    }
    for res in opened:
        res.close()  # never read
    again = phone.get("/api/seeker/stream", buffered=False)
    assert again.status_code == 200
    again.close()
