"""Every page names the game that really holds the board, after any switch: the maze's
pages (paused: "the board plays ..."), Loot N Run's, the crypt's, the host's, and their
live streams on the real server (crypt -> Loot N Run -> maze and every other order)."""

from __future__ import annotations

import itertools
import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from companion.bench.clients import Site
from tests.test_live_streams import live

__all__ = ["live"]  # the real server, shared with the stream tests

NAMES = {"mummy": "the mummy maze", "lootnrun": "Loot N Run", "crypt": "Into the Crypt"}
#: Every order in which the host may hand the board around, from the maze and back.
ROUNDS = [
    ["crypt", "lootnrun", "mummy"],
    ["lootnrun", "crypt", "mummy"],
    ["crypt", "mummy", "lootnrun", "mummy"],
    ["lootnrun", "crypt", "lootnrun", "crypt", "mummy"],
]


def says_holder(holder: str, maze: Any, lootnrun: Any, crypt: Any) -> list[str]:
    """What is wrong with these pages' JSON, given that ``holder`` has the board."""
    wrong = []
    maze_text = json.dumps(maze)
    for game, name in NAMES.items():
        said = f"the board plays {name}" in maze_text
        if said != (game == holder and holder != "mummy"):
            wrong.append(f"maze page {'names' if said else 'misses'} {name}")
    if ("paused" in maze_text) != (holder != "mummy"):
        wrong.append("maze page paused wrong")
    board = lootnrun["board"]
    if board["active"] != (holder == "lootnrun") or board["maze_paused"] != (holder != "mummy"):
        wrong.append(f"Loot N Run says {board}")
    if board.get("active_game") != holder:
        wrong.append(f"Loot N Run says {board}")
    if crypt["board"]["active_game"] != holder:
        wrong.append(f"crypt says {crypt['board']['active_game']}")
    message = json.dumps(crypt["board"].get("message"))
    if holder not in ("crypt",) and NAMES[holder] not in message:
        wrong.append(f"crypt message {message}")
    # The paused maze is the crypt page's own line beside the board's (said once, not in
    # every message): the page reads it from ``maze_paused``.
    if crypt["board"]["maze_paused"] != (holder != "mummy"):
        wrong.append(f"crypt says the maze paused: {crypt['board']['maze_paused']}")
    return wrong


def give(host: Any, game: str) -> None:
    res = host.post("/api/host/board", json={"game": game, "pause": True})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["board"]["active_game"] == game


def pages_say(seats: dict[str, Any], holder: str) -> list[str]:
    """What every seat's pages get wrong about who holds the board (none: all right)."""
    wrong = []
    for seat, client in seats.items():
        kind = "seeker" if seat.startswith("seeker") else seat
        maze = client.get(f"/api/{kind}/state").get_json()
        lootnrun = client.get("/lootnrun/api/view").get_json()
        crypt = client.get("/crypt/api/state").get_json()
        wrong += [f"{seat}: {w}" for w in says_holder(holder, maze, lootnrun, crypt)]
    return wrong


@pytest.mark.parametrize("order", ROUNDS, ids=["-".join(r) for r in ROUNDS])
def test_every_page_names_the_game_that_holds_the_board(table, order):
    from tests.test_pages import wait_until

    table.new_game(["red", "blue"])
    seats = {s: table.device(s) for s in ("mummy", "seeker0", "table")}
    for game in order:
        give(table.host, game)
        try:
            wait_until(lambda holder=game: not pages_say(seats, holder), timeout=3.0)
        except AssertionError:
            raise AssertionError(f"after {game}: {pages_say(seats, game)}") from None
        status = table.host.get("/api/host/status").get_json()
        assert status["board"]["active_game"] == game
        assert status["board"]["maze_paused"] == (game != "mummy")


# -- the live streams on the real server --------------------------------------------------


