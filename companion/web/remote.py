"""The remote seat: what a tunnel to the internet may open, and how it is opened.

The host may give the mummy's seat or a watching seat to a player in another house
(``companion remote``, the host page).  A tunnel provider's client (``companion.remote``)
connects from the Pi to the provider and forwards its requests to a **separate
listener on loopback** (``TunnelListener``), never to the table's own port.  On that
listener, and only there:

- the provider's forwarding headers are believed: the client it names is the address
  every throttle keys on, the scheme is https, the host is the public one;
- only an allowlist opens (``ALLOWED``): the remote seat's page, its JSON, commands and
  live updates (``/live`` for a stream the seat may open), the rules, the static files;
  never the host, ``/sim``, ``/check``, a game's record, another seat or a join code;
- the remote link ``/r/<token>`` (``TOKEN_BYTES`` random bytes, 192 bits) is the only
  way in: it seats the device; a seat's short code opens nothing there;
- the cookie is ``Secure``, and a state change must come from the tunnel's own origin.

Nothing opens through the tunnel while no remote seat is open (503).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, jsonify, redirect, request, url_for
from flask.typing import ResponseReturnValue

from companion.i18n import N_, word
from companion.pi.atomic import write_atomically
from companion.tunnel.providers import PROVIDERS, NotInstalled, TunnelClient

from .context import computer_seat, seat_computer
from .contract import NUMBER, body, endpoint, obj, one_of
from .doors import cross, device_id, need, refuse, seats
from .session import remember

bp = Blueprint("remote", __name__)
log = logging.getLogger(__name__)

#: Random bytes in a remote link's token (192 bits; the issue asks for 128 at least).
TOKEN_BYTES = 24
#: The seats a host may give to a player far away.
REMOTE_SEATS = ("mummy", "watch")
#: A remote player counts as connected while a live page of theirs is open (a stream, or a
#: long poll waiting: both are held as ``TUNNEL_HOLD``), or for this long after their last
#: request (the moment between a poll's answer and the next one).
SEEN_S = 3.0
#: The grace time before a remote player who dropped is shown as offline (host-set).
GRACE_S = 30.0
#: After the game's end the tunnel stays this long, so the far page shows the end.
END_LINGER_S = 30.0

#: Endpoints open through the tunnel, by remote seat (``*`` for every seat).
ALLOWED: dict[str, frozenset[str]] = {
    "*": frozenset(
        {
            "remote.join",
            "pages.leave",
            "live.live",
            "static",
            "language.script",
            "favicon.icon",
            "rules.page",
        }
    ),
    "mummy": frozenset(
        {
            "pages.mummy",
            "play_api.mummy_state",
            "play_api.mummy_command",
            "play_api.mummy_takeback",
            "play_api.mummy_stream",
        }
    ),
    "watch": frozenset({"pages.watch", "play_api.watch_state", "play_api.watch_stream"}),
}
#: What every live page open through the tunnel counts against (``web/stream.py``).
TUNNEL_HOLD = ("tunnel",)
#: The provider's header that names its client, believed on the tunnel's listener only
#: (the last ``X-Forwarded-For`` entry is the one the provider added itself).
CLIENT_HEADERS = {"cloudflare": "Cf-Connecting-Ip", "tailscale": "X-Forwarded-For"}


@dataclass
class RemoteSeat:
    """One seat given to a player far away."""

    seat: str
    token: str
    provider: str = ""
    #: The tunnel's public address (``https://….trycloudflare.com``), once known.
    public_url: str = ""
    grace_s: float = GRACE_S
    opened: float = field(default_factory=time.monotonic)
    #: When a request of the remote player last came through (monotonic), if ever.
    last_seen: float | None = None
    #: The device the remote link seated (a playing seat: taken back when it loses it).
    device: str = ""
    #: The provider's client on this machine, when the companion started one.
    client: TunnelClient | None = None
    #: Why the tunnel is not up (the provider's client is missing or ended), in words.
    problem: str = ""

    @property
    def link(self) -> str:
        """The address to send the remote player."""
        return f"{self.public_url.rstrip('/')}/r/{self.token}" if self.public_url else ""

    @property
    def origin(self) -> str:
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}".lower() if parts.netloc else ""


class Remote:
    """The remote seat of this companion (at most one), shared by both listeners."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.current: RemoteSeat | None = None
        #: The tunnel's listener's port (``companion run``; 0: none, no client is started).
        self.port = 0
        #: Looks up a provider's client program (tests give their own ``PATH``).
        self.which: Callable[[str], str | None] | None = None
        self._end_timer: threading.Timer | None = None
        self.lock = threading.Lock()
        #: How many live pages are open through the tunnel now (set by ``init_app``:
        #: the broadcaster's count of the streams and polls held as ``("tunnel",)``).
        self.streams: Callable[[], int] = lambda: 0
        #: Told when the remote seat closes (the tunnel's client is stopped).
        self.on_close: list[Callable[[RemoteSeat], object]] = []
        #: Where the open seat is kept across a restart (``remote.json`` beside the
        #: journal), or None (a journal in memory: nothing kept).
        self.kept: Path | None = None

    def open(self, seat: str, *, provider: str = "", grace_s: float = GRACE_S) -> RemoteSeat:
        """Give ``seat`` to a player far away: a new token (an old link opens nothing),
        and the provider's client started when this companion has a tunnel listener
        (``NotInstalled`` with the words to install it when it is missing)."""
        if seat not in REMOTE_SEATS:
            raise ValueError(f"only the mummy's seat or a watching seat goes remote, not {seat}")
        self.close()
        opened = RemoteSeat(
            seat, secrets.token_urlsafe(TOKEN_BYTES), provider=provider, grace_s=grace_s
        )
        with self.lock:
            self.current = opened
        try:
            self.start_client()
        except BaseException:
            self.close()
            raise
        self.keep()
        return opened

    def start_client(self) -> None:
        """Start the provider's client for the open seat, when this companion has a
        tunnel listener (``companion run``) and none runs yet (``NotInstalled``, with the
        words to install it, when it is missing)."""
        opened = self.current
        if opened is None or not self.port or not opened.provider or opened.client is not None:
            return
        chosen = PROVIDERS[opened.provider]
        kw = {} if self.which is None else {"which": self.which}

        def address(url: str) -> None:
            opened.public_url = url
            self.keep()

        def ended(code: int) -> None:
            opened.problem = f"{chosen.label} ended (exit {code}): open the seat again."

        opened.client = TunnelClient(chosen, self.port, on_address=address, on_exit=ended, **kw)

    def keep(self) -> None:
        """Write the open seat beside the journal, so that a restart of the companion
        reopens it with the same link (owner-only: the link is the way in)."""
        current, kept = self.current, self.kept
        if kept is None:
            return
        if current is None:
            kept.unlink(missing_ok=True)
            return
        saved = {
            "seat": current.seat,
            "token": current.token,
            "provider": current.provider,
            "public_url": current.public_url,
            "grace_s": current.grace_s,
            "device": current.device,
            "seen": current.last_seen is not None,
        }
        try:
            write_atomically(kept, json.dumps(saved), mode=0o600)
        except OSError:
            log.warning("the remote seat could not be kept for a restart", exc_info=True)

    def restore(self, kept: Path) -> None:
        """Reopen the seat a stopped companion had open (``keep``); a file that cannot
        be read is set aside with a warning, and no seat is open."""
        self.kept = kept
        if not kept.exists():
            return
        try:
            saved = json.loads(kept.read_text(encoding="utf-8"))
            seat = RemoteSeat(
                str(saved["seat"]),
                str(saved["token"]),
                provider=str(saved.get("provider", "")),
                public_url=str(saved.get("public_url", "")),
                grace_s=float(saved.get("grace_s", GRACE_S)),
                device=str(saved.get("device", "")),
            )
            if seat.seat not in REMOTE_SEATS or len(seat.token) < TOKEN_BYTES:
                raise ValueError(f"not a remote seat: {seat.seat!r}")
            if seat.provider and seat.provider not in PROVIDERS:
                raise ValueError(f"not a tunnel provider: {seat.provider!r}")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the remote seat kept in %s is not readable (%s): closed", kept, exc)
            kept.unlink(missing_ok=True)
            return
        if saved.get("seen"):
            # She dropped with the restart: not connected, and the grace time runs.
            seat.last_seen = self.clock() - SEEN_S
        with self.lock:
            self.current = seat

    def close(self) -> None:
        """Close the remote seat: the provider's client ends, the link opens nothing."""
        with self.lock:
            closed, self.current = self.current, None
            timer, self._end_timer = self._end_timer, None
        if timer is not None:
            timer.cancel()
        if closed is not None:
            self.keep()
            if closed.client is not None:
                closed.client.stop()
            for hook in list(self.on_close):
                hook(closed)

    def stop(self) -> None:
        """The companion stops: the provider's client ends, the seat is kept for the
        restart (``close`` forgets it)."""
        current = self.current
        if current is not None and current.client is not None:
            current.client.stop()
            current.client = None

    def game_over(self, over: bool) -> None:
        """The game ended: the tunnel closes ``END_LINGER_S`` later (the far page shows
        the end first); a new game before then keeps it."""
        with self.lock:
            if self.current is None or over == (self._end_timer is not None):
                return
            if not over:
                timer, self._end_timer = self._end_timer, None
                if timer is not None:
                    timer.cancel()
                return
            self._end_timer = threading.Timer(END_LINGER_S, self.close)
            self._end_timer.daemon = True
            self._end_timer.start()

    def taken_back(self, held_by: Callable[[str], str | None]) -> bool:
        """Close the remote seat when its device no longer holds it (the seat was joined
        at the table again); whether it closed."""
        current = self.current
        if current is None or not current.device or current.seat == "watch":
            return False
        if held_by(current.seat) == current.device:
            return False
        self.close()
        return True

    def seen(self) -> None:
        with self.lock:
            if self.current is not None:
                self.current.last_seen = self.clock()

    def connected(self) -> bool:
        """A remote player's page is live now (a stream open, or a poll within ``SEEN_S``)."""
        current = self.current
        if current is None:
            return False
        if self.streams() > 0:
            return True
        return current.last_seen is not None and self.clock() - current.last_seen < SEEN_S

    def presence(self) -> str | None:
        """Where the mummy's player far away is, as every page of the table may know it:
        ``waiting`` (the link not opened yet), ``here``, ``away`` (dropped, within the
        grace time) or ``offline``; None when the mummy's seat is not remote."""
        current = self.current
        if current is None or current.seat != "mummy":
            return None
        if self.connected():
            return "here"
        if current.last_seen is None:
            return "waiting"
        return "offline" if self.clock() - current.last_seen > current.grace_s else "away"

    def status(self) -> dict[str, Any]:
        """For the host page: whether a remote seat is open, its link, who is connected."""
        current = self.current
        if current is None:
            return {"open": False}
        connected = self.connected()
        quiet = None if current.last_seen is None else self.clock() - current.last_seen
        return {
            "open": True,
            "seat": current.seat,
            "provider": current.provider,
            "sees": PROVIDERS[current.provider].sees if current.provider in PROVIDERS else "",
            "problem": current.problem,
            "link": current.link,
            "connected": connected,
            "seen": current.last_seen is not None,
            "offline": not connected and (quiet is None or quiet > current.grace_s),
            "grace_s": current.grace_s,
        }


