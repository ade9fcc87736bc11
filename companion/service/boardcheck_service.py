"""The board check's service: the guided check of ``/check`` on the running companion.

The hub gives it the board as it gives a game (``registry.py`` finds it; the host takes
it from the check's page, a running maze game only after the host confirms pausing it).
One loop thread owns the check (``companion.board.boardcheck``, the core it shares with
``companion selftest``): the sensors' occupancy comes in from the hub, the maker's
presses from the page, and a tick feeds the core the time for its holds.  Each change
is published for the page's live stream and for the LEDs, which light the positions
the step names.  A finished check is saved as a JSON report in ``boardchecks/`` beside
the journal, to compare with after repairs.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion import writes
from companion.board.boardcheck import (
    Board,
    BoardCheck,
    Press,
    board_of,
    compare,
    fault_message,
    report,
    report_lines,
    step_message,
)
from companion.board.config import BoardConfig
from companion.board.debounce import OccupancyChange
from companion.board.scene import Mode, Scene
from companion.i18n import Msg, msg
from companion.journal import Journal

from .loop import GameLoop, Request, ServiceError

log = logging.getLogger(__name__)

#: What the LEDs light where a figure goes, and where one reads.
PUT_HERE = (255, 255, 255)
READS = (0, 45, 63)
#: A saved report's file name: its start time, sortable.
REPORT_NAME = re.compile(r"^\d{8}-\d{6}(-\d+)?\.json$")


@dataclass(frozen=True)
class Published:
    version: int
    view: dict[str, Any]


class BoardCheckService(GameLoop[Published]):
    """The board check on the companion's board (see the module docstring)."""

    loop_name = "boardcheck"
    idle_s = 0.05
    #: The check sees every magnet, those a paused maze game left too: its page opens
    #: only for the host's device that does not hold the mummy's seat, as ``/sim``.
    sees_masked = True

    def __init__(self, board: Board, board_name: str, reports: Path | None) -> None:
        self.board = board
        self.board_name = board_name
        self.reports = reports
        self._memory: dict[str, dict[str, Any]] = {}
        self._occupied: frozenset[int] = frozenset()
        self._check: BoardCheck | None = None
        self._started = ""
        self._saved: str | None = None
        #: Why the finished check's report could not be written (None: saved, or running).
        self._not_saved: Msg | None = None
        #: The game that had the board before the check took it (it goes back there).
        self.returns_to: str | None = None
        self._count = 0
        self._init_loop(Published(0, self._view()))

    # -- the hub's side ------------------------------------------------------------------

    def occupancy(self, change: OccupancyChange) -> None:
        self._post("occupancy", change)

    def set_occupied(self, positions: frozenset[int]) -> None:
        self._post("set_occupied", frozenset(positions))

    def scene(self) -> Scene:
        check = self._check
        if check is None or check.done:
            return Scene(self.board.positions, mode=Mode.PLAY)
        lit = {p: PUT_HERE for p in check.step.figures}
        paint = {**{p: READS for p in self._occupied}, **lit}
        return Scene(self.board.positions, mode=Mode.PLAY, paint=tuple(sorted(paint.items())))

    def status(self) -> dict[str, Any]:
        return {"running": self.running}

    # -- the page's side ------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._check is not None and not self._check.done

    def begin(self, returns_to: str | None, *, quick: bool = False) -> None:
        """Start a new check (the board is the check's already)."""
        self._call("begin", (returns_to, quick))

    def press(self, answer: Press, step: tuple[str, int | None] | None = None) -> None:
        """The maker's button; ``step`` (kind, position): the step the page showed when
        it was pressed.  A press meant for a step the check has left is refused, so a
        "Nothing reads" pressed as the figure was seen never skips the next step."""
        self._call("press", (answer, step))

    def saved(self) -> list[str]:
        """The saved reports' names, newest first."""
        if self.reports is None:
            return sorted(self._memory, reverse=True)
        if not self.reports.is_dir():
            return []
        names = [p.name for p in self.reports.iterdir() if REPORT_NAME.match(p.name)]
        return sorted(names, reverse=True)

    def load(self, name: str) -> dict[str, Any]:
        """A saved report, with its findings in words and what changed since the one
        before it (ServiceError: no such report)."""
        names = self.saved()
        if name not in names:
            raise ServiceError("There is no saved report {name}.", name=name)
        data = self._read(name)
        older = names[names.index(name) + 1 :]
        out: dict[str, Any] = {"name": name, "report": data, "lines": report_lines(data)}
        if older:
            before = self._read(older[0])
            changes = compare(before, data)
            out["compared_with"] = older[0]
            out["changes"] = {k: report_lines({"faults": v}) for k, v in changes.items()}
        return out

    # -- the loop -----------------------------------------------------------------------

    def _dispatch(self, request: Request) -> Any:
        if request.kind == "occupancy":
            change: OccupancyChange = request.payload
            occupied = set(self._occupied)
            (occupied.add if change.occupied else occupied.discard)(change.position)
            self._occupied = frozenset(occupied)
        elif request.kind == "set_occupied":
            self._occupied = request.payload
        elif request.kind == "begin":
            returns_to, quick = request.payload
            self.returns_to = returns_to
            order = None
            if quick:  # the first row of cells and every pad: a check in a few minutes
                order = [*range(min(self.board.positions, 12))]
            self._check = BoardCheck(self.board, order=order)
            self._started = _now()
            self._saved = None
            self._not_saved = None
        elif request.kind == "press":
            if self._check is None or self._check.done:
                raise ServiceError("No board check is running: start one.")
            answer, shown = request.payload
            now = self._check.step
            if answer != "finish" and shown is not None and shown != (now.kind, now.position):
                raise ServiceError(
                    "The check had already gone on to the next step: look at it, then press again."
                )
            self._check.press(answer)
        self._feed()
        return None

    def _tick(self) -> None:
        if self.running:
            self._feed()

    def _feed(self) -> None:
        check = self._check
        if check is not None and not check.done:
            check.reading(self._occupied, time.monotonic())
        if check is not None and check.done and self._saved is None and self._not_saved is None:
            self._save(check)
        view = self._view()
        if view != self._published.view:
            self._count += 1
            self._set_published(Published(self._count, view))

    def _save(self, check: BoardCheck) -> None:
        data = report(check, board_name=self.board_name, started=self._started, finished=_now())
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        name, n = f"{stamp}.json", 1
        while name in self.saved():
            n += 1
            name = f"{stamp}-{n}.json"
        if self.reports is None:
            self._memory[name] = data
        else:
            tmp = self.reports / f".{name}.tmp"
            try:
                self.reports.mkdir(parents=True, exist_ok=True)
                tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
                tmp.replace(self.reports / name)
            except OSError as exc:  # a full card: said on the page, never "saved"
                log.error("could not save the board check's report %s: %s", name, exc)
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
                self._not_saved = not_saved(exc)
                writes.failed(writes.place_of(tmp), self._not_saved)
                return
            writes.succeeded(writes.place_of(self.reports))
        self._saved = name

    def _read(self, name: str) -> dict[str, Any]:
        if name in self._memory or self.reports is None:
            return self._memory[name]
        data: dict[str, Any] = json.loads((self.reports / name).read_text(encoding="utf-8"))
        return data

    def _view(self) -> dict[str, Any]:
        """What the page shows (Msg values: the stream renders them in the reader's
        language)."""
        names = self.board.names
        check = self._check
        view: dict[str, Any] = {
            "reading": sorted(self._occupied),
            "names": list(names),
            "running": check is not None and not check.done,
            "saved": self._saved,
            "not_saved": self._not_saved,
        }
        if check is None:
            return {**view, "step": None, "faults": []}
        step = check.step
        return {
            **view,
            "step": {
                "kind": step.kind,
                "position": step.position,
                "figures": list(step.figures),
                "ghost": step.ghost,
                "says": step_message(check),
                "remaining": check.remaining(),
            },
            "checked": len(check.checked),
            "faults": [
                {"kind": f.kind, "cell": names[f.position], "says": fault_message(f, names)}
                for f in check.faults
            ],
        }


def not_saved(exc: OSError) -> Msg:
    """Why a report was not written, in the maker's words."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return msg(
            "The report was not saved: the Pi's storage is full. Free some space, then run "
            "the check again."
        )
    return msg(
        "The report was not saved ({error}). Run the check again.", error=exc.strerror or str(exc)
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def make_service(*, journal: Journal, config: BoardConfig, quiet_s: float) -> BoardCheckService:
    """The board check's service for the appliance (``registry.py`` finds it by this name);
    its reports go to ``boardchecks/`` beside the journal (memory for a memory journal)."""
    path = str(journal.path)
    reports = None if path == ":memory:" else Path(path).parent / "boardchecks"
    return BoardCheckService(board_of(config), config.name, reports)
