"""The mummy never learns a seeker's position or cards: not from its page's API, not
from its live stream, not from an error message, over many random games played
through the real service (the board kept in step with the game, as the sensors would).

The property is checked two ways at every step: the mummy's JSON has no field that
could carry a position or a card, and it is byte for byte the same when the seekers'
positions and cards are changed (as ``tests/test_mummy_properties.py`` does for the view).
Each seeker's answer, likewise, is the same when the other seekers hold other cards.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.board.debounce import OccupancyChange
from companion.games.crypt.board import square_name
from companion.games.mummy.commands import Announce, Command, Move, Roll, RollMummyDie
from companion.games.mummy.maze import Maze
from companion.games.mummy.players import MummyBot, RandomSeekerBot
from companion.games.mummy.record import command_to_json
from companion.games.mummy.state import State
from companion.games.mummy.views import visible_events
from companion.games.mummy.words import treasure_word
from companion.i18n.catalog import localize
from companion.journal import Journal
from companion.mazes import load_maze
from companion.service.loop import ServiceError
from companion.service.mummy_service import Published, Service
from companion.service.mummy_tracker import BoardMap
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from companion.web import create_app
from companion.web.payloads import mummy_payload, seeker_payload
from tests.seating import join, seat_codes

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
        #: One phone per seeker seat of the current game.
        self.seekers: list[Any] = []

    def new_game(self, colours: list[str], exact: bool, treasures: bool) -> None:
        body = {"colours": colours, "exact": exact, "treasures": treasures}
        res = self.host.post("/api/host/game", json=body)
        assert res.status_code == 200, res.json
        codes = seat_codes(self.host, res.json)
        join(self.mummy, codes["mummy"])
        self.seekers = []
        for seeker in range(len(self.service.game.current.setup.seekers)):
            phone = self.app.test_client()
            join(phone, codes[f"seeker{seeker}"])
            self.seekers.append(phone)
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


def others_hands_twin(state: State, seeker: int, seed: int) -> State:
    """The same moment with every other seeker holding other cards (same colours)."""
    by_colour: dict[Any, list[Any]] = {}
    for t in state.maze.treasures:
        by_colour.setdefault(t.colour, []).append(t)
    hands = tuple(
        h
        if i == seeker
        else tuple(
            by_colour[t.colour][(seed + i + j + 1) % len(by_colour[t.colour])]
            for j, t in enumerate(h)
        )
        for i, h in enumerate(state.hands)
    )
    return state.evolve(hands=hands)


def check_no_seeker_sees_anothers_cards(game: Game, seed: int) -> int:
    """Each seeker's API answer is their payload now, and it stays byte for byte the
    same when the other seekers hold other cards; how many twins really differed."""
    published: Published = game.service.published
    table = game.table
    differed = 0
    for seeker, phone in enumerate(game.seekers):
        answer = phone.get("/api/seeker/state")
        assert answer.status_code == 200
        payload = json.dumps(
            localize(seeker_payload(published, table, seeker), "en"), sort_keys=True
        )
        assert payload == json.dumps(seat_state(answer.json), sort_keys=True)
        twin = others_hands_twin(published.state, seeker, seed)
        differed += twin.hands != published.state.hands
        seen = localize(seeker_payload(replace(published, state=twin), table, seeker), "en")
        assert json.dumps(seen, sort_keys=True) == payload, f"seeker{seeker} sees others' cards"
    return differed


def seat_state(answer: dict[str, Any]) -> dict[str, Any]:
    """A seat's API answer without the game that holds the board (public: the host gave
    it, every page names it) and where the mummy's player far away is (public: every
    page says it), which the API adds to the role's payload."""
    assert answer["active_game"] in ("mummy", None)
    assert answer.get("remote") is None or "state" in answer["remote"]
    return {key: value for key, value in answer.items() if key not in ("active_game", "remote")}


def check_mummy_sees_nothing_secret(game: Game, seed: int) -> str:
    """The mummy's API answer and stream payload now, and their twins, checked."""
    published: Published = game.service.published
    answer = game.mummy.get("/api/mummy/state")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    assert_no_secret(text)
    table = game.table
    payload = json.dumps(localize(mummy_payload(published, table), "en"), sort_keys=True)
    assert payload == json.dumps(seat_state(json.loads(text)), sort_keys=True)
    for twin in twins(published.state, seed):
        assert json.dumps(
            localize(mummy_payload(replace(published, state=twin), table), "en"), sort_keys=True
        ) == (payload)
    return payload


