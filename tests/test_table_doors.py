"""The table every game stands on, through the real app on the mock appliance: every
door refuses without a seat, the watching seat only looks, only the host gives the
board away (a running maze game pauses and comes back in restore mode), /healthz tells
strangers only that it lives, guessers are throttled per address whatever succeeds in
between, other sites cannot post, and a seat lives on one device at a time."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest

from companion.games.mummy.commands import Roll
from companion.service.loop import ServiceError
from tests.seating import join, post_form, token_of
from tests.test_pages import Table, wait_until

#: Doors anyone may knock on: the start page, the join links, the host's PIN form,
#: leaving a seat, the health check and the static files; the pages' texts in each
#: language, the icon and the rules (with the host's options, which are no secret).
OPEN_DOORS = {
    "/i18n/<lang>.js",
    "/favicon.ico",
    "/rules/<game>",
    "/",
    "/join/<code>",
    "/host",
    "/leave",
    "/healthz",
    "/static/<path:filename>",
    "/api/openapi.json",
    # the remote link opens only on the tunnel's listener (404 here), and /live only the
    # stream it names when that stream's own door opens (tests/test_live_transport.py)
    "/r/<token>",
    "/live",
}


def doors(table: Table) -> list[tuple[str, str]]:
    """Every route of every game, with a concrete path and its method."""
    found = []
    for rule in table.app.url_map.iter_rules():
        if rule.rule in OPEN_DOORS:
            continue
        # A concrete value per placeholder: "1" for an id, a code's shape otherwise.
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: "1" if "id" in m[1] else "ABCDEF", rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((method, path))
    return found


def test_every_door_of_every_game_refuses_a_device_without_a_seat(table):
    table.new_game(["red", "blue"])
    stranger = table.app.test_client()
    routes = doors(table)
    prefixes = {path.split("/")[1] for _, path in routes}
    assert {"api", "crypt", "lootnrun", "sim", "mummy", "seeker", "table"} <= prefixes
    for method, path in routes:
        res = stranger.open(path, method=method, json={} if method == "POST" else None)
        assert res.status_code == 403, (method, path, res.status_code)
        if "/api/" in path:
            assert res.get_json()["error"], (method, path)
    assert table.appliance.hub.active == "mummy"


def test_the_watching_seat_looks_at_the_open_games_and_changes_nothing(table):
    table.new_game(["red", "blue"])
    watcher = table.device("watch")
    second = table.device("watch")  # any number of phones may watch
    for phone in (watcher, second):
        assert phone.get("/").location == "/watch"
        assert phone.get("/crypt/api/state").status_code == 200
        assert phone.get("/lootnrun/api/view").status_code == 200
        for page in ("/mummy", "/seeker", "/table", "/api/table/state", "/sim"):
            assert phone.get(page).status_code == 403, page
    refused = watcher.post("/crypt/api/new", json={"players": 2})
    assert refused.status_code == 403 and "watches" in refused.get_json()["error"]
    assert watcher.post("/lootnrun/api/undo", json={}).status_code == 403
    mummy = table.device("mummy")  # a playing seat may play the open games
    assert mummy.post("/crypt/api/new", json={"players": 2}).status_code == 200


def test_only_the_host_gives_the_board_and_a_running_maze_game_pauses(table):
    table.new_game(["red", "blue"])
    mummy, red = table.device("mummy"), table.device("seeker0")
    hub = table.appliance.hub
    for phone in (mummy, red):
        assert phone.post("/crypt/api/board", json={"game": "crypt"}).status_code == 403
        assert phone.post("/lootnrun/api/board", json={"show": True}).status_code == 403
        assert phone.post("/api/host/board", json={"game": "crypt"}).status_code == 403
    assert hub.active == "mummy"
    asked = table.host.post("/api/host/board", json={"game": "crypt"})
    assert asked.status_code == 409 and "pauses it" in asked.get_json()["error"]
    assert hub.active == "mummy"
    given = table.host.post("/api/host/board", json={"game": "crypt", "pause": True})
    assert given.status_code == 200 and given.get_json()["board"]["maze_paused"]
    service = table.service
    wait_until(lambda: service.paused == "crypt" and service.published.paused == "crypt")
    paused = "The game is paused: the board plays Into the Crypt."
    for phone, path in ((mummy, "/api/mummy/state"), (red, "/api/seeker/state")):
        state = phone.get(path).get_json()
        assert state["board"]["message"].startswith(paused), state["board"]
        assert state["guidance"].startswith(paused)
    assert table.host.get("/api/host/status").get_json()["board"]["maze_paused"]
    assert red.get("/crypt/api/state").get_json()["board"]["maze_paused"]  # the page says it
    refused = red.post("/api/seeker/command", json={"cmd": "roll"})
    assert refused.status_code == 400 and refused.get_json()["error"].startswith(paused)
    with pytest.raises(ServiceError, match="paused"):
        service.submit("seeker0", Roll())
    # A figure knocked over while the crypt plays; the maze comes back in restore mode.
    state = service.game.current
    home = service.board.position_of(state, 0)
    table.appliance.mock_board.lift(home)
    back = table.host.post("/api/host/board", json={"game": "mummy"})
    assert back.status_code == 200 and hub.active == "mummy"
    wait_until(lambda: service.paused is None and not service.published.judgement.matches)
    message = red.get("/api/seeker/state").get_json()["board"]["message"]
    assert "paused" not in message and message  # the restore guidance, in words
    mummy_says = mummy.get("/api/mummy/state").get_json()
    assert "paused" not in mummy_says["guidance"]
    table.appliance.mock_board.place(home)
    wait_until(lambda: service.published.judgement.matches)
    assert red.post("/api/seeker/command", json={"cmd": "roll"}).status_code == 200


def test_healthz_tells_a_stranger_only_that_the_companion_lives(table):
    table.new_game(["red", "blue"])
    for client in (table.app.test_client(), table.device("mummy")):
        assert client.get("/healthz").get_json() == {"status": "ok"}
    details = table.host.get("/healthz").get_json()
    assert details["status"] == "ok" and {"version", "board", "game"} <= set(details)


def test_wrong_codes_lock_an_address_even_between_right_ones(table):
    """Nine wrong codes, then one's own valid code, again: the tenth failure locks."""
    table.new_game(["red", "blue"])
    guesser = table.app.test_client()
    for _ in range(9):
        assert guesser.get("/join/AAAAAA").status_code == 403
    assert guesser.get(f"/join/{table.codes['watch']}").status_code == 200
    assert join(guesser, table.codes["watch"]).status_code == 200
    assert guesser.get("/join/AAAAAA").status_code == 403  # the tenth failure
    locked = guesser.get(f"/join/{table.codes['watch']}")
    assert locked.status_code == 429 and b"Too many wrong codes" in locked.data
    other = table.app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert other.get(f"/join/{table.codes['watch']}").status_code == 200  # another address


