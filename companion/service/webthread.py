"""The companion's own web server on a thread of this process, for the tests and the bench.

It is the server ``companion run`` serves with (``webserver.create``: the per-device
limits, ``poll()``), and it is started and stopped from its own loop thread: a socket
closed by another thread while the loop waits on it makes waitress's loop fail with
EBADF and the thread die, after which every page hangs.  A loop that died is reported
when the server stops, so a hang in a test names its cause.
"""

from __future__ import annotations

import contextlib
import threading
from types import TracebackType
from typing import Any

from .webserver import Limits, create


class ServerThread:
    """``app`` served on ``host``:``port`` (a free one by default) from a daemon thread."""

    def __init__(
        self,
        app: Any,
        *,
        limits: Limits | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        name: str = "web",
    ) -> None:
        self.limits = limits if limits is not None else Limits()
        extensions = getattr(app, "extensions", None)  # (a WSGI wrapper has none)
        if extensions is not None:
            extensions["companion.limits"] = self.limits  # the streams' limits (web/stream.py)
        self.server = create(app, host=host, port=port, limits=self.limits)
        if not hasattr(self.server, "_map"):  # several listening sockets: not for tests
            self.server.close()
            raise ValueError(f"{host!r} listens on more than one socket: give one address")
        self.port = int(self.server.effective_port)
        self.url = f"http://{host}:{self.port}"
        #: What ended the loop before it was asked to stop (None while it runs or stopped).
        self.failure: BaseException | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> ServerThread:
        self._thread.start()
        return self

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop(check=kind is None)

    @property
    def alive(self) -> bool:
        """Whether the loop still serves (it has neither died nor been stopped)."""
        return self._thread.is_alive() and not self._stopping.is_set()

    def _run(self) -> None:
        server = self.server
        try:
            while not self._stopping.is_set():
                server.asyncore.loop(
                    timeout=server.adj.asyncore_loop_timeout,
                    map=server._map,
                    use_poll=server.adj.asyncore_use_poll,
                    count=1,
                )
        except BaseException as exc:
            self.failure = exc
            raise
        finally:
            self._close()

    def _close(self) -> None:
        """In the loop's own thread: the workers let go, then every socket closed."""
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        for channel in list(self.server._map.values()):
            with contextlib.suppress(OSError):
                channel.close()
        self.server._map.clear()

    def stop(self, timeout: float = 10.0, *, check: bool = True) -> None:
        """Stop serving and close every connection; with ``check``, raise if the loop
        died while it served (a page that hung then has its cause)."""
        self._stopping.set()
        with contextlib.suppress(OSError):  # wake the loop (its trigger may be closed)
            self.server.pull_trigger()
        if self._thread.ident is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError(f"the web server's loop did not stop within {timeout:g} s")
        else:
            self._close()
        if check and self.failure is not None:
            raise RuntimeError(
                f"the web server's loop thread died while it served: {self.failure!r}"
            ) from self.failure