def check_the_summary_waits_for_the_end(game: Game) -> bool:
    """The end's summary (every seeker's cards, the mummy's path) reaches no page before
    the game is over, and every page the same one once it is; whether it was over."""
    over = game.service.game.current.is_over
    answers = [
        game.mummy.get("/api/mummy/state").json["summary"],
        game.host.get("/api/host/status").json["game"]["summary"],
        *(phone.get("/api/seeker/state").json["summary"] for phone in game.seekers),
    ]
    if not over:
        assert answers == [None] * len(answers), answers
        return False
    assert answers[0] is not None and all(a == answers[0] for a in answers), answers
    state = game.service.game.current
    left = {str(treasure_word(t)) for hand in state.hands for t in hand}
    assert {c for s in answers[0]["seekers"] for c in s["left"]} == left
    return True


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
def test_the_mummy_never_sees_a_seeker_nor_a_seeker_anothers_cards(
    game, seed, seekers, exact, treasures, knock_at
):
    game.new_game(COLOURS[:seekers], exact, treasures)
    state = game.service.game.current
    seeker_bot = RandomSeekerBot(seed)
    mummy_bot = MummyBot(state.setup)
    mummy_bot.observe(visible_events(list(game.service.game.last_events), "mummy"))
    twins_differed = 0
    for step in range(220):
        state = game.service.game.current
        if state.is_over:
            break
        check_mummy_sees_nothing_secret(game, seed + step)
        twins_differed += check_no_seeker_sees_anothers_cards(game, seed + step)
        check_the_summary_waits_for_the_end(game)
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
    check_the_summary_waits_for_the_end(game)
    assert twins_differed or seekers == 1  # the seeker twins were really other hands


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


# -- the whole table: every game, every door, the board switch ----------------------------
#
# A whole appliance in mock mode (the maze, Loot N Run and the crypt on one board), its
# Flask app in-process and on the companion's own live web server.  Random maze games are played by
# the bots with the figures moved on the simulated board; at random moments the board
# is given to another game and back, and clients without the right (a phone with no
# seat, the mummy's phone, a watching phone) try every door: the pages, the JSON, the
# streams, the board switches.  Whatever they receive must name no cell a seeker's
# figure stands on and no card, and /healthz tells them only that the companion lives.
# The first seeker's phone tries the same doors: it may see the figures, as everyone at
# the table does, but no card that is not its own.

#: What a hand on the board does: lift a magnet, put one down (often where one was just
#: lifted: a figure put back), or slide one from a cell to another.
TOUCH = st.tuples(
    st.sampled_from(["lift", "put", "back", "move"]),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)
CELL_NAME = re.compile(r"\b[A-Z](?:1[0-9]|[1-9])\b")
SQUARE_NAME = re.compile(r"\b[a-h][1-8]\b")
#: Keys whose values are board positions or cell names.
POSITION_KEYS = frozenset(
    {"magnets", "positions", "unexpected", "missing", "lifted", "errors", "touch", "maze_cells"}
)
GETS = (
    "/",
    "/mummy",
    "/seeker",
    "/table",
    "/crypt",
    "/lootnrun",
    "/sim",
    "/healthz",
    "/api/mummy/state",
    "/api/seeker/state",
    "/api/table/state",
    "/api/host/status",
    "/crypt/api/state",
    "/lootnrun/api/view",
    "/lootnrun/api/record",
    "/sim/api/board",
)
STREAMS = (
    "/api/mummy/stream",
    "/api/table/stream",
    "/crypt/api/stream",
    "/lootnrun/api/stream",
    "/sim/api/stream",
)
#: What a client without the right tries, to take the board (the host's way is below).
BOARD_GRABS = (
    ("/crypt/api/board", {"game": "crypt"}),
    ("/crypt/api/new", {"players": 2}),
    ("/lootnrun/api/board", {"show": True}),
    ("/lootnrun/api/new", {"players": [{"name": "A", "colour": "red"}], "show_on_board": True}),
    ("/api/host/board", {"game": "crypt", "pause": True}),
)
LOOTNRUN_PLAYERS = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]


