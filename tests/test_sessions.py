"""Sessions that survive links, and seats and host cookies that end when they should:
a request that arrived without the cookie never gets one that would replace a seat,
"Leave" ends the seat on the server, "New codes" and a start after a long pause end old
host cookies, and the join links name the companion's own addresses, whatever ``Host:``
a phone sends (Flask's test client on the simulated board)."""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path
from typing import Any

import pytest

from companion.service.startup import addresses
from companion.table import seats as seats_module
from companion.web import create_app
from tests.seating import host_by_pin, join, token_of
from tests.test_pages import KEY, Table, start

#: The paths a link from another site may point at (a chat message, a QR scanner app).
LINKED = ["/", "/seeker", "/mummy", "/table", "/crypt", "/lootnrun", "/host", "/watch"]


def session_cookies_set(res: Any) -> list[str]:
    return [h for h in res.headers.getlist("Set-Cookie") if h.startswith("session=")]


def pin_of(table: Table) -> str:
    return str(table.app.extensions["companion.seats"].pin)


def another_host(table: Table) -> Any:
    """Another device that opens the host page with the PIN."""
    device = table.app.test_client()
    host_by_pin(device, pin_of(table))
    assert device.get("/api/host/status").status_code == 200
    return device


# -- links from another site ---------------------------------------------------------------


def test_the_session_cookie_goes_with_links_from_other_sites(table):
    """SameSite=Lax: a top-level navigation from another site carries the cookie (a form,
    a script or a frame of that site does not); still signed and out of scripts' reach."""
    table.new_game(["red", "blue"])
    phone = table.app.test_client()
    res = join(phone, table.codes["seeker0"])
    (cookie,) = session_cookies_set(res)
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie


@pytest.mark.parametrize("path", [*LINKED, "/join/{seeker0}", "/join/{mummy}", "/join/NOCODE"])
def test_a_request_without_the_cookie_never_gets_one_that_would_replace_a_seat(table, path):
    """A link opened where the browser holds its cookie back: the answer sets no session
    cookie (it would replace the seat or the host's role the browser holds), and the
    seat and the host still work afterwards."""
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    cookieless = table.app.test_client()
    res = cookieless.get(path.format(**table.codes))
    assert session_cookies_set(res) == [], (path, res.headers)
    assert red.get("/api/seeker/state").json["seat"] == "seeker0"
    assert table.host.get("/api/host/status").status_code == 200


def test_a_page_served_without_the_cookie_still_joins_with_it(table):
    """The join page a foreign link opened without the cookie carries a token signed for
    this address: the form, sent from the companion's own page with the cookie, works,
    and takes this device from its old seat to the new one."""
    table.new_game(["red", "blue"])
    phone = table.device("seeker0")
    cookie = phone.get_cookie("session")
    assert cookie is not None
    page = table.app.test_client().get(f"/join/{table.codes['table']}")  # no cookie
    token = token_of(page.get_data(as_text=True))
    res = phone.post(f"/join/{table.codes['table']}", data={"csrf": token, "takeover": "1"})
    assert res.status_code == 200 and b"Open my page" in res.data
    assert phone.get("/").location == "/table"
    # The same for a typed code on the start page served without a cookie.
    landing = table.app.test_client().get("/")
    # (the spectator's seat: this phone saw the seekers, so the mummy's would need the
    # host's leave, see test_secrecy_across_seats.py)
    typed = phone.post(
        "/", data={"code": table.codes["watch"], "csrf": token_of(landing.get_data(as_text=True))}
    )
    assert typed.status_code == 200 and phone.get("/").location == "/watch"


def test_a_token_signed_for_another_address_or_expired_is_refused(table, monkeypatch):
    from companion.web import session as session_module

    table.new_game(["red", "blue"])
    code = table.codes["table"]
    elsewhere = table.app.test_client()
    page = elsewhere.get(f"/join/{code}", environ_base={"REMOTE_ADDR": "192.0.2.77"})
    stranger_token = token_of(page.get_data(as_text=True))
    victim = table.app.test_client()
    res = victim.post(f"/join/{code}", data={"csrf": stranger_token, "takeover": "1"})
    assert res.status_code == 403 and b"form has expired" in res.data
    assert session_cookies_set(res) == [] and victim.get("/").location != "/table"
    own = token_of(victim.get(f"/join/{code}").get_data(as_text=True))
    monkeypatch.setattr(session_module, "ANONYMOUS_TOKEN_S", -1)  # an hour went by
    res = victim.post(f"/join/{code}", data={"csrf": own, "takeover": "1"})
    assert res.status_code == 403 and b"form has expired" in res.data


