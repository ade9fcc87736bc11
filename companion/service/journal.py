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

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from companion.closing import Closing

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
"""


@dataclass(frozen=True)
class StoredGame:
    """A game as the journal holds it: its setup and its commands, oldest first."""

    id: int
    kind: str
    setup: dict[str, Any]
    commands: list[dict[str, Any]]
    ended: bool


class Journal(Closing):
    """Games and their commands in one SQLite file (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)

    def new_game(self, kind: str, setup: dict[str, Any]) -> int:
        """Start a game; an unfinished game of the same kind is ended first."""
        now = time.time()
        with self._transaction():
            self.db.execute(
                "UPDATE games SET ended = ? WHERE kind = ? AND ended IS NULL", (now, kind)
            )
            cursor = self.db.execute(
                "INSERT INTO games (kind, setup, created) VALUES (?, ?, ?)",
                (kind, json.dumps(setup), now),
            )
        game_id = cursor.lastrowid
        assert game_id is not None
        return game_id

    def append(self, game_id: int, command: dict[str, Any]) -> int:
        """Commit one accepted command; returns its sequence number (1 for the first)."""
        with self._transaction():
            row = self.db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM commands WHERE game_id = ?", (game_id,)
            ).fetchone()
            seq = int(row[0]) + 1
            self.db.execute(
                "INSERT INTO commands (game_id, seq, command, created) VALUES (?, ?, ?, ?)",
                (game_id, seq, json.dumps(command), time.time()),
            )
        return seq

    def undo(self, game_id: int) -> dict[str, Any] | None:
        """Remove the last command of a game; returns it, or None if there was none."""
        with self._transaction():
            row = self.db.execute(
                "SELECT seq, command FROM commands WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            self.db.execute("DELETE FROM commands WHERE game_id = ? AND seq = ?", (game_id, row[0]))
            self.db.execute("UPDATE games SET ended = NULL WHERE id = ?", (game_id,))
        command: dict[str, Any] = json.loads(row[1])
        return command

    def end_game(self, game_id: int) -> None:
        with self._transaction():
            self.db.execute(
                "UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL", (time.time(), game_id)
            )

    def load(self, game_id: int) -> StoredGame:
        row = self.db.execute(
            "SELECT id, kind, setup, ended FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in the journal")
        commands = [
            json.loads(text)
            for (text,) in self.db.execute(
                "SELECT command FROM commands WHERE game_id = ? ORDER BY seq", (game_id,)
            )
        ]
        return StoredGame(row[0], row[1], json.loads(row[2]), commands, row[3] is not None)

    def unfinished(self, kind: str) -> StoredGame | None:
        """The newest unfinished game of a kind, to resume after a restart."""
        row = self.db.execute(
            "SELECT id FROM games WHERE kind = ? AND ended IS NULL ORDER BY id DESC LIMIT 1",
            (kind,),
        ).fetchone()
        return None if row is None else self.load(row[0])

    def latest(self, kind: str) -> StoredGame | None:
        row = self.db.execute(
            "SELECT id FROM games WHERE kind = ? ORDER BY id DESC LIMIT 1", (kind,)
        ).fetchone()
        return None if row is None else self.load(row[0])

    def export(self, game_id: int) -> str:
        """A game as a JSON Lines record: the setup line, then one line per command."""
        game = self.load(game_id)
        lines = [json.dumps(game.setup)] + [json.dumps(c) for c in game.commands]
        return "\n".join(lines) + "\n"

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)

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
        self.db.execute("ROLLBACK" if exc else "COMMIT")
