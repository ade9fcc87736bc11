"""The doors of the web layer: every route asks here before it opens (the policy itself,
who may see what, is ``companion.table.doors``).

Besides the seat checks this holds the two locks every state-changing request passes:
a request whose ``Origin`` (or, without one, ``Referer``) is another site is refused,
and anything but JSON (a form) must carry the session's CSRF token, or one signed for
this address on a page served without a cookie (``session.py``; a JSON request cannot
come from another site without the browser naming it in ``Origin``).
The board changes hands here too, and only by the host: a running maze game is paused
by it, so the host must say so (``pause``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NoReturn
from urllib.parse import urlsplit

from flask import (
    Flask,
    abort,
    current_app,
    jsonify,
    make_response,
    render_template,
    request,
    session,
)

from companion.games.mummy.words import colour_word
from companion.i18n import N_, MessageError, msg
from companion.service.registry import GAME_NAMES
from companion.table.doors import Action, Game, may, may_give_board, seat_kind
from companion.table.seats import CrossingRefused, Seats

from .board_moves import move_questions
from .context import hub, service
from .language import text_of
from .session import csrf_ok, csrf_token, lasting
from .stamps import RUN

#: Methods that change nothing (no token, no origin check).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class BoardRefused(MessageError):
    """The board cannot change hands now; the message says why, in player words."""


def seats() -> Seats | None:
    store: Seats | None = current_app.extensions.get("companion.seats")
    return store


def current_seat() -> str | None:
    """The seat this device's cookie binds it to, if that binding is still valid."""
    store = seats()
    return None if store is None else store.seat_of(session.get("seat"))


def is_host() -> bool:
    """This device holds the host's cookie (its use is noted: ``Seats.host_used``)."""
    store = seats()
    if store is None or not store.is_host(session.get("host")):
        return False
    store.host_used(time.time())
    return True


def need(game: Game, action: Action, page: str = "") -> str | None:
    """This device's seat, if it may open the door; otherwise the request ends in 403.

    A door that shows where the seekers stand (``/sim``, ``/check``, a record) notes
    this device as one that has seen them in this game (``Seats.cross``)."""
    seat = current_seat()
    if not may(seat, is_host(), game, action, page):
        refuse(denial(game, seat))
    if game in FIGURE_DOORS:
        cross("figures")
    return seat


#: The host's doors that show where every figure stands.
FIGURE_DOORS = frozenset({"sim", "journal", "check"})


def device_id() -> str:
    """This browser's lasting id (in its signed cookie), whatever seat it holds: the
    server remembers per game which devices saw the seekers or held the mummy's seat."""
    return lasting("dev", 12)


def cross(to: str) -> None:
    """Note that this device sees the seekers (``to`` "figures") or takes the mummy's
    seat ("mummy"); refused in words (403) when it did the other in this game and the
    host did not allow it (``Seats.cross``)."""
    store = seats()
    if store is None:
        return
    try:
        store.cross(device_id(), to)
    except CrossingRefused as exc:
        refuse(text_of(exc.message))


def keeper(game: Game) -> Callable[[], bool]:
    """For a live stream: whether this device may still look (its seat taken over, new
    codes, or the host's cookie gone end the stream), checked without the request."""
    store = seats()
    seat_cookie, host_cookie = session.get("seat"), session.get("host")

    def still_open() -> bool:
        if store is None:
            return False
        return may(store.seat_of(seat_cookie), store.is_host(host_cookie), game, "look")

    return still_open


def denial(game: Game, seat: str | None) -> str:
    """Why a door stays shut, in words."""
    store = seats()
    if seat is None and store is not None and store.taken_over(session.get("seat")):
        return N_("This seat was opened on another phone: ask the host for a code to come back.")
    if game == "check" and seat == "mummy" and is_host():
        return N_(
            "This phone holds the mummy's seat: the board check shows where every magnet "
            "stands, so it opens only on another phone of the host."
        )
    if seat is None and (removed := colour_removed()) is not None:
        return removed
    if game in ("sim", "journal") and seat == "mummy" and is_host():
        return N_(
            "This phone holds the mummy's seat: what shows where the seekers stand (the "
            "simulated board, a game's record) opens only on another phone of the host."
        )
    if game in ("host", "sim", "journal", "check"):
        return N_("Only the host may do this: open the host page with the PIN.")
    if seat == "watch" and game == "mummy":
        return N_("This seat watches the maze on its own page, without the seekers' cells.")
    if seat == "watch":
        return N_("This seat watches: it cannot change the game.")
    if seat is not None:
        return N_("This page is another seat's: open your own page.")
    return N_("This page needs the code of a seat: ask the host.")


def colour_removed() -> str | None:
    """This device's seeker colour is not in the new game (in the reader's words)."""
    store = seats()
    colour = None if store is None else store.removed_colour(session.get("seat"))
    if colour is None:
        return None
    return text_of(
        msg(
            "{colour} is not in the new game: the host set it up without this colour. Ask "
            "the host for the code of another seat.",
            colour=colour_word(colour),
        )
    )