def test_wrong_pins_lock_only_the_address_they_came_from(table):
    guesser = table.app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    for _ in range(5):
        post_form(guesser, "/host", "/host", {"pin": "000000x"})
    pin = table.app.extensions["companion.seats"].pin
    locked = post_form(guesser, "/host", "/host", {"pin": pin})
    assert locked.status_code == 403 and b"Too many wrong PINs" in locked.data
    owner = table.app.test_client()
    owner.environ_base["REMOTE_ADDR"] = "10.0.0.8"
    assert post_form(owner, "/host", "/host", {"pin": pin}).status_code == 303


def test_another_site_cannot_post_a_code_a_pin_or_a_command(table):
    table.new_game(["red", "blue"])
    victim = table.device("seeker0")
    evil = {"Origin": "http://evil.example"}
    token = token_of(victim.get(f"/join/{table.codes['table']}").get_data(as_text=True))
    for path, data in (
        ("/", {"code": table.codes["table"], "csrf": token}),
        (f"/join/{table.codes['table']}", {"csrf": token, "takeover": "1"}),
        ("/host", {"pin": "123456", "csrf": token}),
    ):
        res = victim.post(path, data=data, headers=evil)
        assert res.status_code == 403 and b"another site" in res.data, path
    assert victim.get("/").location == "/seeker"  # still the victim's own seat
    for path, data in (("/", {"code": table.codes["table"]}), ("/leave", {})):
        res = victim.post(path, data=data)  # no token: a form from elsewhere
        assert res.status_code == 403 and b"form has expired" in res.data
    res = victim.post("/api/seeker/command", json={"cmd": "roll"}, headers=evil)
    assert res.status_code == 403 and "another site" in res.get_json()["error"]
    res = table.host.post("/api/host/codes", json={}, headers=evil)
    assert res.status_code == 403
    same = {"Origin": "http://localhost"}
    assert victim.post("/api/seeker/command", json={"cmd": "roll"}, headers=same).status_code == 200


