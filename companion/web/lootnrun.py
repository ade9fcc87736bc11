"""``/lootnrun``: the Loot N Run score track for phones and a shared tablet.

One page for every seat (Loot N Run has no secret the companion knows: cards are entered
when they are revealed; without a seat nothing opens, the watching seat only looks, see
``table/doors.py``), updated live over server-sent events, and a small JSON API:

=========================  ====  ===========================================================
``/lootnrun``              GET   the page
``/lootnrun/api/view``     GET   the table view (``views.table_view`` + version, colours,
                                 the board)
``/lootnrun/api/command``  POST  a command in the record JSON form (``record.py``)
``/lootnrun/api/undo``     POST  ``{"action": key}``: take back the last entry (the key the
                                 view named it by, ``action_key``); once the game is over
                                 only the host's undo of the winning action
``/lootnrun/api/new``      POST  ``{"players": [{"name", "colour"}, ...], "first": 0,
                                 "show_on_board": true}``
``/lootnrun/api/preview``  POST  ``{"kind": "run" | "awaken", "cards": [...]}``: what the
                                 cards are worth, before anything is entered
``/lootnrun/api/board``    POST  the host only: ``{"show": true}`` gives the board's LEDs to
                                 Loot N Run, ``false`` back to the maze (``"pause": true``
                                 to pause a running maze game)
``/lootnrun/api/stream``   GET   server-sent events: the view after every change
``/lootnrun/api/record``   GET   the game as a JSON Lines record
=========================  ====  ===========================================================

The API is strict: a POST must be a JSON object sent as ``application/json`` (which also
keeps other sites' plain form posts out), unknown keys are refused, and every error is
``{"error": "<a sentence for the players>"}``: 400 for a malformed request, 403 without
the seat for it, 409 for an entry the rules refuse, 503 when no Loot N Run game service
runs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
)
from flask.typing import ResponseReturnValue

from companion.games.lootnrun.cards import card_problem
from companion.games.lootnrun.commands import COMMAND_TYPES
from companion.games.lootnrun.engine import RuleError
from companion.games.lootnrun.palette import LOOK_ALIKE, PALETTE
from companion.games.lootnrun.record import FormatError, card_from_json, command_from_json
from companion.games.lootnrun.scoring import awaken_outcome, run_score
from companion.games.lootnrun.state import MAX_NAME
from companion.games.lootnrun.views import events_view, outcome_view, run_view
from companion.i18n import Msg, msg
from companion.i18n.catalog import localize
from companion.service.loop import ServiceError
from companion.service.lootnrun_service import KIND, LootNRunService, Published

from .context import hub, service
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
    one_of,
    refusal_status,
)
from .doors import BoardRefused, board_state, give_board, is_host, keeper, need
from .language import current_language, message_of
from .past import lootnrun_summary
from .stream import respond

bp = Blueprint("lootnrun", __name__, url_prefix="/lootnrun")

#: How often a live stream looks at the shutdown flags while it waits for a change.
POLL_S = 1.0
#: The game the board goes back to from the score track.
MAZE = "mummy"


#: The contract (``contract.py``): the bodies checked against it, and /api/openapi.json.
ERRORS = (400, 403, 409, 503)
CARD = obj(
    {"treasures": array(INTEGER, max_items=6)},
    {"amulets": INTEGER, "guardian": nullable(STRING), "colour": nullable(STRING)},
)
COMMAND = obj(
    {"cmd": one_of(*COMMAND_TYPES)},
    {
        "player": nullable(INTEGER),
        "cards": {"anyOf": [array(CARD), INTEGER, {"type": "null"}]},
        "target": INTEGER,
        "kept": INTEGER,
        "points": INTEGER,
        "reason": STRING,
    },
)
NEW_GAME = obj(
    {"players": array(obj({"name": STRING, "colour": STRING}), max_items=8)},
    {"first": INTEGER, "show_on_board": BOOLEAN},
)
PREVIEW = obj({"kind": one_of("run", "awaken"), "cards": array(CARD)})
UNDO = obj(None, {"action": nullable({**STRING, "description": "The key of the entry to undo."})})
SHOW = obj({"show": BOOLEAN}, {"pause": BOOLEAN})
VIEW = obj(
    {
        "board": obj(
            {"active": BOOLEAN, "active_game": nullable(TEXT), "maze_paused": BOOLEAN},
            {
                # The question asked before the board goes to each game (``board_moves.py``).
                "moves": {"type": "object", "additionalProperties": TEXT},
                # Which run of the companion, and how often the board changed hands in it:
                # a view with fewer handovers in the same run is older than one with more.
                "run": TEXT,
                "handover": INTEGER,
            },
        ),
        "game": TEXT,
        "game_id": nullable(INTEGER),
        "phase": TEXT,
        "players": array(ANY_OBJECT, max_items=8),
        "events": array(ANY_OBJECT, max_items=1000),
        "version": INTEGER,
    },
    closed=False,
)
ANSWER = obj({"ok": BOOLEAN, "view": VIEW}, {"events": array(ANY_OBJECT), "game_id": INTEGER})


def init_app(app: Flask) -> None:
    """Attach the Loot N Run area to the app (called by ``create_app``)."""
    app.register_blueprint(bp)


# -- helpers ---------------------------------------------------------------------------


def _error(message: Msg | str, status: int) -> ResponseReturnValue:
    return jsonify({"error": message}), status


class _Unavailable(Exception):
    """No Loot N Run service on this companion (no appliance, or the game not installed)."""


def _service() -> LootNRunService:
    games = hub()
    svc = None if games is None else games.services.get(KIND)
    if not isinstance(svc, LootNRunService):
        raise _Unavailable
    return svc


def _view(
    svc: LootNRunService,
    published: Published | None = None,
    games: Any = None,
    host: bool | None = None,
) -> dict[str, Any]:
    """The service's view plus whether the board shows the score track now, and which
    game holds it otherwise (the page names it); once the game is over, its end screen's
    summary, and the undo for the host only (``host``: this device holds the host's
    cookie, asked of the request when not given)."""
    games = games if games is not None else hub()
    host = is_host() if host is None else host
    view = svc.view(published)
    state = (published or svc.published).state
    view["summary"] = None if state is None else lootnrun_summary(state)
    game_id = (published or svc.published).game_id
    if view["summary"] is not None and game_id is not None:
        view["summary"]["replay"] = f"/replay/{game_id}"
    view["host"] = host
    if view["summary"] is not None and not host:
        view["actions"]["undo"] = False
    shared = board_state()
    view["board"] = {
        "active": games is not None and games.active == KIND,
        "active_game": games.active if games is not None else None,
        # A maze game waits while another game has the board: every page says so.
        "maze_paused": shared["maze_paused"],
        # The question the header's board button asks first (``board_moves.py``).
        "moves": shared["moves"],
        "run": shared["run"],
        "handover": shared["handover"],
    }
    return view


@bp.errorhandler(FormatError)
def _bad_request(exc: ValueError) -> ResponseReturnValue:
    return _error(message_of(exc), 400)


@bp.errorhandler(RuleError)
@bp.errorhandler(ServiceError)
def _refused(exc: ValueError) -> ResponseReturnValue:
    return _error(message_of(exc), refusal_status(exc, 409))


@bp.errorhandler(_Unavailable)
def _unavailable(exc: Exception) -> ResponseReturnValue:
    return _error(msg("Loot N Run is not running on this companion."), 503)


@bp.before_request
def _door() -> None:
    """Every seat looks; every seat but the watching one enters scores."""
    need("lootnrun", "look" if request.method in ("GET", "HEAD") else "act")


# -- the page ---------------------------------------------------------------------------


@bp.get("")
def page() -> ResponseReturnValue:
    # Only the host gives the board away: the page offers its board button to the host.
    return render_template(
        "lootnrun.html",
        max_name=MAX_NAME,
        host=is_host(),
        palette=list(PALETTE),
        look_alike=sorted(sorted(pair) for pair in LOOK_ALIKE),
    )


# -- the API ----------------------------------------------------------------------------


@bp.get("/api/view")
@endpoint("The score track's view.", answer=VIEW, errors=ERRORS)
def view() -> ResponseReturnValue:
    return jsonify(_view(_service()))


@bp.post("/api/command")
@endpoint("Enter a Loot N Run command.", body=COMMAND, answer=ANSWER, errors=ERRORS)
def command() -> ResponseReturnValue:
    svc = _service()
    cmd = command_from_json(body())
    events = svc.submit(cmd, host=is_host())
    return jsonify({"ok": True, "events": events_view(events), "view": _view(svc)})


@bp.post("/api/undo")
@endpoint(
    "Take back the last entry (after the end: the host's undo of the winning action).",
    body=UNDO,
    answer=ANSWER,
    errors=ERRORS,
)
def undo() -> ResponseReturnValue:
    svc = _service()
    events = svc.undo(confirmed=body().get("action"), host=is_host())
    return jsonify({"ok": True, "events": events_view(events), "view": _view(svc)})


@bp.post("/api/new")
@endpoint("Start a new game.", body=NEW_GAME, answer=ANSWER, errors=ERRORS)
def new() -> ResponseReturnValue:
    svc = _service()
    data = body()
    pairs = [(p["name"], p["colour"]) for p in data["players"]]
    show = data.get("show_on_board", True)
    game_id = svc.new_game(pairs, data.get("first", 0))
    if show and is_host():
        # A free board goes to the score track; a running maze game keeps it.
        with contextlib.suppress(ServiceError):
            _activate(KIND, svc)
    return jsonify({"ok": True, "game_id": game_id, "view": _view(svc)})


@bp.post("/api/preview")
@endpoint("What cards are worth (nothing is entered).", body=PREVIEW, errors=ERRORS)
def preview() -> ResponseReturnValue:
    """What cards are worth as a Run or in an Awaken (nothing is entered)."""
    data = body()
    kind = data["kind"]
    cards = [card_from_json(c) for c in data["cards"]]
    problems = [
        msg("card {i} {problem}", i=i, problem=problem)
        for i, c in enumerate(cards, 1)
        if (problem := card_problem(c))
    ]
    if kind == "run":
        return jsonify({"run": run_view(run_score(cards)), "problems": problems})
    outcome = awaken_outcome(cards)
    return jsonify({"outcome": outcome_view(outcome), "problems": problems})


@bp.post("/api/board")
@endpoint(
    "The host gives the board to the score track, or back.", body=SHOW, answer=ANSWER, errors=ERRORS
)
def board() -> ResponseReturnValue:
    """Give the board's LEDs to the score track (``show``), or back to the maze."""
    need("host", "act")
    svc = _service()
    data = body()
    _activate(KIND if data["show"] else MAZE, svc, pause=data.get("pause", False))
    return jsonify({"ok": True, "view": _view(svc)})


