"""The web server: waitress, tuned so that one phone on the Wi-Fi cannot take the table down.

Waitress reads every request in one loop thread and hands complete requests to a pool of
worker threads; the live streams leave it for the companion's own selector thread
(``web/broadcast.py``).  What an idle or hostile device could hold is bounded here:

- **connections per address**: a phone's browser opens at most 6 to one site; a device
  with more than ``Limits.connections_per_address`` open gets a short 503 and a closed
  socket, so idle or half-sent requests from one address never fill the server;
- **every connection** waitress serves, and every stream, within the process's file
  handles (``limits_for``), so the fd table cannot run out through the web server;
- **idle and partial requests**: a connection idle for ``idle_s`` is closed, and so is a
  request not received whole within ``request_s`` of its first byte (however slowly it
  trickles in);
- **bodies** over the app's limit are refused from their ``Content-Length`` before a byte
  of them is read, and a chunked body is refused once it passes the limit, which is
  below waitress's ``inbuf_overflow``: nothing of a request is ever written to disk;
- **a full fd table anyway** (another program's doing, or a lower ``ulimit``): a
  rate-limited warning, and the server stops accepting for a moment instead of logging
  the same traceback in a busy loop; it answers again as soon as handles free up.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import resource
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger("companion.web")

#: The handles the unit allows (``LimitNOFILE`` in the systemd unit): raised to at start.
WANTED_FILES = 4096
#: Handles kept for everything but the web: the journal, pins, pipes, logs, static files
#: each worker thread may have open.
RESERVED_FILES = 128
#: Errors of ``accept()`` that mean the process (or the system) has no handle left.
OUT_OF_HANDLES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: What a device past its connection limit is told before its socket closes.
TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Retry-After: 10\r\nConnection: close\r\nContent-Length: 47\r\n\r\n"
    b"Too many connections from this device: wait.\r\n\r\n"
)


@dataclass(frozen=True)
class Limits:
    """What one device, one seat and everyone together may hold open."""

    #: Connections waitress serves at once (idle, reading, answering); streams not counted.
    connections: int = 480
    #: ... of them from one address.  A browser opens up to 6 to a site, so one laptop
    #: playing every seat in windows of their own (``make run``; the player bench) opens
    #: about 30: 64 leaves them room while one device still holds under a seventh.
    connections_per_address: int = 64
    #: Live streams at once, over every seat.
    streams: int = 480
    #: ... from one address (a browser holds at most 6 connections to a site).
    streams_per_address: int = 12
    #: ... of one playing seat or of the host.
    streams_per_seat: int = 12
    #: ... of the watching seat, shared by every spectator.
    streams_watching: int = 48
    #: A keep-alive connection with nothing to do is closed after this long.
    idle_s: float = 10.0
    #: A request must arrive whole (head and body) within this long of its first byte.
    request_s: float = 10.0
    #: The longest request head (the cookies of a phone are well under 4 kB).
    max_header: int = 32 * 1024
    #: The longest request body (the app's own limit: ``web.contract.MAX_BODY``).
    max_body: int = 64 * 1024
    #: Worker threads for complete requests (streams hold none).
    threads: int = 32
    #: Seconds between two warnings about a full fd table.
    warn_every_s: float = 10.0
    #: Seconds the server stops accepting after running out of handles.
    pause_s: float = 0.5


def limits_for(files: int, **given: Any) -> Limits:
    """Limits whose connections and streams fit in ``files`` handles with room to spare."""
    budget = max(32, files - RESERVED_FILES)
    half = max(16, min(Limits.connections, budget // 2))
    return Limits(
        **{"connections": half, "streams": max(16, min(Limits.streams, budget - half)), **given}
    )


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """Raise this process's soft fd limit towards ``wanted`` (never above the hard one);
    the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft) if soft != resource.RLIM_INFINITY else wanted


