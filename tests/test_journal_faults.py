"""The journal when things go wrong: files that are no journal, rows that cannot be
replayed, a full disk and another program's lock, on real SQLite files."""

from __future__ import annotations

import getpass
import json
import os
import pwd
import random
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_service import FACES, announce, home, moved, start, wait_until

from companion.cli import main
from companion.errors import StartupError
from companion.games.mummy.commands import Announce, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import make_setup
from companion.games.mummy.record import setup_to_json
from companion.journal import Journal, JournalError, JournalWriteError, prepare_state_dir
from companion.mazes import load_maze
from companion.service.loop import ServiceError
from companion.service.mummy_game import RunningGame
from companion.service.resume import resume

# -- files that are no journal ---------------------------------------------------------


def _refused_at_start(path: Path) -> str:
    with pytest.raises(JournalError) as info:
        Journal(path)
    message = str(info.value)
    assert str(path) in message
    assert "--state-dir" in message  # how to recover
    return message


def test_a_file_that_is_not_sqlite_is_named_and_kept(tmp_path):
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"this is a shopping list, not a database\n" * 100)
    assert "not a companion journal" in _refused_at_start(path)
    assert path.read_bytes().startswith(b"this is a shopping list")


def test_a_directory_is_no_journal(tmp_path):
    path = tmp_path / "journal.sqlite3"
    path.mkdir()
    assert "is a directory" in _refused_at_start(path)


def test_a_dangling_link_is_named(tmp_path):
    path = tmp_path / "journal.sqlite3"
    path.symlink_to(tmp_path / "gone" / "journal.sqlite3")
    assert "which does not exist" in _refused_at_start(path)


