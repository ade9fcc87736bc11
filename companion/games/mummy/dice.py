"""Dice faces and the deterministic random numbers that roll them.

The engine is pure, so its randomness is a 64-bit state carried in the game state
and advanced by SplitMix64: the same seed and commands always give the same dice.
"""

from __future__ import annotations

import enum
import hashlib
from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1


class Face(enum.IntEnum):
    """A face of a white seeker die."""

    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    ARROW = 5
    MUMMY = 6

    @property
    def label(self) -> str:
        """How a player says it: ``"4"``, ``"arrow"``, ``"mummy"``."""
        return _LABELS[self]

    @classmethod
    def parse(cls, value: object) -> Face:
        """A face from its label or number: ``"arrow"``, ``"4"``, ``4``."""
        if isinstance(value, Face):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4:
            return cls(value)
        if isinstance(value, str):
            for face, label in _LABELS.items():
                if value.strip().lower() == label:
                    return face
        raise ValueError(f"{value!r} is not a die face (1, 2, 3, 4, arrow or mummy)")


_LABELS = {
    Face.ONE: "1",
    Face.TWO: "2",
    Face.THREE: "3",
    Face.FOUR: "4",
    Face.ARROW: "arrow",
    Face.MUMMY: "mummy",
}

#: The six faces of each of the five white seeker dice.
SEEKER_DIE_FACES = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW, Face.MUMMY)
SEEKER_DICE = 5
NUMBER_FACES = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR)
MOVE_FACES = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW)


def seed_state(seed: int) -> int:
    """The random state for a seed (any int)."""
    return seed & _MASK64


def deal_seed(seed: int) -> int:
    """The seed of the cards' own stream, one-way from the game's seed: neither the dice
    nor the computer mummy's stream (``computer.computer_seed``) lead back to it."""
    digest = hashlib.blake2b((seed & _MASK64).to_bytes(8, "little"), person=b"mummy-deal")
    return int.from_bytes(digest.digest()[:8], "little")


def next_random(state: int) -> tuple[int, int]:
    """SplitMix64: (a 64-bit random number, the next state)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31), state


def random_below(state: int, n: int) -> tuple[int, int]:
    """A number in ``range(n)`` and the next state."""
    value, state = next_random(state)
    return value % n, state


def roll_seeker_dice(state: int, count: int) -> tuple[tuple[Face, ...], int]:
    """Roll ``count`` white dice."""
    # SplitMix64 inlined (as next_random): the self-play hot path rolls millions of dice.
    faces: list[Face] = []
    append = faces.append
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        append(SEEKER_DIE_FACES[(z ^ (z >> 31)) % 6])
    return tuple(faces), state


def shuffled(state: int, items: tuple[T, ...]) -> tuple[list[T], int]:
    """A Fisher-Yates shuffle of ``items``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, state = random_below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return out, state
