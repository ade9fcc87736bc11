"""The Loot N Run service with a real SQLite journal: journal before effects, resume,
undo, live versions, and the hub giving it the board's LEDs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.board.config import default_config
from companion.board.debounce import OccupancyChange
from companion.board.render import Geometry
from companion.board.scene import Mode, Scene
from companion.board.score_track import ANIMATION_SECONDS, track_path
from companion.games.lootnrun.cards import Card, Guardian
from companion.games.lootnrun.commands import Awaken, Correction, FinalReveal, Loot, Run, Undo
from companion.games.lootnrun.engine import RuleError
from companion.games.lootnrun.state import Phase
from companion.journal import Journal
from companion.service.loop import ServiceError
from companion.service.lootnrun_service import KIND, LootNRunService, make_service
from companion.service.registry import game_factories
from companion.table.hub import GameHub

PLAYERS = [("Anna", "red"), ("Ben", "blue"), ("Cleo", "green")]
GEOMETRY = Geometry(12, 12, camp_slots=4, sarcophagus_slots=4)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Maze:
    """A stand-in for the mummy game's service (the hub's default game)."""

    def occupancy(self, change: OccupancyChange) -> None: ...

    def set_occupied(self, positions: frozenset[int]) -> None: ...

    def scene(self) -> Scene:
        return Scene(positions=GEOMETRY.positions, mode=Mode.IDLE)

    def start(self) -> None: ...

    def status(self) -> dict[str, Any]:
        return {"status": "ok"}

    def close(self) -> None: ...


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal(tmp_path / "journal.sqlite3") as j:
        yield j


def open_service(journal: Journal, clock: Clock | None = None) -> LootNRunService:
    return LootNRunService(journal=journal, geometry=GEOMETRY, clock=clock or Clock())


@pytest.fixture
def service(journal: Journal) -> Iterator[LootNRunService]:
    svc = open_service(journal)
    svc.start()
    yield svc
    svc.close()


def loot_round(svc: LootNRunService, n: int = 3) -> None:
    for _ in range(n):
        svc.submit(Loot())


def test_without_a_game_the_service_waits_for_one(service):
    assert service.state is None and service.game_id is None
    assert service.view()["phase"] == "setup"
    assert service.scene().mode is Mode.IDLE
    with pytest.raises(ServiceError, match="start one first"):
        service.submit(Loot())


def test_every_accepted_command_is_in_the_journal_and_refused_ones_are_not(service, journal):
    game_id = service.new_game(PLAYERS, first=1)
    stored = journal.load(game_id)
    assert stored.kind == KIND
    assert [p["name"] for p in stored.setup["players"]] == ["Anna", "Ben", "Cleo"]
    assert stored.setup["first"] == 1
    loot_round(service)
    events = service.submit(Run((Card.of(1, 1), Card.of(1))))
    assert any(e.kind == "ran" for e in events)
    with pytest.raises(RuleError, match="It is Cleo's turn, not Ben's"):
        service.submit(Run((Card.of(2),), player=1))  # a late tap from Ben's phone
    commands = journal.load(game_id).commands
    assert [c["cmd"] for c in commands] == ["loot", "loot", "loot", "run"]
    assert commands[-1]["cards"][0]["treasures"] == [2, 0, 0, 0, 0, 0]
    assert service.state is not None and service.state.scores == (0, 6, 0)


def test_a_game_resumes_mid_game_after_a_restart_exactly_as_it_was(journal):
    first = open_service(journal)
    first.start()
    game_id = first.new_game(PLAYERS)
    loot_round(first, 4)
    first.submit(Run((Card.of(3, 3), Card.of(3, 5))))  # Ben: 3 on two cards doubled + 1
    first.submit(Awaken(0, (Card.of(2, guardian=Guardian.MUMMY),), player=2))  # Cleo catches Anna
    first.submit(Correction(1, 2, "forgot a point"))
    before = first.state
    first.close()

    again = open_service(journal)
    try:
        assert again.game_id == game_id
        assert again.state == before
        assert again.state is not None and again.state.turn == before.turn
        assert again.view()["history"] == first.view()["history"]
        again.submit(Loot())  # and play goes on
        assert len(journal.load(game_id).commands) == len(before.commands) + 1
    finally:
        again.close()


def test_undo_takes_back_the_last_entry_in_the_journal_too(service, journal):
    game_id = service.new_game(PLAYERS)
    loot_round(service)
    service.submit(Run((Card.of(4),)))
    assert service.state.scores[0] == 1
    events = service.undo()
    assert [e.kind for e in events] == ["undone"]
    assert service.state.scores[0] == 0 and service.state.current == 0
    assert [c["cmd"] for c in journal.load(game_id).commands] == ["loot"] * 3
    service.submit(Undo())  # the Undo command goes the same way
    assert len(journal.load(game_id).commands) == 2
    service.undo()
    service.undo()
    with pytest.raises(RuleError, match="nothing to undo"):
        service.undo()


def test_a_finished_game_is_ended_in_the_journal_and_shown_after_a_restart(journal):
    svc = open_service(journal)
    game_id = svc.new_game([("Anna", "red"), ("Ben", "blue")])
    svc.submit(Loot())
    svc.submit(Correction(0, 35, "a big test jump"))  # reaching the target starts the reveal
    assert svc.state.phase is Phase.FINAL_REVEAL
    svc.submit(FinalReveal(0, (Card.of(1),)))
    svc.submit(FinalReveal(1, ()))
    assert svc.state.is_over and svc.state.winners == (0,)
    assert journal.unfinished(KIND) is None and journal.load(game_id).ended
    svc.close()
    again = open_service(journal)
    assert again.state is not None and again.state.is_over  # the final screen stays
    with pytest.raises(ServiceError, match="end screen"):
        again.undo()  # after the end only the host's undo, confirmed by the winning key
    key = again.view()["action_key"]
    again.undo(confirmed=key)  # taking back the last reveal reopens the game
    assert again.state.phase is Phase.FINAL_REVEAL
    assert journal.unfinished(KIND) is not None
    again.close()


def test_a_new_game_ends_the_one_in_progress(service, journal):
    old = service.new_game(PLAYERS)
    new = service.new_game([("Dora", "pink"), ("Emil", "white")])
    assert new != old and journal.load(old).ended
    assert [p.name for p in service.state.players] == ["Dora", "Emil"]
    with pytest.raises(RuleError, match="both chose Pink"):
        service.new_game([("Dora", "pink"), ("Emil", "Pink")])
    assert service.game_id == new


def test_pages_waiting_for_a_change_see_each_new_version(service):
    service.new_game(PLAYERS)
    version = service.published.version
    seen: list[int] = []

    def wait() -> None:
        seen.append(service.wait_for_change(version, timeout=5).version)

    waiter = threading.Thread(target=wait)
    waiter.start()
    service.submit(Loot())
    waiter.join(timeout=5)
    assert seen == [version + 1]
    view = service.view()
    assert view["version"] == version + 1 and view["players"][0]["rgb"] == "#ff0000"
    assert [e["kind"] for e in view["events"]] == ["looted", "turn_started"]


def test_the_hub_gives_the_board_to_the_score_track(journal):
    clock = Clock()
    svc = open_service(journal, clock)
    hub = GameHub({"mummy": Maze(), KIND: svc})
    try:
        svc.new_game(PLAYERS)
        loot_round(svc)
        assert hub.scene().mode is Mode.IDLE  # the maze still has the board
        version = svc.published.version
        hub.activate(KIND)
        assert svc.published.version == version + 1  # the pages learn it
        svc.submit(Run((Card.of(1, 2), Card.of(1))))  # Anna: 1 doubled (2 symbols) + 1 = 5
        path = track_path(12, 12, 35)
        clock.now += ANIMATION_SECONDS + 0.5  # after the sweep
        scene = hub.scene()
        assert scene.mode is Mode.PLAY
        paint = dict(scene.paint)
        assert paint[path[5]] == (255, 0, 0)  # Anna's red token on 5
        clock.now = svc.published.move.at + 0.1  # during the sweep, Anna is on the way
        moving = dict(hub.scene().paint)
        assert moving[path[5]] != (255, 0, 0)
        hub.occupancy(OccupancyChange(3, True, 0.0, 0.0))  # figures do not matter here
        assert hub.scene().mode is Mode.PLAY
    finally:
        svc.close()


def test_the_appliance_finds_the_service_and_builds_it_from_the_board_config(journal):
    assert game_factories()[KIND] is make_service
    svc = make_service(journal=journal, config=default_config(), quiet_s=0.1)
    try:
        assert svc.geometry.columns == 12 and svc.geometry.positions == 152
        assert svc.status()["game"] is None
        svc.new_game(PLAYERS)
        status = svc.status()
        assert status["game"]["phase"] == "playing" and status["game"]["players"] == 3
    finally:
        svc.close()


def test_the_shared_journal_file_takes_writes_from_both_games_at_once(journal):
    """The maze's loop writes through its connection while this service writes through
    its own: neither sees the other's transaction."""
    svc = open_service(journal)
    svc.start()
    try:
        svc.new_game(PLAYERS)
        maze_game = journal.new_game("mummy", {"maze": "x"})
        errors: list[BaseException] = []

        def maze_writes() -> None:
            try:
                for i in range(300):
                    journal.append(maze_game, {"cmd": "roll", "n": i})
            except BaseException as exc:  # pragma: no cover - the failure being tested
                errors.append(exc)

        writer = threading.Thread(target=maze_writes)
        writer.start()
        for _ in range(250):
            svc.submit(Loot())
        writer.join(timeout=10)
        assert not errors
        assert len(journal.load(maze_game).commands) == 300
        assert len(journal.load(svc.game_id).commands) == 250
    finally:
        svc.close()