#: What every seat's page says of the mummy's player far away, by ``Remote.presence``.
PRESENCE_WORDS = {
    "waiting": N_("The mummy plays from afar and has not opened the link yet. The game waits."),
    "here": N_("The mummy plays from afar and is connected."),
    "away": N_("The mummy's player far away dropped out: the game waits."),
    "offline": N_("The mummy's player far away is offline. The game waits; nothing is forfeited."),
}


STANDING_IN = N_("The computer stands in for the mummy until the host hands the seat back.")


def presence_payload(state: str | None, standin: bool = False) -> dict[str, Any] | None:
    """The ``remote`` part of every seat's payload (``Remote.presence``), in words, and
    whether the computer stands in for the mummy's player (the host's choice)."""
    if standin:
        return {"state": state or "here", "standin": True, "text": word(STANDING_IN)}
    if state is None:
        return None
    return {"state": state, "standin": False, "text": word(PRESENCE_WORDS[state])}


def remote() -> Remote:
    made: Remote | None = current_app.extensions.get("companion.remote")
    if made is None:
        made = current_app.extensions["companion.remote"] = Remote()
    return made


def on_tunnel() -> bool:
    """This request came through the tunnel's listener."""
    return bool(request.environ.get("companion.tunnel"))


def allowed(endpoint: str | None, seat: str) -> bool:
    return endpoint is not None and (endpoint in ALLOWED["*"] or endpoint in ALLOWED[seat])


