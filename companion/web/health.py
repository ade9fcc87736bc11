"""``GET /healthz``: 200 with ``{"status": "ok"}`` once the service is ready; the
details (the game, the board, versions) only to the host, and not to the host's device
while it holds the mummy's seat: to anyone else they would tell when a figure moves or
stands wrong."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from companion.table.doors import may_see_health_details

from .context import hub, service
from .doors import current_seat, is_host

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> ResponseReturnValue:
    games = hub()
    status = games.status() if games is not None else service().status()
    if not may_see_health_details(current_seat(), is_host()):
        status = {"status": status.get("status", "ok")}
    return jsonify(status)
