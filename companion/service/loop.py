"""The one-thread request loop every game service is built on.

A game's state is owned by one thread: requests from the sensors, buttons and pages
queue up and are handled one at a time; readers get the last published moment and
can wait for the next one.  Subclasses say how to handle a request (``_dispatch``),
when they next need waking without a request (``_next_timeout``) and what to do then
(``_tick``).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from companion.board.debounce import OccupancyChange
from companion.closing import Closing
from companion.errors import RetryLater as RetryLater
from companion.errors import ServiceError as ServiceError
from companion.errors import StorageError
from companion.i18n import Msg, msg

log = logging.getLogger(__name__)

P = TypeVar("P")


#: How long a board placement refused with RetryLater waits before it is tried again.
RETRY_S = 1.0


@dataclass
class Request:
    """One request to a game's loop; ``done`` is set once it has been handled."""

    kind: str
    payload: Any = None
    role: str = ""
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    #: Set under the loop's claim lock: the loop took it (it will be handled) or the
    #: caller gave up on it (it never will be).
    taken: bool = False
    withdrawn: bool = False


class GameLoop(Closing, Generic[P]):
    """Owns one game in one thread; ``P`` is the type of a published moment."""

    #: The thread's name (for logs and debuggers).
    loop_name: ClassVar[str] = "game"
    #: Exceptions that refuse a request with a player message (anything else is a bug:
    #: it is logged and the request fails with a generic message).
    refusals: ClassVar[tuple[type[BaseException], ...]] = (ServiceError,)
    #: How long the loop sleeps when nothing is due.
    idle_s: ClassVar[float] = 0.5

    def _init_loop(self, published: P) -> None:
        self._queue: queue.Queue[Request] = queue.Queue()
        self._claim = threading.Lock()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        #: Set when the service shuts down: live streams end.
        self.closing = False
        self._published = published
        self._listeners: list[Callable[[], None]] = []
        self._before: list[Callable[[], None]] = []

    # -- requests (any thread) ---------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.loop_name, daemon=True)
            self._thread.start()

    def _post(self, kind: str, payload: Any = None, role: str = "") -> None:
        """Queue a request without waiting (handled at once if the loop is not running)."""
        request = Request(kind, payload, role)
        if self._thread is None or not self._thread.is_alive():
            self._handle(request)
        else:
            self._queue.put(request)

    def _call(self, kind: str, payload: Any = None, role: str = "", timeout: float = 5.0) -> Any:
        """Queue a request and wait for its result; raise what refused it.

        A request still queued after ``timeout`` is withdrawn (never applied) and the
        caller hears "busy"; one the loop has already taken is waited for, so its
        result is never lost nor applied twice by a retry."""
        request = Request(kind, payload, role)
        if self._thread is None or not self._thread.is_alive():
            self._handle(request)
        else:
            self._queue.put(request)
            if not request.done.wait(timeout):
                with self._claim:
                    request.withdrawn = not request.taken
                if request.withdrawn:
                    raise ServiceError("The companion is busy: nothing was done, try again.")
                request.done.wait()
        if request.error is not None:
            raise request.error
        return request.result

    # -- reading (any thread) ------------------------------------------------------------

    @property
    def published(self) -> P:
        return self._published

    def wait_for_change(self, version: int, timeout: float) -> P:
        """Block until a version newer than ``version`` is published (or the timeout,
        or the service closing)."""
        with self._changed:
            self._changed.wait_for(
                lambda: self._version(self._published) > version or self.closing, timeout
            )
            return self._published

    @staticmethod
    def _version(published: Any) -> int:
        return int(published.version)

    def on_publish(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every new published moment (from the loop's thread)."""
        self._listeners.append(listener)

    def on_publishing(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` just before a new moment becomes visible (the streams'
        broadcaster then knows that news it is making may already be out of date)."""
        self._before.append(listener)

    def _set_published(self, published: P) -> None:
        for listener in self._before:
            listener()
        with self._changed:
            self._published = published
            self._changed.notify_all()
        for listener in self._listeners:
            listener()

    # -- the loop (its own thread) -------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                request: Request | None = self._queue.get(timeout=max(0.0, self._next_timeout()))
            except queue.Empty:
                request = None
            try:
                if request is not None:
                    self._handle(request)
                self._tick()
            except Exception:  # the loop must outlive any one bad moment
                log.exception("%s loop", self.loop_name)

    def _take(self, request: Request) -> bool:
        """Claim a request for handling; False if its caller has withdrawn it."""
        with self._claim:
            if request.withdrawn:
                return False
            request.taken = True
            return True

    def _handle(self, request: Request) -> None:
        if not self._take(request):
            return
        try:
            if request.kind == "stop":
                self._stop.set()
            else:
                request.result = self._dispatch(request)
        except self.refusals as exc:
            request.error = exc
        except StorageError as exc:  # a write that failed (a full disk): nothing changed
            request.error = exc
        except Exception as exc:  # one bad request must not kill the loop
            log.exception("%s request %s failed", self.loop_name, request.kind)
            request.error = ServiceError("Something went wrong: {exc}", exc=str(exc))
        finally:
            request.done.set()

    def _dispatch(self, request: Request) -> Any:
        raise NotImplementedError

    def _next_timeout(self) -> float:
        return self.idle_s

    def _tick(self) -> None:
        """Called after every request and every timeout (pending placements, timers)."""

    # -- stopping ------------------------------------------------------------------------

    def end_streams(self) -> None:
        """Tell every reader waiting for a change that the service is going away."""
        with self._changed:
            self.closing = True
            self._changed.notify_all()

    def close(self) -> None:
        self.end_streams()
        if self._thread is not None:
            self._queue.put(Request("stop"))
            self._thread.join(timeout=5)
            self._thread = None
        self._after_close()

    def _after_close(self) -> None:
        """Release what the service owns (its own journal connection, ...)."""


class BoardGameLoop(GameLoop[P]):
    """A game loop that also follows the figures on the board: the occupied positions,
    and a placement the tracker judged legal, applied once the board has been quiet
    for ``quiet_s`` (0: at once, in the step that saw it settle; the settle time of the
    sensors already keeps a slide across cells from counting, see ``debounce.py``)."""

    quiet_s: float
    clock: Callable[[], float]

    def _init_board(self) -> None:
        self._occupied: set[int] = set()
        self._last_change = 0.0
        #: A judged placement and the board it was judged on, waiting for quiet.
        self._pending: tuple[Any, frozenset[int]] | None = None
        #: Why the placement in hand could not be saved yet (a full disk), for the pages.
        self._held_back: Msg | None = None

    def _on_occupancy(self, changes: Iterable[OccupancyChange]) -> None:
        """One scan's settled changes: the board they leave is judged once."""
        for change in changes:
            if change.occupied:
                self._occupied.add(change.position)
            else:
                self._occupied.discard(change.position)
        self._last_change = self.clock()
        self._publish_board()

    def _publish_board(self) -> None:
        """Publish the board as it now stands (a game may apply a due placement first)."""
        self._publish([])

    def _quiet_for(self, command: Any) -> float:
        """How long the board stays quiet before ``command`` is applied (a game may
        wait for some placements and not for others)."""
        return self.quiet_s

    def _placement_due_in(self) -> float | None:
        """Seconds until a pending placement is due (None: nothing pending)."""
        if self._pending is None:
            return None
        return self._last_change + self._quiet_for(self._pending[0]) - self.clock()

    def _apply_pending(self) -> None:
        pending = self._pending
        if pending is None or self.clock() < self._last_change + self._quiet_for(pending[0]):
            return
        self._pending = None
        command, occupied = pending
        if occupied != frozenset(self._occupied):
            self._held_back = None
            return
        try:
            self._command(command, "board")
            self._held_back = None
        except RetryLater as exc:  # the journal cannot be written: try again soon
            log.warning("%s: placement waits: %s", self.loop_name, exc)
            self._held_back = exc.message
            self._pending = pending
            self._last_change = self.clock() + RETRY_S - self._quiet_for(pending[0])
            self._publish([])
        except self.refusals as exc:  # the game moved on meanwhile: judge again
            log.warning("%s: placement no longer legal: %s", self.loop_name, exc)
            self._held_back = None
            self._publish([])

    def _applied_due(self) -> bool:
        """Apply a held placement that is due at once (no quiet period for it); True
        when that published something (the move, or its refusal)."""
        due = self._placement_due_in()
        if due is None or due > 0:
            return False
        before = self._published
        self._apply_pending()
        return self._published is not before

    def _hold_placement(self, command: Any) -> None:
        """Remember the tracker's judged placement (or forget it: None)."""
        self._pending = (command, frozenset(self._occupied)) if command is not None else None
        if command is None:
            self._held_back = None

    def held_back_words(self) -> Msg | None:
        """Why the move on the board waits (its save was refused), for every page: it
        names no cell, only the storage's trouble and that the move is kept."""
        if self._held_back is None or self._pending is None:
            return None
        return msg(
            "{reason} The move on the board waits and is saved as soon as there is room.",
            reason=self._held_back,
        )

    def _publish(self, events: Any) -> None:
        raise NotImplementedError

    def _command(self, command: Any, role: str) -> Any:
        raise NotImplementedError