class LiveClient:
    """A phone talking HTTP to the live web server (no cookies: no seat)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def _request(self, method: str, path: str, body: Any = None) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            data = json.dumps(body) if body is not None else None
            conn.request(method, path, body=data, headers=headers)
            res = conn.getresponse()
            if res.getheader("Content-Type", "").startswith("text/event-stream"):
                return res.status, _first_event(res.fp)
            return res.status, res.read().decode()
        finally:
            conn.close()

    def get(self, path: str) -> tuple[int, str]:
        return self._request("GET", path)

    def post(self, path: str, body: Any) -> tuple[int, str]:
        return self._request("POST", path, body)


def _first_event(stream: Any) -> str:
    """The first data event of a stream (a file of bytes), or what came before it ended."""
    lines = []
    for raw in stream:
        line = raw.decode() if isinstance(raw, bytes) else raw
        lines.append(line)
        if "".join(lines).count("\n\n") and any(x.startswith("data:") for x in lines):
            break
        if len(lines) > 200:
            break
    return "".join(lines)


class FlaskPhone:
    """A phone through Flask's test client (its cookie jar holds its seat, if any)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def get(self, path: str) -> tuple[int, str]:
        res = self.client.get(path, buffered=False)
        if res.mimetype == "text/event-stream":
            try:
                chunks = []
                for chunk in res.response:
                    chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
                    if "data:" in "".join(chunks) and "".join(chunks).endswith("\n\n"):
                        break
                return res.status_code, "".join(chunks)
            finally:
                res.close()
        text = res.get_data(as_text=True)
        res.close()
        return res.status_code, text

    def post(self, path: str, body: Any) -> tuple[int, str]:
        res = self.client.post(path, json=body)
        return res.status_code, res.get_data(as_text=True)


