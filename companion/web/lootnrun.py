"""``/lootnrun``: the Loot N Run score track for phones and a shared tablet.

One page for every seat (Loot N Run has no secret the companion knows: cards are entered
when they are revealed; without a seat nothing opens, the watching seat only looks, see
``table/doors.py``), updated live over server-sent events, and a small JSON API:

=========================  ====  ===========================================================
``/lootnrun``              GET   the page
``/lootnrun/api/view``     GET   the table view (``views.table_view`` + version, colours,
                                 the board)
``/lootnrun/api/command``  POST  a command in the record JSON form (``record.py``)
``/lootnrun/api/undo``     POST  take back the last entry
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
from companion.games.lootnrun.engine import RuleError
from companion.games.lootnrun.record import FormatError, card_from_json, command_from_json
from companion.games.lootnrun.scoring import awaken_outcome, run_score
from companion.games.lootnrun.views import events_view, outcome_view, run_view
from companion.service.loop import ServiceError
from companion.service.lootnrun_service import KIND, LootNRunService, Published

from .context import hub, service
from .doors import BoardRefused, board_state, give_board, is_host, keeper, need
from .stream import respond

bp = Blueprint("lootnrun", __name__, url_prefix="/lootnrun")

#: The largest request body accepted (a Run of many cards is well under 10 kB).
MAX_BODY = 64 * 1024
#: How often a live stream looks at the shutdown flags while it waits for a change.
POLL_S = 1.0
#: The game the board goes back to from the score track.
MAZE = "mummy"


class BadRequest(ValueError):
    """A request that is not what the API expects (400); the message says what is wrong."""


def init_app(app: Flask) -> None:
    """Attach the Loot N Run area to the app (called by ``create_app``)."""
    app.register_blueprint(bp)


# -- helpers ---------------------------------------------------------------------------


def _error(message: str, status: int) -> ResponseReturnValue:
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
    svc: LootNRunService, published: Published | None = None, games: Any = None
) -> dict[str, Any]:
    """The service's view plus whether the board shows the score track now."""
    games = games if games is not None else hub()
    view = svc.view(published)
    view["board"] = {
        "active": games is not None and games.active == KIND,
        # A maze game waits while another game has the board: every page says so.
        "maze_paused": board_state()["maze_paused"],
    }
    return view


def _body(allowed: set[str] | None = None) -> dict[str, Any]:
    """The request's JSON object; BadRequest with a clear message for anything else."""
    if not request.is_json:
        raise BadRequest("Send the request as JSON (Content-Type: application/json).")
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise BadRequest(f"The request is too large (more than {MAX_BODY} bytes).")
    text = request.get_data(as_text=True)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadRequest(f"The request is not valid JSON: {exc}.") from exc
    if not isinstance(data, dict):
        raise BadRequest("The request must be a JSON object.")
    if allowed is not None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise BadRequest(
                f"Unknown key {unknown[0]!r} (expected: {', '.join(sorted(allowed))})."
            )
    return data


@bp.errorhandler(BadRequest)
@bp.errorhandler(FormatError)
def _bad_request(exc: ValueError) -> ResponseReturnValue:
    return _error(str(exc), 400)


@bp.errorhandler(RuleError)
@bp.errorhandler(ServiceError)
def _refused(exc: ValueError) -> ResponseReturnValue:
    return _error(str(exc), 409)


@bp.errorhandler(_Unavailable)
def _unavailable(exc: Exception) -> ResponseReturnValue:
    return _error("Loot N Run is not running on this companion.", 503)


@bp.before_request
def _door() -> None:
    """Every seat looks; every seat but the watching one enters scores."""
    need("lootnrun", "look" if request.method in ("GET", "HEAD") else "act")


# -- the page ---------------------------------------------------------------------------


@bp.get("")
def page() -> ResponseReturnValue:
    return render_template("lootnrun.html")


# -- the API ----------------------------------------------------------------------------


@bp.get("/api/view")
def view() -> ResponseReturnValue:
    return jsonify(_view(_service()))


@bp.post("/api/command")
def command() -> ResponseReturnValue:
    svc = _service()
    cmd = command_from_json(_body())
    events = svc.submit(cmd)
    return jsonify({"ok": True, "events": events_view(events), "view": _view(svc)})


@bp.post("/api/undo")
def undo() -> ResponseReturnValue:
    svc = _service()
    _body(set())
    events = svc.undo()
    return jsonify({"ok": True, "events": events_view(events), "view": _view(svc)})