def test_a_post_from_another_site_without_the_cookie_is_refused_and_sets_nothing(table):
    """Lax keeps the cookie off another site's forms; the Origin check refuses them, and
    the refusal replaces nothing the browser holds."""
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    bare = table.app.test_client()
    page = bare.get(f"/join/{table.codes['mummy']}").get_data(as_text=True)
    res = bare.post(
        f"/join/{table.codes['mummy']}",
        data={"csrf": token_of(page), "takeover": "1"},
        headers={"Origin": "http://evil.example"},
    )
    assert res.status_code == 403 and b"another site" in res.data
    assert session_cookies_set(res) == []
    assert red.get("/api/seeker/state").status_code == 200
    assert table.host.get("/api/host/status").json["table"]["seats"][0]["joined"] is False


# -- leaving a seat ---------------------------------------------------------------------------


def leave(client: Any, page: str) -> Any:
    html = client.get(page).get_data(as_text=True)
    return client.post("/leave", data={"csrf": token_of(html)})


@pytest.mark.parametrize(
    ("seat", "page", "api"),
    [
        ("seeker0", "/seeker", "/api/seeker/state"),
        ("mummy", "/mummy", "/api/mummy/state"),
        ("watch", "/watch", "/lootnrun/api/view"),
    ],
)
def test_leave_ends_the_seat_on_the_server(table, seat, page, api):
    table.new_game(["red", "blue"])
    phone = table.device(seat)
    other_watcher = table.device("watch")
    copy = phone.get_cookie("session")
    assert copy is not None and phone.get(api).status_code == 200
    res = leave(phone, page)
    assert res.status_code == 303
    assert phone.get(api).status_code == 403
    thief = table.app.test_client()
    thief.set_cookie("session", copy.value)  # the cookie as it was before "Leave"
    assert thief.get(api).status_code == 403
    assert thief.get(page).status_code == 403
    assert other_watcher.get("/lootnrun/api/view").status_code == 200  # only this device
    if seat != "watch":  # the seat is free again: the host page shows it
        seats = table.host.get("/api/host/status").json["table"]["seats"]
        assert {s["seat"]: s["joined"] for s in seats}[seat] is False
        assert table.device(seat).get(api).status_code == 200  # its code joins again


def test_many_watchers_leaving_never_grow_the_table_without_end(table, monkeypatch):
    monkeypatch.setattr(seats_module, "MAX_LEFT", 3)
    table.new_game(["red", "blue"])
    staying = table.device("watch")
    for _ in range(3):
        assert leave(table.device("watch"), "/watch").status_code == 303
    assert staying.get("/lootnrun/api/view").status_code == 200
    last = table.device("watch")
    copy = last.get_cookie("session")
    assert copy is not None
    leave(last, "/watch")  # one too many: every watching device joins again
    store = table.app.extensions["companion.seats"]
    assert store.table.left == []
    assert staying.get("/lootnrun/api/view").status_code == 403
    thief = table.app.test_client()
    thief.set_cookie("session", copy.value)
    assert thief.get("/lootnrun/api/view").status_code == 403
    assert table.device("watch").get("/lootnrun/api/view").status_code == 200


# -- the host's cookie -------------------------------------------------------------------------


def test_new_codes_end_every_other_host_cookie_and_the_presser_stays_host(table):
    table.new_game(["red", "blue"])
    second_host = another_host(table)
    red = table.device("seeker0")
    before = table.host.get_cookie("session")
    assert before is not None
    res = table.host.post("/api/host/codes", json={})
    assert res.status_code == 200
    after = table.host.get_cookie("session")
    assert after is not None and after.value != before.value  # a new host cookie
    assert table.host.get("/api/host/status").status_code == 200  # still the host
    assert second_host.get("/api/host/status").status_code == 403  # needs the PIN again
    assert second_host.get("/host").status_code == 403
    stolen = table.app.test_client()
    stolen.set_cookie("session", before.value)  # a copy taken before "New codes"
    assert stolen.get("/api/host/status").status_code == 403
    assert stolen.post("/api/host/codes", json={}).status_code == 403
    assert red.get("/api/seeker/state").status_code == 403
    again = another_host(table)  # the PIN still opens the host page
    assert again.get("/api/host/status").status_code == 200


def restart(tmp_path: Path, hours_idle: float | None) -> Any:
    """Stop the companion, let ``hours_idle`` pass since the host last used it, start."""
    path = tmp_path / "seats.json"
    if hours_idle is not None:
        data = json.loads(path.read_text())
        data["host_seen"] = time.time() - hours_idle * 3600
        path.write_text(json.dumps(data))
    return start(tmp_path)


