"""The games on one board: which one holds it gets the sensors and the LEDs.

The mummy maze, Loot N Run and Into the Crypt each have a service of their own (its
own loop, state and journal entries); the hub routes the board's occupancy to the
active one and asks it for the scene the LEDs should show.

A game sees only its own board.  A service's ``sheet`` names the positions its sheet
covers (None: the whole board); magnets elsewhere reach it only as a count ("figures
off this board", ``off_board``), never as positions.

A game whose positions are secret (``hides_positions``: the maze, whose seekers the
mummy must not locate) leaves its figures' cells behind when it gives the board away.
Every position a magnet stands on at that moment is *masked* for the games that
follow, until the maze has the board again: whatever happens there (a figure lifted,
lifted) reaches no other game, not as a position, not as a change of the count, not
even as a new published version.  A mask ends when its figure is lifted: the square is
free then, and a magnet put down there later is a touch like on any other square, with
the same answer at the same moment (issue 34: a touch that was silently ignored where a
seeker had stood named that cell to the mummy player playing the crypt).  A figure put
back on its own cell is such a touch, as any magnet put down anywhere; nothing tells it
from one.  A magnet standing on a masked position all along stays unseen (seeing it
would tell the phones a figure of the maze stood there): the players lift it, and a
piece the game asks for there (``expected_positions``: a meeple the computer moved
there, one tapped onto a corner) is put down as on any square.  ``left_behind`` is
how many magnets were masked at the hand-over, for the
pages' "take the maze's figures off"; ``maze_standing`` how many of them still stand, so
that notice clears once they are off.  Both are counts, never positions.

The maze is told whenever another game takes the board (``board_taken``: it pauses, and
names the game that holds it, after every switch) and gets the whole board back with
``set_occupied`` (it resumes in restore mode); the masks end then.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Protocol

from companion.board.debounce import OccupancyChange
from companion.board.scene import Scene
from companion.journal import Journal, journal_report

log = logging.getLogger(__name__)


class GameService(Protocol):
    """What the hub needs from a game's service."""

    def occupancy(self, change: OccupancyChange) -> None: ...

    def set_occupied(self, positions: frozenset[int]) -> None: ...

    def scene(self) -> Scene: ...

    def start(self) -> None: ...

    def status(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class GameHub:
    """Holds the game services by kind ("mummy", "lootnrun", "crypt") and the active one."""

    def __init__(self, services: dict[str, GameService], active: str = "mummy") -> None:
        if active not in services:
            raise ValueError(f"no {active!r} game service")
        self.services = dict(services)
        self._active = active
        self._lock = threading.Lock()
        self._occupied: set[int] = set()
        #: Where a game with secret positions left magnets (see the module docstring).
        self._masked: set[int] = set()
        #: How many magnets it left (fixed until it has the board again).
        self._left_behind = 0
        self._handovers = 0
        #: Set whenever the scene may have changed: a game published, or another game
        #: took the board.  The LEDs wait on it while nothing moves.
        self.changed = threading.Event()
        for service in self.services.values():
            listen = getattr(service, "on_publish", None)
            if listen is not None:
                listen(self.changed.set)

    @property
    def active(self) -> str:
        return self._active

    @property
    def handovers(self) -> int:
        """How often the board changed hands in this run: orders two views of who holds it
        (a page's answer read before a handover can arrive after the stream's news of it)."""
        return self._handovers

    def activate(self, kind: str) -> None:
        """Give the board to another game; it learns the board as its sheet shows it."""
        if kind not in self.services:
            raise ValueError(f"no {kind!r} game on this companion")
        with self._lock:
            if kind == self._active:
                return
            previous = self.services[self._active]
            self._active = kind
            self._handovers += 1
            if getattr(previous, "hides_positions", False):
                self._masked |= self._occupied
                self._left_behind = len(self._masked)
            if getattr(self.services[kind], "hides_positions", False):
                self._masked.clear()
                self._left_behind = 0
            visible = self._visible(kind)
        for other, service in self.services.items():  # every waiting game names the new
            taken = getattr(service, "board_taken", None)  # holder, not only the one that
            if other != kind and taken is not None:  # gave it (crypt -> Loot N Run)
                taken(kind)
        self.changed.set()
        log.info("the board now plays %s", kind)
        self.services[kind].set_occupied(visible)

    def _visible(self, kind: str) -> frozenset[int]:
        """The magnets ``kind`` may know of: on its sheet, not left by a secret game."""
        sheet: frozenset[int] | None = getattr(self.services[kind], "sheet", None)
        seen = self._occupied - (set() if self._sees_masked(kind) else self._masked)
        return frozenset(seen if sheet is None else seen & sheet)

    def _sees_masked(self, kind: str) -> bool:
        """The board check sees every magnet (its page is the host's, not the mummy's
        device's, as ``/sim``): a sensor under a maze figure's cell is checked too."""
        return bool(getattr(self.services[kind], "sees_masked", False))

    def off_board(self) -> int:
        """How many magnets the active game may know of stand off its sheet (a count,
        no positions).  Masked magnets are never counted: lifting or putting back a
        maze figure changes nothing here."""
        with self._lock:
            masked = set() if self._sees_masked(self._active) else self._masked
            return len(self._occupied - masked) - len(self._visible(self._active))

    def left_behind(self) -> int:
        """How many magnets the maze left standing when it gave the board away (0: none,
        or the maze has the board); fixed while the other games play."""
        with self._lock:
            return self._left_behind

    def maze_standing(self) -> int:
        """How many of the magnets the maze left still stand where it left them (0 once
        they are all off, or the maze has the board): a count, never where."""
        with self._lock:
            return len(self._masked & self._occupied)

    def _opens(self, kind: str, positions: set[int]) -> set[int]:
        """The masked positions among ``positions`` (where magnets were just put down)
        that ``kind`` expects one of its own pieces on: they are its from now on."""
        arrived = positions & self._masked
        if not arrived:
            return set()
        expected = getattr(self.services[kind], "expected_positions", None)
        opened = arrived & set(expected()) if expected is not None else set()
        self._masked -= opened
        return opened

    def service(self, kind: str) -> GameService:
        return self.services[kind]

    def occupancy(self, change: OccupancyChange) -> None:
        self.occupancies([change])

    def occupancies(self, changes: list[OccupancyChange]) -> None:
        """One scan's settled changes, together: the active game judges the board they
        leave, never a board half-way through them (it shows a move at once, so a scan
        that lifts one figure and another must not look like a move of the first)."""
        own: list[OccupancyChange] = []
        recount = False
        with self._lock:
            kind = self._active
            sheet: frozenset[int] | None = getattr(self.services[kind], "sheet", None)
            for change in changes:
                if change.occupied:
                    self._occupied.add(change.position)
                    self._opens(kind, {change.position})
                else:
                    self._occupied.discard(change.position)
                if change.position in self._masked and not self._sees_masked(kind):
                    # A maze figure lifted: no game hears it, and its square is free
                    # like any other from now on (a later touch there is answered as
                    # anywhere: silence would name the square a figure stood on).
                    self._masked.discard(change.position)
                    continue
                if sheet is None or change.position in sheet:
                    own.append(change)
                elif sheet:  # only the count of figures off this board changed (a game
                    recount = True  # with no sheet, Loot N Run, shows none: it hears nothing)
            visible = self._visible(kind)
            active = self.services[kind]
        if own:
            batch = getattr(active, "occupancies", None)
            if batch is not None:
                batch(own)
            else:
                for change in own:
                    active.occupancy(change)
        if recount:
            active.set_occupied(visible)

    def set_occupied(self, positions: frozenset[int]) -> None:
        """The whole board as the sensors read it (at start-up, after the link came back)."""
        with self._lock:
            changed = self._occupied ^ set(positions)
            self._occupied = set(positions)
            self._opens(self._active, changed & self._occupied)
            if not self._sees_masked(self._active):
                gone = (changed & self._masked) - self._occupied
                self._masked -= gone  # lifted maze figures: free squares from now on
                if changed and changed <= gone:
                    return  # only maze figures were lifted: as in ``occupancy``, unheard
            visible = self._visible(self._active)
            active = self.services[self._active]
        active.set_occupied(visible)

    def scene(self) -> Scene:
        return self.services[self._active].scene()

    def set_board_connected(self, connected: bool) -> None:
        """The board link came or went: every game that shows it is told."""
        for service in self.services.values():
            tell = getattr(service, "set_board_connected", None)
            if tell is not None:
                tell(connected)

    def status(self) -> dict[str, Any]:
        status = self.services["mummy"].status() if "mummy" in self.services else {}
        status["active_game"] = self._active
        status["journal"] = self.journal_report()
        if not status["journal"]["ok"]:
            status["status"] = "degraded"
        return status

    def journal_report(self) -> dict[str, Any]:
        """The journal's health for the host: a failing write, games not resumed whole."""
        journals = [getattr(s, "journal", None) for s in self.services.values()]
        return journal_report(j for j in journals if isinstance(j, Journal))

    def end_streams(self) -> None:
        """Shutting down: every game's live page streams end now."""
        for service in self.services.values():
            end = getattr(service, "end_streams", None)
            if end is not None:
                end()

    def close(self) -> None:
        for service in self.services.values():
            try:
                service.close()
            except Exception:
                log.exception("closing a game service")