def gate() -> None:
    """Before every request: the tunnel's listener opens only the remote seat's doors."""
    if not on_tunnel():
        return
    current = remote().current
    if current is None:
        refuse(N_("No seat of this table is open to the internet now: ask the host."), 503)
    if not allowed(request.endpoint, current.seat):
        refuse(N_("This page is not open to the internet."), 404)
    request.environ["companion.tunnel_origin"] = current.origin  # CSRF: doors.check_request
    if request.endpoint == "live.live":
        from .live import stream_view  # the stream asked for must be an allowed door too

        data = request.get_json(silent=True)
        path = data.get("stream") if isinstance(data, dict) else None
        if isinstance(path, str):
            view, _ = stream_view(path)
            name = next((k for k, v in current_app.view_functions.items() if v is view), None)
            if not allowed(name, current.seat):
                refuse(N_("This page is not open to the internet."), 404)
    remote().seen()


@bp.get("/r/<token>")
def join(token: str) -> ResponseReturnValue:
    """The remote link: seats the device in the remote seat (the tunnel's listener only)."""
    current = remote().current
    if not on_tunnel() or current is None:
        abort(404)
    if not secrets.compare_digest(token.encode(), current.token.encode()):
        store = seats()
        who = request.remote_addr or "?"
        if store is not None:
            store.code_guesses.failed(who, time.monotonic())
        refuse(N_("This remote link is not open any more: ask the host for a new one."), 403)
    store = seats()
    if store is None or store.table is None:
        refuse(N_("No game is set up yet: ask the host."), 403)
    if store.code_guesses.locked(request.remote_addr or "?", time.monotonic()):
        refuse(N_("Too many wrong codes from this device: wait half a minute and try again."), 429)
    if current.seat == "mummy":  # one game's secrets on one device (doors.cross)
        cross("mummy")
    cookie = store.join(current.seat, device_id())
    current.device = str(cookie.get("d", ""))
    remote().keep()  # a restart keeps the device on the seat
    remember(seat=cookie)
    return redirect(url_for("pages.watch" if current.seat == "watch" else "pages.mummy"), 303)