class WholeTable:
    """The appliance, its app in-process and on the live web server, the host and the phones."""

    def __init__(self, state_dir: Path) -> None:
        from tests.test_service import start

        self.appliance = start(state_dir)
        self.service = self.appliance.service
        self.app = create_app(
            self.service, secret_key=os.urandom(32), appliance=self.appliance, testing=True
        )
        self.web = ServerThread(self.app, limits=Limits(threads=8)).start()
        self.port = self.web.port
        self.host = self.app.test_client()
        assert self.host.get("/").status_code in (200, 302)
        self.mummy = self.app.test_client()
        self.watcher = self.app.test_client()
        #: The first seeker's phone: it may know where the figures stand, not others' cards.
        self.seeker = self.app.test_client()
        self.observers: dict[str, Any] = {
            "no seat": FlaskPhone(self.app.test_client()),
            "no seat over HTTP": LiveClient(self.port),
            "mummy": FlaskPhone(self.mummy),
            "watching": FlaskPhone(self.watcher),
            "seeker0": FlaskPhone(self.seeker),
        }
        self.received: list[tuple[str, str, int, str]] = []
        #: Positions lifted by the touches, to put back.
        self.lifted: list[int] = []
        #: Where a maze figure was lifted while another game held the board and a magnet
        #: then put down: answered as on any square (``table/hub.py``), so public.
        self.reopened: set[int] = set()

    def new_game(self, colours: list[str], host_is_mummy: bool = False) -> None:
        """A maze game; the mummy's seat on its own phone, or on the host's device (the
        owner of the box hosts and plays the mummy: then the host's doors are tried too)."""
        self.reopened = set()
        res = self.host.post("/api/host/game", json={"colours": colours})
        assert res.status_code == 200, res.json
        seats = seat_codes(self.host, res.json)
        self.mummy = self.host if host_is_mummy else self.app.test_client()
        join(self.mummy, seats["mummy"])
        self.observers.pop("mummy", None)
        self.observers.pop("host as mummy", None)
        self.observers["host as mummy" if host_is_mummy else "mummy"] = FlaskPhone(self.mummy)
        if "watch" in seats:
            join(self.watcher, seats["watch"])
        join(self.seeker, seats["seeker0"])
        self.sync()

    def touch(self, kind: str, a: int, b: int) -> set[int]:
        """A hand on the simulated board (see ``TOUCH``), once the sensors have seen it;
        the positions it changed."""
        board = self.appliance.mock_board
        before = set(board.occupied)
        taken = sorted(before)
        free = sorted(set(range(self.appliance.config.positions)) - before)
        if kind == "back" and self.lifted:
            board.place(self.lifted.pop())
        elif kind in ("lift", "move") and taken:
            board.lift(taken[a % len(taken)])
            self.lifted.append(taken[a % len(taken)])
            if kind == "move":
                board.place(free[b % len(free)])
        else:
            board.place(free[a % len(free)])
        wait_for(lambda: set(self.appliance.hub._occupied) == set(board.occupied))
        return before ^ set(board.occupied)

    def other_game_heard(self) -> tuple[int, int, int]:
        """What the games without the board have published, and the count of figures
        off the active game's sheet: a maze figure's touch must change none of them."""
        hub = self.appliance.hub
        time.sleep(0.05)  # a game told of a touch publishes from its own thread
        # A placement the crypt holds for its quiet time, or its computer's move, lands
        # later on its own: wait for both, so that one touch's answer is not the next's.
        crypt: Any = hub.service("crypt")
        wait_for(lambda: crypt._pending is None and crypt._computer_at is None)
        return (
            hub.service("crypt").published.version,
            hub.service("lootnrun").published.version,
            hub.off_board(),
        )

    def sync(self) -> None:
        """Put the figures where the maze game expects them."""
        board = self.appliance.mock_board
        board.set_occupied(self.service.board.expected(self.service.game.current).values())
        wait_for(lambda: self.service.published.judgement.matches)

    def give_board(self, game: str) -> None:
        """The host gives the board to ``game`` (pausing a running maze game)."""
        res = self.host.post("/api/host/board", json={"game": game, "pause": True})
        assert res.status_code == 200, res.get_data(as_text=True)
        wait_for(lambda: self.appliance.hub.active == game)

    def secrets(self) -> tuple[set[str], set[str], set[int]]:
        """The seekers' cells now: as maze cell names, as crypt squares, as positions
        (less the squares a hand put a magnet back on, see ``reopened``)."""
        crypt_board = self.appliance.hub.service("crypt").board
        names, squares, positions = seekers_now(self.service, crypt_board)
        public = {crypt_board.square(p) for p in self.reopened}
        squares -= {square_name(q) for q in public if q is not None}
        return names, squares, positions - self.reopened

    def record_everything(self, when: str) -> None:
        """Every door, for every client without the right; each answer checked."""
        names, squares, positions = self.secrets()
        state = self.service.game.current
        # The first seeker's own cards, as numbers and as cell names.
        own = {t.cell for t in state.hands[0]} | {
            state.maze.cell_name(t.cell) for t in state.hands[0]
        }
        for who, phone in self.observers.items():
            for path in GETS + STREAMS:
                status, text = phone.get(path)
                self.received.append((who, path, status, text))
                check_received(who, path, status, text, names, squares, positions, when, own)
            if who == "host as mummy":
                continue  # the host gives the board away by right (the test does, below)
            for path, body in BOARD_GRABS:
                before = self.appliance.hub.active
                status, text = phone.post(path, body)
                self.received.append((who, path, status, text))
                check_received(who, path, status, text, names, squares, positions, when, own)
                # What the grab would have shown, if it had taken the board:
                for look in ("/crypt/api/state", "/lootnrun/api/view", "/sim/api/board"):
                    seen, said = phone.get(look)
                    check_received(who, look, seen, said, names, squares, positions, when, own)
                taken = self.appliance.hub.active
                assert taken == before, f"{who} gave the board to {taken} by {path}: {text}"

    def close(self) -> None:
        try:
            self.appliance.hub.end_streams()
            self.web.stop()
        finally:
            self.appliance.close()


