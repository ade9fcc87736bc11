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
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Flask, current_app, g, request, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadData, URLSafeTimedSerializer

#: Seconds a CSRF token given without a session stays good.
ANONYMOUS_TOKEN_S = 3600


class GuardedSessions(SecureCookieSessionInterface):
    """Flask's signed cookie sessions that never overwrite a cookie the browser did not
    send, unless the request gave the device a seat or the host's role."""

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
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(18)
        session["csrf"] = token
    return token


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
    return URLSafeTimedSerializer(current_app.secret_key or b"", salt="companion-csrf")


def _address() -> str:
    return request.remote_addr or "?"


def init_app(app: Flask) -> None:
    """The cookie's attributes and the guarded session interface."""
    app.config.update(SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    app.session_interface = GuardedSessions()
