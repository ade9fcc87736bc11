"""What happened, in words for the players: one sentence per accepted command.

The phone page shows the last moves (and the computer opponent's last move) as these
sentences, so the players need not read square lists to follow the game.
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import square_name
from .events import (
    ChamberEntered,
    CubeCollected,
    CubePlaced,
    Event,
    GameOver,
    LockRemoved,
    MeepleMoved,
    MeeplePlaced,
    Passed,
)
from .state import EndReason

_ENDINGS = {
    EndReason.CHAMBER: "",
    EndReason.ALL_PASSED: " (nobody could move any more)",
    EndReason.NO_PROGRESS: " (too long without a cube or a lock taken)",
}


def name(colours: Sequence[str], player: int) -> str:
    """A player as the pages call them: their colour, capitalised."""
    return colours[player].capitalize()


def describe(events: Sequence[Event], colours: Sequence[str]) -> str:
    """One sentence (or two, when the game ends) for the events of one command."""
    parts: list[str] = []
    for event in events:
        if isinstance(event, CubePlaced):
            parts.append(
                f"{name(colours, event.placer)} put one of {name(colours, event.owner)}'s "
                f"cubes on {square_name(event.square)}."
            )
        elif isinstance(event, MeeplePlaced):
            parts.append(
                f"{name(colours, event.player)} put the meeple on {square_name(event.square)}."
            )
        elif isinstance(event, MeepleMoved):
            parts.append(
                f"{name(colours, event.player)} moved from {square_name(event.from_square)} "
                f"to {square_name(event.to)}."
            )
        elif isinstance(event, CubeCollected):
            _extend(parts, f"and collected a cube ({event.left_on_board} left on the board).")
        elif isinstance(event, LockRemoved):
            locks = "lock" if event.locks_left == 1 else "locks"
            _extend(parts, f"and removed a lock ({event.locks_left} {locks} left).")
        elif isinstance(event, ChamberEntered):
            parts.append(
                f"{name(colours, event.player)} entered the chamber and claimed the white meeple."
            )
        elif isinstance(event, Passed):
            parts.append(f"{name(colours, event.player)} could not move and passed.")
        elif isinstance(event, GameOver):
            parts.append(f"{result(event.scores, event.winners, colours)}{_ENDINGS[event.reason]}.")
    return " ".join(parts)


def result(scores: Sequence[int], winners: Sequence[int], colours: Sequence[str]) -> str:
    """The result without a full stop: "Game over: Red wins 12 to 9"."""
    if len(winners) == 1:
        (winner,) = winners
        others = sorted((s for p, s in enumerate(scores) if p != winner), reverse=True)
        against = " to ".join(str(s) for s in others)
        return f"Game over: {name(colours, winner)} wins {scores[winner]} to {against}"
    names = " and ".join(name(colours, p) for p in winners)
    return f"Game over: {names} share the win with {scores[winners[0]]} each"


def _extend(parts: list[str], tail: str) -> None:
    """Join ``tail`` to the last sentence (whose full stop it replaces)."""
    if parts and parts[-1].endswith("."):
        parts[-1] = f"{parts[-1][:-1]} {tail}"
    else:
        parts.append(tail)
