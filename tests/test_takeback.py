"""Take-backs: a seat takes back its own last action until the next player acts; every
page hears of it, the mummy without a seeker's cell; the host's undo names the action."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.games.mummy.commands import Announce, EndTurn, MummyStep, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.moves import legal_destinations, mummy_steps
from companion.games.mummy.state import Phase
from companion.i18n.catalog import localize
from companion.service.appliance import Appliance
from companion.service.autoplay import play_game
from companion.service.loop import ServiceError
from companion.table.seats import Table, TableOptions
from companion.web.payloads import mummy_payload, notice_json, seeker_payload, table_payload
from tests.seating import host_undo, post_form
from tests.test_service import announce, home, moved, start, wait_until

FACES = (Face.THREE, Face.THREE, Face.TWO, Face.FOUR, Face.ARROW)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Appliance]:
    appliance = start(tmp_path)
    wait_until(lambda: appliance.service.published.judgement.matches)
    yield appliance
    appliance.close()


def table() -> Table:
    return Table.new(["red", "turquoise", "blue", "violet"], TableOptions())


def move_red(app: Appliance) -> int:
    announce(app, Face.THREE, FACES)
    target = legal_destinations(app.service.game.current, 0, Face.THREE)[0]
    app.mock_board.lift(home(app, 0))
    app.mock_board.place(target)
    wait_until(lambda: moved(app))
    return target


def test_a_seeker_takes_back_a_move_and_is_told_where_to_put_the_figure(app):
    target = move_red(app)
    name = app.service.maze.cell_name(target)
    published = app.service.published
    assert str(seeker_payload(published, table(), 0)["takeback"]) == f"moved to {name}"
    assert seeker_payload(published, table(), 1)["takeback"] is None
    action = app.service.take_back("seeker0")
    assert str(action.said) == f"moved to {name}"
    state = app.service.game.current
    assert state.phase is Phase.SEEKER_MOVING and state.positions[0] == state.maze.start_node
    published = app.service.published
    assert "put Red back on camp slot 1" in str(published.judgement.message)
    assert f"take the figure off {name}" in str(published.judgement.message)
    assert str(table_payload(published, table())["notice"]["text"]) == (
        f"Red took back: moved to {name}"
    )
    mummy = str(mummy_payload(published, table())["notice"]["text"])
    assert mummy == "Red took back: moved a figure" and name not in str(
        localize(mummy_payload(published, table()), "en")
    )
    commands = app.journal.load(app.service.game.id).commands
    assert [c["cmd"] for c in commands] == ["roll", "announce"]


def test_a_seat_cannot_take_back_another_seats_action(app):
    move_red(app)
    with pytest.raises(ServiceError, match="nothing of yours"):
        app.service.take_back("seeker1")
    with pytest.raises(ServiceError, match="nothing of yours"):
        app.service.take_back("mummy")
    assert app.service.game.current.phase is not Phase.SEEKER_MOVING


def test_no_take_back_once_the_next_player_has_acted(app):
    move_red(app)
    if app.service.game.current.phase is Phase.SEEKER_CARD:
        app.service.submit("seeker0", EndTurn())
    app.service.submit("seeker1", Roll(FACES))
    with pytest.raises(ServiceError, match="the next player has acted"):
        app.service.take_back("seeker0")


def test_a_roll_of_the_companions_dice_cannot_be_taken_back(app):
    app.service.submit("seeker0", Roll())
    with pytest.raises(ServiceError, match="cannot be taken back"):
        app.service.take_back("seeker0")
    assert app.service.game.current.phase is Phase.SEEKER_ROLLED


def test_a_wrong_announcement_is_taken_back_and_another_announced(app):
    app.service.submit("seeker0", Roll(FACES))
    app.service.submit("seeker0", Announce(Face.TWO))
    assert str(app.service.take_back("seeker0").said) == "announced 2"
    app.service.submit("seeker0", Announce(Face.THREE))
    assert app.service.game.current.announced is Face.THREE


def test_the_hosts_undo_names_the_action_and_every_page_hears_of_it(app):
    target = move_red(app)
    name = app.service.maze.cell_name(target)
    published = app.service.published
    assert published.action is not None
    assert str(published.action.label()) == "Red moved a figure"  # the host may be the mummy
    assert app.service.undo()
    notice = str(table_payload(app.service.published, table())["notice"]["text"])
    assert notice == f"The host took back Red's action: moved to {name}"
    assert name not in str(mummy_payload(app.service.published, table())["notice"]["text"])
    host = str(notice_json(app.service.published, "host")["text"])  # type: ignore[index]
    assert host == "The host took back Red's action: moved a figure"


def test_the_notice_goes_with_the_next_command(app):
    app.service.submit("seeker0", Roll(FACES))
    app.service.submit("seeker0", Announce(Face.TWO))
    app.service.take_back("seeker0")
    assert table_payload(app.service.published, table())["notice"] is not None
    app.service.submit("seeker0", Announce(Face.THREE))
    assert table_payload(app.service.published, table())["notice"] is None


def test_the_host_page_says_what_to_put_right_who_won_and_what_undo_takes_back(table) -> None:
    table.new_game(["red", "blue"])
    status = table.host.get("/api/host/status").json
    assert status["game"]["guidance"] == "Red's turn: roll the dice."
    assert status["game"]["winner"] is None and status["game"]["last_action"] is None
    red = table.device("seeker0")
    red.post("/api/seeker/command", json={"cmd": "roll"})
    assert table.host.get("/api/host/status").json["game"]["last_action"] == "Red rolled the dice"
    state = red.get("/api/seeker/state").json
    face = next(f for f in state["view"]["roll"] if f != "mummy")
    red.post("/api/seeker/command", json={"cmd": "announce", "face": face})
    status = table.host.get("/api/host/status").json
    label = "the arrow" if face == "arrow" else face
    assert status["game"]["last_action"] == f"Red announced {label}"
    undone = host_undo(table.host).json
    assert undone["undone"] and undone["game"]["notice"]["text"] == (
        f"The host took back Red's action: announced {label}"
    )


# -- every take-back and undo names the action it confirmed ------------------------------


def announce_then_move(table) -> tuple[dict, dict, int]:
    """Red throws and announces 3, then moves: the host status and Red's state as each
    page showed them after the announcement, and the cell Red moved to."""
    red = table.device("seeker0")
    faces = ["3", "3", "2", "4", "arrow"]
    assert red.post("/api/seeker/command", json={"cmd": "roll", "faces": faces}).status_code == 200
    assert red.post("/api/seeker/command", json={"cmd": "announce", "face": "3"}).status_code == 200
    seen_by_host = table.host.get("/api/host/status").json
    seen_by_red = red.get("/api/seeker/state").json
    target = legal_destinations(table.service.game.current, 0, Face.THREE)[0]
    table.move(target)
    return seen_by_host, seen_by_red, target


def test_the_hosts_undo_never_undoes_an_action_that_came_after_the_one_confirmed(table):
    """Red announces, then moves, while the host's dialog says "announced": the undo is
    refused in words naming the move (without its cell), and nothing is undone."""
    table.new_game(["red", "blue"], dice="physical")
    seen, _, target = announce_then_move(table)
    assert seen["game"]["last_action"] == "Red announced 3"
    commands = list(table.service.game.commands)
    stale = table.host.post("/api/host/undo", json={"action": seen["game"]["action_key"]})
    assert stale.status_code == 409, stale.json
    assert stale.json["error"] == (
        'The last action is now "Red moved a figure" (it came in the meantime): undo that instead?'
    )
    assert stale.json["undone"] is False and table.service.game.commands == commands
    assert table.service.maze.cell_name(target) not in json.dumps(stale.json)
    # The answer carries the action now named: confirmed, that one is undone.
    again = table.host.post("/api/host/undo", json={"action": stale.json["game"]["action_key"]})
    assert again.status_code == 200 and again.json["undone"]
    assert table.service.game.commands == commands[:-1]
    assert again.json["game"]["notice"]["text"] == "The host took back Red's action: moved a figure"
    assert table.service.game.current.phase is Phase.SEEKER_MOVING
    # The same key twice undoes nothing more (a double tap, a retried request).
    twice = table.host.post("/api/host/undo", json={"action": stale.json["game"]["action_key"]})
    assert twice.status_code == 409 and len(table.service.game.commands) == len(commands) - 1


def test_the_hosts_undo_must_name_an_action(table):
    table.new_game(["red", "blue"], dice="physical")
    announce_then_move(table)
    commands = list(table.service.game.commands)
    for body in ({}, {"action": 3}, {"action": "x" * 65}):
        res = table.host.post("/api/host/undo", json=body)
        assert res.status_code == 400 and res.json["error"], body
    assert table.service.game.commands == commands


def test_a_seats_take_back_names_the_action_it_confirmed(table):
    table.new_game(["red", "blue"], dice="physical")
    _, seen, target = announce_then_move(table)
    assert seen["takeback"] == "announced 3" and seen["takeback_key"]
    red = table.device("seeker0")
    commands = list(table.service.game.commands)
    stale = red.post("/api/seeker/takeback", json={"action": seen["takeback_key"]})
    name = table.service.maze.cell_name(target)
    assert stale.status_code == 409
    assert stale.json["error"] == (
        f'Your last action is now "moved to {name}" (it came in the meantime): take that '
        "back instead?"
    )
    assert table.service.game.commands == commands
    key = stale.json["state"]["takeback_key"]
    assert key and stale.json["state"]["takeback"] == f"moved to {name}"
    took = red.post("/api/seeker/takeback", json={"action": key})
    assert took.status_code == 200 and table.service.game.commands == commands[:-1]
    # The mummy's page never carries a key that would tick with the seekers' commands.
    mummy = table.device("mummy").get("/api/mummy/state").json
    assert mummy["takeback_key"] is None


def test_no_take_back_after_the_game_has_ended_but_the_host_may_undo_the_win(table):
    table.new_game(["red", "blue"])
    red, blue, mummy = (table.device(s) for s in ("seeker0", "seeker1", "mummy"))
    play_game(table.appliance, ["red", "blue"])
    service = table.service
    state = service.game.current
    assert state.is_over
    last = service.game.actions[-1]
    winner_page = {"mummy": mummy, "seeker0": red, "seeker1": blue}[last.seat]
    role = "mummy" if last.seat == "mummy" else "seeker"
    page = winner_page.get(f"/api/{role}/state").json
    assert page["takeback"] is None and page["takeback_key"] is None  # not offered
    key = service.published.action_key
    commands = list(service.game.commands)
    refused = winner_page.post(f"/api/{role}/takeback", json={"action": key})
    assert refused.status_code == 400, refused.json
    assert refused.json["error"].startswith("The game is over: nothing can be taken back.")
    assert service.game.commands == commands and service.game.current.is_over
    status = table.host.get("/api/host/status").json
    assert status["game"]["over"] and status["game"]["last_action"]
    undone = table.host.post("/api/host/undo", json={"action": status["game"]["action_key"]})
    assert undone.status_code == 200 and undone.json["undone"]
    assert not service.game.current.is_over and not undone.json["game"]["over"]
    stored = service.journal.latest("mummy")
    assert stored is not None and not stored.ended


def test_a_new_game_a_board_switch_and_new_codes_name_what_the_host_confirmed(table):
    """Two host devices: the second sets up a game while the first one's page still
    shows the old one; the first one's new game, board switch and new codes are refused."""
    table.new_game(["red", "blue"])
    shown = table.host.get("/api/host/status").json["game"]["id"]
    other = table.app.test_client()
    pin = table.app.extensions["companion.seats"].pin
    assert post_form(other, "/host", "/host", {"pin": pin}).status_code == 303
    newer = other.post("/api/host/game", json={"colours": ["red"], "replaces": shown})
    assert newer.status_code == 200 and newer.json["game"]["id"] != shown
    stale = table.host.post("/api/host/game", json={"colours": ["blue"], "replaces": shown})
    assert stale.status_code == 409, stale.json
    assert stale.json["error"].startswith("Another game was set up in the meantime")
    assert table.service.game.id == newer.json["game"]["id"]
    assert table.service.game.setup.figures[0].value == "red"
    given = other.post("/api/host/board", json={"game": "lootnrun", "pause": True, "from": "mummy"})
    assert given.status_code == 200 and table.appliance.hub.active == "lootnrun"
    late = table.host.post(
        "/api/host/board", json={"game": "crypt", "pause": True, "from": "mummy"}
    )
    assert late.status_code == 409
    assert (
        late.json["error"] == "The board went to Loot N Run in the meantime: nothing was changed."
    )
    assert table.appliance.hub.active == "lootnrun"
    # "New codes" names the codes the page showed: renewed meanwhile (from another page
    # of the same device), nothing changes. Another host device is shut out by them.
    key = table.host.get("/api/host/status").json["table"]["codes_key"]
    assert other.post("/api/host/codes", json={"renews": key}).status_code == 200
    codes = dict(table.app.extensions["companion.seats"].table.codes)
    again = other.post("/api/host/codes", json={"renews": key})
    assert again.status_code == 409 and again.json["error"] == (
        "The codes were renewed in the meantime: the phones need the new ones."
    )
    shut_out = table.host.post("/api/host/codes", json={"renews": key})
    assert shut_out.status_code == 403 and "PIN" in shut_out.json["error"]
    assert table.app.extensions["companion.seats"].table.codes == codes


