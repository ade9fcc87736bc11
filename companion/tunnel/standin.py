"""A stand-in for a tunnel provider's edge, built from its documentation, for the tests and
the bench (the real edge is on the internet, which this machine does not reach).

It does to a request what the provider's documentation says its edge does:

- **terminates TLS**: the browser speaks https to the stand-in (a self-signed
  certificate made with ``openssl``); the stand-in speaks plain HTTP to the tunnel's
  loopback listener, as the provider's client on the Pi does;
- **holds GET answers back until they end** (``buffer_get``): Cloudflare's quick
  tunnels do not pass server-sent events; an event stream comes, if at all, when it
  closes.  The answer to a POST passes as it comes;
- **adds its forwarding headers**: Cloudflare ``Cf-Connecting-Ip``, ``Cf-Ray``,
  ``X-Forwarded-For`` and ``-Proto`` and the public ``Host``; Tailscale Funnel
  ``X-Forwarded-For``, ``-Proto``, ``-Host`` and ``Tailscale-Funnel-Request`` with the
  Pi's own ``Host``;
- **has a request limit**: at most ``in_flight`` requests at once (Cloudflare's quick
  tunnels: 200; more are answered 429), bodies up to ``max_body`` (413), answers within
  ``answer_s`` (Cloudflare: 100 s, then 524);
- **delay and loss** on the internet side (``Link``): each piece of data waits half the
  round trip, and a lost segment (``loss``) waits TCP's retransmission timeout on top
  (200 ms at least, as Linux's ``TCP_RTO_MIN``), in order, as over one TCP connection.

Every answer closes its connection (``Connection: close``): a browser opens another.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import ssl
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

#: The longest request head the stand-in reads.
MAX_HEAD = 64 * 1024
#: Linux's shortest retransmission timeout (``TCP_RTO_MIN``).
RTO_MIN_S = 0.2


@dataclass(frozen=True)
class Profile:
    """What one provider's edge does, from its documentation."""

    name: str
    #: Requests at once before 429 (Cloudflare's quick tunnels: 200 in flight).
    in_flight: int = 200
    #: The longest request body (Cloudflare's free plans: 100 MB).
    max_body: int = 100 * 1024 * 1024
    #: The longest wait for an answer's head before 524 (Cloudflare: 100 s).
    answer_s: float = 100.0
    #: Whether the Pi's listener sees the public host (Cloudflare) or its own (Funnel,
    #: with the public one in ``X-Forwarded-Host``).
    public_host: bool = True


CLOUDFLARE = Profile("cloudflare")
#: Funnel's documentation names no in-flight limit or answer time: the same bounds are
#: kept, so a test cannot pass on one provider that would fail on the other.
TAILSCALE = Profile("tailscale", public_host=False)
PROFILES = {p.name: p for p in (CLOUDFLARE, TAILSCALE)}


@dataclass
class Link:
    """Delay and loss between the remote phone and the edge (each way half the round trip)."""

    rtt_s: float = 0.0
    loss: float = 0.0
    seed: int = 0
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def delay(self) -> float:
        """The one-way delay of one piece of data (a lost one is sent again after the RTO)."""
        wait = self.rtt_s / 2
        while self.loss and self.rng.random() < self.loss:
            wait += max(RTO_MIN_S, self.rtt_s * 2)
        return wait


def self_signed(directory: Path, host: str = "127.0.0.1") -> ssl.SSLContext:
    """A TLS server context with a certificate for ``host`` made by ``openssl``."""
    key, cert = directory / "edge.key", directory / "edge.crt"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={host}",
            "-addext", f"subjectAltName=IP:{host},DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


