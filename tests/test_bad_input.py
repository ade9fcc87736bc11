"""Bad input at start-up: keys, addresses, boards, configs and maze files get a message
that names the file or the setting, never a traceback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_journal_faults import GOOD_ROWS, _journal_with_game
from test_pages import start as start_table

from companion.board.config import ConfigError, default_config_text, parse_config
from companion.cli import main
from companion.errors import StartupError
from companion.games.mummy.commands import Roll
from companion.games.mummy.maze_file import parse_maze
from companion.mazes import default_maze_text
from companion.service.startup import secret_key
from tests.seating import host_undo
from tests.test_pages import Table


def test_a_short_secret_key_is_an_error_naming_the_file_and_is_kept(tmp_path):
    path = tmp_path / "secret_key"
    path.write_bytes(b"short")
    with pytest.raises(StartupError) as info:
        secret_key(tmp_path)
    assert f"{path}: the secret key has 5 bytes, at least 32" in str(info.value)
    assert path.read_bytes() == b"short"  # nobody is logged out behind the host's back


def test_a_missing_secret_key_is_made_once(tmp_path):
    key = secret_key(tmp_path)
    assert len(key) == 32 and secret_key(tmp_path) == key


PORT_RANGE = "must be a whole number from 0 to 65535"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--host", "999.1.1.1"], "argument --host: '999.1.1.1' is not an IP address"),
        (["--port", "70000"], f"argument --port: {PORT_RANGE}, not '70000'"),
        (["--port", "http"], f"argument --port: {PORT_RANGE}, not 'http'"),
    ],
)
def test_a_bad_address_is_a_clear_command_line_error(args, words, capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--mock", *args])
    assert info.value.code == 2
    assert words in capsys.readouterr().err


def _is_a_pi() -> bool:
    model = Path("/proc/device-tree/model")
    return model.exists() and "Raspberry Pi" in model.read_text(errors="replace")


@pytest.mark.skipif(_is_a_pi(), reason="on a Pi the real board starts")
def test_run_without_mock_off_a_pi_says_to_use_mock(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--port", "0", "--state-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "the board's hardware cannot be used here" in result.stderr
    assert "start with --mock" in result.stderr


def test_a_deeply_nested_toml_config_names_its_line(tmp_path, capsys):
    path = tmp_path / "board.toml"
    path.write_text('name = "x"\nbad = ' + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError) as info:
        parse_config(path.read_text(), str(path))
    (problem,) = info.value.problems
    assert problem.line == 2 and "nested too deeply" in problem.message
    assert main(["wiring", "--config", str(path)]) == 1
    assert f"{path}:2: toml: " in capsys.readouterr().err


def test_a_config_and_a_maze_with_a_byte_order_mark_are_read(tmp_path, capsys):
    parse_config("\ufeff" + default_config_text())
    parse_maze("\ufeff" + default_maze_text())
    path = tmp_path / "bom.maze"
    path.write_text("\ufeff" + default_maze_text(), encoding="utf-8")
    assert main(["maze", "check", str(path)]) == 0
    assert "the maze is good" in capsys.readouterr().out


def test_a_maze_file_that_is_not_text_is_a_message(tmp_path, capsys):
    path = tmp_path / "bad.maze"
    path.write_bytes(b"\xff\xfe\x00\x00junk")
    assert main(["maze", "check", str(path)]) == 1
    assert "not a UTF-8 text file" in capsys.readouterr().err


def test_the_host_page_tells_of_set_aside_commands_and_exports_them(tmp_path):
    game_id = _journal_with_game(tmp_path / "journal.sqlite3", *GOOD_ROWS, "{broken")
    appliance = start_table(tmp_path)
    try:
        table = Table(appliance)
        page = table.host.get("/host").get_data(as_text=True)
        # The public host page names the game, never the reason (it may quote a cell).
        assert f"Maze game {game_id} could not be resumed whole" in page
        assert "not valid JSON" not in page
        assert f"/api/host/journal/{game_id}" in page
        status = table.host.get("/api/host/status").json
        assert status["journal"]["notes"][0]["game"] == game_id
        export = table.host.get(f"/api/host/journal/{game_id}")
        assert export.status_code == 200
        assert export.get_data(as_text=True).splitlines()[1:] == [*GOOD_ROWS, "{broken"]
        assert table.device().get(f"/api/host/journal/{game_id}").status_code == 403
        for missing in (game_id + 1000, 2**63, 10**30):  # found by the API fuzz: a 500 once
            res = table.host.get(f"/api/host/journal/{missing}")
            assert res.status_code == 404 and "no game" in res.json["error"]
        health = table.host.get("/healthz").json
        assert health["journal"]["notes"] and health["status"] == "ok"
    finally:
        appliance.close()


def test_healthz_says_degraded_while_the_journal_cannot_be_written(tmp_path):
    appliance = start_table(tmp_path)
    try:
        table = Table(appliance)
        table.put_board_right()
        state = table.service.game.current
        table.service.submit(f"seeker{state.seeker}", Roll())  # something to undo
        other = sqlite3.connect(tmp_path / "journal.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        res = host_undo(table.host)
        assert res.status_code == 503 and "locked by another program" in res.json["error"]
        health = table.host.get("/healthz").json
        assert health["status"] == "degraded" and "locked" in health["journal"]["problem"]
        other.execute("ROLLBACK")
        other.close()
        assert host_undo(table.host).json["undone"]
        assert table.service.game.commands == []
        assert table.host.get("/healthz").json["status"] == "ok"
    finally:
        appliance.close()
