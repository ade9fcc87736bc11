"""The /crypt page and its JSON API through Flask's test client, on the mock appliance."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from companion.service.appliance import Appliance
from companion.web import create_app
from tests.test_crypt_service import at, crypt, give_board_to_crypt, ply, start, wait_until


@pytest.fixture
def appliance(tmp_path) -> Iterator[Appliance]:
    app = start(tmp_path)
    yield app
    app.close()


@pytest.fixture
def client(appliance):
    """The host's device (the first to open the companion): every door opens for it."""
    app = create_app(appliance.service, secret_key=b"k" * 32, appliance=appliance, testing=True)
    host = app.test_client()
    assert host.get("/").location == "/host"
    return host


def new_game(client, **options):
    body = {"players": 2, "computer": None, **options}
    response = client.post("/crypt/api/new", json=body)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_the_page_loads_with_its_script_and_styles(client):
    response = client.get("/crypt")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<h1>Into the Crypt</h1>" in html
    assert "crypt.js" in html and "crypt.css" in html
    assert client.get("/static/crypt.js").status_code == 200


def test_the_state_is_the_whole_open_table_with_hints_for_the_person_to_move(client):
    view = client.get("/crypt/api/state").get_json()
    assert view["game"] == "crypt" and view["phase"] == "placing_cubes"
    assert view["layout"]["crypt"] == ["d4", "e4", "d5", "e5"]
    assert len(view["hints"]) == 44 and view["hints"][0]["kind"] == "place_cube"
    assert set(view["board"]) >= {"matches", "message", "missing", "unexpected", "touch"}
    assert "red" in view["colours_available"] and "white" not in view["colours_available"]


def test_a_new_game_against_the_computer_takes_the_board(client, appliance):
    assert appliance.hub.active == "mummy"
    view = new_game(client, colours=["violet", "orange"], first_player=1, computer=0)
    assert appliance.hub.active == "crypt"
    assert view["board"]["plays_crypt"] and view["computer"] == 0
    assert [p["colour"] for p in view["players"]] == ["violet", "orange"]
    assert view["to_move"] == 1 and view["first_player"] == 1


def test_a_tapped_cube_is_placed_and_the_computer_answers(client, appliance):
    new_game(client, computer=1)
    give_board_to_crypt(appliance)
    response = client.post("/crypt/api/command", json={"kind": "place_cube", "square": "c3"})
    assert response.status_code == 200
    wait_until(lambda: ply(appliance) == 2)
    view = client.get("/crypt/api/state").get_json()
    assert view["players"][1]["cubes_on_board"] == ["c3"]
    assert view["history"][0]["text"] == "Red put one of Blue's cubes on c3."
    assert view["last_computer"].startswith("Blue put one of Red's cubes on ")
    assert view["can_undo"]
    response = client.post("/crypt/api/undo", json={})
    assert response.status_code == 200 and response.get_json()["ply"] == 0
    response = client.post("/crypt/api/undo", json={})
    assert response.status_code == 409
    assert response.get_json()["error"] == "There is no move of yours to take back."


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"kind": "fly"}, 400, '"kind" is one of "enter_chamber", "move"'),
        ({"kind": "place_cube", "square": "z9"}, 400, "'z9' is not a square"),
        ({"kind": "place_cube"}, 400, '"place_cube" needs "square"'),
        ({"kind": "place_cube", "square": "b1"}, 409, "green corner tile"),
        ({"kind": "place_cube", "square": "e5"}, 409, "crypt space"),
        ({"kind": "move", "to": "a3"}, 409, "Move your meeple on the board"),
        ({"kind": "pass"}, 409, "You cannot pass now"),
        ({"kind": "enter_chamber"}, 409, "You cannot enter the chamber now"),
    ],
)
def test_refused_commands_say_why(client, appliance, body, status, words):
    new_game(client)
    give_board_to_crypt(appliance)
    response = client.post("/crypt/api/command", json=body)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert crypt(appliance).published.state.ply == 0


def test_commands_wait_for_the_board_to_be_put_right(client, appliance):
    new_game(client)
    appliance.mock_board.place(at("a1"))  # two magnets: neither a touch nor a meeple
    appliance.mock_board.place(at("h8"))
    wait_until(lambda: not crypt(appliance).published.judgement.matches)
    response = client.post("/crypt/api/command", json={"kind": "place_cube", "square": "c3"})
    assert response.status_code == 409
    assert response.get_json()["error"].startswith("Put the board right: take the figures off")


def test_a_request_that_is_not_json_is_refused(client):
    response = client.post("/crypt/api/command", data="kind=pass")  # no CSRF token
    assert response.status_code == 403 and "form has expired" in response.get_json()["error"]
    response = client.post("/crypt/api/command", data="[1]", content_type="application/json")
    assert response.status_code == 400 and response.get_json()["error"] == "Send a JSON object."


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"players": 3}, 400, '"players" is one of 2, 4'),
        ({"players": 2, "seed": 1}, 400, 'unknown key "seed"'),
        ({"players": 2, "first_player": "red"}, 400, '"first_player" is a whole number'),
        ({"players": 2, "computer": "yes"}, 400, '"computer" is a whole number'),
        ({"players": 2, "colours": ["red"]}, 400, "Give 2 colours"),
        ({"players": 2, "colours": ["red", "white"]}, 409, "white is not a colour here"),
        ({"players": 2, "colours": ["red", "red"]}, 409, "Every player needs a colour"),
        ({"players": 2, "computer": 2}, 409, "The computer plays one of the players 1 to 2"),
        ({"players": 4, "first_player": 4}, 409, "The first player must be"),
    ],
)
def test_a_bad_setup_is_refused(client, appliance, body, status, words):
    before = crypt(appliance).published.game_id
    response = client.post("/crypt/api/new", json=body)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert crypt(appliance).published.game_id == before
    assert appliance.hub.active == "mummy"


