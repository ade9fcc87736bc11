"""The Into the Crypt service: one thread owns the crypt game; the board and the page feed it.

It follows the mummy game's service (``service.py``): every change goes through one
queue, the loop applies it, commits the command to the journal (kind ``"crypt"``)
before anyone sees its effects, and publishes a new version for the page (live
stream) and the LEDs (``scene()``).  A restart resumes the unfinished game by replay.

Where commands come from:

* the **page**: cubes tapped in the placing phase, meeples put on corners, entering
  the chamber, passing (a meeple's move is made on the board, never on the page);
* the **board**: the tracker (``crypt_tracker.judge``) turns a touch (placing) or a
  placed meeple into a command.  A meeple placed or moved is applied the moment it
  settles (the sensors' settle time already keeps a slide from counting); if the hand
  carries it on to another square before anyone else acts, the new square replaces
  the command (judged from the state before it), as the maze replaces a seeker's move.
  A cube placed by a touch waits until the board has been quiet for ``quiet_s``: the
  magnet lifted off a square may be the hand on its way to the next one;
* the **computer opponent** (optional, one seat): on its turn, when the board matches
  the game, it chooses (``ai.choose_command``, fair: it reads only the open table)
  after ``computer_delay_s`` so the players see one move at a time.  Its cube
  placements need nothing on the board; its meeple must then be carried by a person:
  the game waits, lighting the target cell ("put a figure here") and the meeple's old
  cell ("take this away"), until the board matches again.

Undo takes back the last command, and the computer's reply with it, so that a person
is to move again.  After an undo nothing on the board counts as a move until the
board has been put back as the game now is.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.board.config import BoardConfig
from companion.board.crypt_scene import PLAYER_COLOURS, crypt_scene
from companion.board.debounce import OccupancyChange
from companion.board.scene import Scene
from companion.games.crypt.ai import choose_command
from companion.games.crypt.board import square_name
from companion.games.crypt.commands import Command, Move, PlaceCube, PlaceMeeple
from companion.games.crypt.engine import RuleError, apply, make_setup, start_game
from companion.games.crypt.events import Event
from companion.games.crypt.moves import legal_moves
from companion.games.crypt.narration import describe, name, without_result
from companion.games.crypt.record import (
    command_from_json,
    command_to_json,
    setup_from_json,
    setup_to_json,
)
from companion.games.crypt.state import DEFAULT_COLOURS, Setup, State
from companion.games.crypt.views import board_view, events_json, table_view
from companion.i18n import Msg, msg
from companion.journal import Journal

from .crypt_tracker import CryptBoard, CryptJudgement, judge
from .ending import action_key, check_open, check_undo
from .loop import RETRY_S, BoardGameLoop, Request, RetryLater, ServiceError
from .resume import resume

log = logging.getLogger(__name__)

KIND = "crypt"
#: How many past moves the page shows.
HISTORY = 8


@dataclass(frozen=True)
class LogEntry:
    """One accepted command in words, for the page."""

    player: int
    text: Msg
    computer: bool


@dataclass
class CryptGame:
    """One game: its journal id, setup, the computer's seat, commands and state."""

    id: int
    setup: Setup
    computer: int | None
    state: State
    commands: list[Command] = field(default_factory=list)
    history: list[LogEntry] = field(default_factory=list)
    #: Events of the last accepted command (for the live page).
    last_events: list[Event] = field(default_factory=list)

    @classmethod
    def started(cls, game_id: int, setup: Setup, computer: int | None) -> CryptGame:
        state, events = start_game(setup)
        return cls(game_id, setup, computer, state, last_events=events)

    def accept(self, command: Command, state: State, events: list[Event]) -> None:
        player = self.state.to_move
        text = describe(events, self.setup.colours)
        self.history.append(LogEntry(player, text, player == self.computer))
        self.commands.append(command)
        self.state = state
        self.last_events = events

    def setup_json(self) -> dict[str, Any]:
        return {**setup_to_json(self.setup), "computer": self.computer}

    def replace_last(
        self, before: State, command: Command, state: State, events: list[Event]
    ) -> None:
        """The last command replaced by ``command`` (applied to ``before``, the state
        before the last command)."""
        self.commands.pop()
        self.history.pop()
        self.state = before
        self.accept(command, state, events)

    @property
    def undoable(self) -> bool:
        """Whether a person has made a move to take back (the computer's alone are not
        taken back: it would make them again)."""
        return any(not entry.computer for entry in self.history)

    @property
    def computer_to_move(self) -> bool:
        return not self.state.is_over and self.state.to_move == self.computer

    @classmethod
    def replayed(
        cls, game_id: int, setup_data: dict[str, Any], commands: list[dict[str, Any]]
    ) -> CryptGame:
        """Rebuild a game from the journal: same state, same turn, same history."""
        setup = setup_from_json(setup_data)
        computer = setup_data.get("computer")
        if computer is not None and not (isinstance(computer, int) and 0 <= computer < 4):
            raise ValueError(f"bad computer seat {computer!r}")
        game = cls.started(game_id, setup, computer)
        for data in commands:
            game.replay_one(data)
        return game

    def replay_one(self, data: Any) -> CryptGame:
        """Apply one journal command (ValueError, RuleError if it cannot be)."""
        command = command_from_json(data)
        state, events = apply(self.state, command)
        self.accept(command, state, events)
        return self