def test_another_schema_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "journal.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO games (name) VALUES ('chess')")
    db.close()
    assert "another schema" in _refused_at_start(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM games").fetchall() == [("chess",)]
    db.close()


def test_companion_run_with_a_bad_journal_says_so_without_a_traceback(tmp_path):
    (tmp_path / "journal.sqlite3").write_text("not a database")
    stderr = _refused_run(tmp_path)
    assert f"{tmp_path / 'journal.sqlite3'}: is not a companion journal" in stderr


def _refused_run(state_dir: Path) -> str:
    """The words with which ``companion run`` refuses to start (exit 1, no traceback)."""
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--mock", f"--state-dir={state_dir}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    return result.stderr


# -- permissions (as another user: root may write anything) ----------------------------

NOBODY = 65534


def _other_user() -> str:
    """Who ``_as_nobody`` runs as."""
    return pwd.getpwuid(NOBODY).pw_name if os.geteuid() == 0 else getpass.getuser()


def _as_nobody(start: Callable[[], object]) -> str:
    """The message with which ``start()`` refuses, run by an unprivileged user (root may
    write anything): in a forked child that drops to uid ``nobody``."""
    if os.geteuid() != 0:
        with pytest.raises(StartupError) as info:
            start()
        return str(info.value)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        try:
            os.close(read_end)
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            with os.fdopen(write_end, "w") as out:
                try:
                    start()
                    out.write("accepted")
                except StartupError as exc:
                    out.write(str(exc))
                except BaseException:
                    traceback.print_exc(file=out)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as out:
        text = out.read()
    os.waitpid(pid, 0)
    return text


@pytest.fixture
def shared_dir(tmp_path_factory):
    """A directory every user can reach (pytest's own are owner-only)."""
    base = Path(f"/tmp/i15b-journal-{os.getpid()}-{time.monotonic_ns()}")
    base.mkdir(mode=0o755)
    os.chmod(base, 0o755)
    yield base
    subprocess.run(["rm", "-rf", str(base)], check=False)


def test_a_state_directory_without_write_permission_names_it_and_the_user(shared_dir):
    if os.geteuid() != 0 and os.access(shared_dir, os.W_OK):
        os.chmod(shared_dir, 0o555)
    state = shared_dir / "state"
    for opener in (lambda: prepare_state_dir(state), lambda: Journal(state / "journal.sqlite3")):
        message = _as_nobody(opener)
        assert f"the state directory {state} cannot be made by user {_other_user()}" in message


def test_a_read_only_journal_is_refused_at_start_up(shared_dir):
    state = shared_dir / "state"
    state.mkdir()
    os.chmod(state, 0o777)
    Journal(state / "journal.sqlite3").close()
    os.chmod(state / "journal.sqlite3", 0o444)
    message = _as_nobody(lambda: Journal(state / "journal.sqlite3"))
    assert f"{state / 'journal.sqlite3'}: cannot be written by user {_other_user()}" in message
    assert "read-only" in message


# -- rows that cannot be replayed ----------------------------------------------------------


def _journal_with_game(path: Path, *rows: str) -> int:
    """A mummy game of two seekers whose first commands are ``rows`` (raw text)."""
    maze, text = load_maze()
    journal = Journal(path)
    game_id = journal.new_game("mummy", setup_to_json(make_setup(maze, ("red", "blue")), text))
    for seq, row in enumerate(rows, 1):
        journal.db.execute(
            "INSERT INTO commands (game_id, seq, command, created) VALUES (?, ?, ?, 0)",
            (game_id, seq, row),
        )
    journal.close()
    return game_id


GOOD_ROWS = (
    '{"cmd": "roll", "faces": ["1", "2", "3", "4", "arrow"]}',
    '{"cmd": "announce", "face": "1"}',
)


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("{not json", "command 3 is not readable"),
        ("null", "command 3"),
        ("[1, 2]", "command 3"),
        ('{"cmd": "fly"}', 'not "fly"'),
        ('{"cmd": "roll"}', "command 3"),  # illegal: the seeker must move now
    ],
)
def test_a_bad_row_resumes_the_game_up_to_it_and_tells_the_host(tmp_path, bad, words):
    game_id = _journal_with_game(tmp_path / "journal.sqlite3", *GOOD_ROWS, bad, GOOD_ROWS[1])
    app = start(tmp_path)
    try:
        service = app.service
        assert service.game.id == game_id  # the same game, not a new one
        assert len(service.game.commands) == 2
        report = app.hub.status()["journal"]
        (note,) = report["notes"]
        assert note["game"] == game_id
        assert words in note["message"] and "2 later command(s)" in note["message"]
        exported = app.journal.export(game_id).splitlines()
        assert exported[3:] == [bad, GOOD_ROWS[1]]  # the set-aside rows are kept
        # The game goes on: the next command is journalled after the good ones.
        service.undo()
        assert len(app.journal.load(game_id).commands) == 1
    finally:
        app.close()
    again = start(tmp_path)  # a second restart resumes cleanly, with no new note
    try:
        assert again.service.game.id == game_id
        assert again.hub.status()["journal"]["notes"] == []
    finally:
        again.close()


def test_a_game_whose_setup_cannot_be_read_is_kept_and_reported(tmp_path):
    path = tmp_path / "journal.sqlite3"
    game_id = _journal_with_game(path, *GOOD_ROWS)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET setup = '{\"record\": 5' WHERE id = ?", (game_id,))
    db.close()
    app = start(tmp_path)
    try:
        assert app.service.game.id != game_id
        (note,) = app.hub.status()["journal"]["notes"]
        assert note["game"] == game_id and "could not be resumed" in note["message"]
        assert app.journal.export(game_id).splitlines()[1:] == list(GOOD_ROWS)
    finally:
        app.close()


# -- a full disk and another program's lock --------------------------------------------------


def _fill(db: sqlite3.Connection) -> None:
    """Make the database full: no page may be added, and the commands' last pages (table
    and index) have no room left, filled with the commands of a filler game."""
    db.execute("INSERT INTO games (id, kind, setup, created) VALUES (999, 'filler', '{}', 0)")
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")
    seq = 0
    for size in (2000, 200, 20, 1):
        try:
            while True:
                seq += 1
                db.execute(
                    "INSERT INTO commands (game_id, seq, command, created) VALUES (999, ?, ?, 0)",
                    (seq, "x" * size),
                )
        except sqlite3.OperationalError as exc:
            assert "full" in str(exc)


