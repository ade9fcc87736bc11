"""Live streams without a server thread per phone: one small selector loop sends them all.

A stream's view checks the seat as any request does, then hands its connection over
(``hand_off``): waitress forgets the socket, and the ``Broadcaster`` thread writes the
server-sent events on it from then on.  Each stream is a ``Step``: called a few times a
second, it says what to send now (often nothing) and whether the stream stays open (the
seat still valid, the service not closing).  Waitress would keep every byte of a long
response in its buffers and hold a worker thread per phone; here a phone costs a socket
and at most ``MAX_PENDING`` unsent bytes.  A phone that vanishes is dropped within a few
seconds: its close is read at once, and on a silent drop the kernel gives up on the
unacknowledged keepalive (``TCP_USER_TIMEOUT``) or the pending bytes pass their bound.

Each stream counts against its holds (``claim``): at most so many streams in all, from
one address, of one seat (``service/webserver.py``'s ``Limits``); a stream past one of
them is refused before its connection is taken, and its holds are freed when it ends.

Without waitress (Flask's test client) the same ``Step`` runs as a plain generator.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import selectors
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.service.webserver import Limits

log = logging.getLogger(__name__)

#: What to send now ("" for nothing) and whether the stream stays open afterwards.
Step = Callable[[], tuple[str, bool]]
#: What a stream counts against (("address", "10.0.0.7"), ("seat", "watch"), ...).
Key = tuple[str, ...]
#: A key and how many streams it may hold at once.
Hold = tuple[Key, int]

#: How often every stream is asked for news besides a publish (``wake``): seat changes.
TICK_S = 0.25
#: A comment at least this often, so that a silent phone is found out and proxies stay.
KEEPALIVE_S = 5.0
#: Seconds an unacknowledged write may wait before the kernel drops the connection.
DEAD_PEER_S = 5.0
#: Unsent bytes a phone may hold; a phone further behind is dropped (it reconnects).
MAX_PENDING = 64 * 1024
#: The loop ends after this long without any stream (it starts again with the next one).
IDLE_EXIT_S = 5.0
#: The response head: the body runs until the connection closes.
HEAD = (
    b"HTTP/1.1 200 OK\r\n"
    b"Content-Type: text/event-stream; charset=utf-8\r\n"
    b"Cache-Control: no-cache\r\n"
    b"X-Accel-Buffering: no\r\n"
    b"Connection: close\r\n\r\n"
    b"retry: 2000\n\n"
)
#: The head of the same stream sent as the answer to a POST (``web/live.py``): not an
#: event stream and not text, so a proxy that holds event streams back until they end or
#: compresses text (Cloudflare's quick tunnels) passes it as it comes.
POST_HEAD = (
    b"HTTP/1.1 200 OK\r\n"
    b"Content-Type: application/octet-stream\r\n"
    b"Cache-Control: no-cache, no-transform\r\n"
    b"X-Accel-Buffering: no\r\n"
    b"Connection: close\r\n\r\n"
)


@dataclass
class _Stream:
    sock: socket.socket
    step: Step
    pending: bytearray = field(default_factory=bytearray)
    holds: Sequence[Hold] = ()
    quiet_since: float = field(default_factory=time.monotonic)
    open: bool = True
    #: Whose stream it is (its seat's hold: "table", "seeker0", "host", ...).
    label: str = ""


class Broadcaster:
    """One thread, one selector: every handed-over stream's events and keepalives."""

    def __init__(
        self, *, tick: float = TICK_S, keepalive: float = KEEPALIVE_S, limits: Limits | None = None
    ) -> None:
        self.tick = tick
        self.keepalive = keepalive
        self._lock = threading.Lock()
        self._new: list[_Stream] = []
        self._thread: threading.Thread | None = None
        self._wake_in, self._wake_out = socket.socketpair()
        self._wake_in.setblocking(False)
        self._wake_out.setblocking(False)
        self.count = 0  # streams being served (for the tests)
        self.limits = limits or Limits()
        self._held: Counter[Key] = Counter()
        #: Told ``(label, time.perf_counter())`` when a stream's news has been handed
        #: to the kernel (the bench's breakdown; None: nobody listens).
        self.written: Callable[[str, float], object] | None = None
        #: Counts the publishes begun (``publishing``) and ended (``wake``), for the pass
        #: in progress: a change means some streams were asked before the news.
        self._epoch = 0

    def claim(self, holds: Sequence[Hold]) -> Key | None:
        """Count one more stream against each of ``holds``, or, when one of them is at
        its limit, count nothing and name that one."""
        with self._lock:
            for key, most in holds:
                if self._held[key] >= most:
                    return key
            for key, _ in holds:
                self._held[key] += 1
        return None

    def release(self, holds: Sequence[Hold]) -> None:
        """A stream counted by ``claim`` has ended."""
        with self._lock:
            for key, _ in holds:
                self._held[key] -= 1
                if self._held[key] <= 0:
                    del self._held[key]

    def held(self, key: Key) -> int:
        """Streams open now against ``key``."""
        with self._lock:
            return self._held[key]

    def add(
        self, sock: socket.socket, step: Step, holds: Sequence[Hold] = (), head: bytes = HEAD
    ) -> None:
        """Serve ``step`` on ``sock`` from now on (``head`` is sent first); ``holds``
        (claimed before) are released when the stream ends."""
        sock.setblocking(False)
        _tune(sock)
        with self._lock:
            label = next((key[1] for key, _ in holds if key[0] == "seat" and len(key) > 1), "")
            self._new.append(_Stream(sock, step, bytearray(head), holds=holds, label=label))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="streams", daemon=True)
                self._thread.start()
        self.wake()

    def publishing(self) -> None:
        """A game is about to publish (``GameLoop.on_publishing``): news being made
        now may miss it, so the streams are asked again before anything is written."""
        self._epoch += 1

    def wake(self) -> None:
        """Ask every stream now (a game published): cheap, never blocks.  A publish
        announced before the pass began may land in the middle of it: the streams
        asked before it are then asked again, as for ``publishing``."""
        self._epoch += 1
        with contextlib.suppress(OSError):
            self._wake_in.send(b"!")

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._wake_out, selectors.EVENT_READ, None)
        streams: dict[socket.socket, _Stream] = {}
        idle_since = time.monotonic()
        try:
            while True:
                with self._lock:
                    new, self._new = self._new, []
                    if not streams and not new and time.monotonic() - idle_since > IDLE_EXIT_S:
                        self._thread = None
                        return
                for stream in new:
                    streams[stream.sock] = stream
                    selector.register(stream.sock, selectors.EVENT_READ, stream)
                for key, _ in selector.select(0 if new else self.tick):  # new: send at once
                    if key.data is None:
                        with contextlib.suppress(OSError):
                            self._wake_out.recv(4096)
                    else:
                        _read(key.data)
                now = time.monotonic()
                news: set[socket.socket] = set()
                for _ in range(3):  # every stream's news first, ...
                    epoch = self._epoch
                    for stream in streams.values():
                        if not stream.open:
                            if now - stream.quiet_since > self.keepalive:
                                stream.pending.clear()  # its last words went unread
                        elif self._advance(stream, now):
                            news.add(stream.sock)
                    if epoch == self._epoch:  # (a publish while they were made: the
                        break  # streams asked before it are asked again, then all written)
                    self._woken()
                written = self.written
                sent_at: list[tuple[str, float]] = []
                if news:  # a fresh hold of the GIL for the writes (see ``_gil_held_send``)
                    time.sleep(0)
                for stream in list(streams.values()):  # ... then all written together:
                    _send(stream)  # no seat waits while another seat's news is made
                    if written is not None and stream.sock in news:
                        sent_at.append((stream.label, time.perf_counter()))
                for label, at in sent_at:  # (told after the writes: a listener that
                    if written is not None:  # logs to a file must not come between them)
                        written(label, at)
                for stream in list(streams.values()):
                    if (not stream.open and not stream.pending) or stream.sock.fileno() < 0:
                        selector.unregister(stream.sock)
                        del streams[stream.sock]
                        stream.sock.close()
                        self.release(stream.holds)
                self.count = len(streams)
                if streams:
                    idle_since = now
        finally:
            for stream in streams.values():
                with contextlib.suppress(OSError):
                    stream.sock.close()
                self.release(stream.holds)
            selector.close()
            self.count = 0

    def _woken(self) -> bool:
        """Whether a wake came since the last look (and take it)."""
        try:
            return bool(self._wake_out.recv(4096))
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return False

    def _advance(self, stream: _Stream, now: float) -> bool:
        """Ask the stream for news; True when it had some (a keepalive is none)."""
        try:
            text, stream.open = stream.step()
        except Exception:  # a bug in one page's view must not end every stream
            log.exception("a live stream failed: closing it")
            stream.open, text = False, ""
        news = bool(text)
        if not text and now - stream.quiet_since >= self.keepalive:
            text = ": keepalive\n\n"
        if text:
            stream.pending += text.encode()
            stream.quiet_since = now
        if len(stream.pending) > MAX_PENDING:
            log.info("a phone fell %d bytes behind its stream: dropped", len(stream.pending))
            stream.pending.clear()
            stream.open = False
            _drop(stream)
        return news


