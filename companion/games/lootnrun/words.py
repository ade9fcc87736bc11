"""Loot N Run's words for the catalogs: the token colours beyond the other games'."""

from __future__ import annotations

from companion.i18n import N_

COLOURS = (N_("Purple"), N_("Pink"), N_("Black"))
