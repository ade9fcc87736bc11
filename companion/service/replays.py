"""Finished games from the journal, replayed for their replay and the statistics.

A replay holds every seeker's position and card, so it opens only for a game that was
played to its end: the record must replay to a state that is over.  That is checked
on the record itself every time (a host's undo of the winning move reopens a game:
its replay is refused again at once).  A record that cannot be read or replayed (an
earlier or later companion's format, a row set aside) is refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.errors import ServiceError
from companion.games.lootnrun.engine import apply as lootnrun_apply
from companion.games.lootnrun.engine import new_game as lootnrun_new
from companion.games.lootnrun.record import command_from_json as lootnrun_command
from companion.games.lootnrun.record import setup_from_json as lootnrun_setup
from companion.games.lootnrun.state import State as LootNRunState
from companion.games.mummy.record import command_from_json, setup_from_json
from companion.games.mummy.replay import NotOver, Replay, replay
from companion.games.records import RecordError
from companion.i18n import Msg, msg
from companion.journal import Journal, StoredGame

from .crypt_service import CryptGame

#: The kinds of game a replay can show.
KINDS = ("mummy", "lootnrun", "crypt")

RUNNING = msg(
    "This game is still being played: its replay, which shows every seeker's cells and "
    "cards, opens only once it has ended."
)

LEFT = msg(
    "This game was left before its end: it has no reveal, and its replay, which would show "
    "every seeker's cells and cards, stays shut."
)


class ReplayRefused(ServiceError):
    """No replay of this game, in words (a running game, an unreadable record)."""


@dataclass(frozen=True)
class FinishedMaze:
    id: int
    setup: Any
    commands: tuple[Any, ...]
    replay: Replay
    #: Who played the mummy ("easy"/"normal"/"hard", "person"; "unknown" for a record
    #: from before the companion kept it) and whether the deduction aid was on.
    computer: str
    aid: bool


@dataclass(frozen=True)
class FinishedLootNRun:
    id: int
    state: Any


@dataclass(frozen=True)
class FinishedCrypt:
    id: int
    states: tuple[Any, ...]
    said: tuple[Msg, ...]
    computer: int | None


Finished = FinishedMaze | FinishedLootNRun | FinishedCrypt


def table_facts(setup_data: Any) -> tuple[str, bool]:
    """The computer's level (or "person", or "unknown" before records kept it) and the
    aid, from a maze record's setup."""
    facts = setup_data.get("table") if isinstance(setup_data, dict) else None
    if not isinstance(facts, dict):
        return "unknown", False
    level = facts.get("computer")
    computer = level if level in ("easy", "normal", "hard") else "person"
    return computer, facts.get("aid") is True


def finished(journal: Journal, game_id: int) -> Finished:
    """The finished game ``game_id`` replayed; KeyError if there is none, ReplayRefused
    (in words) if it is not over or its record cannot be replayed."""
    stored = journal.load(game_id)
    if stored.kind not in KINDS:
        raise KeyError(f"no game {game_id} to replay")
    if stored.unreadable is not None and stored.ended:
        raise _unreadable(stored, stored.unreadable[1])
    try:
        return _replayed(stored)
    except NotOver:
        raise ReplayRefused(LEFT if stored.ended else RUNNING) from None
    except (RecordError, ValueError, KeyError, TypeError) as exc:
        raise why_unreadable(stored, exc) from exc


def why_unreadable(stored: StoredGame, exc: Exception) -> ReplayRefused:
    """The refusal of a record this companion cannot replay, with the reason."""
    reason = exc.message if isinstance(exc, RecordError) else str(exc)
    return _unreadable(stored, reason)


def _unreadable(stored: StoredGame, reason: str) -> ReplayRefused:
    version = stored.setup.get("version") if isinstance(stored.setup, dict) else None
    return ReplayRefused(
        msg(
            "Game {game} cannot be replayed: its record (format version {version}) does not "
            "replay on this companion ({reason}). Its record can still be exported.",
            game=stored.id,
            version=str(version) if version is not None else "?",
            reason=reason,
        )
    )


def _replayed(stored: StoredGame) -> Finished:
    if stored.kind == "mummy":
        setup = setup_from_json(stored.setup)
        commands = tuple(command_from_json(data, setup.maze) for data in stored.commands)
        computer, aid = table_facts(stored.setup)
        return FinishedMaze(
            stored.id, setup, commands, replay(setup, commands, aid=aid), computer, aid
        )
    if stored.kind == "lootnrun":
        state = lootnrun_final(stored)
        if not state.is_over:
            raise NotOver("the game is not over")
        return FinishedLootNRun(stored.id, state)
    game = CryptGame.replayed(stored.id, stored.setup, [])
    states = [game.state]
    for data in stored.commands:
        game.replay_one(data)
        states.append(game.state)
    if not game.state.is_over:
        raise NotOver("the game is not over")
    return FinishedCrypt(
        stored.id, tuple(states), tuple(e.text for e in game.history), game.computer
    )


def lootnrun_final(stored: StoredGame) -> LootNRunState:
    """A Loot N Run record replayed to its last state."""
    state = lootnrun_new(lootnrun_setup(stored.setup))[0]
    for data in stored.commands:
        state = lootnrun_apply(state, lootnrun_command(data))[0]
    return state


def ended_ids(journal: Journal, kinds: tuple[str, ...] = KINDS, limit: int = 10_000) -> list[int]:
    """The ids of every game that ended (or was left), newest first."""
    out: list[int] = []
    for kind in kinds:
        out += [g.id for g in journal.ended_games(kind, limit)]
    return sorted(out, reverse=True)
