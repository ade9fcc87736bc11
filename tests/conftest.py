"""Shared fixtures: the default maze and games on it."""

from __future__ import annotations

import pytest

from companion.games.mummy.maze import Maze
from companion.mazes import load_maze


@pytest.fixture(scope="session")
def default_maze() -> Maze:
    return load_maze(None)[0]


@pytest.fixture(scope="session")
def default_maze_text() -> str:
    return load_maze(None)[1]