def test_four_players_get_six_cubes_each(client):
    view = new_game(client, players=4, computer=3)
    assert view["cubes_per_player"] == 6 and len(view["players"]) == 4
    assert [p["colour"] for p in view["players"]] == ["red", "blue", "green", "yellow"]


def test_the_board_goes_back_to_the_maze_and_returns(client, appliance):
    new_game(client)
    response = client.post("/crypt/api/board", json={"game": "mummy"})
    assert response.status_code == 200 and appliance.hub.active == "mummy"
    assert response.get_json()["board"]["plays_crypt"] is False
    response = client.post("/crypt/api/board", json={"game": "crypt"})
    assert response.get_json()["board"]["plays_crypt"] is True
    response = client.post("/crypt/api/board", json={"game": "chess"})
    assert response.status_code == 400 and "must be one of" in response.get_json()["error"]


def test_the_stream_sends_the_view_at_once(client):
    response = client.get("/crypt/api/stream", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunk = next(iter(response.response))
    response.close()
    text = chunk.decode() if isinstance(chunk, bytes) else chunk
    head, data = text.split("\n", 1)
    assert head.startswith("id: ")
    view = json.loads(data.removeprefix("data: ").strip())
    assert view["game"] == "crypt" and "plays_crypt" in view["board"]


def test_without_an_appliance_the_crypt_is_unavailable(appliance):
    app = create_app(appliance.service, secret_key=b"k" * 32, testing=True)
    host = app.test_client()
    host.get("/")
    response = host.get("/crypt/api/state")
    assert response.status_code == 503
    assert response.get_json()["error"] == "Into the Crypt is not running on this companion."


def test_a_page_whose_game_lost_the_board_shows_nothing_to_put_right(client, appliance):
    """The maze's figures on the board are the crypt's business only while it plays."""
    view = new_game(client)
    appliance.mock_board.place(at("a1"))
    appliance.mock_board.place(at("h8"))
    wait_until(lambda: client.get("/crypt/api/state").get_json()["board"]["unexpected"])
    view = client.post("/crypt/api/board", json={"game": "mummy"}).get_json()
    board = view["board"]
    assert board["plays_crypt"] is False
    assert board["message"].startswith("The board plays the mummy maze: the host gives")
    assert board["unexpected"] == board["missing"] == board["lifted"] == board["errors"] == []
    response = client.post("/crypt/api/command", json={"kind": "place_cube", "square": "c3"})
    assert response.status_code == 409
    assert "host page" in response.get_json()["error"]
    assert client.get("/crypt/api/state").get_json()["ply"] == 0
    board = client.post("/crypt/api/board", json={"game": "crypt"}).get_json()["board"]
    # The maze had the board: whatever stood then is the maze's, unnamed and uncounted
    # by the crypt; the page asks, once and apart from the crypt's own words, to take
    # them off, and the notice counts down (the hub's count, never where) to nothing.
    assert board["plays_crypt"] is True and board["unexpected"] == []
    assert board["off_board"] == 0 and board["maze_figures"] == 6
    assert board["maze_notice"] == "The maze game left 6 figures on the board: take them off."
    assert "maze game left" not in (board["message"] or "")
    version = client.get("/crypt/api/state").get_json()["version"]
    standing = sorted(appliance.hub._occupied)
    appliance.mock_board.lift(standing[0])
    wait_until(lambda: standing[0] not in appliance.hub._occupied)
    again = client.get("/crypt/api/state").get_json()
    assert again["version"] == version  # nothing new published: the crypt heard nothing
    assert again["board"]["maze_notice"] == (
        "The maze game left 5 figures on the board: take them off."
    )
    for position in standing[1:]:
        appliance.mock_board.lift(position)
    wait_until(lambda: not appliance.hub._occupied)
    cleared = client.get("/crypt/api/state").get_json()
    assert cleared["version"] == version
    assert cleared["board"]["maze_figures"] == 0 and cleared["board"]["maze_notice"] is None
    assert "maze game" not in (cleared["board"]["message"] or "")


def test_the_simulator_says_which_game_has_the_board(client, appliance):
    new_game(client)
    wait_until(lambda: client.get("/sim/api/board").get_json()["game"]["message"])
    game = client.get("/sim/api/board").get_json()["game"]
    assert game["title"] == "Into the Crypt" and "phase" not in game
    client.post("/crypt/api/board", json={"game": "mummy"})
    game = client.get("/sim/api/board").get_json()["game"]
    assert game["active_game"] == "mummy" and "title" not in game and game["phase"]
