"""The one error of the Loot N Run engine."""

from __future__ import annotations

from companion.i18n import MessageError


class RuleError(MessageError):
    """A command the rules (or the companion's knowledge of the game) do not allow.

    The message says why in words a player understands, so a page can show it as is.
    """
