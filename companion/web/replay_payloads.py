"""What the replay viewer reads: a finished game's frames as JSON (pure functions).

The same data serves the replay page and the one-file export: every word is a message
(rendered in the reader's language by ``localize``), every label the viewer shows is
in ``labels``, so the viewer needs no catalog of its own.  No seed and no command is in
it: only what the table saw, moment by moment, and what each seat knew.
"""

from __future__ import annotations

from typing import Any

from companion.games.crypt.views import board_view as crypt_board
from companion.games.crypt.views import table_view as crypt_table
from companion.games.lootnrun.views import describe as lootnrun_describe
from companion.games.mummy.replay import TRUTH, Replay, place_xy, seat_rules, seats
from companion.games.mummy.summary import summarize
from companion.games.mummy.views import maze_view
from companion.games.mummy.words import colour_word, place_word, treasure_word
from companion.i18n import N_, Msg, msg, word
from companion.service.registry import GAME_NAMES

from .payloads import event_json, said_events, seeker_names, summary_json

Payload = dict[str, Any]

#: The viewer's labels (the page's and the exported file's), in the reader's language.
LABELS = {
    "start": N_("Start"),
    "back": N_("Back"),
    "forward": N_("Forward"),
    "end": N_("End"),
    "play": N_("Play"),
    "pause": N_("Pause"),
    "moment": N_("Moment"),
    "view": N_("Seen by"),
    "reveal": N_("The reveal"),
    "path": N_("The mummy's whole path"),
    "catches": N_("Catches"),
    "no_catch": N_("The mummy caught nobody."),
    "said": N_("What happened"),
    "nothing_said": N_("Nothing was announced."),
    "hands": N_("Cards in hand"),
    "played": N_("Cards played"),
    "hidden": N_("not known to this seat"),
    "dice": N_("Dice"),
    "announced": N_("Announced"),
    "ankhs": N_("Ankhs"),
    "mummy_ankhs": N_("The mummy's ankhs"),
    "aid": N_("The deduction aid (what the mummy's page showed)"),
    "aid_cells": N_("{colour}: {n} cells possible"),
    "aid_start": N_("perhaps still on the start field"),
    "round": N_("Round {n}"),
    "real": N_("where it really stood"),
    "figures_hidden": N_("The mummy never saw the seekers' figures."),
    "mummy": N_("Mummy"),
    "scores": N_("Scores"),
    "track": N_("The score track over time"),
    "turn": N_("Turn"),
    "cubes": N_("cubes"),
    "locks": N_("Locks"),
    "meeple": N_("meeple"),
    "open_game": N_(
        "Every seat saw the same in this game: each view shows what the whole table knew."
    ),
    "offline": N_("Saved from the pyramid companion: this file works without a network."),
    "of": N_("{n} of {total}"),
}


def labels() -> dict[str, Msg]:
    return {key: word(text) for key, text in LABELS.items()}


def replay_title(kind: str, number: int) -> Msg:
    """A replay's title: the game's number at the table (``Journal.table_numbers``)."""
    return msg("Game {game}: {name}", game=number, name=word(GAME_NAMES[kind]))


def _seat_label(setup: Any, seat: str) -> Msg:
    if seat == TRUTH:
        return msg("The truth (everything)")
    if seat == "mummy":
        return word(N_("Mummy"))
    if seat == "table":
        return word(N_("Table screen"))
    index = int(seat.removeprefix("seeker"))
    return msg("Seeker {name}", name=seeker_names(setup)[index])


