"""The names players gave per game, and the host's merges and removals of names.

Kept in ``players.json`` beside the journal (not in it: a name can be changed after
the game, a record never is).  Written whole to a temporary file and moved into place,
so a power cut leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from companion.errors import ServiceError
from companion.games.records import MAX_TEXT, RecordError, parse_json
from companion.games.text import unfit_character
from companion.i18n import msg

log = logging.getLogger(__name__)

#: The longest name (a line of the statistics on a phone holds it).
MAX_NAME = 40


class NameRefused(ServiceError):
    """A name or a change of names that cannot be kept, in words."""


class PlayerNames:
    """Per game, each seat's name; names merged into others; names removed."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.games: dict[str, dict[str, str]] = {}
        self.merged: dict[str, str] = {}
        self.removed: list[str] = []
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            data = parse_json(path.read_text(encoding="utf-8"))
            games = data.get("games", {}) if isinstance(data, dict) else {}
            self.games = {
                str(g): {str(s): str(n) for s, n in seats.items()}
                for g, seats in games.items()
                if isinstance(seats, dict)
            }
            self.merged = {str(a): str(b) for a, b in data.get("merged", {}).items()}
            self.removed = [str(n) for n in data.get("removed", [])]
        except (OSError, UnicodeDecodeError, RecordError, AttributeError) as exc:
            # The names are a convenience: a damaged file is kept aside, never fatal.
            log.error("%s cannot be read (%s): the names start afresh", path, exc)
            with contextlib.suppress(OSError):
                path.replace(path.with_name(path.name + ".damaged"))

    # -- reading ---------------------------------------------------------------------------

    def of_game(self, game_id: int) -> dict[str, str]:
        return dict(self.games.get(str(game_id), {}))

    def all_names(self) -> list[str]:
        names = {n for seats in self.games.values() for n in seats.values()}
        return sorted(names | set(self.merged) | set(self.merged.values()))

    # -- changing ----------------------------------------------------------------------------

    def name_seats(self, game_id: int, names: dict[str, str]) -> None:
        """The names of a game's seats (an empty name: the seat's name is dropped)."""
        clean = {seat: checked_name(name) for seat, name in names.items() if name.strip()}
        with self._lock:
            games = dict(self.games)
            if clean:
                games[str(game_id)] = clean
            else:
                games.pop(str(game_id), None)
            self._save(games, self.merged, self.removed)

    def name_seat(self, game_id: int, seat: str, name: str) -> None:
        """A player names themselves for one seat of a game (as they join it)."""
        name = checked_name(name)
        with self._lock:
            seats = {**self.games.get(str(game_id), {}), seat: name}
            self._save({**self.games, str(game_id): seats}, self.merged, self.removed)

    def carry(self, game_id: int, to_game: int, seats: set[str]) -> None:
        """The same players go on into another game (a rematch: every phone stays on
        its seat): ``seats``' names carry over unless the new game names them already."""
        given = {s: n for s, n in self.games.get(str(game_id), {}).items() if s in seats}
        if not given or game_id == to_game:
            return
        with self._lock:
            named = {**given, **self.games.get(str(to_game), {})}
            self._save({**self.games, str(to_game): named}, self.merged, self.removed)

    def merge(self, name: str, into: str) -> None:
        """Count ``name`` as ``into`` from now on (the same player spelled twice)."""
        name, into = checked_name(name), checked_name(into)
        if name == into:
            raise NameRefused(msg("A name cannot be merged into itself."))
        with self._lock:
            self._save(self.games, {**self.merged, name: into}, self.removed)

    def remove(self, name: str) -> None:
        """Leave a name out of the statistics by name (its games still count)."""
        name = checked_name(name)
        with self._lock:
            removed = self.removed if name in self.removed else [*self.removed, name]
            self._save(self.games, self.merged, removed)

    def restore(self, name: str) -> None:
        """Undo a removal or a merge of ``name``."""
        with self._lock:
            merged = {a: b for a, b in self.merged.items() if a != name}
            self._save(self.games, merged, [n for n in self.removed if n != name])

    def _save(
        self, games: dict[str, dict[str, str]], merged: dict[str, str], removed: list[str]
    ) -> None:
        """Write the names, then keep them (a failed write changes nothing)."""
        if self.path is not None:
            data: dict[str, Any] = {"games": games, "merged": merged, "removed": removed}
            tmp = self.path.with_name(self.path.name + ".tmp")
            try:
                with open(tmp, "w", encoding="utf-8") as out:
                    json.dump(data, out, ensure_ascii=False, indent=1)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(tmp, self.path)
            except OSError as exc:
                raise NameRefused(
                    msg(
                        "The names could not be saved ({error}): nothing was changed.",
                        error=str(exc),
                    )
                ) from exc
        self.games, self.merged, self.removed = games, merged, removed


def checked_name(name: str) -> str:
    """A name as it is kept (spaces tidied), or ``NameRefused`` saying why not."""
    name = " ".join(str(name).split())
    if unfit_character(name) is not None:
        raise NameRefused(msg("A name cannot hold control or text-direction characters."))
    if not name:
        raise NameRefused(msg("A name needs at least one letter."))
    if len(name) > min(MAX_NAME, MAX_TEXT):
        raise NameRefused(msg("A name has at most {n} characters.", n=MAX_NAME))
    return name


def named_seats(seekers: int) -> set[str]:
    """The seats of a maze game whose players name themselves: the mummy and each seeker."""
    return {"mummy", *(f"seeker{i}" for i in range(seekers))}


def names_path(journal_path: str) -> Path | None:
    """``players.json`` beside the journal (None for a journal in memory)."""
    return None if journal_path == ":memory:" else Path(journal_path).parent / "players.json"
