"""What the API accepts, the journal replays: any request a game's API answers 200 is
read back the same after a restart (a real journal file, a new appliance and app over
it), for the maze, Loot N Run and the crypt; and what the journal could not read back
(a number of 31 digits, a lone surrogate, a name too long) is refused at the door.

Hypothesis sends random sequences of requests, well-formed ones and ones with values at
and beyond every limit, through Flask's test client as a phone sends them (JSON text,
non-ASCII as ``\\u`` escapes); the test keeps the commands of those answered 200 (an
undo takes the last one back) and compares them, the setup and the game's state with
what the restarted companion resumed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from companion.errors import StorageError
from companion.games.crypt.record import command_from_json as crypt_command
from companion.games.lootnrun.record import command_from_json as loot_command
from companion.games.mummy.record import command_from_json as maze_command
from companion.games.mummy.state import Phase
from companion.games.records import MAX_DIGITS, MAX_TEXT
from companion.journal import Journal
from companion.service.appliance import Appliance
from companion.service.loop import ServiceError
from tests.test_pages import Table, start, wait_until

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Whole numbers: small ones the rules use, and ones at and past the records' limit.
LIMIT = 10**MAX_DIGITS
NUMBER = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([LIMIT - 1, -(LIMIT - 1), LIMIT, -LIMIT, 10**31, 2**63, -(2**63) - 1]),
)
#: Texts: ordinary, empty, at and past the length limit, and lone surrogates.
TEXT = st.one_of(
    st.text(max_size=6),
    st.sampled_from(
        [
            "",
            "Anna",
            "Zoë",
            "\ud800",
            "a\udfff",
            "\ud83d\ude00",
            "x" * MAX_TEXT,
            "x" * (MAX_TEXT + 1),
        ]
    ),
)
#: Any JSON value at all, for a field that may get the wrong type.
JUNK = st.one_of(st.none(), st.booleans(), NUMBER, TEXT, st.floats(allow_nan=False))


@st.composite
def edged(draw: Any, templates: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A command the rules may well accept (every key it needs, values in range), half
    the time with one value (not its kind) replaced by one at or past a limit, or by a
    value of another type."""
    body = dict(draw(templates))
    keys = sorted(set(body) - {"cmd", "kind"})
    if keys and draw(st.booleans()):
        key = draw(st.sampled_from(keys))
        body[key] = draw(st.one_of(NUMBER, TEXT, JUNK))
    return body


def host_requests(
    command: st.SearchStrategy[dict[str, Any]], new: st.SearchStrategy[dict[str, Any]]
) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """Mostly commands; now and then a new game or an undo."""
    return st.one_of(
        *[st.tuples(st.just("command"), command)] * 8,
        st.tuples(st.just("new"), new),
        st.tuples(st.just("undo"), st.just({})),
    )


def post(client: Any, path: str, body: dict[str, Any]) -> Any:
    """As a phone posts: JSON text, every non-ASCII character as a ``\\u`` escape."""
    return client.post(path, data=json.dumps(body), content_type="application/json")


@contextmanager
def state_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="api-replay-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def restarted(path: Path, read: Callable[[Appliance], Any]) -> Any:
    """What ``read`` sees after the companion starts again over ``path``; nothing of the
    journal may have been set aside on the way."""
    appliance = start(path)
    try:
        assert appliance.hub.status()["journal"]["notes"] == []
        return read(appliance)
    finally:
        appliance.close()


def kept(accepted: list[Any]) -> str:
    """How many commands a sequence left in the game, for hypothesis's statistics."""
    return f"commands kept: {len(accepted)}" if len(accepted) < 3 else "commands kept: 3+"


