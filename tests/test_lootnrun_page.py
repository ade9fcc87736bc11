"""The Loot N Run page and its JSON API on a real appliance in mock mode (Flask's test
client): round trips through the engine and the journal, the board, and strict errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.board.render import scale
from companion.board.score_track import TARGET_COLOUR, TARGET_LEVEL, track_path
from companion.service.appliance import Appliance
from companion.web import create_app
from tests.test_service import start, wait_until

PLAYERS = [
    {"name": "Anna", "colour": "red"},
    {"name": "Ben", "colour": "blue"},
    {"name": "Cleo", "colour": "green"},
]


def card(*types: int, **extra: Any) -> dict[str, Any]:
    counts = [0] * 6
    for t in types:
        counts[t - 1] += 1
    return {"treasures": counts, **extra}


@pytest.fixture
def appliance(tmp_path: Path) -> Iterator[Appliance]:
    app = start(tmp_path)
    yield app
    app.close()


@pytest.fixture
def client(appliance: Appliance) -> FlaskClient:
    """The host's device (the first to open the companion): every door opens for it."""
    app = create_app(appliance.service, secret_key=b"k" * 32, appliance=appliance, testing=True)
    host = app.test_client()
    assert host.get("/").location == "/host"
    return host


def post(client: FlaskClient, path: str, body: Any, status: int = 200) -> dict[str, Any]:
    res = client.post(f"/lootnrun/api/{path}", json=body)
    assert res.status_code == status, res.get_json()
    data: dict[str, Any] = res.get_json()
    return data


def new_game(client: FlaskClient, **extra: Any) -> dict[str, Any]:
    return post(client, "new", {"players": PLAYERS, **extra})["view"]


def test_the_page_is_served_with_its_script_styles_and_treasure_pictures(client):
    res = client.get("/lootnrun")
    assert res.status_code == 200
    html = res.get_data(as_text=True)
    assert "<title>Loot N Run" in html
    assert "lootnrun.js" in html and "lootnrun.css" in html and "companion.css" in html
    assert all(f'<symbol id="t{n}"' in html for n in range(1, 7))
    assert all(f'<symbol id="{g}"' in html for g in ("amulet", "mummy", "werewolf", "frank"))
    assert 'data-api="/lootnrun/api"' in html
    for name in ("lootnrun.js", "lootnrun.css"):
        assert client.get(f"/static/{name}").status_code == 200


def where(board):
    """Who holds the board, without the questions its buttons ask (test_board_moves.py)
    and the order of handovers (``test_each_handover_makes_the_view_newer``)."""
    return {k: v for k, v in board.items() if k not in ("moves", "run", "handover")}


def test_without_a_game_the_view_asks_for_one(client):
    view = client.get("/lootnrun/api/view").get_json()
    assert view["phase"] == "setup" and view["players"] == []
    assert where(view["board"]) == {"active": False, "active_game": "mummy", "maze_paused": False}
    assert (
        view["board"]["moves"]["lootnrun"] == "Give the board to Loot N Run?"
    )  # asked before it moves


def test_a_new_game_takes_the_board_and_the_leds_show_the_track(client, appliance):
    view = new_game(client)
    assert view["phase"] == "playing" and view["current_name"] == "Anna"
    assert [p["rgb"] for p in view["players"]] == ["#ff0000", "#0046ff", "#00dc28"]
    assert (
        where(view["board"]) == {"active": True, "active_game": "lootnrun", "maze_paused": False}
        and appliance.hub.active == "lootnrun"
    )
    goal = track_path(12, 12, 35)[35]
    wait_until(lambda: appliance.lights.last_frame[goal] == scale(TARGET_COLOUR, TARGET_LEVEL))
    # Back to the maze, and to the track again.
    assert where(post(client, "board", {"show": False})["view"]["board"]) == {
        "active": False,
        "active_game": "mummy",
        "maze_paused": False,
    }
    assert appliance.hub.active == "mummy"
    post(client, "board", {"show": True})
    assert appliance.hub.active == "lootnrun"


def test_each_handover_makes_the_view_newer(client, appliance):
    """A view read after the board changed hands says so by more handovers in the same
    run, so a page can tell an answer read before it (lootnrun.js) and keep the newer."""
    before = client.get("/lootnrun/api/view").get_json()["board"]
    view = new_game(client)  # takes the board
    after = view["board"]
    assert after["run"] == before["run"] and after["handover"] == before["handover"] + 1
    back = post(client, "board", {"show": False})["view"]["board"]
    assert back["handover"] == after["handover"] + 1 and back["active_game"] == "mummy"
    again = client.get("/lootnrun/api/view").get_json()["board"]
    assert again["handover"] == back["handover"]  # reading it again is no handover


def test_a_game_without_the_board_leaves_the_maze_on_the_leds(client, appliance):
    view = new_game(client, show_on_board=False)
    assert (
        where(view["board"]) == {"active": False, "active_game": "mummy", "maze_paused": False}
        and appliance.hub.active == "mummy"
    )