@dataclass(frozen=True)
class CryptPublished:
    """One published moment: the version number and everything the page may read."""

    version: int
    game_id: int
    state: State
    events: tuple[Event, ...]
    judgement: CryptJudgement
    computer: int | None
    history: tuple[LogEntry, ...]
    undoable: bool
    computer_thinking: bool
    #: Names the game's last move as it stands (an undo sends the key it confirmed).
    action_key: str = ""


class CryptService(BoardGameLoop[CryptPublished]):
    """Owns the running crypt game, the board's occupancy (while the board plays the
    crypt) and the game's journal entries; see the module docstring."""

    loop_name = "crypt"
    refusals = (RuleError, ServiceError)

    def __init__(
        self,
        *,
        journal: Journal,
        board: CryptBoard,
        clock: Callable[[], float] = time.monotonic,
        quiet_s: float = 0.25,
        computer_delay_s: float = 0.6,
    ) -> None:
        # The mummy game's loop commits on the shared connection from its own thread;
        # a connection of our own keeps the two loops' transactions apart (SQLite
        # serialises the writers; WAL lets both read).
        self._own_journal = journal.path != ":memory:"
        # (the appliance's connection has just read every page: no second check)
        self.journal = Journal(journal.path, check=False) if self._own_journal else journal
        self.board = board
        #: The positions under the crypt's sheet: the hub shows it no other magnet.
        self.sheet = frozenset(board.cells_by_square)
        self.clock = clock
        self.quiet_s = quiet_s
        self.computer_delay_s = computer_delay_s
        self.started_at = clock()
        self._init_board()
        #: The square last touched by a magnet in the placing phase (see the tracker).
        self._touched: int | None = None
        #: After an undo, placements are not judged until the board matches the game.
        self._after_undo = False
        #: When the computer opponent makes its move (None: it is not waiting to).
        self._computer_at: float | None = None
        #: The state before a meeple placed or moved on the board, and the number of
        #: commands after it: while nobody else has acted, the hand may carry it on.
        self._replaceable: tuple[State, int] | None = None
        self.game = self._resume_or_new()
        self._init_loop(self._snapshot(0, []))

    # -- starting --------------------------------------------------------------------

    def _resume_or_new(self) -> CryptGame:
        """The unfinished game; else the last finished one (its final board), so a
        restart adds no game to the journal; a new game only on a first start."""
        stored = self.journal.unfinished(KIND) or self.journal.latest(KIND)
        if stored is not None:
            game = resume(self.journal, stored, CryptGame.replayed, CryptGame.replay_one)
            if game is not None:
                log.info("resumed crypt game %d after %d commands", stored.id, len(game.history))
                return game
        return self._new_game(players=2)

    def _new_game(
        self,
        *,
        players: int = 2,
        colours: list[str] | None = None,
        first_player: int = 0,
        computer: int | None = None,
        seed: int | None = None,
    ) -> CryptGame:
        names = tuple(colours) if colours else DEFAULT_COLOURS[:players]
        unknown = [c for c in names if c not in PLAYER_COLOURS]
        if unknown:
            offered = ", ".join(PLAYER_COLOURS)
            raise ServiceError(
                "{unknown} is not a colour here: choose from {offered}.",
                unknown=unknown[0],
                offered=offered,
            )
        if computer is not None and not 0 <= computer < players:
            raise ServiceError(
                "The computer plays one of the players 1 to {players}.", players=players
            )
        if seed is None:  # the computer's tie-breaks differ from game to game
            seed = int.from_bytes(os.urandom(4), "little")
        setup = make_setup(players, first_player, seed=seed, colours=names)
        game = CryptGame.started(0, setup, computer)
        game.id = self.journal.new_game(KIND, game.setup_json())
        log.info("new crypt game %d: %s", game.id, ", ".join(names))
        return game

    def start(self) -> None:
        if self._thread is None:
            super().start()
            self._post("wake")  # a resumed game may be the computer's turn

    # -- requests (any thread) ---------------------------------------------------------

    def submit(self, command: Command, *, role: str = "page", timeout: float = 5.0) -> list[Event]:
        """Apply a command from the page; RuleError/ServiceError with a player message."""
        return list(self._call("command", command, role, timeout=timeout))

    def new_game(
        self,
        *,
        players: int = 2,
        colours: list[str] | None = None,
        first_player: int = 0,
        computer: int | None = None,
        seed: int | None = None,
        timeout: float = 5.0,
    ) -> int:
        """Start a new game (the unfinished one ends); returns its journal id.

        ``computer``: the seat the computer opponent plays (None: people play all);
        ``seed``: the computer's tie-breaks (None: a random one).
        """
        options = {
            "players": players,
            "colours": colours,
            "first_player": first_player,
            "computer": computer,
            "seed": seed,
        }
        return int(self._call("new_game", options, "page", timeout=timeout))

    def undo(
        self, timeout: float = 5.0, *, confirmed: str | None = None, host: bool = True
    ) -> bool:
        """Take back the last command (and the computer's reply to it).

        ``confirmed``: the key of the move the page named (``view()["action_key"]``);
        ServiceError if another one is the last now.  After the end only the host's
        confirmed undo of the winning move is accepted (``ending.check_undo``).
        """
        return bool(self._call("undo", (confirmed, host), "page", timeout=timeout))

    def set_occupied(self, positions: frozenset[int]) -> None:
        """The whole board as it stands (when the board is given to this game)."""
        self._post("snapshot", frozenset(positions))

    def occupancy(self, change: OccupancyChange) -> None:
        """A settled sensor change (called from the sensor thread)."""
        self._post("occupancy", change)

    def expected_positions(self) -> frozenset[int]:
        """Where the game, as published, puts the meeples: the hub opens a square the
        maze's figures stood on to a magnet put down there (``table/hub.py``)."""
        return frozenset(self.board.expected(self._published.state).values())

    # -- reading (any thread) ------------------------------------------------------------

    def view(self, published: CryptPublished | None = None) -> dict[str, Any]:
        """The JSON-safe view for the page: the whole table (all is open information),
        the legal commands of a person to move, the board's state and the last moves."""
        p = self._published if published is None else published
        state, judgement = p.state, p.judgement
        view = table_view(state)
        colours = state.setup.colours
        person_to_move = not state.is_over and state.to_move != p.computer
        view["version"] = p.version
        view["game_id"] = p.game_id
        view["computer"] = p.computer
        view["computer_thinking"] = p.computer_thinking
        view["hints"] = [c.to_json() for c in legal_moves(state)] if person_to_move else []
        view["can_undo"] = p.undoable
        view["action_key"] = p.action_key
        view["colours_available"] = list(PLAYER_COLOURS)
        view["layout"] = board_view()
        # The result is the end screen's to say, once: the moves are told without it.
        view["history"] = [
            {"player": e.player, "text": without_result(e.text), "computer": e.computer}
            for e in p.history
        ]
        last = next((e for e in reversed(p.history) if e.computer), None)
        view["last_computer"] = (
            without_result(last.text) if last is not None and not state.is_over else None
        )
        view["events"] = events_json(list(p.events))
        message = judgement.message
        if p.computer_thinking and judgement.matches and not state.is_over:
            message = msg(
                "{player}, the computer, is thinking.", player=name(colours, state.to_move)
            )
        view["board"] = {
            "matches": judgement.matches,
            "message": message,
            "lifted": self._square_names(judgement.lifted),
            "errors": self._square_names(judgement.errors),
            "hints": self._square_names(judgement.hints),
            "missing": self._square_names(judgement.missing),
            "unexpected": self._square_names(judgement.unexpected),
            "touch": square_name(judgement.touch) if judgement.touch is not None else None,
        }
        return view

    def _square_names(self, positions: frozenset[int]) -> list[Msg]:
        """Positions as square names (or the board's name for those off the 8x8)."""
        return [self.board.name(pos) for pos in sorted(positions)]

    def scene(self) -> Scene:
        """What the LEDs should show now (pure data for the renderer)."""
        published = self._published
        j = published.judgement
        return crypt_scene(
            published.state,
            self.board.positions,
            hints=j.hints,
            lifted=j.lifted,
            errors=j.errors,
            missing=j.missing,
            unexpected=j.unexpected,
            touch=j.touch,
            cells=self.board.cells_by_square,
        )

    def status(self) -> dict[str, Any]:
        published = self._published
        state = published.state
        return {
            "status": "ok",
            "game": {
                "id": published.game_id,
                "phase": state.phase.value,
                "ply": state.ply,
                "over": state.is_over,
            },
            "board": {"matches": published.judgement.matches},
            "version": published.version,
            "uptime_s": round(self.clock() - self.started_at, 1),
        }

    # -- the loop ------------------------------------------------------------------------

    def _next_timeout(self) -> float:
        timeout = self.idle_s
        now = self.clock()
        due = self._placement_due_in()
        if due is not None:
            timeout = min(timeout, due)
        if self._computer_at is not None:
            timeout = min(timeout, self._computer_at - now)
        return timeout

    def _tick(self) -> None:
        self._apply_pending()
        self._computer_move()

    def _dispatch(self, request: Request) -> Any:
        if request.kind == "command":
            return self._command(request.payload, request.role)
        if request.kind == "occupancy":
            self._on_occupancy((request.payload,))
        elif request.kind == "snapshot":
            self._occupied = set(request.payload)
            self._last_change = self.clock()
            self._publish([])
        elif request.kind == "new_game":
            self.game = self._new_game(**request.payload)
            self._reset_board_memory()
            self._publish(self.game.last_events)
            return self.game.id
        elif request.kind == "undo":
            confirmed, host = request.payload
            return self._undo(confirmed, host)
        elif request.kind == "wake":
            self._publish([])
        else:
            raise ValueError(f"unknown request {request.kind!r}")
        return None

    def _command(self, command: Command | Replacement, role: str) -> tuple[Event, ...]:
        if isinstance(command, Replacement):
            return self._replace(command.command)
        game = self.game
        state = game.state
        if role == "page":
            self._check_page_command(command, state)
        new_state, events = apply(state, command)
        self.journal.append(game.id, command_to_json(command))
        if new_state.is_over:
            self.journal.end_game(game.id)
        game.accept(command, new_state, events)
        self._touched = None
        figure = role == "board" and isinstance(command, (Move, PlaceMeeple))
        self._replaceable = (state, len(game.commands)) if figure else None
        self._publish(events)
        return tuple(events)

    def _replace(self, command: Command) -> tuple[Event, ...]:
        """The hand carried the meeple on before anyone else acted: the new square
        replaces the last command, judged from the state before it."""
        game, mark = self.game, self._replaceable
        if mark is None or mark[1] != len(game.commands):
            raise ServiceError("The move can no longer be changed.")
        before = mark[0]
        new_state, events = apply(before, command)
        self.journal.replace_last(game.id, command_to_json(command))
        if new_state.is_over:
            self.journal.end_game(game.id)
        game.replace_last(before, command, new_state, events)
        self._touched = None
        log.info("crypt: the last command was replaced by %s", command)
        self._publish(events)
        return tuple(events)

    def _check_page_command(self, command: Command, state: State) -> None:
        """Refuse what the page may not do now, in player words."""
        check_open(state.is_over)
        colours = state.setup.colours
        if state.to_move == self.game.computer:
            raise ServiceError(
                "It is {name}'s turn: the computer is playing.", name=name(colours, state.to_move)
            )
        if isinstance(command, Move):
            raise ServiceError("Move your meeple on the board: the sensors see where it goes.")
        judgement = self._published.judgement
        if not judgement.matches:
            raise ServiceError(judgement.message or "Put the board right first.")
        if judgement.touch is not None:
            raise ServiceError(
                "A magnet rests on {square}: lift it first (that places the cube there).",
                square=square_name(judgement.touch),
            )
        if judgement.lifted:
            start = square_name(state.meeples[state.to_move])
            raise ServiceError(
                "Put {name}'s meeple back on {start} first.",
                name=name(colours, state.to_move),
                start=start,
            )

    @staticmethod
    def _action_key(game_id: int, commands: tuple[Command, ...] | list[Command]) -> str:
        """Names the game's last move as it stands (``ending.action_key``)."""
        last = command_to_json(commands[-1]) if commands else None
        return action_key(game_id, len(commands), last)

    def _undo(self, confirmed: str | None = None, host: bool = True) -> bool:
        """Take back commands until a person is to move (or nothing is left)."""
        game = self.game
        key = self._action_key(game.id, game.commands)
        check_undo(over=game.state.is_over, host=host, confirmed=confirmed, key=key)
        if not game.undoable:
            return False
        # How many commands go back (the computer's replies with the move before them),
        # worked out first: they leave the journal in one transaction, or none does.
        stored = self.journal.load(game.id)
        commands = stored.commands
        count = 1
        replayed = CryptGame.replayed(stored.id, stored.setup, commands[:-count])
        while replayed.computer_to_move and count < len(commands):
            count += 1
            replayed = CryptGame.replayed(stored.id, stored.setup, commands[:-count])
        removed = self.journal.undo(game.id, count)
        if removed is None:  # pragma: no cover - the journal holds every accepted command
            return False
        self.game = replayed
        self._reset_board_memory()
        self._after_undo = True
        log.info("crypt: undid %s", removed)
        self._publish([])
        return True

    def _reset_board_memory(self) -> None:
        self._replaceable = None
        self._touched = None
        self._pending = None
        self._computer_at = None
        self._after_undo = False

    def _computer_move(self) -> None:
        due = self._computer_at
        if due is None or self.clock() < due:
            return
        self._computer_at = None
        if not self._computer_may_move():
            return
        state = self.game.state
        command = choose_command(state, seed=self.game.setup.seed)
        try:
            self._command(command, "computer")
        except RetryLater as exc:  # the journal cannot be written: the computer waits
            log.warning("crypt: the computer's move waits: %s", exc)
            self._computer_at = self.clock() + RETRY_S
        except RuleError:  # pragma: no cover - the computer picks only legal commands
            log.exception("crypt: the computer's command was refused")

    def _computer_may_move(self) -> bool:
        judgement = self._published.judgement
        return (
            self.game.computer_to_move
            and judgement.matches
            and judgement.touch is None
            and not judgement.lifted
            and not self._after_undo
        )

    # -- judging and publishing ----------------------------------------------------------

    def _judge(self) -> CryptJudgement:
        state, occupied = self.game.state, frozenset(self._occupied)
        if self._after_undo:
            judgement = judge(state, occupied, self.board, placements=False)
            if not judgement.matches:
                return judgement
            self._after_undo = False
        placements = not self.game.computer_to_move
        judgement = judge(state, occupied, self.board, touched=self._touched, placements=placements)
        if judgement.touch is not None:
            self._touched = judgement.touch
        elif judgement.command is None:
            self._touched = None
        if not judgement.matches:
            return self._carried_on(occupied) or judgement
        return judgement

    def _carried_on(self, occupied: frozenset[int]) -> CryptJudgement | None:
        """The board judged as before the last meeple placed or moved, while nobody
        else has acted: its figure in hand again, or put down on another square it
        could have gone to (then that replaces the command).  None: not that case."""
        mark = self._replaceable
        if mark is None or mark[1] != len(self.game.commands):
            return None
        before = judge(mark[0], occupied, self.board)
        if isinstance(before.command, (Move, PlaceMeeple)):
            return replace(before, replaces=True)
        if before.matches and before.command is None and before.lifted:
            return before
        return None

    def _snapshot(self, version: int, events: list[Event]) -> CryptPublished:
        game = self.game
        return CryptPublished(
            version=version,
            game_id=game.id,
            state=game.state,
            events=tuple(events),
            judgement=self._judge(),
            computer=game.computer,
            history=tuple(game.history[-HISTORY:]),
            action_key=self._action_key(game.id, game.commands),
            undoable=game.undoable,
            computer_thinking=game.computer_to_move,
        )

    def _quiet_for(self, command: Any) -> float:
        """A cube placed by a touch waits for quiet; a meeple is applied when it settles."""
        return self.quiet_s if isinstance(command, PlaceCube) else 0.0

    def _publish_board(self) -> None:
        self._publish([], apply_due=True)

    def _publish(self, events: list[Event], *, apply_due: bool = False) -> None:
        """Publish the game as it stands.  ``apply_due``: a placement the board now shows
        that is due at once is applied first, so the pages and the LEDs get the move
        itself, never the meeple in hand a moment before it."""
        published = self._snapshot(self._published.version + 1, events)
        judged = published.judgement
        command = judged.command
        self._hold_placement(
            Replacement(command) if judged.replaces and command is not None else command
        )
        if apply_due and self._applied_due():
            return  # the move (or its refusal) is published
        self._set_published(published)
        if self._computer_may_move():
            if self._computer_at is None:
                self._computer_at = self.clock() + self.computer_delay_s
        else:
            self._computer_at = None

    # -- stopping ------------------------------------------------------------------------

    def _after_close(self) -> None:
        if self._own_journal:
            self.journal.close()


@dataclass(frozen=True)
class Replacement:
    """A judged placement that replaces the last command (see ``_replace``)."""

    command: Command


def make_service(
    *,
    journal: Journal,
    config: BoardConfig,
    quiet_s: float = 0.25,
    computer_delay_s: float = 0.6,
) -> CryptService:
    """The crypt's service for the appliance (``registry.py`` finds it by this name)."""
    board = CryptBoard(config.columns, config.rows, config.camp_slots, config.sarcophagus_slots)
    return CryptService(
        journal=journal, board=board, quiet_s=quiet_s, computer_delay_s=computer_delay_s
    )