def _tune(sock: socket.socket) -> None:
    """Notice a phone that vanished without a word within a few seconds."""
    options = (
        (socket.SOL_SOCKET, getattr(socket, "SO_KEEPALIVE", None), 1),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", None), 2),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", None), 1),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", None), 3),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_USER_TIMEOUT", None), int(DEAD_PEER_S * 1000)),
    )
    for level, name, value in options:
        if name is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(level, name, value)


def _read(stream: _Stream) -> None:
    """A phone sends nothing on its stream: data is dropped, the end of it ends the stream."""
    try:
        data = stream.sock.recv(4096)
    except (BlockingIOError, InterruptedError):
        return
    except OSError:
        data = b""
    if not data:
        stream.open = False
        stream.pending.clear()
        _drop(stream)


def _gil_held_send() -> Callable[[int, bytes, int, int], int] | None:
    """libc's ``send`` called with the GIL held (ctypes.PyDLL), or None where there is none.

    ``socket.send`` lets go of the GIL around its system call, and another thread that
    then takes it (the LED frames, a page being rendered, the computer mummy thinking)
    may keep it for the interpreter's switch interval, 5 ms, before the next seat's
    write: with seven seats, the last phone hears of a move tens of milliseconds after
    the first.  These sockets never block, so holding the GIL through a write costs
    microseconds, and every seat's news leaves in one go.  The loop lets go of the GIL
    once just before the writes (``time.sleep(0)``): a thread that waited while the news
    was made takes its turn then, not between two seats.
    """
    try:
        send = ctypes.PyDLL(None, use_errno=True).send
    except (OSError, AttributeError):
        return None
    send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    send.restype = ctypes.c_ssize_t
    return send


