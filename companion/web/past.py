"""The end of Loot N Run and Into the Crypt: each game's summary (the winner and how,
every player's points and what they revealed), a pure function of its state, which the
live end screen shows and the host's past games derive from each record in the journal
(as the maze's summaries are: nothing is stored twice)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from babel.dates import format_date, format_time

from companion.games.crypt.board import squares_of
from companion.games.crypt.narration import WHY_ENDED
from companion.games.crypt.state import State as CryptState
from companion.games.lootnrun.engine import apply as lootnrun_apply
from companion.games.lootnrun.engine import new_game as lootnrun_new
from companion.games.lootnrun.history import Action
from companion.games.lootnrun.record import command_from_json as lootnrun_command
from companion.games.lootnrun.record import setup_from_json as lootnrun_setup
from companion.games.lootnrun.state import State as LootNRunState
from companion.games.mummy.words import colour_word
from companion.i18n import Msg, counted, joined, msg, word
from companion.i18n.message import Value
from companion.journal import Journal, StoredGame
from companion.service.crypt_service import CryptGame
from companion.service.registry import GAME_NAMES
from companion.service.replays import why_unreadable

Payload = dict[str, Any]


def side_games(journal: Journal, limit: int) -> list[Payload]:
    """The last ended games of Loot N Run and the crypt, newest first, in short."""
    games = []
    for kind, read in (("lootnrun", _lootnrun), ("crypt", _crypt)):
        for stored in journal.ended_games(kind, limit):
            try:
                summary = read(stored)
            except (KeyError, TypeError, ValueError) as exc:  # RecordError, RuleError
                games.append(unreadable_game(stored, exc))
                continue
            if summary is not None:
                games.append(
                    {"id": stored.id, "kind": kind, "game": word(GAME_NAMES[kind]), **summary}
                )
    return sorted(games, key=lambda g: -int(g["id"]))[:limit]


def named(journal: Journal, games: list[Payload], lang: str) -> list[Payload]:
    """Past games as a table names them: the game's number at this table (1 for its first
    game played, never counting the defaults set up at a start), the game, the day and
    time it ended in ``lang``, and who played (by rank where the game ranks them)."""
    facts = journal.table_numbers([int(g["id"]) for g in games])
    out = []
    for game in games:
        number, ended = facts.get(int(game["id"]), (int(game["id"]), None))
        players: list[Value] = [p["name"] for p in game.get("seekers") or game.get("players") or []]
        if game["kind"] == "mummy" and players:
            players.append(word("Mummy"))
        if isinstance(game.get("unreadable"), Msg):  # its reason names it by its number too
            game = {**game, "unreadable": renumbered(game["unreadable"], number)}
        out.append(
            {
                **game,
                "number": number,
                "when": when_ended(ended, lang),
                "who": joined(players) if players else None,
            }
        )
    return out


def renumbered(text: Msg, number: int) -> Msg:
    """``text`` naming its game by the table's ``number`` (``{game}``), not the journal's."""
    return Msg(text.id, tuple((k, number if k == "game" else v) for k, v in text.values))


def when_ended(ended: float | None, lang: str) -> str | None:
    """The day and time a game ended, as the language writes them ("Nov 28, 2026, 6:05
    PM", "28.11.2026, 18:05"), in the companion's local time."""
    if ended is None:
        return None
    at = datetime.fromtimestamp(ended)
    return f"{format_date(at, 'medium', locale=lang)}, {format_time(at, 'short', locale=lang)}"


def unreadable_game(stored: StoredGame, exc: Exception) -> Payload:
    """A past game whose record does not replay on this companion: listed with the
    reason (never left out without a word), its record still there to export."""
    return {
        "id": stored.id,
        "kind": stored.kind,
        "game": word(GAME_NAMES.get(stored.kind, stored.kind)),
        "unreadable": why_unreadable(stored, exc).message,
    }


def winner_words(names: list[Value], winners: tuple[int, ...] | list[int]) -> Msg:
    """Who won: one player, or those who share the win."""
    who = joined([names[w] for w in winners])
    if len(winners) > 1:
        return msg("{players} share the win.", players=who)
    return msg("{player} wins.", player=who)


def lootnrun_summary(state: LootNRunState) -> Payload | None:
    """The end screen of a Loot N Run game (None until it is over): the winner, the turns,
    who reached the target, the catches, and each player's points, Runs and the cards
    revealed at the end (what they held, known only once the game is over)."""
    if not state.is_over:
        return None
    names: list[Value] = [p.name for p in state.players]  # as the players wrote them
    history = state.history
    awakens = [e for e in history if e.action is Action.AWAKEN]
    caught = sum(1 for e in awakens if e.escaped is False)
    lines: list[Msg] = [counted(state.turn, "{n} turn played.", "{n} turns played.")]
    if state.ended_by is not None:
        lines.append(
            msg(
                "{player} reached {target} points first.",
                player=names[state.ended_by],
                target=state.target,
            )
        )
    lines.append(
        counted(
            len(awakens),
            "{n} Awaken, {caught} caught.",
            "{n} Awakens, {caught} caught.",
            caught=caught,
        )
    )
    players = []
    for i, name in enumerate(names):
        runs = [e for e in history if e.player == i and e.action is Action.RUN]
        reveal = next(
            (e for e in history if e.player == i and e.action is Action.FINAL_REVEAL), None
        )
        details = [
            counted(state.scores[i], "{n} point", "{n} points"),
            counted(len(runs), "{n} Run", "{n} Runs"),
        ]
        if reveal is not None:
            details.append(
                counted(
                    reveal.cards_revealed,
                    "Revealed at the end: {n} card, {points}",
                    "Revealed at the end: {n} cards, {points}",
                    points=counted(reveal.points, "{n} point", "{n} points"),
                )
            )
        players.append({"name": name, "winner": i in state.winners, "details": details})
    return {
        "winner": winner_words(names, state.winners),
        "lines": lines,
        "players": ranked(players, state.scores, state.winners),
    }


def ranked(players: list[Payload], scores: Any, winners: Any) -> list[Payload]:
    """The players by rank, each with their ``place`` (1 for the winners, then by points;
    equal points share a place), seating order among equals."""
    key = {i: (i not in winners, -scores[i]) for i in range(len(players))}
    order = sorted(range(len(players)), key=lambda i: key[i])
    return [{**players[i], "place": 1 + sum(1 for j in order if key[j] < key[i])} for i in order]


def crypt_summary(state: CryptState, computer: int | None, last: Msg | None) -> Payload | None:
    """The end screen of a crypt game (None until it is over): the winner, the moves, the
    last move (how it ended), and each player's points, locks and cubes."""
    if not state.is_over:
        return None
    setup = state.setup
    names: list[Value] = [
        msg("{colour} (computer)", colour=colour_word(setup.colours[p]))
        if p == computer
        else colour_word(setup.colours[p])
        for p in range(setup.players)
    ]
    lines: list[Msg] = [counted(state.ply, "{n} move played.", "{n} moves played.")]
    if last is not None:
        lines.append(msg("Last move: {move}", move=last))
    reason = state.end_reason
    if reason is not None and reason in WHY_ENDED:
        lines.append(word(WHY_ENDED[reason]))
    players = [
        {
            "name": names[p],
            "winner": p in state.winners,
            "details": [
                counted(state.score(p), "{n} point", "{n} points"),
                counted(state.locks_taken[p], "{n} lock", "{n} locks"),
                counted(
                    len(squares_of(state.cubes[p])),
                    "{n} cube left on the board",
                    "{n} cubes left on the board",
                ),
            ],
        }
        for p in range(setup.players)
    ]
    scores = [state.score(p) for p in range(setup.players)]
    return {
        "winner": winner_words(names, state.winners),
        "lines": lines,
        "players": ranked(players, scores, state.winners),
    }


def _lootnrun(stored: StoredGame) -> Payload | None:
    state = lootnrun_new(lootnrun_setup(stored.setup))[0]
    for data in stored.commands:
        state = lootnrun_apply(state, lootnrun_command(data))[0]
    return lootnrun_summary(state)


def _crypt(stored: StoredGame) -> Payload | None:
    game = CryptGame.replayed(stored.id, stored.setup, stored.commands)
    last = game.history[-1].text if game.history else None
    return crypt_summary(game.state, game.computer, last)
