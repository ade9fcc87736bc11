"""The device's session cookie, and when a response may write it.

A device's seat and the host's role live in Flask's signed session cookie.  It is
``SameSite=Lax``: a link from another site (a chat message, a QR scanner app) is a
top-level navigation and carries it, so the phone arrives as itself; a form, a script
or a frame of another site sends none (and ``doors.check_request`` refuses their state
changes anyway: the ``Origin`` check and the CSRF token).

A response to a request that arrived without the cookie never sets one, unless that
request gave the device a role (``remember``: it joined a seat or became the host).  A
browser may hold a cookie it did not send (a cookie set before as ``Strict``, a link
opened where cookies are held back): a fresh session would replace its seat.  A page
served to such a request still needs a CSRF token for its form, so that token is not
kept in a session: it is signed for the address the page went to and good for an hour
(``csrf_token``/``csrf_ok``).

The cookie and that token carry the time they were signed at, and a Pi without a
real-time clock may boot to an earlier time (after a power cut with no internet,
fake-hwclock's last hourly save).  Their age is measured on a ``SteadyClock``: the wall
clock, but never earlier than the latest signing time of a valid cookie it has seen (only
this server's key signs them), so a clock that went back hours or days shuts no phone out,
and a cookie re-signed meanwhile carries no earlier time.  Once the clock is right, the
ages are the real ones and the expiry holds as before.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask, current_app, g, request, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadData, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

#: Seconds a CSRF token given without a session stays good.
ANONYMOUS_TOKEN_S = 3600
#: How far ahead of the wall clock a signing time may lie and still be believed: the
#: clock went back that far at most (Flask's cookie lifetime, 31 days). A time further
#: ahead is refused as expired.
CLOCK_BACK_S = 31 * 86400


def wall() -> float:
    """The system clock (tests shift it)."""
    return time.time()


class SteadyClock:
    """Seconds since the epoch that never go back below a time already vouched for: the
    latest signing time of a valid cookie or token (a clock that went back is behind it)."""

    def __init__(self) -> None:
        self.floor = 0

    def now(self) -> int:
        return max(int(wall()), self.floor)

    def vouch(self, signed_at: int) -> None:
        """A valid signature made at ``signed_at``: the true time is at least that."""
        if signed_at > int(wall()) + CLOCK_BACK_S:
            raise SignatureExpired(f"signed {signed_at - int(wall())} s in the future")
        self.floor = max(self.floor, signed_at)


class SteadySigner(TimestampSigner):
    """itsdangerous' timestamp signer on a ``SteadyClock``: a signing time ahead of the
    wall clock (it went back) is not refused, and the age counts from the steady time."""

    def __init__(self, *args: Any, clock: SteadyClock, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clock = clock

    def get_timestamp(self) -> int:
        return self.clock.now()

    def unsign(
        self, signed_value: str | bytes, max_age: int | None = None, return_timestamp: bool = False
    ) -> Any:
        value, signed = super().unsign(signed_value, return_timestamp=True)  # signature only
        at = int(signed.timestamp())
        self.clock.vouch(at)
        age = self.clock.now() - at
        if max_age is not None and age > max_age:
            raise SignatureExpired(f"Signature age {age} > {max_age} seconds", payload=value)
        return (value, signed) if return_timestamp else value


class GuardedSessions(SecureCookieSessionInterface):
    """Flask's signed cookie sessions that never overwrite a cookie the browser did not
    send, unless the request gave the device a seat or the host's role."""

    def __init__(self) -> None:
        self.clock = SteadyClock()

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        made = super().get_signing_serializer(app)
        if made is not None:
            made.signer = SteadySigner
            made.signer_kwargs = {**made.signer_kwargs, "clock": self.clock}
        return made

    def get_expiration_time(self, app: Flask, session: Any) -> datetime | None:
        """The cookie's Expires from the steady time (a phone's clock is right)."""
        if not session.permanent:
            return None
        now = datetime.fromtimestamp(self.clock.now(), UTC)
        return now + timedelta(seconds=app.permanent_session_lifetime.total_seconds())

    def get_cookie_secure(self, app: Flask) -> bool:
        """Secure over the tunnel to the internet (https there: ``web/remote.py``)."""
        return bool(request.environ.get("companion.tunnel")) or super().get_cookie_secure(app)

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        if arrived_with_session() or g.get("companion_session_given", False):
            super().save_session(app, session, response)


def arrived_with_session() -> bool:
    """The request carried a session cookie (valid or not)."""
    return current_app.config["SESSION_COOKIE_NAME"] in request.cookies


def remember(**values: object) -> None:
    """Keep a role in this device's cookie (a seat, the host's token): the one case in
    which a request that arrived without a cookie gets one."""
    session.permanent = True
    session.update(values)
    g.companion_session_given = True


def csrf_token() -> str:
    """The token the forms of this page carry: the session's (made on first use), or,
    for a request without a session cookie, one signed for this address."""
    if not arrived_with_session():
        return _anonymous().dumps(_address())
    return lasting("csrf", 18)


def lasting(key: str, nbytes: int) -> str:
    """A random value this session's cookie keeps under ``key`` (made on first use)."""
    found = session.get(key)
    if not isinstance(found, str):
        found = secrets.token_urlsafe(nbytes)
        session[key] = found
    return found


def csrf_ok(sent: str) -> bool:
    """Whether a form's token is this session's, or one signed for this address within
    the hour (the form of a page that was served without a cookie)."""
    own = session.get("csrf")
    if isinstance(own, str) and secrets.compare_digest(sent.encode(), own.encode()):
        return True
    try:
        address = _anonymous().loads(sent, max_age=ANONYMOUS_TOKEN_S)
    except BadData:
        return False
    return isinstance(address, str) and secrets.compare_digest(address, _address())


def _anonymous() -> URLSafeTimedSerializer:
    clock = current_app.session_interface.clock  # type: ignore[attr-defined]
    return URLSafeTimedSerializer(
        current_app.secret_key or b"",
        salt="companion-csrf",
        signer=SteadySigner,
        signer_kwargs={"clock": clock},
    )


def _address() -> str:
    return request.remote_addr or "?"


def init_app(app: Flask) -> None:
    """The cookie's attributes and the guarded session interface."""
    app.config.update(SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    app.session_interface = GuardedSessions()
