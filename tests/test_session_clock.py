"""A clock that goes back: a Pi without a real-time clock boots after a power cut with no
internet to its last saved time (fake-hwclock), hours or days behind the time the phones'
cookies were signed at.  Every phone keeps its seat and the host its role; once the clock
is right again, the cookie's expiry holds as before (Flask's test client, a real restart
of the simulated table on the same journal and key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from itsdangerous.encoding import base64_decode, bytes_to_int

from companion.web import create_app
from companion.web import session as session_module
from tests.seating import token_of
from tests.test_pages import KEY, Table, start

DAY = 86400


def signed_at(cookie: str) -> int:
    """The signing time a session cookie carries (its second-to-last part)."""
    return bytes_to_int(base64_decode(cookie.rsplit(".", 2)[1]))


class Clock:
    """The wall clock the cookie signer reads, shifted by ``offset`` seconds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = 0.0
        real = session_module.wall
        monkeypatch.setattr(session_module, "wall", lambda: real() + self.offset)


def restarted(tmp_path: Path) -> tuple[Any, Any]:
    appliance = start(tmp_path)
    return appliance, create_app(appliance.service, secret_key=KEY, appliance=appliance)


@pytest.mark.parametrize("back_s", [30 * 60, 5 * 3600, 3 * DAY, 20 * DAY])
def test_a_clock_gone_back_keeps_every_seat_and_the_host_and_expiry_holds_once_right(
    tmp_path, monkeypatch, back_s
):
    clock = Clock(monkeypatch)
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
    made = signed_at(host.value)

    clock.offset = -back_s  # the power cut: the Pi boots to an earlier time
    second, app = restarted(tmp_path)
    try:
        owner, phone = app.test_client(), app.test_client()
        owner.set_cookie("session", host.value)
        phone.set_cookie("session", seat.value)
        assert owner.get("/api/host/status").status_code == 200
        assert phone.get("/api/seeker/state").json["seat"] == "seeker0"
        assert owner.get("/host").status_code == 200
        # A cookie re-signed while the clock is behind carries no earlier time than the
        # one it replaced, so it does not end early once the clock is right.
        again = owner.get_cookie("session")
        assert again is not None and signed_at(again.value) >= made
        host_value = again.value
        seat_after = phone.get_cookie("session")
        assert seat_after is not None
        seat_value = seat_after.value
    finally:
        second.close()

    clock.offset = 3600  # the clock is right again (an hour later), another restart
    third, app = restarted(tmp_path)
    try:
        owner, phone = app.test_client(), app.test_client()
        owner.set_cookie("session", host_value)
        phone.set_cookie("session", seat_value)
        assert owner.get("/api/host/status").status_code == 200
        assert phone.get("/api/seeker/state").json["seat"] == "seeker0"
    finally:
        third.close()

    clock.offset = 32 * DAY  # past the cookie's lifetime (31 days) on a right clock
    fourth, app = restarted(tmp_path)
    try:
        owner, phone = app.test_client(), app.test_client()
        owner.set_cookie("session", host_value)
        phone.set_cookie("session", seat_value)
        assert owner.get("/api/host/status").status_code == 403
        assert phone.get("/api/seeker/state").status_code == 403
    finally:
        fourth.close()


def test_a_cookie_signed_beyond_any_clock_that_went_back_is_refused(table, monkeypatch):
    """A signing time more than the cookie lifetime ahead of the clock is no clock going
    back: the cookie is refused (only a clock set far ahead before could have made it)."""
    clock = Clock(monkeypatch)
    clock.offset = session_module.CLOCK_BACK_S + DAY
    ahead = table.app.test_client()
    from tests.seating import host_by_pin

    host_by_pin(ahead, str(table.app.extensions["companion.seats"].pin))
    cookie = ahead.get_cookie("session")
    assert cookie is not None
    clock.offset = 0
    fresh_app = create_app(table.service, secret_key=KEY, appliance=table.appliance)
    device = fresh_app.test_client()
    device.set_cookie("session", cookie.value)
    assert device.get("/api/host/status").status_code == 403


def test_a_join_form_served_before_the_clock_went_back_still_works(table, monkeypatch):
    """The join page's token (signed for the address, good for an hour) also survives a
    clock that went back meanwhile, and still expires an hour after on a right clock."""
    clock = Clock(monkeypatch)
    table.new_game(["red", "blue"])
    code = table.codes["table"]
    page = table.app.test_client().get(f"/join/{code}")  # no cookie: the signed token
    token = token_of(page.get_data(as_text=True))
    clock.offset = -6 * 3600
    fresh_app = create_app(table.service, secret_key=KEY, appliance=table.appliance)
    res = fresh_app.test_client().post(f"/join/{code}", data={"csrf": token})
    assert res.status_code == 200, res.data
    clock.offset = 2 * 3600
    later_app = create_app(table.service, secret_key=KEY, appliance=table.appliance)
    res = later_app.test_client().post(f"/join/{code}", data={"csrf": token})
    assert res.status_code == 403 and b"form has expired" in res.data
