"""``/api``: each seat's JSON state, commands and live stream, and the host's controls.

Every route first checks the seat in the signed session cookie (403 otherwise); the
seat, never the URL, says which seeker a device plays.  Commands are the game
record's JSON (``{"cmd": "roll"}``); rule errors come back as 400 with the message.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, session
from flask.globals import request_ctx
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.games.mummy.commands import Command, Roll, RollMummyDie
from companion.games.mummy.engine import RuleError
from companion.games.mummy.maze import Colour, parse_cell_name
from companion.games.mummy.record import command_from_json
from companion.games.mummy.summary import summarize
from companion.games.mummy.words import colour_word, treasure_word
from companion.i18n import N_, MessageError, Msg, counted, msg, word
from companion.i18n.catalog import localize
from companion.journal import Journal, journal_report
from companion.service.loop import ServiceError
from companion.service.mummy_game import KIND, RunningGame
from companion.service.mummy_service import ActionMoved, Published
from companion.service.player_names import named_seats
from companion.service.registry import GAME_NAMES
from companion.table.doors import seeker_index
from companion.table.seats import Seats, Staged, Table, TableOptions, check_colours

from . import doors, shared_phone
from .context import computer_seat, hub, seat_computer, service
from .contract import (
    ANY_OBJECT,
    BOOLEAN,
    INTEGER,
    STRING,
    TEXT,
    Schema,
    array,
    body,
    endpoint,
    nullable,
    obj,
    one_of,
    refusal_status,
)
from .language import current_language, message_of, text_of
from .once import played
from .past import named, side_games, unreadable_game
from .payloads import (
    Payload,
    cards_notice,
    crossing_texts,
    end_summary,
    mummy_payload,
    notice_json,
    public_board,
    public_guidance,
    seeker_names,
    seeker_payload,
    summary_json,
    summary_with_crossings,
    table_payload,
    undo_warning,
    watch_payload,
    winner_text,
)
from .remote import presence_payload, remote
from .session import remember
from .stamps import Stamps
from .stream import LogDelta, Once, event, respond

log = logging.getLogger(__name__)

bp = Blueprint("play_api", __name__, url_prefix="/api")

#: Commands each kind of seat may send (seekers move their figures on the board).
#: "move" only for a number move back to the figure's own cell, which the sensors
#: cannot see (the service refuses any other move from a page).
SEEKER_COMMANDS = frozenset({"resolve", "roll", "announce", "move", "play_card", "end_turn"})
#: "mummy_go": the mummy's move to a destination in one gesture (``Service.walk``).
MUMMY_COMMANDS = frozenset({"roll_mummy_die", "mummy_step", "mummy_go", "end_mummy_move"})
# -- the contract (``contract.py``: each body checked against it, and /api/openapi.json) --

#: A seat's state: the keys every seat's page reads first (the rest is the role's view).
SEAT_STATE = obj(
    {
        "role": one_of("mummy", "seeker", "table", "watch"),
        "stage": one_of("playing", "dealing"),
        "names": array(TEXT, max_items=4),
        "guidance": TEXT,
    },
    closed=False,
)
#: A command's answer: the new state, and on a refusal the rule's words beside it.
COMMAND_ANSWER = obj({"state": SEAT_STATE}, {"ok": BOOLEAN, "error": TEXT})
#: A take-back or the host's undo names the action it confirmed (the page's
#: ``takeback_key`` / the host status's ``game.action_key``).
CONFIRMED = obj(
    {
        "action": {
            **STRING,
            "maxLength": 64,
            "description": "The key of the action the page showed and the player confirmed.",
        }
    }
)
#: A die face by its label ("arrow") or number.
FACE: Schema = {"anyOf": [STRING, INTEGER]}
SEEKER_WORDS = "Move your figure on the board; the page rolls, announces and plays cards."
MUMMY_WORDS = "The mummy rolls its die, steps and ends its move."
SEEKER_COMMAND = obj(
    {"cmd": one_of(*sorted(SEEKER_COMMANDS), words=SEEKER_WORDS)},
    {"faces": nullable(array(FACE, max_items=6)), "face": FACE, "to": STRING},
)
MUMMY_COMMAND = obj(
    {"cmd": one_of(*sorted(MUMMY_COMMANDS), words=MUMMY_WORDS)},
    {
        "value": nullable(INTEGER),
        "to": STRING,
        "id": {
            **STRING,
            "maxLength": 64,
            "description": "The page's id of this command: a copy with the same id is "
            "answered with the state, not played again (a page far away sends each twice).",
        },
    },
)
HOST_STATUS = obj(
    {"game": ANY_OBJECT, "table": nullable(ANY_OBJECT), "board": ANY_OBJECT}, closed=False
)
NEW_TABLE = obj(
    {"colours": array(STRING, max_items=8)},
    {
        "dice": one_of("virtual", "physical"),
        "cards": one_of("digital", "physical"),
        "hints": BOOLEAN,
        "exact": BOOLEAN,
        "treasures": BOOLEAN,
        "computer": one_of(
            "", "easy", "normal", "hard", words="The computer mummy plays easy, normal or hard."
        ),
        "aid": BOOLEAN,
        "first_game": BOOLEAN,
        "pace": {
            "type": "number",
            "minimum": 0,
            "maximum": 5,
            "description": "The computer mummy's pace is 0 to 5 seconds a step.",
        },
        "replaces": nullable(
            {**INTEGER, "description": "The game the host page showed, which this one ends."}
        ),
    },
)
REMATCH = obj(
    None,
    {
        "replaces": nullable(
            {**INTEGER, "description": "The game the host page showed, which this one ends."}
        )
    },
)
GIVE_BOARD = obj(
    {"game": STRING},
    {
        "pause": BOOLEAN,
        "from": {**STRING, "description": "The game the host page showed holding the board."},
    },
)
STREAM: Schema | None = None  # server-sent events, not JSON
#: How often a stream looks for table changes (cards entered, new codes) besides the game.
TABLE_POLL_S = 1.0


def seats() -> Seats:
    store: Seats = current_app.extensions["companion.seats"]
    return store


def _need(kind: str) -> tuple[str, Table]:
    """This device's seat of ``kind`` ("mummy", "seeker", "table") and the table, or 403."""
    seat = doors.need("mummy", "look", kind)
    table = seats().table
    if seat is None or table is None:
        abort(403, "This page needs the code of its seat: ask the host.")
    return seat, table