def refuse(message: str, status: int = 403) -> NoReturn:
    """End the request: JSON for the APIs and streams, the 'not your seat' page else."""
    if "/api/" in request.path or request.is_json:
        abort(make_response(jsonify({"error": text_of(message)}), status))
    page = render_template("denied.html", seat=current_seat(), message=message)
    abort(make_response(page, status))


# -- cross-site requests ---------------------------------------------------------------


def check_request() -> None:
    """Refuse a state-changing request from another site, or a form without the token."""
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if origin and origin != "null":
        parts = urlsplit(origin)
        tunnel = request.environ.get("companion.tunnel_origin", "")
        seen = f"{parts.scheme}://{parts.netloc}".lower()
        if (parts.netloc or "").lower() != request.host.lower() and seen != tunnel:
            refuse("This request came from another site: open the companion's own page.")
    elif origin == "null":  # a sandboxed page or a redirect from elsewhere
        refuse("This request came from another site: open the companion's own page.")
    if request.mimetype != "application/json" and not csrf_ok(request.form.get("csrf", "")):
        refuse("This form has expired: open the page again and send it from there.")


def init_app(app: Flask) -> None:
    """The cross-site lock on every request, and ``csrf_token()`` and ``table_menu()``
    for the templates."""
    app.before_request(check_request)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["table_menu"] = table_menu


# -- the menu on every page --------------------------------------------------------------

#: The menu's entries: its key, its label, the game whose door it opens.
MENU = (
    ("maze", N_("The maze"), "mummy"),
    ("lootnrun", N_("Loot N Run"), "lootnrun"),
    ("crypt", N_("Into the Crypt"), "crypt"),
    ("host", N_("Host"), "host"),
    ("rules", N_("Rules"), ""),
)


def table_menu(here: str) -> list[dict[str, Any]]:
    """One table across the games: the same menu on every page, each entry only where
    this device may go (``companion.table.doors.may``).  ``here``: the menu key of the
    page showing it ("maze", "lootnrun", "crypt", "host", "rules"); the rules entry opens
    the rules of the game of that page.  The maze entry opens this seat's own maze page
    (its seat page), or the host page for a host without a seat."""
    seat, host = current_seat(), is_host()
    urls = {
        "maze": _seat_page(seat) if seat is not None else None,
        "lootnrun": "/lootnrun",
        "crypt": "/crypt",
        "host": "/host",
    }
    items = []
    for key, label, game in MENU:
        if key == "rules":
            rules_of = {"lootnrun": "lootnrun", "crypt": "crypt"}.get(here, "mummy")
            url: str | None = f"/rules/{rules_of}"
        elif key == "maze":
            url = urls["maze"]
        else:
            url = urls[key] if may(seat, host, game, "look") else None  # type: ignore[arg-type]
        if url is not None:
            items.append({"key": key, "label": label, "url": url, "current": key == here})
    return items


def _seat_page(seat: str) -> str:
    kind = seat_kind(seat)
    return f"/{kind}"


# -- the board -------------------------------------------------------------------------


def maze_running() -> bool:
    """A maze game the host set up holds the board and is not over."""
    games = hub()
    store = seats()
    if games is None or games.active != "mummy" or store is None or store.table is None:
        return False
    return not service().published.state.is_over


def give_board(game: str, *, pause: bool = False) -> None:
    """The host gives the board to ``game``; a running maze game needs ``pause``.

    BoardRefused (a ValueError) with the reason when it cannot; the caller checks the
    host (``need``) before.
    """
    games = hub()
    if games is None:
        raise BoardRefused("There is no board on this companion.")
    if game not in games.services:
        known = ", ".join(sorted(games.services))
        raise BoardRefused(
            "There is no game {game} here: choose one of {known}.", game=game, known=known
        )
    if not may_give_board(is_host()):
        raise BoardRefused("Only the host gives the board to another game: open the host page.")
    if game == games.active:
        return
    if maze_running() and not pause:
        name = GAME_NAMES.get(game, game)
        raise BoardRefused(
            "A maze game is on the board: giving the board to {name} pauses it. Do it on the "
            "host page, which asks first.",
            name=name,
        )
    games.activate(game)


def board_state() -> dict[str, Any]:
    """Who holds the board, for every game's page (and whether the maze waits)."""
    games = hub()
    active = games.active if games is not None else None
    paused = None
    if games is not None and active != "mummy" and "mummy" in games.services:
        paused = service().paused
    names = sorted(games.services) if games is not None else []
    maze_paused = paused is not None and maze_has_table()
    return {
        "active_game": active,
        "games": names,
        "maze_paused": maze_paused,
        "off_board": games.off_board() if games is not None else 0,
        # What each move of the board does, asked before it (``board_moves.py``).
        "moves": move_questions(
            active, names, maze_running=maze_running(), maze_paused=maze_paused
        ),
        # This run of the companion and how often the board changed hands in it: a page
        # tells an answer read before a handover from the stream's news of it (menu.js).
        "run": RUN,
        "handover": games.handovers if games is not None else 0,
    }


def maze_has_table() -> bool:
    store = seats()
    return store is not None and store.table is not None
