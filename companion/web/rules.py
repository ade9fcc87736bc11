"""``/rules/<game>``: each game's rules in the page's language, written from the rules
the engines implement, with the options the host chose for the running maze game.

Open to every device (the rules hide nothing); the host's options are not secret
either: every player at the table agreed to them."""

from __future__ import annotations

from flask import Blueprint, Flask, abort, current_app, render_template
from flask.typing import ResponseReturnValue

from companion.service.registry import GAME_NAMES

bp = Blueprint("rules", __name__, url_prefix="/rules")

#: The rules pages, by the game's key in the registry.
PAGES = {"mummy": "rules_maze.html", "lootnrun": "rules_lootnrun.html", "crypt": "rules_crypt.html"}


@bp.get("/<game>")
def page(game: str) -> ResponseReturnValue:
    template = PAGES.get(game)
    if template is None:
        abort(404)
    return render_template(template, game=GAME_NAMES[game], options=_maze_options())


def _maze_options() -> dict[str, object] | None:
    """The host's choices for the maze game now set up (None: no game set up yet)."""
    store = current_app.extensions.get("companion.seats")
    table = getattr(store, "table", None)
    if table is None:
        return None
    options = table.to_json()["options"]
    service = current_app.extensions["companion.service"]
    faces = service.game.current.setup.options.mummy_die_faces
    options["mummy_die"] = ", ".join(str(f) for f in sorted(set(faces)))
    return dict(options)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