@bp.errorhandler(HTTPException)
def _error(exc: HTTPException) -> ResponseReturnValue:
    return jsonify({"error": text_of(exc.description or "")}), exc.code or 500


# -- the mummy ---------------------------------------------------------------------------


@bp.get("/mummy/state")
@endpoint("The mummy's state: what the mummy may know.", answer=SEAT_STATE)
def mummy_state() -> ResponseReturnValue:
    _, table = _need("mummy")
    seat = computer_seat()
    return jsonify(_on_board(mummy_payload(service().published, table, _aid(seat, table))))


@bp.post("/mummy/command")
@endpoint(
    "The mummy rolls its die, steps, ends its move (409 while the computer plays the seat).",
    body=MUMMY_COMMAND,
    answer=COMMAND_ANSWER,
    errors=(400, 403, 409),
)
def mummy_command() -> ResponseReturnValue:
    _, table = _need("mummy")
    data = dict(body())
    command_id = str(data.pop("id", ""))
    seat = computer_seat()
    _refuse_while_computer_plays(seat, table)

    def make(published: Published) -> Payload:
        return mummy_payload(published, table, _aid(seat, table))

    def act() -> ResponseReturnValue:
        if data["cmd"] == "mummy_go":
            return _go(data, make)
        return _submit("mummy", data, table, make)

    if not command_id:
        return act()
    again = lambda: jsonify({"ok": True, "state": make(service().published)})  # noqa: E731
    return played().once("mummy", command_id, act, again)


def _refuse_while_computer_plays(seat: Any, table: Table) -> None:
    """A person's mummy command while the computer plays the seat: 409 in words."""
    if seat is None or seat.level is None:
        return
    if table.standin and not table.options.computer:
        abort(409, "The computer stands in for you until the host hands the seat back.")
    abort(409, "The computer plays the mummy in this game.")


def _go(data: dict[str, Any], make: Callable[[Published], Payload]) -> ResponseReturnValue:
    """The mummy's move to a destination: its steps one by one, a catch ends it there."""
    svc = service()
    try:
        to = parse_cell_name(str(data.get("to", "")), svc.maze.width, svc.maze.height)
    except ValueError:
        abort(400, "Tap a lit cell of the maze to go there.")
    return _answered(lambda: svc.walk(to), make)


def _answered(
    act: Callable[[], object], make: Callable[[Published], Payload]
) -> ResponseReturnValue:
    """Do a seat's request: the new state, or the refusal's words (400) beside it."""
    svc = service()
    try:
        act()
    except (RuleError, ServiceError) as exc:
        status = refusal_status(exc, 400)
        return jsonify({"error": message_of(exc), "state": make(svc.published)}), status
    return jsonify({"ok": True, "state": make(svc.published)})


@bp.post("/mummy/takeback")
@endpoint(
    "The mummy takes back its own last action (until the next player acts).",
    body=CONFIRMED,
    answer=COMMAND_ANSWER,
    errors=(400, 403, 409),
)
def mummy_takeback() -> ResponseReturnValue:
    _, table = _need("mummy")
    confirmed: str = body()["action"]
    seat = computer_seat()
    _refuse_while_computer_plays(seat, table)
    return _take_back("mummy", confirmed, lambda p: mummy_payload(p, table, _aid(seat, table)))


