"""The end of Loot N Run and of the crypt, on a real appliance in mock mode (Flask's test
client, the real journal): once a game is over every seat's pages get its summary, and
no command is accepted any more, in player words (English and German) and changing
nothing, except the host's undo of the winning action, confirmed by the key that names
it, which reopens the game."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from companion.service.appliance import Appliance
from tests.test_pages import Table

#: The seats that play the side games (the watching seat only looks).
SEATS = ("mummy", "seeker0", "seeker1", "table")
PLAYERS = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]


def card(*types: int) -> dict[str, Any]:
    counts = [0] * 6
    for t in types:
        counts[t - 1] += 1
    return {"treasures": counts}


def devices(table: Table) -> dict[str, FlaskClient]:
    """The host and a phone on every seat that plays (a maze table of two seekers)."""
    table.new_game(["red", "blue"])
    return {"host": table.host, **{seat: table.device(seat) for seat in SEATS}}


def refused(client: FlaskClient, path: str, body: Any, lang: str = "en") -> str:
    res = client.post(path, json=body, headers={"Accept-Language": lang})
    assert res.status_code == 409, (path, body, res.status_code, res.get_json())
    return str(res.get_json()["error"])


# -- Loot N Run ------------------------------------------------------------------------


def lootnrun_to_its_end(host: FlaskClient) -> dict[str, Any]:
    """Anna and Ben: a loot each, Ben reaches the target by a correction, both reveal."""

    def post(path: str, body: Any) -> dict[str, Any]:
        res = host.post(f"/lootnrun/api/{path}", json=body)
        assert res.status_code == 200, res.get_json()
        return dict(res.get_json())

    post("new", {"players": PLAYERS})
    post("command", {"cmd": "loot"})
    post("command", {"cmd": "loot"})
    body = {"cmd": "correction", "player": 1, "points": 35, "reason": "test"}
    view = post("command", body)["view"]
    assert view["phase"] == "final_reveal" and view["summary"] is None
    post("command", {"cmd": "final_reveal", "player": 0, "cards": [card(1)]})
    view = post("command", {"cmd": "final_reveal", "player": 1, "cards": [card(2, 2)]})["view"]
    assert view["phase"] == "game_over"
    return view


def test_loot_n_runs_end_screen_is_on_every_seats_view_only_once_over(table: Table) -> None:
    phones = devices(table)
    host = phones["host"]
    host.post("/lootnrun/api/new", json={"players": PLAYERS})
    for client in phones.values():
        assert client.get("/lootnrun/api/view").get_json()["summary"] is None
    lootnrun_to_its_end(host)
    for seat, client in phones.items():
        view = client.get("/lootnrun/api/view").get_json()
        summary = view["summary"]
        assert summary["winner"] == "Ben wins.", seat
        assert "Ben reached 35 points first." in summary["lines"]
        ben, anna = summary["players"]  # by rank: the winner first
        assert (anna["name"], anna["winner"], ben["winner"]) == ("Anna", False, True)
        # The cards each one held to the end, revealed: Anna 1 card, Ben 1 card of 2 gems.
        assert "Revealed at the end: 1 card, 1 point" in anna["details"]
        assert ben["details"][0] == "37 points"
        # The winning entry is the host's to undo; nothing else may be entered.
        assert view["actions"]["undo"] is (seat == "host"), seat
        assert view["actions"]["correction"] is False
    german = phones["seeker0"].get("/lootnrun/api/view", headers={"Accept-Language": "de"})
    assert german.get_json()["summary"]["winner"] == "Ben gewinnt."


def test_after_loot_n_runs_end_no_seat_enters_anything_but_the_hosts_undo(
    table: Table,
) -> None:
    appliance: Appliance = table.appliance
    phones = devices(table)
    host = phones["host"]
    view = lootnrun_to_its_end(host)
    svc = appliance.hub.service("lootnrun")
    before = (svc.published.version, len(appliance.journal.load(svc.game_id).commands))
    key = view["action_key"]
    commands = [
        {"cmd": "loot"},
        {"cmd": "correction", "player": 0, "points": 5, "reason": "late"},
        {"cmd": "final_reveal", "player": 0, "cards": []},
        {"cmd": "undo"},
    ]
    for seat, client in phones.items():
        for body in commands:
            message = refused(client, "/lootnrun/api/command", body)
            assert message.startswith("The game is over"), (seat, body, message)
        if seat != "host":  # a seat's undo, even naming the winning entry
            message = refused(client, "/lootnrun/api/undo", {"action": key})
            assert message == "The game is over: only the host may undo the winning action."
    german = refused(phones["table"], "/lootnrun/api/command", {"cmd": "loot"}, "de")
    assert german.startswith("Das Spiel ist vorbei: Es kann nichts mehr eingegeben werden.")
    german = refused(phones["mummy"], "/lootnrun/api/undo", {"action": key}, "de")
    assert german == "Das Spiel ist vorbei: Nur der Gastgeber kann die Siegaktion zurücknehmen."
    # The host's undo needs the key of the winning entry: unconfirmed or stale, refused.
    assert "end screen" in refused(host, "/lootnrun/api/undo", {})
    assert "in the meantime" in refused(host, "/lootnrun/api/undo", {"action": "1-2-x"})
    after = (svc.published.version, len(appliance.journal.load(svc.game_id).commands))
    assert after == before and svc.state.is_over
    # Confirmed: the winning reveal goes back, and the game is open again.
    res = host.post("/lootnrun/api/undo", json={"action": key})
    assert res.status_code == 200, res.get_json()
    view = res.get_json()["view"]
    assert view["phase"] == "final_reveal" and view["summary"] is None
    assert len(appliance.journal.load(svc.game_id).commands) == before[1] - 1
    assert not appliance.journal.load(svc.game_id).ended
    # A seat enters the reveal again.
    res = phones["seeker1"].post(
        "/lootnrun/api/command", json={"cmd": "final_reveal", "player": 1, "cards": [card(3)]}
    )
    assert res.status_code == 200 and res.get_json()["view"]["phase"] == "game_over"


def test_past_games_show_loot_n_runs_summary(table: Table) -> None:
    lootnrun_to_its_end(table.host)
    page = table.host.get("/host/games").get_data(as_text=True)
    assert "Ben wins." in page and "Revealed at the end: 1 card, 1 point" in page


# -- the crypt -------------------------------------------------------------------------


def crypt_to_its_end(table: Table) -> dict[str, Any]:
    """The host gives the board to the crypt (the maze game paused), a game of two against
    the computer is played to its end on the simulated board."""
    from tests.test_crypt_service import COMPUTER, HUMAN, crypt, play_to_the_end, wait_until

    appliance = table.appliance
    service = crypt(appliance)
    service.computer_delay_s = 0.0
    service.new_game(players=2, computer=COMPUTER, first_player=HUMAN, seed=3)
    res = table.host.post("/crypt/api/board", json={"game": "crypt", "pause": True})
    assert res.status_code == 200, res.get_json()
    figures = set(appliance.mock_board.occupied)
    for position in sorted(figures):  # the maze's figures off the board
        appliance.mock_board.lift(position)
    wait_until(lambda: service.published.judgement.matches)
    play_to_the_end(appliance)
    return dict(table.host.get("/crypt/api/state").get_json())


def test_the_crypts_end_screen_and_no_command_after_it_but_the_hosts_undo(
    table: Table,
) -> None:
    from tests.test_crypt_service import crypt

    appliance = table.appliance
    phones = devices(table)
    for client in phones.values():
        assert client.get("/crypt/api/state").get_json()["summary"] is None
    view = crypt_to_its_end(table)
    service = crypt(appliance)
    state = service.published.state
    names = {0: "Red", 1: "Blue (computer)"}
    winner = names[state.winners[0]] if len(state.winners) == 1 else None
    for seat, client in phones.items():
        seen = client.get("/crypt/api/state").get_json()
        summary = seen["summary"]
        if winner is not None:
            assert summary["winner"] == f"{winner} wins.", seat
        assert f"{state.ply} moves played." in summary["lines"]
        ranked = {p["name"]: p for p in summary["players"]}  # listed by rank
        assert sorted(ranked) == ["Blue (computer)", "Red"]
        if winner is not None:
            assert summary["players"][0]["name"] == winner
        assert ranked["Red"]["details"][0] == f"{state.score(0)} points"
        assert seen["can_undo"] is (seat == "host"), seat

    before = (service.published.version, len(appliance.journal.load(service.game.id).commands))
    key = view["action_key"]
    for seat, client in phones.items():
        for body in (
            {"kind": "pass"},
            {"kind": "enter_chamber"},
            {"kind": "place_cube", "square": "c3"},
        ):
            message = refused(client, "/crypt/api/command", body)
            assert message.startswith("The game is over: nothing more"), (seat, body, message)
        if seat != "host":
            message = refused(client, "/crypt/api/undo", {"action": key})
            assert message == "The game is over: only the host may undo the winning action."
    german = refused(phones["seeker0"], "/crypt/api/command", {"kind": "pass"}, "de")
    assert german.startswith("Das Spiel ist vorbei")
    assert "end screen" in refused(phones["host"], "/crypt/api/undo", {})
    assert "in the meantime" in refused(phones["host"], "/crypt/api/undo", {"action": "0-1-x"})
    after = (service.published.version, len(appliance.journal.load(service.game.id).commands))
    assert after == before and service.published.state.is_over

    res = phones["host"].post("/crypt/api/undo", json={"action": key})
    assert res.status_code == 200, res.get_json()
    reopened = res.get_json()
    assert reopened["over"] is False and reopened["summary"] is None
    assert not appliance.journal.load(service.game.id).ended