def test_commands_round_trip_through_the_engine_and_the_journal(client, appliance):
    new_game(client)
    for _ in range(3):
        post(client, "command", {"cmd": "loot"})
    data = post(
        client,
        "command",
        {"cmd": "run", "player": 0, "cards": [card(1, 2), card(1, 3, 3)]},
    )
    assert [e["kind"] for e in data["events"]][:2] == ["hand_recounted", "ran"]
    view = data["view"]
    assert view["players"][0]["score"] == 7  # cup on 2 cards: 2 x 2, chest 1, gems 2
    assert view["history"][-1]["text"] == "Anna ran with 2 cards: 7 points (type 1 doubled)."
    assert view["chart"]["points"][-1]["scores"] == [7, 0, 0]
    assert view["current_name"] == "Ben"
    # Everyone loots, then Ben awakens Anna and catches her: Werewolf, then Frank.
    post(client, "command", {"cmd": "loot"})  # Ben
    post(client, "command", {"cmd": "loot"})  # Cleo
    post(client, "command", {"cmd": "loot"})  # Anna
    awaken = {
        "cmd": "awaken",
        "player": 1,
        "target": 0,
        "cards": [card(2, guardian="werewolf"), card(4, 4, guardian="frank", amulets=1)],
    }
    view = post(client, "command", awaken)["view"]
    assert view["phase"] == "werewolf_keep" and view["actions"]["werewolf_keep"] == [0, 1, 2]
    view = post(client, "command", {"cmd": "werewolf_keep", "kept": 2})["view"]
    assert view["current_name"] == "Ben" and view["extra_turn"]
    assert view["players"][1]["cards"] == 4  # two looted, two kept
    service = appliance.hub.service("lootnrun")
    commands = appliance.journal.load(service.game_id).commands
    assert [c["cmd"] for c in commands][-3:] == ["loot", "awaken", "werewolf_keep"]
    record = client.get("/lootnrun/api/record")
    assert record.status_code == 200 and record.mimetype == "application/x-ndjson"
    assert len(record.get_data(as_text=True).splitlines()) == len(commands) + 1


def test_corrections_undo_and_the_final_reveal(client):
    new_game(client)
    post(client, "command", {"cmd": "correction", "player": 2, "points": 3, "reason": "forgot"})
    view = post(client, "undo", {})["view"]
    assert view["players"][2]["score"] == 0 and view["history"] == []
    assert post(client, "undo", {}, 409) == {"error": "There is nothing to undo."}
    # A correction to the target starts the final reveal.
    body = {"cmd": "correction", "player": 1, "points": 35, "reason": "test", "cards": 1}
    view = post(client, "command", body)["view"]
    assert view["phase"] == "final_reveal" and view["actions"]["final_reveal"] == [0, 1, 2]
    post(client, "command", {"cmd": "final_reveal", "player": 0, "cards": []})
    post(client, "command", {"cmd": "final_reveal", "player": 1, "cards": [card(5)]})
    view = post(client, "command", {"cmd": "final_reveal", "player": 2})["view"]
    assert view["phase"] == "game_over" and view["winner_names"] == ["Ben"]
    assert view["chart"]["points"][-1] == {
        "turn": None,
        "label": "final reveal",
        "scores": [0, 36, 0],
    }
    # After the end only the host's undo of the winning entry, confirmed by its key.
    assert "end screen" in post(client, "command", {"cmd": "undo"}, 409)["error"]
    undone = post(client, "undo", {"action": view["action_key"]})["view"]
    assert undone["phase"] == "final_reveal"


def test_previews_use_the_engines_arithmetic(client):
    run = post(client, "preview", {"kind": "run", "cards": [card(1, 1), card(1), card(2)]})
    assert run["run"]["points"] == 7 and run["run"]["doubled_types"] == [1]
    assert run["problems"] == []
    awaken = post(
        client,
        "preview",
        {
            "kind": "awaken",
            "cards": [card(3, guardian="mummy"), card(3, guardian="frank"), card(6, amulets=1)],
        },
    )
    outcome = awaken["outcome"]
    assert outcome["escaped"] is False and outcome["benefits"] == ["mummy", "frank"]
    assert outcome["run"]["points"] == 5
    odd = post(client, "preview", {"kind": "run", "cards": [card(1, 1, 1, 1)]})
    assert odd["problems"] == ["card 1 shows 4 treasure symbols, but every room card shows 1 to 3"]


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("command", "{not json", "not valid JSON"),
        ("command", "[1, 2]", "Send a JSON object"),
        ("command", '{"cmd": "dance"}', '"cmd" is one of "loot", "run"'),
        ("command", '{"cmd": "loot", "who": 1}', 'unknown key "who"'),
        ("command", '{"cmd": "run", "cards": [{"treasures": [1]}]}', "each of the 6 types"),
        (
            "command",
            '{"cmd": "awaken", "target": "Ben", "cards": []}',
            '"target" is a whole number',
        ),
        ("new", '{"players": "Anna, Ben"}', '"players" is a list'),
        ("new", '{"players": [], "extra": 1}', 'unknown key "extra"'),
        ("new", '{"players": [{"name": "A", "colour": 3}]}', '"colour" is text'),
        ("preview", '{"kind": "loot", "cards": []}', '"kind" is one of "run", "awaken"'),
        (
            "preview",
            '{"kind": "run", "cards": [{"treasures": [1, 0, 0, 0, 0, 0], "guardian": "x"}]}',
            '"guardian" must be one of',
        ),
        ("board", '{"show": "yes"}', '"show" is true'),
        ("undo", '{"now": true}', 'unknown key "now"'),
    ],
)
def test_malformed_requests_get_400_with_a_clear_message(client, path, body, message):
    new_game(client)
    res = client.post(f"/lootnrun/api/{path}", data=body, content_type="application/json")
    assert res.status_code == 400
    assert message in res.get_json()["error"]


