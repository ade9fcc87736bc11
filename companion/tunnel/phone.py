"""A phone in another house, as the tests and the bench drive it: https to a tunnel's
edge (a stand-in here: its certificate is self-signed, so it is not checked), seated by
the remote link, reading its live page by each transport ``static/live.js`` may pick."""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import queue
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

#: The second copy of a command leaves this long after the first (``play.js``'s
#: ``COPY_AFTER_MS``).
COPY_AFTER_S = 0.04


@functools.cache
def _context() -> ssl.SSLContext:
    """One client context for every connection (as a browser keeps one): making it loads
    the system's certificates, tens of milliseconds that no phone pays per request."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class FarPhone:
    """One remote device: its cookie, its requests through the edge at ``base``."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        parts = urlsplit(base)
        self.base, self.host, self.port = base, parts.hostname or "", parts.port or 443
        self.https = parts.scheme == "https"
        self.timeout = timeout
        self.cookie = ""

    def connection(self) -> http.client.HTTPConnection:
        if self.https:
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=self.timeout, context=_context()
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        conn = self.connection()
        sent = {"Cookie": self.cookie, "Origin": self.base, **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=sent)
        res = conn.getresponse()
        for name, value in res.getheaders():
            if name.lower() == "set-cookie":
                self.cookie = value.split(";", 1)[0]
        return conn, res

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, bytes, Any]:
        """One whole request: status, body, the response (its headers)."""
        conn, res = self.request(method, path, body)
        try:
            return res.status, res.read(), res
        finally:
            conn.close()

    def call_twice(self, path: str, body: dict[str, Any]) -> tuple[int, bytes, Any]:
        """A command as a far page sends it (``play.js`` ``postTwice``): two copies with
        one id, the second ``COPY_AFTER_S`` later; the first good answer, else the first's."""
        sent = {"id": secrets.token_hex(8), **body}
        answers: queue.Queue[tuple[int, tuple[int, bytes, Any] | BaseException]] = queue.Queue()

        def copy(index: int) -> None:
            if index:
                time.sleep(COPY_AFTER_S)
            try:
                answers.put((index, self.call("POST", path, sent)))
            except (OSError, http.client.HTTPException) as exc:
                answers.put((index, exc))

        for index in (0, 1):
            threading.Thread(target=copy, args=(index,), daemon=True).start()
        got: dict[int, tuple[int, bytes, Any] | BaseException] = {}
        while len(got) < 2:
            index, answer = answers.get(timeout=self.timeout * 2)
            if not isinstance(answer, BaseException) and answer[0] == 200:
                return answer
            got[index] = answer
        first = got[0]
        if isinstance(first, BaseException):
            raise first
        return first

    def join(self, link: str) -> int:
        """Open the remote link (its path): 303 when seated."""
        status, _, _ = self.call("GET", urlsplit(link).path)
        return status


class Messages:
    """The data messages of one live transport, each stamped on arrival (a thread)."""

    def __init__(self, phone: FarPhone, stream: str, mode: str) -> None:
        self.phone, self.stream, self.mode = phone, stream, mode
        self.got: list[tuple[float, dict[str, Any]]] = []
        #: Each message's SSE id (``web/stamps.py``), "" when it has none.
        self.ids: list[str] = []
        self.cursors: list[str] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()
        self.stopped = False
        self.res: http.client.HTTPResponse | None = None
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"far-{mode}")
        self.thread.start()

    def _run(self) -> None:
        try:
            if self.mode == "poll":
                self._poll()
            else:
                self._stream()
        except (OSError, http.client.HTTPException, ValueError):
            return

    def _keep(self, text: str) -> None:
        for frame in text.split("\n\n"):
            lines = frame.split("\n")
            data = [line[6:] for line in lines if line.startswith("data: ")]
            if data:
                ids = [line[4:] for line in lines if line.startswith("id: ")]
                with self.lock:
                    self.got.append((time.perf_counter(), json.loads("\n".join(data))))
                    self.ids.append(ids[-1] if ids else "")

    def _stream(self) -> None:
        if self.mode == "sse":
            _, res = self.phone.request("GET", self.stream, headers={"Accept": "text/event-stream"})
        else:
            _, res = self.phone.request("POST", "/live", {"stream": self.stream, "mode": "post"})
        self.res = res
        self.statuses.append(res.status)
        buffer = ""
        for line in _lines(res):
            buffer += line
            if buffer.endswith("\n\n"):
                self._keep(buffer)
                buffer = ""

    def _poll(self) -> None:
        cursor = ""
        while not self.stopped:
            body = {"stream": self.stream, "mode": "poll", "after": cursor}
            status, data, res = self.phone.call("POST", "/live", body)
            self.statuses.append(status)
            if status == 204:
                continue
            if status != 200:
                time.sleep(0.5)
                continue
            cursor = res.getheader("X-Live-Cursor") or ""
            self.cursors.append(cursor)
            self._keep(data.decode() + "\n\n")

    def messages(self) -> list[dict[str, Any]]:
        with self.lock:
            return [data for _, data in self.got]

    def close(self) -> None:
        self.stopped = True
        sock = getattr(getattr(getattr(self.res, "fp", None), "raw", None), "_sock", None)
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _lines(res: http.client.HTTPResponse) -> Iterator[str]:
    while True:
        line = res.readline()
        if not line:
            return
        yield line.decode()


class Either:
    """A far page's two live channels (``play.js``): each message taken from whichever
    brings it first, never one older than the last taken (``web/stamps.py``)."""

    def __init__(self, phone: FarPhone, stream: str, mode: str) -> None:
        self.channels = (Messages(phone, stream, mode), Messages(phone, stream, mode))

    @property
    def got(self) -> list[tuple[float, dict[str, Any]]]:
        """The messages taken, each with the time it first arrived."""
        arrived: list[tuple[float, str, dict[str, Any]]] = []
        for channel in self.channels:
            with channel.lock:
                arrived += [(t, i, d) for (t, d), i in zip(channel.got, channel.ids, strict=True)]
        taken: list[tuple[float, dict[str, Any]]] = []
        shown: tuple[str, int] | None = None
        for at, ident, data in sorted(arrived, key=lambda a: a[0]):
            stamp = newer(ident, shown)
            if stamp is not None:
                shown = stamp
                taken.append((at, data))
        return taken

    def messages(self) -> list[dict[str, Any]]:
        return [data for _, data in self.got]

    def close(self) -> None:
        for channel in self.channels:
            channel.close()


def newer(ident: str, shown: tuple[str, int] | None) -> tuple[str, int] | None:
    """The (run, stamp) of a message with SSE id ``ident`` when it is newer than
    ``shown``, else None (as ``play.js`` decides)."""
    run, _, stamp = ident.partition("-")
    if not stamp.isdigit():
        return shown or ("", 0)
    if shown is not None and shown[0] == run and int(stamp) <= shown[1]:
        return None
    return run, int(stamp)
