"""Live pages through a tunnel's edge (the providers' stand-ins, ``companion.tunnel.standin``)
on the real server: a GET event stream is held back, the same stream as the answer to a
POST passes as it comes, and the long poll misses nothing and doubles nothing."""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bench.clients import Site
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from companion.tunnel.phone import Either, FarPhone, Messages, newer
from companion.tunnel.standin import PROFILES, Profile, StandIn
from companion.web import create_app, live
from companion.web.remote import listener_app


class Remote:
    """A running companion, its tunnel listener, an edge in front of it, the remote seat."""

    def __init__(self, app: Any, site: Site, edge: StandIn) -> None:
        self.app, self.site, self.edge = app, site, edge
        self.seat = app.extensions["companion.remote"]

    def open(self, seat: str = "mummy") -> FarPhone:
        opened = self.seat.open(seat, provider=self.edge.profile.name)
        opened.public_url = self.edge.url
        phone = FarPhone(self.edge.url)
        assert phone.join(opened.link) == 303
        return phone


@pytest.fixture
def far(tmp_path: Path, request: Any) -> Iterator[Remote]:
    from tests.test_service import start

    profile: Profile = getattr(request, "param", PROFILES["cloudflare"])
    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    try:
        with (
            ServerThread(app, limits=Limits(threads=4)) as web,
            ServerThread(listener_app(app), limits=Limits(threads=4), name="tunnel") as tunnel,
            StandIn(tunnel.port, profile) as edge,
        ):
            try:
                yield Remote(app, Site(web.port), edge)
            finally:
                appliance.hub.end_streams()
    finally:
        appliance.close()


def _until(check: Any, within: float = 8.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def _give_board(site: Site, game: str) -> None:
    site.host_post("/api/host/board", {"game": game, "pause": True})


@pytest.mark.parametrize("far", list(PROFILES.values()), indirect=True, ids=list(PROFILES))
def test_the_edge_holds_a_get_stream_back_and_passes_a_post_stream(far):
    phone = far.open()
    held = Messages(phone, "/api/mummy/stream", "sse")
    passed = Messages(phone, "/api/mummy/stream", "post")
    try:
        assert _until(lambda: len(passed.messages()) >= 1)
        assert passed.messages()[0]["view"]["maze"]  # the first message is whole
        _give_board(far.site, "lootnrun")
        assert _until(lambda: passed.messages()[-1].get("active_game") == "lootnrun")
        assert held.messages() == []  # held back by the edge until it ends
        assert far.seat.connected()  # the host page: the remote player is connected
    finally:
        held.close()
        passed.close()


def test_the_long_poll_misses_nothing_and_doubles_nothing(far, monkeypatch):
    monkeypatch.setattr(live, "POLL_HOLD_S", 1.5)
    phone = far.open()
    polls = Messages(phone, "/api/mummy/stream", "poll")
    try:
        assert _until(lambda: len(polls.messages()) == 1)
        # Nothing changes: the poll answers 204 (after its hold) and asks again.
        assert _until(lambda: 204 in polls.statuses) and len(polls.messages()) == 1
        games = ["lootnrun", "crypt", "mummy", "lootnrun", "mummy"]
        for i, game in enumerate(games, 1):
            _give_board(far.site, game)
            assert _until(lambda g=game: polls.messages()[-1].get("active_game") == g), i
        got = polls.messages()
        cursors = polls.cursors  # never the same state twice in a row
        assert all(a != b for a, b in itertools.pairwise(cursors))
        holders = [m["active_game"] for m in got]
        assert holders == ["mummy", *games]  # in order, each change once
        # Every poll answer is whole, and the same as the seat's state now.
        last = got[-1]
        assert last["view"]["maze"] and "log_keep" not in last
        status, data, _ = phone.call("GET", "/api/mummy/state")
        assert status == 200 and last["log"] == json.loads(data)["log"]
    finally:
        polls.close()


def test_a_far_pages_two_channels_give_each_state_once_in_order(far):
    """A far page holds two live channels (``play.js``); one state read by both carries
    one id, so it is taken once, and a copy that comes late is never taken over a newer
    state."""
    phone = far.open()
    page = Either(phone, "/api/mummy/stream", "post")
    try:
        assert _until(lambda: all(c.messages() for c in page.channels))
        games = ["lootnrun", "crypt", "mummy", "lootnrun"]
        for game in games:
            _give_board(far.site, game)
            assert _until(
                lambda g=game: all(c.messages()[-1].get("active_game") == g for c in page.channels)
            )
        one, two = page.channels
        assert one.ids == two.ids  # each state: the same id on both channels
        stamps = [int(i.rsplit("-", 1)[1]) for i in one.ids]
        assert stamps == sorted(set(stamps))  # later states, larger stamps

        def taken() -> list[str]:
            """The holders the page showed, each message once (a state that changed in
            another part, as the far player's presence, may repeat the holder)."""
            shown = [m["active_game"] for m in page.messages()]
            assert len(shown) == len(one.ids)  # every state once, none from both channels
            return [g for i, g in enumerate(shown) if i == 0 or shown[i - 1] != g]

        assert taken() == ["mummy", *games]
        # The second channel's copies come late: none is taken again.
        with two.lock:
            two.got = [(t + 5.0, d) for t, d in two.got]
        assert taken() == ["mummy", *games]
    finally:
        page.close()


def test_a_late_copy_is_older_and_a_restart_is_newer():
    assert newer("ab-10", None) == ("ab", 10)
    assert newer("ab-10", ("ab", 10)) is None  # the same state from the other channel
    assert newer("ab-9", ("ab", 10)) is None  # an older one that came late
    assert newer("cd-1", ("ab", 10)) == ("cd", 1)  # the companion started again
    assert newer("", ("ab", 10)) == ("ab", 10)  # a message without an id is taken


def test_the_edge_limits_requests_in_flight(tmp_path):
    from tests.test_service import start

    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    try:
        with (
            ServerThread(app, limits=Limits(threads=4)) as web,
            ServerThread(listener_app(app), limits=Limits(threads=4), name="tunnel") as tunnel,
            StandIn(tunnel.port, Profile("cloudflare", in_flight=2, max_body=1000)) as edge,
        ):
            far = Remote(app, Site(web.port), edge)
            phone = far.open()
            streams = [Messages(phone, "/api/mummy/stream", "post") for _ in range(2)]
            try:
                assert _until(lambda: all(s.messages() for s in streams))
                status, _, _ = phone.call("GET", "/api/mummy/state")
                assert status == 429 and edge.refused == 1
                status, _, _ = phone.call("POST", "/api/mummy/command", {"x": "y" * 2000})
                assert status in (413, 429)
            finally:
                for s in streams:
                    s.close()
                appliance.hub.end_streams()
    finally:
        appliance.close()


def test_a_state_seen_again_after_another_is_newer():
    from companion.web.stamps import RUN, Stamps

    stamps = Stamps()
    first = stamps.stamp("page", "S1")
    assert stamps.stamp("page", "S1") == first  # the other channel, the same state
    second, again = stamps.stamp("page", "S2"), stamps.stamp("page", "S1")
    ids = [first, second, again]
    assert all(i.startswith(RUN + "-") for i in ids)
    stamps = [int(i.rsplit("-", 1)[1]) for i in ids]
    assert stamps == sorted(set(stamps))  # three stamps, each larger
