"""``companion bench`` rows for a hostile phone on the Wi-Fi: three scripted attacks.

Each runs against a fresh ``companion run --mock`` on loopback and stops by itself (a
fixed number of connections, a fixed time, a bounded upload).  The attacker is
127.0.0.1 (a stranger, or a phone on the watching seat); another phone, 127.0.0.2 on
the table's seat, opens ``/table`` over and over meanwhile, and each row is the p99 of
that page during the attack (target: under a second):

- idle: 150 connections that each send half a request head and then nothing;
- streams: 1,100 live streams asked for by one device on the watching seat;
- upload: a stranger's 300 MB upload, once with a ``Content-Length`` and once chunked;
  also the bytes the server wrote to storage meanwhile (``write_bytes`` of
  ``/proc/<pid>/io``, with its temporary files sent to a directory of its own) and the
  growth of its state and temporary directories (target: nothing).

``--quick`` runs the same attacks, smaller (the notes say how big).
"""

from __future__ import annotations

import http.client
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.bench.clients import Site
from companion.bench.figures import Figure, percentile
from companion.service.webserver import raise_file_limit

TARGETS = {
    "attacks.idle_page_p99": "under 1000 ms",
    "attacks.streams_page_p99": "under 1000 ms",
    "attacks.upload_page_p99": "under 1000 ms",
    "attacks.upload_disk_bytes": "0 bytes",
}
#: The other phone's address (loopback too) and the attacker's.
OTHER, ATTACKER = "127.0.0.2", "127.0.0.1"
MB = 1024 * 1024

Runner = Callable[..., tuple[Any, int, float]]


class _Phone:
    """The other phone: the table's page from its own address, timed, in a thread."""

    def __init__(self, port: int, cookie: str) -> None:
        self.port = port
        self.cookie = cookie
        self.times: list[float] = []
        self.failed = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="other-phone", daemon=True)
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def page_ms(self) -> float:
        started = time.perf_counter()
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=10, source_address=(OTHER, 0)
        )
        try:
            conn.request("GET", "/table", headers={"Cookie": self.cookie})
            res = conn.getresponse()
            res.read()
            if res.status != 200:
                raise OSError(f"/table answered {res.status}")
        finally:
            conn.close()
        return (time.perf_counter() - started) * 1000

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                self.times.append(self.page_ms())
            except OSError:
                self.failed += 1
                self.times.append(10_000.0)  # a page that did not come counts as 10 s
            self.stop.wait(0.05)

    def __enter__(self) -> _Phone:
        self.started = time.monotonic()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=15)


@contextmanager
def _companion(run_companion: Runner) -> Iterator[tuple[Any, Site, Path]]:
    """A fresh mock companion, its table seated, its log drained; (process, site, dir)."""
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory) / "tmp"
        tmp.mkdir()
        proc, port, _ = run_companion(directory, env={**os.environ, "TMPDIR": str(tmp)})
        lines: list[str] = []
        drain = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        drain.start()
        try:
            yield proc, Site(port), Path(directory)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            drain.join(timeout=5)


def _p99(times: list[float]) -> float:
    return percentile(times, 99)


