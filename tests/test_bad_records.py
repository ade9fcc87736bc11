"""Malformed game records of all three games: a message naming the line, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.board.config import ConfigError, default_config_text, parse_config
from companion.cli import main
from companion.games.crypt.engine import make_setup as crypt_setup
from companion.games.crypt.record import read_record as read_crypt
from companion.games.crypt.record import setup_to_json as crypt_setup_json
from companion.games.lootnrun.record import read_record as read_lootnrun
from companion.games.lootnrun.record import setup_to_json as lootnrun_setup_json
from companion.games.lootnrun.state import Player
from companion.games.lootnrun.state import Setup as LootSetup
from companion.games.mummy.engine import make_setup
from companion.games.mummy.maze_file import MazeError, parse_maze
from companion.games.mummy.record import replay, write_record
from companion.games.records import RecordError
from companion.mazes import default_maze_text, load_maze

#: Words of Python's own errors that must never reach a player.
PYTHON_WORDS = (
    "bad setup:",
    "is not a valid",
    "object is not iterable",
    "invalid literal",
    "set_int_max_str_digits",
    "Unexpected UTF-8 BOM",
    "Traceback",
    "KeyError",
    "TypeError",
)


def _mummy_record(*commands: str) -> str:
    maze, text = load_maze()
    record = write_record(make_setup(maze, ("red", "blue"), seed=3), text, [])
    return record + "".join(c + "\n" for c in commands)


def _mummy_setup(**changes: Any) -> str:
    data = json.loads(_mummy_record().splitlines()[0])
    data.update(changes)
    return json.dumps(data) + "\n"


def _crypt_record(*commands: str) -> str:
    setup = crypt_setup_json(crypt_setup(2, 0, seed=3))
    return json.dumps(setup) + "\n" + "".join(c + "\n" for c in commands)


def _lootnrun_record(*commands: str) -> str:
    setup = lootnrun_setup_json(LootSetup((Player("Anna", "red"), Player("Ben", "blue")), 0))
    return json.dumps(setup) + "\n" + "".join(c + "\n" for c in commands)


READERS: dict[str, Callable[[str], object]] = {
    "mummy": replay,
    "crypt": read_crypt,
    "lootnrun": read_lootnrun,
}
GOOD = {"mummy": _mummy_record, "crypt": _crypt_record, "lootnrun": _lootnrun_record}
DEEP = "[" * 50_000 + "]" * 50_000


def _refused(game: str, text: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        READERS[game](text)
    error = info.value
    assert error.line is not None
    for words in PYTHON_WORDS:
        assert words not in str(error), str(error)
    return error


@pytest.mark.parametrize("game", sorted(READERS))
@pytest.mark.parametrize("first", ["[]", "42", "null", '"text"', DEEP, "1e999", "{"])
def test_a_first_line_that_is_no_setup_is_named(game, first):
    error = _refused(game, first + "\n")
    assert error.line == 1


@pytest.mark.parametrize("game", sorted(READERS))
@pytest.mark.parametrize("line", ["[]", "42", "null", DEEP, '{"cmd": 1e999}', "{", '"roll"'])
def test_a_command_line_that_is_no_command_is_named(game, line):
    error = _refused(game, GOOD[game](line))
    assert error.line == 2


@pytest.mark.parametrize("game", sorted(READERS))
def test_a_byte_order_mark_is_accepted(game):
    READERS[game]("\ufeff" + GOOD[game]())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (_mummy_setup(options=None), '"options" of the setup must be a JSON object'),
        (_mummy_setup(seed=1.5), '"seed" in the setup must be a whole number, not 1.5'),
        (_mummy_setup(seed="7"), '"seed" in the setup must be a whole number, not "7"'),
        (_mummy_setup(maze=5), '"maze" in the setup must be text'),
        (_mummy_setup(seekers=[["red"], ["red"]]), "every figure needs a colour of its own"),
        (_mummy_setup(seekers=[["red"]]), "one seeker plays two figures"),
        (_mummy_setup(seekers=[["r"], ["blue"]]), "one of red, turquoise, blue, violet"),
        (_mummy_setup(seekers=5), '"seekers" in the setup must be a list'),
        (
            _mummy_setup(options={"mummy_moves_exactly": "false"}),
            '"mummy_moves_exactly" in "options" of the setup must be true or false, not "false"',
        ),
        (
            _mummy_setup(options={"mummy_die_faces": [1.5, 2.7]}),
            "a mummy die face must be a whole number, not 1.5",
        ),
        (_mummy_setup(record="chess"), 'needs "record": "pyramid-companion/mummy"'),
        (_mummy_setup(maze="nonsense"), "the maze in the setup is not a good maze"),
        (_mummy_setup(hands=[[3]]), "a dealt card is a cell name"),
        (_mummy_setup().replace('"seed": 3', '"seed": ' + "9" * 5000), "far too long"),
        (_mummy_setup().replace('"seed": 3', '"seed": 1e999'), "too large"),
        (_mummy_setup().replace('"seed": 3', '"seed": NaN'), "NaN is not a number"),
    ],
)
def test_a_wrong_mummy_setup_is_refused_in_words(text, words):
    error = _refused("mummy", text)
    assert words in error.message
    assert error.line == 1


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('{"cmd":"roll","faces":5}', '"faces" in a roll command must be a list'),
        ('{"cmd":"roll","faces":["mummy", 7]}', "7 is not a die face"),
        ('{"cmd":"roll_mummy_die","value":[3]}', "must be a whole number, not a list"),
        ('{"cmd":"roll_mummy_die","value":2.9}', "must be a whole number, not 2.9"),
        ('{"cmd":"roll_mummy_die","value":true}', "must be a whole number, not true"),
        ('{"cmd":"roll_mummy_die","value":1e400}', "too large"),
        ('{"cmd":"move","to":"Z99"}', "outside the 12x12 maze"),
        ('{"cmd":"move","to":4}', "cell name"),
        ('{"cmd":"dance"}', 'not "dance"'),
        ('{"cmd":{}}', "not an object"),
        ('{"cmd":"roll","speed":3}', 'unknown key "speed"'),
    ],
)
def test_a_wrong_mummy_command_is_refused_in_words(line, words):
    error = _refused("mummy", _mummy_record(line))
    assert words in error.message
    assert error.line == 2


def test_replay_on_the_command_line_names_file_and_line(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(_mummy_record('{"cmd":"roll_mummy_die","value":[3]}'), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2: ")
    assert "must be a whole number" in err


def test_replay_of_a_file_that_is_not_text_is_a_message(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"\xff\xfe\x00junk")
    assert main(["replay", str(path)]) == 1
    assert "not a UTF-8 text file" in capsys.readouterr().err


def test_crypt_and_lootnrun_setups_check_types():
    setup = json.loads(_crypt_record())
    for key, value in [("seed", 1.5), ("players", "2"), ("colours", None), ("quiet_rounds", True)]:
        error = _refused("crypt", json.dumps({**setup, key: value}))
        assert f'"{key}"' in error.message
    loot = json.loads(_lootnrun_record())
    error = _refused("lootnrun", json.dumps({**loot, "first": 0.5}))
    assert '"first"' in error.message


# -- a strategy that breaks records -------------------------------------------------


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(10**40),
)


@st.composite
def broken_records(draw: st.DrawFn, good: str) -> str:
    """A good record broken in one or more of the ways files break."""
    lines = good.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["truncate", "swap", "deep", "huge", "bom", "junk", "drop_key"]))
        n = draw(st.integers(0, len(lines) - 1))
        if how == "truncate":
            lines[n] = lines[n][: draw(st.integers(0, len(lines[n])))]
        elif how in ("swap", "drop_key"):
            try:
                data = json.loads(lines[n])
            except (ValueError, RecursionError):  # a line broken by an earlier draw
                continue
            if isinstance(data, dict) and data:
                key = draw(st.sampled_from(sorted(data)))
                if how == "swap":
                    data[key] = draw(JUNK)
                else:
                    del data[key]
                lines[n] = json.dumps(data)
        elif how == "deep":
            depth = draw(st.sampled_from([40, 1000, 60_000]))
            lines[n] = "[" * depth + "]" * depth
        elif how == "huge":
            lines[n] = lines[n].replace("3", "9" * draw(st.sampled_from([50, 5000])), 1)
        elif how == "bom":
            lines[n] = "\ufeff" + lines[n]
        else:
            lines.insert(n, draw(st.text(max_size=20)))
    return "\n".join(lines) + "\n"


def _game_lines(game: str) -> str:
    commands = {
        "mummy": [
            '{"cmd": "roll", "faces": ["3", "1", "arrow", "mummy", "2"]}',
            '{"cmd": "announce", "face": "3"}',
        ],
        "crypt": [
            '{"kind": "place_cube", "square": "c3"}',
            '{"kind": "place_cube", "square": "d5"}',
        ],
        "lootnrun": ['{"cmd": "loot"}', '{"cmd": "undo"}'],
    }[game]
    return GOOD[game](*commands)


@pytest.mark.parametrize("game", sorted(READERS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_broken_record_gives_a_message_or_a_game(game, data):
    text = data.draw(broken_records(_game_lines(game)))
    try:
        READERS[game](text)
    except RecordError as error:  # a message, never any other exception
        assert error.line is not None
        assert error.message
        for words in PYTHON_WORDS:
            assert words not in error.message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_broken_maze_file_gives_its_problems_or_a_maze(data):
    text = data.draw(broken_records(default_maze_text()))
    try:
        parse_maze(text)
    except MazeError as error:
        assert error.problems and all(p.message for p in error.problems)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_broken_board_config_gives_its_problems_or_a_board(data):
    text = data.draw(broken_records(default_config_text()))
    try:
        parse_config(text, "board.toml")
    except ConfigError as error:
        assert error.problems and all(p.message for p in error.problems)


def test_a_text_over_its_limit_is_refused_naming_the_key_and_the_line(
    default_maze, default_maze_text
):
    """A record file's texts are read up to a documented length (200 characters; the
    maze file in line 1 up to 65,536): a longer one names its key and its line."""
    from companion.games.mummy.engine import make_setup
    from companion.games.mummy.record import replay, setup_to_json
    from companion.games.records import RecordError

    setup = setup_to_json(make_setup(default_maze, ("red", "blue"), seed=1), default_maze_text)
    roll = {"cmd": "roll"}
    long = {"cmd": "announce", "face": "4" * 201}
    text = "\n".join(json.dumps(line) for line in (setup, roll, long))
    with pytest.raises(RecordError) as refused:
        replay(text)
    assert refused.value.line == 3
    assert '"face" holds 201 characters; at most 200 are read' in str(refused.value)
    huge = {**setup, "maze": default_maze_text + "#" * 70000}
    with pytest.raises(RecordError) as refused:
        replay(json.dumps(huge))
    assert refused.value.line == 1 and '"maze" holds' in str(refused.value)
    assert "at most 65536 are read" in str(refused.value)