@bp.get("/mummy/stream")
@endpoint("The mummy's state, live (server-sent events).", answer=STREAM, media="text/event-stream")
def mummy_stream() -> ResponseReturnValue:
    _need("mummy")
    seat = computer_seat()
    return _live(lambda p, t: mummy_payload(p, t, _aid(seat, t)), "mummy")


def _aid(seat: Any, table: Table) -> Payload | None:
    """The deduction aid for the mummy's page, only when the host turned it on."""
    return seat.aid_payload() if seat is not None and table.options.aid else None


# -- a seeker ----------------------------------------------------------------------------


@bp.get("/seeker/state")
@endpoint("A seeker's state: their cards and what they may know.", answer=SEAT_STATE)
def seeker_state() -> ResponseReturnValue:
    seat, table = _need("seeker")
    return jsonify(_on_board(seeker_payload(service().published, table, _index(seat))))


@bp.post("/seeker/command")
@endpoint("A seeker rolls, announces, plays a card.", body=SEEKER_COMMAND, answer=COMMAND_ANSWER)
def seeker_command() -> ResponseReturnValue:
    seat, table = _need("seeker")
    data = body()
    if table.dealing:
        abort(400, "Enter your mission cards first: the game starts when every seeker has.")
    index = _index(seat)
    return _submit(seat, data, table, lambda p: seeker_payload(p, table, index))


@bp.post("/seeker/takeback")
@endpoint(
    "A seeker takes back their own last action (until the next player acts).",
    body=CONFIRMED,
    answer=COMMAND_ANSWER,
    errors=(400, 403, 409),
)
def seeker_takeback() -> ResponseReturnValue:
    seat, table = _need("seeker")
    confirmed: str = body()["action"]
    if table.dealing:
        abort(400, "Enter your mission cards first: the game starts when every seeker has.")
    index = _index(seat)
    return _take_back(seat, confirmed, lambda p: seeker_payload(p, table, index))


@bp.post("/seeker/cards")
@endpoint(
    "Physical mission cards: the treasure cells of the cards this seeker drew.",
    body=obj({"cards": array(STRING, max_items=12)}),
    answer=obj({"ok": BOOLEAN, "state": SEAT_STATE}),
)
def seeker_cards() -> ResponseReturnValue:
    """Physical mission cards: the cards this seeker drew; the last one starts the game."""
    seat, _ = _need("seeker")
    cards: list[str] = body()["cards"]
    store = seats()
    svc = service()
    with store.lock:
        table = store.table
        if table is None or not table.dealing:
            abort(400, "The cards are dealt: the game is on.")
        table = table.copy()
        try:
            table.hands[seat] = _check_hand(table, cards)
        except (RuleError, ValueError) as exc:
            if seat in table.hands:  # a wrong entry takes back this seeker's earlier one
                del table.hands[seat]
                store.put(table=table)
            abort(400, message_of(exc))
        if seat in table.recheck:
            table.recheck.remove(seat)
        if all(s in table.hands for s in table.seats if s.startswith("seeker")):
            _send_back_clashing_hands(table)
            if not table.recheck:
                try:
                    _start_dealt_game(store, table)
                except (RuleError, ServiceError) as exc:
                    abort(refusal_status(exc, 400), message_of(exc))
        if table is not store.table:
            store.put(table=table)
    return jsonify({"ok": True, "state": seeker_payload(svc.published, table, _index(seat))})


@bp.post("/seeker/pass")
@endpoint(
    "Pass the phone: show another seeker's seat this phone holds (after its cover's tap).",
    body=obj({"seat": STRING}),
    answer=obj({"ok": BOOLEAN}),
)
def seeker_pass() -> ResponseReturnValue:
    _need("seeker")
    if not shared_phone.switch(body()["seat"]):
        abort(403, "This phone does not hold that seeker's seat: join it with its code.")
    return jsonify({"ok": True})


@bp.get("/seeker/stream")
@endpoint("A seeker's state, live (server-sent events).", answer=STREAM, media="text/event-stream")
def seeker_stream() -> ResponseReturnValue:
    seat, _ = _need("seeker")
    index = _index(seat)
    return _live(lambda p, t: seeker_payload(p, t, index), seat)


# -- the table ---------------------------------------------------------------------------


@bp.get("/table/state")
@endpoint("The table screen's state: the board, whose turn, the dice.", answer=SEAT_STATE)
def table_state() -> ResponseReturnValue:
    _, table = _need("table")
    return jsonify(_on_board(table_payload(service().published, table)))