class _Pipe:
    """Writes to one side in order, each piece after the path's delay."""

    def __init__(self, writer: asyncio.StreamWriter, path: Link | None) -> None:
        self.writer, self.path = writer, path
        self.last = 0.0
        self.queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()
        self.task = asyncio.ensure_future(self._run())

    def send(self, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + (self.path.delay() if self.path else 0.0)
        self.last = max(self.last, due)  # in order, as one TCP connection
        self.queue.put_nowait((self.last, data))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            item = await self.queue.get()
            if item is None:
                return
            due, data = item
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self.writer.write(data)
            with contextlib.suppress(ConnectionError):
                await self.writer.drain()

    async def finish(self) -> None:
        self.queue.put_nowait(None)
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            await self.task


class StandIn:
    """A provider's edge on ``127.0.0.1``, forwarding to ``upstream``'s port (a thread)."""

    def __init__(
        self,
        upstream_port: int,
        profile: Profile = CLOUDFLARE,
        *,
        buffer_get: bool = True,
        path: Link | None = None,
        tls: bool = True,
    ) -> None:
        self.upstream_port = upstream_port
        self.profile = profile
        self.buffer_get = buffer_get
        self.path = path
        self._dir = tempfile.TemporaryDirectory(prefix="edge-")
        self.context = self_signed(Path(self._dir.name)) if tls else None
        self.port = 0
        self.in_flight = 0
        #: Requests answered 429 for the in-flight limit (for the tests).
        self.refused = 0
        #: While down, the edge cuts every connection and takes none (a dropout).
        self.down = False
        #: Each connection's task and the transports a dropout aborts (phone and Pi sides).
        self._clients: dict[asyncio.Task[None], list[asyncio.WriteTransport]] = {}
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._run, name="edge", daemon=True)

    @property
    def url(self) -> str:
        return f"{'https' if self.context else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> StandIn:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the tunnel stand-in did not start")
        return self

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Every connection ended, then the loop."""
        if self._loop.is_running():
            done = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
            with contextlib.suppress(Exception):
                done.result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._dir.cleanup()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.set_exception_handler(_quiet_cancel)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._client, "127.0.0.1", 0, ssl=self.context)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            with contextlib.suppress(Exception):
                self._loop.run_until_complete(self._server.wait_closed())
            self._loop.close()

    def drop(self, down: bool = True) -> None:
        """The remote phone's connection drops (every connection cut, none taken) or
        comes back."""
        self.down = down
        if down:
            done = asyncio.run_coroutine_threadsafe(self._cut(), self._loop)
            done.result(10)

    async def _cut(self) -> None:
        """Every connection ends, on both sides, as a cut wire ends them.

        The transports are aborted as well as the tasks cancelled: a cancellation can be
        lost (Python 3.11's ``wait_for`` drops one that lands as its answer comes), and a
        held stream would then go on until the Pi ends it."""
        while self._clients:
            for task, transports in list(self._clients.items()):
                for transport in transports:
                    transport.abort()
                task.cancel()
            await asyncio.wait(list(self._clients), timeout=0.5)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        task = asyncio.current_task()
        assert task is not None
        self._clients[task] = [writer.transport]
        out = _Pipe(writer, self.path)
        try:
            await self._request(reader, writer, out)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, ValueError):
            pass
        finally:
            self._clients.pop(task, None)
            if self.down:
                out.task.cancel()
                writer.transport.abort()
            await out.finish()
            with contextlib.suppress(Exception):
                writer.close()

    async def _request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, out: _Pipe
    ) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if self.path is not None:  # the request's way in
            await asyncio.sleep(self.path.delay())
        if len(head) > MAX_HEAD:
            return out.send(_status(431, "Request Header Fields Too Large"))
        line, *lines = head.decode("latin-1").split("\r\n")
        method = line.split(" ", 1)[0]
        headers = [tuple(h.split(":", 1)) for h in lines if ":" in h]
        length = next((int(v) for k, v in headers if k.strip().lower() == "content-length"), 0)
        if length > self.profile.max_body:
            return out.send(_status(413, "Payload Too Large"))
        if self.in_flight >= self.profile.in_flight:
            self.refused += 1
            return out.send(_status(429, "Too Many Requests"))
        body = await reader.readexactly(length) if length else b""
        self.in_flight += 1
        try:
            await self._forward(method, line, headers, body, writer, out)
        finally:
            self.in_flight -= 1

    async def _forward(
        self,
        method: str,
        line: str,
        headers: list[tuple[str, ...]],
        body: bytes,
        writer: asyncio.StreamWriter,
        out: _Pipe,
    ) -> None:
        peer = writer.get_extra_info("peername") or ("0.0.0.0", 0)
        client = str(peer[0])
        public = f"127.0.0.1:{self.port}"
        drop = {"connection", "keep-alive", "x-forwarded-for", "x-forwarded-proto"}
        if self.profile.name == "cloudflare":
            drop |= {"cf-connecting-ip", "cf-ray"}
        kept: list[tuple[str, str]] = []
        forwarded_for = ""
        for name, value in headers:
            lower = name.strip().lower()
            if lower == "x-forwarded-for":
                forwarded_for = value.strip()
            if lower not in drop and not (lower == "host" and not self.profile.public_host):
                kept.append((name.strip(), value.strip()))
        chain = f"{forwarded_for}, {client}" if forwarded_for else client
        added = [("X-Forwarded-For", chain), ("X-Forwarded-Proto", "https")]
        if self.profile.name == "cloudflare":
            added += [("Cf-Connecting-Ip", client), ("Cf-Ray", secrets.token_hex(8) + "-AMS")]
        else:
            added += [
                ("Host", f"127.0.0.1:{self.upstream_port}"),
                ("X-Forwarded-Host", public),
                ("Tailscale-Funnel-Request", "?1"),
            ]
        request = (
            line + "\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in kept + added)
            + "Connection: close\r\n\r\n"
        ).encode("latin-1") + body  # fmt: skip
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            return out.send(_status(502, "Bad Gateway"))
        task = asyncio.current_task()
        if task in self._clients:
            self._clients[task].append(up_writer.transport)
        try:
            up_writer.write(request)
            await up_writer.drain()
            try:
                async with asyncio.timeout(self.profile.answer_s):
                    first = await up_reader.readuntil(b"\r\n\r\n")
            except TimeoutError:
                return out.send(_status(524, "A Timeout Occurred"))
            except asyncio.IncompleteReadError:
                return out.send(_status(502, "Bad Gateway"))
            held = method == "GET" and self.buffer_get
            pieces = [first]
            if not held:
                out.send(_close(first))
            while True:
                chunk = await up_reader.read(65536)
                if not chunk:
                    break
                if held:
                    pieces.append(chunk)
                else:
                    out.send(chunk)
            if held:
                out.send(_close(b"".join(pieces)))
        finally:
            with contextlib.suppress(Exception):
                up_writer.close()


def _quiet_cancel(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
    """A connection cut off by ``stop`` is no error."""
    if not isinstance(context.get("exception"), asyncio.CancelledError):
        loop.default_exception_handler(context)


def _close(data: bytes) -> bytes:
    """The answer's head says the connection closes after it (a keep-alive would wait)."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return data
    lines = [
        h for h in head.split(b"\r\n") if not h.lower().startswith((b"connection:", b"keep-alive:"))
    ]
    return b"\r\n".join([*lines, b"Connection: close"]) + sep + rest


def _status(code: int, reason: str) -> bytes:
    body = f"{code} {reason}\n".encode()
    return (
        f"HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
