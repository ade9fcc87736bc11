"""JSON-safe views of an Into the Crypt game for the phone pages and the table screen.

Everything in this game is open information (both players see the whole board), so
every role gets the same facts; :func:`player_view` only adds whose view it is and,
on that player's turn, the legal moves as hints.  Squares are given by name.
"""

from __future__ import annotations

from typing import Any

from .board import CORNER_SQUARES, CRYPT_SQUARES, GREEN_SQUARES, square_name, squares_of
from .commands import Command
from .events import Event, event_json
from .moves import legal_moves
from .state import NOBODY, State

View = dict[str, Any]


def board_view() -> View:
    """The fixed board: size, files, the crypt, corner spaces, green tiles."""
    return {
        "size": 8,
        "files": "abcdefgh",
        "crypt": [square_name(s) for s in CRYPT_SQUARES],
        "corners": [square_name(s) for s in CORNER_SQUARES],
        "green": [square_name(s) for s in GREEN_SQUARES],
    }


def table_view(state: State) -> View:
    """The whole game as the table screen shows it (no hints)."""
    setup = state.setup
    players = []
    for p in range(setup.players):
        meeple = state.meeples[p]
        players.append(
            {
                "index": p,
                "colour": setup.colours[p],
                "meeple": square_name(meeple) if meeple >= 0 else None,
                "cubes_on_board": [square_name(s) for s in squares_of(state.cubes[p])],
                "cubes_in_hand": state.in_hand[p],
                "placed_by": setup.placer_of(p),
                "collected": state.collected[p],
                "locks": state.locks_taken[p],
                "white_meeple": state.chamber == p,
                "score": state.score(p),
                "may_open_lock": state.may_open_lock(p),
            }
        )
    return {
        "game": "crypt",
        "phase": state.phase.value,
        "to_move": None if state.is_over else state.to_move,
        "to_move_colour": None if state.is_over else setup.colours[state.to_move],
        "first_player": setup.first_player,
        "cubes_per_player": setup.cubes_per_player,
        "players": players,
        "locks": [square_name(s) for s in squares_of(state.locks)],
        "locks_left": state.locks_left,
        "chamber_open": state.locks == 0,
        "chamber": None if state.chamber == NOBODY else state.chamber,
        "passes_in_row": state.passes_in_row,
        "quiet_turns": state.quiet_turns,
        "quiet_turn_limit": setup.quiet_turn_limit,
        "ply": state.ply,
        "over": state.is_over,
        "end_reason": None if state.end_reason is None else state.end_reason.value,
        "scores": list(state.scores),
        "winners": list(state.winners),
    }


def player_view(state: State, player: int) -> View:
    """The game as one player's phone shows it: the table view plus hints on their turn."""
    view = table_view(state)
    mine = not state.is_over and state.to_move == player
    view["you"] = player
    view["your_turn"] = mine
    view["hints"] = [command_json(c) for c in legal_moves(state)] if mine else []
    return view


def command_json(command: Command) -> View:
    """A command as JSON (what a page sends back to make that move)."""
    return command.to_json()


def events_json(events: list[Event]) -> list[View]:
    """Events as JSON, for the live push to every page."""
    return [event_json(e) for e in events]
