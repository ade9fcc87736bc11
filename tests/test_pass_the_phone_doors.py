"""A seat for a player without a phone (issue 36): one phone passed between two seekers,
with a cover between them, and the covered private view of a seeker's cards on the table
screen or the host's device.  The doors as for every seat: a phone holding two seekers
shows each one's cards only once it is passed to that seeker, never the mummy's seat; the
private view opens only on the table screen or the host's device that plays no seat."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.table.doors import seeker_index
from tests.seating import join, token_of
from tests.test_pages import Table, start

COVER = "Give the phone to {name}, then tap"


def add(client: Any, code: str) -> Any:
    """Join a seeker's code on a phone that shows another seeker, keeping both."""
    page = client.get(f"/join/{code}").get_data(as_text=True)
    assert 'name="add"' in page, page
    data = {"csrf": token_of(page), "add": "1", "takeover": "1"}
    return client.post(f"/join/{code}", data=data)


def cells(table: Table, seeker: int) -> set[str]:
    state = table.service.published.state
    return {state.maze.cell_name(t.cell) for t in state.hands[seeker]}


def hand(client: Any) -> tuple[str, set[str]]:
    """The seat a phone's seeker state is for, and the cells of the cards it carries."""
    state = client.get("/api/seeker/state").get_json()
    width = state["view"]["maze"]["width"]
    found = {
        f"{chr(65 + t['cell'] % width)}{t['cell'] // width + 1}" for t in state["view"]["hand"]
    }
    return state["seat"], found


def shared_phone(table: Table) -> Any:
    phone = table.device("seeker0")  # Red joins, then Blue is added to the same phone
    res = add(phone, table.codes["seeker1"])
    assert res.status_code == 200 and b"Open my page" in res.data, res.data
    return phone


def test_a_phone_holds_two_seekers_and_shows_each_only_after_the_cover(table):
    table.new_game(["red", "blue", "violet"])
    phone = shared_phone(table)
    page = phone.get("/seeker").get_data(as_text=True)
    assert COVER.format(name="Blue") in page  # the seeker just added, behind the cover
    assert '<main id="seat" hidden>' in page and 'id="hand" class="cards"></ul>' in page
    assert hand(phone) == ("seeker1", cells(table, 1))
    # Passed to Red: the cover names Red; the tap (POST pass) shows Red's cards only.
    page = phone.get("/seeker?cover=seeker0").get_data(as_text=True)
    assert COVER.format(name="Red") in page
    assert phone.post("/api/seeker/pass", json={"seat": "seeker0"}).status_code == 200
    assert hand(phone) == ("seeker0", cells(table, 0))
    # Neither the mummy nor a seeker this phone does not hold is reachable by passing.
    for seat in ("mummy", "seeker2", "table", "watch", "seeker9"):
        assert phone.post("/api/seeker/pass", json={"seat": seat}).status_code == 403, seat
    assert phone.get("/api/mummy/state").status_code == 403
    assert hand(phone) == ("seeker0", cells(table, 0))
    # The history on a shared phone names players, never "you".
    red_log = [e["text"] for e in phone.get("/api/seeker/state").get_json()["log"]]
    assert phone.post("/api/seeker/pass", json={"seat": "seeker1"}).status_code == 200
    blue_log = [e["text"] for e in phone.get("/api/seeker/state").get_json()["log"]]
    assert red_log == blue_log and red_log
    assert not any(re.search(r"\byou(r)?\b", line, re.I) for line in red_log), red_log


def test_a_phone_with_two_seekers_is_refused_the_mummys_seat(table):
    table.new_game(["red", "blue"])
    phone = shared_phone(table)
    res = join(phone, table.codes["mummy"])
    assert res.status_code == 403 and b"host allows it" in res.data
    assert phone.get("/api/mummy/state").status_code == 403
    assert phone.post("/api/seeker/pass", json={"seat": "seeker0"}).status_code == 200
    # Once the host allows it (and every phone is told), the phone gives up both seekers.
    assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
    assert join(phone, table.codes["mummy"]).status_code == 200
    assert phone.get("/api/seeker/state").status_code == 403
    assert phone.post("/api/seeker/pass", json={"seat": "seeker1"}).status_code == 403
    status = table.host.get("/api/host/status").get_json()
    joined = {s["seat"]: s["joined"] for s in status["table"]["seats"]}
    assert not joined["seeker0"] and not joined["seeker1"]


def test_each_seat_on_a_shared_phone_can_move_on_alone(table):
    table.new_game(["red", "blue"])
    phone = shared_phone(table)
    # Blue gets a phone of its own: the shared phone goes on with Red, without the cover.
    own = table.device("seeker1")
    assert hand(own) == ("seeker1", cells(table, 1))
    page = phone.get("/seeker").get_data(as_text=True)
    assert "then tap" not in page
    assert hand(phone) == ("seeker0", cells(table, 0))
    assert phone.post("/api/seeker/pass", json={"seat": "seeker1"}).status_code == 403
    # Leaving the seat shown goes on with the other; joining another seat gives up both.
    again = table.device("seeker0")
    add(again, table.codes["seeker1"])
    html = again.get("/join/" + table.codes["watch"]).get_data(as_text=True)
    left = again.post("/leave", data={"csrf": token_of(html)})
    assert again.get(left.location).location == "/seeker"  # Blue left: Red goes on
    assert hand(again)[0] == "seeker0"
    assert join(again, table.codes["table"]).status_code == 200
    assert again.get("/api/seeker/state").status_code == 403
    assert again.post("/api/seeker/pass", json={"seat": "seeker0"}).status_code == 403
    status = table.host.get("/api/host/status").get_json()
    assert not {s["seat"]: s["joined"] for s in status["table"]["seats"]}["seeker0"]