def round_trip(
    api: str,
    new: dict[str, Any],
    requests: list[tuple[str, dict[str, Any]]],
    read_command: Callable[[Any], Any],
    snapshot: Callable[[Appliance], tuple[Any, ...]],
) -> None:
    """The host starts a game at ``api`` with ``new``, then sends ``requests`` (a kind,
    ``command``, ``new`` or ``undo``, and its body); the commands answered 200 (less those
    undone) are the game's, and the game (``snapshot``, its commands last) is the same
    after a restart."""
    with state_dir() as path:
        table = Table(start(path))
        try:
            assert post(table.host, f"{api}/new", new).status_code == 200
            accepted: list[Any] = []
            for kind, body in requests:
                res = post(table.host, f"{api}/{kind}", body)
                assert res.status_code in (200, 400, 409), res.json
                if res.status_code != 200:
                    continue
                if kind == "new":
                    accepted = []
                elif kind == "undo" or body.get("cmd") == "undo":  # Loot N Run's undo entry
                    accepted.pop()
                else:
                    accepted.append(read_command(body))
            before = snapshot(table.appliance)
            event(kept(accepted))
        finally:
            table.appliance.close()
        assert before[-1] == accepted
        assert restarted(path, snapshot) == before


# -- Loot N Run --------------------------------------------------------------------------------

CARD = st.fixed_dictionaries(
    {"treasures": st.lists(st.integers(0, 2), min_size=6, max_size=6)},
    optional={"amulets": st.integers(0, 2)},
)


SMALL = st.integers(0, 2)
LOOT_CARDS = st.lists(CARD, min_size=1, max_size=3)
LOOT_COMMAND = edged(
    st.one_of(
        st.just({"cmd": "loot"}),
        st.fixed_dictionaries({"cmd": st.just("run"), "cards": LOOT_CARDS}),
        st.fixed_dictionaries({"cmd": st.just("awaken"), "target": SMALL, "cards": LOOT_CARDS}),
        st.fixed_dictionaries({"cmd": st.just("werewolf_keep"), "kept": SMALL}),
        st.fixed_dictionaries(
            {
                "cmd": st.just("correction"),
                "player": SMALL,
                "points": st.integers(-5, 5),
                "reason": st.just("miscounted"),
                "cards": st.one_of(st.none(), SMALL),
            }
        ),
        st.fixed_dictionaries(
            {"cmd": st.just("final_reveal"), "player": SMALL, "cards": st.just([])}
        ),
        st.just({"cmd": "undo"}),
    )
)
PLAYER = st.fixed_dictionaries(
    {"name": TEXT, "colour": st.one_of(st.sampled_from(["red", "blue", "green"]), TEXT)}
)
LOOT_NEW = st.fixed_dictionaries(
    {"players": st.lists(PLAYER, min_size=2, max_size=4)}, optional={"first": NUMBER}
)
LOOT_REQUEST = host_requests(LOOT_COMMAND, LOOT_NEW)


def _loot(appliance: Appliance) -> tuple[Any, Any, list[Any]]:
    service = appliance.hub.services["lootnrun"]
    published = service.published
    commands = service.journal.load(published.game_id).commands
    return published.game_id, published.state, [loot_command(c) for c in commands]


