"""The host page's computer-mummy and deduction-aid options through the API (Flask's
test client on the simulated board)."""

from __future__ import annotations

import json
import time

from tests.seating import host_undo
from tests.test_pages import Table, error, wait_until


def test_the_deduction_aid_is_off_by_default_and_then_nothing_of_it_is_sent(table: Table):
    table.new_game(["red", "blue"])
    mummy = table.device("mummy")
    state = mummy.get("/api/mummy/state").json
    assert "aid" not in state
    assert "aid" not in json.dumps(state) and '"shade"' not in json.dumps(state)


def test_the_deduction_aid_shows_where_each_seeker_can_still_be(table: Table):
    table.new_game(["red", "blue"], aid=True)
    red, mummy = table.device("seeker0"), table.device("mummy")
    aid = mummy.get("/api/mummy/state").json["aid"]
    assert [f["colour"] for f in aid["figures"]] == ["red", "blue"]
    assert [f["count"] for f in aid["figures"]] == [0, 0]  # both on the start field
    assert [f["start"] for f in aid["figures"]] == [True, True]  # said so, not "0 cells"
    state = red.post("/api/seeker/command", json={"cmd": "roll", "faces": None}).json["state"]
    face = next(iter(state["view"]["roll"]), None)
    if face is None:
        return  # five mummies: nothing was announced
    state = red.post("/api/seeker/command", json={"cmd": "announce", "face": face}).json["state"]
    where = state["view"]["legal_destinations"]
    table.move(where[0])
    aid = mummy.get("/api/mummy/state").json["aid"]
    red_aid = aid["figures"][0]
    assert red_aid["count"] == len(red_aid["cells"]) >= 1
    assert where[0] in red_aid["cells"]  # the truth is always among the shaded cells
    assert all(0 <= s <= 1 for s in red_aid["shade"]) and max(red_aid["shade"]) == 1


def test_the_computer_takes_the_mummys_seat_and_the_mummy_page_cannot_play(table: Table):
    res = table.new_game(["red", "blue"], computer="hard", pace=0.0)
    assert res["table"]["options"]["computer"] == "hard"
    seat = table.appliance.computer
    assert seat is not None and seat.level is not None and seat.level.value == "hard"
    mummy = table.device("mummy")
    res = mummy.post("/api/mummy/command", json={"cmd": "roll_mummy_die"})
    assert res.status_code == 409 and "computer" in error(res)
    seeker = table.device("seeker1")
    assert seeker.get("/api/seeker/state").json["options"]["computer"] == "hard"


def test_a_person_takes_the_seat_back_with_the_next_game(table: Table):
    table.new_game(["red", "blue"], computer="easy")
    table.new_game(["red", "blue"])
    seat = table.appliance.computer
    assert seat is not None
    wait_until(lambda: seat.level is None)
    assert "computer" not in json.dumps(
        table.device("mummy").get("/api/mummy/state").json["options"]
    ).replace('"computer": null', "")


def test_a_wrong_level_or_pace_is_refused_in_words(table: Table):
    res = table.host.post("/api/host/game", json={"colours": ["red"], "computer": "expert"})
    assert res.status_code == 400 and "easy, normal or hard" in error(res)
    # The all-seeing reference of `companion simulate` is never offered at the table.
    res = table.host.post("/api/host/game", json={"colours": ["red"], "computer": "omniscient"})
    assert res.status_code == 400 and "easy, normal or hard" in error(res)
    res = table.host.post("/api/host/game", json={"colours": ["red"], "pace": "fast"})
    assert res.status_code == 400 and "seconds a step" in error(res)


