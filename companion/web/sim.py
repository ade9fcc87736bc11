"""``/sim``: the simulated board in mock mode: lift and place figures, see the LEDs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, render_template, request, session
from flask.typing import ResponseReturnValue

from companion.games.mummy.views import maze_view
from companion.service.registry import GAME_NAMES

from .context import appliance, service
from .doors import is_host, keeper, need, seats
from .stream import event_stream

bp = Blueprint("sim", __name__, url_prefix="/sim")


@bp.before_request
def _host_only() -> None:
    """The simulated board shows every figure: it is the board itself (the host's).
    Opened first on a fresh companion (``make run``), it makes its device the host."""
    if not is_host():
        store = seats()
        token = store.claim_host() if store is not None else None
        if token is not None:
            session.permanent = True
            session["host"] = token
    need("sim", "look")


@bp.get("")
def page() -> ResponseReturnValue:
    return render_template("sim.html")


@bp.get("/api/board")
def board() -> ResponseReturnValue:
    app = appliance()
    config = app.config
    svc = service()
    return jsonify(
        {
            "board": {
                "columns": config.columns,
                "rows": config.rows,
                "camp_slots": config.camp_slots,
                "sarcophagus_slots": config.sarcophagus_slots,
                "names": [config.position_name(p) for p in range(config.positions)],
            },
            "maze": maze_view(svc.maze),
            "magnets": sorted(app.mock_board.occupied),
            "leds": [list(c) for c in app.lights.last_frame],
            "game": _game_summary(app),
        }
    )


@bp.get("/api/stream")
def stream() -> ResponseReturnValue:
    """Live table summary for the simulator (mock mode only: it shows every figure)."""
    svc = service()
    since = request.args.get("since", default=-1, type=int)

    def make(published: Any) -> dict[str, Any]:
        judgement = published.judgement
        return {
            "version": published.version,
            "phase": published.state.phase.value,
            "matches": judgement.matches,
            "missing": sorted(judgement.missing),
            "unexpected": sorted(judgement.unexpected),
            "lifted": sorted(judgement.lifted),
            "message": judgement.message,
        }

    return event_stream(svc, make, since, keeper("sim"))


@bp.post("/api/toggle")
def toggle() -> ResponseReturnValue:
    """Lift the figure from a position, or put one down on it."""
    data: dict[str, Any] = request.get_json(silent=True) or {}
    position = data.get("position")
    board = appliance().mock_board
    if not isinstance(position, int) or not 0 <= position < appliance().config.positions:
        abort(400, "position must be a board position number")
    if position in board.occupied:
        board.lift(position)
    else:
        board.place(position)
    return jsonify({"magnets": sorted(board.occupied)})


def _game_summary(app: Any) -> dict[str, Any]:
    """What the game that has the board is doing, in a line or two."""
    active = app.hub.active
    if active != "mummy":
        other = app.hub.service(active)
        message = other.view()["board"].get("message") if active == "crypt" else None
        return {"active_game": active, "title": GAME_NAMES.get(active, active), "message": message}
    view = app.service.view("table")
    return {
        "active_game": active,
        "phase": view["phase"],
        "turn_colour": view["turn_colour"],
        "announced": view["announced"],
        "roll": view["roll"],
        "message": view["board"].get("message"),
        "winner": view["winner"],
        "positions": view["positions"],
    }
