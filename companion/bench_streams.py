"""``companion bench`` rows for the live streams: a soak and a crowd of dropped phones.

Both run ``companion run --mock`` in its own process on loopback, seat phones the way
a phone does (the host sets up a game, each phone opens its seat's link and confirms),
and read the server from outside: its RSS and threads in ``/proc``, the time a page
takes.

- soak: 12 phones on their streams (the mummy, the table, four seekers, the watching
  seat on Loot N Run and the crypt, some seats on two phones) while the bots play maze
  games at a command a second (figures moved on the simulated board; a server of
  ``companion run``'s shape in a process of its own, ``--server``); the highest RSS
  after the first minute less RSS at the first minute (10 minutes; ``--quick``: 12 s,
  the first 4 s left out), and the bytes of the stream messages after each's first;
- dropped: 40 phones open their streams and vanish at once (their sockets reset);
  the slowest of ``/healthz`` and a page in the seconds after.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The figures' targets, printed beside them.
TARGETS = {
    "streams.soak_rss_growth": "under 5 MB after the first minute",
    "streams.dropped_worst_page": "under 1000 ms",
}

TOKEN = re.compile(r'name="csrf" value="([^"]+)"')
COLOURS = ["red", "turquoise", "blue", "violet"]
#: Each phone's seat and stream.
PHONES = [
    ("mummy", "/api/mummy/stream"),
    ("table", "/api/table/stream"),
    ("seeker0", "/api/seeker/stream"),
    ("seeker1", "/api/seeker/stream"),
    ("seeker2", "/api/seeker/stream"),
    ("seeker3", "/api/seeker/stream"),
    ("watch", "/lootnrun/api/stream"),
    ("watch", "/crypt/api/stream"),
    ("table", "/api/table/stream"),
    ("seeker0", "/api/seeker/stream"),
    ("mummy", "/api/mummy/stream"),
    ("watch", "/crypt/api/stream"),
]
DROPPED = 40


class _Site:
    """The companion as phones see it: the host's cookies, each seat's cookies."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.port = port
        self.host, _ = self._opener()
        self._get(self.host, "/")  # the first device to open the companion is the host
        status = self._post_json(self.host, "/api/host/game", {"colours": COLOURS})
        self.codes = {s["seat"]: s["code"] for s in status["table"]["seats"]}
        self.cookies: dict[str, str] = {}
        for seat, code in self.codes.items():
            opener, jar = self._opener()
            html = self._get(opener, f"/join/{code}")
            found = TOKEN.search(html)
            if found is None:
                raise RuntimeError(f"no join form for {seat}")
            form = urllib.parse.urlencode({"csrf": found.group(1), "takeover": "1"}).encode()
            with opener.open(self.base + f"/join/{code}", data=form, timeout=10) as res:
                res.read()
            self.cookies[seat] = "; ".join(f"{c.name}={c.value}" for c in jar)
        self.magnets: list[int] = json.loads(self._get(self.host, "/sim/api/board"))["magnets"]

    def _opener(self) -> tuple[urllib.request.OpenerDirector, http.cookiejar.CookieJar]:
        jar = http.cookiejar.CookieJar()
        return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)), jar

    def _get(self, opener: urllib.request.OpenerDirector, path: str) -> str:
        with opener.open(self.base + path, timeout=10) as res:
            text: str = res.read().decode()
            return text

    def _post_json(self, opener: urllib.request.OpenerDirector, path: str, body: Any) -> Any:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with opener.open(request, timeout=10) as res:
            return json.loads(res.read())

    def host_post(self, path: str, body: Any = None) -> Any:
        """A JSON request of the host's."""
        return self._post_json(self.host, path, {} if body is None else body)

    def toggle(self, position: int) -> None:
        self.host_post("/sim/api/toggle", {"position": position})

    def request_stream(self, seat: str, path: str, address: str = "127.0.0.1") -> socket.socket:
        """A phone at ``address`` (on loopback) asks for its stream (the answer is read
        by ``answered``)."""
        sock = socket.create_connection(
            ("127.0.0.1", self.port), timeout=10, source_address=(address, 0)
        )
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
        head += f"Accept: text/event-stream\r\nCookie: {self.cookies[seat]}\r\n\r\n"
        sock.sendall(head.encode())
        return sock

    def open_stream(self, seat: str, path: str, address: str = "127.0.0.1") -> socket.socket:
        """A phone's stream, its answer's head read (so the server is past the doors)."""
        sock = self.request_stream(seat, path, address)
        if not answered(sock, time.monotonic() + 10):
            raise RuntimeError(f"{path} did not answer within 10 s")
        sock.setblocking(False)
        return sock

    def page_ms(self, path: str, cookie: str = "") -> float:
        """Milliseconds for one page (a fresh connection, as a phone's next tap)."""
        started = time.perf_counter()
        request = urllib.request.Request(self.base + path, headers={"Cookie": cookie})
        with urllib.request.urlopen(request, timeout=30) as res:
            res.read()
        return (time.perf_counter() - started) * 1000


