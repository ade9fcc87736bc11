"""Secrets that survive every move of a real table: one device must not both see where
the seekers stand (a seeker's or the table's seat, ``/sim``, ``/check``, a record's
export) and hold the mummy's seat in one game, unless the host allows it, and then every
seat's page is told in words naming no cell; the summary records it.

The property runs random sequences of joins, leaves, takeovers, door visits, the host's
allowance, New codes and restarts of the web layer on three devices (the host's and two
phones), and checks after every step: every device that did both in this game is
counted in what every joined seat's page and the host are told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from companion.service.autoplay import play_on
from companion.web import create_app
from tests.seating import join, token_of
from tests.test_pages import KEY, Table, start

SEATS = ("mummy", "seeker0", "table")
DOORS = ("/sim/api/board", "/check/api/state", "/api/host/journal/{game}")
DEVICES = ("host", "phone1", "phone2")

steps = st.one_of(
    st.tuples(st.just("join"), st.sampled_from(DEVICES), st.sampled_from(SEATS)),
    st.tuples(st.just("leave"), st.sampled_from(DEVICES)),
    st.tuples(st.just("door"), st.sampled_from(DEVICES), st.sampled_from(DOORS)),
    st.tuples(st.just("allow")),
    st.tuples(st.just("codes")),
    st.tuples(st.just("restart")),
)


def _kind(seat: str) -> str:
    return "seeker" if seat.startswith("seeker") else seat


def play(table: Table, script: list[tuple[Any, ...]]) -> None:
    clients = {
        "host": table.host,
        "phone1": table.app.test_client(),
        "phone2": table.app.test_client(),
    }
    saw: set[str] = set()
    mummy: set[str] = set()
    store = table.app.extensions["companion.seats"]
    game = table.service.published.game_id
    for step in script:
        if step[0] == "join":
            _, who, seat = step
            res = join(clients[who], store.table.codes[seat])
            if res.status_code == 200:
                (mummy if seat == "mummy" else saw).add(who)
            else:
                assert res.status_code == 403, res.status_code
                assert "host allows it" in res.get_data(as_text=True)
        elif step[0] == "leave":
            client = clients[step[1]]
            html = client.get(f"/join/{store.table.codes['watch']}").get_data(as_text=True)
            client.post("/leave", data={"csrf": token_of(html)})
        elif step[0] == "door":
            _, who, door = step
            res = clients[who].get(door.format(game=game))
            if res.status_code == 200:
                saw.add(who)
        elif step[0] == "allow":
            assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
        elif step[0] == "codes":
            res = table.host.post("/api/host/codes", json={})
            assert res.status_code == 200
        elif step[0] == "restart":  # the web layer starts again from seats.json
            app = create_app(table.appliance.service, secret_key=KEY, appliance=table.appliance)
            for client in clients.values():
                client.application = app
            table.app = app
            store = app.extensions["companion.seats"]
        both = saw & mummy
        status = table.host.get("/api/host/status").get_json()
        told = [t for t in status["table"]["crossings"] if "mummy's code" not in t]
        assert len(told) >= len(both), (step, both, told)
        for who, client in clients.items():
            seat = store.seat_of(_session_seat(client, table))
            if seat is None or not both:
                continue
            state = client.get(f"/api/{_kind(seat)}/state").get_json()
            assert len([t for t in state["crossings"] if "mummy's code" not in t]) >= len(both)
            assert state["notice"]["text"], who


def _session_seat(client: Any, table: Table) -> Any:
    with client.session_transaction() as session:
        return session.get("seat")


@settings(
    max_examples=12,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(script=st.lists(steps, min_size=1, max_size=12))
def test_no_device_both_sees_the_seekers_and_holds_the_mummys_seat_untold(tmp_path_factory, script):
    appliance = start(Path(tmp_path_factory.mktemp("secrecy")))
    try:
        table = Table(appliance)
        table.new_game(["red", "blue"])
        play(table, script)
    finally:
        appliance.close()


def test_the_issues_path_leave_look_rejoin_is_refused_then_allowed_and_told(table):
    """The owner's device hosts and plays the mummy; it leaves, opens /sim, and tries to
    rejoin the mummy's seat: refused until the host allows it, then every page is told
    (naming no cell) and the summary records it."""
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    code = table.codes["mummy"]
    assert join(table.host, code).status_code == 200
    status = table.host.get("/api/host/status").get_json()
    assert status["table"]["crossings"] == []
    html = table.host.get("/mummy").get_data(as_text=True)
    table.host.post("/leave", data={"csrf": token_of(html)})
    look = table.host.get("/sim/api/board")  # the figures, after holding the mummy's seat
    assert look.status_code == 403 and "held the mummy's seat" in look.get_json()["error"]
    assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
    assert table.host.get("/sim/api/board").status_code == 200
    seen = "The host let a phone that had held the mummy's seat see where the seekers stand."
    state = red.get("/api/seeker/state").get_json()
    assert state["notice"]["text"] == seen and state["crossings"] == [seen]
    assert join(table.host, code).status_code == 200  # told already: it may go back
    # The other way round: Red's phone saw the seekers; it asks for the mummy's seat.
    refused = join(red, code)
    assert refused.status_code == 403
    assert "seen where the seekers stand" in refused.get_data(as_text=True)
    assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
    assert join(red, code).status_code == 200
    words = "The host let a phone that had seen where the seekers stand take the mummy's seat."
    state = red.get("/api/mummy/state").get_json()
    assert state["notice"]["text"] == words and state["crossings"] == [seen, words]
    assert table.host.get("/api/host/status").get_json()["table"]["crossings"] == [seen, words]
    # The host asks for the mummy's code again: shown, and told.
    status = table.host.post("/api/host/mummy-code", json={}).get_json()
    assert next(s for s in status["table"]["seats"] if s["seat"] == "mummy")["code"] == code
    assert status["table"]["crossings"][-1] == "The host showed the mummy's code again."


def _mummy_code(status: dict[str, Any]) -> Any:
    return next(s for s in status["table"]["seats"] if s["seat"] == "mummy")["code"]


def test_the_mummys_code_hides_once_joined_until_the_host_asks_again_which_is_told(table):
    """The host page shows the mummy's code until its seat is joined; from then on
    neither the code nor its QR link, even after the mummy leaves.  The host may ask for
    it again: shown, and every seat's page is told; the next join hides it again, and New
    codes show the new code until it is joined."""
    table.new_game(["red", "blue"])
    code = table.codes["mummy"]
    assert _mummy_code(table.host.get("/api/host/status").get_json()) == code
    mummy, red = table.device("mummy"), table.device("seeker0")
    status = table.host.get("/api/host/status").get_json()
    assert _mummy_code(status) is None and status["table"]["crossings"] == []
    page = table.host.get("/host").get_data(as_text=True)
    assert code not in page and "hidden: the seat is joined" in page
    assert "Show the mummy&#39;s code again" in page
    html = mummy.get("/mummy").get_data(as_text=True)
    mummy.post("/leave", data={"csrf": token_of(html)})  # a free seat: still hidden
    assert _mummy_code(table.host.get("/api/host/status").get_json()) is None
    assert red.get("/api/seeker/state").get_json()["crossings"] == []
    # The host asks again: the code is back, and every page says so (no cell, no phone).
    again = table.host.post("/api/host/mummy-code", json={}).get_json()
    assert _mummy_code(again) == code
    told = "The host showed the mummy's code again."
    assert again["table"]["crossings"] == [told]
    state = red.get("/api/seeker/state").get_json()
    assert state["notice"]["text"] == told and state["crossings"] == [told]
    assert code in table.host.get("/host").get_data(as_text=True)
    german = red.get("/api/seeker/state", headers={"Accept-Language": "de"}).get_json()
    assert german["crossings"] == ["Der Gastgeber hat den Code der Mumie wieder gezeigt."]
    # Asking while it shows tells nothing more; the next join hides it again.
    table.host.post("/api/host/mummy-code", json={})
    assert join(mummy, code).status_code == 200
    status = table.host.get("/api/host/status").get_json()
    assert _mummy_code(status) is None and status["table"]["crossings"] == [told]
    # A restart keeps it hidden (seats.json); New codes show the new one until joined.
    restarted = create_app(table.service, secret_key=KEY, appliance=table.appliance)
    table.host.application = mummy.application = restarted
    assert _mummy_code(table.host.get("/api/host/status").get_json()) is None
    fresh = table.host.post("/api/host/codes", json={}).get_json()
    assert _mummy_code(fresh) not in (None, code)
    assert join(mummy, _mummy_code(fresh)).status_code == 200
    assert _mummy_code(table.host.get("/api/host/status").get_json()) is None


def test_the_end_summary_records_what_the_host_allowed_and_a_new_game_starts_clean(table):
    """A phone that saw the seekers took the mummy's seat with the host's leave: the end
    summary every page gets says so; the rematch starts with nothing allowed or told."""
    table.new_game(["red", "blue"])
    assert table.host.get("/sim/api/board").status_code == 200  # the host's device looks
    assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
    assert join(table.host, table.codes["mummy"]).status_code == 200
    red = table.device("seeker0")
    play_on(table.appliance)
    assert table.service.game.current.is_over
    words = "The host let a phone that had seen where the seekers stand take the mummy's seat."
    host = table.host.get("/api/host/status").get_json()["game"]["summary"]
    assert host["crossings"] == [words]
    assert red.get("/api/seeker/state").get_json()["summary"]["crossings"] == [words]
    assert table.host.get("/api/mummy/state").get_json()["summary"]["crossings"] == [words]
    game = table.service.published.game_id
    again = table.host.post("/api/host/rematch", json={"replaces": game})
    assert again.status_code == 200, again.get_json()
    assert again.get_json()["table"]["crossings"] == []
    assert red.get("/api/seeker/state").get_json()["crossings"] == []
    # In the new game the host's device held the mummy's seat: /sim needs the host again.
    html = table.host.get("/mummy").get_data(as_text=True)
    table.host.post("/leave", data={"csrf": token_of(html)})
    look = table.host.get("/sim/api/board")
    assert look.status_code == 403 and "held the mummy's seat" in look.get_json()["error"]
