"""Loading maze files: the default maze shipped with the package, or a file."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from companion.games.mummy.maze import Maze
from companion.games.mummy.maze_file import parse_maze, with_name
from companion.inputs import read_text

DEFAULT_MAZE = "default.maze"


def default_maze_text() -> str:
    """The text of the default 12x12 maze (package data)."""
    return (
        resources.files("companion.games.mummy")
        .joinpath("data", DEFAULT_MAZE)
        .read_text(encoding="utf-8")
    )


def load_maze(path: str | Path | None = None) -> tuple[Maze, str]:
    """A maze and its text: from ``path``, or the default maze when None.  A file with
    no ``name:`` line is named after the file (its problems keep their lines)."""
    if path is None:
        text = default_maze_text()
        return parse_maze(text), text
    text = read_text(path)
    parse_maze(text)
    named = with_name(text, Path(path).stem)
    return parse_maze(named), named