@bp.get("/table/stream")
@endpoint("The table's state, live (server-sent events).", answer=STREAM, media="text/event-stream")
def table_stream() -> ResponseReturnValue:
    _need("table")
    return _live(lambda p, t: table_payload(p, t), "table")


# -- the watching seat ---------------------------------------------------------------------


@bp.get("/watch/state")
@endpoint(
    "The watching seat's state: the public view of the maze (the mummy's), no seeker.",
    answer=SEAT_STATE,
)
def watch_state() -> ResponseReturnValue:
    _, table = _need("watch")
    return jsonify(_on_board(_watching(hub())(service().published, table)))


@bp.get("/watch/stream")
@endpoint(
    "The watching seat's state, live (server-sent events).",
    answer=STREAM,
    media="text/event-stream",
)
def watch_stream() -> ResponseReturnValue:
    seat, _ = _need("watch")
    games = hub()
    return _live(_watching(games), seat)


def _watching(games: Any) -> Callable[[Published, Table], Payload]:
    """The watching seat's payload and the game that holds the board (its page follows
    that game)."""

    def make(published: Published, table: Table) -> Payload:
        active = games.active if games is not None else "mummy"
        return {**watch_payload(published, table), "active_game": active}

    return make


# -- the host ----------------------------------------------------------------------------


def _need_host() -> Seats:
    doors.need("host", "act")
    return seats()


@bp.post("/host/game")
@endpoint("The host sets up a game.", body=NEW_TABLE, answer=HOST_STATUS, errors=(400, 403, 409))
def host_game() -> ResponseReturnValue:
    """Set up a game; every seat whose role is still there stays joined (a seeker by
    colour), the phones of colours left out are told why."""
    store = _need_host()
    data = body()
    try:
        colours = check_colours(data["colours"])
        options = TableOptions.from_json(data)
    except ValueError as exc:
        abort(400, message_of(exc))
    return _set_up(store, colours, options, data.get("replaces"))


@bp.post("/host/rematch")
@endpoint(
    "The host plays the game again: the same seats, colours and options, a new deal.",
    body=REMATCH,
    answer=HOST_STATUS,
    errors=(400, 403, 409),
)
def host_rematch() -> ResponseReturnValue:
    """One tap after a game: the same table plays again (every phone stays joined)."""
    store = _need_host()
    table = store.table
    if table is None:
        abort(400, "Set up a game first.")
    # A first game teaches once: the rematch is a game like any other.
    options = replace(table.options, first_game=False)
    return _set_up(store, list(table.colours), options, body().get("replaces"))


def _set_up(
    store: Seats, colours: list[str], options: TableOptions, seen: int | None
) -> ResponseReturnValue:
    """Start a game of ``colours`` with ``options``, ending the game ``seen`` (the one the
    host page showed); the same colours keep the seats."""
    svc = service()
    with store.lock:
        _check_game_seen(seen, svc.published.game_id)
        table = store.table
        before = svc.published.game_id
        same_seats = table is not None and list(table.colours) == list(colours)
        table = Table.new(colours, options) if table is None else table.recoloured(colours)
        table.new_game_secrets()
        table.options = options
        table.dealing = options.cards == "physical"
        table.hands = {}
        table.recheck = []
        try:
            _start_game(store, table)
        except (RuleError, ServiceError) as exc:
            abort(refusal_status(exc, 400), message_of(exc))
        if same_seats:  # the same phones on the same seats: the players' names go on
            _carry_names(before, svc.published.game_id, len(colours))
    svc.hints = options.hints
    svc.physical_dice = options.dice == "physical"
    seat_computer(computer_seat(), table)
    return jsonify(host_status())


@bp.get("/host/games")
@endpoint("The host's past maze games: each ended game's summary, newest first.")
def host_games() -> ResponseReturnValue:
    """The table's finished games in short (every card and path is public once over)."""
    _need_host()
    return jsonify({"games": past_games(service().journal)})


def _carry_names(before: int, now: int, seekers: int) -> None:
    """The names the players gave carry into the next game of the same seats."""
    names = current_app.extensions.get("companion.player_names")
    if names is None:
        return
    try:
        names.carry(before, now, named_seats(seekers))
    except ServiceError:
        log.exception("the players' names could not be carried into game %s", now)


def _check_game_seen(seen: int | None, now: int) -> None:
    """409 when the host confirmed ending another game than the one now on the table (a
    second host device set one up meanwhile)."""
    if seen is not None and seen != now:
        abort(
            409,
            msg(
                "Another game was set up in the meantime (game {game}): look at the host "
                "page again before you start a new one.",
                game=now,
            ),
        )


