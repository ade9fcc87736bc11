"""What moving the board to another game does, asked before every move.

Every button that gives the board away (the host page's, Loot N Run's header, the
crypt's) asks this question first: the game that takes it, and what the move pauses or
leaves as it is (a running maze game pauses; a paused one stays paused; the crypt
waits; Loot N Run goes on on the phones). A pure function of who holds the board.
"""

from __future__ import annotations

from companion.i18n import Msg, msg, word
from companion.service.registry import GAME_NAMES


def _joined(parts: list[Msg]) -> Msg:
    text = parts[0]
    for part in parts[1:]:
        text = msg("{a} {b}", a=text, b=part)
    return text


def move_question(active: str, target: str, *, maze_running: bool, maze_paused: bool) -> Msg:
    """The question before the board goes from ``active`` to ``target``."""
    if target == "mummy":
        parts = [msg("Give the board back to the maze?")]
    else:
        name = word(GAME_NAMES.get(target, target))
        if active == "mummy" and maze_running:
            parts = [msg("Pause the maze game and give the board to {game}?", game=name)]
        else:
            parts = [msg("Give the board to {game}?", game=name)]
    if active == "mummy" and maze_running:
        parts.append(
            msg("Every page says the maze game is paused; it goes on when the board comes back.")
        )
    elif active == "lootnrun":
        parts.append(
            msg("Loot N Run's score track leaves the board; its game goes on on the phones.")
        )
    elif active == "crypt":
        parts.append(msg("Into the Crypt waits until it has the board again."))
    elif active == "boardcheck":
        parts.append(msg("The board check stops."))
    if maze_paused and target != "mummy":
        parts.append(msg("The maze game stays paused."))
    elif maze_paused:
        parts.append(msg("The maze game goes on once its figures stand where they were."))
    return _joined(parts)


def move_questions(
    active: str | None, games: list[str], *, maze_running: bool, maze_paused: bool
) -> dict[str, Msg]:
    """The question for every game the board may go to from ``active``."""
    if active is None:
        return {}
    return {
        target: move_question(active, target, maze_running=maze_running, maze_paused=maze_paused)
        for target in games
        if target != active
    }
