"""Names that players and files give (a player, a maze, a treasure): shown among other
words on every page, so a name holds no control character and no character that turns
the direction of the text around it (U+202E would reverse "Red on D4" after it)."""

from __future__ import annotations

import unicodedata

#: Characters that change the direction of the text around them.
DIRECTION_MARKS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
#: The longest name of a maze or a treasure in a maze file (a phone's header holds it).
MAX_MAZE_NAME = 60


def unfit_character(text: str) -> str | None:
    """The first control or direction character in ``text`` as ``U+XXXX`` (None: none)."""
    for c in text:
        if c in DIRECTION_MARKS or unicodedata.category(c) == "Cc":
            return f"U+{ord(c):04X}"
    return None
