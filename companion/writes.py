"""Whether the Pi's storage takes writes now: one record per state directory, shared by
every file written there (the journal of each game, the seats).

A failed write is noted with its words for the host; any later write to the same
directory that succeeds clears it, whichever file and game it was ("storage full" must
not stay on the host page after space was freed and the maze saved its next command).
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from pathlib import Path

from companion.i18n import Msg

_lock = threading.Lock()
_ticks = itertools.count(1)


@dataclass
class _Health:
    problem: Msg | None = None
    failed_at: int = 0
    ok_at: int = 0


_by_place: dict[str, _Health] = {}


def _of(place: str) -> _Health:
    return _by_place.setdefault(place, _Health())


def place_of(path: Path) -> str:
    """The place of a file: its directory."""
    return str(path.absolute().parent)


def failed(place: str, problem: Msg) -> None:
    """A write to ``place`` (a state directory) was refused with ``problem``."""
    with _lock:
        health = _of(place)
        health.problem, health.failed_at = problem, next(_ticks)


def succeeded(place: str) -> None:
    """A write to ``place`` went through: an earlier refusal there no longer holds."""
    with _lock:
        _of(place).ok_at = next(_ticks)


def problem(place: str) -> Msg | None:
    """The last refusal at ``place``, unless a write there succeeded since."""
    with _lock:
        health = _by_place.get(place)
        if health is None or health.failed_at < health.ok_at:
            return None
        return health.problem