def _idle(site: Site, count: int, hold_s: float) -> str:
    """``count`` connections from the attacker that send half a head and wait."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", site.port), timeout=5)
            sock.sendall(b"GET /table HTTP/1.1\r\nHost: companion\r\nX-Half: ")
            socks.append(sock)
        time.sleep(hold_s)
        fates = _tally(_fate(sock) for sock in socks)
    finally:
        for sock in socks:
            sock.close()
    return f"after {hold_s:g} s: {fates}"


def _fate(sock: socket.socket) -> str:
    """What became of a held connection: still open, turned away (503), or closed."""
    sock.setblocking(False)
    try:
        head = sock.recv(64)
    except BlockingIOError:
        return "still open"
    except OSError:
        return "closed by the server"
    if head.startswith(b"HTTP/1.1 503"):
        return "turned away at once (503)"
    return "closed by the server" if not head else "answered"


def _tally(fates: Iterator[str]) -> str:
    counts: dict[str, int] = {}
    for fate in fates:
        counts[fate] = counts.get(fate, 0) + 1
    return ", ".join(f"{n} {fate}" for fate, n in sorted(counts.items()))


def _streams(site: Site, count: int, hold_s: float) -> str:
    """``count`` streams of the watching seat from one device, all kept open."""
    socks: list[socket.socket] = []
    unconnected = 0
    try:
        for i in range(count):
            path = "/crypt/api/stream" if i % 2 else "/lootnrun/api/stream"
            try:
                socks.append(site.request_stream("watch", path))
            except OSError:
                unconnected += 1
        deadline = time.monotonic() + 10
        answers = [_status(sock, deadline) for sock in socks]
        time.sleep(max(0.0, hold_s - (time.monotonic() - deadline + 10)))
    finally:
        for sock in socks:
            sock.close()
    answers += ["not connected"] * unconnected
    return _tally(iter(answers))


def _status(sock: socket.socket, deadline: float) -> str:
    """How a stream was answered: open (200), refused (429: this device or seat holds
    enough; 503: too many connections), closed, or not within the deadline."""
    sock.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        head = sock.recv(64)
    except TimeoutError:
        return "no answer"
    except OSError:
        return "closed"
    parts = head.split(b" ", 2)
    return (
        f"answered {parts[1].decode()}"
        if head.startswith(b"HTTP/") and len(parts) > 1
        else "closed"
    )


def _upload(site: Site, size: int, *, chunked: bool) -> int:
    """A stranger's upload of ``size`` bytes (no cookie); the bytes it got to send."""
    sock = socket.create_connection(("127.0.0.1", site.port), timeout=5)
    head = "POST /api/host/board HTTP/1.1\r\nHost: companion\r\n"
    head += "Content-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {size}\r\n\r\n"
    piece = b"x" * (64 * 1024)
    frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
    sent = 0
    deadline = time.monotonic() + 30
    try:
        sock.sendall(head.encode())
        while sent < size and time.monotonic() < deadline:
            sock.sendall(frame)
            sent += len(piece)
        if chunked:
            sock.sendall(b"0\r\n\r\n")
    except OSError:  # the server closed it: the upload ends there
        pass
    finally:
        sock.close()
    return sent


def _written(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def _size(directory: Path) -> int:
    total = 0
    for path in directory.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except OSError:
            continue
    return total


def bench_attacks(quick: bool, run_companion: Runner) -> list[Any]:
    """The three attacks, each against a fresh companion."""
    raise_file_limit()  # the attacker's own sockets
    idle_n, streams_n, upload_mb = (150, 300, 30) if quick else (150, 1100, 300)
    hold_s = 2.0 if quick else 12.0
    figures: list[Figure] = []
    size = "; --quick: a shorter, smaller attack" if quick else ""

    with _companion(run_companion) as (_, site, _):
        with _Phone(site.port, site.cookies["table"]) as phone:
            time.sleep(0.3)
            result = _idle(site, idle_n, hold_s)
        figures.append(
            Figure(
                "attacks.idle_page_p99",
                _p99(phone.times),
                "ms",
                1000.0,
                "target",
                note=f"/table from {OTHER} while {ATTACKER} holds {idle_n} connections with "
                f"half a request each ({result}; {len(phone.times)} pages, "
                f"{phone.failed} failed{size})",
            )
        )

    with _companion(run_companion) as (_, site, _):
        with _Phone(site.port, site.cookies["table"]) as phone:
            time.sleep(0.3)
            result = _streams(site, streams_n, hold_s)
        figures.append(
            Figure(
                "attacks.streams_page_p99",
                _p99(phone.times),
                "ms",
                1000.0,
                "target",
                note=f"/table from {OTHER} while one device on the watching seat asks for "
                f"{streams_n} live streams (answers: {result}; {len(phone.times)} pages, "
                f"{phone.failed} failed{size})",
            )
        )

    with _companion(run_companion) as (proc, site, directory):
        before_io, before_size = _written(proc.pid), _size(directory)
        with _Phone(site.port, site.cookies["table"]) as phone:
            time.sleep(0.3)
            sent = _upload(site, upload_mb * MB, chunked=False)
            sent_chunked = _upload(site, upload_mb * MB, chunked=True)
            time.sleep(max(0.3, hold_s - phone.elapsed()))
        written = _written(proc.pid) - before_io
        grown = max(0, _size(directory) - before_size)
        note = (
            f"a stranger uploads {upload_mb} MB with a Content-Length, then chunked "
            f"(sent before the server closed: {sent / MB:.2f} MB, {sent_chunked / MB:.2f} MB)"
        )
        figures += [
            Figure(
                "attacks.upload_page_p99",
                _p99(phone.times),
                "ms",
                1000.0,
                "target",
                note=f"/table from {OTHER} while {note} ({len(phone.times)} pages, "
                f"{phone.failed} failed{size})",
            ),
            Figure(
                "attacks.upload_disk_bytes",
                float(written + grown),
                "bytes",
                note=f"written to storage by the server meanwhile ({written} B of write_bytes, "
                f"state and temporary directories grew {grown} B) while {note}",
            ),
        ]
    return figures
