"""``GET /healthz``: 200 with a small JSON status once the service is ready."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from .context import hub, service

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> ResponseReturnValue:
    games = hub()
    return jsonify(games.status() if games is not None else service().status())