def wait_for(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def check_received(
    who: str,
    path: str,
    status: int,
    text: str,
    names: set[str],
    squares: set[str],
    positions: set[int],
    when: str,
    own_cards: set[Any],
) -> None:
    """Nothing a client without the right receives names a seeker's cell or a card."""
    where = f"{who} {path} ({when}): {text[:600]}"
    assert status < 500, where
    if who.startswith("seeker"):
        check_a_seekers_cards_only(text, own_cards, where)
        return  # a seeker sees the figures on the board like everyone at the table
    if who.startswith("no seat") and path not in ("/", "/healthz"):
        assert status == 403, f"a door opened without a seat: {where}"
    mummy = who in ("mummy", "host as mummy")
    assert_no_secret(text) if not mummy or not path.startswith("/api/mummy") else None
    if mummy and path.startswith("/api/mummy"):
        return  # the mummy's own page: byte-for-byte checks (twins) elsewhere
    found = set(CELL_NAME.findall(text)) & names
    assert not found, f"seeker cells {sorted(found)} reach {where}"
    for data in _json_parts(text):
        for key, value in _walk(data):
            if key in POSITION_KEYS:
                leaked = _values(value) & (positions | names | squares)
                assert not leaked, f"{key}={value!r} carries a seeker's cell: {where}"
        board = data.get("board") if isinstance(data, dict) else None
        if isinstance(board, dict) and path.startswith("/crypt"):
            said = set(SQUARE_NAME.findall(json.dumps(board))) & squares
            assert not said, f"crypt squares {sorted(said)} over seekers reach {where}"
    if path == "/healthz" and status == 200:
        assert set(json.loads(text)) <= {"status"}, f"/healthz tells more than alive: {where}"


def check_a_seekers_cards_only(text: str, own_cards: set[Any], where: str) -> None:
    """Every hand or playable card a seeker's phone receives is one of its own cards."""
    for data in _json_parts(text):
        for key, value in _walk(data):
            cards = value if key == "hand" and isinstance(value, list) else [value]
            if key in ("hand", "playable"):
                cells = {c["cell"] for c in cards if isinstance(c, dict) and "cell" in c}
                assert cells <= own_cards, f"{key} {sorted(cells - own_cards)}: {where}"


def _json_parts(text: str) -> Iterator[Any]:
    """The JSON in an answer: the whole body, or each event of a stream."""
    chunks = [line[len("data:") :] for line in text.splitlines() if line.startswith("data:")]
    for chunk in chunks or [text]:
        try:
            yield json.loads(chunk)
        except ValueError:
            continue


def _walk(data: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield str(key), value
            yield from _walk(value)
    elif isinstance(data, list):
        for item in data:
            yield from _walk(item)


def _values(value: Any) -> set[Any]:
    if isinstance(value, dict):
        return {*value.keys(), *(v for v in value.values() if isinstance(v, (int, str)))}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, (int, str))}
    return {value} if isinstance(value, (int, str)) and not isinstance(value, bool) else set()


@pytest.fixture(scope="module")
def whole_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WholeTable]:
    table = WholeTable(tmp_path_factory.mktemp("whole-table"))
    yield table
    table.close()


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32),
    seekers=st.integers(1, 4),
    switches=st.lists(
        st.tuples(st.integers(4, 40), st.sampled_from(["crypt", "lootnrun"])),
        min_size=1,
        max_size=3,
    ),
    host_is_mummy=st.booleans(),
    touches=st.lists(TOUCH, max_size=6),
)
def test_no_client_without_the_right_learns_a_seeker_in_any_game(
    whole_table, seed, seekers, switches, host_is_mummy, touches
):
    """See the section's comment; while another game holds the board, hands on the
    board (``TOUCH``) lift, put back and slide the maze's figures and other magnets."""
    table = whole_table
    table.appliance.hub.activate("mummy")  # as the last example left it, or not
    table.new_game(COLOURS[:seekers], host_is_mummy)
    service = table.service
    seeker_bot = RandomSeekerBot(seed)
    mummy_bot = MummyBot(service.game.setup)
    mummy_bot.observe(visible_events(list(service.game.last_events), "mummy"))
    at = dict(switches)
    for step in range(45):
        state = service.game.current
        if state.is_over:
            break
        if step in at:
            table.record_everything(f"step {step}, the maze has the board")
            table.give_board(at[step])
            if at[step] == "crypt":
                crypt_client = table.host
                crypt_client.post("/crypt/api/new", json={"players": 2, "computer": 1})
            else:
                table.host.post("/lootnrun/api/new", json={"players": LOOTNRUN_PLAYERS})
            table.record_everything(f"step {step}, {at[step]} has the board")
            if touches:
                table.lifted = []
                left = set(table.appliance.hub._occupied)  # the maze's figures, synced
                freed: set[int] = set()
                for kind, a, b in touches:
                    heard = table.other_game_heard()
                    changed = table.touch(kind, a, b)
                    if changed <= left:  # only the maze's figures lifted: unheard
                        assert table.other_game_heard() == heard, f"{kind} at {changed}"
                    # A lifted figure's square is free from then on (``table/hub.py``):
                    # a magnet put back there is answered as anywhere.
                    now = set(table.appliance.hub._occupied)
                    freed |= changed & left - now
                    left -= changed - now
                    table.reopened |= changed & freed & now
                table.record_everything(f"step {step}, hands on the board of {at[step]}")
            look = table.watcher.get("/crypt/api/state")
            assert look.status_code == 200 and look.json["board"]["active_game"] == at[step]
            table.give_board("mummy")
            table.record_everything(f"step {step}, the board back to the maze")
            table.sync()
        if state.is_mummy_turn:
            command = mummy_bot.choose(state.phase, state.mummy, state.steps_left, False)
            res = table.mummy.post("/api/mummy/command", json=command_to_json(command, state.maze))
            assert res.status_code == 200, res.json
        else:
            command = seeker_bot.choose(state)
            if isinstance(command, Move):
                service.submit("board", command)
            else:
                service.submit(f"seeker{state.seeker}", command)
        mummy_bot.observe(visible_events(list(service.published.log[-1]), "mummy"))
        table.sync()
    table.record_everything("the end")