class _Reader:
    """Reads every phone's stream in one thread; counts the data messages' bytes."""

    def __init__(self, socks: list[socket.socket], *, keep_texts: bool = False) -> None:
        self.selector = selectors.DefaultSelector()
        self.buffers = {s: b"" for s in socks}
        self.messages: dict[socket.socket, list[int]] = {s: [] for s in socks}
        #: Each message's text, when asked for (``bench_pages`` weighs them unslimmed).
        self.texts: dict[socket.socket, list[bytes]] | None = (
            {s: [] for s in socks} if keep_texts else None
        )
        for sock in socks:
            self.selector.register(sock, selectors.EVENT_READ)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="phones", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(0.2):
                sock: Any = key.fileobj
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self.selector.unregister(sock)
                    continue
                data = self.buffers[sock] + chunk
                *events, rest = data.split(b"\n\n")
                self.buffers[sock] = rest
                for event in events:
                    if b"data:" in event:
                        self.messages[sock].append(len(event) + 2)
                        if self.texts is not None:
                            self.texts[sock].append(event)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.selector.close()


def phone_address(i: int) -> str:
    """The ``i``-th phone's own address on loopback, as each phone has its own on the
    Wi-Fi (the server limits what one address may hold)."""
    return f"127.0.{1 + i // 200}.{10 + i % 200}"


