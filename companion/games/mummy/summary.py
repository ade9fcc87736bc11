"""A finished game in short: who won and how, rounds, catches, cards, the mummy's path.

A pure function of the game's record (its setup and accepted commands), so the live
pages and the journal's past games read the same summary, and nothing is stored twice.
It holds every seeker's cards and the mummy's whole path: hidden information, which is
why ``summarize`` gives nothing for a game that is not over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .commands import Command
from .engine import apply, new_game
from .events import MummyMoved, SeekerCaught
from .maze import Treasure
from .state import Setup, Winner


@dataclass(frozen=True)
class Catch:
    """The mummy caught a seeker's figure on a node."""

    seeker: int
    figure: int
    at: int


@dataclass(frozen=True)
class Summary:
    """The end of one game, as everyone may know it once it is over."""

    winner: Winner
    #: Completed rounds (mummy turns).
    rounds: int
    catches: tuple[Catch, ...]
    #: Each seeker's cards played, and the cards still in hand at the end.
    played: tuple[tuple[Treasure, ...], ...]
    hands: tuple[tuple[Treasure, ...], ...]
    #: Every node the mummy stood on, from its start, in order (its steps joined).
    path: tuple[int, ...]
    #: How many commands the game took.
    commands: int


def summarize(setup: Setup, commands: Iterable[Command]) -> Summary | None:
    """Replay the record; the summary if the game ended, else None (hidden until then)."""
    state, _ = new_game(setup)
    path = [state.mummy]
    catches: list[Catch] = []
    count = 0
    for command in commands:
        state, events = apply(state, command)
        count += 1
        for event in events:
            if isinstance(event, MummyMoved):
                path.append(event.to)
            elif isinstance(event, SeekerCaught):
                catches.append(Catch(event.seeker, event.figure, event.at))
    if state.winner is None or not state.is_over:
        return None
    return Summary(
        winner=state.winner,
        rounds=state.rounds,
        catches=tuple(catches),
        played=state.played,
        hands=state.hands,
        path=tuple(path),
        commands=count,
    )