def maze_replay(game_id: int, setup: Any, commands: Any, played: Replay, aid: bool) -> Payload:
    """A finished maze game: the maze, the reveal and every frame, for the viewer."""
    maze = setup.maze
    summary = summarize(setup, commands)
    assert summary is not None  # ``replay`` refused a game that is not over
    treasures = {t.cell: t for t in maze.treasures}
    rooms = {
        str(node): list(xy)
        for node in (maze.start_node, maze.sarcophagus_node)
        if (xy := place_xy(maze, node)) is not None
    }
    frames = []
    for frame in played.frames:
        state = frame.state
        said = []
        for event in said_events(list(frame.events)):
            data = event_json(event, setup, "table")
            said.append({"text": data["text"], "secret": event.secret_from_mummy})
        frames.append(
            {
                "said": said,
                "mummy": state.mummy,
                "positions": list(state.positions),
                "roll": [f.label for f in state.roll],
                "announced": state.announced.label if state.announced else None,
                "dice_out": state.dice_out,
                "ankhs": list(state.ankhs),
                "mummy_ankhs": state.mummy_ankhs,
                "hands": [[t.cell for t in hand] for hand in state.hands],
                "played": [[t.cell for t in hand] for hand in state.played],
                "walked": frame.walked,
                "round": state.rounds + 1,
                "aid": list(frame.aid) if frame.aid is not None else None,
            }
        )
    catches = [
        {
            "frame": c.frame,
            "at": c.at,
            "colour": setup.figures[c.figure].value,
            "text": msg(
                "{colour} caught on {cell}",
                colour=colour_word(setup.figures[c.figure]),
                cell=place_word(maze, c.at),
            ),
        }
        for c in played.catches
    ]
    return {
        "kind": "mummy",
        "game": game_id,
        "title": replay_title("mummy", game_id),
        "labels": labels(),
        "maze": maze_view(maze),
        "rooms": rooms,
        "names": seeker_names(setup),
        "figures": [
            {"colour": c.value, "name": colour_word(c), "seeker": setup.figure_owner[f]}
            for f, c in enumerate(setup.figures)
        ],
        "treasures": {
            str(cell): {"name": treasure_word(t), "colour": t.colour.value}
            for cell, t in treasures.items()
        },
        "cells": [place_word(maze, n) for n in range(maze.cell_count + 2)],
        "seats": [
            {"key": seat, "label": _seat_label(setup, seat), **seat_rules(setup, seat)}
            for seat in seats(setup)
        ],
        "aid": aid,
        "path": list(played.path),
        "catches": catches,
        "summary": summary_json(setup, summary),
        "frames": frames,
    }


def lootnrun_replay(game_id: int, state: Any) -> Payload:
    """A finished Loot N Run game: the score track after every action."""
    players = [{"name": p.name, "colour": p.colour} for p in state.players]
    frames = [
        {
            "said": [
                {
                    "text": msg(
                        "{players} sit down to play.",
                        players=", ".join(p.name for p in state.players),
                    ),
                    "secret": False,
                }
            ],
            "scores": [0] * len(players),
            "cards": [0] * len(players),
            "turn": 1,
            "player": None,
        }
    ]
    cards = [0] * len(players)
    for entry in state.history:
        cards[entry.player] = entry.cards_after
        frames.append(
            {
                "said": [{"text": lootnrun_describe(state, entry), "secret": False}],
                "scores": list(entry.scores),
                "cards": list(cards),
                "turn": entry.turn,
                "player": entry.player,
            }
        )
    return {
        "kind": "lootnrun",
        "game": game_id,
        "title": replay_title("lootnrun", game_id),
        "labels": labels(),
        "players": players,
        "target": state.target,
        "seats": [{"key": TRUTH, "label": msg("The whole table")}],
        "frames": frames,
    }


def crypt_replay(game_id: int, states: list[Any], said: list[Msg], names: list[Msg]) -> Payload:
    """A finished crypt game: the board after every move (``states``: the start, then
    one per command; ``said``: each command in words)."""
    frames = []
    for index, state in enumerate(states):
        view = crypt_table(state)
        frames.append(
            {
                "said": [] if index == 0 else [{"text": said[index - 1], "secret": False}],
                "players": [
                    {
                        "meeple": p["meeple"],
                        "cubes": p["cubes_on_board"],
                        "score": p["score"],
                        "locks": p["locks"],
                    }
                    for p in view["players"]
                ],
                "locks": view["locks"],
                "chamber": view["chamber"],
                "ply": view["ply"],
            }
        )
    setup = states[0].setup
    return {
        "kind": "crypt",
        "game": game_id,
        "title": replay_title("crypt", game_id),
        "labels": labels(),
        "board": crypt_board(),
        "players": [{"colour": c, "name": names[p]} for p, c in enumerate(setup.colours)],
        "seats": [{"key": TRUTH, "label": msg("The whole table")}],
        "frames": frames,
    }
