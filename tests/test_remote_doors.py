"""The remote seat's doors, knocked on from outside through the tunnel's listener (the
WSGI app the provider's client connects to, with the headers the provider adds): only the
remote seat's pages, JSON, live updates and the rules open; the link's long token is the
only way in; the cookie is Secure; a state change must come from the tunnel's origin;
throttles key on the client the provider names, and that header counts nowhere else."""

from __future__ import annotations

import re
from typing import Any

import pytest
from werkzeug.test import Client

from companion.table.seats import CODE_TRIES
from companion.web.remote import ALLOWED, TOKEN_BYTES, listener_app
from tests.test_pages import Table

PUBLIC = "https://seat-far-away.trycloudflare.com"


class Far:
    """A phone in another house, through the provider (its address named by the provider)."""

    def __init__(self, table: Table, address: str = "203.0.113.7") -> None:
        self.client = Client(listener_app(table.app))
        self.address = address

    def open(self, path: str, method: str = "GET", **kw: Any) -> Any:
        headers = {
            "Cf-Connecting-Ip": self.address,
            "X-Forwarded-For": self.address,
            "X-Forwarded-Proto": "https",
            **kw.pop("headers", {}),
        }
        return self.client.open(path, method=method, base_url=PUBLIC, headers=headers, **kw)

    def post(self, path: str, json: Any, origin: str = PUBLIC) -> Any:
        return self.open(path, "POST", json=json, headers={"Origin": origin})


def open_remote(table: Table, seat: str = "mummy") -> Any:
    remote = table.app.extensions["companion.remote"]
    opened = remote.open(seat, provider="cloudflare")
    opened.public_url = PUBLIC
    return opened


def routes(table: Table) -> list[tuple[str, str, str]]:
    """Every route of the app: its endpoint, method and a concrete path."""
    found = []
    for rule in table.app.url_map.iter_rules():
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: "1" if "id" in m[1] else "ABCDEF", rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((rule.endpoint, method, path))
    return found


def test_nothing_opens_through_the_tunnel_while_no_seat_is_remote(table):
    table.new_game(["red", "blue"])
    far = Far(table)
    for _, method, path in routes(table):
        res = far.open(path, method, json={} if method == "POST" else None)
        assert res.status_code == 503, (method, path, res.status_code)


@pytest.mark.parametrize("seat", ["mummy", "watch"])
def test_only_the_remote_seats_doors_open_through_the_tunnel(table, seat):
    table.new_game(["red", "blue"])
    opened = open_remote(table, seat)
    far = Far(table)
    joined = far.open(f"/r/{opened.token}")
    assert joined.status_code == 303 and joined.location.endswith(f"/{seat}")
    # Every door outside the allowlist, for the remote seat's own device: not there.
    for endpoint, method, path in routes(table):
        if endpoint in ALLOWED["*"] or endpoint in ALLOWED[seat]:
            continue
        res = far.open(path, method, json={} if method == "POST" else None)
        assert res.status_code == 404, (method, path, res.status_code)
    for path in (f"/{seat}", f"/api/{seat}/state", "/rules/mummy"):
        assert far.open(path).status_code == 200, path
    # /live opens only the remote seat's own stream.
    for other in ("/api/host/stream", "/api/seeker/stream", "/api/table/stream", "/sim/api/stream"):
        res = far.post("/live", {"stream": other, "mode": "poll"})
        assert res.status_code == 404, other
    first = far.post("/live", {"stream": f"/api/{seat}/stream", "mode": "poll"})
    assert first.status_code == 200 and first.headers["X-Live-Cursor"]
    assert b"seeker_positions" not in first.data and b'"hand"' not in first.data


def test_the_seats_short_code_never_opens_a_remote_seat(table):
    table.new_game(["red", "blue"])
    open_remote(table)
    far = Far(table)
    for code in table.codes.values():
        assert far.open(f"/join/{code}").status_code == 404
        assert far.open("/", "POST", data={"code": code}).status_code == 404
    assert far.open("/mummy").status_code == 403  # no seat: the page says so


