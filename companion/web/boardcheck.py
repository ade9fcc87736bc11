"""``/check``: the guided board check, the host's page (``service/boardcheck_service.py``).

It takes the board as a game does (a running maze game only after the host confirms
pausing it) and gives it back to the game that had it.  It shows where every magnet
stands, so it is refused to a device holding the mummy's seat, as ``/sim`` is.

==============================  =====  ==========================================
``/check``                       GET    the page
``/check/api/state``             GET    the check now: step, reading, findings
``/check/api/stream``            GET    the same, live (server-sent events)
``/check/api/start``             POST   take the board and start a check
``/check/api/press``             POST   the maker's button: next, skip, finish
``/check/api/end``               POST   give the board back
``/check/api/reports``           GET    the saved reports, newest first
``/check/api/reports/<name>``    GET    one report in words, compared with the one before
==============================  =====  ==========================================
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, render_template
from flask.typing import ResponseReturnValue

from companion.i18n import N_, MessageError
from companion.i18n.catalog import localize
from companion.service.boardcheck_service import BoardCheckService, Published

from .context import hub
from .contract import BOOLEAN, INTEGER, STRING, array, body, endpoint, nullable, obj, one_of
from .doors import BoardRefused, give_board, keeper, need
from .language import current_language, text_of
from .stream import event, respond

bp = Blueprint("boardcheck", __name__, url_prefix="/check")

#: How often a live stream looks at the shutdown flags while it waits for a change.
POLL_S = 1.0


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


@bp.before_request
def _door() -> None:
    need("check", "look")


def _service() -> BoardCheckService | None:
    games = hub()
    svc = games.services.get("boardcheck") if games is not None else None
    return svc if isinstance(svc, BoardCheckService) else None


def _error(message: Any, status: int) -> ResponseReturnValue:
    return jsonify({"error": text_of(message)}), status


def _state(svc: BoardCheckService) -> dict[str, Any]:
    games = hub()
    return {
        **svc.published.view,
        "holds_board": games is not None and games.active == "boardcheck",
        "returns_to": svc.returns_to,
    }


@bp.get("")
def page() -> ResponseReturnValue:
    return render_template("check.html", available=_service() is not None)


@bp.get("/api/state")
@endpoint("The board check now: its step, what the sensors read, what it found.", errors=(403, 404))
def state() -> ResponseReturnValue:
    svc = _service()
    if svc is None:
        return _error("There is no board on this companion.", 404)
    return jsonify(localize(_state(svc), current_language()))


@bp.get("/api/stream")
@endpoint("The board check, live.", answer=None, media="text/event-stream", errors=(403, 404))
def stream() -> ResponseReturnValue:
    svc = _service()
    if svc is None:
        return _error("There is no board on this companion.", 404)
    still_open = keeper("check")
    lang = current_language()
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    games = hub()
    sent: tuple[int, str | None] = (-1, None)

    def step() -> tuple[str, bool]:
        nonlocal sent
        if svc.closing or not still_open():
            return "", False
        published: Published = svc.published
        now = (published.version, getattr(games, "active", None))
        if now == sent:
            return "", True
        sent = now
        with app.app_context():
            return event(localize(_state(svc), lang), published.version), True

    def wait(seconds: float) -> None:
        svc.wait_for_change(sent[0], min(seconds, POLL_S))

    return respond(step, wait, retry=True)


@bp.post("/api/start")
@endpoint(
    "Take the board (a running maze game pauses: pause must be true) and start a check.",
    body=obj(optional={"pause": BOOLEAN, "quick": BOOLEAN}),
    errors=(400, 403, 404, 409),
)
def start() -> ResponseReturnValue:
    need("check", "act")
    svc, games = _service(), hub()
    if svc is None or games is None:
        return _error("There is no board on this companion.", 404)
    given = body()
    previous = games.active
    try:
        give_board("boardcheck", pause=bool(given.get("pause")))
    except BoardRefused as exc:
        return _error(exc, 409)
    svc.begin(
        previous if previous != "boardcheck" else svc.returns_to,
        quick=bool(given.get("quick")),
    )
    return state()


@bp.post("/api/press")
@endpoint(
    "The maker's button: next (done, the board is clear), skip (nothing reads here), "
    "finish (end the check now and save its report).",
    body=obj(
        {"answer": one_of("next", "skip", "finish", words="next, skip or finish")},
        optional={"step": obj({"kind": STRING}, optional={"position": nullable(INTEGER)})},
    ),
    errors=(400, 403, 404, 409),
)
def press() -> ResponseReturnValue:
    need("check", "act")
    svc, games = _service(), hub()
    if svc is None or games is None:
        return _error("There is no board on this companion.", 404)
    given = body()
    answer = given["answer"]
    if games.active != "boardcheck" and answer != "finish":
        return _error(N_("Another game has the board now: start the board check again."), 409)
    shown = given.get("step")
    try:
        svc.press(answer, None if shown is None else (shown["kind"], shown.get("position")))
    except MessageError as exc:
        return _error(exc, 409)
    return state()


@bp.post("/api/end")
@endpoint("Give the board back to the game that had it.", errors=(400, 403, 404, 409))
def end() -> ResponseReturnValue:
    need("check", "act")
    svc, games = _service(), hub()
    if svc is None or games is None:
        return _error("There is no board on this companion.", 404)
    if svc.running:
        svc.press("finish")
    if games.active == "boardcheck":
        try:
            give_board(svc.returns_to or "mummy", pause=True)
        except BoardRefused as exc:
            return _error(exc, 409)
    return state()


@bp.get("/api/reports")
@endpoint(
    "The saved reports of the board check, newest first.",
    answer=obj({"reports": array(STRING, max_items=10_000)}, closed=False),
)
def reports() -> ResponseReturnValue:
    svc = _service()
    names = svc.saved() if svc is not None else []
    return jsonify({"reports": names})


@bp.get("/api/reports/<name>")
@endpoint(
    "One saved report in words, and what changed since the report before it.",
    errors=(403, 404),
)
def report(name: str) -> ResponseReturnValue:
    svc = _service()
    if svc is None:
        return _error("There is no board on this companion.", 404)
    try:
        data = svc.load(name)
    except MessageError as exc:
        return _error(exc, 404)
    return jsonify(localize(data, current_language()))
