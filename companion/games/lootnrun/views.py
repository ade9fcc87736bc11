"""JSON-safe dicts for the Loot N Run pages: the score track, history, chart, previews.

Everything sent to a phone goes through these functions; every value is a str, int,
bool, None, list or dict.  Loot N Run has no secret the companion knows (it never sees
the cards in hand), so one table view serves every phone.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from typing import Any

from companion.i18n import Msg, counted, joined, msg, word

from .cards import TREASURE_TYPE_NAMES, Guardian
from .engine import WEREWOLF_DRAW, awaken_targets, can_loot, can_run, can_undo, must_loot
from .events import Event
from .history import Action, Gain, HistoryEntry
from .scoring import AwakenOutcome, RunScore
from .state import Phase, State

View = dict[str, Any]


def table_view(state: State) -> View:
    """The whole score track: players, scores, whose turn, target, actions, history."""
    acting = state.phase in (Phase.PLAYING, Phase.WEREWOLF_KEEP)
    return {
        "game": "lootnrun",
        "phase": state.phase.value,
        "target": state.target,
        "turn": state.turn,
        "current": state.current if acting else None,
        "current_name": state.name(state.current) if acting else None,
        "extra_turn": state.extra_turn and acting,
        "players": [
            {
                "index": i,
                "name": p.name,
                "colour": p.colour,
                "score": state.scores[i],
                "cards": state.hands[i],
                "to_target": max(0, state.target - state.scores[i]),
                "is_current": acting and i == state.current,
                "revealed": state.revealed[i],
                "winner": i in state.winners,
            }
            for i, p in enumerate(state.players)
        ],
        "ended_by": state.ended_by,
        "winners": list(state.winners),
        "winner_names": [state.name(i) for i in state.winners],
        "actions": actions_view(state),
        "history": history_view(state),
        "chart": chart_view(state),
    }


def actions_view(state: State) -> View:
    """What may be entered now, so a page shows only the buttons that will be accepted.

    ``awaken`` lists the players who may be awakened; ``werewolf_keep`` the possible
    answers; ``final_reveal`` the players still to reveal.  Corrections are open until
    the game is over (then the companion accepts nothing but the host's undo).
    """
    return {
        "loot": can_loot(state),
        "must_loot": must_loot(state),
        "run": can_run(state),
        "awaken": list(awaken_targets(state)),
        "werewolf_keep": list(range(WEREWOLF_DRAW + 1))
        if state.phase is Phase.WEREWOLF_KEEP
        else [],
        "final_reveal": [i for i, done in enumerate(state.revealed) if not done]
        if state.phase is Phase.FINAL_REVEAL
        else [],
        "correction": not state.is_over,  # nothing is entered after the end
        "undo": can_undo(state),
    }


def history_view(state: State) -> list[View]:
    """Every action, oldest first, with its points and a sentence for the page."""
    return [entry_view(state, e) for e in state.history]


def entry_view(state: State, entry: HistoryEntry) -> View:
    return {
        "index": entry.index,
        "turn": entry.turn,
        "player": entry.player,
        "name": state.name(entry.player),
        "action": entry.action.value,
        "points": entry.points,
        "points_by_player": [entry.points_for(p) for p in range(len(state.players))],
        "gains": [_gain(g) for g in entry.gains],
        "scores": list(entry.scores),
        "extra_turn": entry.extra_turn,
        "cards_after": entry.cards_after,
        "cards_revealed": entry.cards_revealed,
        "target": entry.target,
        "amulets": entry.amulets,
        "guardians": entry.guardians,
        "escaped": entry.escaped,
        "benefits": [g.value for g in entry.benefits],
        "kept": entry.kept,
        "reason": entry.reason,
        "cards_set": entry.cards_set,
        "ended_game": entry.ended_game,
        "text": describe(state, entry),
    }


def chart_view(state: State) -> View:
    """Scores over turns: a point at the start, after each turn, and after the reveal.

    Each point holds every player's score; corrections count in the turn they were
    made in, and everything after the end (reveals, late corrections) in ``final``.
    """
    by_turn: dict[int, tuple[int, ...]] = {0: tuple(0 for _ in state.players)}
    final: tuple[int, ...] | None = None
    ended = False
    for e in state.history:
        if ended:
            final = e.scores
        else:
            by_turn[e.turn] = e.scores
            ended = e.ended_game
    points: list[View] = [
        {"turn": t, "label": msg("start") if t == 0 else msg("turn {n}", n=t), "scores": list(s)}
        for t, s in by_turn.items()
    ]
    if final is not None:
        points.append({"turn": None, "label": msg("final reveal"), "scores": list(final)})
    return {
        "players": [p.name for p in state.players],
        "colours": [p.colour for p in state.players],
        "target": state.target,
        "points": points,
    }


def run_view(run: RunScore) -> View:
    """A Run's arithmetic, type by type (also for live previews while entering cards)."""
    return {
        "cards": run.cards,
        "symbols": run.symbols,
        "points": run.points,
        "doubled_types": list(run.doubled_types),
        "types": [
            {
                "type": t.treasure_type,
                "name": word(TREASURE_TYPE_NAMES[t.treasure_type - 1]),
                "symbols": t.symbols,
                "cards": t.cards,
                "doubled": t.doubled,
                "points": t.points,
            }
            for t in run.types
        ],
    }


def outcome_view(outcome: AwakenOutcome) -> View:
    """What an Awaken with these cards would lead to (a preview before sending it)."""
    return {
        "amulets": outcome.amulets,
        "guardians": outcome.guardians,
        "escaped": outcome.escaped,
        "guardian_types": [g.value for g in outcome.guardian_types],
        "benefits": [g.value for g in outcome.benefits],
        "run": run_view(outcome.run),
    }


def events_view(events: Iterable[Event]) -> list[View]:
    """Events as dicts: ``{"kind": ..., <fields>}``."""
    return [
        {"kind": e.kind, **{f.name: _json(getattr(e, f.name)) for f in fields(e)}} for e in events
    ]


def describe(state: State, entry: HistoryEntry) -> Msg:
    """One sentence for a history entry, in player words."""
    name = state.name(entry.player)
    text = _DESCRIBE[entry.action](state, entry, name)
    if entry.extra_turn and entry.action is not Action.CORRECTION:
        text = msg("Extra turn: {text}", text=text)
    if entry.ended_game and state.ended_by is not None:
        text = msg(
            "{text} {name} reached {target} points: everyone reveals their remaining cards.",
            text=text,
            name=state.name(state.ended_by),
            target=state.target,
        )
    return text


def _cards(n: int) -> Msg:
    return counted(n, "{n} card", "{n} cards")


def _points(n: int) -> Msg:
    return counted(n, "{n} point", "{n} points")


def _loot(state: State, e: HistoryEntry, name: str) -> Msg:
    return msg(
        "{name} looted a card ({cards} in front of them).", name=name, cards=_cards(e.cards_after)
    )


def _scored(e: HistoryEntry) -> Msg:
    """ "5 points", or "7 points (type 2 doubled)"."""
    run = e.gains[0].run if e.gains else None
    if run is None or not run.doubled_types:
        return _points(e.points)
    names = joined([word(TREASURE_TYPE_NAMES[t - 1]) for t in run.doubled_types])
    return msg("{points} ({types} doubled)", points=_points(e.points), types=names)


def _run(state: State, e: HistoryEntry, name: str) -> Msg:
    return msg(
        "{name} ran with {cards}: {points}.",
        name=name,
        cards=_cards(e.cards_revealed),
        points=_scored(e),
    )


def _awaken(state: State, e: HistoryEntry, name: str) -> Msg:
    them = state.name(e.target) if e.target is not None else "?"
    text = msg(
        "{name} awakened {them}: {amulets}, {guardians}.",
        name=name,
        them=them,
        amulets=counted(e.amulets, "{n} amulet", "{n} amulets"),
        guardians=counted(e.guardians, "{n} guardian", "{n} guardians"),
    )
    if e.escaped:
        return msg("{text} {them} escaped with {points}.", text=text, them=them, points=_scored(e))
    text = msg("{text} {them} was caught and discards everything.", text=text, them=them)
    for b in e.benefits:
        if b is Guardian.MUMMY:
            more = msg("Mummy: {name} scores {points}.", name=name, points=_scored(e))
        elif b is Guardian.WEREWOLF:
            more = msg("Werewolf: {name} draws a card from each pile.", name=name)
        else:
            more = msg("Frank: {name} plays one extra turn.", name=name)
        text = msg("{a} {b}", a=text, b=more)
    return text


def _keep(state: State, e: HistoryEntry, name: str) -> Msg:
    return msg(
        "{name} kept {kept} of the {drawn} Werewolf cards.",
        name=name,
        kept=e.kept or 0,
        drawn=WEREWOLF_DRAW,
    )


def _correction(state: State, e: HistoryEntry, name: str) -> Msg:
    parts: list[Msg] = []
    if e.points:
        parts.append(
            counted(
                abs(e.points),
                "{sign}{n} point",
                "{sign}{n} points",
                sign="+" if e.points > 0 else "-",
            )
        )
    if e.cards_set is not None:
        parts.append(msg("card count set to {n}", n=e.cards_set))
    return msg(
        "Correction for {name}: {changes} ({reason}).",
        name=name,
        changes=joined(parts),
        reason=e.reason,
    )


def _reveal(state: State, e: HistoryEntry, name: str) -> Msg:
    return msg(
        "{name} revealed {cards}: {points}.",
        name=name,
        cards=_cards(e.cards_revealed),
        points=_scored(e),
    )


_DESCRIBE = {
    Action.LOOT: _loot,
    Action.RUN: _run,
    Action.AWAKEN: _awaken,
    Action.WEREWOLF_KEEP: _keep,
    Action.CORRECTION: _correction,
    Action.FINAL_REVEAL: _reveal,
}


def _gain(g: Gain) -> View:
    return {
        "player": g.player,
        "points": g.points,
        "reason": g.reason.value,
        "run": None if g.run is None else run_view(g.run),
    }


def _json(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, RunScore):
        return run_view(value)
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json(getattr(value, f.name)) for f in fields(value)}
    return value
