"""The end of Loot N Run and Into the Crypt: each game's summary (the winner and how,
every player's points and what they revealed), a pure function of its state, which the
live end screen shows and the host's past games derive from each record in the journal
(as the maze's summaries are: nothing is stored twice)."""

from __future__ import annotations

from typing import Any

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
