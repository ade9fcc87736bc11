"""Public and private per device: the owner of the box hosts and plays the mummy on one
phone, and that phone learns no seeker's cell from any door; the watching seat follows
the maze with the mummy's view (no seeker, no card) and the game that holds the board;
the host page's live stream shows the public view.  Through the real app on the mock
appliance (``tests/conftest.py``'s ``table``)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

from companion.games.mummy.dice import Face
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.state import Phase
from tests.seating import host_undo, join
from tests.test_hidden_information import FlaskPhone
from tests.test_pages import Table, wait_until

CELL_NAME = re.compile(r"\b[A-L](?:1[0-2]|[1-9])\b")
#: Keys that carry a seeker's cell, a card or a move: none may reach the mummy's device.
SECRET_KEYS = ('"positions"', '"hand"', '"legal_destinations"', '"playable"', '"figure_moved"')
#: Doors that show every figure: refused to the mummy's device, in words.
FIGURE_DOORS = (
    "/sim",
    "/sim/api/board",
    "/sim/api/stream",
    "/api/host/journal/{game}",
    "/check",
    "/check/api/state",
    "/check/api/stream",
    "/check/api/reports",
    "/check/api/reports/{report}",
)
#: Routes that hold no game (the files of the pages, the rules, the language).
NO_GAME = ("/static/", "/i18n/", "/favicon.ico", "/rules/")


def every_get(table: Table) -> Iterator[str]:
    """Every GET door of every game, with concrete values for its placeholders."""
    values = {
        "game_id": str(table.service.game.id),
        "code": table.codes["mummy"],
        "game": "mummy",
        "lang": "en",
        "name": "report",  # a board check's saved report
        "token": "0" * 48,  # a remote seat's link (a wrong one)
        "seat": "seeker0",  # a seeker's covered private view
    }
    for rule in table.app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.rule.startswith(NO_GAME):
            continue
        yield re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m[1]], rule.rule)


def opened(client: Any, path: str) -> tuple[int, str]:
    """What a phone receives from a door: the body, or a stream's first event."""
    status, text = FlaskPhone(client).get(path)
    return status, text


def seeker_cells(table: Table) -> set[str]:
    """The cells the seekers' figures stand on now."""
    state = table.service.game.current
    return {state.maze.cell_name(p) for p in state.positions if state.maze.is_cell(p)}


def check_every_door(table: Table, device: Any, secret: set[str], when: str) -> int:
    """The device opens every door: no seeker's cell, no card, no move reaches it; the
    doors that show every figure are shut with words.  Returns the doors opened."""
    mummy = table.service.game.current.mummy
    maze = table.service.maze
    hidden = secret - ({maze.cell_name(mummy)} if maze.is_cell(mummy) else set())
    figure_doors = {d.format(game=table.service.game.id, report="report") for d in FIGURE_DOORS}
    count = 0
    for path in every_get(table):
        status, text = opened(device, path)
        where = f"{path} ({when}): {text[:400]}"
        assert status < 500, where
        if path in figure_doors:
            assert status == 403 and "holds the mummy" in text, where
            continue
        if path.startswith("/api/mummy/"):  # the mummy's own page: what it may see
            assert status == 200, where
        for key in SECRET_KEYS if path != "/api/openapi.json" else ():  # names, never values
            assert key not in text, where
        leaked = set(CELL_NAME.findall(text)) & hidden
        assert not leaked, f"seeker cells {sorted(leaked)} reach the host's mummy phone: {where}"
        if path == "/healthz":
            assert json.loads(text) == {"status": "ok"}, where
        count += 1
    return count


