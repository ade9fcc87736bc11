"""Small helpers for messages in player words, shared by the games."""

from __future__ import annotations


def joined(words: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def figures(count: int) -> str:
    """ "the figure" or "the figures"."""
    return "the figure" if count == 1 else "the figures"