def codes_key(table: Table) -> str:
    """Names the seats' codes as they stand (the host page's "New codes" sends it back)."""
    joined = ",".join(f"{seat}={table.codes[seat]}" for seat in sorted(table.codes))
    return hashlib.sha256(joined.encode()).hexdigest()[:16]


@bp.post("/host/codes")
@endpoint(
    "New codes for every seat.",
    body=obj(
        {},
        {"renews": {**STRING, "maxLength": 64, "description": "The codes the host page showed."}},
    ),
    answer=HOST_STATUS,
    errors=(400, 403, 409),
)
def host_codes() -> ResponseReturnValue:
    """New codes for every seat and a new host cookie: every phone must join again,
    every other host device needs the PIN.  ``renews``: the codes' key the host page
    showed (``table.codes_key``); renewed meanwhile, 409."""
    store = _need_host()
    seen = body().get("renews")
    with store.lock:
        if store.table is None:
            abort(400, "Set up a game first.")
        if seen is not None and seen != codes_key(store.table):
            abort(409, "The codes were renewed in the meantime: the phones need the new ones.")
        remember(host=store.new_codes())  # this device stays host; other hosts need the PIN
    return jsonify(host_status())


@bp.post("/host/allow-crossing")
@endpoint(
    "Let one phone both see where the seekers stand and hold the mummy's seat in this game "
    "(once; every page is told when it happens).",
    body=obj({}),
    answer=HOST_STATUS,
    errors=(400, 403),
)
def host_allow_crossing() -> ResponseReturnValue:
    store = _need_host()
    body()
    if store.table is None:
        abort(400, "Set up a game first.")
    store.allow_crossing()
    return jsonify(host_status())


@bp.post("/host/mummy-code")
@endpoint(
    "Show the mummy's code again (hidden once its seat is joined); every page is told.",
    body=obj({}),
    answer=HOST_STATUS,
    errors=(400, 403),
)
def host_mummy_code() -> ResponseReturnValue:
    store = _need_host()
    body()
    if store.table is None:
        abort(400, "Set up a game first.")
    store.show_mummy_code()
    return jsonify(host_status())


@bp.post("/host/undo")
@endpoint(
    "Take back the last action: the one the host confirmed (its key), or nothing.",
    body=CONFIRMED,
    answer=obj({"undone": BOOLEAN}, closed=False),
    errors=(400, 403, 409),
)
def host_undo() -> ResponseReturnValue:
    """Take back the last accepted action (a mistap, a figure read wrongly), if it is
    still the one the host confirmed; 409 naming the one that is, otherwise."""
    store = _need_host()
    confirmed: str = body()["action"]
    if store.table is not None and store.table.dealing:
        abort(400, "Nothing to undo: the seekers are entering their cards.")
    try:
        undone = service().undo(confirmed)
    except ActionMoved as exc:
        return jsonify({"error": message_of(exc), "undone": False, **host_status()}), 409
    except ServiceError as exc:
        abort(refusal_status(exc, 400), message_of(exc))
    return jsonify({"undone": undone, **host_status()})


@bp.post("/host/redeal")
@endpoint(
    "Deal the unplayed mission cards again, after an undo of the end that had shown them.",
    body=obj({}),
    answer=HOST_STATUS,
    errors=(400, 403),
)
def host_redeal() -> ResponseReturnValue:
    """Each seeker gets as many cards as they held, from the deal's own secret stream; each
    seeker's page shows their own, every page says the cards are secret again.  400 in
    words when they are secret already (nothing was revealed) or the game is over."""
    store = _need_host()
    body()
    if store.table is not None and store.table.dealing:
        abort(400, "The seekers are entering their cards: there is nothing to deal again.")
    try:
        service().redeal()
    except (RuleError, ServiceError) as exc:
        abort(refusal_status(exc, 400), message_of(exc))
    return jsonify(host_status())


@bp.post("/host/board")
@endpoint(
    "Give the board to another game.", body=GIVE_BOARD, answer=HOST_STATUS, errors=(400, 403, 409)
)
def host_board() -> ResponseReturnValue:
    """Give the board to another game (``{"game": "crypt", "pause": true}``): a running
    maze game is paused by it, so ``pause`` must say the host means it; giving the
    board back to the maze resumes the game in restore mode."""
    _need_host()
    data = body()
    games = hub()
    seen = data.get("from")
    if seen is not None and games is not None and seen != games.active:
        name = GAME_NAMES.get(games.active, games.active)
        abort(409, msg("The board went to {name} in the meantime: nothing was changed.", name=name))
    try:
        doors.give_board(data["game"], pause=data.get("pause", False))
    except doors.BoardRefused as exc:
        abort(409, message_of(exc))
    return jsonify(host_status())


@bp.get("/host/status")
@endpoint("What the host page shows: seats, codes, who joined, the game.", answer=HOST_STATUS)
def host_state() -> ResponseReturnValue:
    _need_host()
    return jsonify(host_status())


