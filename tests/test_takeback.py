"""Take-backs: a seat takes back its own last action until the next player acts; every
page hears of it, the mummy without a seeker's cell; the host's undo names the action."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.games.mummy.commands import Announce, EndTurn, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.state import Phase
from companion.i18n.catalog import localize
from companion.service.appliance import Appliance
from companion.service.loop import ServiceError
from companion.table.seats import Table, TableOptions
from companion.web.payloads import mummy_payload, seeker_payload, table_payload
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
    assert str(published.action.label()) == f"Red: moved to {name}"
    assert app.service.undo()
    notice = str(table_payload(app.service.published, table())["notice"]["text"])
    assert notice == f"The host took back Red's action: moved to {name}"
    assert name not in str(mummy_payload(app.service.published, table())["notice"]["text"])


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
    assert table.host.get("/api/host/status").json["game"]["last_action"] == "Red: rolled the dice"
    state = red.get("/api/seeker/state").json
    face = next(f for f in state["view"]["roll"] if f != "mummy")
    red.post("/api/seeker/command", json={"cmd": "announce", "face": face})
    status = table.host.get("/api/host/status").json
    label = "the arrow" if face == "arrow" else face
    assert status["game"]["last_action"] == f"Red: announced {label}"
    undone = table.host.post("/api/host/undo", json={}).json
    assert undone["undone"] and undone["game"]["notice"]["text"] == (
        f"The host took back Red's action: announced {label}"
    )