# -- the host's control ------------------------------------------------------------------

STANDIN = obj({"level": one_of("", "easy", "normal", "hard")})

OPEN_REMOTE = obj(
    {"seat": one_of(*REMOTE_SEATS), "provider": one_of(*PROVIDERS)},
    {"grace_s": {**NUMBER, "minimum": 0, "maximum": 3600}},
)


def _held_by(seat: str) -> str | None:
    store = seats()
    table = None if store is None else store.table
    return None if table is None else table.devices.get(seat)


def host_view() -> dict[str, Any]:
    """The remote seat as the host page shows it (closed first if it was taken back),
    and the computer's level while it stands in for the mummy's player."""
    made = remote()
    made.taken_back(_held_by)
    store = seats()
    table = None if store is None else store.table
    return {**made.status(), "standin": table.standin if table is not None else ""}


@bp.get("/api/host/remote")
@endpoint("The remote seat: open or not, its link, whether its player is connected.")
def remote_status() -> ResponseReturnValue:
    need("host", "look")
    return jsonify(host_view())


@bp.post("/api/host/remote")
@endpoint(
    "Open a seat to the internet through a tunnel provider (a new link each time).",
    body=OPEN_REMOTE,
    errors=(400, 403, 409),
)
def remote_open() -> ResponseReturnValue:
    need("host", "act")
    data = body()
    store = seats()
    if store is None or store.table is None:
        refuse(N_("No game is set up yet: ask the host."), 409)
    try:
        remote().open(data["seat"], provider=data["provider"], grace_s=data.get("grace_s", GRACE_S))
    except NotInstalled as exc:
        return jsonify({"error": str(exc), **remote().status()}), 409
    return jsonify(host_view())