class Throttled:
    """A warning said at most once per ``every`` seconds, with how often it was held back."""

    def __init__(
        self,
        logger: logging.Logger,
        every: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.every = every
        self.clock = clock
        self.last = -float("inf")
        self.held = 0
        self._lock = threading.Lock()

    def warn(self, message: str, *args: object) -> bool:
        """Log ``message`` unless one was logged within ``every`` s; whether it was."""
        with self._lock:
            now = self.clock()
            if now - self.last < self.every:
                self.held += 1
                return False
            held, self.held, self.last = self.held, 0, now
        more = f" ({held} more since the last warning)" if held else ""
        self.logger.warning(message + more, *args)
        return True


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """Waitress's channel, remembering when the request it is reading began."""

    began: float | None = None

    def received(self, data: bytes) -> bool:
        if self.request is None and data and not self.requests:
            self.began = time.monotonic()
        done: bool = super().received(data)
        if self.request is None:
            self.began = None
        return done


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """Waitress's TCP server with a per-address connection limit, a deadline for each
    request and a calm answer to a full fd table."""

    channel_class = GuardedChannel
    limits = Limits()
    paused_until = 0.0
    next_channel_cleanup = 0.0
    in_connection_overflow = False

    def __init__(self, *args: Any, limits: Limits, **kw: Any) -> None:
        self.limits = limits
        self.full_table = Throttled(log, limits.warn_every_s)
        self.busy = Throttled(log, limits.warn_every_s)
        super().__init__(*args, **kw)

    def readable(self) -> bool:
        """Whether to accept now: waitress's sweep of idle connections first, then not
        while it serves all it may (a rate-limited warning: under an attack from many
        addresses it could say so at every connection) or after running out of handles."""
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        if not self.accepting:
            return False
        full = len(self._map) >= self.adj.connection_limit
        if full and not self.in_connection_overflow:
            self.busy.warn(
                "%d connections open, as many as the server serves at once: new ones wait",
                self.adj.connection_limit,
            )
        self.in_connection_overflow = full
        return not full and time.monotonic() >= self.paused_until

    def maintenance(self, now: float) -> None:
        """Waitress's sweep of idle connections, and of requests sent too slowly (over a
        copy of the channels: waitress's own sweep walks the live dict)."""
        idle = now - self.adj.channel_timeout
        late = time.monotonic() - self.limits.request_s
        for channel in list(self.active_channels.values()):
            if channel.requests:
                continue
            began = getattr(channel, "began", None)
            if channel.last_activity < idle or (began is not None and began < late):
                channel.will_close = True

    def from_address(self, host: str) -> int:
        """Connections open from ``host`` (over every listening socket: they share a map)."""
        return sum(
            1
            for channel in list(self._map.values())
            if isinstance(channel, HTTPChannel) and _host(channel.addr) == host
        )

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
        except OSError as exc:
            if exc.errno in OUT_OF_HANDLES:
                self.paused_until = time.monotonic() + self.limits.pause_s
                self.full_table.warn(
                    "no file handle left for a new connection (%s): new connections wait "
                    "until some close; the open ones are still served",
                    exc.strerror,
                )
            else:
                log.warning("a connection failed as it was accepted: %s", exc)
            return
        if accepted is None:
            return
        conn, addr = accepted
        addr = self.fix_addr(addr)
        if self.from_address(_host(addr)) >= self.limits.connections_per_address:
            _turn_away(conn)
            return
        try:
            self.set_socket_options(conn)
        except OSError:  # the phone left before it was served
            conn.close()
            return
        self.channel_class(self, conn, addr, self.adj, map=self._map)


def _host(addr: Any) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)


def _turn_away(conn: socket.socket) -> None:
    """Tell a device over its limit so, without waiting on it, and close."""
    with contextlib.suppress(OSError):
        conn.send(TOO_MANY, socket.MSG_DONTWAIT)
    conn.close()


def create(app: Any, *, host: str, port: int, limits: Limits, ident: str = "companion") -> Any:
    """The server for ``app`` on ``host``:``port`` with ``limits`` (like waitress's
    ``create_server``, one guarded server per listening socket)."""
    adj = Adjustments(
        host=host,
        port=port,
        threads=limits.threads,
        ident=ident,
        connection_limit=limits.connections,
        channel_timeout=max(1, round(limits.idle_s)),
        cleanup_interval=1,
        max_request_header_size=limits.max_header,
        # waitress refuses a Content-Length of this or more before reading the body
        max_request_body_size=limits.max_body + 1,
        # ... and keeps smaller bodies in memory: nothing of a request goes to disk
        inbuf_overflow=max(Adjustments.inbuf_overflow, 4 * limits.max_body),
        # poll(), not select(): handles past 1024 are fine
        asyncore_use_poll=True,
        # a phone that resets its connection is no server error (no traceback each time)
        log_socket_errors=False,
    )
    shared: dict[int, Any] = {}
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    servers = [
        GuardedServer(app, shared, dispatcher=dispatcher, adj=adj, sockinfo=info, limits=limits)
        for info in adj.listen
    ]
    if len(servers) == 1:
        return servers[0]
    listening = [(s.effective_host, s.effective_port) for s in servers]
    return MultiSocketServer(shared, adj, listening, dispatcher, servers[-1].log_info)


def serve(app: Any, *, host: str, port: int, max_body: int) -> tuple[Any, Limits]:
    """``companion run``'s server for the Flask ``app``: the fd limit raised, the limits
    that fit in it (the streams' share told to the app), and the server."""
    limits = limits_for(raise_file_limit(), max_body=max_body)
    app.extensions["companion.limits"] = limits  # read by web/stream.py
    return create(app, host=host, port=port, limits=limits), limits
