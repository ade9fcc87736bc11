"""After a side game's end (Loot N Run, the crypt): nothing more is accepted, except the
host's undo of the winning action, confirmed by the key that names it.

The maze's service has the same rule with its own keys (``mummy_service``: its commands
after the end are refused by ``check_open`` too); these functions are what the loops
check, inside the loop, so the state a check reads is the state the command would
change.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .loop import ServiceError


def action_key(game_id: int | None, count: int, last: Any) -> str:
    """Names a game's last action as it stands: the game, how many commands it took and
    the last one (its JSON form), so an undo followed by another entry gets a new key."""
    digest = hashlib.sha256(json.dumps(last, sort_keys=True).encode()).hexdigest()[:8]
    return f"{game_id}-{count}-{digest}"


def check_open(over: bool) -> None:
    """Refuse a command, in player words, once the game is over."""
    if over:
        raise ServiceError(
            "The game is over: nothing more can be entered. The host may undo the winning "
            "action or start a rematch."
        )


def check_undo(*, over: bool, host: bool, confirmed: str | None, key: str) -> None:
    """Refuse an undo the game does not allow now: after the end only the host's, of
    the action the host confirmed (``confirmed``: the key its page showed); before, any
    seat's, but not of another action than the one its page named."""
    if over and not host:
        raise ServiceError("The game is over: only the host may undo the winning action.")
    if over and confirmed is None:
        raise ServiceError(
            "The game is over: the host undoes the winning action on the end screen, "
            "which names it."
        )
    if confirmed is not None and confirmed != key:
        raise ServiceError(
            "The game changed in the meantime: look at the page again before you undo."
        )
