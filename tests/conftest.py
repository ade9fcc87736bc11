"""Shared fixtures: the default maze and games on it, a table of phones around the
mock appliance (``tests/test_pages.py``'s ``Table``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games.mummy.maze import Maze
from companion.mazes import load_maze


@pytest.fixture(autouse=True)
def _no_log_handler_outlives_its_test() -> Iterator[None]:
    """``companion run`` in-process points the root logger at the captured stdout; a later
    test's threads would log into that closed stream (tracebacks in the CI log)."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if type(handler) is logging.StreamHandler and handler not in before:
            root.removeHandler(handler)
    root.setLevel(level)


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