# -- hands on the board while another game holds it: a thousand quick tables -------------
#
# The same appliance with no thread started: every request to a game is handled in the
# caller's thread (the loops' own path when they are not running), and the sensors are
# left out: a touch reaches the hub as the settled sensor change it would be.  So one
# random game (maze turns, hands on the board during the maze, the board given to the
# crypt or Loot N Run, hands on the board there, the doors of every client without the
# right, the board given back) costs tens of milliseconds, and a thousand run in CI.

#: The doors a client without the right tries after the other game's touches.
QUICK_DOORS = (
    "/crypt/api/state",
    "/crypt/api/stream",
    "/lootnrun/api/view",
    "/lootnrun/api/stream",
    "/api/mummy/state",
    "/api/table/state",
)


#: The host's own doors, tried by the host's device while it holds the mummy's seat.
HOST_DOORS = ("/", "/host", "/api/host/status", "/sim", "/sim/api/board", "/sim/api/stream")


class QuickTable:
    """The whole appliance, no thread running; the host, the phones, the board's magnets."""

    def __init__(self, state_dir: Path) -> None:
        from companion.service.appliance import build
        from tests.test_service import fast_config

        maze, text = load_maze(None)
        self.appliance = build(
            fast_config(), maze, text, state_dir=state_dir, mock=True, quiet_s=0.0, start=False
        )
        self.hub = self.appliance.hub
        self.service = self.appliance.service
        self.crypt = self.hub.service("crypt")
        self.crypt.computer_delay_s = 0.0
        self.lootnrun = self.hub.service("lootnrun")
        self.app = create_app(
            self.service, secret_key=os.urandom(32), appliance=self.appliance, testing=True
        )
        self.host = self.app.test_client()
        assert self.host.get("/").status_code in (200, 302)
        self.positions = self.appliance.config.positions
        self.occupied: set[int] = set(self.appliance.mock_board.occupied)
        self.lifted: list[int] = []
        self.observers: dict[str, FlaskPhone] = {}

    @property
    def table(self) -> Any:
        return self.app.extensions["companion.seats"].table

    def new_game(self, colours: list[str], host_is_mummy: bool) -> None:
        """A maze game; the mummy's seat on the host's device or on a phone of its own."""
        self.give_board("mummy")
        res = self.host.post("/api/host/game", json={"colours": colours})
        assert res.status_code == 200, res.json
        seats = seat_codes(self.host, res.json)
        mummy = self.host if host_is_mummy else self.app.test_client()
        join(mummy, seats["mummy"])
        watcher = self.app.test_client()
        if "watch" in seats:
            join(watcher, seats["watch"])
        self.observers = {
            "host as mummy" if host_is_mummy else "mummy": FlaskPhone(mummy),
            "watching": FlaskPhone(watcher),
            "no seat": FlaskPhone(self.app.test_client()),
        }
        self.sync()

    def sync(self) -> None:
        """Put the figures where the maze game expects them."""
        want = set(self.service.board.expected(self.service.game.current).values())
        self.hub.set_occupied(frozenset(want))
        self.occupied, self.lifted = want, []
        assert self.service.published.judgement.matches

    def give_board(self, game: str) -> None:
        if self.hub.active == game:
            return
        res = self.host.post("/api/host/board", json={"game": game, "pause": True})
        assert res.status_code == 200, res.get_data(as_text=True)
        assert self.hub.active == game

    def touch(self, kind: str, a: int, b: int) -> set[int]:
        """One hand on the board; the positions it changed."""
        free = sorted(set(range(self.positions)) - self.occupied)
        taken = sorted(self.occupied)
        if kind == "back" and self.lifted:
            changes = [(self.lifted.pop(), True)]
        elif kind in ("lift", "move") and taken:
            start = taken[a % len(taken)]
            changes = [(start, False)]
            if kind == "move":
                changes.append((free[b % len(free)], True))
        else:
            changes = [(free[a % len(free)], True)]
        for position, occupied in changes:
            if occupied:
                self.occupied.add(position)
                self.lifted = [p for p in self.lifted if p != position]
            else:
                self.occupied.discard(position)
                self.lifted.append(position)
            self.hub.occupancy(OccupancyChange(position, occupied, 0.0, 0.0))
        self.settle()
        return {position for position, _ in changes}

    def settle(self) -> None:
        """What the game's loop does between requests: placements, the computer's move."""
        active = self.hub.service(self.hub.active)
        for _ in range(4):
            version = active.published.version
            active._tick()
            if active.published.version == version:
                return

    def close(self) -> None:
        self.appliance.close()


