"""``/favicon.ico``: the companion's icon (an amber mummy block on the maze's dark),
drawn as SVG so no binary file is kept; phones ask for it on every first visit."""

from __future__ import annotations

from flask import Blueprint, Flask, Response

bp = Blueprint("favicon", __name__)

ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="6" fill="#1b1712"/>'
    '<path d="M6 6h20v20H6z" fill="none" stroke="#e8d9b5" stroke-width="2"/>'
    '<rect x="10" y="10" width="12" height="12" rx="3" fill="#e0a040"/>'
    "</svg>"
)


@bp.get("/favicon.ico")
def icon() -> Response:
    response = Response(ICON, mimetype="image/svg+xml")
    response.cache_control.max_age = 86400
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
