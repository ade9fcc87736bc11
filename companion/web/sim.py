"""``/sim``: the simulated board in mock mode: lift and place figures, see the LEDs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from companion.board.config import BoardConfig
from companion.games.mummy.views import maze_view
from companion.i18n import Msg, msg, word
from companion.service.registry import GAME_NAMES

from .context import appliance, service
from .contract import ANY_OBJECT, INTEGER, array, body, endpoint, obj
from .doors import is_host, keeper, need, seats
from .payloads import table_guidance
from .session import remember
from .stream import broadcaster, event_stream

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
            remember(host=token)
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
                "names": [position_words(config, p) for p in range(config.positions)],
            },
            "maze": maze_view(svc.maze),
            **_live_board(app),
        }
    )


def _live_board(app: Any) -> dict[str, Any]:
    """What changes on the simulated board: magnets, LEDs, the figures' colours, the game."""
    return {
        "magnets": sorted(app.mock_board.occupied),
        "leds": [list(c) for c in app.lights.last_frame],
        "figures": _figure_colours(app),
        "game": _game_summary(app),
    }


def _figure_colours(app: Any) -> dict[str, str]:
    """Position -> the colour of the maze figure on it, for the magnets on the board: each
    where the game expects it, and the one in a player's hand where it was put down."""
    if app.hub.active != "mummy":
        return {}
    svc = app.service
    state = svc.game.current
    occupied = set(app.mock_board.occupied)
    expected = svc.board.expected(state)
    colours = {p: state.setup.figures[f].value for f, p in expected.items() if p in occupied}
    gone = [f for f, p in expected.items() if p not in occupied]
    strays = sorted(occupied - set(expected.values()))
    if len(gone) == 1 and len(strays) == 1:
        colours[strays[0]] = state.setup.figures[gone[0]].value
    return {str(p): c for p, c in colours.items()}


@bp.get("/api/stream")
@endpoint("The board as the game judges it, live.", answer=None, media="text/event-stream")
def stream() -> ResponseReturnValue:
    """The simulated board, live: the game's judgement, magnets, LEDs and figure colours
    (mock mode only: it shows every figure).  The page follows it instead of polling.
    A message goes out for every publish and for every new LED frame, so the page shows
    each frame the board gets (a publish alone would carry the frame before it: the
    LED thread renders the new one just after)."""
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
            **_live_board(app),
        }

    app = appliance()
    may_look = keeper("sim")
    store = seats()
    mummy_device = _mummy_device(store)

    def still_open() -> bool:
        # The mummy's seat opened on a device since (maybe this one, in another tab): the
        # stream ends, and the page's reconnection asks with the device's cookie as it is.
        return may_look() and _mummy_device(store) == mummy_device

    app.lights.on_frame(broadcaster().wake)  # each LED frame as the board gets it
    return event_stream(svc, make, since, still_open, also=lambda: app.lights.frames)


def _mummy_device(store: Any) -> object:
    """Which device holds the mummy's seat now (None: none)."""
    table = None if store is None else store.table
    return None if table is None else table.devices.get("mummy")


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
        title = word(GAME_NAMES.get(active, active))
        return {"active_game": active, "title": title, "message": message}
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
        "turn": table_guidance(app.service.published.state, app.service.published),
    }


def position_words(config: BoardConfig, position: int) -> Msg | str:
    """A position's name in the reader's language: a cell ("C4") as it is, a slot in words
    ("Startfeldplatz 2")."""
    if position < config.cells:
        return config.position_name(position)
    slot = position - config.cells
    if slot < config.camp_slots:
        return msg("camp slot {n}", n=slot + 1)
    return msg("sarcophagus slot {n}", n=slot - config.camp_slots + 1)
