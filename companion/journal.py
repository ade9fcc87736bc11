"""The SQLite journal: every accepted command is committed before its effects are shown.

A game is stored as its setup plus its commands (JSON text, as in the game records),
so resuming after a crash or a power cut is a replay.  Settings for an SD card:

- ``journal_mode=WAL``: a commit appends to the write-ahead log instead of rewriting
  pages in place, so a power cut mid-write cannot corrupt earlier games;
- ``synchronous=FULL``: every commit waits until the log is on the card, so an
  acknowledged command survives a power cut (NORMAL could lose the last ones);
- one connection, used from the service loop's thread only.
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from companion import writes
from companion.closing import Closing
from companion.errors import RetryLater, ServiceError, StartupError, StorageError
from companion.games.records import RecordError, parse_json
from companion.i18n import Msg, msg
from companion.inputs import not_a_file

log = logging.getLogger(__name__)

#: How long a write waits for another program's lock before the command is refused.
BUSY_TIMEOUT_S = 2.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    setup TEXT NOT NULL,
    created REAL NOT NULL,
    ended REAL
);
CREATE TABLE IF NOT EXISTS commands (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    command TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS set_aside (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    command TEXT NOT NULL,
    reason TEXT NOT NULL,
    created REAL NOT NULL
);
"""

#: The columns a journal of this companion has (another schema is refused at start-up).
COLUMNS = {
    "games": {"id", "kind", "setup", "created", "ended"},
    "commands": {"game_id", "seq", "command", "created"},
}


#: Every table a journal of this companion holds.
OUR_TABLES = frozenset({"games", "commands", "set_aside"})


class JournalError(StartupError):
    """A journal file the companion cannot use at start-up; the message says what to do."""


class JournalWriteError(RetryLater, StorageError):
    """A command that could not be committed (storage full, locked, ...): it is refused,
    the game is unchanged, and the same command is accepted once the journal can be
    written again.  The pages answer 507 when the storage is full, else 503."""


class JournalReadError(JournalWriteError):
    """The journal could not be read while running (a page of it damaged since start-up):
    the request is refused in words, and the log names the file and what to do."""


#: What players are told when the journal file is damaged (the log names the file).
DAMAGED = msg(
    "The game journal on the Pi's storage is damaged: this was not saved."
    " The companion's log names the file and what to do."
)
DAMAGED_READ = msg(
    "The game journal on the Pi's storage is damaged and cannot be read."
    " The companion's log names the file and what to do."
)


class Unreadable(ServiceError):
    """A command or setup the journal could not read back after a restart (a number, a
    text or a nesting past the records' limits): refused, never written."""


def _readable(value: dict[str, Any]) -> str:
    """``value`` as the journal's JSON text, read back by the journal's own reader first:
    what could not be resumed after a restart is refused now (``Unreadable``).  The API
    refuses such bodies at the door already; this keeps every other way in honest."""
    text = json.dumps(value)
    try:
        parse_json(text)
    except RecordError as exc:
        raise Unreadable(msg("This cannot be saved as it is: {error}.", error=exc.message)) from exc
    return text


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return f"uid {os.getuid()}"


def _unusable(path: Path, why: str) -> JournalError:
    return JournalError(
        f"{path}: {why}. The file is kept as it is; move it away to start afresh, "
        "or start with --state-dir set to another directory."
    )


def _damaged(path: Path, detail: str) -> JournalError:
    """A journal with a damaged page: the file, what SQLite found, and what to do."""
    lines = [line for line in detail.splitlines() if line.strip() and "***" not in line]
    first = (lines[0] if lines else detail)[:160]
    return _unusable(
        path,
        f"is damaged ({first}). Its games cannot be resumed: `sqlite3 {path} .recover` "
        "can save what is still readable into a new file",
    )