@bp.post("/api/new")
def new() -> ResponseReturnValue:
    svc = _service()
    data = _body({"players", "first", "show_on_board"})
    players = data.get("players")
    if not isinstance(players, list):
        raise BadRequest('"players" is a list of {"name": ..., "colour": ...}.')
    pairs = []
    for p in players:
        if not isinstance(p, dict) or set(p) - {"name", "colour"}:
            raise BadRequest('Each player is {"name": ..., "colour": ...}.')
        name, colour = p.get("name"), p.get("colour")
        if not isinstance(name, str) or not isinstance(colour, str):
            raise BadRequest("A player's name and colour are text.")
        pairs.append((name, colour))
    first = data.get("first", 0)
    if isinstance(first, bool) or not isinstance(first, int):
        raise BadRequest('"first" is the number of the starting player (0 for the first).')
    show = data.get("show_on_board", True)
    if not isinstance(show, bool):
        raise BadRequest('"show_on_board" is true or false.')
    game_id = svc.new_game(pairs, first)
    if show and is_host():
        # A free board goes to the score track; a running maze game keeps it.
        with contextlib.suppress(ServiceError):
            _activate(KIND, svc)
    return jsonify({"ok": True, "game_id": game_id, "view": _view(svc)})


@bp.post("/api/preview")
def preview() -> ResponseReturnValue:
    """What cards are worth as a Run or in an Awaken (nothing is entered)."""
    data = _body({"kind", "cards"})
    kind = data.get("kind")
    if kind not in ("run", "awaken"):
        raise BadRequest('"kind" is "run" or "awaken".')
    raw = data.get("cards")
    if not isinstance(raw, list):
        raise BadRequest('"cards" is a list of cards.')
    cards = [card_from_json(c) for c in raw]
    problems = [
        f"card {i} {problem}" for i, c in enumerate(cards, 1) if (problem := card_problem(c))
    ]
    if kind == "run":
        return jsonify({"run": run_view(run_score(cards)), "problems": problems})
    outcome = awaken_outcome(cards)
    return jsonify({"outcome": outcome_view(outcome), "problems": problems})


@bp.post("/api/board")
def board() -> ResponseReturnValue:
    """Give the board's LEDs to the score track (``show``), or back to the maze."""
    need("host", "act")
    svc = _service()
    data = _body({"show", "pause"})
    show, pause = data.get("show"), data.get("pause", False)
    if not isinstance(show, bool):
        raise BadRequest('"show" is true (the score track on the board) or false (the maze).')
    if not isinstance(pause, bool):
        raise BadRequest('"pause" is true or false.')
    _activate(KIND if show else MAZE, svc, pause=pause)
    return jsonify({"ok": True, "view": _view(svc)})


def _activate(kind: str, svc: LootNRunService, *, pause: bool = False) -> None:
    try:
        give_board(kind, pause=pause)
    except BoardRefused as exc:
        raise ServiceError(str(exc)) from exc
    svc.republish()  # every page learns who has the board now


@bp.get("/api/record")
def record() -> ResponseReturnValue:
    text = _service().record()
    if text is None:
        return _error("No Loot N Run game yet.", 404)
    headers = {"Content-Disposition": 'attachment; filename="lootnrun.jsonl"'}
    return Response(text, mimetype="application/x-ndjson", headers=headers)


@bp.get("/api/stream")
def stream() -> ResponseReturnValue:
    """The view now and after every change, as server-sent events.

    The current view is always sent first (also on a reconnect, whose Last-Event-ID may
    come from before a restart); the stream ends when either service shuts down (the
    maze's service is told first at shutdown, so open streams do not hold the server).
    """
    svc = _service()
    maze = service()
    make = _view_maker(svc, hub())
    still_open = keeper("lootnrun")
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    version = -1

    def step() -> tuple[str, bool]:
        nonlocal version
        if svc.closing or bool(getattr(maze, "closing", False)) or not still_open():
            return "", False
        published = svc.published
        if published.version == version:
            return "", True
        version = published.version
        with app.app_context():
            return _event(version, make(published)), True

    def wait(seconds: float) -> None:
        svc.wait_for_change(version, min(seconds, POLL_S))

    return respond(step, wait, retry=True)


def _view_maker(svc: LootNRunService, games: Any) -> Callable[[Published], dict[str, Any]]:
    def make(published: Published) -> dict[str, Any]:
        return _view(svc, published, games)

    return make


def _event(version: int, data: dict[str, Any]) -> str:
    return f"id: {version}\ndata: {json.dumps(data)}\n\n"
