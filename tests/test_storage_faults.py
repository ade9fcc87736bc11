"""All or nothing on disk: a change the storage refuses (a full SD card) is answered in
words, 507 or 503 and never 500, and changes nothing, on disk or in memory: every
phone keeps its seat, the old codes still open their seats, the game goes on.

The failures are real: ``seats.json`` is written under an ``RLIMIT_FSIZE`` of a few
bytes (the kernel refuses the write with EFBIG, as it refuses ENOSPC on a full card),
and the journal is filled to SQLite's page limit (SQLite itself answers "database or
disk is full"), on real files of a mock appliance's state directory.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from companion.web import create_app
from tests.seating import join, post_form, token_of
from tests.test_journal_faults import _fill, _make_room
from tests.test_pages import BLUE_HAND, KEY, RED_HAND, Table, error, start

FULL = "The Pi's storage is full: nothing was lost, but this was not saved."


@contextmanager
def disk_full() -> Iterator[None]:
    """Every file this process writes past its 16th byte is refused by the kernel
    (EFBIG; CPython ignores SIGXFSZ): seats.json cannot be written."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


@contextmanager
def journal_full(db: sqlite3.Connection) -> Iterator[None]:
    """The journal (this connection to it) has no room for one more row: neither a
    command nor a game."""
    _fill(db)
    for size in (2000, 200, 20, 1):
        with contextlib.suppress(sqlite3.OperationalError):
            while True:
                db.execute(
                    "INSERT INTO games (kind, setup, created, ended) VALUES ('filler', ?, 0, 0)",
                    ("x" * size,),
                )
    try:
        yield
    finally:
        _make_room(db)
        db.execute("DELETE FROM games WHERE kind = 'filler'")


def seats_file(table: Table) -> Path:
    return Path(table.appliance.journal.path).parent / "seats.json"


def playing(table: Table) -> dict[str, FlaskClient]:
    """A game of two seekers, each seat joined by its phone."""
    table.new_game(["red", "blue"])
    return {seat: table.device(seat) for seat in ("mummy", "seeker0", "seeker1", "table")}


def pages_work(phones: dict[str, FlaskClient]) -> None:
    """Every phone still opens its own seat's state."""
    for seat, phone in phones.items():
        kind = "seeker" if seat.startswith("seeker") else seat
        res = phone.get(f"/api/{kind}/state")
        assert res.status_code == 200, (seat, res.json)


def codes(table: Table) -> dict[str, str]:
    status = table.host.get("/api/host/status").json
    return {s["seat"]: s["code"] for s in status["table"]["seats"]}


def no_leftovers(table: Table) -> None:
    """No half-written seats file is left beside the real one."""
    assert [p.name for p in seats_file(table).parent.glob("*seats*")] == ["seats.json"]


# -- the seats: seats.json cannot be written ------------------------------------------------


def test_new_codes_on_a_full_disk_are_refused_and_every_phone_keeps_playing(table):
    phones = playing(table)
    before_disk = seats_file(table).read_bytes()
    before = codes(table)
    with disk_full():
        res = table.host.post("/api/host/codes", json={})
    assert res.status_code == 507
    assert error(res).startswith(FULL)
    assert seats_file(table).read_bytes() == before_disk
    assert codes(table) == before  # in memory too: the host page shows the old codes
    pages_work(phones)
    no_leftovers(table)
    # With room again, new codes work and shut the old phones out.
    assert table.host.post("/api/host/codes", json={}).status_code == 200
    assert codes(table) != before
    assert phones["seeker0"].get("/api/seeker/state").status_code == 403


def test_joining_on_a_full_disk_is_refused_and_the_seat_stays_with_its_phone(table):
    phones = playing(table)
    before_disk = seats_file(table).read_bytes()
    newcomer = table.app.test_client()
    page = newcomer.get(f"/join/{table.codes['seeker0']}")
    form = {"csrf": token_of(page.get_data(as_text=True)), "takeover": "1"}
    with disk_full():
        res = newcomer.post(f"/join/{table.codes['seeker0']}", data=form)
    assert res.status_code == 507
    assert "storage is full: nothing was lost" in res.get_data(as_text=True)
    assert seats_file(table).read_bytes() == before_disk
    assert newcomer.get("/api/seeker/state").status_code == 403
    pages_work(phones)  # red's own phone was not shut out
    no_leftovers(table)
    assert join(newcomer, table.codes["seeker0"]).status_code == 200  # room again


def test_the_first_device_on_a_full_disk_is_told_and_does_not_become_the_host(tmp_path):
    appliance = start(tmp_path)
    try:
        app = create_app(appliance.service, secret_key=KEY, appliance=appliance)
        store = app.extensions["companion.seats"]
        device = app.test_client()
        with disk_full():
            res = device.get("/")
            pin = post_form(device, "/", "/host", {"pin": store.pin})
        assert res.status_code == 507 and pin.status_code == 507
        assert "storage is full: nothing was lost" in res.get_data(as_text=True)
        assert "storage is full: nothing was lost" in pin.get_data(as_text=True)
        assert store.host_token is None
        assert not (tmp_path / "seats.json").exists()
        assert device.get("/api/host/status").status_code == 403
        assert device.get("/").location == "/host"  # room again: the first device hosts
    finally:
        appliance.close()