def _is_damage(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text or "corrupt" in text


def _write_failure(exc: sqlite3.Error) -> Msg:
    """A failed write in words for players (it changed nothing)."""
    text = str(exc).lower()
    if _is_damage(exc):
        return DAMAGED
    if "full" in text:
        return msg(
            "The Pi's storage is full: nothing was lost, but this was not saved."
            " Free some space, then try again."
        )
    if "locked" in text or "busy" in text:
        return msg(
            "The journal is locked by another program: nothing was lost. Try again in a moment."
        )
    if "readonly" in text or "read-only" in text:
        return msg("The journal has become read-only: nothing was lost, but this was not saved.")
    return msg(
        "The journal could not be written ({error}): nothing was lost. Try again.", error=str(exc)
    )


@dataclass(frozen=True)
class StoredGame:
    """A game as the journal holds it: its setup and its commands, oldest first."""

    id: int
    kind: str
    setup: dict[str, Any]
    commands: list[Any]
    ended: bool
    #: The first command row that is not JSON: (its sequence number, what is wrong).
    unreadable: tuple[int, str] | None = None
    #: The sequence numbers of ``commands`` (1, 2, ... unless rows were set aside).
    seqs: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class ResumeNote:
    """A game that could not be resumed whole: what the host is told."""

    kind: str
    game_id: int
    kept: int
    set_aside: int
    reason: str

    @property
    def message(self) -> str:
        if self.kept < 0:
            return (
                f"Game {self.game_id} ({self.kind}) could not be resumed: {self.reason}. "
                "It is kept in the journal: export its record to keep it."
            )
        return (
            f"Game {self.game_id} ({self.kind}) was resumed after {self.kept} commands; "
            f"{self.set_aside} later command(s) could not be replayed ({self.reason}) and "
            "were set aside: export the record to keep them."
        )


class Journal(Closing):
    """Games and their commands in one SQLite file (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path, *, check: bool = True) -> None:
        """Open (or make) the journal; ``check``: read every page first (PRAGMA
        quick_check), so a damaged file is refused at start-up with its name and what to
        do, never found half-way through resuming a game."""
        self.path = str(path)
        #: Where writes are judged together (``companion.writes``): the state directory,
        #: so a write of any game's journal or of the seats there clears "storage full".
        self.place = (
            f"memory:{id(self)}" if self.path == ":memory:" else writes.place_of(Path(self.path))
        )
        #: Games resumed only in part, or not at all, since start-up.
        self.notes: list[ResumeNote] = []
        if self.path != ":memory:":
            _check_path(Path(self.path))
        try:
            self.db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
            )
        except sqlite3.Error as exc:
            raise _unusable(Path(self.path), f"cannot be opened ({exc})") from exc
        try:
            if check:
                self._check_pages()
            self._check_foreign()  # read only: a file of another program is left as it is
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            self._check_schema()
            # A real write, so a read-only file is refused now, not at the first command.
            with self._transaction():
                version = self.db.execute("PRAGMA user_version").fetchone()[0]
                self.db.execute(f"PRAGMA user_version = {int(version)}")
        except sqlite3.Error as exc:
            self.db.close()
            text = str(exc).lower()
            if "not a database" in text:
                why = "is not a companion journal (not an SQLite database, or a damaged one)"
            elif _is_damage(exc):
                raise _damaged(Path(self.path), str(exc)) from exc
            elif "readonly" in text:
                why = f"cannot be written by user {_user()} (it is read-only)"
            else:
                why = f"cannot be used as the journal ({exc})"
            raise _unusable(Path(self.path), why) from exc
        except JournalError:
            self.db.close()
            raise

    @property
    def problem(self) -> Msg | None:
        """The last write that failed (a message for the host), None once any write to
        the same storage succeeded since."""
        return writes.problem(self.place)

    def _check_pages(self) -> None:
        """JournalError naming the file if any page is damaged (one read of the file)."""
        found = [str(row[0]) for row in self.db.execute("PRAGMA quick_check")]
        if found != ["ok"]:
            raise _damaged(Path(self.path), "\n".join(found))

    def _check_foreign(self) -> None:
        """JournalError if the file holds tables of another program, or ours of another
        schema: checked by reading only, before anything is written (no table added, no
        switch to WAL), so a refused file stays byte for byte as it was."""
        names = {
            str(row[0])
            for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(row[0]).startswith("sqlite_")
        }
        foreign = sorted(names - OUR_TABLES)
        if foreign:
            raise _unusable(
                Path(self.path),
                f"holds tables of another program ({', '.join(foreign[:3])}):"
                " not a journal of this companion",
            )
        self._check_schema(names)

    def _check_schema(self, present: set[str] | None = None) -> None:
        for table, wanted in COLUMNS.items():
            if present is not None and table not in present:
                continue  # made by SCHEMA once the file is known to be ours
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            missing = sorted(wanted - have)
            if missing:
                raise _unusable(
                    Path(self.path),
                    f"holds a table {table} of another schema (no column {missing[0]}):"
                    " not a journal of this companion",
                )

    def new_game(
        self, kind: str, setup: dict[str, Any], also: Callable[[int], None] | None = None
    ) -> int:
        """Start a game; an unfinished game of the same kind is ended first.

        ``also`` is called with the new game's id before the commit, for a file that
        must be written with it (the seats of the table that plays it): if it raises,
        nothing is committed and the error goes to the caller."""
        now = time.time()
        with self._write():
            self.db.execute(
                "UPDATE games SET ended = ? WHERE kind = ? AND ended IS NULL", (now, kind)
            )
            cursor = self.db.execute(
                "INSERT INTO games (kind, setup, created) VALUES (?, ?, ?)",
                (kind, _readable(setup), now),
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            if also is not None:
                also(game_id)
        return game_id

    def append(self, game_id: int, command: dict[str, Any]) -> int:
        """Commit one accepted command; returns its sequence number (1 for the first).

        JournalWriteError (a ServiceError) if it cannot be written: nothing changed."""
        with self._write():
            row = self.db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM commands WHERE game_id = ?", (game_id,)
            ).fetchone()
            seq = int(row[0]) + 1
            self.db.execute(
                "INSERT INTO commands (game_id, seq, command, created) VALUES (?, ?, ?, ?)",
                (game_id, seq, _readable(command), time.time()),
            )
        return seq

    def undo(
        self, game_id: int, count: int = 1, then: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """Remove the last ``count`` commands of a game in one transaction; returns the
        earliest of them, or None if there was none.  ``then``: a command appended in
        the same transaction (the record that the undone end had revealed the cards),
        so that a power cut never keeps the one without the other."""
        then_text = None if then is None else _readable(then)
        with self._write():
            rows = self.db.execute(
                "SELECT seq, command FROM commands WHERE game_id = ? ORDER BY seq DESC LIMIT ?",
                (game_id, count),
            ).fetchall()
            if not rows:
                return None
            row = rows[-1]
            self.db.execute(
                "DELETE FROM commands WHERE game_id = ? AND seq >= ?", (game_id, row[0])
            )
            self.db.execute("UPDATE games SET ended = NULL WHERE id = ?", (game_id,))
            if then_text is not None:
                self.db.execute(
                    "INSERT INTO commands (game_id, seq, command, created) VALUES (?, ?, ?, ?)",
                    (game_id, row[0], then_text, time.time()),
                )
        try:
            command: dict[str, Any] = parse_json(row[1])
        except RecordError:
            return {}
        return command

    def replace_last(self, game_id: int, command: dict[str, Any]) -> int:
        """Replace the last command of a game in one transaction (a move the seeker
        changed before the turn ended); returns its sequence number."""
        with self._write():
            row = self.db.execute(
                "SELECT MAX(seq) FROM commands WHERE game_id = ?", (game_id,)
            ).fetchone()
            if row is None or row[0] is None:
                raise ValueError(f"game {game_id} has no command to replace")
            seq = int(row[0])
            self.db.execute(
                "UPDATE commands SET command = ?, created = ? WHERE game_id = ? AND seq = ?",
                (_readable(command), time.time(), game_id, seq),
            )
            self.db.execute("UPDATE games SET ended = NULL WHERE id = ?", (game_id,))
        return seq

    def end_game(self, game_id: int) -> None:
        """Mark a game over.  If that cannot be written the game is still over (a replay
        ends it again), so the failure is only reported, never raised."""
        try:
            with self._write():
                self.db.execute(
                    "UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL",
                    (time.time(), game_id),
                )
        except JournalWriteError:
            pass

    def set_aside(self, game: StoredGame, kept: int, reason: str) -> ResumeNote:
        """Move a game's commands after the first ``kept`` out of its replay (into the
        ``set_aside`` table, where the export finds them); ``kept`` -1: the whole game
        cannot be resumed, so it is ended and kept as it is."""
        if kept < 0:
            dropped = len(game.commands) + (game.unreadable is not None)
            note = ResumeNote(game.kind, game.id, -1, dropped, reason)
            self.notes.append(note)
            self.end_game(game.id)
        else:
            if kept < len(game.seqs):
                first = game.seqs[kept]
            elif game.unreadable is not None:
                first = game.unreadable[0]
            else:
                first = (game.seqs[-1] + 1) if game.seqs else 1
            with self._read():
                (count,) = self.db.execute(
                    "SELECT COUNT(*) FROM commands WHERE game_id = ? AND seq >= ?",
                    (game.id, first),
                ).fetchone()
            note = ResumeNote(game.kind, game.id, kept, int(count), reason)
            self.notes.append(note)
            with self._write():
                self.db.execute(
                    "INSERT INTO set_aside (game_id, seq, command, reason, created) "
                    "SELECT game_id, seq, command, ?, ? FROM commands "
                    "WHERE game_id = ? AND seq >= ?",
                    (reason, time.time(), game.id, first),
                )
                self.db.execute(
                    "DELETE FROM commands WHERE game_id = ? AND seq >= ?", (game.id, first)
                )
        log.error("journal %s: %s", self.path, note.message)
        return note

    def load(self, game_id: int) -> StoredGame:
        """A game and its commands, read up to the first row that is not JSON."""
        if not 0 <= game_id < 2**63:  # beyond SQLite's integers: no such game
            raise KeyError(f"no game {game_id} in the journal")
        with self._read():
            row = self.db.execute(
                "SELECT id, kind, setup, ended FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            rows = self.db.execute(
                "SELECT seq, command FROM commands WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        if row is None:
            raise KeyError(f"no game {game_id} in the journal")
        try:
            setup = parse_json(row[2])
        except RecordError as exc:
            setup = {"unreadable": exc.message}
        commands: list[Any] = []
        seqs: list[int] = []
        unreadable = None
        for seq, text in rows:
            try:
                commands.append(parse_json(text))
            except RecordError as exc:
                unreadable = (int(seq), f"command {seq} is not readable: {exc.message}")
                break
            seqs.append(int(seq))
        return StoredGame(row[0], row[1], setup, commands, row[3] is not None, unreadable, seqs)

    def unfinished(self, kind: str) -> StoredGame | None:
        """The newest unfinished game of a kind, to resume after a restart."""
        with self._read():
            row = self.db.execute(
                "SELECT id FROM games WHERE kind = ? AND ended IS NULL ORDER BY id DESC LIMIT 1",
                (kind,),
            ).fetchone()
        return None if row is None else self.load(row[0])

    def ended_games(self, kind: str, limit: int) -> list[StoredGame]:
        """The newest ``limit`` games of a kind that ended, newest first (the host's
        past games: each one's summary is derived from its record)."""
        with self._read():
            rows = self.db.execute(
                "SELECT id FROM games WHERE kind = ? AND ended IS NOT NULL "
                "ORDER BY id DESC LIMIT ?",
                (kind, limit),
            ).fetchall()
        return [self.load(row[0]) for row in rows]

    def table_numbers(self, ids: list[int]) -> dict[int, tuple[int, float | None]]:
        """Each of these games' number at this table and when it ended (seconds since the
        epoch, None if it has not).  The number counts the games something was played in
        before it, and itself (1 for the first): the games set up by default at a start,
        never played, are not the table's."""
        wanted = [i for i in ids if 0 <= i < 2**63]
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        with self._read():
            rows = self.db.execute(
                "WITH played AS (SELECT id FROM games WHERE"
                " EXISTS (SELECT 1 FROM commands WHERE game_id = games.id)"
                " OR EXISTS (SELECT 1 FROM set_aside WHERE game_id = games.id))"
                " SELECT g.id, g.ended, 1 + (SELECT COUNT(*) FROM played WHERE played.id < g.id)"
                f" FROM games g WHERE g.id IN ({marks})",
                wanted,
            ).fetchall()
        return {int(i): (int(n), ended) for i, ended, n in rows}

    def latest(self, kind: str) -> StoredGame | None:
        with self._read():
            row = self.db.execute(
                "SELECT id FROM games WHERE kind = ? ORDER BY id DESC LIMIT 1", (kind,)
            ).fetchone()
        return None if row is None else self.load(row[0])

    def export(self, game_id: int) -> str:
        """A game as a JSON Lines record: the setup line, then one line per command
        (the commands set aside at a resume last, as they were stored)."""
        if not 0 < game_id < 2**63:  # beyond any row id SQLite can hold
            raise KeyError(f"no game {game_id} in the journal")
        with self._read():
            row = self.db.execute("SELECT setup FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise KeyError(f"no game {game_id} in the journal")
            lines = [str(row[0])]
            for table in ("commands", "set_aside"):
                lines += [
                    str(text)
                    for (text,) in self.db.execute(
                        f"SELECT command FROM {table} WHERE game_id = ? ORDER BY seq", (game_id,)
                    )
                ]
        return "\n".join(lines) + "\n"

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction; a failure refuses it with a message for players and
        leaves the journal (and the game) as it was."""
        try:
            with self._transaction():
                yield
        except sqlite3.Error as exc:
            raise self._refusal(exc, JournalWriteError) from exc
        if self.problem is not None:
            log.info("journal %s: writes work again", self.path)
        writes.succeeded(self.place)

    @contextmanager
    def _read(self) -> Iterator[None]:
        """Reads after start-up: a page damaged since then refuses the request in words
        (JournalReadError) instead of failing with SQLite's error."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._refusal(exc, JournalReadError) from exc

    def _refusal(self, exc: sqlite3.Error, kind: type[JournalWriteError]) -> JournalWriteError:
        """The refusal for a failed read or write; the log says it once per problem, and
        for a damaged file names it and what to do."""
        message = _write_failure(exc)
        if message == DAMAGED and kind is JournalReadError:
            message = DAMAGED_READ
        if self.problem != message:
            log.error("journal %s: %s (%s)", self.path, message, exc)
            if _is_damage(exc):
                log.error("%s", _damaged(Path(self.path), str(exc)))
        writes.failed(self.place, message)
        full = isinstance(exc, sqlite3.OperationalError) and "full" in str(exc).lower()
        return kind(message, full=full)

    def start_up_error(self, exc: JournalWriteError) -> JournalError:
        """What stops start-up when the journal fails while the games are resumed (a page
        damaged, the storage full): the file, what is wrong and what to do."""
        cause = exc.__cause__
        if isinstance(cause, sqlite3.Error) and _is_damage(cause):
            return _damaged(Path(self.path), str(cause))
        return _unusable(Path(self.path), f"cannot be used to start ({str(exc).rstrip('.')})")

    def close(self) -> None:
        self.db.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self, exc: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None:
            self.db.execute("COMMIT")
        elif self.db.in_transaction:  # SQLite has already rolled back on a full disk
            self.db.execute("ROLLBACK")


def _check_path(path: Path) -> None:
    """The journal's file and directory are usable: refuse now with a message, not later
    with a traceback."""
    directory = path.parent
    if path.is_symlink() and not path.exists():
        raise _unusable(path, f"is a link to {os.readlink(path)}, which does not exist")
    kind = not_a_file(path.stat().st_mode) if path.exists() else None
    if kind is not None:  # a directory, /dev/zero, a FIFO (that would never end)
        raise _unusable(path, f"is {kind}, not a journal file")
    prepare_state_dir(directory)
    if path.exists() and not os.access(path, os.W_OK):
        raise _unusable(path, f"cannot be written by user {_user()} (it is read-only)")


def journal_report(journals: Iterable[Journal]) -> dict[str, Any]:
    """What the host is told about the journal: a write that fails now, and the games
    resumed in part or not at all (each with the address of its record's export)."""
    seen = {id(j): j for j in journals}.values()
    problems = [j.problem for j in seen if j.problem is not None]
    notes = [note for j in seen for note in j.notes]
    return {
        "ok": not problems,
        "problem": problems[0] if problems else None,
        "notes": [
            {
                "game": n.game_id,
                "kind": n.kind,
                "message": n.message,
                "export": f"/api/host/journal/{n.game_id}",
            }
            for n in notes
        ],
    }


def prepare_state_dir(directory: Path) -> None:
    """Make the state directory (journal, secret key) and check this user may write in
    it: StartupError naming the directory and the user if not."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartupError(
            f"the state directory {directory} cannot be made by user {_user()} "
            f"({exc.strerror}): create it, or start with --state-dir set to a writable one"
        ) from exc
    if not os.access(directory, os.W_OK | os.X_OK):
        raise StartupError(
            f"the state directory {directory} is not writable by user {_user()}: "
            "change its owner, or start with --state-dir set to a writable one"
        )