@pytest.mark.parametrize(("hours_idle", "still_host"), [(0.5, True), (11.5, True), (13, False)])
def test_a_start_keeps_a_recent_host_and_ends_an_idle_hosts_cookie(
    tmp_path, hours_idle, still_host, caplog
):
    """A power cut during the game keeps the owner's phone host; a host cookie unused
    for more than twelve hours (last week's, or a copy taken then) ends at the next
    start, which needs the new PIN. The seats stay joined either way."""
    caplog.set_level(logging.INFO, logger="companion.table.seats")
    first = start(tmp_path)
    try:
        table = Table(first)
        table.new_game(["red", "blue"])
        red = table.device("seeker0")
        host = table.host.get_cookie("session")
        seat = red.get_cookie("session")
        assert host is not None and seat is not None
    finally:
        first.close()
    second = restart(tmp_path, hours_idle)
    try:
        app = create_app(second.service, secret_key=KEY, appliance=second)
        device = app.test_client()
        device.set_cookie("session", host.value)
        assert (device.get("/api/host/status").status_code == 200) is still_host
        newcomer = app.test_client()
        assert newcomer.get("/").location != "/host"  # nobody claims the host freely
        phone = app.test_client()
        phone.set_cookie("session", seat.value)
        assert phone.get("/api/seeker/state").json["seat"] == "seeker0"
        if not still_host:
            assert "the old host cookies end" in caplog.text
            host_by_pin(device, app.extensions["companion.seats"].pin)
            assert device.get("/api/host/status").status_code == 200
    finally:
        second.close()


def test_the_host_s_visits_are_noted_now_and_then_not_on_every_request(table, monkeypatch):
    store = table.app.extensions["companion.seats"]
    path = Path(table.service.journal.path).parent / "seats.json"
    assert path.exists()
    store.host_seen = time.time() - 3600  # an hour since the last note
    saved: list[float] = []
    real_put = store.put  # every change of the seats is written by put
    monkeypatch.setattr(
        store, "put", lambda **kw: (saved.append(kw.get("host_seen", 0.0)), real_put(**kw))
    )
    for _ in range(5):
        assert table.host.get("/api/host/status").status_code == 200
    assert len(saved) == 1 and abs(saved[0] - time.time()) < 60
    assert abs(json.loads(path.read_text())["host_seen"] - time.time()) < 60


# -- the join links --------------------------------------------------------------------------


@pytest.mark.parametrize("spoofed", ["evil.example", "evil.example:8080", "203.0.113.9"])
def test_join_links_and_qr_codes_never_copy_a_spoofed_host_header(table, spoofed):
    table.new_game(["red", "blue"])
    cookie = table.host.get_cookie("session")
    assert cookie is not None
    headers = {"Host": spoofed, "Cookie": f"session={cookie.value}"}
    res = table.app.test_client(use_cookies=False).get("/host", headers=headers)
    assert res.status_code == 200
    page = res.get_data(as_text=True)
    assert 'class="addresses"' in page and spoofed.split(":")[0] not in page
    own = addresses(80)
    shown = re.findall(r"http://[^\s<\"']+/", page)
    assert shown and set(shown) <= set(own), shown
    with table.app.test_request_context("/host", headers={"Host": spoofed}):
        from companion.web.pages import join_urls

        urls = join_urls()
    assert sorted(urls) == sorted(own)


def test_the_address_a_phone_used_comes_first_when_it_is_the_companion_s(table):
    from companion.web.pages import join_urls

    own = addresses(80)
    for url in own:
        host = url.removeprefix("http://").rstrip("/")
        with table.app.test_request_context("/host", headers={"Host": host}):
            urls = join_urls()
        assert sorted(urls) == sorted(own)
        if host[0].isdigit():
            assert urls[0] == url


def test_the_hotspot_s_own_address_is_a_join_address_and_comes_first_for_its_phones(
    table, monkeypatch
):
    """The hotspot's address (``10.42.0.1`` on wlan0) is often not among the hostname's:
    it comes from the interfaces, and a phone that opened it gets its links on it."""
    from companion.service import startup
    from companion.web.pages import join_urls

    monkeypatch.setattr(startup.socket, "getaddrinfo", lambda *a, **k: [])
    monkeypatch.setattr(startup, "interface_ips", lambda: ["127.0.0.1", "10.42.0.1"])
    assert startup.addresses(8080) == [
        f"http://{startup.socket.gethostname()}.local:8080/",
        "http://10.42.0.1:8080/",
    ]
    with table.app.test_request_context("/host", headers={"Host": "10.42.0.1"}):
        assert join_urls()[0] == "http://10.42.0.1/"
    with table.app.test_request_context("/host", headers={"Host": "10.42.0.2"}):
        assert "http://10.42.0.2/" not in join_urls()
