"""The Loot N Run service: owns the score-track game, its journal entries and its LEDs.

Like the mummy game's service (``service.Service``), one loop thread owns the game:
the web layer hands it requests through a queue, it applies each command with the
pure engine (``companion.games.lootnrun``), commits the command to the journal before
anyone sees its effects, and then publishes a new version for the live pages
(``published`` / ``wait_for_change``) and for the LEDs (``scene``).

Loot N Run uses no figures, so the board's occupancy is ignored; while the hub gives
this game the board, the LEDs show the score track (``companion.board.score_track``).

Journal: the kind is ``"lootnrun"``; a game is its setup (``record.setup_to_json``)
plus its commands in their JSON form, and an Undo removes the last command, so
resuming after a restart is a replay.  The journal file is shared with the mummy
game, whose loop uses its connection from its own thread: this service therefore
opens a connection of its own to the same file (SQLite's locking and the write-ahead
log keep the two apart), except for an in-memory journal, which cannot be shared.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from companion.board.config import BoardConfig
from companion.board.debounce import OccupancyChange
from companion.board.render import Geometry
from companion.board.scene import Scene
from companion.board.score_track import (
    TrackMove,
    TrackView,
    hex_colour,
    player_colours,
    track_scene,
)
from companion.games.lootnrun.commands import Command, Undo
from companion.games.lootnrun.engine import RuleError, apply, make_setup, new_game
from companion.games.lootnrun.events import Caught, Event
from companion.games.lootnrun.record import (
    command_from_json,
    command_to_json,
    setup_from_json,
    setup_to_json,
)
from companion.games.lootnrun.state import Phase, State
from companion.games.lootnrun.views import events_view, table_view
from companion.journal import Journal

from .ending import action_key, check_open, check_undo
from .loop import GameLoop, Request, ServiceError
from .resume import resume

log = logging.getLogger(__name__)

#: The journal's name for this game.
KIND = "lootnrun"


@dataclass(frozen=True)
class Published:
    """One published moment of the game, for the pages and the LEDs.

    ``state`` is None when no Loot N Run game has been started yet.  ``events`` are
    those of the last change, ``move`` the last change of the track (for the LED
    animation), ``track`` what the LEDs show.
    """

    version: int
    game_id: int | None
    state: State | None
    events: tuple[Event, ...] = ()
    move: TrackMove | None = None
    track: TrackView | None = None


def track_view(state: State) -> TrackView:
    """What the LEDs need of a game state: colours, scores, whose turn, the winners."""
    acting = state.phase in (Phase.PLAYING, Phase.WEREWOLF_KEEP)
    return TrackView(
        colours=player_colours(p.colour for p in state.players),
        scores=state.scores,
        target=state.target,
        current=state.current if acting else None,
        over=state.is_over,
        winners=state.winners,
    )


class LootNRunService(GameLoop[Published]):
    """The running Loot N Run game (the hub's ``GameService`` for ``"lootnrun"``)."""

    loop_name = "lootnrun"
    refusals = (RuleError, ServiceError)

    def __init__(
        self,
        *,
        journal: Journal,
        geometry: Geometry,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.geometry = geometry
        self.clock = clock
        self.started_at = clock()
        self._own_journal = journal.path != ":memory:"
        # (the appliance's connection has just read every page: no second check)
        self.journal = Journal(journal.path, check=False) if self._own_journal else journal
        game_id, state = self._resume()
        self._init_loop(self._snapshot(0, game_id, state, ()))

    # -- starting ------------------------------------------------------------------------

    def _resume(self) -> tuple[int | None, State | None]:
        """The unfinished game, replayed; else the last finished one (its final screen)."""
        stored = self.journal.unfinished(KIND) or self.journal.latest(KIND)
        if stored is None:
            return None, None
        state = resume(
            self.journal,
            stored,
            lambda _id, setup, _commands: new_game(setup_from_json(setup))[0],
            lambda state, data: apply(state, command_from_json(data))[0],
        )
        if state is None:
            return None, None
        if not stored.ended:
            log.info("resumed Loot N Run game %d (%d commands)", stored.id, len(stored.commands))
        return stored.id, state

    # -- requests (any thread) -----------------------------------------------------------

    def new_game(
        self, players: Iterable[tuple[str, str]], first: int = 0, timeout: float = 5.0
    ) -> int:
        """Start a game (names and colours in clockwise order); returns its journal id.

        Raises RuleError with a player message for a setup the rules do not allow.
        """
        return int(self._call("new_game", (tuple(players), first), timeout=timeout))

    def submit(self, command: Command, timeout: float = 5.0, *, host: bool = True) -> list[Event]:
        """Apply a command (an ``Undo`` takes back the last one); returns its events.

        Raises RuleError (or ServiceError) with a message for the players; once the game
        is over every command is refused (an undo unless the host's, confirmed).
        """
        if isinstance(command, Undo):
            return self.undo(timeout, host=host)
        return list(self._call("command", command, timeout=timeout))

    def undo(
        self, timeout: float = 5.0, *, confirmed: str | None = None, host: bool = True
    ) -> list[Event]:
        """Take back the last accepted command; RuleError when there is nothing to undo.

        ``confirmed``: the key of the action the page named (``view()["action_key"]``);
        ServiceError if another one is the last now.  After the end only the host's
        confirmed undo of the winning action is accepted (``ending.check_undo``).
        """
        return list(self._call("undo", (confirmed, host), timeout=timeout))

    def republish(self) -> None:
        """Publish a new version with nothing changed (e.g. the board changed hands)."""
        self._post("touch")

    #: Loot N Run uses no figures: the hub shows it no magnet at all.
    sheet: frozenset[int] = frozenset()

    def occupancy(self, change: OccupancyChange) -> None:
        """Loot N Run uses no figures: sensor changes are ignored."""

    def set_occupied(self, positions: frozenset[int]) -> None:
        """The hub gives this game the board: the pages learn it (occupancy is ignored)."""
        self.republish()

    # -- reading (any thread) ------------------------------------------------------------

    @property
    def state(self) -> State | None:
        return self._published.state

    @property
    def game_id(self) -> int | None:
        return self._published.game_id

    def view(self, published: Published | None = None) -> dict[str, Any]:
        """The page's JSON-safe view: the engine's table view plus the version, the
        journal id, the events of the last change and each player's LED colour.

        Without a game, ``phase`` is ``"setup"`` (the page shows the new-game form).
        """
        published = published or self._published
        state = published.state
        if state is None:
            return {
                "game": KIND,
                "phase": "setup",
                "version": published.version,
                "game_id": None,
                "players": [],
                "events": [],
            }
        view = table_view(state)
        colours = [hex_colour(c) for c in player_colours(p.colour for p in state.players)]
        for player, colour in zip(view["players"], colours, strict=True):
            player["rgb"] = colour
        view["chart"]["rgb"] = colours
        view["version"] = published.version
        view["game_id"] = published.game_id
        view["events"] = events_view(published.events)
        view["action_key"] = last_action_key(published.game_id, state)
        return view

    def record(self) -> str | None:
        """The current game as a JSON Lines record (setup, then one command a line)."""
        game_id = self._published.game_id
        return None if game_id is None else self.journal.export(game_id)

    def scene(self) -> Scene:
        """What the LEDs show now: the score track (see ``board.score_track``)."""
        published = self._published
        return track_scene(published.track, self.geometry, self.clock(), published.move)

    def status(self) -> dict[str, Any]:
        published = self._published
        state = published.state
        game: dict[str, Any] | None = None
        if state is not None:
            game = {
                "id": published.game_id,
                "phase": state.phase.value,
                "turn": state.turn,
                "players": len(state.players),
                "over": state.is_over,
            }
        return {
            "status": "ok",
            "game": game,
            "version": published.version,
            "uptime_s": round(self.clock() - self.started_at, 1),
        }

    # -- the loop ------------------------------------------------------------------------

    def _dispatch(self, request: Request) -> Any:
        if request.kind == "command":
            return self._command(request.payload)
        if request.kind == "undo":
            confirmed, host = request.payload
            return self._undo(confirmed, host)
        if request.kind == "new_game":
            players, first = request.payload
            return self._new_game(players, first)
        if request.kind == "touch":
            published = self._published
            self._publish(published.game_id, published.state, (), published.move)
            return None
        raise ValueError(f"unknown request {request.kind!r}")

    def _new_game(self, players: tuple[tuple[str, str], ...], first: int) -> int:
        setup = make_setup(players, first)
        state, events = new_game(setup)
        game_id = self.journal.new_game(KIND, setup_to_json(setup))
        log.info("new Loot N Run game %d: %s", game_id, ", ".join(p.name for p in setup.players))
        self._publish(game_id, state, events, self._move(None, state, events))
        return game_id

    def _game(self) -> tuple[int, State]:
        published = self._published
        if published.state is None or published.game_id is None:
            raise ServiceError("No Loot N Run game yet: start one first.")
        return published.game_id, published.state

    def _command(self, command: Command) -> tuple[Event, ...]:
        game_id, state = self._game()
        check_open(state.is_over)  # not even a correction once everyone has revealed
        new_state, events = apply(state, command)  # RuleError: nothing is journaled
        self.journal.append(game_id, command_to_json(command))
        if new_state.is_over:
            self.journal.end_game(game_id)
        self._publish(game_id, new_state, events, self._move(state, new_state, events))
        return tuple(events)

    def _undo(self, confirmed: str | None, host: bool) -> tuple[Event, ...]:
        game_id, state = self._game()
        key = last_action_key(game_id, state)
        check_undo(over=state.is_over, host=host, confirmed=confirmed, key=key)
        new_state, events = apply(state, Undo())  # RuleError when there is nothing to undo
        removed = self.journal.undo(game_id)
        if new_state.is_over:  # e.g. a late correction taken back: still over
            self.journal.end_game(game_id)
        log.info("Loot N Run game %d: undid %s", game_id, removed)
        self._publish(game_id, new_state, events, self._move(state, new_state, events))
        return tuple(events)

    def _move(self, old: State | None, new: State, events: Iterable[Event]) -> TrackMove:
        """The change of the track to animate: every score before and after."""
        caught = next((e.target for e in events if isinstance(e, Caught)), None)
        before = old.scores if old is not None and old.setup == new.setup else new.scores
        return TrackMove(before=before, after=new.scores, at=self.clock(), caught=caught)

    def _snapshot(
        self,
        version: int,
        game_id: int | None,
        state: State | None,
        events: Iterable[Event],
        move: TrackMove | None = None,
    ) -> Published:
        track = None if state is None else track_view(state)
        return Published(version, game_id, state, tuple(events), move, track)

    def _publish(
        self,
        game_id: int | None,
        state: State | None,
        events: Iterable[Event],
        move: TrackMove | None,
    ) -> None:
        self._set_published(
            self._snapshot(self._published.version + 1, game_id, state, events, move)
        )

    # -- stopping ------------------------------------------------------------------------

    def _after_close(self) -> None:
        if self._own_journal:
            self.journal.close()


def last_action_key(game_id: int | None, state: State) -> str:
    """Names the game's last entry as it stands (``ending.action_key``)."""
    last = command_to_json(state.commands[-1]) if state.commands else None
    return action_key(game_id, len(state.commands), last)


def make_service(*, journal: Journal, config: BoardConfig, quiet_s: float) -> LootNRunService:
    """The appliance's factory (``service.registry``); ``quiet_s`` is unused: no sensors."""
    return LootNRunService(journal=journal, geometry=Geometry.of(config))