@bp.get("/host/stream")
@endpoint(
    "What the host page shows, live (server-sent events).", answer=STREAM, media="text/event-stream"
)
def host_stream() -> ResponseReturnValue:
    """The host status now and whenever it changes (a game's publish, the seats, the
    board changing hands): only what every player may know, like the page."""
    store = _need_host()
    svc = service()
    still_open = doors.keeper("host")
    context = request_ctx.copy()  # the status reads the seats and the hub of this app
    lang = current_language()
    last = ""
    version, serial, made = -1, -1, 0.0

    def step() -> tuple[str, bool]:
        nonlocal last, version, serial, made
        if svc.closing or not still_open():
            return "", False
        now = time.monotonic()
        # Anew when the game or the seats changed, else once a TABLE_POLL_S (the board
        # changing hands, the journal's health): not at every tick of the broadcaster.
        if (svc.published.version, store.serial) == (version, serial) and now - made < TABLE_POLL_S:
            return "", True
        version, serial, made = svc.published.version, store.serial, now
        with context:
            status = host_status()
        text = json.dumps(localize(status, lang))
        if text == last:
            return "", True
        last = text
        return f"data: {text}\n\n", True

    def wait(seconds: float) -> None:
        svc.wait_for_change(version, min(seconds, TABLE_POLL_S))

    return respond(step, wait)


@bp.get("/host/journal/<int:game_id>")
@endpoint(
    "A game's record from the journal (JSON Lines), with any commands set aside.",
    answer=None,
    media="application/jsonl",
    errors=(403, 404, 503),
)
def host_journal_export(game_id: int) -> ResponseReturnValue:
    """A game's record from the journal (JSON Lines), with any commands set aside: every
    seeker's move, so not for a device that holds the mummy's seat."""
    doors.need("journal", "look")
    try:
        text = service().journal.export(game_id)
    except KeyError:
        abort(404, msg("There is no game {game} in the journal.", game=game_id))
    except ServiceError as exc:  # the journal cannot be read (a damaged page)
        abort(503, message_of(exc))
    return Response(
        text,
        mimetype="application/jsonl",
        headers={"Content-Disposition": f'attachment; filename="game-{game_id}.jsonl"'},
    )


def journal_status() -> Payload:
    """The journal's health for the host page (a failing write, games not resumed whole).

    A maze game's note goes without its reason, which may quote a seeker's command and
    its cell (the host page is public: the log and the record's export keep it)."""
    games = hub()
    report = dict(games.journal_report()) if games is not None else None
    if report is None:
        report = journal_report([service().journal])
    report["notes"] = [
        {**note, "message": _maze_note(note["game"])} if note["kind"] == "mummy" else note
        for note in report["notes"]
    ]
    return report


def _maze_note(game: int) -> Msg:
    return msg(
        "Maze game {game} could not be resumed whole: what could not be replayed is kept "
        "in its record, and the log says why. Export it on a phone that does not hold the "
        "mummy's seat.",
        game=game,
    )


def host_status() -> Payload:
    """What the host page shows: the seats, their codes, who joined, the game in short.

    Only what every player may know (the host's device may hold the mummy's seat): the
    undo's action, the guidance and the notices without a seeker's cell, the board's
    trouble as the mummy hears of it; the restore steps are on the table screen and the
    seekers' pages."""
    store = seats()
    table = store.table
    published = service().published
    state = published.state
    action = published.host_undo
    board = public_board(published)
    status: Payload = {
        "game": {
            "id": published.game_id,
            "phase": state.phase.value,
            "round": state.rounds + 1,
            "over": state.is_over,
            "winner": winner_text(state.setup, state.winner) if state.winner else None,
            "guidance": public_guidance(state, published),
            "last_action": action.label() if action is not None else None,
            "action_key": published.action_key,
            "notice": notice_json(published, "host"),
            # After an undo of the end: the cards it showed are known (or dealt again).
            "cards": cards_notice(state),
            "may_redeal": state.cards_known and state.setup.hands is None,
            "undo_warning": undo_warning(state),
            "board": {"connected": board["connected"], "ok": board["ok"]},
            "summary": summary_with_crossings(end_summary(published), table),
        },
        "table": None,
        "board": doors.board_state(),
        "journal": journal_status(),
    }
    if table is not None:
        names = seeker_names(state.setup)
        status["table"] = {
            "crossings": crossing_texts(table),
            "allowed": table.allow,
            "colours": table.colours,
            "options": table.to_json()["options"],
            "dealing": table.dealing,
            "all_joined": table.all_joined,
            "codes_key": codes_key(table),
            "seats": [
                {
                    "seat": seat,
                    "name": seat_name(seat, names),
                    "code": None
                    if seat == "mummy" and table.mummy_code_hidden()
                    else table.codes[seat],
                    "joined": seat in table.joined,
                    "ready": seat in table.hands,
                }
                for seat in table.seats
            ],
        }
    return status