@pytest.fixture(scope="module")
def quick_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QuickTable]:
    """On a memory-backed directory where there is one (the journal is the same SQLite
    file with the same commits; only the wait for the disk's sync goes)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        with tempfile.TemporaryDirectory(dir=shm, prefix="quick-table-") as state_dir:
            table = QuickTable(Path(state_dir))
            yield table
            table.close()
        return
    table = QuickTable(tmp_path_factory.mktemp("quick-table"))
    yield table
    table.close()


def seekers_now(service: Service, crypt_board: Any) -> tuple[set[str], set[str], set[int]]:
    """The seekers' cells now: as maze cell names, as crypt squares, as positions."""
    state = service.game.current
    names, squares, positions = set(), set(), set()
    for figure, cell in enumerate(state.positions):
        if not state.maze.is_cell(cell):
            continue
        names.add(state.maze.cell_name(cell))
        position = service.board.position_of(state, figure)
        if position is not None:
            positions.add(position)
            square = crypt_board.square(position)
            if square is not None:
                squares.add(square_name(square))
    return names, squares, positions


def check_crypt_view(view: dict[str, Any], squares: set[str], opened: set[str], where: str) -> None:
    """The crypt's judgement of the board names no square a seeker stands on: what it
    sensed (a touch, a stray magnet, an error) never; its words only the squares its own
    open game names (meeples, cubes, locks, moves, hints) or that it asked for itself."""
    board = view["board"]
    secret = squares - opened
    for key in ("touch", "unexpected", "errors"):
        named = _values(board.get(key))
        assert not named & secret, f"{key}={board.get(key)!r} names a seeker: {where}"
    public = set(
        SQUARE_NAME.findall(json.dumps([view[k] for k in view if k not in ("board", "hints")]))
    )
    public |= set(SQUARE_NAME.findall(json.dumps(board.get("hints"))))
    said = set(SQUARE_NAME.findall(json.dumps(board))) & secret - public
    assert not said, f"crypt squares {sorted(said)} over seekers: {where}"


def check_the_mummy_payload(table: QuickTable, seed: int, *, cards: bool = True) -> None:
    """The mummy's payload now: no secret key, and the same with the seekers elsewhere
    (and, with ``cards``, with other cards in their hands)."""
    published = table.service.published
    payload = json.dumps(localize(mummy_payload(published, table.table), "en"), sort_keys=True)
    assert_no_secret(payload)
    for twin in list(twins(published.state, seed))[: None if cards else 1]:
        seen = localize(mummy_payload(replace(published, state=twin), table.table), "en")
        assert json.dumps(seen, sort_keys=True) == payload