def _make_room(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA max_page_count = 1073741823")
    db.execute("DELETE FROM commands WHERE game_id = 999")
    db.execute("DELETE FROM games WHERE id = 999")


def test_a_full_disk_refuses_one_command_keeps_the_loop_and_accepts_it_later(tmp_path):
    app = start(tmp_path)
    try:
        wait_until(lambda: app.service.published.judgement.matches)
        service = app.service
        db = app.journal.db
        # A phone command is refused in words, and nothing changes.
        _fill(db)
        before = service.game.current
        with pytest.raises(ServiceError, match="storage is full: nothing was lost"):
            service.submit(f"seeker{before.seeker}", Roll())
        assert service.game.current is before and service.game.commands == []
        status = app.hub.status()
        assert status["status"] == "degraded"
        assert "storage is full" in str(status["journal"]["problem"])
        _make_room(db)
        announce(app)  # accepted once there is room again
        assert app.hub.status()["status"] == "ok"
        # A figure placed on the board: the move cannot be journalled, the loop lives on.
        _fill(db)
        entrance = service.maze.start[0].cell
        app.mock_board.lift(home(app, 0))
        app.mock_board.place(entrance)
        wait_until(lambda: app.journal.problem is not None)
        assert "storage is full: nothing was lost" in str(app.journal.problem)
        time.sleep(0.3)
        assert not moved(app)
        assert service._thread is not None and service._thread.is_alive()
        # Space again: the placement waiting on the board is applied, once.
        _make_room(db)
        wait_until(lambda: moved(app), timeout=5.0)
        assert app.journal.problem is None
        commands = app.journal.load(service.game.id).commands
        assert [c["cmd"] for c in commands] == ["roll", "announce", "move"]
    finally:
        app.close()


def test_a_journal_locked_by_another_program_refuses_and_then_accepts(tmp_path):
    app = start(tmp_path)
    try:
        wait_until(lambda: app.service.published.judgement.matches)
        service = app.service
        other = sqlite3.connect(tmp_path / "journal.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        other.execute("INSERT INTO games (kind, setup, created) VALUES ('x', '{}', 0)")
        seeker = f"seeker{service.game.current.seeker}"
        with pytest.raises(ServiceError, match="locked by another program: nothing was lost"):
            service.submit(seeker, Roll())
        assert service.game.commands == []
        assert "locked" in str(app.hub.status()["journal"]["problem"])
        assert service._thread is not None and service._thread.is_alive()
        other.execute("ROLLBACK")
        other.close()
        service.submit(seeker, Roll())
        assert len(service.game.commands) == 1
        assert app.hub.status()["journal"]["ok"]
    finally:
        app.close()


def test_a_write_error_is_a_service_error_for_the_pages():
    assert issubclass(JournalWriteError, ServiceError)


# -- a command answered "busy" ---------------------------------------------------------------


def test_a_command_answered_busy_is_never_applied_later(tmp_path):
    app = start(tmp_path)
    try:
        service = app.service
        seeker = f"seeker{service.game.current.seeker}"
        hold = threading.Event()
        original = service._dispatch

        def slow(request):  # the loop is stuck on something else for a while
            if request.kind == "slow":
                hold.wait(5)
                return None
            return original(request)

        service._dispatch = slow  # type: ignore[method-assign]
        service._post("slow")
        with pytest.raises(ServiceError, match="busy: nothing was done"):
            service.submit(seeker, Roll(), timeout=0.2)
        hold.set()
        time.sleep(0.3)  # the loop has worked through its queue
        assert service.game.commands == []  # the withdrawn roll was not applied
        service.submit(seeker, Roll())  # the player's retry is applied once
        assert len(service.game.commands) == 1
        assert [c["cmd"] for c in app.journal.load(service.game.id).commands] == ["roll"]
    finally:
        app.close()


def test_a_command_taken_before_the_timeout_returns_its_result(tmp_path):
    app = start(tmp_path)
    try:
        service = app.service
        seeker = f"seeker{service.game.current.seeker}"
        original = service._command

        def slow_command(command, role):
            time.sleep(0.4)  # e.g. a journal write waiting for a lock
            return original(command, role)

        service._command = slow_command  # type: ignore[method-assign]
        events = service.submit(seeker, Roll(), timeout=0.1)
        assert events  # the result, not "busy"
        assert len(service.game.commands) == 1
    finally:
        app.close()


def test_export_of_an_unknown_game_is_a_key_error(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    with pytest.raises(KeyError):
        journal.export(42)
    journal.close()


def test_main_reports_a_journal_error(tmp_path, capsys):
    (tmp_path / "journal.sqlite3").mkdir()
    assert main(["run", "--mock", "--port", "0", "--state-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "is a directory" in err


# -- any rows at all ----------------------------------------------------------------------

ROW = st.one_of(
    st.sampled_from(
        [
            '{"cmd": "roll", "faces": ["1", "2", "3", "4", "arrow"]}',
            '{"cmd": "announce", "face": "1"}',
            '{"cmd": "end_turn"}',
            '{"cmd": "roll"}',
            "null",
            "[1]",
            "{",
            '{"cmd": {}}',
            '{"cmd": "roll_mummy_die", "value": 1e999}',
            "[" * 5000 + "]" * 5000,
            "\ufeff{}",
        ]
    ),
    st.text(max_size=12),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(ROW, max_size=6))
def test_any_rows_resume_the_longest_good_start_and_set_the_rest_aside(rows):
    journal = Journal(":memory:")
    maze, text = load_maze()
    setup = setup_to_json(make_setup(maze, ("red", "blue")), text)
    game_id = journal.new_game("mummy", setup)
    for seq, row in enumerate(rows, 1):
        journal.db.execute(
            "INSERT INTO commands (game_id, seq, command, created) VALUES (?, ?, ?, 0)",
            (game_id, seq, row),
        )
    stored = journal.unfinished("mummy")
    assert stored is not None
    game = resume(journal, stored, RunningGame.replayed, RunningGame.replay_one)
    assert game is not None and game.id == game_id
    kept = len(game.commands)
    assert [n.set_aside for n in journal.notes] == ([len(rows) - kept] if kept < len(rows) else [])
    again = journal.unfinished("mummy")  # the next start resumes the same, with no note
    assert again is not None and len(again.commands) == kept and again.unreadable is None
    journal.close()


def test_a_crypt_game_resumes_up_to_a_bad_row(tmp_path):
    from companion.games.crypt.engine import make_setup as crypt_setup
    from companion.games.crypt.record import setup_to_json as crypt_setup_json

    journal = Journal(tmp_path / "journal.sqlite3")
    game_id = journal.new_game("crypt", crypt_setup_json(crypt_setup(2, 0, seed=1)))
    journal.append(game_id, {"kind": "place_cube", "square": "c3"})
    journal.append(game_id, {"kind": "place_cube", "square": "nowhere"})
    journal.close()
    app = start(tmp_path)
    try:
        crypt = app.hub.services["crypt"]
        assert crypt.game.id == game_id and len(crypt.game.history) == 1
        (note,) = app.hub.status()["journal"]["notes"]
        assert note["kind"] == "crypt" and "command 2" in note["message"]
    finally:
        app.close()


# -- damaged pages: found at the first read, while resuming, or while running ------------

PAGE = 4096


def _journal_of_many_games(path: Path) -> None:
    """A real journal of several pages: ended mummy games, the current one, a crypt game,
    written through the journal as the service writes them (the WAL checkpointed)."""
    from companion.games.crypt.engine import make_setup as crypt_setup
    from companion.games.crypt.record import setup_to_json as crypt_setup_json

    maze, text = load_maze()
    journal = Journal(path)
    for _ in range(6):
        game_id = journal.new_game("mummy", setup_to_json(make_setup(maze, ("red", "blue")), text))
        for row in GOOD_ROWS:
            journal.append(game_id, json.loads(row))
    crypt = journal.new_game("crypt", crypt_setup_json(crypt_setup(2, 0, seed=1)))
    journal.append(crypt, {"kind": "place_cube", "square": "c3"})
    journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    journal.close()


def _damage(path: Path, page: int, how: str) -> None:
    """Overwrite one page of the file: zeros, or seeded junk after its first 100 bytes."""
    data = bytearray(path.read_bytes())
    if how == "zeros":
        data[page * PAGE : (page + 1) * PAGE] = bytes(PAGE)
    else:
        junk = random.Random(page).randbytes(PAGE - 100)
        data[page * PAGE + 100 : (page + 1) * PAGE] = junk
    path.write_bytes(bytes(data))


def _damages() -> list[tuple[str, Callable[[Path], None]]]:
    """Every page zeroed, every page full of junk, and the file cut short (the same
    journal every time: 11 pages, so 22 + 3 cases)."""
    cases: list[tuple[str, Callable[[Path], None]]] = []
    for page in range(JOURNAL_PAGES):
        for how in ("zeros", "junk"):
            cases.append((f"page {page} {how}", lambda p, n=page, h=how: _damage(p, n, h)))
    for keep in (100, 3 * PAGE, JOURNAL_PAGES * PAGE - 1):
        cases.append((f"cut to {keep} bytes", lambda p, k=keep: _truncate(p, k)))
    return cases


def _truncate(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


JOURNAL_PAGES = 11


@pytest.fixture(scope="module")
def many_games(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("journal") / "journal.sqlite3"
    _journal_of_many_games(path)
    data = path.read_bytes()
    assert len(data) == JOURNAL_PAGES * PAGE  # the cases below cover every page
    return data


@pytest.mark.parametrize(("case", "damage"), _damages(), ids=[c for c, _ in _damages()])
def test_a_damaged_journal_starts_or_names_the_file_and_what_to_do(
    tmp_path, many_games, case, damage
):
    """Each case either starts (damage only in a row's text: the game resumes up to it,
    as with any bad row) or is refused at start-up in words: the file, that it is
    damaged, and how to go on.  Never SQLite's own error out of the journal's load."""
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(many_games)
    damage(path)
    before = path.read_bytes()
    try:
        app = start(tmp_path)
    except StartupError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ")
        assert "damaged" in message
        assert "move it away to start afresh" in message and "--state-dir" in message
        assert path.read_bytes() == before  # the file is kept as it was
        return
    try:
        assert app.service.game.id > 0  # a game to play, resumed or new
        assert app.hub.status()["status"] in ("ok", "degraded")
    finally:
        app.close()


def test_most_damaged_pages_are_refused_at_the_first_read(tmp_path, many_games):
    """The check reads every page before any game: nearly every case is found there."""
    refused = []
    for case, damage in _damages():
        path = tmp_path / f"{len(refused)}-{case.replace(' ', '-')}.sqlite3"
        path.write_bytes(many_games)
        damage(path)
        try:
            Journal(path).close()
        except JournalError as exc:
            refused.append(case)
            assert "damaged" in str(exc) or "not a companion journal" in str(exc)
    assert len(refused) >= len(_damages()) - 3, refused


def test_companion_run_with_a_damaged_page_says_what_to_do_without_a_traceback(
    tmp_path, many_games
):
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(many_games)
    _damage(path, 5, "zeros")  # the traceback of the issue: a page of the commands
    stderr = _refused_run(tmp_path)
    assert f"companion: {path}: is damaged (" in stderr
    assert f"sqlite3 {path} .recover" in stderr


def _zero_pages_after_the_first(path: Path, db: sqlite3.Connection) -> None:
    """A storage fault while the journal is open: every page but the first (the schema)
    zeroed on disk, and the connection's cache dropped so the next read sees it."""
    with open(path, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        for page in range(1, size // PAGE):
            f.seek(page * PAGE)
            f.write(bytes(PAGE))
    db.execute("PRAGMA shrink_memory")


def test_damage_found_while_resuming_stops_start_up_in_words(tmp_path, many_games, monkeypatch):
    """The pages were whole when the file was checked, and damaged before the games were
    read back (a failing card): start-up stops with the file's name, not SQLite's error."""
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(many_games)
    checked = Journal._check_pages

    def check_then_fail(self: Journal) -> None:
        checked(self)
        _zero_pages_after_the_first(path, self.db)

    monkeypatch.setattr(Journal, "_check_pages", check_then_fail)
    with pytest.raises(JournalError) as info:
        start(tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}: is damaged (database disk image is malformed)")
    assert f"sqlite3 {path} .recover" in message and "--state-dir" in message


def test_damage_while_running_refuses_commands_and_the_export_in_words(tmp_path, caplog):
    """A page damaged while the table plays: the next command and the host's export are
    refused with words for players (503 for the export), the host's status says so, the
    loop lives on, and the log names the file and what to do."""
    from test_pages import Table
    from test_pages import start as start_table

    appliance = start_table(tmp_path)
    try:
        table = Table(appliance)
        service = appliance.service
        seeker = f"seeker{service.game.current.seeker}"
        service.submit(seeker, Roll(FACES))
        game_id = service.game.id
        path = tmp_path / "journal.sqlite3"
        appliance.journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        _zero_pages_after_the_first(path, appliance.journal.db)
        before = service.game.current
        with pytest.raises(ServiceError, match="journal on the Pi's storage is damaged"):
            service.submit(seeker, Announce(Face.ONE))
        assert service.game.current is before
        export = table.host.get(f"/api/host/journal/{game_id}")
        assert export.status_code == 503
        assert export.json["error"].startswith(
            "The game journal on the Pi's storage is damaged and cannot be read."
        )
        status = table.host.get("/api/host/status").json
        assert "damaged" in str(status["journal"]["problem"])
        assert service._thread is not None and service._thread.is_alive()
        assert f"{path}: is damaged (database disk image is malformed)" in caplog.text
        assert "Traceback" not in caplog.text
    finally:
        appliance.close()


@pytest.fixture(scope="module")
def crashed_with_a_log(tmp_path_factory) -> tuple[bytes, bytes]:
    """A journal copied as a power cut leaves it: its last commits only in the
    write-ahead log (``-wal``), not yet in the main file."""
    path = tmp_path_factory.mktemp("wal") / "journal.sqlite3"
    maze, text = load_maze()
    journal = Journal(path)
    journal.db.execute("PRAGMA wal_autocheckpoint=0")
    for _ in range(3):
        game_id = journal.new_game("mummy", setup_to_json(make_setup(maze, ("red", "blue")), text))
        for row in GOOD_ROWS:
            journal.append(game_id, json.loads(row))
    files = path.read_bytes(), Path(f"{path}-wal").read_bytes()
    journal.close()
    return files


@pytest.mark.parametrize("how", ["cut in half", "header zeroed", "junk in a frame"])
def test_a_damaged_write_ahead_log_starts_with_the_commits_before_the_damage(
    tmp_path, crashed_with_a_log, how
):
    """SQLite checks every frame of the log and stops at the first bad one, without an
    error: the commits from there on are lost, the companion starts with the rest (a
    limit of SQLite's log, said in docs/service.md), never with a traceback."""
    main_file, log = crashed_with_a_log
    damaged = bytearray(log)
    if how == "cut in half":
        damaged = damaged[: len(damaged) // 2]
    elif how == "header zeroed":
        damaged[:32] = bytes(32)
    else:
        damaged[len(damaged) // 2 : len(damaged) // 2 + 400] = random.Random(1).randbytes(400)
    (tmp_path / "journal.sqlite3").write_bytes(main_file)
    (tmp_path / "journal.sqlite3-wal").write_bytes(bytes(damaged))
    app = start(tmp_path)
    try:
        game = app.service.game
        assert game.id <= 3 and len(game.commands) <= len(GOOD_ROWS)
        assert app.hub.status()["status"] == "ok"
    finally:
        app.close()


@pytest.mark.parametrize(
    "schema",
    [
        [
            "CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)",
            "INSERT INTO games (name) VALUES ('chess')",
        ],
        [
            "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)",
            "INSERT INTO recipes (name) VALUES ('soup')",
        ],
        [
            "CREATE TABLE games (id INTEGER PRIMARY KEY, kind TEXT, setup TEXT, created REAL,"
            " ended REAL)",
            "CREATE TABLE photos (id INTEGER PRIMARY KEY)",
        ],
    ],
)
def test_a_foreign_sqlite_file_is_byte_identical_after_a_refused_start(tmp_path, schema):
    """Issue 34: the companion added its tables and switched the file to WAL before it
    refused it, while its words said "The file is kept as it is"."""
    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)
    for statement in schema:
        db.execute(statement)
    db.commit()
    db.close()
    before = path.read_bytes()
    message = _refused_at_start(path)
    assert "another" in message and "kept as it is" in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]  # no -wal, -shm
