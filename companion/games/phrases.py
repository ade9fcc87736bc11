"""Sentences every game's rules say alike."""

from __future__ import annotations

from companion.i18n import Msg, msg, word


def not_now(action: str, why: str) -> Msg:
    """ "You cannot roll now: the mummy is moving." (``action``, ``why``: catalog words)."""
    return msg("You cannot {action} now: {why}.", action=word(action), why=word(why))
