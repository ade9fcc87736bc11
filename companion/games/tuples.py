"""Small helpers the pure game engines share for their immutable state."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy of ``values`` with ``value`` at ``index``."""
    return (*values[:index], value, *values[index + 1 :])