def _activate(kind: str, svc: LootNRunService, *, pause: bool = False) -> None:
    try:
        give_board(kind, pause=pause)
    except BoardRefused as exc:
        raise ServiceError(exc.message) from exc
    svc.republish()  # every page learns who has the board now


@bp.get("/api/record")
@endpoint(
    "The game as a JSON Lines record.",
    answer=None,
    media="application/x-ndjson",
    errors=(403, 404, 503),
)
def record() -> ResponseReturnValue:
    text = _service().record()
    if text is None:
        return _error(msg("No Loot N Run game yet."), 404)
    headers = {"Content-Disposition": 'attachment; filename="lootnrun.jsonl"'}
    return Response(text, mimetype="application/x-ndjson", headers=headers)


@bp.get("/api/stream")
@endpoint("The view, live.", answer=None, media="text/event-stream", errors=(403, 503))
def stream() -> ResponseReturnValue:
    """The view now and after every change, as server-sent events.

    The current view is always sent first (also on a reconnect, whose Last-Event-ID may
    come from before a restart), and again whenever the board changes hands; the stream
    ends when either service shuts down (the maze's service is told first at shutdown,
    so open streams do not hold the server).
    """
    svc = _service()
    maze = service()
    games = hub()
    make = _view_maker(svc, games, is_host())
    still_open = keeper("lootnrun")
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    version = -1
    board: tuple[Any, ...] = ()
    lang = current_language()  # the stream outlives its request: the language is kept

    def step() -> tuple[str, bool]:
        nonlocal version, board
        if svc.closing or bool(getattr(maze, "closing", False)) or not still_open():
            return "", False
        published = svc.published
        holder = (getattr(games, "active", None), getattr(maze, "paused", None))
        if published.version == version and holder == board:  # the board changing hands
            return "", True  # changes the page too (who holds it, the maze paused)
        version, board = published.version, holder
        with app.app_context():
            return _event(version, localize(make(published), lang)), True

    def wait(seconds: float) -> None:
        svc.wait_for_change(version, min(seconds, POLL_S))

    return respond(step, wait, retry=True)


def _view_maker(
    svc: LootNRunService, games: Any, host: bool
) -> Callable[[Published], dict[str, Any]]:
    def make(published: Published) -> dict[str, Any]:
        return _view(svc, published, games, host)

    return make


def _event(version: int, data: dict[str, Any]) -> str:
    return f"id: {version}\ndata: {json.dumps(data)}\n\n"
