"""The service loop: one thread owns the game; sensors, buttons and the web feed it.

Everything that would change the game goes through ``submit`` onto one queue; the
loop applies it, commits it to the journal before anyone sees its effects, and then
publishes a new version for the pages and the LEDs.  The hardware and the web never
touch the state directly.
"""

from __future__ import annotations

import logging
import os
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from companion.board.debounce import OccupancyChange
from companion.board.scene import Mode, Scene
from companion.games.mummy.commands import HOST_COMMANDS, Command, Move, MummyStep, Redeal, Reveal
from companion.games.mummy.engine import RuleError, apply, new_game
from companion.games.mummy.events import Event, SeekerCaught
from companion.games.mummy.first_game import Lesson
from companion.games.mummy.maze import Maze, Treasure, parse_cell_name
from companion.games.mummy.moves import mummy_routes
from companion.games.mummy.state import Phase
from companion.games.mummy.summary import Summary, summarize
from companion.games.mummy.takeback import Action, may_take_back
from companion.games.mummy.views import mummy_view, seeker_view, table_view, visible_events
from companion.games.mummy.words import colour_word
from companion.i18n import Msg, msg, word
from companion.journal import Journal

from .ending import check_open
from .loop import BoardGameLoop, Request, ServiceError
from .mummy_game import KIND, RunningGame, make_game_setup
from .mummy_tracker import BoardMap, Judgement, judge, judge_replacement, may_replace
from .registry import GAME_NAMES
from .resume import resume

log = logging.getLogger(__name__)

#: How many commands' events the published log keeps (for the pages' announcements).
LOG_COMMANDS = 40
#: How many recent action keys the service remembers (``Service._keys``).
KEYS_KEPT = 64
#: The pause between the steps of the mummy's move to a destination (``Service.walk``),
#: so that the table sees each step on the LEDs.
WALK_PACE_S = 0.3


@dataclass(frozen=True)
class Published:
    """One published moment: the version number and everything the pages may read."""

    version: int
    game_id: int
    state: Any
    events: tuple[Event, ...]
    judgement: Judgement
    board_connected: bool
    catch: tuple[int, float] | None
    #: The events of the game's last commands, one tuple per command, oldest first.
    log: tuple[tuple[Event, ...], ...] = ()
    #: The game that has the board while this one is paused (None: this one plays).
    paused: str | None = None
    #: The last command as an action in words (None: nothing played yet).
    action: Action | None = None
    #: Whether the seat that made the last action may still take it back.
    may_take_back: bool = False
    #: What the host's undo takes back, in words (see ``Service._host_undo``).
    host_undo: Action | None = None
    #: The last take-back (its serial and action), until the next command.
    notice: tuple[int, Action] | None = None
    #: Names the game's last action as it stands (``Service._action_key``): the host's
    #: undo and a seat's take-back send the key they confirmed.
    action_key: str = ""
    #: The game in short once it is over (None until then: it reveals every card).
    summary: Summary | None = None
    #: A first game's lessons shown now, each with its seat (``first_game.py``).
    lessons: tuple[Lesson, ...] = ()


class ActionMoved(ServiceError):
    """The action a take-back or the host's undo confirmed is no longer the last one:
    nothing was done, and the message names the one that is."""


