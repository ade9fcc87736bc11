"""Each treasure's own symbol, by name: the same on the pages and the printed maze.

A treasure is found a drawn symbol by a word of its name ("scarab", "sun disk"), first
match wins and none is used twice; a treasure whose name matches none (a custom maze)
gets an abstract one (a ring of 2, 3, ... dots, then a polygon) never used before, so
every symbol on a maze is its own.  ``companion.hardware.icons`` draws them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .maze import Maze, Treasure

#: The drawn symbols, by the word of a treasure's name that finds them (in this order).
WORDS = (
    "scarab",
    "sun disk",
    "crown",
    "amulet",
    "obelisk",
    "canopic",
    "hippo",
    "lotus",
    "necklace",
    "flask",
    "scroll",
    "vase",
    "ibis",
    "shroud",
    "feather",
    "eye",
    "palette",
    "cobra",
    "sceptre",
    "mask",
    "barque",
    "falcon",
    "crook",
)


def drawn(word: str) -> str:
    """The symbol's name for a word of ``WORDS``: ``"sun-disk"``."""
    return word.replace(" ", "-")


def abstract(index: int) -> str:
    """The ``index``-th abstract symbol: ``dots-2``, ``polygon-3``, ``dots-3``, ..."""
    return f"dots-{index + 2}" if index % 2 == 0 else f"polygon-{index // 2 + 3}"


def symbol_names(treasures: Sequence[Treasure]) -> list[str]:
    """A symbol of its own for each treasure, in order."""
    used: set[str] = set()
    found: list[str | None] = []
    for treasure in treasures:
        name = treasure.name.lower()
        match = next((w for w in WORDS if w in name and w not in used), None)
        if match is not None:
            used.add(match)
        found.append(drawn(match) if match is not None else None)
    spare = iter(range(len(treasures)))
    return [entry if entry is not None else abstract(next(spare)) for entry in found]


@functools.lru_cache(maxsize=16)
def symbols(maze: Maze) -> dict[Treasure, str]:
    """Each of the maze's treasures and its symbol."""
    return dict(zip(maze.treasures, symbol_names(maze.treasures), strict=True))