#: How many past games the host's list shows.
PAST_GAMES = 20


def past_games(journal: Journal) -> list[Payload]:
    """The last ended games, newest first: each maze game's summary, derived from its
    record (the journal keeps the record; the summary is a pure function of it), and
    Loot N Run's and the crypt's winners and scores (``past.side_games``)."""
    games = []
    for stored in journal.ended_games(KIND, PAST_GAMES):
        try:
            game = RunningGame.replayed(stored.id, stored.setup, stored.commands)
        except (KeyError, TypeError, ValueError) as exc:  # RecordError, RuleError
            games.append(unreadable_game(stored, exc))  # listed, saying why
            continue
        summary = summarize(game.setup, game.commands)
        if summary is not None:
            games.append(
                {
                    "id": stored.id,
                    "kind": KIND,
                    "game": word(GAME_NAMES[KIND]),
                    **summary_json(game.setup, summary),
                }
            )
    games += side_games(journal, PAST_GAMES)
    newest = sorted(games, key=lambda g: -int(g["id"]))[:PAST_GAMES]
    return named(journal, newest, current_language())


SEAT_NAMES = {"mummy": N_("Mummy"), "table": N_("Table screen"), "watch": N_("Spectator")}


def seat_name(seat: str, names: list[Msg]) -> Msg:
    if seat.startswith("seeker"):
        index = _index(seat)
        return msg("Seeker {name}", name=names[index]) if index < len(names) else word(seat)
    return word(SEAT_NAMES[seat])


# -- helpers -----------------------------------------------------------------------------


def _on_board(payload: Payload) -> Payload:
    """A seat's state with the game that holds the board and where the mummy's player
    far away is (as its stream sends them)."""
    games, table = hub(), seats().table
    active = games.active if games is not None else None
    standin = table is not None and bool(table.standin)
    return {
        "active_game": active,
        **payload,
        "remote": presence_payload(remote().presence(), standin),
    }


_index = seeker_index


def _submit(
    role: str, data: dict[str, Any], table: Table, make: Callable[[Published], Payload]
) -> ResponseReturnValue:
    """Parse a command, check it fits the dice mode, submit it; 400 with the rule's words."""
    svc = service()
    try:
        command = command_from_json(data, svc.maze)
    except (ValueError, TypeError) as exc:
        abort(400, msg("That is not a command the game knows: {error}.", error=str(exc)))
    _check_dice_mode(command, table)
    return _answered(lambda: svc.submit(role, command), make)


def _take_back(
    seat: str, confirmed: str, make: Callable[[Published], Payload]
) -> ResponseReturnValue:
    """A seat takes back its own last action, the one it confirmed; 400 with the reason
    when it may not, 409 when another one is the last now (named, to ask again)."""
    svc = service()
    try:
        svc.take_back(seat, confirmed)
    except ActionMoved as exc:
        return jsonify({"error": message_of(exc), "state": make(svc.published)}), 409
    except ServiceError as exc:
        status = refusal_status(exc, 400)
        return jsonify({"error": message_of(exc), "state": make(svc.published)}), status
    return jsonify({"ok": True, "state": make(svc.published)})


def _check_dice_mode(command: Command, table: Table) -> None:
    physical = table.options.dice == "physical"
    if isinstance(command, Roll) and physical and command.faces is None:
        abort(400, "Throw the dice and enter the faces they show.")
    if isinstance(command, Roll) and not physical and command.faces is not None:
        abort(400, "The companion rolls the dice in this game.")
    if isinstance(command, RollMummyDie) and physical and command.value is None:
        abort(400, "Throw the mummy die and enter what it shows.")
    if isinstance(command, RollMummyDie) and not physical and command.value is not None:
        abort(400, "The companion rolls the mummy die in this game.")


def _check_hand(table: Table, cards: list[str]) -> list[str]:
    """One (two-player game: two) card of each colour, each entered once.

    Whether another seeker entered the same card is checked only once every seeker
    has sent theirs (``_send_back_clashing_hands``): refusing it here would tell the
    second seeker which card the first one holds.
    """
    maze = service().maze
    per_colour = 2 if len(table.colours) == 1 else 1
    names = {maze.cell_name(t.cell): t for t in maze.treasures}
    chosen = []
    for cell in cards:
        treasure = names.get(cell.strip().upper())
        if treasure is None:
            raise MessageError("There is no treasure on {cell}.", cell=cell)
        if treasure in chosen:
            raise MessageError(
                "The card of the {treasure} was entered twice.", treasure=treasure_word(treasure)
            )
        chosen.append(treasure)
    for colour in Colour:
        count = sum(1 for t in chosen if t.colour is colour)
        if count != per_colour:
            raise MessageError(
                "Enter {want} of each colour: {count} of {colour} chosen.",
                want=counted(per_colour, "one card", "{n} cards"),
                count=count,
                colour=colour_word(colour),
            )
    return [maze.cell_name(t.cell) for t in chosen]