class Service(BoardGameLoop[Published]):
    """The companion's core: owns the running game, the board's occupancy and the journal."""

    loop_name = "service"
    refusals = (RuleError, ServiceError)
    #: The seekers' cells are secret (from the mummy): the hub keeps the magnets this
    #: game leaves behind from the games that get the board after it.
    hides_positions = True

    def __init__(
        self,
        *,
        maze: Maze,
        maze_text: str,
        journal: Journal,
        board: BoardMap,
        clock: Callable[[], float] = time.monotonic,
        quiet_s: float = 0.0,
        hints: bool = False,
    ) -> None:
        self.maze = maze
        self.maze_text = maze_text
        self.journal = journal
        self.board = board
        self.clock = clock
        self.quiet_s = quiet_s
        self.hints = hints
        #: The pause between the steps of ``walk`` (the LEDs show each step).
        self.walk_pace_s = WALK_PACE_S
        #: The table throws real dice (set by the host page): the roll button is not used.
        self.physical_dice = False
        #: The seats the companion plays (set by the computer mummy): the host's undo
        #: takes their commands back with the person's action before them.
        self.computer_seats: frozenset[str] = frozenset()
        self.started_at = clock()
        self._init_board()
        self._board_connected = True
        self._catch: tuple[int, float] | None = None
        #: After an undo, or when the board comes back, placements are not judged until
        #: the board matches the game (restore mode).
        self._after_undo = False
        #: The game that has the board while this one is paused (None: not paused).
        self._paused: str | None = None
        #: The last take-back, shown on every page until the next command.
        self._notice: tuple[int, Action] | None = None
        self._notice_serial = 0
        #: The action key's parts: unique to this start, bumped whenever the game changes.
        self._epoch = os.urandom(4).hex()
        self._acted = 0
        self._keyed: tuple[int, int, int] | None = None
        #: The recent keys: the game object and its number of commands when each was
        #: made (the host's undo of a person's action stands while the computer plays on).
        self._keys: OrderedDict[str, tuple[RunningGame, int]] = OrderedDict()
        #: The summary of the game as it last ended (its game key, the summary).
        self._summary: tuple[tuple[int, int, int], Summary | None] | None = None
        self.game = self._resume_or_new()
        self._log = _replayed_log(self.game)
        self._init_loop(self._snapshot(0))

    # -- starting --------------------------------------------------------------------

    def _resume_or_new(self) -> RunningGame:
        stored = self.journal.unfinished(KIND)
        if stored is not None:
            game = resume(self.journal, stored, RunningGame.replayed, RunningGame.replay_one)
            if game is not None:
                log.info(
                    "resumed game %d after %d commands (round %d)",
                    stored.id,
                    len(game.commands),
                    game.current.rounds + 1,
                )
                return game
        return self._new_game(["red", "turquoise", "blue", "violet"])

    def _new_game(self, colours: list[str], **options: Any) -> RunningGame:
        seed = int.from_bytes(os.urandom(8), "little")
        hands = options.pop("hands", None)
        also = options.pop("also", None)
        facts = options.pop("table", None)
        setup = make_game_setup(self.maze, colours, seed=seed, **options)
        if hands is not None:
            setup = replace(setup, hands=tuple(self._hand(cells) for cells in hands))
        game = RunningGame(0, setup, self.maze_text)
        data = game.setup_json()
        if facts:  # who played the mummy and whether its aid was on, for replays and statistics
            data["table"] = facts
        game.id = self.journal.new_game(KIND, data, also)
        log.info("new game %d: %s", game.id, ", ".join(colours))
        return game

    # -- requests (any thread) ---------------------------------------------------------

    def submit(self, role: str, command: Command | Planned, timeout: float = 5.0) -> list[Event]:
        """Apply a player's command; raise RuleError/ServiceError with a player message."""
        return list(self._call("command", command, role, timeout=timeout))

    def walk(self, to: int, sleep: Callable[[float], None] = time.sleep) -> list[Event]:
        """The mummy's move to a destination in one gesture, played as its single steps.

        The route is ``mummy_routes``' (the maze and the mummy only, never the seekers);
        each step is a ``MummyStep`` submitted like a tapped one (journal, log, LEDs, one
        at a time ``walk_pace_s`` apart).  A catch on the way ends the move there, as the
        engine says; so does anything else that changes the mummy's move meanwhile."""
        state = self._published.state
        if state.phase is not Phase.MUMMY_MOVING:
            raise ServiceError("It is not the mummy's move.")
        route = mummy_routes(state).get(to)
        if route is None:
            name = self.maze.cell_name(to) if self.maze.is_cell(to) else str(to)
            raise ServiceError(
                "The mummy cannot reach {cell} with {n} steps left.", cell=name, n=state.steps_left
            )
        events: list[Event] = []
        here = state.mummy
        for number, cell in enumerate(route):
            if number:
                sleep(self.walk_pace_s)
            now = self._published.state
            if now.phase is not Phase.MUMMY_MOVING or now.mummy != here:
                break
            events += self.submit("mummy", MummyStep(cell))
            here = cell
        return events

    def new_game(self, colours: list[str], timeout: float = 5.0, **options: Any) -> int:
        """Start a game (options: see ``make_game_setup``; ``hands``: each seeker's
        physical mission cards by treasure cell name, dealt by hand; ``table``: the table's
        facts kept with the record (``{"computer": level or None, "aid": bool}``); ``also``: called
        with the game's id inside the journal's transaction, see ``Journal.new_game``)."""
        return int(self._call("new_game", (colours, options), "host", timeout=timeout))

    def undo(self, confirmed: str | None = None, timeout: float = 5.0) -> bool:
        """Take back the last accepted command (for table mistakes).  ``confirmed``: the
        action key the host saw (``Published.action_key``); ActionMoved if the game has
        moved on since, and nothing is undone."""
        return bool(self._call("undo", confirmed, "host", timeout=timeout))

    def redeal(self, timeout: float = 5.0) -> list[Event]:
        """The host deals the unplayed mission cards again, after an undo of the end that
        had shown them; RuleError in words when they are secret (nothing to deal)."""
        return list(self._call("redeal", None, "host", timeout=timeout))

    def take_back(self, seat: str, confirmed: str | None = None, timeout: float = 5.0) -> Action:
        """A seat takes back its own last action (until the next player acts, never after
        the game has ended); raises ServiceError in player words when it may not, and
        ActionMoved when ``confirmed`` (the action key the page showed) is stale."""
        action: Action = self._call("take_back", (seat, confirmed), seat, timeout=timeout)
        return action

    def set_occupied(self, positions: frozenset[int]) -> None:
        """The whole board: as first read at start-up, or given back by another game
        (a paused game then resumes in restore mode)."""
        self._post("snapshot", positions)

    def board_taken(self, by: str) -> None:
        """Another game has the board (the host gave it): the game pauses until it is
        back.  Paused at once (no command slips in before the loop publishes it)."""
        self._paused = by
        self._post("pause", by)

    @property
    def paused(self) -> str | None:
        """The game the board plays while this one waits (None: this one plays)."""
        return self._paused

    def occupancy(self, change: OccupancyChange) -> None:
        """A settled sensor change (called from the sensor thread)."""
        self._post("occupancy", (change,))

    def occupancies(self, changes: list[OccupancyChange]) -> None:
        """One scan's settled changes (the sensor thread): judged as one board."""
        self._post("occupancy", tuple(changes))

    def set_board_connected(self, connected: bool) -> None:
        self._post("link", connected)

    # -- reading (any thread) ------------------------------------------------------------

    def view(self, role: str, seeker: int | None = None) -> dict[str, Any]:
        """The JSON-safe view of a role: mummy, seeker (with its index) or table."""
        published = self._published
        state = published.state
        if role == "mummy":
            view = mummy_view(state)
        elif role == "seeker" and seeker is not None:
            view = seeker_view(state, seeker)
        else:
            view = table_view(state)
        view["version"] = published.version
        view["board"] = {
            "connected": published.board_connected,
            "matches": published.judgement.matches,
        }
        if role != "mummy":
            view["board"]["message"] = published.judgement.message
        elif not published.judgement.matches:
            view["board"]["message"] = "The seekers are putting the board right."
        return view

    def events_for(self, role: str) -> list[Event]:
        return visible_events(list(self._published.events), role)

    def scene(self) -> Scene:
        """What the LEDs should show now (pure data for the renderer)."""
        published = self._published
        state = published.state
        judgement = published.judgement
        positions = self.board.cells + len(self.board.camp) + len(self.board.sarcophagus)
        mode = Mode.PLAY
        winners: frozenset[int] = frozenset()
        if state.winner is not None:
            mode = Mode.MUMMY_WINS if state.winner.is_mummy else Mode.SEEKERS_WIN
            if state.winner.is_mummy:
                winners = frozenset({state.mummy}) if self.maze.is_cell(state.mummy) else winners
            else:
                winners = frozenset(
                    p
                    for f, owner in enumerate(state.setup.figure_owner)
                    if owner == state.winner.seeker
                    and (p := self.board.position_of(state, f)) is not None
                )
        catch_at, catch_time = published.catch if published.catch else (None, 0.0)
        return Scene(
            positions=positions,
            mode=mode,
            mummy=state.mummy if self.maze.is_cell(state.mummy) else None,
            hints=judgement.hints,
            hint_pulses=judgement.hint_pulses,
            lifted=judgement.lifted,
            errors=judgement.errors,
            missing=judgement.missing,
            unexpected=judgement.unexpected,
            catch_at=catch_at,
            catch_time=catch_time,
            winners=winners,
        )

    def status(self) -> dict[str, Any]:
        published = self._published
        state = published.state
        return {
            "status": "ok",
            "game": {
                "id": published.game_id,
                "phase": state.phase.value,
                "round": state.rounds + 1,
                "over": state.is_over,
            },
            "board": {
                "connected": published.board_connected,
                "matches": published.judgement.matches,
            },
            "version": published.version,
            "uptime_s": round(self.clock() - self.started_at, 1),
        }

    # -- the loop ------------------------------------------------------------------------

    def _next_timeout(self) -> float:
        due = self._placement_due_in()
        return self.idle_s if due is None else due

    def _tick(self) -> None:
        self._apply_pending()

    def _dispatch(self, request: Request) -> Any:
        if request.kind == "command":
            return self._command(request.payload, request.role)
        if request.kind == "occupancy":
            self._on_occupancy(request.payload)
        elif request.kind == "snapshot":
            self._occupied = set(request.payload)
            if self._paused is not None:
                self._paused = None
                self._after_undo = True  # restore mode: the figures are put back first
                log.info("the board is back: the game resumes")
            self._publish([])
        elif request.kind == "pause":
            self._paused = str(request.payload)
            log.info("the game pauses: the board plays %s", self._paused)
            self._publish([])
        elif request.kind == "link":
            self._board_connected = bool(request.payload)
            self._publish([])
        elif request.kind == "new_game":
            colours, options = request.payload
            self.game = self._new_game(colours, **options)
            self._catch = None
            self._notice = None
            self._log = deque([tuple(self.game.last_events)], maxlen=LOG_COMMANDS)
            self._publish(self.game.last_events)
            return self.game.id
        elif request.kind == "undo":
            count, action = self._host_undo()
            self._check_confirmed(request.payload, action, "host")
            revealed = self.game.current.is_over or self.game.current.cards_known
            if not self._undo(count):
                return False
            if action is not None:
                self._set_notice(replace(action, by_host=True, after_reveal=revealed))
                self._publish([])
            return True
        elif request.kind == "redeal":
            return self._redeal()
        elif request.kind == "take_back":
            seat, confirmed = request.payload
            return self._take_back(str(seat), confirmed)
        else:
            raise ValueError(f"unknown request {request.kind!r}")
        return None

    def _command(self, command: Command | Planned | Replacement, role: str) -> tuple[Event, ...]:
        if self._paused is not None:
            raise ServiceError(paused_words(self._paused))
        if isinstance(command, Replacement):
            return self._replace_move(command.move)
        if isinstance(command, Planned):
            if command.game != self.game.key:
                raise ServiceError("The game moved on while the computer thought.")
            command = command.command
        if isinstance(command, HOST_COMMANDS):
            raise ServiceError("Only the host deals the mission cards again, on the host page.")
        state = self.game.current
        if role != "board":
            check_open(state.is_over)  # after the end only the host's undo (``_dispatch``)
        if role == "mummy" and not state.is_mummy_turn:
            raise ServiceError("It is not the mummy's turn.")
        if role.startswith("seeker") and state.is_mummy_turn:
            raise ServiceError("It is the mummy's turn.")
        if role.startswith("seeker") and not state.is_over and role != f"seeker{state.seeker}":
            colour = colour_word(state.setup.figures[state.figure])
            raise ServiceError("It is {colour}'s turn.", colour=colour)
        # A number move back to its own cell looks like no move to the sensors, so the
        # seeker says it on the phone; every other move is seen on the board.
        if (
            isinstance(command, Move)
            and role != "board"
            and command.to != state.positions[state.figure]
        ):
            raise ServiceError("Move the figure on the board: the sensors see where it goes.")
        judgement = self._published.judgement
        if not judgement.matches and role == "mummy":
            # The restore message names the seekers' cells: never for the mummy.
            raise ServiceError("The seekers are putting the board right: wait a moment.")
        if not judgement.matches and role != "board":
            raise ServiceError(judgement.message or "Put the board right first.")
        return self._accept(command)

    def _accept(self, command: Command) -> tuple[Event, ...]:
        """Apply a command (RuleError in words), commit it to the journal, publish it."""
        new_state, events = self.game.try_apply(command)
        self.journal.append(self.game.id, self.game.command_json(command))
        self._notice = None
        if new_state.is_over:
            self.journal.end_game(self.game.id)
        self.game.accept(command, new_state, events)
        self._log.append(tuple(events))
        for event in events:
            if isinstance(event, SeekerCaught):
                self._catch = (event.at, self.clock())
        self._publish(events)
        return tuple(events)

    def _redeal(self) -> tuple[Event, ...]:
        """The host's new deal of the unplayed cards (the engine says when it may be).
        Not held back by the board: the figures do not move, and the restore words,
        which name the seekers' cells, are never the host's answer."""
        if self._paused is not None:
            raise ServiceError(paused_words(self._paused))
        check_open(self.game.current.is_over)
        events = self._accept(Redeal())
        log.info("the host dealt the unplayed mission cards again")
        return events

    def _replace_move(self, move: Move) -> tuple[Event, ...]:
        """The seeker moved the figure on before the turn ended: the new cell replaces
        the last move, measured from where the turn began."""
        if not self._may_replace():
            raise ServiceError("The move can no longer be changed.")
        before = self.game.previous
        assert before is not None
        new_state, events = apply(before, move)
        self.journal.replace_last(self.game.id, self.game.command_json(move))
        if new_state.is_over:
            self.journal.end_game(self.game.id)
        self.game.replace_last(move, new_state, events)
        self._log[-1] = tuple(events)
        self._catch = next(
            ((e.at, self.clock()) for e in events if isinstance(e, SeekerCaught)), None
        )
        log.info("the last move was replaced by %s", move)
        self._publish(list(events))
        return tuple(events)

    def _last_action(self) -> Action | None:
        """The last action of a seat (past the record of a reveal, which is no action)."""
        actions = self.game.actions
        index = len(actions) - 1 - self.game.trailing_reveals()
        return actions[index] if index >= 0 else None

    def _last_command(self) -> Command:
        return self.game.commands[-1 - self.game.trailing_reveals()]

    def _host_undo(self) -> tuple[int, Action | None]:
        """What the host's undo takes back: how many commands, and the action in words.

        The last action; but the computer's own commands at the end go back together
        with the person's action before them, since taken back alone the computer would
        play them again the same way."""
        actions, seats = self.game.actions, self.computer_seats
        reveals = self.game.trailing_reveals()  # the record of a reveal goes with it
        last = len(actions) - 1 - reveals
        index = last
        while index >= 0 and actions[index].seat in seats:
            index -= 1
        if index == -1 and last >= 0:
            index = last  # the computer's commands alone: the last of them
        if index == last:
            return (len(actions) - index if index >= 0 else 0), self._last_action()
        action = actions[index]
        return len(actions) - index, replace(
            action,
            said=msg("{what}, and what the mummy did after it", what=action.said),
            said_to_mummy=msg("{what}, and what the mummy did after it", what=action.said_to_mummy),
        )

    def _action_key(self) -> str:
        """Names the game's last action as it stands now: a new key after every accepted or
        undone command and every new game, never the same one twice (not across a
        restart either), while a board touch or a pause leaves it alone, and so does a
        move replaced before the turn ended (the same action of the same seat, which the
        mummy's page must not see change)."""
        game = self.game
        now = (game.id, id(game), len(game.commands))  # an undo replays a new game object
        if now != self._keyed:
            self._keyed = now
            self._acted += 1
            self._keys[f"{self._epoch}-{self._acted}"] = (game, len(game.commands))
            while len(self._keys) > KEYS_KEPT:
                self._keys.popitem(last=False)
        return f"{self._epoch}-{self._acted}"

    def _only_the_computer_since(self, confirmed: str) -> bool:
        """Since the key ``confirmed`` only the computer's seats have played (in this very
        game object: no undo between), so the host's undo still takes back the person's
        action that the host saw ("..., and what the mummy did after it")."""
        seen = self._keys.get(confirmed)
        if seen is None or seen[0] is not self.game:
            return False
        return all(a.seat in self.computer_seats for a in self.game.actions[seen[1] :])

    def _check_confirmed(self, confirmed: str | None, action: Action | None, role: str) -> None:
        """ActionMoved, naming the last action now as ``role`` may read it, when the
        page confirmed another one (``confirmed`` None: an in-process caller)."""
        if confirmed is None or confirmed == self._action_key():
            return
        if role == "host" and action is not None and self._only_the_computer_since(confirmed):
            return
        if action is None:
            raise ActionMoved("The game changed in the meantime: there is nothing to undo now.")
        if role == "host":
            raise ActionMoved(
                'The last action is now "{action}" (it came in the meantime): undo that instead?',
                action=action.label(),
            )
        what = action.said_to_mummy if role == "mummy" else action.said
        raise ActionMoved(
            'Your last action is now "{what}" (it came in the meantime): take that back instead?',
            what=what,
        )

    def _take_back(self, seat: str, confirmed: str | None = None) -> Action:
        if self._paused is not None:
            raise ServiceError(paused_words(self._paused))
        if self.game.current.is_over:
            raise ServiceError(
                "The game is over: nothing can be taken back. The host may still undo the "
                "last action."
            )
        if seat in self.computer_seats:
            raise ServiceError(
                "The computer plays this seat: its moves are not taken back. The host may "
                "undo the last action."
            )
        reveals = self.game.trailing_reveals()  # the record of a reveal goes with it
        action = self._last_action()
        if action is None or action.seat != seat:
            raise ServiceError("There is nothing of yours to take back: the next player has acted.")
        self._check_confirmed(confirmed, action, seat)
        if not may_take_back(self._last_command()):
            raise ServiceError("A roll of the companion's dice cannot be taken back.")
        self._undo(1 + reveals)
        self._set_notice(action)
        log.info("%s took back: %s", seat, str(action.said))
        self._publish([])
        return action

    def _set_notice(self, action: Action) -> None:
        self._notice_serial += 1
        self._notice = (self._notice_serial, action)

    def _undo(self, count: int = 1) -> bool:
        if self._paused is not None:
            raise ServiceError(paused_words(self._paused))
        if count < 1:
            return False
        # Undone, the end (or its record) would leave the hands it showed known with no
        # word of it: the record of the reveal is kept, in the same transaction.
        reveal = self.game.command_json(Reveal()) if self.game.reveal_kept(count) else None
        removed = self.journal.undo(self.game.id, count, then=reveal)
        if removed is None:
            return False
        self._notice = None
        stored = self.journal.load(self.game.id)
        self.game = RunningGame.replayed(stored.id, stored.setup, stored.commands)
        self._log = _replayed_log(self.game)
        self._catch = None
        self._after_undo = True
        log.info("undid %s", removed)
        self._publish([])
        return True

    def _judge(self) -> Judgement:
        state, occupied = self.game.current, frozenset(self._occupied)
        if self._after_undo:
            judgement = judge(state, occupied, self.board, placements=False)
            if not judgement.matches:
                return judgement
            self._after_undo = False
        judgement = judge(state, occupied, self.board, hints=self.hints)
        if judgement.matches or not self._may_replace():
            return judgement
        before, last = self.game.previous, self.game.commands[-1]
        assert before is not None and isinstance(last, Move)
        other = judge_replacement(before, last, occupied, self.board)
        if other is not None:
            return other
        again = judge(before, occupied, self.board, hints=self.hints)
        if again.lifted and not again.errors and not again.missing and not again.unexpected:
            # The figure is in hand again: its move is measured from the turn's start.
            return replace(again, matches=False)
        return judgement

    def _may_replace(self) -> bool:
        """The seeker's last move may still be replaced by moving the figure again."""
        return bool(self.game.commands) and may_replace(self.game.previous, self.game.commands[-1])

    def _snapshot(self, version: int, events: list[Event] | None = None) -> Published:
        judgement = self._judge()
        return Published(
            version=version,
            game_id=self.game.id,
            state=self.game.current,
            events=tuple(events or ()),
            judgement=judgement,
            board_connected=self._board_connected,
            catch=self._catch,
            log=tuple(self._log),
            paused=self._paused,
            action=(action := self._last_action()),
            may_take_back=action is not None
            and action.seat not in self.computer_seats
            and not self.game.current.is_over
            and may_take_back(self._last_command()),
            host_undo=self._host_undo()[1],
            notice=self._notice,
            action_key=self._action_key(),
            summary=self._summary_now(),
            lessons=self.game.lessons_now,
        )

    def _summary_now(self) -> Summary | None:
        """The game's summary once it is over (replayed once per end, then kept)."""
        game = self.game
        if not game.current.is_over:
            return None
        if self._summary is None or self._summary[0] != game.key:
            self._summary = (game.key, summarize(game.setup, game.commands))
        return self._summary[1]

    def _publish_board(self) -> None:
        self._publish([], apply_due=True)

    def _publish(self, events: list[Event], *, apply_due: bool = False) -> None:
        """Publish the game as it stands.  ``apply_due``: a placement the board now shows
        that is due at once (no quiet period) is applied first, so every page and the
        LEDs get the move itself, never the figure in hand a moment before it."""
        published = self._snapshot(self._published.version + 1, events)
        waiting = None  # the game waits for the board: nothing on it is judged a move
        if published.paused is not None:
            waiting = paused_words(published.paused)
        elif not published.board_connected:
            waiting = msg("The board is disconnected: the game waits until it is back.")
        if waiting is not None:
            judgement = replace(published.judgement, matches=False, command=None, message=waiting)
            published = replace(published, judgement=judgement)
        judged = published.judgement
        self._hold_placement(
            Replacement(judged.command)
            if judged.replaces and judged.command is not None
            else judged.command
        )
        if apply_due and self._applied_due():
            return  # the move (or its refusal) is published
        held = self.held_back_words()
        if held is not None:  # the seeker's put-down could not be saved: every page says why
            published = replace(
                published, judgement=replace(published.judgement, matches=False, message=held)
            )
        self._set_published(published)

    def _hand(self, cells: list[str]) -> tuple[Treasure, ...]:
        """A seeker's dealt cards from the cell names of their treasures."""
        hand = []
        for name in cells:
            try:
                cell = parse_cell_name(str(name), self.maze.width, self.maze.height)
            except ValueError as exc:
                raise ServiceError("{name} is not a cell of the maze.", name=name) from exc
            treasure = self.maze.treasure_at(cell)
            if treasure is None:
                raise ServiceError("There is no treasure on {name}.", name=name)
            hand.append(treasure)
        return tuple(hand)


@dataclass(frozen=True)
class Planned:
    """A command decided for the game as it stood (``RunningGame.key``): the computer's,
    which is refused rather than played on a game that changed while it thought."""

    command: Command
    game: tuple[int, int, int]


@dataclass(frozen=True)
class Replacement:
    """A judged placement that replaces the seeker's last move (see ``_replace_move``)."""

    move: Move


def paused_words(by: str) -> Msg:
    """What every page says while the game is paused (``by``: the game on the board)."""
    return msg(
        "The game is paused: the board plays {name}. "
        "The host gives the board back on the host page, and the game goes on.",
        name=word(GAME_NAMES.get(by, by)),
    )


def _replayed_log(game: RunningGame) -> deque[tuple[Event, ...]]:
    """The events of a game's last commands, rebuilt by replay (after a resume or undo)."""
    state, events = new_game(game.setup)
    log: deque[tuple[Event, ...]] = deque([tuple(events)], maxlen=LOG_COMMANDS)
    for command in game.commands:
        state, events = apply(state, command)
        log.append(tuple(events))
    return log
