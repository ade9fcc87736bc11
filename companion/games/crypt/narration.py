"""What happened, in words for the players: one sentence per accepted command.

The phone page shows the last moves (and the computer opponent's last move) as these
sentences, so the players need not read square lists to follow the game.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.i18n import N_, Msg, counted, joined, msg, word

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
    EndReason.CHAMBER: None,
    EndReason.ALL_PASSED: N_("{result} (nobody could move any more)."),
    EndReason.NO_PROGRESS: N_("{result} (too long without a cube or a lock taken)."),
}


def name(colours: Sequence[str], player: int) -> Msg:
    """A player as the pages call them: their colour, capitalised (and translated)."""
    return word(colours[player].capitalize())


def describe(events: Sequence[Event], colours: Sequence[str]) -> Msg:
    """One sentence (or two, when the game ends) for the events of one command; a cube
    collected or a lock removed is told in the sentence of the move that did it."""
    parts: list[Msg] = []
    for event in events:
        if isinstance(event, CubePlaced):
            parts.append(
                msg(
                    "{placer} put one of {owner}'s cubes on {square}.",
                    placer=name(colours, event.placer),
                    owner=name(colours, event.owner),
                    square=square_name(event.square),
                )
            )
        elif isinstance(event, MeeplePlaced):
            parts.append(
                msg(
                    "{player} put the meeple on {square}.",
                    player=name(colours, event.player),
                    square=square_name(event.square),
                )
            )
        elif isinstance(event, MeepleMoved):
            parts.append(
                msg(
                    "{player} moved from {start} to {square}.",
                    player=name(colours, event.player),
                    start=square_name(event.from_square),
                    square=square_name(event.to),
                )
            )
        elif isinstance(event, CubeCollected) and parts and parts[-1].id.endswith(MOVED):
            parts[-1] = msg(
                "{player} moved from {start} to {square} and collected a cube "
                "({n} left on the board).",
                **parts[-1].kwargs,
                n=event.left_on_board,
            )
        elif isinstance(event, LockRemoved) and parts and parts[-1].id.endswith(MOVED):
            parts[-1] = counted(
                event.locks_left,
                "{player} moved from {start} to {square} and removed a lock ({n} lock left).",
                "{player} moved from {start} to {square} and removed a lock ({n} locks left).",
                **parts[-1].kwargs,
            )
        elif isinstance(event, ChamberEntered):
            parts.append(
                msg(
                    "{player} entered the chamber and claimed the white meeple.",
                    player=name(colours, event.player),
                )
            )
        elif isinstance(event, Passed):
            parts.append(
                msg("{player} could not move and passed.", player=name(colours, event.player))
            )
        elif isinstance(event, GameOver):
            ending = _ENDINGS[event.reason]
            outcome = result(event.scores, event.winners, colours)
            parts.append(
                msg("{result}.", result=outcome) if ending is None else msg(ending, result=outcome)
            )
    text = parts[0] if parts else Msg("")
    for part in parts[1:]:
        text = msg("{a} {b}", a=text, b=part)
    return text


#: How a move's sentence ends (a cube or a lock taken is told in it).
MOVED = "to {square}."

#: The sentences that say a game's result (``describe``'s last part at the end).
RESULTS = frozenset({"{result}.", *(e for e in _ENDINGS.values() if e is not None)})

#: Why a game ended, when not by the chamber: a line of the end screen of its own.
WHY_ENDED = {
    EndReason.ALL_PASSED: N_("Nobody could move any more."),
    EndReason.NO_PROGRESS: N_("Too long without a cube or a lock taken."),
}


def without_result(text: Msg) -> Msg:
    """A move's sentence without the result ``describe`` added at the end of the game:
    the end screen says the result once, so the move that ended it is told alone."""
    if text.id == "{a} {b}":
        move, last = text.kwargs["a"], text.kwargs["b"]
        if isinstance(last, Msg) and last.id in RESULTS and isinstance(move, Msg):
            return move
    return text


def result(scores: Sequence[int], winners: Sequence[int], colours: Sequence[str]) -> Msg:
    """The result without a full stop: "Game over: Red wins 12 to 9"."""
    if len(winners) == 1:
        (winner,) = winners
        others = sorted((s for p, s in enumerate(scores) if p != winner), reverse=True)
        against = joined([str(s) for s in others])
        return msg(
            "Game over: {player} wins {score} to {others}",
            player=name(colours, winner),
            score=scores[winner],
            others=against,
        )
    return msg(
        "Game over: {players} share the win with {score} each",
        players=joined([name(colours, p) for p in winners]),
        score=scores[winners[0]],
    )
