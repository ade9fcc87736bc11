"""``companion remote``: the owner opens a seat to the internet with one command.

It asks the running companion on this machine, as its host: the host's cookie is made
from the install's secret key and the host token in ``seats.json`` (both readable by the
owner only), so the command opens no door of its own; it then prints the address to send,
or, when the provider's client is missing, how to install it.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from flask import Flask

from companion.tunnel.providers import PROVIDERS

from .session import init_app as sessions

#: How long to wait for the provider to print the tunnel's address.
ADDRESS_WAIT_S = 45.0


def host_cookie(directory: Path) -> str:
    """The host's session cookie of the companion whose state is in ``directory``."""
    key = (directory / "secret_key").read_bytes()
    try:
        token = json.loads((directory / "seats.json").read_text("utf-8")).get("host")
    except FileNotFoundError:
        token = None
    if not isinstance(token, str):
        raise LookupError(
            "No host yet: open the companion's page once (the first phone becomes the host)."
        )
    app = Flask(__name__)
    app.secret_key = key
    sessions(app)
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    return f"{app.config['SESSION_COOKIE_NAME']}={serializer.dumps({'host': token})}"


def _call(url: str, cookie: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Cookie": cookie, "Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def main(
    *, base: str, directory: Path, seat: str, provider: str, grace_s: float, close: bool
) -> int:
    """Open (or close) the remote seat; print what the owner needs. The exit status."""
    try:
        cookie = host_cookie(directory)
    except (LookupError, OSError) as exc:
        print(f"companion remote: {exc}")
        return 1
    api = base.rstrip("/") + "/api/host/remote"
    try:
        if close:
            _call(api + "/close", cookie, {})
            print("remote seat closed: the tunnel is down, the link opens nothing")
            return 0
        status, answer = _call(
            api, cookie, {"seat": seat, "provider": provider, "grace_s": grace_s}
        )
    except OSError as exc:
        print(f"companion remote: the companion does not answer at {base} ({exc})")
        return 1
    if status != 200:
        print(f"companion remote: {answer.get('error', status)}")
        return 1
    deadline = time.monotonic() + ADDRESS_WAIT_S
    while not answer.get("link") and answer.get("open") and time.monotonic() < deadline:
        time.sleep(0.5)
        _, answer = _call(api, cookie)
        if answer.get("problem"):
            break
    if not answer.get("link"):
        print(
            f"companion remote: no address from {PROVIDERS[provider].label} yet. "
            f"{answer.get('problem', '')} See the host page."
        )
        return 1
    print(f"remote seat open ({seat}): send this address: {answer['link']}")
    print(PROVIDERS[provider].sees)
    print("Close it on the host page or with: companion remote --close")
    return 0
