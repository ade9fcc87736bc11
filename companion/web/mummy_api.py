"""``/api``: each seat's JSON state, commands and live stream, and the host's controls.

Every route first checks the seat in the signed session cookie (403 otherwise); the
seat, never the URL, says which seeker a device plays.  Commands are the game
record's JSON (``{"cmd": "roll"}``); rule errors come back as 400 with the message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.games.mummy.commands import Command, Roll, RollMummyDie
from companion.games.mummy.engine import RuleError
from companion.games.mummy.maze import Colour
from companion.games.mummy.record import command_from_json
from companion.service.loop import ServiceError
from companion.service.mummy_service import Published
from companion.table.seats import Seats, Table, TableOptions, check_colours

from . import doors
from .context import service
from .payloads import Payload, mummy_payload, seeker_names, seeker_payload, table_payload
from .stream import Once, event, respond

bp = Blueprint("play_api", __name__, url_prefix="/api")

#: Commands each kind of seat may send (seekers move their figures on the board).
#: "move" only for a number move back to the figure's own cell, which the sensors
#: cannot see (the service refuses any other move from a page).
SEEKER_COMMANDS = frozenset({"resolve", "roll", "announce", "move", "play_card", "end_turn"})
MUMMY_COMMANDS = frozenset({"roll_mummy_die", "mummy_step", "end_mummy_move"})
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
    return jsonify({"error": exc.description}), exc.code or 500


# -- the mummy ---------------------------------------------------------------------------


@bp.get("/mummy/state")
def mummy_state() -> ResponseReturnValue:
    _, table = _need("mummy")
    return jsonify(mummy_payload(service().published, table))


@bp.post("/mummy/command")
def mummy_command() -> ResponseReturnValue:
    _, table = _need("mummy")
    data = _body()
    if data.get("cmd") not in MUMMY_COMMANDS:
        abort(400, "The mummy rolls its die, steps and ends its move.")
    return _submit("mummy", data, table, lambda p: mummy_payload(p, table))


@bp.get("/mummy/stream")
def mummy_stream() -> ResponseReturnValue:
    _need("mummy")
    return _live(lambda p, t: mummy_payload(p, t), "mummy")


# -- a seeker ----------------------------------------------------------------------------


@bp.get("/seeker/state")
def seeker_state() -> ResponseReturnValue:
    seat, table = _need("seeker")
    return jsonify(seeker_payload(service().published, table, _index(seat)))


@bp.post("/seeker/command")
def seeker_command() -> ResponseReturnValue:
    seat, table = _need("seeker")
    data = _body()
    if data.get("cmd") not in SEEKER_COMMANDS:
        abort(400, "Move your figure on the board; the page rolls, announces and plays cards.")
    if table.dealing:
        abort(400, "Enter your mission cards first: the game starts when every seeker has.")
    index = _index(seat)
    return _submit(seat, data, table, lambda p: seeker_payload(p, table, index))


@bp.post("/seeker/cards")
def seeker_cards() -> ResponseReturnValue:
    """Physical mission cards: the cards this seeker drew; the last one starts the game."""
    seat, table = _need("seeker")
    cards = _body().get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        abort(400, "Send the cards as a list of treasure cells.")
    store = seats()
    svc = service()
    with store.lock:
        if not table.dealing:
            abort(400, "The cards are dealt: the game is on.")
        try:
            table.hands[seat] = _check_hand(table, cards)
            if seat in table.recheck:
                table.recheck.remove(seat)
            if all(s in table.hands for s in table.seats if s.startswith("seeker")):
                _send_back_clashing_hands(table)
                if not table.recheck:
                    _start_dealt_game(table)
        except (RuleError, ServiceError, ValueError) as exc:
            table.hands.pop(seat, None)
            abort(400, str(exc))
        finally:
            store.save()
            store.bump()
    return jsonify({"ok": True, "state": seeker_payload(svc.published, table, _index(seat))})


@bp.get("/seeker/stream")
def seeker_stream() -> ResponseReturnValue:
    seat, _ = _need("seeker")
    index = _index(seat)
    return _live(lambda p, t: seeker_payload(p, t, index), seat)


# -- the table ---------------------------------------------------------------------------


@bp.get("/table/state")
def table_state() -> ResponseReturnValue:
    _, table = _need("table")
    return jsonify(table_payload(service().published, table))


@bp.get("/table/stream")
def table_stream() -> ResponseReturnValue:
    _need("table")
    return _live(lambda p, t: table_payload(p, t), "table")


# -- the host ----------------------------------------------------------------------------


def _need_host() -> Seats:
    doors.need("host", "act")
    return seats()


@bp.post("/host/game")
def host_game() -> ResponseReturnValue:
    """Set up a game; the same colours keep the seats (phones stay joined)."""
    store = _need_host()
    data = _body()
    try:
        colours = check_colours([str(c) for c in data.get("colours", [])])
        options = TableOptions.from_json(data)
    except ValueError as exc:
        abort(400, str(exc))
    svc = service()
    with store.lock:
        table = store.table
        if table is None or table.colours != colours:
            table = Table.new(colours, options)
        table.options = options
        try:
            table.game_id = svc.new_game(
                colours, mummy_moves_exactly=options.exact, mummy_sees_treasures=options.treasures
            )
        except (RuleError, ServiceError) as exc:
            abort(400, str(exc))
        table.dealing = options.cards == "physical"
        table.hands = {}
        table.recheck = []
        store.table = table
        store.save()
        store.bump()
    svc.hints = options.hints
    svc.physical_dice = options.dice == "physical"
    return jsonify(host_status())


@bp.post("/host/codes")
def host_codes() -> ResponseReturnValue:
    """New codes for every seat: every phone must join again."""
    store = _need_host()
    with store.lock:
        if store.table is None:
            abort(400, "Set up a game first.")
        store.table.renew_codes()
        store.save()
        store.bump()
    return jsonify(host_status())


@bp.post("/host/undo")
def host_undo() -> ResponseReturnValue:
    """Take back the last accepted action (a mistap, a figure read wrongly)."""
    store = _need_host()
    if store.table is not None and store.table.dealing:
        abort(400, "Nothing to undo: the seekers are entering their cards.")
    try:
        undone = service().undo()
    except ServiceError as exc:
        abort(400, str(exc))
    return jsonify({"undone": undone, **host_status()})


@bp.post("/host/board")
def host_board() -> ResponseReturnValue:
    """Give the board to another game (``{"game": "crypt", "pause": true}``): a running
    maze game is paused by it, so ``pause`` must say the host means it; giving the
    board back to the maze resumes the game in restore mode."""
    _need_host()
    data = _body()
    game, pause = data.get("game"), data.get("pause", False)
    if not isinstance(game, str) or not isinstance(pause, bool):
        abort(400, 'Send {"game": "mummy" | "lootnrun" | "crypt", "pause": true | false}.')
    try:
        doors.give_board(game, pause=pause)
    except doors.BoardRefused as exc:
        abort(409, str(exc))
    return jsonify(host_status())


@bp.get("/host/status")
def host_state() -> ResponseReturnValue:
    _need_host()
    return jsonify(host_status())


def host_status() -> Payload:
    """What the host page shows: the seats, their codes, who joined, the game in short."""
    store = seats()
    table = store.table
    published = service().published
    state = published.state
    status: Payload = {
        "game": {
            "phase": state.phase.value,
            "round": state.rounds + 1,
            "over": state.is_over,
            "board": {
                "connected": published.board_connected,
                "ok": published.judgement.matches,
            },
        },
        "table": None,
        "board": doors.board_state(),
    }
    if table is not None:
        names = seeker_names(state.setup)
        status["table"] = {
            "colours": table.colours,
            "options": table.to_json()["options"],
            "dealing": table.dealing,
            "all_joined": table.all_joined,
            "seats": [
                {
                    "seat": seat,
                    "name": seat_name(seat, names),
                    "code": table.codes[seat],
                    "joined": seat in table.joined,
                    "ready": seat in table.hands,
                }
                for seat in table.seats
            ],
        }
    return status


def seat_name(seat: str, names: list[str]) -> str:
    if seat.startswith("seeker"):
        index = _index(seat)
        return f"Seeker {names[index]}" if index < len(names) else seat
    return {"mummy": "Mummy", "table": "Table screen", "watch": "Watching"}[seat]


# -- helpers -----------------------------------------------------------------------------


def _body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, "Send a JSON object.")
    return data


def _index(seat: str) -> int:
    return int(seat.removeprefix("seeker"))


def _submit(
    role: str, data: dict[str, Any], table: Table, make: Callable[[Published], Payload]
) -> ResponseReturnValue:
    """Parse a command, check it fits the dice mode, submit it; 400 with the rule's words."""
    svc = service()
    try:
        command = command_from_json(data, svc.maze)
    except (ValueError, TypeError) as exc:
        abort(400, f"That is not a command the game knows: {exc}.")
    _check_dice_mode(command, table)
    try:
        svc.submit(role, command)
    except (RuleError, ServiceError) as exc:
        return jsonify({"error": str(exc), "state": make(svc.published)}), 400
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
            raise ValueError(f"There is no treasure on {cell}.")
        if treasure in chosen:
            raise ValueError(f"The {treasure.title} card was entered twice.")
        chosen.append(treasure)
    for colour in Colour:
        count = sum(1 for t in chosen if t.colour is colour)
        if count != per_colour:
            want = "one card" if per_colour == 1 else "two cards"
            raise ValueError(f"Enter {want} of each colour: {count} {colour.value} chosen.")
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


