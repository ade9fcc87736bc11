"""``/crypt``: Into the Crypt on the board, run from a phone.

The page shows the 8x8 board (cubes in player colours, locks, meeples, hints), the
score, whose turn it is, the computer opponent's last move, and what the board asks
for; in the placing phase a tap on a square places a cube, a tap on a corner puts a
meeple down; buttons enter the chamber or pass when that is legal, undo, start a new
game (2 or 4 players, colours, first player, a computer opponent) and give the board
to the crypt or back to the maze.  Everything in this game is open information, so
every seat sees the same view; without a seat nothing opens, the watching seat only
looks, and only the host gives the board to the crypt (``doors.py``).  The crypt sees
only the magnets on its sheet: others are a count of figures off this board, and the
maze's figures are not even counted (the page says once how many the maze left).

JSON API (all answers are the page's view, or ``{"error": message}``):

===========================  ====================================================
``GET  /crypt/api/state``    the view
``GET  /crypt/api/stream``   server-sent events: the view after every change
``POST /crypt/api/command``  ``{"kind": "place_cube", "square": "c3"}`` ...
``POST /crypt/api/new``      ``{"players": 2, "colours": [...], "first_player": 0,
                             "computer": 1}``; the host's new game also takes the
                             board, unless a maze game holds it
``POST /crypt/api/undo``     ``{"action": key}``: take back the last move (and the
                             computer's reply; the key the view named it by,
                             ``action_key``); once the game is over only the host's
                             undo of the winning move
``POST /crypt/api/board``    the host only: ``{"game": "crypt"}`` or ``{"game": "mummy"}``
                             (``"pause": true`` to pause a running maze game)
===========================  ====================================================

A POST must be a JSON object sent as ``application/json`` (which also keeps other
sites' plain form posts out).  A request the rules or the board refuse answers 409, a
malformed one 400, a device without the seat for it 403, and 503 when this companion
runs no crypt game; every error is
``{"error": "<a sentence for the players>"}``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from flask import (
    Blueprint,
    Flask,
    abort,
    jsonify,
    render_template,
    request,
)
from flask.globals import request_ctx
from flask.typing import ResponseReturnValue

from companion.games.crypt.commands import COMMAND_TYPES, parse_command
from companion.games.crypt.engine import RuleError
from companion.games.crypt.narration import without_result
from companion.i18n import Msg, counted, msg, word
from companion.i18n.catalog import localize
from companion.service.crypt_service import CryptPublished, CryptService
from companion.service.loop import ServiceError
from companion.service.registry import GAME_NAMES

from .context import hub
from .contract import (
    ANY_OBJECT,
    BOOLEAN,
    INTEGER,
    STRING,
    TEXT,
    array,
    body,
    endpoint,
    nullable,
    obj,
    refusal_status,
)
from .doors import BoardRefused, board_state, give_board, is_host, keeper, need
from .language import current_language, message_of, text_of
from .past import crypt_summary
from .stream import respond

bp = Blueprint("crypt", __name__, url_prefix="/crypt")

#: Seconds between checks of the board's owner on an idle stream (without the broadcaster).
STREAM_POLL_S = 2.0
#: The contract (``contract.py``): the bodies checked against it, and /api/openapi.json.
ERRORS = (400, 403, 409, 503)
VIEW = obj(
    {
        "board": obj({"active_game": nullable(TEXT), "plays_crypt": BOOLEAN}, closed=False),
        "game": TEXT,
        "phase": TEXT,
        "players": array(ANY_OBJECT, max_items=4),
        "scores": array(INTEGER, max_items=4),
        "hints": array(ANY_OBJECT, max_items=1000),
        "over": BOOLEAN,
        "to_move": INTEGER,
        "version": INTEGER,
    },
    closed=False,
)
COMMAND = obj(
    {"kind": {"enum": sorted(COMMAND_TYPES)}},
    {"square": STRING, "corner": STRING, "to": STRING},
)
NEW_GAME = obj(
    {},
    {
        "players": {"enum": [2, 4]},
        "colours": nullable(array(STRING, max_items=4)),
        "first_player": INTEGER,
        "computer": nullable(INTEGER),
    },
)
UNDO = obj(None, {"action": nullable({**STRING, "description": "The key of the move to undo."})})
GIVE_BOARD = obj({"game": STRING}, {"pause": BOOLEAN})
#: How long a request that gives the board to the crypt waits for its first judgement.
ACTIVATE_WAIT_S = 0.5


def init_app(app: Flask) -> None:
    """Attach the crypt page and its API (``create_app`` calls this)."""
    app.register_blueprint(bp)


def crypt_service() -> CryptService:
    """The running crypt service, or 503 when the companion runs none."""
    games = hub()
    if games is None or "crypt" not in games.services:
        abort(503, "Into the Crypt is not running on this companion.")
    service: CryptService = games.service("crypt")
    return service


@bp.before_request
def _door() -> None:
    """Every seat looks; every seat but the watching one plays (``table/doors.py``)."""
    need("crypt", "look" if request.method in ("GET", "HEAD") else "act")


def _board_state() -> dict[str, Any]:
    board = board_state()
    board["plays_crypt"] = board["active_game"] == "crypt"
    games = hub()
    # How many figures the maze left on the board still stand there (a count, never
    # where): the page asks to take them off until they are.
    board["maze_figures"] = games.maze_standing() if games is not None else 0
    board["host"] = is_host()  # the page offers the board's buttons to the host only
    return board


def _view(published: CryptPublished | None = None) -> dict[str, Any]:
    service = crypt_service()
    published = published or service.published
    view = service.view(published)
    board = _board_state()
    # The end screen: the winner and the summary; the undo of the winning move is the host's.
    last = without_result(published.history[-1].text) if published.history else None
    view["summary"] = crypt_summary(published.state, published.computer, last)
    if view["summary"] is not None and published.game_id is not None:
        view["summary"]["replay"] = f"/replay/{published.game_id}"
    if view["summary"] is not None and not board["host"]:
        view["can_undo"] = False
    if not board["plays_crypt"]:
        # Another game has the board: what the crypt last saw of it is stale.
        view["board"].update(
            message=_elsewhere(board["active_game"]),
            lifted=[],
            errors=[],
            hints=[],
            missing=[],
            unexpected=[],
            touch=None,
        )
    else:
        if board["off_board"]:
            off = counted(
                board["off_board"],
                "{n} figure stands off the crypt board.",
                "{n} figures stand off the crypt board.",
            )
            view["board"]["message"] = _also(view["board"]["message"], off)
    view["board"].update(board)
    # A notice of its own, apart from what the crypt says of its board, once.
    figures = board["maze_figures"] if board["plays_crypt"] else 0
    view["board"]["maze_notice"] = _maze_figures(figures) if figures else None
    return view


def _maze_figures(n: int) -> Msg:
    """The maze's figures still standing on the board (``table/hub.py`` counts them, it
    never says where): the page asks to take them off until they are."""
    return counted(
        n,
        "The maze game left {n} figure on the board: take it off.",
        "The maze game left {n} figures on the board: take them off.",
    )


def _also(message: Msg | None, more: Msg) -> Msg:
    """A message with one more sentence after it."""
    return more if message is None else msg("{a} {b}", a=message, b=more)


def _elsewhere(active: str | None) -> Msg:
    """What to do while another game (or none) has the board."""
    if active is None:
        return msg("No board is connected.")
    return msg(
        "The board plays {game}: the host gives it to the crypt on the host page.",
        game=word(GAME_NAMES.get(active, active)),
    )


def _give_board_to(service: CryptService, game: str, *, pause: bool = False) -> None:
    """The host gives the board to ``game`` (BoardRefused: why not); when that is the
    crypt, wait (briefly) until it has judged the board as it stands, so the answer
    already says what to put right."""
    games = hub()
    if games is None or games.active == game:
        return
    version = service.published.version
    give_board(game, pause=pause)
    if game == "crypt":
        service.wait_for_change(version, ACTIVATE_WAIT_S)


def _refused(message: Msg | str, status: int = 409) -> ResponseReturnValue:
    return jsonify({"error": message}), status


def _bad(message: Msg | str) -> ResponseReturnValue:
    return jsonify({"error": message}), 400


@bp.errorhandler(400)
@bp.errorhandler(503)
def _error(exc: Any) -> ResponseReturnValue:
    return jsonify({"error": text_of(getattr(exc, "description", None) or str(exc))}), exc.code


@bp.get("")
def page() -> ResponseReturnValue:
    return render_template("crypt.html")


@bp.get("/api/state")
@endpoint("The crypt's view.", answer=VIEW, errors=ERRORS)
def state() -> ResponseReturnValue:
    return jsonify(_view())


@bp.post("/api/command")
@endpoint("Place a cube or meeple, move, enter, pass.", body=COMMAND, answer=VIEW, errors=ERRORS)
def command() -> ResponseReturnValue:
    service = crypt_service()
    try:
        parsed = parse_command(body())
    except ValueError as exc:
        return _bad(str(exc))
    active = _board_state()["active_game"]
    if active != "crypt":
        return _refused(_elsewhere(active))
    try:
        service.submit(parsed)
    except (RuleError, ServiceError) as exc:
        return _refused(message_of(exc), refusal_status(exc, 409))
    return jsonify(_view())


@bp.post("/api/new")
@endpoint("Start a new crypt game.", body=NEW_GAME, answer=VIEW, errors=ERRORS)
def new_game() -> ResponseReturnValue:
    service = crypt_service()
    data = body()
    players = data.get("players", 2)
    first = data.get("first_player", 0)
    computer = data.get("computer")
    colours = data.get("colours")
    if colours is not None and len(colours) != players:
        return _bad(msg("Give {n} colours, one per player.", n=players))
    try:
        service.new_game(players=players, colours=colours, first_player=first, computer=computer)
    except (RuleError, ServiceError) as exc:
        return _refused(message_of(exc), refusal_status(exc, 409))
    if is_host():
        # A free board goes to the new game; a running maze game keeps it.
        with contextlib.suppress(BoardRefused):
            _give_board_to(service, "crypt")
    return jsonify(_view())


@bp.post("/api/undo")
@endpoint(
    "Take back the last move (and the computer's reply; after the end: the host's undo of "
    "the winning move).",
    body=UNDO,
    answer=VIEW,
    errors=ERRORS,
)
def undo() -> ResponseReturnValue:
    service = crypt_service()
    confirmed = body().get("action")
    try:
        undone = service.undo(confirmed=confirmed, host=is_host())
    except (RuleError, ServiceError) as exc:
        return _refused(message_of(exc), refusal_status(exc, 409))
    if not undone:
        return _refused(msg("There is no move of yours to take back."))
    return jsonify(_view())


@bp.post("/api/board")
@endpoint(
    "The host gives the board to the crypt or back.", body=GIVE_BOARD, answer=VIEW, errors=ERRORS
)
def board() -> ResponseReturnValue:
    """Give the board (sensors and LEDs) to the crypt or back to another game."""
    need("host", "act")
    crypt_service()
    data = body()
    game, pause = data["game"], data.get("pause", False)
    games = hub()
    if game not in games.services:
        known = ", ".join(sorted(games.services))
        return _bad(msg("The game must be one of {known}.", known=known))
    try:
        _give_board_to(crypt_service(), game, pause=pause)
    except BoardRefused as exc:
        return _refused(message_of(exc))
    return jsonify(_view())


@bp.get("/api/stream")
@endpoint("The view, live.", answer=None, media="text/event-stream", errors=(403, 503))
def stream() -> ResponseReturnValue:
    """The view now and after every change (and when the board changes hands)."""
    service = crypt_service()
    games = hub()
    start = request.headers.get("Last-Event-ID", "")
    version = int(start) if start.isdigit() else -1
    owner: tuple[str, int] = (games.active, games.maze_standing())
    fresh = True
    still_open = keeper("crypt")
    context = request_ctx.copy()  # the view asks who looks (the host sees the board's buttons)
    lang = current_language()

    def step() -> tuple[str, bool]:
        nonlocal version, owner, fresh
        if service.closing or not still_open():
            return "", False
        published = service.published
        standing = games.maze_standing()  # the notice clears when the last one is off
        if published.version == version and (games.active, standing) == owner and not fresh:
            return "", True
        version, owner, fresh = published.version, (games.active, standing), False
        with context:
            view = _view(published)
        return f"id: {version}\ndata: {json.dumps(localize(view, lang))}\n\n", True

    def wait(seconds: float) -> None:
        service.wait_for_change(version, min(seconds, STREAM_POLL_S))

    return respond(step, wait)
