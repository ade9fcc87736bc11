"""The companion's own timestamps for ``companion bench``'s player rows (``player.py``).

``companion run`` installs it when ``COMPANION_TRACE`` names a file: every step of a
figure's way from the board to a phone's stream is written there as a JSON line with
its wall-clock time (``t``, seconds), so the bench can tell where each millisecond
went: the mock board's pin flipped (``edge``), the sensor scan that first saw it and
the one that confirmed it after the settle time (``settled``), the game loop taking the
scan's changes (``dispatch``), the judged move applied (``apply``), the journal's
write (``journal``), the publish, every LED frame and every seat's stream written.
Nothing here runs unless asked for.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

#: Wall-clock time minus each clock the companion stamps with (one machine, one origin).
_MONO = time.time() - time.monotonic()
_PERF = time.time() - time.perf_counter()


class Trace:
    """JSON lines, one per step, written as they happen (line-buffered)."""

    def __init__(self, path: str) -> None:
        self._file: TextIO = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115
        self._lock = threading.Lock()

    def __call__(self, step: str, at: float | None = None, /, **values: Any) -> None:
        line = json.dumps({"k": step, "t": time.time() if at is None else at, **values})
        with self._lock:
            self._file.write(line + "\n")


def _wrap(owner: Any, name: str, before: Callable[..., None], after: Callable[..., None]) -> None:
    inner = getattr(owner, name)

    def wrapped(*args: Any, **kw: Any) -> Any:
        before(*args)
        try:
            return inner(*args, **kw)
        finally:
            after(*args)

    setattr(owner, name, wrapped)


def install(appliance: Any, app: Any, path: str) -> None:
    """Stamp every step of the player's path (see the module docstring)."""
    from companion.web.stream import broadcaster

    trace = Trace(path)
    board = appliance.mock_board
    if board is not None:
        for name, occupied in (("place", True), ("lift", False)):
            _wrap(
                board,
                name,
                lambda p, o=occupied: trace("edge", position=p, occupied=o),
                lambda p: None,
            )
    deliver = appliance.sensors.on_changes

    def settled(changes: list[Any]) -> object:
        trace(
            "settled",
            changes=[[c.position, c.occupied, c.since + _MONO, c.at + _MONO] for c in changes],
        )
        return deliver(changes) if deliver is not None else None

    appliance.sensors.on_changes = settled
    service = appliance.service
    _wrap(service, "_dispatch", lambda r: trace("dispatch", kind=r.kind), lambda r: None)
    _wrap(service, "_apply_pending", lambda: trace("apply"), lambda: None)
    for name in ("append", "replace_last"):
        _wrap(
            service.journal,
            name,
            lambda *a: trace("journal", end=False),
            lambda *a: trace("journal", end=True),
        )

    def published() -> None:
        now = service.published
        trace("publish", version=now.version, phase=now.state.phase.value, mummy=now.state.mummy)

    service.on_publish(published)
    lights = appliance.lights
    lights.on_frame(lambda: trace("frame", mummy=getattr(lights.last_scene, "mummy", None)))
    with app.app_context():
        streams = broadcaster()
    streams.written = lambda label, at: trace("written", at + _PERF, seat=label)
