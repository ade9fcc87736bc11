"""The mummy never learns a seeker's position or cards: not from its page's API, not
from its live stream, not from an error message, over many random games played
through the real service (the board kept in step with the game, as the sensors would).

The property is checked two ways at every step: the mummy's JSON has no field that
could carry a position or a card, and it is byte for byte the same when the seekers'
positions and cards are changed (as ``tests/test_mummy_properties.py`` does for the view).
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.mummy.commands import Announce, Command, Move, Roll, RollMummyDie
from companion.games.mummy.maze import Maze
from companion.games.mummy.players import MummyBot, RandomSeekerBot
from companion.games.mummy.record import command_to_json
from companion.games.mummy.state import State
from companion.games.mummy.views import visible_events
from companion.mazes import load_maze
from companion.service.journal import Journal
from companion.service.loop import ServiceError
from companion.service.mummy_service import Published, Service
from companion.service.mummy_tracker import BoardMap
from companion.web import create_app
from companion.web.payloads import mummy_payload

SECRET_KEYS = ('"positions"', '"hand"', '"legal_destinations"', '"playable"', '"entered"')
SECRET_KINDS = ('"figure_moved"',)
COLOURS = ["red", "turquoise", "blue", "violet"]


class Game:
    """A service on an in-memory journal, a board that follows the game, a mummy phone."""

    def __init__(self, maze: Maze, text: str) -> None:
        self.board = BoardMap.for_board(maze.cell_count, 4, 4)
        self.service = Service(
            maze=maze, maze_text=text, journal=Journal(":memory:"), board=self.board, quiet_s=0
        )
        self.service.start()
        self.app = create_app(self.service, secret_key=os.urandom(32))
        self.host = self.app.test_client()
        self.host.get("/")
        self.mummy = self.app.test_client()

    def new_game(self, colours: list[str], exact: bool, treasures: bool) -> None:
        body = {"colours": colours, "exact": exact, "treasures": treasures}
        res = self.host.post("/api/host/game", json=body)
        assert res.status_code == 200, res.json
        code = next(s["code"] for s in res.json["table"]["seats"] if s["seat"] == "mummy")
        assert self.mummy.get(f"/join/{code}").status_code == 200
        self.sync()

    @property
    def table(self) -> Any:
        return self.app.extensions["companion.seats"].table

    def sync(self, leave_out: int | None = None) -> None:
        """Put the board as the game expects (less one figure's position, if asked)."""
        state = self.service.game.current
        want = {p for f, p in self.board.expected(state).items() if f != leave_out}
        version = self.service.published.version
        self.service.set_occupied(frozenset(want))
        deadline = time.monotonic() + 3
        while self.service.published.version == version:
            assert time.monotonic() < deadline
            self.service.wait_for_change(version, 0.1)

    def close(self) -> None:
        self.service.close()
        self.service.journal.close()


@pytest.fixture(scope="module")
def game() -> Iterator[Game]:
    maze, text = load_maze(None)
    game = Game(maze, text)
    yield game
    game.close()


def assert_no_secret(text: str) -> None:
    for key in SECRET_KEYS + SECRET_KINDS:
        assert key not in text, key


def twins(state: State, seed: int) -> Iterator[State]:
    """The same moment with the seekers elsewhere, and with other cards in their hands."""
    maze = state.maze
    free = [c for c in range(maze.cell_count) if c != state.mummy]
    shift = seed % len(free)
    moved = tuple(
        free[(free.index(p) + shift + 7 * f) % len(free)] if maze.is_cell(p) else p
        for f, p in enumerate(state.positions)
    )
    if len(set(moved)) == len(moved):
        yield state.evolve(positions=moved)
    by_colour: dict[Any, list[Any]] = {}
    for t in maze.treasures:
        by_colour.setdefault(t.colour, []).append(t)
    hands = tuple(
        tuple(
            by_colour[t.colour][(seed + i + j) % len(by_colour[t.colour])] for j, t in enumerate(h)
        )
        for i, h in enumerate(state.hands)
    )
    yield state.evolve(hands=hands)


def check_mummy_sees_nothing_secret(game: Game, seed: int) -> str:
    """The mummy's API answer and stream payload now, and their twins, checked."""
    published: Published = game.service.published
    answer = game.mummy.get("/api/mummy/state")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    assert_no_secret(text)
    table = game.table
    payload = json.dumps(mummy_payload(published, table), sort_keys=True)
    assert payload == json.dumps(json.loads(text), sort_keys=True)
    for twin in twins(published.state, seed):
        assert json.dumps(mummy_payload(replace(published, state=twin), table), sort_keys=True) == (
            payload
        )
    return payload


SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(
    seed=st.integers(0, 2**32),
    seekers=st.integers(1, 4),
    exact=st.booleans(),
    treasures=st.booleans(),
    knock_at=st.integers(0, 60),
)
def test_the_mummy_never_sees_a_seeker(game, seed, seekers, exact, treasures, knock_at):
    game.new_game(COLOURS[:seekers], exact, treasures)
    state = game.service.game.current
    seeker_bot = RandomSeekerBot(seed)
    mummy_bot = MummyBot(state.setup)
    mummy_bot.observe(visible_events(list(game.service.game.last_events), "mummy"))
    for step in range(220):
        state = game.service.game.current
        if state.is_over:
            break
        check_mummy_sees_nothing_secret(game, seed + step)
        if step == knock_at or (state.is_mummy_turn and step % 17 == knock_at % 17):
            knock_a_figure_and_let_the_mummy_try(game, state)
        if state.is_mummy_turn:
            command = mummy_bot.choose(state.phase, state.mummy, state.steps_left, exact)
            res = game.mummy.post("/api/mummy/command", json=command_to_json(command, state.maze))
            assert res.status_code == 200, res.json
            assert_no_secret(res.get_data(as_text=True))
        else:
            command = seeker_bot.choose(state)
            submit_for_seekers(game, state, command)
        events = list(game.service.published.log[-1])
        mummy_bot.observe(visible_events(events, "mummy"))
        game.sync()
    check_mummy_sees_nothing_secret(game, seed)


def submit_for_seekers(game: Game, state: State, command: Command) -> None:
    """A seeker's command; a move comes from the board, as the sensors would report it."""
    role = "board" if isinstance(command, Move) else f"seeker{state.seeker}"
    game.service.submit(role, command)


def knock_a_figure_and_let_the_mummy_try(game: Game, state: State) -> None:
    """A figure knocked off the board: the restore message names cells.  On a seeker's
    turn the mummy's answer does not change at all; on its own turn it gets a plain
    "wait", and so does a command it sends."""
    moving = state.figure if state.phase.value == "seeker_moving" else -1
    figure = next((f for f, p in enumerate(state.positions) if p >= 0 and f != moving), None)
    if figure is None:
        return
    before = game.mummy.get("/api/mummy/state").json
    game.sync(leave_out=figure)
    assert not game.service.published.judgement.matches
    answer = game.mummy.get("/api/mummy/state").json
    if state.is_mummy_turn:
        assert answer["board"]["message"] == "The seekers are putting the board right."
        assert answer["guidance"] == "The seekers are putting the board right: wait a moment."
    else:
        assert answer == before
    with pytest.raises(ServiceError) as refused:
        game.service.submit("mummy", RollMummyDie())
    assert str(refused.value) in (
        "It is not the mummy's turn.",
        "The seekers are putting the board right: wait a moment.",
    )
    game.sync()


def test_a_figure_moved_on_the_board_does_not_reach_the_mummys_stream(game):
    """Lifting and putting back a figure publishes new versions; the mummy's stream stays
    silent (it sends a message only when its own payload changes): no counting of steps.
    (The reader thread ends when the service closes.)"""
    game.new_game(["red", "blue"], exact=False, treasures=True)
    received: queue.Queue[str] = queue.Queue()
    response = game.mummy.get("/api/mummy/stream", buffered=False)

    def read() -> None:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith("data: "):
                received.put(text[len("data: ") :])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    first = received.get(timeout=3)
    assert_no_secret(first)
    service = game.service
    service.submit("seeker0", Roll())
    assert received.get(timeout=3) != first
    state = service.game.current
    if not state.roll:  # five mummies: the turn is lost
        return
    service.submit("seeker0", Announce(state.roll[0]))
    received.get(timeout=3)
    home = game.board.position_of(service.game.current, 0)
    others = {p for f, p in game.board.expected(service.game.current).items() if f != 0}
    before = service.published.version
    for lifted in (True, False, True, False):  # the figure lifted, put back, lifted ...
        version = service.published.version
        service.set_occupied(frozenset(others if lifted else others | {home}))
        service.wait_for_change(version, 1.0)
    assert service.published.version >= before + 4
    time.sleep(0.3)
    assert received.empty(), received.get()