def test_the_covered_private_view_opens_only_on_the_table_screen_or_a_seatless_host(table):
    table.new_game(["red", "blue"])
    screen = table.device("table")
    assert b"Private view for Blue" in screen.get("/table").data
    red = screen.get("/api/private/seeker0")
    assert red.status_code == 200 and red.headers["Cache-Control"] == "no-store"
    assert {c["cell"] for c in red.get_json()["hand"]} == cells(table, 0)
    assert screen.get("/api/private/mummy").status_code == 404
    assert screen.get("/api/private/seeker7").status_code == 404
    for seat in ("mummy", "seeker0", "watch"):
        other = table.device(seat)
        assert other.get("/api/private/seeker1").status_code == 403, seat
    assert table.app.test_client().get("/api/private/seeker1").status_code == 403
    # The host's own device shows it while it plays no seat, and is then one that has
    # seen the seekers: the mummy's seat stays shut to it unless the host allows it.
    assert b"Private view for Red" in table.host.get("/host").data
    assert table.host.get("/api/private/seeker1").status_code == 200
    res = join(table.host, table.codes["mummy"])
    assert res.status_code == 403 and b"host allows it" in res.data


SEEKERS = ("seeker0", "seeker1", "seeker2")
steps = st.one_of(
    st.tuples(st.just("join"), st.sampled_from((0, 1)), st.sampled_from(SEEKERS), st.booleans()),
    st.tuples(st.just("join"), st.sampled_from((0, 1)), st.sampled_from(("mummy", "table"))),
    st.tuples(st.just("pass"), st.sampled_from((0, 1)), st.sampled_from((*SEEKERS, "mummy"))),
    st.tuples(st.just("leave"), st.sampled_from((0, 1))),
    st.tuples(st.just("allow")),
    st.tuples(st.just("codes")),
)


def held_seats(client: Any, store: Any) -> list[str | None]:
    """The seat a phone shows and the other seats its cookie keeps, as the server sees them."""
    with client.session_transaction() as session:
        cookies = [session.get("seat"), *(session.get("also") or [])]
    return [store.seat_of(c) for c in cookies]


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(script=st.lists(steps, min_size=1, max_size=10))
@example(
    script=[
        ("join", 0, "seeker0", False),
        ("join", 0, "seeker1", True),
        ("pass", 0, "seeker0"),
        ("join", 1, "seeker2", False),
        ("join", 1, "seeker1", True),
        ("pass", 0, "seeker1"),
        ("join", 0, "mummy"),
        ("allow",),
        ("join", 0, "mummy"),
        ("pass", 0, "seeker0"),
        ("codes",),
    ]
)
def test_a_passed_phone_only_ever_shows_the_seat_it_shows_and_never_the_mummys(
    tmp_path_factory, script
):
    """Random joins (adding or switching), passes, leaves, allowances and new codes on two
    phones: a phone's seeker state is always the seat it shows, with that seat's cards
    only; a phone never holds the mummy's seat beside a seeker's."""
    appliance = start(Path(tmp_path_factory.mktemp("passed")))
    try:
        table = Table(appliance)
        table.new_game(["red", "blue", "violet"])
        store = table.app.extensions["companion.seats"]
        phones = [table.app.test_client(), table.app.test_client()]
        for step in script:
            if step[0] == "join":
                phone, seat = phones[step[1]], step[2]
                adding = len(step) > 3 and step[3]
                code = store.table.codes[seat]
                offered = 'name="add"' in phone.get(f"/join/{code}").get_data(as_text=True)
                (add if adding and offered else join)(phone, code)
            elif step[0] == "pass":
                phone, seat = phones[step[1]], step[2]
                before = held_seats(phone, store)
                res = phone.post("/api/seeker/pass", json={"seat": seat})
                assert res.status_code == (200 if seat in before[1:] and before[0] else 403)
            elif step[0] == "leave":
                html = (
                    phones[step[1]]
                    .get("/join/" + store.table.codes["watch"])
                    .get_data(as_text=True)
                )
                phones[step[1]].post("/leave", data={"csrf": token_of(html)})
                phones[step[1]].get("/")
            elif step[0] == "allow":
                table.host.post("/api/host/allow-crossing", json={})
            else:
                table.host.post("/api/host/codes", json={})
            for phone in phones:
                seats = [s for s in held_seats(phone, store) if s is not None]
                assert "mummy" not in seats or seats == ["mummy"], (step, seats)
                shown = held_seats(phone, store)[0]
                state = phone.get("/api/seeker/state")
                if shown is None or not shown.startswith("seeker"):
                    assert state.status_code == 403
                    continue
                assert state.get_json()["seat"] == shown
                mine = seeker_index(shown)
                assert hand(phone) == (shown, cells(table, mine))
    finally:
        appliance.close()
