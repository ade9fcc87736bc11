"""The facts of every finished game in the journal, for the statistics (a thin shell:
read the records, replay them, hand the facts to ``games.statistics``).

Only games played to their end count; a record that does not replay (another
companion's format) is left out and counted, so the page can say how many.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.games.crypt.state import State as CryptState
from companion.games.mummy.record import command_from_json, setup_from_json
from companion.games.mummy.summary import summarize
from companion.games.records import RecordError
from companion.games.statistics import GameFacts
from companion.journal import Journal, StoredGame

from .crypt_service import CryptGame
from .player_names import PlayerNames
from .replays import KINDS, ReplayRefused, lootnrun_final, table_facts, why_unreadable

#: Read at most this many finished games of each kind (newest first).
LIMIT = 5000


@dataclass(frozen=True)
class Gathered:
    facts: list[GameFacts]
    #: Finished games whose record did not replay on this companion, and why.
    unreadable: list[ReplayRefused]


#: Facts already derived, by game and its record's length (a record only changes by an
#: undo, which shortens or replaces it: its length and last command tell).
_CACHE: dict[tuple[str, int, int, str], GameFacts | None] = {}


def gather(journal: Journal, names: PlayerNames) -> Gathered:
    facts: list[GameFacts] = []
    unreadable: list[ReplayRefused] = []
    for kind in KINDS:
        for stored in journal.ended_games(kind, LIMIT):
            key = (journal.path, stored.id, len(stored.commands), repr(stored.commands[-1:]))
            if key not in _CACHE:
                try:
                    _CACHE[key] = game_facts(stored)
                except (RecordError, ValueError, KeyError, TypeError) as exc:
                    unreadable.append(why_unreadable(stored, exc))
                    continue
            found = _CACHE[key]
            if found is not None:
                given = names.of_game(stored.id)
                merged_names = {**found.names, **given}
                facts.append(replace(found, names=merged_names))
    return Gathered(facts, unreadable)


def game_facts(stored: StoredGame) -> GameFacts | None:
    """A finished game's facts (None: it was left before its end)."""
    if stored.kind == "mummy":
        setup = setup_from_json(stored.setup)
        commands = [command_from_json(data, setup.maze) for data in stored.commands]
        summary = summarize(setup, commands)
        if summary is None:
            return None
        winner = summary.winner
        computer, _ = table_facts(stored.setup)
        return GameFacts(
            id=stored.id,
            kind="mummy",
            winner="mummy" if winner.is_mummy else "seekers",
            seekers=len(setup.seekers),
            maze=setup.maze.name,
            computer=computer,
            rounds=summary.rounds,
            commands=summary.commands,
            catches=tuple(c.at for c in summary.catches),
            winning_seats=("mummy",) if winner.is_mummy else (f"seeker{winner.seeker}",),
        )
    if stored.kind == "lootnrun":
        state = lootnrun_final(stored)
        if not state.is_over:
            return None
        return GameFacts(
            id=stored.id,
            kind="lootnrun",
            winner="players",
            commands=len(stored.commands),
            names={f"player{i}": p.name for i, p in enumerate(state.players)},
            winning_seats=tuple(f"player{i}" for i in state.winners),
        )
    game = CryptGame.replayed(stored.id, stored.setup, stored.commands)
    crypt: CryptState = game.state
    if not crypt.is_over:
        return None
    return GameFacts(
        id=stored.id,
        kind="crypt",
        winner="players",
        commands=len(stored.commands),
        winning_seats=tuple(f"player{i}" for i in crypt.winners),
    )


def seats_of(stored_setup: Any, kind: str) -> list[str]:
    """The seats a game's players can be named for."""
    if kind == "mummy":
        return ["mummy", *(f"seeker{i}" for i in range(len(stored_setup.get("seekers", []))))]
    if kind == "lootnrun":
        return [f"player{i}" for i in range(len(stored_setup.get("players", [])))]
    return [f"player{i}" for i in range(int(stored_setup.get("players", 2)))]
