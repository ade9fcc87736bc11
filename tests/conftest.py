"""Shared fixtures: the default maze and games on it, a table of phones around the
mock appliance (``tests/test_pages.py``'s ``Table``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games.mummy.maze import Maze
from companion.mazes import load_maze


@pytest.fixture(scope="session")
def default_maze() -> Maze:
    return load_maze(None)[0]


@pytest.fixture(scope="session")
def default_maze_text() -> str:
    return load_maze(None)[1]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Any]:
    """The mock appliance, its app, the host's device and phones to join seats."""
    from tests.test_pages import Table, start

    appliance = start(tmp_path)
    try:
        yield Table(appliance)
    finally:
        appliance.close()
