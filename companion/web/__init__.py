"""The web layer: Flask pages and JSON for phones, the table and the simulator.

Views are short: parse the request, call the service, return a view.  Nothing here
touches the game state; everything sent to a phone goes through a role's view.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from flask import Flask

from companion.service.mummy_service import Service

#: Areas of the site in modules of their own; each has ``init_app(app)``.
OPTIONAL_AREAS = (
    "companion.web.pages",  # the mummy game's host, mummy, seeker and table pages
    "companion.web.lootnrun",  # the Loot N Run score track
    "companion.web.crypt",  # Into the Crypt
    "companion.web.boardcheck",  # the host's guided board check
    "companion.web.replay",  # finished games: their replay and export, the statistics
)


def create_app(
    service: Service, *, secret_key: bytes, appliance: Any = None, testing: bool = False
) -> Flask:
    """The Flask app for one running service (``appliance`` adds the /sim page in mock mode)."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key,
        TESTING=testing,
        JSON_SORT_KEYS=False,
    )
    app.extensions["companion.service"] = service
    app.extensions["companion.appliance"] = appliance

    from . import (
        assets,
        contract,
        doors,
        favicon,
        health,
        language,
        live,
        once,
        remote,
        rules,
        session,
        sim,
        storage,
    )

    assets.init_app(app)
    session.init_app(app)
    language.init_app(app)
    favicon.init_app(app)
    rules.init_app(app)
    once.init_app(app)
    remote.init_app(app)  # the tunnel's gate first: it opens only the remote seat's doors
    doors.init_app(app)
    contract.init_app(app)
    live.init_app(app)
    storage.init_app(app)
    app.register_blueprint(health.bp)
    if appliance is not None and getattr(appliance, "mock_board", None) is not None:
        app.register_blueprint(sim.bp)
    for name in OPTIONAL_AREAS:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name).init_app(app)
    return app