def test_the_hosts_undo_takes_back_the_last_persons_action_and_the_computers_after_it(
    table: Table,
):
    """Taken back alone, the computer's steps would be played again the same way: the
    host's undo reaches the person's action before them, and the computer waits."""
    table.new_game(["red", "blue"], computer="normal", pace=0.0, dice="physical")
    red, service = table.device("seeker0"), table.service
    five = {"cmd": "roll", "faces": ["mummy"] * 5}
    assert red.post("/api/seeker/command", json=five).status_code == 200
    # Red's turn is lost; blue's opens with the computer's five-step intermediate move.
    wait_until(lambda: not service.game.current.is_mummy_turn and service.game.commands)
    wait_until(lambda: service.game.current.figure == 1)
    steps = len(service.game.commands) - 1
    assert steps >= 1 and service.game.owners == ["seeker0"] + ["mummy"] * steps
    label = "Red entered the dice mummy, mummy, mummy, mummy and mummy"
    status = table.host.get("/api/host/status").json
    assert status["game"]["last_action"] == f"{label}, and what the mummy did after it"
    undone = host_undo(table.host).json
    assert undone["undone"] and undone["game"]["notice"]["text"] == (
        "The host took back Red's action: entered the dice mummy, mummy, mummy, mummy and "
        "mummy, and what the mummy did after it"
    )
    assert service.game.commands == [] and service.game.current.figure == 0
    time.sleep(0.3)  # the computer has nothing to play again: it is red's turn
    assert service.game.commands == []
    assert service.journal.load(service.game.id).commands == []
    # Without the computer's commands at the end, the host's undo takes back one action.
    red.post("/api/seeker/command", json={"cmd": "roll", "faces": ["1"] * 5})
    red.post("/api/seeker/command", json={"cmd": "announce", "face": "1"})
    assert table.host.get("/api/host/status").json["game"]["last_action"] == "Red announced 1"
    assert host_undo(table.host).json["undone"]
    assert len(service.game.commands) == 1


def test_the_seekers_and_the_table_pages_narrate_each_step_of_the_computer(table: Table):
    """Five mummies: the computer's five-step intermediate move, step by step in words
    on a seeker's page and the table's, with the cell and the steps left."""
    table.new_game(["red", "blue"], computer="normal", pace=0.0, dice="physical", exact=True)
    red, blue, watching = table.device("seeker0"), table.device("seeker1"), table.device("table")
    five = {"cmd": "roll", "faces": ["mummy"] * 5}
    assert red.post("/api/seeker/command", json=five).status_code == 200
    service = table.service
    wait_until(lambda: not service.game.current.is_mummy_turn)
    name = service.maze.cell_name
    said = [
        f"The mummy steps to {name(c.to)} ({4 - i} left)."
        for i, c in enumerate(service.game.commands[1:])
    ]
    assert len(said) == 5
    for page, url in ((blue, "/api/seeker/state"), (watching, "/api/table/state")):
        log = [e["text"] for e in page.get(url).json["log"]]
        assert [t for t in log if t.startswith("The mummy steps")] == said, url


def test_the_mummy_seats_phone_offers_no_take_back_of_the_computers_moves(table: Table):
    """The computer plays the mummy: its steps are not the phone's to take back, so the
    page offers none (the host's undo still can), and a take-back sent anyway is refused
    in words and changes nothing."""
    table.new_game(["red", "blue"], computer="normal", pace=0.0, dice="physical")
    red, mummy, service = table.device("seeker0"), table.device("mummy"), table.service
    five = {"cmd": "roll", "faces": ["mummy"] * 5}
    assert red.post("/api/seeker/command", json=five).status_code == 200
    wait_until(lambda: service.game.current.figure == 1 and len(service.game.commands) > 1)
    assert service.game.owners[-1] == "mummy"  # the computer's last step
    state = mummy.get("/api/mummy/state").json
    assert state["takeback"] is None and state["takeback_key"] is None
    commands = list(service.game.commands)
    key = service.published.action_key
    refused = mummy.post("/api/mummy/takeback", json={"action": key})
    assert refused.status_code in (400, 409) and "computer" in error(refused), refused.json
    assert service.game.commands == commands
    assert table.host.get("/api/host/status").json["game"]["last_action"]
