"""Into the Crypt's words for the catalogs: the players' colours as names (the maze
game's words have the others)."""

from __future__ import annotations

from companion.i18n import N_

#: The crypt's colours beyond the maze game's figure and treasure colours.
COLOURS = (N_("Orange"),)
