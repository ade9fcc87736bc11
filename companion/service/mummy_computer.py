"""The computer in the mummy's seat, and the mummy's deduction aid: a thin shell.

A thread follows the running game.  It replays each accepted command on its own copy
of the game only to cut out what the mummy's page receives (the mummy's view and its
visible events), which is all it hands to the computer mummy and to the belief behind
the deduction aid.  When the host gave the seat to the computer, it plays the mummy's
turns through the service like a phone would, one step at a time at ``pace_s``, so the
LEDs show every step and the pages narrate it.  After a restart it replays the game
from the journal, its own past decisions included, and goes on where it stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.games.mummy.belief import Belief, belief_figures
from companion.games.mummy.commands import Command, MummyStep
from companion.games.mummy.computer import ComputerMummy, Level, computer_seed
from companion.games.mummy.engine import RuleError, apply, new_game
from companion.games.mummy.state import Setup, State
from companion.games.mummy.views import mummy_view, visible_events

from .loop import ServiceError
from .mummy_service import Planned, Service

log = logging.getLogger(__name__)

#: Seconds between the computer mummy's steps (the table follows them on the LEDs).
DEFAULT_PACE_S = 0.5


class ComputerSeat:
    """Plays the mummy's seat when asked to, and keeps the deduction aid's belief."""

    def __init__(
        self,
        service: Service,
        *,
        pace_s: float = DEFAULT_PACE_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.service = service
        #: None: a person plays the mummy.
        self.level: Level | None = None
        self.pace_s = pace_s
        #: The mummy's page shows where each seeker can still be.
        self.aid = False
        self._sleep = sleep
        self._lock = threading.Lock()
        self._game_key: tuple[int, int] = (-1, -1)
        self._setup: Setup | None = None
        self._state: State | None = None
        self._fed = 0
        #: The last command fed, and the game as it stood when last looked at.
        self._last: Command | None = None
        self._seen: tuple[int, int, int] = (-1, -1, -1)
        self._computer: ComputerMummy | None = None
        self._belief: Belief | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="computer-mummy", daemon=True)
        #: The computer's decisions, for tests and the log: (command count, command).
        self.played = 0

    # -- the host's choices ---------------------------------------------------------------

    def configure(self, level: str | None, *, aid: bool, pace_s: float | None = None) -> None:
        """Give the mummy's seat to the computer (``level``) or to a person (None)."""
        with self._lock:
            new_level = Level(level) if level else None
            if new_level is not self.level:
                self._game_key = (-1, -1)  # rebuild the computer for the new level
            self.level = new_level
            self.service.computer_seats = frozenset({"mummy"} if new_level else ())
            self.aid = aid
            if pace_s is not None:
                self.pace_s = max(0.0, pace_s)

    # -- reading (any thread) -------------------------------------------------------------

    @property
    def state(self) -> State | None:
        """The game as the computer follows it (for tests and the log)."""
        return self._state

    def aid_payload(self) -> dict[str, Any] | None:
        """Per seeker figure, the cells it can still be on with their likelihood; None
        when the aid is off (then nothing of it is sent)."""
        if not self.aid:
            return None
        with self._lock:
            self._catch_up()
            belief, setup = self._belief, self._setup
            if belief is None or setup is None:
                return None
            figures = belief_figures(belief, setup.maze, setup.figures)
            return {"figures": figures}

    # -- the thread -----------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        version = -1
        while not self._stop.is_set() and not self.service.closing:
            published = self.service.wait_for_change(version, 0.5)
            version = published.version
            try:
                self.step()
            except Exception:
                log.exception("the computer mummy failed; a person can take the seat")
                self._stop.wait(1.0)

    def step(self) -> bool:
        """Play the computer mummy's next command if it is its turn; True if it played."""
        with self._lock:
            if self.level is None:
                return False
            self._catch_up()
            state, computer = self._state, self._computer
            if state is None or computer is None or not state.is_mummy_turn:
                return False
            command = computer.choose(mummy_view(state))
            count, planned = self._fed, Planned(command, self._seen)
        if isinstance(command, MummyStep) and self.pace_s > 0:
            self._sleep(self.pace_s)  # one step at a time: the table follows on the LEDs
        if self._stop.is_set():
            return False
        try:
            self.service.submit("mummy", planned)
        except (RuleError, ServiceError) as exc:
            # The board is being put right, or the game changed while it thought: it
            # asks again once the game has moved on (its plan is kept until played).
            log.info("computer mummy waits: %s", exc)
            self._stop.wait(0.2)
            return False
        log.debug("computer mummy: command %d %r", count, command)
        self.played += 1
        return True

    # -- following the game ---------------------------------------------------------------

    def _catch_up(self) -> None:
        """Feed the mummy's inputs of every command accepted since the last look."""
        game = self.service.game
        self._seen = game.key  # before the commands: a later command makes it stale
        commands = list(game.commands)
        key = (game.id, id(game))
        replaced = 0 < self._fed <= len(commands) and commands[self._fed - 1] != self._last
        if key != self._game_key or len(commands) < self._fed or replaced:
            self._rebuild(game.setup, key)
        assert self._state is not None
        for command in commands[self._fed :]:
            self._feed(command)

    def _rebuild(self, setup: Setup, key: tuple[int, int]) -> None:
        self._game_key = key
        self._setup = setup
        state, events = new_game(setup)
        self._state = state
        self._fed = 0
        self._last = None
        figures = tuple(tuple(c.value for c in figs) for figs in setup.seekers)
        self._belief = Belief(setup.maze, setup.figure_owner)
        self._computer = None
        if self.level is not None:
            self._computer = ComputerMummy(
                setup.maze,
                figures,
                self.level,
                seed=computer_seed(setup.seed),
                exactly=setup.options.mummy_moves_exactly,
            )
        self._tell(events)

    def _feed(self, command: Command) -> None:
        state = self._state
        assert state is not None
        if self._computer is not None and state.is_mummy_turn:
            # Think again at every decision already made (choosing twice is harmless),
            # so that a plan made before a restart is the one followed after it.
            self._computer.choose(mummy_view(state))
        state, events = apply(state, command)
        self._state = state
        self._fed += 1
        self._last = command
        self._tell(events)

    def _tell(self, events: list[Any]) -> None:
        seen = visible_events(events, "mummy")
        assert self._belief is not None and self._state is not None
        self._belief.learn_view(mummy_view(self._state))
        self._belief.observe(seen)
        if self._computer is not None:
            self._computer.observe(seen)
