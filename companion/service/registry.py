"""The games besides the mummy maze that the appliance runs, found by module name.

Each module names a factory ``make_service(*, journal, config, quiet_s) -> GameService``
(see ``companion.table.hub.GameService``); a game whose module is not installed is simply absent.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

from companion.i18n import N_

GAME_MODULES = {
    "lootnrun": "companion.service.lootnrun_service",
    "crypt": "companion.service.crypt_service",
    "boardcheck": "companion.service.boardcheck_service",
}

#: Every game the board can play, as the pages name it in a sentence.
GAME_NAMES = {
    "mummy": N_("the mummy maze"),
    "lootnrun": N_("Loot N Run"),
    "crypt": N_("Into the Crypt"),
    "boardcheck": N_("the board check"),
}


def game_factories() -> dict[str, Callable[..., Any]]:
    factories = {}
    for kind, name in GAME_MODULES.items():
        if importlib.util.find_spec(name) is not None:
            factories[kind] = importlib.import_module(name).make_service
    return factories
