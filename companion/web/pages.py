"""The mummy game's pages: joining, the host page and the mummy, seeker and table pages.

Each page is a short HTML shell; its script reads the seat's JSON from ``/api`` and
re-renders from the live stream.  ``init_app`` sets up the seats (host, codes, PIN),
logs the host PIN and registers the pages and the API.
"""

from __future__ import annotations

import logging
import time
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import segno
import segno.helpers
from flask import (
    Blueprint,
    Flask,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from companion.i18n import N_, Msg
from companion.service.player_names import NameRefused, checked_name, named_seats
from companion.service.registry import GAME_NAMES
from companion.service.startup import addresses
from companion.table.doors import may_show_private, seeker_index
from companion.table.seats import WATCH, Seats, normalise_code

from . import doors, mummy_api, private_view, shared_phone
from .context import seat_computer, service
from .doors import current_seat, is_host
from .mummy_api import host_status, past_games, seat_name, seats
from .payloads import seeker_names
from .session import remember
from .statistics import names as player_names

log = logging.getLogger(__name__)

bp = Blueprint("pages", __name__)

#: The page of each kind of seat.
SEAT_PAGES = {"mummy": "pages.mummy", "seeker": "pages.seeker", "table": "pages.table"}


def init_app(app: Flask) -> None:
    """Seats from ``seats.json`` beside the journal, the host PIN in the log, the routes."""
    svc = app.extensions["companion.service"]
    journal_path = str(svc.journal.path)
    path = None if journal_path == ":memory:" else Path(journal_path).parent / "seats.json"
    store = Seats(path, pin=app.config.get("COMPANION_HOST_PIN"))
    store.forget_table_unless(svc.published.game_id)
    if store.table is not None:
        svc.hints = store.table.options.hints
        svc.physical_dice = store.table.options.dice == "physical"
        appliance = app.extensions.get("companion.appliance")
        seat_computer(getattr(appliance, "computer", None), store.table)
    app.extensions["companion.seats"] = store
    app.register_blueprint(bp)
    app.register_blueprint(mummy_api.bp)
    app.register_blueprint(private_view.bp)
    log.info(
        "host PIN %s: the first device to open the companion becomes the host; "
        "another one needs this PIN",
        store.pin,
    )


# -- joining -------------------------------------------------------------------------------


@bp.get("/")
def home() -> ResponseReturnValue:
    """Straight to this device's page; the very first device becomes the host."""
    shared_phone.settle()
    seat = current_seat()
    if seat is not None:
        return redirect(_seat_url(seat))
    if is_host():
        return redirect(url_for("pages.host"))
    token = seats().claim_host()
    if token is not None:
        remember(host=token)
        return redirect(url_for("pages.host"))
    return render_template("landing.html", error=_shut_out())


@bp.post("/")
def join_by_form() -> ResponseReturnValue:
    """A typed code (the form carries the CSRF token: another site cannot post it)."""
    return _join(request.form.get("code", ""), takeover=request.form.get("takeover") == "1")


@bp.get("/join/<code>")
def join(code: str) -> ResponseReturnValue:
    """A seat's link (its QR code): asks before it joins (a link from another site must
    not change this device's seat)."""
    store = seats()
    seat, error, status = _seat_for(code)
    if seat is None:
        return render_template("landing.html", error=error), status
    taken = store.held_elsewhere(seat, session.get("seat")) and seat not in shared_phone.held()
    return _join_form(code, seat, taken=taken)


def _join_form(
    code: str,
    seat: str,
    *,
    taken: bool,
    player: str | None = None,
    error: Msg | None = None,
    add: bool = False,
) -> str:
    """The page that asks before a device joins ``seat`` (and takes its player's name);
    a phone showing another seeker may also keep that one (pass the phone)."""
    names = seeker_names(service().published.state.setup)
    shown = current_seat()
    return render_template(
        "join.html",
        code=normalise_code(code),
        name=seat_name(seat, names),
        shown=seat_name(shown, names) if shown is not None else None,
        may_add=shared_phone.may_add(seat),
        add=add,
        taken=taken,
        named=seat in named_seats(len(names)),
        player_name=player or session.get("player_name", ""),
        name_error=error,
    )


@bp.post("/join/<code>")
def join_confirmed(code: str) -> ResponseReturnValue:
    return _join(code, takeover=request.form.get("takeover") == "1")


@bp.post("/leave")
def leave() -> ResponseReturnValue:
    """Give up this device's seat (to join another one): on the server too, so a copy
    of the cookie taken before no longer opens it."""
    seats().leave(session.get("seat"))
    session.pop("seat", None)
    shared_phone.settle()  # a phone passed around goes on with its other seeker
    return redirect(url_for("pages.home"), code=303)


def _shut_out() -> str | None:
    """Why this device lost its seat: opened on another phone, or its colour left out of
    the new game."""
    if seats().taken_over(session.get("seat")):
        return N_("This seat was opened on another phone. Enter a code to join again.")
    return doors.colour_removed()


def _seat_for(code: str) -> tuple[str | None, str | None, int]:
    """The seat of a code, or the error to show (a wrong code counts for this address)."""
    store = seats()
    who = request.remote_addr or "?"
    now = time.monotonic()
    if store.code_guesses.locked(who, now):
        return (
            None,
            N_("Too many wrong codes from this device: wait half a minute and try again."),
            429,
        )
    table = store.table
    seat = table.seat_for_code(code) if table is not None else None
    if seat is None:
        if table is None:
            return None, N_("No game is set up yet: ask the host."), 403
        store.code_guesses.failed(who, now)
        return (
            None,
            N_("That code is not one of this game's: ask the host for your seat's code."),
            403,
        )
    return seat, None, 200


def _join(code: str, *, takeover: bool) -> ResponseReturnValue:
    store = seats()
    seat, error, status = _seat_for(code)
    if seat is None:
        return render_template("landing.html", error=error), status
    names = seeker_names(service().published.state.setup)
    player = request.form.get("player_name", "").strip()
    try:
        player = checked_name(player) if player and seat in named_seats(len(names)) else ""
    except NameRefused as exc:  # nothing joined: the same form again, saying why
        return _join_form(code, seat, taken=takeover, player=player, error=exc.message), 400
    add = request.form.get("add") == "1" and shared_phone.may_add(seat)
    if seat in (
        s for s, _ in shared_phone.others()
    ):  # this phone holds it already: show it (behind the cover)
        shared_phone.switch(seat)
        return render_template("joined.html", url=_seat_url(seat), name=seat_name(seat, names))
    if store.held_elsewhere(seat, session.get("seat")) and not takeover:
        return _join_form(code, seat, taken=True, player=player, add=add)
    if store.seat_of(session.get("seat")) != seat:  # one game's secrets on one device
        if seat == "mummy":
            doors.cross("mummy")
        elif seat == "table" or seat.startswith("seeker"):
            doors.cross("figures")
    if add:  # pass the phone: the seeker shown now stays on this phone too
        shared_phone.keep_shown()
    else:
        # The seats this device held are given up on the server, so their pages and
        # streams still open in other tabs end: a seeker's must not go on to the mummy's
        # phone.
        shared_phone.give_up_others()
        if store.seat_of(session.get("seat")) not in (None, seat):
            store.leave(session.get("seat"))
    remember(seat=store.join(seat, doors.device_id()))
    if player:  # the statistics follow the name (kept beside the journal, never in it)
        try:
            player_names().name_seat(service().published.game_id, seat, player)
            session["player_name"] = player
        except NameRefused:
            log.exception("a player's name could not be kept")  # the seat is joined all the same
    return render_template("joined.html", url=_seat_url(seat), name=seat_name(seat, names))


def _seat_url(seat: str) -> str:
    if seat == WATCH:
        return url_for("pages.watch")
    kind = "seeker" if seat.startswith("seeker") else seat
    return url_for(SEAT_PAGES[kind])


# -- the host ------------------------------------------------------------------------------


@bp.get("/host")
def host() -> ResponseReturnValue:
    if not is_host():
        token = seats().claim_host()
        if token is None:
            return render_template("pin.html", error=None), 403
        remember(host=token)
    status = host_status()
    urls = join_urls()
    table = status["table"]
    qr = {}
    if table is not None:
        for seat in table["seats"]:
            if seat["code"] is not None:  # the mummy's, once joined, only when asked again
                qr[seat["seat"]] = qr_svg(f"{urls[0]}join/{seat['code']}")
    return render_template(
        "host.html",
        status=status,
        addresses=urls,
        address_qr=qr_svg(urls[0]),
        wifi=(wifi := current_app.config.get("WIFI_JOIN")),
        wifi_qr=qr_svg(wifi_data(wifi.ssid, wifi.password)) if wifi else None,
        seat_qr=qr,
        seat=current_seat(),
        colours=("red", "turquoise", "blue", "violet"),
        game_names=GAME_NAMES,
        private_seats=private_seats(),
    )


@bp.get("/host/games")
def past() -> ResponseReturnValue:
    """The host's past games: each ended maze game's summary, newest first."""
    doors.need("host", "act")
    return render_template("games.html", games=past_games(service().journal))


@bp.post("/host")
def host_pin() -> ResponseReturnValue:
    store = seats()
    now = time.monotonic()
    who = request.remote_addr or "?"
    token = store.host_by_pin(request.form.get("pin", ""), who, now)
    if token is None:
        error = (
            N_("Too many wrong PINs from this device: wait half a minute.")
            if store.pin_locked(who, now)
            else N_("That is not the PIN: it is in the companion's log.")
        )
        return render_template("pin.html", error=error), 403
    remember(host=token)
    return redirect(url_for("pages.host"), code=303)


def join_urls() -> list[str]:
    """The addresses phones should open, the best for a QR code first (an IP address:
    phones do not all resolve ``.local`` names).

    Only the companion's own addresses (``addresses``: its name and its interfaces'
    IPs, on the port it listens on), never the request's ``Host:`` header, which any
    phone may spoof; the address this device used comes first when it is one of them.
    """
    port = int(request.environ.get("SERVER_PORT") or 80)
    urls = addresses(port)
    here = request.host_url
    if here in urls:
        urls = [here, *(u for u in urls if u != here)]
    by_ip = [u for u in urls if (urlsplit(u).hostname or "").replace(".", "").isdigit()]
    return [*by_ip, *(u for u in urls if u not in by_ip)]


def wifi_data(ssid: str, password: str) -> str:
    """What a phone's camera reads to join a WPA network (``WIFI:`` with escapes)."""
    return str(segno.helpers.make_wifi_data(ssid=ssid, password=password, security="WPA"))


@lru_cache(maxsize=64)
def qr_svg(url: str) -> Markup:
    """An inline SVG QR code of ``url`` (made here: the phones have no internet)."""
    svg = segno.make(url, error="m").svg_inline(
        scale=4, border=2, dark="#000", light="#fff", omitsize=True
    )
    return Markup(svg)


# -- the seats' pages ----------------------------------------------------------------------


@bp.get("/mummy")
def mummy() -> ResponseReturnValue:
    return _seat_page("mummy", "mummy.html")


@bp.get("/seeker")
def seeker() -> ResponseReturnValue:
    """A seeker's page; on a phone passed around (it holds several seekers) it opens
    behind a cover for the seeker ``?cover=`` names, or the one shown."""
    shared_phone.settle()
    seat = doors.need("mummy", "look", "seeker")
    assert seat is not None
    names = seeker_names(service().published.state.setup)
    phone = shared_phone.held()
    if len(phone) < 2:
        return render_template(
            "seeker.html", seat=seat, title=seat_name(seat, names), host=is_host()
        )
    wanted = request.args.get("cover", "")
    cover = wanted if wanted in phone else seat
    return render_template(
        "seeker.html",
        seat=seat,
        title=seat_name(cover, names),
        host=is_host(),
        cover={"seat": cover, "name": names[seeker_index(cover)]},
        phone=[
            {"seat": s, "index": seeker_index(s), "name": names[seeker_index(s)]} for s in phone
        ],
    )


@bp.get("/table")
def table() -> ResponseReturnValue:
    return _seat_page("table", "table.html", private_seats=private_seats())


def private_seats() -> list[dict[str, object]]:
    """The seekers this device may show a covered private view of (``private_view``)."""
    store = seats()
    if store.table is None or not may_show_private(current_seat(), is_host()):
        return []
    names = seeker_names(service().published.state.setup)
    return [{"seat": f"seeker{i}", "name": name} for i, name in enumerate(names)]


@bp.get("/watch")
def watch() -> ResponseReturnValue:
    """The watching seat's page (a spectator, a second screen): the maze as every player
    may know it, or the game that holds the board."""
    return _seat_page("watch", "watch.html")


def _seat_page(kind: str, template: str, **more: object) -> ResponseReturnValue:
    seat = doors.need("mummy", "look", kind)
    assert seat is not None
    names = seeker_names(service().published.state.setup)
    return render_template(
        template, seat=seat, title=seat_name(seat, names), host=is_host(), **more
    )