@SETTINGS
@example(
    requests=[("command", {"cmd": "correction", "player": 0, "points": 10**31, "reason": "x"})]
)
@example(requests=[("new", {"players": [{"name": "\ud800", "colour": "red"}] * 2})])
@given(requests=st.lists(LOOT_REQUEST, min_size=4, max_size=12))
def test_every_loot_n_run_request_answered_200_is_read_back_after_a_restart(requests):
    new = {"players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]}
    round_trip("/lootnrun/api", new, requests, loot_command, _loot)


# -- the crypt --------------------------------------------------------------------------------

#: Every square, those a cube may go on early in a game first (hypothesis tries the first
#: ones most: a corner or a lock would refuse every placement).
SQUARE = st.sampled_from([f"{f}{r}" for r in (3, 6, 2, 7, 4, 5, 1, 8) for f in "cfbgdeah"])
CRYPT_COMMAND = edged(
    st.one_of(
        st.fixed_dictionaries({"kind": st.just("place_cube"), "square": SQUARE}),
        st.fixed_dictionaries({"kind": st.just("place_cube"), "square": SQUARE}),
        st.fixed_dictionaries({"kind": st.just("place_cube"), "square": SQUARE}),
        st.fixed_dictionaries(
            {"kind": st.just("place_meeple"), "corner": st.sampled_from(["a1", "a8", "h1", "h8"])}
        ),
        st.fixed_dictionaries({"kind": st.just("move"), "to": SQUARE}),
        st.just({"kind": "enter_chamber"}),
        st.just({"kind": "pass"}),
    )
)
CRYPT_NEW = st.fixed_dictionaries(
    {},
    optional={
        "players": st.sampled_from([2, 4]),
        "colours": st.one_of(st.none(), st.lists(TEXT, min_size=2, max_size=4)),
        "first_player": NUMBER,
        "computer": st.sampled_from([None, -1, 7, LIMIT - 1, LIMIT]),
    },
)
CRYPT_REQUEST = host_requests(CRYPT_COMMAND, CRYPT_NEW)


def _crypt(appliance: Appliance) -> tuple[Any, Any, Any, list[Any]]:
    game = appliance.hub.services["crypt"].game
    return game.id, game.setup, game.state, list(game.commands)


@SETTINGS
@given(requests=st.lists(CRYPT_REQUEST, min_size=4, max_size=12))
def test_every_crypt_request_answered_200_is_read_back_after_a_restart(requests):
    round_trip("/crypt/api", {}, requests, crypt_command, _crypt)


# -- the maze ---------------------------------------------------------------------------------

FACE = st.sampled_from(["1", "2", "3", "4", "arrow"])
SEEKER_COMMAND = edged(
    st.one_of(
        st.just({"cmd": "roll"}),
        st.just({"cmd": "roll"}),
        st.fixed_dictionaries({"cmd": st.just("announce"), "face": FACE}),
        st.fixed_dictionaries({"cmd": st.just("announce"), "face": FACE}),
        st.just({"cmd": "play_card"}),
        st.just({"cmd": "end_turn"}),
        st.just({"cmd": "resolve"}),
        st.fixed_dictionaries({"cmd": st.just("move"), "to": st.sampled_from(["A1", "G7"])}),
        st.fixed_dictionaries(
            {"cmd": st.just("roll"), "faces": st.lists(FACE, min_size=5, max_size=5)}
        ),
    )
)
MUMMY_COMMAND = edged(
    st.one_of(
        st.just({"cmd": "roll_mummy_die"}),
        st.fixed_dictionaries({"cmd": st.just("roll_mummy_die"), "value": st.integers(0, 6)}),
        st.fixed_dictionaries({"cmd": st.just("mummy_step"), "to": st.sampled_from(["F6", "G7"])}),
        st.just({"cmd": "end_mummy_move"}),
    )
)
CARRY = st.fixed_dictionaries({"index": st.integers(0, 20)})
#: Who acts: the seeker whose turn it is ("turn"), another seat, or the board: the
#: seeker's figure carried to one of its legal cells (by its index).
MAZE_REQUEST = st.one_of(
    st.tuples(st.just("turn"), st.just("command"), SEEKER_COMMAND),
    st.tuples(st.just("turn"), st.just("command"), SEEKER_COMMAND),
    st.tuples(st.just("turn"), st.just("command"), SEEKER_COMMAND),
    st.tuples(st.sampled_from(["seeker0", "seeker1"]), st.just("command"), SEEKER_COMMAND),
    st.tuples(st.just("turn"), st.just("takeback"), st.just({})),
    st.tuples(st.just("mummy"), st.just("command"), MUMMY_COMMAND),
    st.tuples(
        st.just("board"), st.just("move"), st.fixed_dictionaries({"index": st.integers(0, 20)})
    ),
    st.tuples(
        st.just("board"), st.just("move"), st.fixed_dictionaries({"index": st.integers(0, 20)})
    ),
)


def _carry(table: Table, phones: dict[str, Any], index: int) -> bool:
    """The seeker whose move it is carries the figure to a legal cell on the board (the
    sensors make the command); whether it became the game's move."""
    service = table.service
    state = service.game.current
    if state.phase is not Phase.SEEKER_MOVING:
        return False
    view = phones[f"seeker{state.seeker}"].get("/api/seeker/state").json["view"]
    cells = view.get("legal_destinations") or []
    if not cells:
        return False
    home = service.board.position_of(state, state.figure)
    assert home is not None
    count = len(service.game.commands)
    table.appliance.mock_board.lift(home)
    table.appliance.mock_board.place(cells[index % len(cells)])
    wait_until(lambda: len(service.game.commands) > count)
    return True


def _maze(appliance: Appliance) -> tuple[Any, Any, Any, list[Any]]:
    game = appliance.service.game
    return game.id, game.setup, game.current, list(game.commands)


@SETTINGS
@given(requests=st.lists(MAZE_REQUEST, min_size=4, max_size=15))
def test_every_maze_request_answered_200_is_read_back_after_a_restart(requests):
    with state_dir() as path:
        table = Table(start(path))
        try:
            table.new_game(["red", "blue"])
            phones = {seat: table.device(seat) for seat in ("mummy", "seeker0", "seeker1")}
            accepted: list[Any] = []
            maze = table.service.maze
            for seat, kind, body in requests:
                if seat == "board":
                    if _carry(table, phones, body["index"]):
                        accepted.append(table.service.game.commands[-1])
                    continue
                if seat == "turn":
                    seat = f"seeker{table.service.game.current.seeker}"
                area = "seeker" if seat != "mummy" else "mummy"
                res = post(phones[seat], f"/api/{area}/{kind}", body)
                assert res.status_code in (200, 400, 409), res.json
                if res.status_code != 200:
                    continue
                if kind == "command":
                    accepted.append(maze_command(body, maze))
                else:  # a take-back of the seat's own last action
                    accepted.pop()
            before = _maze(table.appliance)
            event(kept(accepted))
        finally:
            table.appliance.close()
        assert before[3] == accepted
        assert restarted(path, _maze) == before


# -- the door --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        (
            "/lootnrun/api/command",
            {"cmd": "correction", "player": 0, "points": 10**31, "reason": "x"},
            "The number 100000000000... is far too long.",
        ),
        (
            "/lootnrun/api/new",
            {"players": [{"name": "\ud800", "colour": "red"}, {"name": "B", "colour": "blue"}]},
            "A text holds \\ud800 alone, which is not valid text.",
        ),
        (
            "/lootnrun/api/command",
            {"cmd": "correction", "player": 0, "points": 1, "reason": "x" * (MAX_TEXT + 1)},
            f'"reason" is at most {MAX_TEXT} characters.',
        ),
        (
            "/crypt/api/new",
            {"first_player": 10**31},
            "The number 100000000000... is far too long.",
        ),
    ],
)
def test_what_the_journal_could_not_read_back_is_refused_at_the_door(tmp_path, path, body, words):
    table = Table(start(tmp_path))
    try:
        new = {"players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]}
        assert post(table.host, "/lootnrun/api/new", new).status_code == 200
        loot = table.appliance.hub.services["lootnrun"].published
        res = post(table.host, path, body)
        assert res.status_code == 400
        assert res.json["error"] == words
        assert table.appliance.hub.services["lootnrun"].published.state == loot.state
    finally:
        table.appliance.close()


# -- the journal's own guard -----------------------------------------------------------------

#: Cards nested deeper than any record may be.
DEEP: Any = 1
for _ in range(40):
    DEEP = [DEEP]


@pytest.mark.parametrize(
    "command",
    [
        {"cmd": "correction", "player": 0, "points": 10**31, "reason": "x"},
        {"cmd": "correction", "player": 0, "points": 1, "reason": "\ud800"},
        {"cmd": "run", "cards": DEEP},
    ],
)
def test_the_journal_never_writes_what_it_could_not_read_back(tmp_path, command):
    """Whatever way a command comes in, the journal refuses to write a row its reader
    would set aside at the next start: nothing is written, the game is unchanged."""
    journal = Journal(tmp_path / "journal.sqlite3")
    try:
        game = journal.new_game("lootnrun", {"record": "pyramid-companion/lootnrun"})
        journal.append(game, {"cmd": "loot"})
        with pytest.raises(ServiceError, match="This cannot be saved as it is: ") as info:
            journal.append(game, command)
        assert not isinstance(info.value, StorageError)  # not the disk: no 507, no retry
        with pytest.raises(ServiceError, match="This cannot be saved as it is: "):
            journal.replace_last(game, command)
        with pytest.raises(ServiceError, match="This cannot be saved as it is: "):
            journal.new_game("lootnrun", {"players": [{"name": "\ud800"}]})
        assert journal.load(game).commands == [{"cmd": "loot"}]
        assert journal.unfinished("lootnrun").id == game  # no new game either
        assert journal.problem is None
    finally:
        journal.close()