def test_a_new_table_on_a_full_disk_starts_no_game_and_keeps_the_seats(table):
    phones = playing(table)
    game = table.service.game.id
    before_disk = seats_file(table).read_bytes()
    with disk_full():
        res = table.host.post("/api/host/game", json={"colours": ["red", "blue", "violet"]})
    assert res.status_code == 507 and error(res).startswith(FULL)
    assert table.service.game.id == game  # the old game goes on
    assert table.appliance.journal.unfinished("mummy").id == game
    (count,) = table.appliance.journal.db.execute("SELECT COUNT(*) FROM games").fetchone()
    assert seats_file(table).read_bytes() == before_disk
    assert table.host.get("/api/host/status").json["table"]["colours"] == ["red", "blue"]
    pages_work(phones)
    no_leftovers(table)
    # With room, the same setup starts the game; the journal gained just that one.
    assert table.host.post("/api/host/game", json={"colours": ["red", "blue", "violet"]}).json
    (after,) = table.appliance.journal.db.execute("SELECT COUNT(*) FROM games").fetchone()
    assert after == count + 1 and table.service.game.id != game


def test_the_last_hand_of_cards_on_a_full_disk_starts_nothing(table):
    table.new_game(["red", "blue"], cards="physical")
    red, blue = table.device("seeker0"), table.device("seeker1")
    game = table.service.game.id
    assert red.post("/api/seeker/cards", json={"cards": RED_HAND}).status_code == 200
    before_disk = seats_file(table).read_bytes()
    with disk_full():
        res = blue.post("/api/seeker/cards", json={"cards": BLUE_HAND})
    assert res.status_code == 507 and error(res).startswith(FULL)
    assert table.service.game.id == game  # the dealt game did not start
    assert seats_file(table).read_bytes() == before_disk
    assert json.loads(before_disk)["table"]["hands"] == {"seeker0": RED_HAND}
    state = blue.get("/api/seeker/state").json
    assert state["stage"] == "dealing" and state["entered"] == []
    assert red.get("/api/seeker/state").json["entered"] == RED_HAND
    no_leftovers(table)
    res = blue.post("/api/seeker/cards", json={"cards": BLUE_HAND})  # room again
    assert res.status_code == 200 and table.service.game.id != game
    assert table.appliance.journal.load(table.service.game.id).setup["hands"] == [
        RED_HAND,
        BLUE_HAND,
    ]


# -- the games: the journal is full ---------------------------------------------------------


def test_a_maze_command_on_a_full_journal_is_507_in_words_and_changes_nothing(table):
    phones = playing(table)
    service = table.service
    seeker = phones[f"seeker{service.game.current.seeker}"]
    before = service.game.current
    with journal_full(table.appliance.journal.db):
        res = seeker.post("/api/seeker/command", json={"cmd": "roll"})
        assert res.status_code == 507 and error(res).startswith(FULL)
        assert res.json["state"]["role"] == "seeker"  # the page redraws as it was
        assert service.game.current is before and service.game.commands == []
        status = table.host.get("/api/host/status").json
        assert status["journal"]["problem"].startswith(FULL)
    assert seeker.post("/api/seeker/command", json={"cmd": "roll"}).status_code == 200


def test_a_maze_command_on_a_locked_journal_is_503_in_words(table):
    phones = playing(table)
    seeker = phones[f"seeker{table.service.game.current.seeker}"]
    other = sqlite3.connect(table.appliance.journal.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        res = seeker.post("/api/seeker/command", json={"cmd": "roll"})
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert res.status_code == 503
    assert "locked by another program: nothing was lost" in error(res)
    assert table.service.game.commands == []


PLAYERS = {"players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]}


def _lootnrun(table: Table) -> Any:
    res = table.host.post("/lootnrun/api/new", json=PLAYERS)
    assert res.status_code == 200, res.json
    return table.appliance.hub.services["lootnrun"]


def test_loot_n_run_on_a_full_journal_is_507_and_changes_nothing(table):
    service = _lootnrun(table)
    before = service.published
    with journal_full(service.journal.db):
        res = table.host.post("/lootnrun/api/command", json={"cmd": "loot"})
        assert res.status_code == 507 and error(res).startswith(FULL)
        new = table.host.post("/lootnrun/api/new", json=PLAYERS)
        assert new.status_code == 507 and error(new).startswith(FULL)
    assert service.published.game_id == before.game_id
    assert service.published.state == before.state
    assert service.journal.load(service.published.game_id).commands == []
    assert table.host.post("/lootnrun/api/command", json={"cmd": "loot"}).status_code == 200


def test_the_crypt_on_a_full_journal_is_507_and_changes_nothing(table):
    crypt = table.appliance.hub.services["crypt"]
    assert table.host.post("/crypt/api/new", json={}).status_code == 200
    game = crypt.game.id
    square = table.host.get("/crypt/api/state").json["hints"][0]["square"]
    with journal_full(crypt.journal.db):
        res = table.host.post("/crypt/api/command", json={"kind": "place_cube", "square": square})
        assert res.status_code == 507 and error(res).startswith(FULL)
        again = table.host.post("/crypt/api/new", json={})
        assert again.status_code == 507
    assert crypt.game.id == game and crypt.game.history == []
    res = table.host.post("/crypt/api/command", json={"kind": "place_cube", "square": square})
    assert res.status_code == 200


def test_seats_staged_but_never_put_in_place_are_cleared_at_the_next_start(tmp_path):
    """A power cut between writing the new seats and moving them in place: the next
    start uses the seats.json it had, and the staged file is gone."""
    appliance = start(tmp_path)
    try:
        host = Table(appliance)
        host.new_game(["red", "blue"])
        before = (tmp_path / "seats.json").read_bytes()
    finally:
        appliance.close()
    (tmp_path / ".seats-abc123.tmp").write_text('{"host": null, "table": null}')
    again = start(tmp_path)
    try:
        store = create_app(again.service, secret_key=KEY, appliance=again).extensions[
            "companion.seats"
        ]
        assert store.table is not None and store.table.colours == ["red", "blue"]
        assert not (tmp_path / ".seats-abc123.tmp").exists()
        assert (tmp_path / "seats.json").read_bytes() == before
    finally:
        again.close()