def test_the_host_who_plays_the_mummy_learns_no_seeker_cell_from_any_door(table):
    """The first device becomes host, sets up the game and joins the mummy's code; then
    a seeker moves, takes back, moves again, a figure is knocked during the mummy's turn,
    the host undoes: nothing that device opens names a seeker's cell."""
    table.new_game(["red", "blue"], dice="physical")
    owner = table.host  # the first device: the host
    joined = join(owner, table.codes["mummy"])
    assert joined.status_code == 200 and b"Open my page" in joined.data
    assert owner.get("/").location == "/mummy" and owner.get("/host").status_code == 200
    red, blue = table.device("seeker0"), table.device("seeker1")
    service, board = table.service, table.appliance.mock_board
    secret: set[str] = set()

    def turn(phone: Any, figure: int, *, throw: bool = True) -> str:
        faces = ["3", "3", "2", "4", "arrow"]
        if throw:
            roll = {"cmd": "roll", "faces": faces}
            assert phone.post("/api/seeker/command", json=roll).json["ok"]
            announce = {"cmd": "announce", "face": "3"}
            assert phone.post("/api/seeker/command", json=announce).json["ok"]
        target = legal_destinations(service.game.current, figure, Face.THREE)[0]
        table.move(target)
        name = service.maze.cell_name(target)
        secret.add(name)
        return name

    moved = turn(red, 0)
    assert check_every_door(table, owner, secret | seeker_cells(table), "Red moved") > 20
    status = owner.get("/api/host/status").json
    assert status["game"]["last_action"] == "Red moved a figure"
    # Red takes the move back: the table's guidance names the cell to clear; the host's
    # page says where the steps are instead.
    key = red.get("/api/seeker/state").json["takeback_key"]
    assert red.post("/api/seeker/takeback", json={"action": key}).status_code == 200
    assert moved in str(service.published.judgement.message)
    status = owner.get("/api/host/status").json
    assert status["game"]["notice"]["text"] == "Red took back: moved a figure"
    check_every_door(table, owner, secret | seeker_cells(table), "Red took back")
    table.put_board_right()
    wait_until(lambda: service.published.judgement.matches)
    turn(red, 0, throw=False)  # the announcement stands: Red moves again
    assert red.post("/api/seeker/command", json={"cmd": "end_turn"}).status_code == 200
    turn(blue, 1)
    assert blue.post("/api/seeker/command", json={"cmd": "end_turn"}).status_code == 200
    assert service.game.current.is_mummy_turn
    # A seeker's figure knocked over during the mummy's turn: restore guidance everywhere
    # but on the mummy's device.
    red_at = service.board.position_of(service.game.current, 0)
    assert red_at is not None
    board.lift(red_at)
    wait_until(lambda: not service.published.judgement.matches)
    restore = str(service.published.judgement.message)
    assert any(cell in restore for cell in seeker_cells(table)), restore
    guidance = owner.get("/api/host/status").json["game"]["guidance"]
    assert guidance == (
        "The seekers are putting the board right: the table screen and the seekers' pages "
        "say what goes where."
    )
    check_every_door(table, owner, secret | seeker_cells(table), "a figure knocked")
    board.place(red_at)
    wait_until(lambda: service.published.judgement.matches)
    # The host undoes Blue's end of turn, then Blue's move: named without the cell.
    for _ in range(2):
        undone = host_undo(owner)
        assert undone.status_code == 200 and undone.json["undone"], undone.json
        assert not set(CELL_NAME.findall(json.dumps(undone.json))) & secret
    assert undone.json["game"]["notice"]["text"] == (
        "The host took back Blue's action: moved a figure"
    )
    check_every_door(table, owner, secret | seeker_cells(table), "the host undid Blue's move")
    # The same device without the mummy's seat is the host again: /sim opens.
    other_host = table.app.test_client()
    pin = table.app.extensions["companion.seats"].pin
    from tests.seating import post_form

    assert post_form(other_host, "/host", "/host", {"pin": pin}).status_code == 303
    assert other_host.get("/sim/api/board").status_code == 200
    assert other_host.get(f"/api/host/journal/{service.game.id}").status_code == 200
    assert set(other_host.get("/healthz").json) > {"status"}


def test_the_mummys_device_is_refused_the_boards_doors_in_words(table):
    table.new_game(["red", "blue"])
    join(table.host, table.codes["mummy"])
    page = table.host.get("/sim")
    assert page.status_code == 403 and b"holds the mummy&#39;s seat" in page.data
    res = table.host.get(f"/api/host/journal/{table.service.game.id}")
    assert res.status_code == 403
    assert res.json["error"].startswith("This phone holds the mummy's seat: what shows where")
    assert table.host.post("/sim/api/toggle", json={"position": 0}).status_code == 403
    assert table.host.get("/healthz").json == {"status": "ok"}