def test_the_remote_link_is_long_random_and_only_the_current_one_opens(table):
    table.new_game(["red", "blue"])
    first = open_remote(table)
    assert len(first.token) >= 128 // 6 and TOKEN_BYTES * 8 >= 128
    again = open_remote(table)  # opened anew: the old link opens nothing
    assert again.token != first.token
    far = Far(table)
    assert far.open(f"/r/{first.token}").status_code == 403
    assert far.open(f"/r/{again.token}").status_code == 303
    # The local listener knows no remote link at all.
    assert table.app.test_client().get(f"/r/{again.token}").status_code == 404


def test_wrong_links_are_throttled_for_the_client_the_provider_names(table):
    table.new_game(["red", "blue"])
    opened = open_remote(table)
    guesser, friend = Far(table, "198.51.100.9"), Far(table, "203.0.113.7")
    for _ in range(CODE_TRIES):
        assert guesser.open("/r/wrong-token-guess").status_code == 403
    assert guesser.open(f"/r/{opened.token}").status_code == 429
    # The friend comes through the same provider client (127.0.0.1) and is not held up.
    assert friend.open(f"/r/{opened.token}").status_code == 303
    # On the table's own listener the provider's header means nothing: a local guesser
    # cannot make itself look like someone else, nor lock a remote address out.
    local = table.app.test_client()
    for _ in range(CODE_TRIES):
        local.get("/join/WRONG1", headers={"Cf-Connecting-Ip": "203.0.113.50"})
    assert local.get(f"/join/{table.codes['seeker0']}").status_code == 429
    assert Far(table, "203.0.113.50").open(f"/r/{opened.token}").status_code == 303


def test_the_cookie_is_secure_over_the_tunnel_only(table):
    table.new_game(["red", "blue"])
    opened = open_remote(table)
    res = Far(table).open(f"/r/{opened.token}")
    cookie = res.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie
    local = table.app.test_client()
    page = local.get(f"/join/{table.codes['seeker0']}")
    from tests.seating import token_of

    joined = local.post(
        f"/join/{table.codes['seeker0']}",
        data={"csrf": token_of(page.get_data(as_text=True))},
    )
    assert "Secure" not in joined.headers["Set-Cookie"]


def test_a_state_change_must_come_from_the_tunnels_origin(table):
    table.new_game(["red", "blue"])
    opened = open_remote(table)
    far = Far(table)
    far.open(f"/r/{opened.token}")
    evil = far.post("/api/mummy/command", {"cmd": "mummy_roll"}, origin="https://evil.example")
    assert evil.status_code == 403 and "another site" in evil.json["error"]
    ours = far.post("/api/mummy/command", {"cmd": "mummy_roll"})
    assert ours.status_code != 403, ours.json  # (a rule may refuse it: not the origin check)
    # Tailscale Funnel hands the Pi its own host: the tunnel's origin is still known.
    opened.provider = "tailscale"
    res = far.client.open(
        "/api/mummy/command",
        method="POST",
        json={"cmd": "mummy_roll"},
        base_url="http://127.0.0.1:8099",
        headers={"Origin": PUBLIC, "X-Forwarded-For": "203.0.113.7"},
    )
    assert res.status_code != 403 or "another site" not in res.json["error"]


def test_closing_the_remote_seat_shuts_the_tunnel_at_once(table):
    table.new_game(["red", "blue"])
    opened = open_remote(table)
    far = Far(table)
    far.open(f"/r/{opened.token}")
    assert far.open("/api/mummy/state").status_code == 200
    table.app.extensions["companion.remote"].close()
    assert far.open("/api/mummy/state").status_code == 503


def test_a_remote_spectator_sees_the_public_view_as_at_the_table(table):
    table.new_game(["red", "blue"])
    opened = open_remote(table, "watch")
    far = Far(table)
    assert far.open(f"/r/{opened.token}").status_code == 303
    at_table = table.device("watch").get("/api/watch/state")
    from_afar = far.open("/api/watch/state")
    assert from_afar.status_code == 200 and from_afar.json == at_table.json
    text = from_afar.get_data(as_text=True)
    for key in ('"positions"', '"hand"', '"legal_destinations"', '"figure_moved"'):
        assert key not in text
    # The far spectator's live page is the table's own stream: never a newer version.
    polled = far.post("/live", {"stream": "/api/watch/stream", "mode": "poll"})
    assert b'"positions"' not in polled.data