def test_a_post_that_is_not_json_is_refused(client):
    res = client.post("/lootnrun/api/command", data={"cmd": "loot"})  # a plain form post
    assert res.status_code == 403  # no CSRF token: another site could have sent it
    assert "form has expired" in res.get_json()["error"]
    with client.session_transaction() as session:  # a form of our own: the token is right
        session["csrf"] = "token"
    res = client.post("/lootnrun/api/command", data={"cmd": "loot", "csrf": "token"})
    assert res.status_code == 400
    assert res.get_json() == {"error": "Send the request as JSON (Content-Type: application/json)."}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"cmd": "run", "cards": [card(1)]}, "Anna has no cards (by the companion's count)"),
        ({"cmd": "loot", "player": 1}, "It is Anna's turn, not Ben's."),
        ({"cmd": "run", "cards": [card(1, 1, 2, 3)]}, None),
        ({"cmd": "werewolf_keep", "kept": 1}, "There are no Werewolf cards to keep"),
        ({"cmd": "correction", "player": 0, "points": -1, "reason": "x"}, "cannot go below 0"),
    ],
)
def test_entries_the_rules_refuse_get_409_with_the_engines_words(client, body, message):
    new_game(client)
    if message is None:  # a card the game cannot have
        post(client, "command", {"cmd": "loot"})
        post(client, "command", {"cmd": "loot"})
        post(client, "command", {"cmd": "loot"})
        message = "Anna's card 1 shows 4 treasure symbols"
    res = client.post("/lootnrun/api/command", json=body)
    assert res.status_code == 409
    assert message in res.get_json()["error"]


def test_a_setup_the_rules_refuse_gets_409(client):
    res = client.post("/lootnrun/api/new", json={"players": PLAYERS[:1]})
    assert res.status_code == 409
    assert res.get_json() == {"error": "Loot N Run is for 2 to 6 players, not 1."}
    res = client.post("/lootnrun/api/command", json={"cmd": "loot"})
    assert res.get_json() == {"error": "No Loot N Run game yet: start one first."}
    assert client.get("/lootnrun/api/record").status_code == 404


def test_the_live_stream_sends_the_view_at_once(client):
    new_game(client)
    res = client.get("/lootnrun/api/stream", buffered=False)
    try:
        assert res.mimetype == "text/event-stream"
        chunks = iter(res.response)
        assert next(chunks).startswith(b"retry:")
        event = next(chunks).decode()
        assert event.startswith("id: ")
        view = json.loads(event.split("data: ", 1)[1])
        assert view["phase"] == "playing" and where(view["board"]) == {
            "active": True,
            "active_game": "lootnrun",
            "maze_paused": False,
        }
    finally:
        res.close()


def test_without_the_appliance_the_api_says_it_is_not_running(appliance):
    app = create_app(appliance.service, secret_key=b"k" * 32, testing=True)
    host = app.test_client()
    host.get("/")
    res = host.get("/lootnrun/api/view")
    assert res.status_code == 503
    assert res.get_json() == {"error": "Loot N Run is not running on this companion."}


def test_a_name_longer_than_the_limit_is_refused_and_nothing_starts(client):
    long = "Maximiliane-Josephine-Antonia"  # 29 characters, one word
    res = client.post(
        "/lootnrun/api/new", json={"players": [{"name": long, "colour": "red"}, *PLAYERS[1:]]}
    )
    assert res.status_code == 409  # the rules refuse it, as any other rule
    assert res.get_json()["error"].startswith("A name has at most 24 characters: shorten Maxim")
    assert client.get("/lootnrun/api/view").get_json()["phase"] == "setup"
    assert 'data-max-name="24"' in client.get("/lootnrun").get_data(as_text=True)


def test_a_name_that_turns_the_text_around_it_is_refused_and_nothing_starts(client):
    """U+202E in a name would read "Anna‮ wins" backwards on every page after it."""
    for bad in ("Anna\u202e", "Ben\x07"):
        res = client.post(
            "/lootnrun/api/new", json={"players": [{"name": bad, "colour": "red"}, *PLAYERS[1:]]}
        )
        assert res.status_code == 409
        assert res.get_json()["error"] == (
            "A name cannot hold control or text-direction characters."
        )
    assert client.get("/lootnrun/api/view").get_json()["phase"] == "setup"
