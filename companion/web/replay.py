"""Finished games: the replay page, its data, the one-file export, and the statistics.

Short views: the door (``doors.need("replay")``: the host and every seat), the game
replayed from the journal (``service.replays``: a game that is not over is refused in
words, at every one of these doors), the frames as JSON (``replay_payloads``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from companion.games.mummy.words import colour_word
from companion.i18n import Msg, msg
from companion.i18n.catalog import LANGUAGES, localize
from companion.journal import JournalWriteError
from companion.service.replays import (
    FinishedCrypt,
    FinishedLootNRun,
    FinishedMaze,
    ReplayRefused,
    finished,
)

from . import doors
from .context import service
from .contract import endpoint
from .language import current_language, text_of
from .payloads import Payload
from .replay_payloads import crypt_replay, lootnrun_replay, maze_replay, replay_title

bp = Blueprint("replay", __name__)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    from . import statistics

    statistics.init_app(app)


def _refuse(message: Msg | str, status: int) -> NoReturn:
    doors.refuse(text_of(message), status)


def replay_data(game_id: int) -> Payload:
    """The frames of finished game ``game_id`` (messages, not yet in a language); the
    request ends in 403/404/409 with the reason in words otherwise."""
    doors.need("replay", "look")
    try:
        game = finished(service().journal, game_id)
    except KeyError:
        _refuse(msg("There is no game {game} in the journal.", game=game_id), 404)
    except ReplayRefused as exc:
        _refuse(exc.message, 409)
    except JournalWriteError as exc:  # the journal cannot be read now
        _refuse(exc.message, 503)
    if isinstance(game, FinishedMaze):
        data = maze_replay(game.id, game.setup, game.commands, game.replay, game.aid)
        kind = "mummy"
    elif isinstance(game, FinishedLootNRun):
        data, kind = lootnrun_replay(game.id, game.state), "lootnrun"
    else:
        assert isinstance(game, FinishedCrypt)
        names: list[Msg] = [
            msg("{colour} (computer)", colour=colour_word(c))
            if p == game.computer
            else colour_word(c)
            for p, c in enumerate(game.states[0].setup.colours)
        ]
        data = crypt_replay(game.id, list(game.states), list(game.said), names)
        kind = "crypt"
    # Named as the past games name it: its number at the table, not the journal's row.
    number = service().journal.table_numbers([game.id]).get(game.id, (game.id, None))[0]
    return {**data, "title": replay_title(kind, number)}


def _embedded(data: Payload, lang: str) -> str:
    """The frames as JSON text safe inside a ``<script>`` element."""
    text = json.dumps(localize(data, lang), ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


@bp.get("/replay/<int:game_id>")
def page(game_id: int) -> ResponseReturnValue:
    """The replay of a finished game, for every seat and the host."""
    data = replay_data(game_id)
    lang = current_language()
    return render_template(
        "replay.html", data=_embedded(data, lang), title=localize(data["title"], lang), game=game_id
    )


@bp.get("/api/replay/<int:game_id>")
@endpoint(
    "A finished game's replay: every moment, the reveal and what each seat knew (refused, "
    "in words, for a game that is not over).",
    errors=(403, 404, 409, 503),
)
def api(game_id: int) -> ResponseReturnValue:
    """The replay's data as JSON (the viewer's; refused like the page)."""
    return jsonify(localize(replay_data(game_id), current_language()))


@bp.get("/replay/<int:game_id>/file")
def export(game_id: int) -> ResponseReturnValue:
    """The replay as one self-contained HTML file (its viewer, its style and the game's
    data inline; it loads nothing), in the language asked for (``?lang=de``)."""
    data = replay_data(game_id)
    lang = request.args.get("lang", "")
    lang = lang if lang in LANGUAGES else current_language()
    html = render_template(
        "replay_file.html",
        data=_embedded(data, lang),
        title=localize(data["title"], lang),
        offline=localize(data["labels"]["offline"], lang),
        file_lang=lang,
        style=_static("replay.css"),
        scripts=[_static("maze.js"), _static("replay.js")],
    )
    return Response(
        html,
        mimetype="text/html",
        headers={
            "Content-Disposition": f'attachment; filename="pyramid-game-{game_id}-{lang}.html"'
        },
    )


def _static(name: str) -> str:
    folder = current_app.static_folder
    assert folder is not None
    return (Path(folder) / name).read_text(encoding="utf-8")