@settings(
    max_examples=int(os.environ.get("QUICK_TABLES", "1000")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32),
    seekers=st.integers(1, 4),
    host_is_mummy=st.booleans(),
    before=st.integers(0, 24),
    maze_touches=st.lists(TOUCH, max_size=3),
    other=st.sampled_from(["crypt", "lootnrun", "crypt then lootnrun"]),
    computer=st.sampled_from([None, 0, 1]),
    touches=st.lists(TOUCH, min_size=1, max_size=24),
)
def test_hands_on_the_board_during_another_game_tell_no_client_where_a_seeker_is(
    quick_table, seed, seekers, host_is_mummy, before, maze_touches, other, computer, touches
):
    """A thousand random tables: maze turns (the host's device holding the mummy's
    seat in half of them), hands on the board during the maze, the board given to the
    crypt or Loot N Run, random touches on every cell and pad (a magnet lifted, put
    down, put back, slid), the doors of every client without the right, the board
    given back.  A maze figure lifted from a cell the maze left reaches the other game
    not at all: no new version of its page, no count; nothing
    the crypt judges names a seeker's square."""
    table = quick_table
    service = table.service
    table.new_game(COLOURS[:seekers], host_is_mummy)
    seeker_bot = RandomSeekerBot(seed)
    mummy_bot = MummyBot(service.game.setup)
    mummy_bot.observe(visible_events(list(service.game.last_events), "mummy"))
    for _ in range(before):
        state = service.game.current
        if state.is_over:
            break
        if state.is_mummy_turn:
            command = mummy_bot.choose(state.phase, state.mummy, state.steps_left, False)
            service.submit("mummy", command)
        else:
            command = seeker_bot.choose(state)
            submit_for_seekers(table, state, command)  # type: ignore[arg-type]
        mummy_bot.observe(visible_events(list(service.published.log[-1]), "mummy"))
        table.sync()
    for step, (kind, a, b) in enumerate(maze_touches):  # hands on the maze's own board
        table.touch(kind, a, b)
        check_the_mummy_payload(table, seed + step, cards=False)
    table.sync()
    crypt_board = table.crypt.board
    names, squares, positions = seekers_now(service, crypt_board)
    opened: set[str] = set()
    left = set(table.occupied)  # where the maze's figures stand as it gives the board away
    freed: set[int] = set()  # of those, where a figure was lifted since
    public: set[int] = set()  # of those, where a hand put a magnet down again
    for game in other.split(" then "):
        table.give_board(game)
        if game == "crypt":
            res = table.host.post("/crypt/api/new", json={"players": 2, "computer": computer})
            assert res.status_code == 200, res.get_data(as_text=True)
            table.settle()
        for step, (kind, a, b) in enumerate(touches):
            # Where the crypt's own open game puts its meeples: a magnet put down there
            # is taken as the meeple it asked for (see ``table/hub.py``).
            demanded = (
                set(crypt_board.expected(table.crypt.published.state).values())
                if game == "crypt"
                else set()
            )
            was = (
                table.crypt.published.version,
                table.lootnrun.published.version,
                table.hub.off_board(),
            )
            changed = table.touch(kind, a, b)
            for position in changed & left & demanded & table.occupied:
                left.discard(position)  # asked for there: the crypt's square from now on
                if position in positions:
                    opened.add(square_name(crypt_board.square(position)))
            where = f"{game}, touch {step} {kind} at {sorted(changed)}"
            if changed <= left - demanded:
                now = (
                    table.crypt.published.version,
                    table.lootnrun.published.version,
                    table.hub.off_board(),
                )
                assert now == was, f"a maze figure's touch reached {game}: {was} -> {now}, {where}"
            # A lifted figure's square is free from then on (``table/hub.py``): a magnet
            # put back there is a touch like on any square, answered as anywhere, and the
            # crypt may name it as it names the square of any magnet a hand put down.
            freed |= changed & left - table.occupied
            left -= changed - table.occupied
            for position in changed & freed & table.occupied & positions:
                square = crypt_board.square(position)
                public.add(position)
                if square is not None:
                    opened.add(square_name(square))
            if game == "crypt":
                view = localize(table.crypt.view(), "en")
                check_crypt_view(view, squares, opened, where)
        # The mummy's device every time; one other client without the right in turn.
        mummy, *others = table.observers
        for who in (mummy, others[seed % len(others)]):
            phone = table.observers[who]
            for path in QUICK_DOORS + (HOST_DOORS if who == "host as mummy" else ()):
                status, text = phone.get(path)
                check_received(
                    who,
                    path,
                    status,
                    text,
                    names,
                    squares - opened,
                    positions - public,
                    game,
                    set(),
                )
                if path.startswith("/crypt") and status == 200:
                    for data in _json_parts(text):
                        check_crypt_view(data, squares, opened, f"{who} {path}")
    table.give_board("mummy")
    table.sync()
    check_the_mummy_payload(table, seed)
    if host_is_mummy:  # back at the maze, the owner's device: no door of the host's names one
        names, squares, positions = seekers_now(service, crypt_board)
        squares, positions = squares - opened, positions - public  # named by a hand's touch
        phone = table.observers["host as mummy"]
        for path in HOST_DOORS + QUICK_DOORS:
            status, text = phone.get(path)
            when = "the maze has the board again"
            check_received(
                "host as mummy", path, status, text, names, squares, positions, when, set()
            )
