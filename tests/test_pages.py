"""The mummy game's pages and API with Flask's test client on the simulated board:
joining, the host and its PIN, seats that cannot open each other's pages, tampered
cookies, commands and their errors in words, physical dice and cards, restarts."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from flask.testing import FlaskClient

from companion.board.config import default_config_text, parse_config
from companion.games.mummy.dice import Face
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.state import Phase
from companion.mazes import load_maze
from companion.service.appliance import Appliance, build
from companion.web import create_app
from tests.seating import host_undo, join, post_form

KEY = os.urandom(32)
FACES = ["1", "2", "3", "4", "arrow"]


def wait_until(check: Callable[[], object], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.005)


def start(state_dir: Path) -> Appliance:
    config = parse_config(default_config_text().replace("settle_ms = 91", "settle_ms = 20"))
    maze, text = load_maze(None)
    return build(config, maze, text, state_dir=state_dir, mock=True, quiet_s=0.08)


class Table:
    """An appliance, its app and the devices around the table."""

    def __init__(self, appliance: Appliance) -> None:
        self.appliance = appliance
        self.service = appliance.service
        self.app: Flask = create_app(appliance.service, secret_key=KEY, appliance=appliance)
        self.host = self.app.test_client()
        assert self.host.get("/").location == "/host"
        self.codes: dict[str, str] = {}

    def new_game(self, colours: list[str] | None = None, **options: Any) -> dict[str, Any]:
        body = {"colours": colours or ["red", "blue"], **options}
        res = self.host.post("/api/host/game", json=body)
        assert res.status_code == 200, res.json
        # The codes as the host page shows them.  The mummy's is hidden once its seat is
        # joined: a rematch keeps it, so the host still knows it from the first game.
        shown = {s["seat"]: s["code"] for s in res.json["table"]["seats"]}
        self.codes = {seat: code or self.codes[seat] for seat, code in shown.items()}
        self.put_board_right()
        return dict(res.json)

    def put_board_right(self) -> None:
        service = self.service
        self.appliance.mock_board.set_occupied(
            service.board.expected(service.game.current).values()
        )
        wait_until(lambda: service.published.judgement.matches)

    def device(self, seat: str | None = None) -> FlaskClient:
        client = self.app.test_client()
        if seat is not None:
            res = join(client, self.codes[seat])
            assert res.status_code == 200 and b"Open my page" in res.data, res.data
        return client

    def move(self, to: int) -> None:
        """Carry the figure whose turn it is to ``to`` on the simulated board."""
        service = self.service
        state = service.game.current
        home = service.board.position_of(state, state.figure)
        assert home is not None
        self.appliance.mock_board.lift(home)
        self.appliance.mock_board.place(to)
        wait_until(lambda: service.game.current.phase is Phase.SEEKER_CARD)


def error(res: Any) -> str:
    return str(res.json["error"])


# -- the host -------------------------------------------------------------------------


def test_the_first_device_is_the_host_and_another_needs_the_pin(table):
    assert table.host.get("/host").status_code == 200
    other = table.app.test_client()
    assert other.get("/").status_code == 200  # the code form, not the host page
    page = other.get("/host")
    assert page.status_code == 403 and b"PIN" in page.data
    assert other.post("/api/host/game", json={"colours": ["red"]}).status_code == 403
    wrong = post_form(other, "/host", "/host", {"pin": "x"})
    assert wrong.status_code == 403 and b"not the PIN" in wrong.data
    pin = table.app.extensions["companion.seats"].pin
    assert post_form(other, "/host", "/host", {"pin": pin}).status_code == 303
    assert other.get("/host").status_code == 200


def test_the_host_page_itself_is_claimed_by_the_first_device(tmp_path):
    appliance = start(tmp_path)
    try:
        app = create_app(appliance.service, secret_key=KEY, appliance=appliance)
        first, second = app.test_client(), app.test_client()
        assert first.get("/host").status_code == 200
        assert second.get("/host").status_code == 403
        assert first.get("/").location == "/host"
    finally:
        appliance.close()


def test_wrong_pins_lock_the_host_page_for_a_while(table):
    other = table.app.test_client()
    for _ in range(5):
        post_form(other, "/host", "/host", {"pin": "000000x"})
    pin = table.app.extensions["companion.seats"].pin
    locked = post_form(other, "/host", "/host", {"pin": pin})
    assert locked.status_code == 403 and b"Too many wrong PINs" in locked.data


def test_the_pin_is_in_the_log(tmp_path, caplog):
    appliance = start(tmp_path)
    try:
        with caplog.at_level(logging.INFO):
            app = create_app(appliance.service, secret_key=KEY, appliance=appliance)
        pin = app.extensions["companion.seats"].pin
        assert f"host PIN {pin}" in caplog.text
    finally:
        appliance.close()


def test_the_host_page_shows_the_address_and_a_qr_code_per_seat(table):
    table.new_game(["red", "blue"])
    page = table.host.get("/host").get_data(as_text=True)
    assert page.count("<svg") == 1 + 5  # the address, mummy, two seekers, table, watching
    for code in table.codes.values():
        assert code in page and f"/join/{code}" in page
    assert "http://" in page
    assert 'href="/lootnrun"' in page and 'href="/crypt"' in page  # the other games


# -- joining and seats ------------------------------------------------------------------


def test_a_code_binds_a_device_to_its_seat(table):
    table.new_game(["red", "blue"])
    phone = table.app.test_client()
    res = join(phone, table.codes["seeker1"].lower())
    assert res.status_code == 200 and b'location.replace("/seeker")' in res.data
    assert b"This device is now the Seeker Blue." in res.data
    assert phone.get("/seeker").status_code == 200
    assert phone.get("/").location == "/seeker"
    assert phone.get("/api/seeker/state").json["seat"] == "seeker1"
    typed = table.app.test_client()
    post_form(typed, "/", "/", {"code": f" {table.codes['mummy']} "})
    assert typed.get("/").location == "/mummy"
    status = table.host.get("/api/host/status").json
    joined = {s["seat"]: s["joined"] for s in status["table"]["seats"]}
    assert joined == {
        "mummy": True,
        "seeker0": False,
        "seeker1": True,
        "table": False,
        "watch": False,
    }


def test_a_wrong_code_says_so(table):
    phone = table.app.test_client()
    assert b"No game is set up yet" in phone.get("/join/ABCDEF").data
    table.new_game()
    res = phone.get("/join/ABCDEF")
    assert res.status_code == 403 and b"not one of this game" in res.data


@pytest.mark.parametrize(
    "path",
    [
        "/mummy",
        "/seeker",
        "/table",
        "/api/mummy/state",
        "/api/seeker/state",
        "/api/table/state",
        "/api/mummy/stream",
        "/api/seeker/stream",
        "/api/table/stream",
        "/api/host/status",
    ],
)
def test_nothing_opens_without_a_seat(table, path):
    table.new_game()
    res = table.app.test_client().get(path)
    assert res.status_code == 403
    if path.startswith("/api/"):
        assert "error" in res.json


def test_no_seat_can_open_another_seats_page_or_api(table):
    table.new_game(["red", "blue"])
    seats = {s: table.device(s) for s in ("mummy", "seeker0", "table")}
    kinds = {"mummy": "mummy", "seeker0": "seeker", "table": "table"}
    for seat, client in seats.items():
        for kind in ("mummy", "seeker", "table"):
            allowed = kinds[seat] == kind
            assert (client.get(f"/{kind}").status_code == 200) == allowed
            assert (client.get(f"/api/{kind}/state").status_code == 200) == allowed
        for kind in ("mummy", "seeker"):
            if kinds[seat] != kind:
                res = client.post(f"/api/{kind}/command", json={"cmd": "roll"})
                assert res.status_code == 403
        assert client.post("/api/host/undo").status_code == 403
        assert client.post("/api/host/codes").status_code == 403


def test_a_seeker_cannot_play_on_another_seekers_turn(table):
    table.new_game(["red", "blue"])
    blue = table.device("seeker1")
    res = blue.post("/api/seeker/command", json={"cmd": "roll"})
    assert res.status_code == 400 and error(res) == "It is Red's turn."


def test_a_tampered_or_forged_cookie_is_no_seat(table):
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    cookie = red.get_cookie("session")
    assert cookie is not None
    value = cookie.value
    head, _, signature = value.rpartition(".")
    # Change the first character: the last one of base64 also holds ignored padding
    # bits, so changing it can leave the signature the same (a flaky "tampering").
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    other_key = Flask("forger")
    other_key.secret_key = os.urandom(32)
    serializer = SecureCookieSessionInterface().get_signing_serializer(other_key)
    assert serializer is not None
    own = table.app.extensions["companion.seats"].table
    binding = {"table": own.id, "v": own.version, "seat": "mummy", "d": "forged"}
    forged = serializer.dumps({"seat": binding, "host": "x"})
    for bad in (f"{head}.{flipped}", forged, value.replace(".", "x.", 1)):
        thief = table.app.test_client()
        thief.set_cookie("session", bad)
        assert thief.get("/api/mummy/state").status_code == 403
        assert thief.get("/api/seeker/state").status_code == 403
        assert thief.get("/mummy").status_code == 403
        assert thief.post("/api/host/undo").status_code == 403
    red.set_cookie("session", value)  # the genuine cookie still works
    assert red.get("/api/seeker/state").status_code == 200


def test_new_codes_shut_every_phone_out(table):
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    old = table.codes["seeker0"]
    res = table.host.post("/api/host/codes", json={})
    assert res.status_code == 200
    new = {s["seat"]: s["code"] for s in res.json["table"]["seats"]}
    assert new["seeker0"] != old
    assert red.get("/api/seeker/state").status_code == 403
    assert red.get(f"/join/{old}").status_code == 403
    assert join(red, new["seeker0"]).status_code == 200
    assert red.get("/api/seeker/state").status_code == 200


def test_the_same_colours_keep_the_seats(table):
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    codes = dict(table.codes)
    table.new_game(["red", "blue"], exact=True)
    assert table.codes == codes
    assert red.get("/api/seeker/state").json["options"]["exact"] is True


def test_a_new_game_keeps_every_seat_whose_role_it_still_has(table):
    """Adding Turquoise shut every phone out before; now only a colour left out does."""
    table.new_game(["red", "blue"])
    red, blue = table.device("seeker0"), table.device("seeker1")
    mummy, screen, watcher = table.device("mummy"), table.device("table"), table.device("watch")
    codes = dict(table.codes)
    status = table.new_game(["red", "turquoise", "blue"])
    # Blue moved to the third place in the turn order and kept its phone and its code.
    assert table.codes["seeker0"] == codes["seeker0"]
    assert table.codes["seeker2"] == codes["seeker1"]
    assert table.codes["seeker1"] not in codes.values()
    for seat in ("mummy", "table", "watch"):
        assert table.codes[seat] == codes[seat]
    assert red.get("/api/seeker/state").json["seat"] == "seeker0"
    assert blue.get("/api/seeker/state").json["seat"] == "seeker2"
    assert "Blue" in blue.get("/seeker").get_data(as_text=True)
    assert mummy.get("/api/mummy/state").status_code == 200
    assert screen.get("/api/table/state").status_code == 200
    assert watcher.get("/api/watch/state").status_code == 200
    joined = {s["seat"] for s in status["table"]["seats"] if s["joined"]}
    assert joined == {"mummy", "seeker0", "seeker2", "table", "watch"}

    # Blue is left out: its phone is shut out and told why, in its language.
    table.new_game(["red", "turquoise"])
    assert red.get("/api/seeker/state").json["seat"] == "seeker0"
    assert mummy.get("/api/mummy/state").status_code == 200
    refused = blue.get("/api/seeker/state")
    assert refused.status_code == 403
    assert "Blue is not in the new game" in error(refused)
    assert "Blue is not in the new game" in blue.get("/").get_data(as_text=True)
    blue.set_cookie("lang", "de")
    german = blue.get("/seeker").get_data(as_text=True)
    assert "Blau spielt im neuen Spiel nicht mit" in german
    # Its old code is no seat's any more (Turquoise's seat kept its own code).
    assert codes["seeker1"] not in table.codes.values()

    # New codes stay the one way to shut everyone out.
    table.host.post("/api/host/codes", json={})
    for phone, path in ((red, "/api/seeker/state"), (mummy, "/api/mummy/state")):
        assert phone.get(path).status_code == 403


def test_a_restart_keeps_every_phone_joined(tmp_path):
    first = start(tmp_path)
    try:
        table = Table(first)
        table.new_game(["red", "blue"])
        red = table.device("seeker0")
        cookie = red.get_cookie("session")
        assert cookie is not None
        host = table.host.get_cookie("session")
        assert host is not None
        game = first.service.game.id
    finally:
        first.close()
    second = start(tmp_path)
    try:
        assert second.service.game.id == game
        app = create_app(second.service, secret_key=KEY, appliance=second)
        phone = app.test_client()
        phone.set_cookie("session", cookie.value)
        assert phone.get("/api/seeker/state").json["seat"] == "seeker0"
        tablet = app.test_client()
        tablet.set_cookie("session", host.value)
        assert tablet.get("/host").status_code == 200
        assert oct((tmp_path / "seats.json").stat().st_mode & 0o777) == "0o600"
    finally:
        second.close()


# -- commands -------------------------------------------------------------------------------


def test_a_seeker_turn_through_the_api(table):
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    res = red.post("/api/seeker/command", json={"cmd": "roll"})
    assert res.status_code == 200
    state = res.json["state"]
    assert state["my_turn"] and state["view"]["phase"] == "seeker_rolled"
    assert state["guidance"] == "Tap a die to announce it, or roll again."
    face = state["view"]["roll"][0] if state["view"]["roll"] else None
    if face is None:  # five mummies (1 in 7776): nothing more to do this turn
        return
    res = red.post("/api/seeker/command", json={"cmd": "announce", "face": face})
    assert res.status_code == 200, res.json
    state = res.json["state"]
    assert state["guidance"].startswith("Move Red ")
    assert state["view"]["legal_destinations"]
    res = red.post("/api/seeker/command", json={"cmd": "move", "to": "F12"})
    assert res.status_code == 400 and "Move the figure on the board" in error(res)
    table.move(state["view"]["legal_destinations"][0])
    state = red.get("/api/seeker/state").json
    assert state["guidance"] in ("End your turn.",) or "play the card" in state["guidance"]
    res = red.post("/api/seeker/command", json={"cmd": "end_turn"})
    assert res.status_code == 200
    assert res.json["state"]["guidance"] == "Blue's turn."


def test_rule_errors_come_back_in_words(table):
    table.new_game(["red", "blue"], dice="physical")
    red = table.device("seeker0")
    mummy = table.device("mummy")
    cases = [
        (red, "seeker", {"cmd": "roll"}, "Throw the dice and enter the faces they show."),
        (red, "seeker", {"cmd": "roll", "faces": ["1", "2"]}, "Roll 5 dice; 2 faces were entered."),
        (red, "seeker", {"cmd": "announce", "face": "4"}, "You cannot announce a die now"),
        (red, "seeker", {"cmd": "fly"}, "Move your figure on the board"),
        (mummy, "mummy", {"cmd": "roll_mummy_die", "value": 3}, "It is not the mummy's turn."),
        (mummy, "mummy", {"cmd": "roll"}, "The mummy rolls its die, steps and ends its move."),
    ]
    for client, kind, body, words in cases:
        res = client.post(f"/api/{kind}/command", json=body)
        assert res.status_code == 400, body
        assert error(res).startswith(words), (body, error(res))
    res = red.post("/api/seeker/command", data="not json", content_type="application/json")
    assert res.status_code == 400 and error(res) == "The request is not valid JSON."
    res = red.post("/api/seeker/command", json={"cmd": "roll", "faces": FACES})
    assert res.status_code == 200 and res.json["state"]["view"]["roll"] == FACES
    res = red.post("/api/seeker/command", json={"cmd": "announce", "face": "mummy"})
    assert res.status_code == 400 and error(res).startswith("No die of this roll shows mummy")
    assert res.json["state"]["view"]["phase"] == "seeker_rolled"  # the page re-renders


def test_virtual_dice_refuse_entered_faces(table):
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    res = red.post("/api/seeker/command", json={"cmd": "roll", "faces": FACES})
    assert res.status_code == 400 and error(res) == "The companion rolls the dice in this game."


def test_a_resolve_and_the_mummys_steps_through_the_api(table):
    table.new_game(["red", "blue"], dice="physical")
    red, blue, mummy = table.device("seeker0"), table.device("seeker1"), table.device("mummy")
    red.post("/api/seeker/command", json={"cmd": "roll", "faces": ["mummy", "1", "2", "3", "4"]})
    red.post("/api/seeker/command", json={"cmd": "announce", "face": "1"})
    table.move(table.service.maze.start[0].cell)
    red.post("/api/seeker/command", json={"cmd": "end_turn"})
    state = blue.get("/api/seeker/state").json
    # white dice showing the mummy face: "mummy die" is the brown die only (glossary)
    assert "resolve the 1 mummy face" in state["guidance"]
    assert "mummy die" not in state["guidance"]
    assert blue.post("/api/seeker/command", json={"cmd": "resolve"}).status_code == 200
    view = mummy.get("/api/mummy/state").json
    assert view["guidance"].startswith("Intermediate move: move up to 1 step")
    assert {s["name"] for s in view["steps"]} == {"D1", "I1"}
    assert {s["dir"] for s in view["steps"]} == {"south"}
    res = mummy.post("/api/mummy/command", json={"cmd": "mummy_step", "to": "E5"})
    assert res.status_code == 400 and "is not next to the sarcophagus" in error(res)
    res = mummy.post("/api/mummy/command", json={"cmd": "mummy_step", "to": "D1"})
    assert res.status_code == 200
    assert res.json["state"]["guidance"] == "Blue's turn."
    assert any(e["text"] == "The mummy steps to D1 (0 left)." for e in res.json["state"]["log"])


def test_the_host_can_undo(table):
    table.new_game(["red", "blue"], dice="physical")
    red = table.device("seeker0")
    red.post("/api/seeker/command", json={"cmd": "roll", "faces": FACES})
    res = host_undo(table.host)
    assert res.status_code == 200 and res.json["undone"] is True
    assert red.get("/api/seeker/state").json["view"]["phase"] == "seeker_turn"


# -- physical mission cards ---------------------------------------------------------------

RED_HAND = ["B4", "F4", "J4", "A1", "A11"]
BLUE_HAND = ["D5", "H5", "L5", "C2", "L11"]


def test_physical_cards_are_entered_before_the_first_turn(table):
    table.new_game(["red", "blue"], cards="physical")
    red, blue, mummy = table.device("seeker0"), table.device("seeker1"), table.device("mummy")
    state = red.get("/api/seeker/state").json
    assert state["stage"] == "dealing" and state["per_colour"] == 1
    assert len(state["cards"]) == 23
    res = red.post("/api/seeker/command", json={"cmd": "roll"})
    assert res.status_code == 400 and error(res).startswith("Enter your mission cards first")
    res = red.post("/api/seeker/cards", json={"cards": ["B4", "D5", "J4", "A1", "A11"]})
    assert res.status_code == 400
    assert error(res) == "Enter one card of each colour: 2 of Red chosen."
    assert red.post("/api/seeker/cards", json={"cards": RED_HAND}).status_code == 200
    waiting = mummy.get("/api/mummy/state").json
    assert waiting["stage"] == "dealing" and waiting["ready"] == [True, False]
    assert "cards" not in waiting and "entered" not in json.dumps(waiting)
    res = blue.post("/api/seeker/cards", json={"cards": BLUE_HAND})
    assert res.status_code == 200
    table.put_board_right()
    state = red.get("/api/seeker/state").json
    assert state["stage"] == "playing"
    assert sorted(table.service.maze.cell_name(t["cell"]) for t in state["view"]["hand"]) == sorted(
        RED_HAND
    )
    stored = table.appliance.journal.load(table.service.game.id)
    assert stored.setup["hands"] == [RED_HAND, BLUE_HAND]
    assert red.post("/api/seeker/command", json={"cmd": "roll"}).status_code == 200


def test_one_seeker_enters_two_cards_of_each_colour(table):
    table.new_game(["violet"], cards="physical")
    seeker = table.device("seeker0")
    assert seeker.get("/api/seeker/state").json["per_colour"] == 2
    res = seeker.post("/api/seeker/cards", json={"cards": RED_HAND + BLUE_HAND})
    assert res.status_code == 200
    state = seeker.get("/api/seeker/state").json
    assert state["stage"] == "playing" and len(state["view"]["hand"]) == 10
    assert [p["colour"] for p in state["view"]["positions"]] == ["violet", "red"]


# -- live --------------------------------------------------------------------------------------


def first_message(client: FlaskClient, path: str) -> dict[str, Any]:
    res = client.get(path, buffered=False)
    try:
        for chunk in res.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith("data: "):
                return dict(json.loads(text[len("data: ") :]))
    finally:
        res.close()
    raise AssertionError("no message")


def test_each_stream_sends_its_seats_payload(table):
    table.new_game(["red", "blue"])
    for seat, kind in (("mummy", "mummy"), ("seeker1", "seeker"), ("table", "table")):
        client = table.device(seat)
        assert first_message(client, f"/api/{kind}/stream") == client.get(f"/api/{kind}/state").json


def test_a_stream_tells_a_phone_shut_out_to_reload(table):
    table.new_game(["red", "blue"])
    red = table.device("seeker0")
    res = red.get("/api/seeker/stream", buffered=False)
    messages = (c.decode() for c in res.response if c.startswith(b"data: "))
    assert json.loads(next(messages)[6:])["seat"] == "seeker0"
    table.host.post("/api/host/codes", json={})
    assert json.loads(next(messages)[6:]) == {"stale": True}
    res.close()
    assert red.get("/api/seeker/stream").status_code == 403


def test_a_seeker_says_an_out_and_back_move_on_the_page(table):
    """The sensors cannot see a number move that ends where it began: the page offers it."""
    table.new_game(["red", "blue"], dice="physical", hints=False)
    red, blue, mummy = (table.device(s) for s in ("seeker0", "seeker1", "mummy"))
    maze = table.service.maze
    throw = {"cmd": "roll", "faces": ["1", "2", "3", "4", "arrow"]}

    def turn(phone: FlaskClient, face: str, to: int) -> None:
        assert phone.post("/api/seeker/command", json=throw).status_code == 200
        res = phone.post("/api/seeker/command", json={"cmd": "announce", "face": face})
        assert res.status_code == 200, res.json
        table.move(to)
        assert phone.post("/api/seeker/command", json={"cmd": "end_turn"}).status_code == 200

    entrance = maze.start[0].cell
    turn(red, "1", entrance)
    state = table.service.game.current
    turn(blue, "2", next(c for c in legal_destinations(state, 1, Face.TWO) if c != entrance))
    mummy.post("/api/mummy/command", json={"cmd": "roll_mummy_die", "value": 1})
    assert mummy.post("/api/mummy/command", json={"cmd": "end_mummy_move"}).status_code == 200
    assert red.post("/api/seeker/command", json=throw).status_code == 200
    res = red.post("/api/seeker/command", json={"cmd": "announce", "face": "2"})
    assert res.json["state"]["stay"] == maze.cell_name(entrance)  # even without hints
    res = red.post("/api/seeker/command", json={"cmd": "move", "to": maze.cell_name(entrance)})
    assert res.status_code == 200, res.json
    assert res.json["state"]["view"]["phase"] == "seeker_card"
    res = red.post("/api/seeker/command", json={"cmd": "move", "to": "A1"})
    assert res.status_code == 400


def test_guessing_join_codes_locks_the_guesser_out_for_a_while(table):
    table.new_game(["red", "blue"])
    guesser = table.device()
    for _ in range(10):
        assert guesser.get("/join/AAAAAA").status_code == 403
    res = guesser.get(f"/join/{table.codes['seeker0']}")
    assert res.status_code == 429  # even the right code waits now
    assert b"Too many wrong codes" in res.data


def test_a_card_entered_by_two_seekers_names_no_card_and_no_seeker(table):
    """Every seeker enters their cards again, all told the same: nobody learns which
    card clashed, nor whose hands."""
    table.new_game(["red", "blue", "violet"], cards="physical")
    red, blue, violet = (table.device(f"seeker{i}") for i in range(3))
    mummy = table.device("mummy")
    violet_hand = ["A7", "F7", "J7", "I2", "C11"]
    assert red.post("/api/seeker/cards", json={"cards": RED_HAND}).status_code == 200
    # Blue also enters red's scarab (B4): accepted for now, nothing said about red.
    res = blue.post("/api/seeker/cards", json={"cards": ["B4", *BLUE_HAND[1:]]})
    assert res.status_code == 200
    assert res.json["state"]["guidance"].startswith("Your cards are in.")
    # The last seeker's cards bring the check: everyone goes back, violet too.
    res = violet.post("/api/seeker/cards", json={"cards": violet_hand})
    assert res.status_code == 200 and res.json["state"]["stage"] == "dealing"
    seen = []
    for page in (red, blue, violet):
        state = page.get("/api/seeker/state").json
        assert state["stage"] == "dealing" and state["entered"] == []
        assert state["guidance"].startswith("Two seekers entered the same card")
        seen.append({k: v for k, v in state.items() if k != "seat"})
    assert seen[0] == seen[1] == seen[2]
    assert mummy.get("/api/mummy/state").json["ready"] == [False, False, False]
    assert "B4" not in json.dumps(seen[0]["guidance"]) and "scarab" not in seen[0]["guidance"]
    # Put right, the game starts with everyone's real cards.
    assert red.post("/api/seeker/cards", json={"cards": RED_HAND}).status_code == 200
    assert blue.post("/api/seeker/cards", json={"cards": BLUE_HAND}).status_code == 200
    assert violet.post("/api/seeker/cards", json={"cards": violet_hand}).status_code == 200
    table.put_board_right()
    assert violet.get("/api/seeker/state").json["stage"] == "playing"
    stored = table.appliance.journal.load(table.service.game.id)
    assert stored.setup["hands"] == [RED_HAND, BLUE_HAND, violet_hand]


def test_the_join_page_names_every_seat_in_a_sentence(table):
    """ "Join as the Watching?" read wrong: the watching seat is the Spectator's."""
    table.new_game(["red", "blue"])
    phone = table.app.test_client()
    page = phone.get(f"/join/{table.codes['watch']}").get_data(as_text=True)
    assert "Join as the Spectator?" in page and "Watching?" not in page
    german = table.app.test_client()
    german.set_cookie("lang", "de")
    page = german.get(f"/join/{table.codes['watch']}", headers={"Accept-Language": "de"})
    assert "Als Zuschauer beitreten?" in page.get_data(as_text=True)
