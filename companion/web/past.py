"""The host's past games of Loot N Run and Into the Crypt: each ended game's winners and
scores, derived from its record in the journal (as the maze's summaries are: nothing is
stored twice)."""

from __future__ import annotations

from typing import Any

from companion.games.lootnrun.engine import apply as lootnrun_apply
from companion.games.lootnrun.engine import new_game as lootnrun_new
from companion.games.lootnrun.record import command_from_json as lootnrun_command
from companion.games.lootnrun.record import setup_from_json as lootnrun_setup
from companion.games.mummy.words import colour_word
from companion.i18n import counted, joined, msg, word
from companion.i18n.message import Value
from companion.service.crypt_service import CryptGame
from companion.service.journal import Journal, StoredGame
from companion.service.registry import GAME_NAMES

Payload = dict[str, Any]


def side_games(journal: Journal, limit: int) -> list[Payload]:
    """The last ended games of Loot N Run and the crypt, newest first, in short."""
    games = []
    for kind, read in (("lootnrun", _lootnrun), ("crypt", _crypt)):
        for stored in journal.ended_games(kind, limit):
            try:
                names, scores, winners = read(stored)
            except (KeyError, TypeError, ValueError):  # RecordError, RuleError
                continue  # a record that no longer replays: left out
            if winners:
                games.append(side_summary(stored.id, kind, names, scores, winners))
    return sorted(games, key=lambda g: -int(g["id"]))[:limit]


def side_summary(
    game_id: int, kind: str, names: list[Value], scores: list[int], winners: list[int]
) -> Payload:
    """One ended game: who won, and every player's points."""
    who = joined([names[w] for w in winners])
    winner = (
        msg("{players} share the win.", players=who)
        if len(winners) > 1
        else msg("{player} wins.", player=who)
    )
    return {
        "id": game_id,
        "kind": kind,
        "game": word(GAME_NAMES[kind]),
        "winner": winner,
        "lines": [
            counted(score, "{name}: {n} point", "{name}: {n} points", name=name)
            for name, score in zip(names, scores, strict=True)
        ],
    }


def _lootnrun(stored: StoredGame) -> tuple[list[Value], list[int], list[int]]:
    setup = lootnrun_setup(stored.setup)
    state = lootnrun_new(setup)[0]
    for data in stored.commands:
        state = lootnrun_apply(state, lootnrun_command(data))[0]
    names: list[Value] = [p.name for p in setup.players]  # as the players wrote them
    return names, list(state.scores), list(state.winners) if state.is_over else []


def _crypt(stored: StoredGame) -> tuple[list[Value], list[int], list[int]]:
    game = CryptGame.replayed(stored.id, stored.setup, stored.commands)
    state = game.state
    names: list[Value] = [colour_word(state.setup.colours[p]) for p in range(state.players)]
    return names, list(state.scores), list(state.winners) if state.is_over else []
