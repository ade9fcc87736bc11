"""``/sim``: the simulated board in mock mode: lift and place figures, see the LEDs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, render_template, request, session
from flask.typing import ResponseReturnValue

from companion.games.mummy.views import maze_view
from companion.service.registry import GAME_NAMES

from .context import appliance, service
from .contract import ANY_OBJECT, INTEGER, array, body, endpoint, obj
from .doors import is_host, keeper, need, seats
from .stream import event_stream

bp = Blueprint("sim", __name__, url_prefix="/sim")

#: The magnets on the simulated board, by position number.
MAGNETS = obj({"magnets": array(INTEGER, max_items=1000)})


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
@endpoint(
    "The simulated board: its geometry, the maze, magnets, LEDs and the game.",
    answer=obj(
        {"board": ANY_OBJECT, "maze": ANY_OBJECT, "magnets": array(INTEGER, max_items=1000)},
        closed=False,
    ),
)
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
@endpoint("The board as the game judges it, live.", answer=None, media="text/event-stream")
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
@endpoint(
    "Lift the figure from a position, or put one down on it.",
    body=obj({"position": INTEGER}),
    answer=MAGNETS,
)
def toggle() -> ResponseReturnValue:
    """Lift the figure from a position, or put one down on it."""
    position: int = body()["position"]
    board = appliance().mock_board
    if not 0 <= position < appliance().config.positions:
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
