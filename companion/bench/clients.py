"""The bench's clients of a companion on loopback: a ``companion run --mock`` process,
the host's session, an SSE reader, and phones seated the way a phone seats itself.

Shared by the sections that talk to a real server (end to end, service, web, streams,
pages, attacks, player); it imports no section.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import re
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any


class SseClient:
    """A plain HTTP client reading a server-sent-event stream; stamps every event."""

    def __init__(self, host: str, port: int, path: str, cookie: str = "") -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=10)
        headers = {"Accept": "text/event-stream", "Cookie": cookie}
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self._lines():
                if raw.startswith("data: "):
                    data = json.loads(raw[6:])
                    with self.lock:
                        self.events.append((time.perf_counter(), data))
        except (OSError, ValueError, http.client.HTTPException):
            return

    def _lines(self) -> Iterator[str]:
        while True:
            line = self.response.readline()
            if not line:
                return
            yield line.decode().rstrip("\n")

    def close(self) -> None:
        self.connection.close()


def ready_port(proc: subprocess.Popen[str]) -> int:
    """The port a starting ``companion run`` logs in its "ready on HOST:PORT" line."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("companion run exited before it was ready")
        if "ready on" in line:
            return int(line.rsplit(":", 1)[1])


def run_companion(
    state_dir: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], int, float]:
    """``companion run --mock`` on loopback (``env``: its environment): process, port,
    seconds until its first page."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "run",
            "--mock",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--state-dir",
            state_dir,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    port = ready_port(proc)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as res:
                res.read()
                break
        except OSError:
            time.sleep(0.01)
    return proc, port, time.perf_counter() - started


def host_session(base: str) -> tuple[urllib.request.OpenerDirector, str]:
    """A client holding the host's cookie (the first device to open the companion is
    the host; ``/sim`` opens only for it), and that cookie as a header value."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(base + "/", timeout=5) as res:
        res.read()
    return opener, "; ".join(f"{c.name}={c.value}" for c in jar)


TOKEN = re.compile(r'name="csrf" value="([^"]+)"')
COLOURS = ["red", "turquoise", "blue", "violet"]


class Site:
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


class Reader:
    """Reads every phone's stream in one thread; counts the data messages' bytes."""

    def __init__(self, socks: list[socket.socket], *, keep_texts: bool = False) -> None:
        self.selector = selectors.DefaultSelector()
        self.buffers = {s: b"" for s in socks}
        self.messages: dict[socket.socket, list[int]] = {s: [] for s in socks}
        #: Each message's text, when asked for (``pages`` weighs them unslimmed).
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