def _send_back_clashing_hands(table: Table) -> None:
    """Every seeker is in: if two hands share a card, every seeker enters theirs again.

    All of them, and all told the same, so that nobody learns which card clashed or
    whose hands did (sending back only those two would show it to everyone).
    """
    cards = [card for hand in table.hands.values() for card in hand]
    if len(set(cards)) != len(cards):
        table.recheck = sorted(table.hands)
        table.hands = {}


def _start_dealt_game(store: Seats, table: Table) -> None:
    """Every seeker entered their cards: start the game with those hands."""
    hands = [table.hands[f"seeker{i}"] for i in range(len(table.colours))]
    table.dealing = False
    table.hands = {}
    table.recheck = []
    _start_game(store, table, hands=hands)


def _start_game(store: Seats, table: Table, **options: Any) -> None:
    """Start ``table``'s game (a copy, not yet in use) and make the table current: the
    journal's new game and the seats that play it are written together (the seats are
    staged inside the journal's transaction and put in place after its commit), so a
    full disk refuses both (StorageError) and the old game and seats go on."""
    staged: list[Staged] = []

    def stage(game_id: int) -> None:
        table.game_id = game_id
        staged.append(store.stage(table=table))

    try:
        service().new_game(
            table.colours,
            mummy_moves_exactly=table.options.exact,
            mummy_sees_treasures=table.options.treasures,
            first_game=table.options.first_game,
            table={"computer": table.options.computer or None, "aid": table.options.aid},
            also=stage,
            **options,
        )
    except BaseException:
        for each in staged:
            store.discard(each)
        raise
    store.commit(staged[-1])


def _stamps() -> Stamps:
    """The app's stamps of its seats' live messages (``stamps.py``)."""
    made: Stamps | None = current_app.extensions.get("companion.stamps")
    if made is None:
        made = current_app.extensions.setdefault("companion.stamps", Stamps())
    return made


def _live(
    make: Callable[[Published, Table], Payload],
    seat: str,
    also: Callable[[], object] | None = None,
) -> Response:
    """A server-sent event stream of ``make``'s payload, sent only when it changes.

    Unlike a stream per published version, nothing here tells how often the service
    published (a board sensor change publishes too): the mummy must not be able to
    count a seeker's steps from the stream's rhythm.  The maze goes in the first
    message only (``Once``), and the announcements as what is new (``LogDelta``).
    ``also``: anything else the payload reads that may change without a publish of the
    maze; which game holds the board (``active_game``) is always sent, so every seat's
    page offers to follow the board to the game the host gave it to.
    """
    games = hub()
    holder: Callable[[], object] = lambda: games.active if games is not None else None  # noqa: E731
    extra = also or (lambda: None)
    svc = service()
    store = seats()
    cookie = dict(session.get("seat") or {})
    lang = current_language()  # the stream outlives its request: the language is kept
    once = Once()
    delta = LogDelta()
    last = ""
    far = remote()
    seen: tuple[int, int, tuple[object, object], str | None] = (-1, -1, (None, None), None)

    # Through the tunnel a page holds two channels: each message is stamped (stamps.py).
    stamps = _stamps() if request.environ.get("companion.tunnel") else None
    key = (id(svc), seat, lang, json.dumps(cookie, sort_keys=True, default=str))

    def step() -> tuple[str, bool]:
        if stamps is None:
            return read()
        with stamps.lock:
            return read()

    def read() -> tuple[str, bool]:
        nonlocal last, seen
        if svc.closing:
            return "", False
        published = svc.published
        now_seen = (published.version, store.serial, (holder(), extra()), far.presence())
        if now_seen == seen:
            return "", True
        seen = now_seen
        table = store.table
        if store.seat_of(cookie) != seat or table is None:
            return 'data: {"stale": true}\n\n', False
        made = {"active_game": now_seen[2][0], **make(published, table)}
        far_now = presence_payload(now_seen[3], bool(table.standin))
        payload = localize({**made, "remote": far_now}, lang)
        text = json.dumps(payload)
        if text == last:
            return "", True
        last = text
        stamp = stamps.stamp(key, text) if stamps is not None else None
        return event(delta.slim(once.slim(payload)), stamp), True

    def wait(seconds: float) -> None:
        svc.wait_for_change(seen[0], min(seconds, TABLE_POLL_S))

    return respond(step, wait)