def test_a_second_phone_takes_a_seat_over_only_after_asking_and_the_first_is_told(table):
    table.new_game(["red", "blue"])
    first = table.device("seeker0")
    assert first.get("/api/seeker/state").status_code == 200
    second = table.app.test_client()
    ask = second.get(f"/join/{table.codes['seeker0']}")
    assert ask.status_code == 200 and b"open on another phone" in ask.data
    not_yet = join(second, table.codes["seeker0"], takeover=False)
    assert b"open on another phone" in not_yet.data
    assert first.get("/api/seeker/state").status_code == 200  # nothing moved yet
    assert second.get("/api/seeker/state").status_code == 403
    # The first phone's live stream ends (its page reloads) when the seat moves.
    received: list[str] = []
    stream = first.get("/api/seeker/stream", buffered=False)

    def read() -> None:
        for chunk in stream.response:
            received.append(chunk.decode() if isinstance(chunk, bytes) else chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: received)
    took = join(second, table.codes["seeker0"])
    assert took.status_code == 200 and b"Open my page" in took.data
    assert second.get("/api/seeker/state").status_code == 200
    wait_until(lambda: any('"stale": true' in c for c in received), timeout=5)
    reader.join(timeout=5)
    shut = first.get("/api/seeker/state")
    assert shut.status_code == 403 and "opened on another phone" in shut.get_json()["error"]
    page = first.get("/seeker")
    assert page.status_code == 403 and b"opened on another phone" in page.data
    assert b"opened on another phone" in first.get("/").data


def test_the_host_page_hides_the_codes_once_every_seat_has_joined(table):
    table.new_game(["red"])
    page = table.host.get("/host").get_data(as_text=True)
    assert '<details id="codes-box" class="codes-box" open>' in page
    for seat in ("mummy", "seeker0"):
        table.device(seat)
    assert not table.host.get("/api/host/status").get_json()["table"]["all_joined"]
    table.device("table")
    status: Any = table.host.get("/api/host/status").get_json()
    assert status["table"]["all_joined"]  # the watching seat is not waited for
    page = table.host.get("/host").get_data(as_text=True)
    assert '<details id="codes-box" class="codes-box">' in page
    assert "Every seat has joined: tap to show the codes" in page
    assert table.codes["seeker0"] in page  # behind the tap, still there
    # but not the mummy's, once its seat is joined (the host may ask for it again)
    assert table.codes["mummy"] not in page


def test_throttle_failures_count_until_the_lock_expires():
    from companion.table.seats import Throttle

    throttle = Throttle(3, lock_s=10.0)
    now = time.monotonic()
    throttle.failed("a", now)
    throttle.failed("a", now + 1)
    assert not throttle.locked("a", now + 1)
    throttle.failed("a", now + 2)
    assert throttle.locked("a", now + 3) and not throttle.locked("b", now + 3)
    assert not throttle.locked("a", now + 12.5)


@pytest.mark.parametrize("path", ["/crypt/api/stream", "/lootnrun/api/stream"])
def test_an_open_games_stream_ends_when_its_seat_is_gone(table, path):
    """New codes shut every phone out: an open stream of an open game ends too.  (Read
    in this thread, as a server does: Flask's stream context belongs to one thread.)"""
    table.new_game(["red", "blue"])
    mummy = table.device("mummy")
    stream = mummy.get(path, buffered=False)
    assert stream.status_code == 200

    def new_codes() -> None:
        time.sleep(0.3)
        assert table.host.post("/api/host/codes", json={}).status_code == 200

    started = time.monotonic()
    threading.Thread(target=new_codes, daemon=True).start()
    chunks = []
    for chunk in stream.response:  # ends when the stream does
        chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        assert time.monotonic() - started < 10, "the stream went on without a seat"
    stream.close()
    assert any("data:" in c for c in chunks)
    assert time.monotonic() - started < 10, "the stream went on without a seat"
    assert (
        mummy.get(path.replace("stream", "view" if "lootnrun" in path else "state")).status_code
        == 403
    )


def test_a_game_without_a_sheet_hears_nothing_of_the_figures(table):
    """While Loot N Run holds the board (a paused maze game left its figures), lifting
    and placing figures publishes nothing on its pages: no rhythm of moves to count."""
    table.new_game(["red", "blue"])
    given = table.host.post("/api/host/board", json={"game": "lootnrun", "pause": True})
    assert given.status_code == 200
    lootnrun = table.appliance.hub.service("lootnrun")
    wait_until(lambda: table.appliance.hub.active == "lootnrun")
    time.sleep(0.3)
    before = lootnrun.published.version
    board = table.appliance.mock_board
    for position in sorted(board.occupied):
        board.lift(position)
    board.place(0)
    time.sleep(0.5)  # longer than the debounce: the changes have reached the hub
    assert table.appliance.hub.off_board() == 1
    assert lootnrun.published.version == before