def test_the_hosts_undo_stands_while_only_the_computer_plays_on(app):
    """The host confirms "Red: ..., and what the mummy did after it" while the computer
    mummy is still stepping: its further steps take back with Red's action, so the undo
    goes through; a person's action in between is refused (tests above)."""
    service = app.service
    service.computer_seats = frozenset({"mummy"})
    service.submit("seeker0", Roll(faces=(Face.MUMMY,) * 5))  # Red's turn is lost
    state = service.game.current
    assert state.is_mummy_turn  # the five-step intermediate move, the computer's
    service.submit("mummy", MummyStep(mummy_steps(state)[0]))
    seen = service.published
    assert seen.host_undo is not None
    assert str(seen.host_undo.label()).endswith(", and what the mummy did after it")
    service.submit("mummy", MummyStep(mummy_steps(service.game.current)[0]))  # meanwhile
    assert service.published.action_key != seen.action_key
    assert service.undo(seen.action_key)
    assert service.game.commands == []


def test_the_hosts_undo_of_the_mummys_step_says_the_mummy_mid_sentence(app):
    """ "The host took back the mummy's action", never "... took back The mummy's ..."."""
    service = app.service
    service.submit("seeker0", Roll(faces=(Face.MUMMY,) * 5))  # the mummy's intermediate move
    service.submit("mummy", MummyStep(mummy_steps(service.game.current)[0]))
    assert str(service.published.action.label()).startswith("The mummy ")
    assert service.undo()
    for text in (
        str(table_payload(service.published, table())["notice"]["text"]),
        str(mummy_payload(service.published, table())["notice"]["text"]),
    ):
        assert text.startswith("The host took back the mummy's action: "), text
    german = localize(table_payload(service.published, table())["notice"]["text"], "de")
    assert german.startswith("Der Gastgeber hat zurückgenommen: Die Mumie hat "), german