def _start_dealt_game(table: Table) -> None:
    """Every seeker entered their cards: start the game with those hands."""
    hands = [table.hands[f"seeker{i}"] for i in range(len(table.colours))]
    table.game_id = service().new_game(
        table.colours,
        mummy_moves_exactly=table.options.exact,
        mummy_sees_treasures=table.options.treasures,
        hands=hands,
    )
    table.dealing = False
    table.hands = {}
    table.recheck = []


def _live(make: Callable[[Published, Table], Payload], seat: str) -> Response:
    """A server-sent event stream of ``make``'s payload, sent only when it changes.

    Unlike a stream per published version, nothing here tells how often the service
    published (a board sensor change publishes too): the mummy must not be able to
    count a seeker's steps from the stream's rhythm.  The maze goes in the first
    message only (``Once``).
    """
    svc = service()
    store = seats()
    cookie = dict(session.get("seat") or {})
    once = Once()
    last = ""
    seen = (-1, -1)

    def step() -> tuple[str, bool]:
        nonlocal last, seen
        if svc.closing:
            return "", False
        published = svc.published
        now_seen = (published.version, store.serial)
        if now_seen == seen:
            return "", True
        seen = now_seen
        table = store.table
        if store.seat_of(cookie) != seat or table is None:
            return 'data: {"stale": true}\n\n', False
        payload = make(published, table)
        text = json.dumps(payload)
        if text == last:
            return "", True
        last = text
        return event(once.slim(payload)), True

    def wait(seconds: float) -> None:
        svc.wait_for_change(seen[0], min(seconds, TABLE_POLL_S))

    return respond(step, wait)