def answered(sock: socket.socket, deadline: float) -> bool:
    """Whether the stream's answer began with 200 before ``deadline`` (only the head is
    taken from the socket: the events stay for the reader)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        sock.settimeout(left)
        try:
            peek = sock.recv(4096, socket.MSG_PEEK)
        except (TimeoutError, OSError):
            return False
        if not peek:
            return False
        end = peek.find(b"\r\n\r\n")
        if end >= 0:
            return sock.recv(end + 4).startswith(b"HTTP/1.1 200")
        time.sleep(0.01)


def _rss_mb(pid: int) -> float:
    found = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    return float(found.group(1)) / 1024 if found else 0.0


def bench_streams(quick: bool, run_companion: Callable[[str], tuple[Any, int, float]]) -> list[Any]:
    """The soak and the dropped phones, each in a fresh companion."""
    from companion.bench import Figure

    figures: list[Figure] = []
    soak_s, settle_s = (12.0, 4.0) if quick else (600.0, 60.0)
    with tempfile.TemporaryDirectory() as directory:
        proc, port = _playing_server(directory)
        try:
            site = _Site(port)
            socks = [
                site.open_stream(seat, path, phone_address(i))
                for i, (seat, path) in enumerate(PHONES)
            ]
            reader = _Reader(socks)
            rss: list[tuple[float, float]] = []
            started = time.monotonic()
            flips = 0
            try:
                assert proc.stdin is not None
                proc.stdin.write("play\n")  # the bots play, a command a second
                proc.stdin.flush()
                while time.monotonic() - started < soak_s:
                    flips += 1
                    rss.append((time.monotonic() - started, _rss_mb(proc.pid)))
                    time.sleep(max(0.0, started + flips - time.monotonic()))
            finally:
                reader.close()
                for sock in socks:
                    sock.close()
            later = [mb for at, mb in rss if at >= settle_s]
            growth = max(later) - later[0]  # the peak: never below 0
            sizes = [n for counts in reader.messages.values() for n in counts[1:]]
            firsts = [counts[0] for counts in reader.messages.values() if counts]
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    soak_note = f"12 phones, the bots play a command a second, {soak_s:g} s"
    figures += [
        Figure(
            "streams.soak_rss_growth",
            growth,
            "MB",
            5.0,
            "target",
            note=f"{soak_note}: the highest RSS after {settle_s:g} s less RSS at {settle_s:g} s",
        ),
        Figure("streams.soak_rss_end", rss[-1][1], "MB", note=soak_note),
        Figure(
            "streams.message_bytes",
            sum(sizes) / max(1, len(sizes)),
            "bytes",
            note=f"mean of {len(sizes)} stream messages after each stream's first",
        ),
        Figure(
            "streams.first_message_bytes",
            sum(firsts) / max(1, len(firsts)),
            "bytes",
            note="mean first message (it carries the maze)",
        ),
    ]
    figures += _dropped(run_companion, quick)
    return figures


def _dropped(run_companion: Callable[[str], tuple[Any, int, float]], quick: bool) -> list[Any]:
    from companion.bench import Figure

    watch_s = 3.0 if quick else 30.0
    with tempfile.TemporaryDirectory() as directory:
        proc, port, _ = run_companion(directory)
        try:
            site = _Site(port)
            table_cookie = site.cookies["table"]
            calm = max(site.page_ms("/healthz"), site.page_ms("/table", table_cookie))
            socks = [
                site.request_stream(*PHONES[i % len(PHONES)], phone_address(i))
                for i in range(DROPPED)
            ]
            deadline = time.monotonic() + 5
            streaming = sum(answered(sock, deadline) for sock in socks)
            for sock in socks:  # gone at once, as when the Wi-Fi drops: a reset, no goodbye
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
            worst = 0.0
            started = time.monotonic()
            while time.monotonic() - started < watch_s:
                worst = max(worst, site.page_ms("/healthz"), site.page_ms("/table", table_cookie))
                site.toggle(site.magnets[0])
                time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return [
        Figure(
            "streams.dropped_worst_page",
            worst,
            "ms",
            1000.0,
            "target",
            note=f"/healthz and /table over {watch_s:g} s after {DROPPED} phones on their "
            f"streams dropped at once ({streaming} had their stream open; calm: {calm:.1f} ms)",
        )
    ]


def _playing_server(state_dir: str) -> tuple[subprocess.Popen[str], int]:
    """``python -m companion.bench_streams --server``: its process and port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.bench_streams", "--server", state_dir],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("port "):
        proc.kill()
        raise RuntimeError("the playing server did not start")
    return proc, int(line.split()[1])


def _serve_and_play(state_dir: str) -> None:
    """The mock appliance behind waitress as ``companion run`` serves it; on "play"
    the bots play maze games with the table's colours, a command a second."""
    from companion.board.config import default_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.autoplay import play_game
    from companion.service.webserver import serve
    from companion.web import create_app
    from companion.web.contract import MAX_BODY

    maze, text = load_maze(None)
    app = build(default_config(), maze, text, state_dir=Path(state_dir), mock=True)
    web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
    server, _ = serve(web, host="127.0.0.1", port=0, max_body=MAX_BODY)
    threading.Thread(target=server.run, daemon=True).start()
    print(f"port {server.effective_port}", flush=True)
    if sys.stdin.readline().strip() != "play":
        return
    colours = list(web.extensions["companion.seats"].table.colours)
    while True:
        play_game(app, colours, pace=lambda: time.sleep(1.0))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--server":
        _serve_and_play(sys.argv[2])