_SEND = _gil_held_send()
#: Never block, and an ended peer is an error, not a SIGPIPE (Linux; 0 elsewhere).
_SEND_FLAGS = getattr(socket, "MSG_DONTWAIT", 0) | getattr(socket, "MSG_NOSIGNAL", 0)


def _send(stream: _Stream) -> None:
    fd = stream.sock.fileno()
    if not stream.pending or fd < 0:
        return
    try:
        if _SEND is None:
            sent = stream.sock.send(stream.pending)
        else:
            data = bytes(stream.pending)
            sent = _SEND(fd, data, len(data), _SEND_FLAGS)
            if sent < 0:
                code = ctypes.get_errno()
                raise OSError(code, os.strerror(code))
    except (BlockingIOError, InterruptedError):
        return
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR):
            return
        stream.open = False
        stream.pending.clear()
        _drop(stream)
        return
    del stream.pending[:sent]


def _drop(stream: _Stream) -> None:
    with contextlib.suppress(OSError):
        stream.sock.shutdown(socket.SHUT_RDWR)


# -- from a WSGI request -----------------------------------------------------------------


class _QuietHandOver(logging.Filter):
    """Waitress reports a handed-over stream as a client that left: it did not."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (
            message.startswith("Client disconnected while serving") and message.endswith("/stream")
        )


_QUIET = _QuietHandOver()


def hand_off(environ: dict[str, Any]) -> socket.socket | None:
    """Take the request's connection from waitress, or None under another server.

    Waitress names its channel only through ``waitress.client_disconnected`` (a bound
    method).  While a request runs, the channel neither reads nor writes, so the socket
    can be duplicated; the channel is then marked as a client that left, so its own
    writes end quietly, and waitress's loop closes it once the request is done.  The
    channel is never closed here: this is a worker thread, and waitress's loop reads its
    maps unlocked (a map changed under its iteration stops the loop for good).
    """
    check = environ.get("waitress.client_disconnected")
    channel = getattr(check, "__self__", None)
    sock = getattr(channel, "socket", None)
    if channel is None or not isinstance(sock, socket.socket) or not channel.connected:
        return None
    mine = sock.dup()
    logger = getattr(channel, "logger", None)
    if isinstance(logger, logging.Logger) and _QUIET not in logger.filters:
        logger.addFilter(_QUIET)
    with channel.outbuf_lock:
        channel.connected = False
    return mine


def as_generator(step: Step, wait: Callable[[float], None], *, retry: bool) -> Iterator[str]:
    """The same stream for a server without a hand-over (a thread per stream)."""
    if retry:
        yield "retry: 2000\n\n"
    quiet_since = time.monotonic()
    while True:
        text, still_open = step()
        if text:
            quiet_since = time.monotonic()
            yield text
        if not still_open:
            return
        if time.monotonic() - quiet_since >= KEEPALIVE_S:
            quiet_since = time.monotonic()
            yield ": keepalive\n\n"
        wait(TICK_S * 5)