@bp.post("/api/host/remote/close")
@endpoint("Close the remote seat: the tunnel ends, its link opens nothing.", errors=(403,))
def remote_close() -> ResponseReturnValue:
    need("host", "act")
    remote().close()
    return jsonify(host_view())


@bp.post("/api/host/remote/standin")
@endpoint(
    "Let the computer mummy stand in for the mummy's player (a level) until the host "
    'hands the seat back (""); the game goes on from where it stands.',
    body=STANDIN,
    errors=(400, 403, 409, 507),
)
def remote_standin() -> ResponseReturnValue:
    need("host", "act")
    level: str = body()["level"]
    store = seats()
    table = None if store is None else store.table
    if store is None or table is None:
        refuse(N_("No game is set up yet: ask the host."), 409)
    if table.options.computer:
        refuse(N_("The computer plays the mummy in this game already."), 409)
    changed = table.copy()
    changed.standin = level
    store.put(table=changed)  # on the card first (a restart keeps it), then in use
    seat_computer(computer_seat(), changed)
    return jsonify(host_view())


class TunnelListener:
    """The WSGI app of the tunnel's loopback listener: the provider's forwarding
    headers believed (here only), every request marked as come through the tunnel."""

    def __init__(self, app: Any, provider_header: Callable[[], str | None]) -> None:
        self.app = app
        self.provider_header = provider_header

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ["companion.tunnel"] = True
        header = self.provider_header()
        client = ""
        if header is not None:
            value = environ.get("HTTP_" + header.upper().replace("-", "_"), "")
            client = value.split(",")[-1].strip()
        environ["REMOTE_ADDR"] = client or "tunnel"
        environ["wsgi.url_scheme"] = "https"
        forwarded_host = environ.get("HTTP_X_FORWARDED_HOST", "").split(",")[-1].strip()
        if forwarded_host:
            environ["HTTP_HOST"] = forwarded_host
        return self.app(environ, start_response)


def listener_app(app: Flask) -> TunnelListener:
    """The tunnel's listener for ``app``, believing the header of the open seat's provider."""
    gates = app.extensions.setdefault("companion.remote", Remote())

    def header() -> str | None:
        current = gates.current
        return None if current is None else CLIENT_HEADERS.get(current.provider)

    return TunnelListener(app.wsgi_app, header)


def init_app(app: Flask) -> None:
    """The gate before every other check, the remote link's route."""
    made: Remote = app.extensions.setdefault("companion.remote", Remote())

    def streams() -> int:
        live = app.extensions.get("companion.broadcaster")
        return 0 if live is None else int(live.held(TUNNEL_HOLD))

    made.streams = streams
    service = app.extensions["companion.service"]
    journal_path = str(service.journal.path)
    if journal_path != ":memory:" and made.kept is None:
        made.restore(Path(journal_path).parent / "remote.json")
    service.on_publish(lambda: made.game_over(service.published.state.is_over))
    app.before_request(gate)
    app.context_processor(lambda: {"far": on_tunnel()})  # its pages send commands twice
    app.register_blueprint(bp)
