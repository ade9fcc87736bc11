"""systemd's notify protocol: tell the service manager we are ready, and feed its watchdog.

Under ``Type=notify`` systemd passes ``NOTIFY_SOCKET`` (a unix datagram socket, ``@`` for
the abstract namespace) and, with ``WatchdogSec=``, ``WATCHDOG_USEC``.  The protocol is
one datagram of ``KEY=value`` lines, so it is written here rather than pulled in as a
library.  Outside systemd (no ``NOTIFY_SOCKET``) every call does nothing.

The sensor scan thread feeds the watchdog after each scan (``Watchdog.kick``): if the
scan loop sticks, the pings stop and systemd restarts the service.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)


class Notifier:
    """Sends notify messages to ``NOTIFY_SOCKET`` (from ``environ``); a no-op without it."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self.address: str | bytes | None = None
        if address.startswith("@"):
            self.address = b"\0" + address[1:].encode()
        elif address.startswith("/"):
            self.address = address
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        wanted = usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid()))
        #: The watchdog's timeout in seconds, or None when there is no watchdog.
        self.watchdog_s: float | None = int(usec) / 1e6 if wanted else None
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines (``ready=1`` becomes ``READY=1``); True if sent."""
        if self.address is None:
            return False
        message = "\n".join(f"{key.upper()}={value}" for key, value in fields.items())
        with self._lock, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            try:
                sock.connect(self.address)
                sock.sendall(message.encode())
            except OSError as exc:
                log.warning("systemd notify failed: %s", exc)
                return False
        return True

    def ready(self, status: str) -> bool:
        return self.send(ready=1, status=status)

    def stopping(self) -> bool:
        return self.send(stopping=1)


class Watchdog:
    """Pings systemd's watchdog at most every half timeout, however often it is kicked."""

    def __init__(self, notifier: Notifier, clock: Callable[[], float] = time.monotonic) -> None:
        self.notifier = notifier
        self.clock = clock
        timeout = notifier.watchdog_s
        self.interval = None if timeout is None else timeout / 2
        self._last: float | None = None
        self.pings = 0

    def kick(self) -> None:
        """Called by the scan loop after each scan: a ping when one is due."""
        if self.interval is None:
            return
        now = self.clock()
        if self._last is None or now - self._last >= self.interval:
            self._last = now
            if self.notifier.send(watchdog=1):
                self.pings += 1