class Follower:
    """A stream's messages as they come (the last one is what the page shows)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""
        self.last: dict[str, Any] = {}

    def read(self) -> dict[str, Any]:
        self.sock.setblocking(False)
        while True:
            try:
                chunk = self.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                break
            if not chunk:
                break
            self.buffer += chunk
        *done, self.buffer = self.buffer.split(b"\n\n")
        for part in done:
            if b"data: " in part:
                self.last = {**self.last, **json.loads(part.split(b"data: ", 1)[1])}
        return self.last


@pytest.mark.parametrize("order", ROUNDS[:2], ids=["-".join(r) for r in ROUNDS[:2]])
def test_every_stream_follows_each_switch(live, order):
    _, site = live
    site.cookies["host"] = host_cookie(site)
    streams = {
        path: Follower(site.open_stream(seat, path))
        for seat, path in (
            ("host", "/sim/api/stream"),
            ("watch", "/api/watch/stream"),
            ("table", "/api/table/stream"),
            ("mummy", "/api/mummy/stream"),
            ("table", "/lootnrun/api/stream"),
            ("watch", "/lootnrun/api/stream?watch"),
            ("seeker0", "/crypt/api/stream"),
        )
    }
    try:
        for game in order:
            site.host_post("/api/host/board", {"game": game, "pause": True})
            deadline = time.monotonic() + 5
            wrong: list[str] = ["nothing read"]
            while wrong and time.monotonic() < deadline:
                time.sleep(0.1)
                read = {path: follower.read() for path, follower in streams.items()}
                wrong = []
                for maze in ("/api/table/stream", "/api/mummy/stream"):
                    wrong += says_holder(
                        game, read[maze], read["/lootnrun/api/stream"], read["/crypt/api/stream"]
                    )
                watch = read["/lootnrun/api/stream?watch"].get("board", {})
                if watch.get("active") != (game == "lootnrun"):
                    wrong.append(f"the watching seat's Loot N Run says {watch}")
                spectator = read["/api/watch/stream"]
                if spectator.get("active_game") != game:
                    wrong.append(f"the watching seat says {spectator.get('active_game')}")
                if ("paused" in json.dumps(spectator)) != (game != "mummy"):
                    wrong.append("the watching seat's maze paused wrong")
                sim = read["/sim/api/stream"].get("game", {}).get("active_game")
                if sim != game:
                    wrong.append(f"the simulator says {sim}")
            assert not wrong, f"after giving the board to {game}: {wrong}"
    finally:
        for follower in streams.values():
            follower.sock.close()


# -- HEAD on a stream ------------------------------------------------------------------------

STREAMS = [
    ("table", "/api/table/stream"),
    ("mummy", "/api/mummy/stream"),
    ("seeker0", "/api/seeker/stream"),
    ("watch", "/lootnrun/api/stream"),
    ("watch", "/crypt/api/stream"),
]


@pytest.mark.parametrize(("seat", "path"), STREAMS)
def test_head_on_a_stream_opens_the_same_doors_as_get(table, seat, path):
    table.new_game(["red", "blue"])
    res = table.device(seat).head(path)
    assert res.status_code == 200 and res.mimetype == "text/event-stream"
    assert table.app.test_client().head(path).status_code == 403  # no seat: shut


@pytest.mark.parametrize(
    ("seat", "path"), [*STREAMS, ("host", "/sim/api/stream"), ("host", "/api/host/stream")]
)
def test_head_on_a_stream_of_the_real_server_sends_no_body(live, seat, path):
    app, site = live
    cookie = site.cookies[seat] if seat != "host" else host_cookie(site)
    sock = socket.create_connection(("127.0.0.1", site.port), timeout=5)
    try:
        sock.sendall(
            f"HEAD {path} HTTP/1.1\r\nHost: 127.0.0.1:{site.port}\r\nCookie: {cookie}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := sock.recv(65536):  # the server closes: nothing follows the head
            answer += chunk
    finally:
        sock.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"text/event-stream" in head
    assert body == b""
    broadcaster = app.extensions.get("companion.broadcaster")
    assert broadcaster is None or broadcaster.count == 0  # no stream was handed over


def host_cookie(site: Site) -> str:
    jar = site.host.handlers
    for handler in jar:
        cookies = getattr(handler, "cookiejar", None)
        if cookies is not None:
            return "; ".join(f"{c.name}={c.value}" for c in cookies)
    raise AssertionError("no host cookie")


def test_rounds_cover_every_switch_between_two_games():
    switches = {pair for order in ROUNDS for pair in itertools.pairwise(["mummy", *order])}
    games = NAMES.keys()
    assert switches == {(a, b) for a in games for b in games if a != b}


# -- in a real browser ----------------------------------------------------------------------


def test_the_pages_in_a_browser_name_the_game_that_holds_the_board(tmp_path: Path) -> None:
    """A seeker's maze page, Loot N Run's and the crypt's, open side by side in chromium
    while the host hands the board crypt -> Loot N Run -> maze: each says who has it."""
    from tests.test_browser import CHROMIUM, Server, phone, sync_api

    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed")
    expect = sync_api.expect
    server = Server(tmp_path)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            phone(browser).goto(server.url + "/")  # the owner's phone hosts; the test by PIN
            status = server.post("/api/host/game", {"colours": ["red", "blue"]})
            code = {s["seat"]: s["code"] for s in status["table"]["seats"]}["seeker0"]
            red = phone(browser)
            red.goto(f"{server.url}/join/{code}")
            red.get_by_role("button", name="Join as the Seeker Red").click()
            expect(red).to_have_url(server.url + "/seeker")
            lootnrun, crypt = red.context.new_page(), red.context.new_page()
            lootnrun.goto(server.url + "/lootnrun")
            crypt.goto(server.url + "/crypt")
            for game in ("crypt", "lootnrun", "mummy"):
                server.post("/api/host/board", {"game": game, "pause": True})
                name = NAMES[game]
                if game == "mummy":
                    expect(red.locator("#guidance")).not_to_contain_text("paused")
                    expect(lootnrun.locator("#maze-paused")).to_be_hidden()
                else:
                    expect(red.locator("#guidance")).to_contain_text(f"the board plays {name}")
                    expect(lootnrun.locator("#maze-paused")).to_be_visible()
                # Loot N Run's page says it once: the menu's line names the game and
                # opens it, its own "The board plays …" stays hidden (issue 37).
                expect(lootnrun.locator("#board-holder")).to_be_hidden()
                if game == "crypt":
                    expect(lootnrun.locator("#board-moved")).to_contain_text(
                        f"The board plays {name} now."
                    )
                elif game == "mummy":
                    expect(lootnrun.locator("#board-moved")).to_contain_text(
                        "The board is back with the maze."
                    )
                if game == "crypt":
                    expect(crypt.locator("#board-game")).to_contain_text(
                        "The board plays Into the Crypt"
                    )
                else:
                    expect(crypt.locator("#board-game")).to_have_text(f"The board plays {name}.")
            browser.close()
    finally:
        server.stop()
