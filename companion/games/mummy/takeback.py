"""Take-backs: whose the last action is, whether it may be taken back, and its words.

A seat may take back its own last action until the next player acts, so the last
command of the game is the only one ever taken back; the state before it says whose
it was.  Rolls the companion made are not taken back (that would be a free reroll);
dice the table threw and entered are, since a mistyped face is a mistake like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

from .commands import (
    Announce,
    Command,
    EndMummyMove,
    EndTurn,
    Move,
    MummyStep,
    PlayCard,
    Resolve,
    Roll,
    RollMummyDie,
)
from .dice import Face
from .engine import playable_card
from .state import State


@dataclass(frozen=True)
class Action:
    """One action in words: ``said`` for the seats that may know it all, and
    ``said_to_mummy`` without a seeker's cell."""

    seat: str
    who: str
    said: str
    said_to_mummy: str

    def notice(self, role: str) -> str:
        """ "Blue took back: moved to D11", as ``role``'s page may read it."""
        what = self.said_to_mummy if role == "mummy" else self.said
        return f"{self.who} took back: {what}"


def owner(before: State) -> str:
    """The seat whose action a command applied to ``before`` is."""
    return "mummy" if before.is_mummy_turn else f"seeker{before.seeker}"


def who(before: State) -> str:
    if before.is_mummy_turn:
        return "The mummy"
    return before.setup.figures[before.figure].value.capitalize()


def may_take_back(command: Command) -> bool:
    """Everything but the companion's own rolls."""
    if isinstance(command, Roll):
        return command.faces is not None
    if isinstance(command, RollMummyDie):
        return command.value is not None
    return True


def describe(before: State, command: Command) -> Action:
    """The action of ``command`` applied to ``before``, in player words."""
    name = before.maze.cell_name
    said = hidden = ""
    if isinstance(command, Announce):
        said = "announced " + ("the arrow" if command.face is Face.ARROW else command.face.label)
    elif isinstance(command, Move):
        said, hidden = f"moved to {name(command.to)}", "moved a figure"
    elif isinstance(command, PlayCard):
        card = playable_card(before)
        said = f"played the {card.title}" if card is not None else "played a card"
    elif isinstance(command, EndTurn):
        said = "ended the turn"
    elif isinstance(command, Resolve):
        said = "resolved the mummy dice"
    elif isinstance(command, Roll):
        said = "entered the dice " + ", ".join(f.label for f in command.faces or ())
    elif isinstance(command, RollMummyDie):
        said = f"entered the mummy die {command.value}"
    elif isinstance(command, MummyStep):
        said = f"stepped to {name(command.to)}"
    elif isinstance(command, EndMummyMove):
        said = "ended the move"
    else:
        said = command.kind.replace("_", " ")
    return Action(owner(before), who(before), said, hidden or said)