def test_the_watching_seat_follows_the_maze_with_the_mummys_view(table):
    table.new_game(["red", "blue"], dice="physical")
    watcher, mummy, red = table.device("watch"), table.device("mummy"), table.device("seeker0")
    assert watcher.get("/").location == "/watch"
    page = watcher.get("/watch")
    assert page.status_code == 200 and b'id="board"' in page.data
    for path in ("/table", "/api/table/state", "/mummy", "/api/mummy/state", "/seeker"):
        assert watcher.get(path).status_code == 403, path
    faces = ["3", "3", "2", "4", "arrow"]
    red.post("/api/seeker/command", json={"cmd": "roll", "faces": faces})
    red.post("/api/seeker/command", json={"cmd": "announce", "face": "3"})
    target = legal_destinations(table.service.game.current, 0, Face.THREE)[0]
    table.move(target)
    watched = watcher.get("/api/watch/state").json
    seen_by_mummy = mummy.get("/api/mummy/state").json
    assert watched["role"] == "watch" and watched["active_game"] == "mummy"
    assert watched["view"] == seen_by_mummy["view"]  # the mummy's view, no second one
    assert watched["log"] == seen_by_mummy["log"]
    assert "Red announces 3." in [e["text"] for e in watched["log"]]
    text = json.dumps(watched)
    for key in SECRET_KEYS:
        assert key not in text
    assert table.service.maze.cell_name(target) not in set(CELL_NAME.findall(text))
    assert watched["guidance"] == "Red's turn: play a card or end the turn."
    status, first = opened(watcher, "/api/watch/stream")
    assert status == 200 and '"role": "watch"' in first and '"positions"' not in first
    # It cannot act, and it follows the game that holds the board.
    assert watcher.post("/api/seeker/command", json={"cmd": "end_turn"}).status_code == 403
    given = table.host.post("/api/host/board", json={"game": "crypt", "pause": True})
    assert given.status_code == 200
    wait_until(lambda: table.appliance.hub.active == "crypt")
    assert watcher.get("/api/watch/state").json["active_game"] == "crypt"
    assert watcher.get("/crypt/api/state").status_code == 200


def test_the_host_status_and_stream_show_the_public_view(table):
    """Without the mummy's seat too: the host page's undo label, guidance and notices
    never name a seeker's cell; its stream sends the same status."""
    table.new_game(["red", "blue"], dice="physical")
    red = table.device("seeker0")
    red.post("/api/seeker/command", json={"cmd": "roll", "faces": ["3", "3", "2", "4", "arrow"]})
    red.post("/api/seeker/command", json={"cmd": "announce", "face": "3"})
    target = legal_destinations(table.service.game.current, 0, Face.THREE)[0]
    table.move(target)
    name = table.service.maze.cell_name(target)
    assert table.service.game.current.phase is Phase.SEEKER_CARD
    status = table.host.get("/api/host/status").json
    assert status["game"]["last_action"] == "Red moved a figure"
    assert name not in set(CELL_NAME.findall(json.dumps(status)))
    code, first = opened(table.host, "/api/host/stream")
    assert code == 200 and first.startswith("data: ")
    assert json.loads(first[len("data: ") :]) == status


def test_a_maze_games_journal_note_on_the_host_page_quotes_no_command(table):
    """A maze game resumed in part: the reason (which may quote a seeker's command and
    its cell) goes to the log and the export, not to the public host page."""
    from companion.journal import ResumeNote

    table.new_game(["red", "blue"])
    journal = table.service.journal
    reason = "command 7: Red may not stop on C4"
    journal.notes.append(ResumeNote("mummy", table.service.game.id, 6, 2, reason))
    journal.notes.append(ResumeNote("lootnrun", 99, 3, 1, "command 4: no such player"))
    join(table.host, table.codes["mummy"])
    notes = table.host.get("/api/host/status").json["journal"]["notes"]
    assert [n["kind"] for n in notes] == ["mummy", "lootnrun"]
    assert "C4" not in json.dumps(notes) and "Export it on a phone" in notes[0]["message"]
    assert "no such player" in notes[1]["message"]
    page = table.host.get("/host").get_data(as_text=True)
    assert "C4" not in CELL_NAME.findall(page)  # (a seat's code may hold "C4": not a cell)
    assert f"Maze game {table.service.game.id} could not" in page


