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

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, redirect, request, url_for
from flask.typing import ResponseReturnValue

from companion.i18n import N_

from .doors import refuse, seats
from .session import remember

bp = Blueprint("remote", __name__)

#: Random bytes in a remote link's token (192 bits; the issue asks for 128 at least).
TOKEN_BYTES = 24
#: The seats a host may give to a player far away.
REMOTE_SEATS = ("mummy", "watch")
#: A remote player counts as connected while a live page of theirs is open, or for this
#: long after their last request (a long poll asks again at least every 20 s).
SEEN_S = 25.0
#: The grace time before a remote player who dropped is shown as offline (host-set).
GRACE_S = 30.0

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
        self.lock = threading.Lock()
        #: How many live pages are open through the tunnel now (set by ``init_app``:
        #: the broadcaster's count of the streams and polls held as ``("tunnel",)``).
        self.streams: Callable[[], int] = lambda: 0
        #: Told when the remote seat closes (the tunnel's client is stopped).
        self.on_close: list[Callable[[RemoteSeat], object]] = []

    def open(self, seat: str, *, provider: str = "", grace_s: float = GRACE_S) -> RemoteSeat:
        """Give ``seat`` to a player far away: a new token (an old link opens nothing)."""
        if seat not in REMOTE_SEATS:
            raise ValueError(f"only the mummy's seat or a watching seat goes remote, not {seat}")
        with self.lock:
            self.current = RemoteSeat(
                seat, secrets.token_urlsafe(TOKEN_BYTES), provider=provider, grace_s=grace_s
            )
            return self.current

    def close(self) -> None:
        with self.lock:
            closed, self.current = self.current, None
        if closed is not None:
            for hook in list(self.on_close):
                hook(closed)

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
            "link": current.link,
            "connected": connected,
            "offline": not connected and (quiet is None or quiet > current.grace_s),
            "grace_s": current.grace_s,
        }


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
    remember(seat=store.join(current.seat))
    return redirect(url_for("pages.watch" if current.seat == "watch" else "pages.mummy"), 303)


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
    app.before_request(gate)
    app.register_blueprint(bp)
