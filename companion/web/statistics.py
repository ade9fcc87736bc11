"""The statistics page: wins by role, seekers, maze and computer level, the average
length, where the mummy catches (a heat map), and wins by player name; the host names
a game's players and merges or removes names.  Short views around
``service.statistics`` (the facts) and ``games.statistics`` (the figures)."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from companion.games.mummy.words import LEVELS as LEVEL_WORDS
from companion.games.mummy.words import colour_word, place_word
from companion.games.statistics import LEVELS, catches_on, statistics
from companion.i18n import N_, Msg, counted, joined, msg, word
from companion.journal import StoredGame
from companion.service.player_names import NameRefused, PlayerNames, names_path
from companion.service.registry import GAME_NAMES
from companion.service.statistics import gather, seats_of

from . import doors
from .charts import heat_map, name_bars, win_bars
from .context import service
from .language import text_of

bp = Blueprint("statistics", __name__)

#: How many of the cells where the mummy caught most the page lists in words.
MOST_CAUGHT = 10

#: The computer levels by name ("person": a person played the mummy).
LEVEL_NAMES = {
    "person": N_("a person"),
    "easy": LEVEL_WORDS[0],
    "normal": LEVEL_WORDS[1],
    "hard": LEVEL_WORDS[2],
    "unknown": N_("not recorded"),
}


def init_app(app: Flask) -> None:
    svc = app.extensions["companion.service"]
    app.extensions["companion.player_names"] = PlayerNames(names_path(str(svc.journal.path)))
    app.register_blueprint(bp)


def names() -> PlayerNames:
    store: PlayerNames = current_app.extensions["companion.player_names"]
    return store


def caught_words(place: str, n: int) -> str:
    """How often the mummy caught a figure on a place: "C7: 2 catches"."""
    return _t(counted(n, "{cell}: {n} catch", "{cell}: {n} catches", cell=place))


def _t(text: str | Msg) -> str:
    return text_of(word(text) if isinstance(text, str) else text)


@bp.get("/stats")
def page() -> ResponseReturnValue:
    """The statistics of every finished game in the journal."""
    doors.need("replay", "look")
    store = names()
    gathered = gather(service().journal, store)
    stats = statistics(gathered.facts, store.merged, store.removed)
    maze = service().maze
    mummy, seekers = _t(N_("The mummy wins")), _t(N_("The seekers win"))
    seeker_words = {
        t.group: counted(int(t.group), "{n} seeker", "{n} seekers") for t in stats.by_seekers
    }
    caught = catches_on(gathered.facts, maze.name)
    most = sorted(caught.items(), key=lambda item: (-item[1], item[0]))[:MOST_CAUGHT]
    most_caught = [caught_words(_t(place_word(maze, node)), n) for node, n in most]
    charts = {
        "role": win_bars(
            _t(N_("Wins by role")), [(_t(N_("All games")), stats.by_role)], mummy, seekers
        ),
        "seekers": win_bars(
            _t(N_("Wins by number of seekers")),
            [(_t(seeker_words[t.group]), t) for t in stats.by_seekers],
            mummy,
            seekers,
        ),
        "maze": win_bars(
            _t(N_("Wins by maze")), [(t.group, t) for t in stats.by_maze], mummy, seekers
        ),
        "level": win_bars(
            _t(N_("Wins by who played the mummy")),
            [(_t(LEVEL_NAMES.get(t.group, t.group)), t) for t in stats.by_level],
            mummy,
            seekers,
        ),
        "heat": heat_map(
            _t(msg("Where the mummy catches most on the maze {maze}", maze=maze.name)),
            maze,
            {node: n for node, n in caught.items() if maze.is_cell(node)},
            caught_words,
            {_t(place_word(maze, node)): n for node, n in caught.items() if not maze.is_cell(node)},
        ),
        "names": name_bars(
            _t(N_("Wins by player name")), stats.by_name, _t(N_("won")), _t(N_("played"))
        )
        if stats.by_name
        else None,
    }
    return render_template(
        "statistics.html",
        stats=stats,
        charts=charts,
        levels=LEVELS,
        level_names=LEVEL_NAMES,
        seeker_words=seeker_words,
        most_caught=most_caught,
        unreadable=gathered.unreadable,
        host=doors.is_host(),
        names=store,
    )


@bp.get("/stats/game/<int:game_id>")
def game_names(game_id: int) -> ResponseReturnValue:
    """The host names the players of one game."""
    doors.need("host", "act")
    stored = _stored(game_id)
    return render_template(
        "statistics_names.html",
        game=_number(game_id),
        game_name=word(GAME_NAMES.get(stored.kind, stored.kind)),
        seats=_labelled(stored),
        given=names().of_game(game_id),
        error=None,
    )


def _number(game_id: int) -> int:
    """The game's number at the table, as the past games name it."""
    return service().journal.table_numbers([game_id]).get(game_id, (game_id, None))[0]


@bp.post("/stats/game/<int:game_id>")
def set_game_names(game_id: int) -> ResponseReturnValue:
    doors.need("host", "act")
    stored = _stored(game_id)
    seats = _labelled(stored)
    given = {seat: request.form.get(seat, "") for seat, _ in seats}
    try:
        names().name_seats(game_id, given)
    except NameRefused as exc:
        return render_template(
            "statistics_names.html",
            game=_number(game_id),
            game_name=word(GAME_NAMES.get(stored.kind, stored.kind)),
            seats=seats,
            given=given,
            error=exc.message,
        ), 400
    return redirect(url_for("statistics.page"), code=303)


@bp.post("/stats/names")
def change_names() -> ResponseReturnValue:
    """Merge a name into another, remove a name, or take either back."""
    doors.need("host", "act")
    store = names()
    what = request.form.get("do", "")
    name = request.form.get("name", "")
    try:
        if what == "merge":
            store.merge(name, request.form.get("into", ""))
        elif what == "remove":
            store.remove(name)
        elif what == "restore":
            store.restore(name)
        else:
            raise NameRefused(msg("Choose to merge, remove or restore a name."))
    except NameRefused as exc:
        doors.refuse(text_of(exc.message), 400)
    return redirect(url_for("statistics.page"), code=303)


def _stored(game_id: int) -> StoredGame:
    try:
        return service().journal.load(game_id)
    except KeyError:
        doors.refuse(text_of(msg("There is no game {game} in the journal.", game=game_id)), 404)


def _labelled(stored: StoredGame) -> list[tuple[str, Msg]]:
    """A game's seats with their names on the page ("Seeker Red", "Player 2")."""
    out: list[tuple[str, Msg]] = []
    for seat in seats_of(stored.setup, stored.kind):
        if seat == "mummy":
            out.append((seat, word(N_("Mummy"))))
        elif seat.startswith("seeker"):
            colours = stored.setup["seekers"][int(seat.removeprefix("seeker"))]
            out.append((seat, msg("Seeker {name}", name=joined([colour_word(c) for c in colours]))))
        else:
            out.append((seat, msg("Player {n}", n=int(seat.removeprefix("player")) + 1)))
    return out