def test_an_open_sim_stream_ends_when_its_device_takes_the_mummys_seat(table):
    """The host follows /sim in one tab and joins the mummy's seat in another: the
    simulator's stream ends at once (its reconnection is then refused), with no figure
    sent after the join.  (Read in this thread, as a server does.)"""
    table.new_game(["red", "blue"])
    stream = table.host.get("/sim/api/stream", buffered=False)
    assert stream.status_code == 200
    chunks = iter(stream.response)
    first_event(chunks)
    # The host's device saw the figures in this game: it allows itself (every page is told).
    assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
    join(table.host, table.codes["mummy"])
    board = table.appliance.mock_board
    board.lift(sorted(board.occupied)[0])  # a figure moves: the stream would send it
    after = the_rest(chunks)
    stream.close()
    assert not any("data:" in c for c in after), after
    again = table.host.get("/sim/api/stream")
    assert again.status_code == 403 and "holds the mummy" in again.get_data(as_text=True)


def test_a_seekers_open_stream_ends_when_its_phone_takes_the_mummys_seat(table):
    """Same colours, new game: Red's phone becomes the mummy's.  Its seeker page still
    open in another tab (an old copy of the cookie) stops at once, and opens nothing."""
    table.new_game(["red", "blue"])
    phone = table.device("seeker0")
    old_cookie = phone.get_cookie("session")
    assert old_cookie is not None
    stream = phone.get("/api/seeker/stream", buffered=False)
    chunks = iter(stream.response)
    assert '"positions"' in first_event(chunks)
    # It saw the seekers in this game: the host allows it (every page is told).
    assert table.host.post("/api/host/allow-crossing", json={}).status_code == 200
    join(phone, table.codes["mummy"])
    assert phone.get("/").location == "/mummy"
    table.appliance.mock_board.lift(sorted(table.appliance.mock_board.occupied)[0])
    after = the_rest(chunks)
    stream.close()
    assert all('"positions"' not in c for c in after), after
    assert any('"stale": true' in c for c in after), after
    tab = table.app.test_client()  # the other tab: the cookie as it was
    tab.set_cookie("session", old_cookie.value)
    assert tab.get("/api/seeker/state").status_code == 403
    # The seat is free: a new phone joins it without taking it over from anyone.
    assert (
        b"open on another phone"
        not in table.app.test_client().get(f"/join/{table.codes['seeker0']}").data
    )


def first_event(chunks: Iterator[Any]) -> str:
    """A stream's text up to its first data event."""
    text = ""
    while "data:" not in text:
        chunk = next(chunks)
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
    return text


def the_rest(chunks: Iterator[Any], within: float = 10.0) -> list[str]:
    """What a stream sends until it ends, which it must do ``within`` seconds."""
    started = time.monotonic()
    after = []
    for chunk in chunks:  # ends when the stream does
        after.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        assert time.monotonic() - started < within, f"the stream went on: {after[-3:]}"
    assert time.monotonic() - started < within
    return after


def test_a_spectator_who_arrives_late_sees_the_game_so_far_and_no_seeker(table):
    """A phone that opens the watching seat's code mid-game (a late guest, a second
    screen) gets the announcements so far on its first message, and still no cell."""
    table.new_game(["red", "blue"], dice="physical")
    red = table.device("seeker0")
    red.post("/api/seeker/command", json={"cmd": "roll", "faces": ["3", "3", "2", "4", "arrow"]})
    red.post("/api/seeker/command", json={"cmd": "announce", "face": "3"})
    target = legal_destinations(table.service.game.current, 0, Face.THREE)[0]
    table.move(target)
    late = table.device("watch")  # joins only now
    status, first = opened(late, "/api/watch/stream")
    assert status == 200 and "Red announces 3." in first
    for key in SECRET_KEYS:
        assert key not in first
    assert table.service.maze.cell_name(target) not in set(CELL_NAME.findall(first))
