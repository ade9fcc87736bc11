"""Resuming a journal's game after a restart: replay up to the last good command.

One unreadable, illegal or unknown command row must not throw the whole game away nor
stop start-up: the game resumes after the commands before it, the rest are set aside in
the journal (the export keeps them) and the host is told (``Journal.notes``).  A game
whose setup cannot be read is kept in the journal as it is and the host is told.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from companion.games.records import RecordError
from companion.journal import Journal, JournalWriteError, StoredGame

log = logging.getLogger(__name__)

G = TypeVar("G")

#: What a replay may raise on a bad row (a wrong field, a rule error, a missing key).
BAD_ROW = (ValueError, KeyError, TypeError)


def resume(
    journal: Journal,
    stored: StoredGame,
    start: Callable[[int, Any, list[Any]], G],
    step: Callable[[G, Any], G],
) -> G | None:
    """The stored game replayed as far as it goes (None: not even its setup could be).

    ``start(id, setup, [])`` makes the game (a game type's ``replayed``), ``step(game,
    command)`` applies one journal command and returns the game."""
    unreadable = stored.setup.get("unreadable") if isinstance(stored.setup, dict) else None
    try:
        if unreadable is not None and len(stored.setup) == 1:
            raise RecordError(f"its setup is not readable: {unreadable}")
        game = start(stored.id, stored.setup, [])
    except BAD_ROW as exc:
        _set_aside(journal, stored, -1, f"its setup: {_words(exc)}")
        return None
    for index, data in enumerate(stored.commands):
        try:
            game = step(game, data)
        except BAD_ROW as exc:
            _set_aside(journal, stored, index, f"command {stored.seqs[index]}: {_words(exc)}")
            return game
    if stored.unreadable is not None:
        _set_aside(journal, stored, len(stored.commands), stored.unreadable[1])
    return game


def _set_aside(journal: Journal, stored: StoredGame, kept: int, reason: str) -> None:
    try:
        journal.set_aside(stored, kept, reason)
    except JournalWriteError as exc:  # the game still resumes; the host hears why
        log.error("journal: could not set commands aside (%s)", exc)


def _words(exc: BaseException) -> str:
    if isinstance(exc, RecordError):
        return exc.message
    if isinstance(exc, KeyError):
        return f"{exc.args[0]} is missing" if exc.args else "a key is missing"
    return str(exc)
