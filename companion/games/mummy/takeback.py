"""Take-backs: whose the last action is, whether it may be taken back, and its words.

A seat may take back its own last action until the next player acts, so the last
command of the game is the only one ever taken back; the state before it says whose
it was.  Rolls the companion made are not taken back (that would be a free reroll);
dice the table threw and entered are, since a mistyped face is a mistake like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.i18n import Msg, joined, msg, word

from .commands import (
    HOST_COMMANDS,
    Announce,
    Command,
    EndMummyMove,
    EndTurn,
    Move,
    MummyStep,
    PlayCard,
    Redeal,
    Resolve,
    Reveal,
    Roll,
    RollMummyDie,
)
from .engine import playable_card
from .state import State
from .words import colour_word, face_word, treasure_word

#: The roles whose pages may know where the seekers stand: every other reader (the
#: mummy, the host, the watching seat) gets an action's words without a seeker's cell.
KNOWS_FIGURES = frozenset({"seeker", "table"})


@dataclass(frozen=True)
class Action:
    """One action in words: ``said`` for the seats that may know it all, and
    ``said_to_mummy`` without a seeker's cell; ``by_host`` when the host undid it."""

    seat: str
    who: Msg
    said: Msg
    said_to_mummy: Msg
    by_host: bool = False
    #: The undo took back the end, which had shown every seeker's unplayed cards.
    after_reveal: bool = False

    def notice(self, role: str) -> Msg:
        """ "Blue took back: moved to D11", as ``role``'s page may read it."""
        what = self.said if role in KNOWS_FIGURES else self.said_to_mummy
        if self.by_host and self.seat == "mummy":
            # "The mummy" begins a sentence: in the middle of one it is "the mummy's".
            if self.after_reveal:
                return msg(
                    "The host took back the mummy's action: {what}. The end had shown every "
                    "seeker's unplayed mission cards: they stay known to the whole table.",
                    what=what,
                )
            return msg("The host took back the mummy's action: {what}", what=what)
        if self.by_host and self.after_reveal:
            return msg(
                "The host took back {who}'s action: {what}. The end had shown every "
                "seeker's unplayed mission cards: they stay known to the whole table.",
                who=self.who,
                what=what,
            )
        if self.by_host and self.seat != HOST:
            return msg("The host took back {who}'s action: {what}", who=self.who, what=what)
        return msg("{who} took back: {what}", who=self.who, what=what)

    def label(self) -> Msg:
        """ "Blue moved a figure" (for the host's "Undo: ..."; one colon there): as every
        player may know it, since the host's device may hold the mummy's seat."""
        return msg("{who} {what}", who=self.who, what=self.said_to_mummy)


#: The seat of the host's own commands (``commands.HOST_COMMANDS``): no seat's to take back.
HOST = "host"


def owner(before: State) -> str:
    """The seat whose action a command applied to ``before`` is."""
    return "mummy" if before.is_mummy_turn else f"seeker{before.seeker}"


def who(before: State) -> Msg:
    if before.is_mummy_turn:
        return msg("The mummy")
    return colour_word(before.setup.figures[before.figure])


def may_take_back(command: Command) -> bool:
    """Everything but the companion's own rolls and the host's commands (the host undoes
    a redeal; a reveal is never taken back)."""
    if isinstance(command, HOST_COMMANDS):
        return False
    if isinstance(command, Roll):
        return command.faces is not None
    if isinstance(command, RollMummyDie):
        return command.value is not None
    return True


def describe(before: State, command: Command) -> Action:
    """The action of ``command`` applied to ``before``, in player words."""
    if isinstance(command, Reveal):
        said = msg("undid the end, which had shown every seeker's unplayed mission cards")
        return Action(HOST, msg("The host"), said, said)
    if isinstance(command, Redeal):
        said = msg("dealt the unplayed mission cards again")
        return Action(HOST, msg("The host"), said, said)
    name = before.maze.cell_name
    hidden: Msg | None = None
    if isinstance(command, Announce):
        said = msg("announced {face}", face=face_word(command.face))
    elif isinstance(command, Move):
        said = msg("moved to {cell}", cell=name(command.to))
        hidden = msg("moved a figure")
    elif isinstance(command, PlayCard):
        card = playable_card(before)
        if card is not None:
            said = msg("played the card of the {treasure}", treasure=treasure_word(card))
        else:
            said = msg("played a card")
    elif isinstance(command, EndTurn):
        said = msg("ended the turn")
    elif isinstance(command, Resolve):
        said = msg("resolved the mummy faces")
    elif isinstance(command, Roll) and command.faces is None:
        said = msg("rolled the dice")
    elif isinstance(command, Roll):
        said = msg(
            "entered the dice {faces}", faces=joined([face_word(f) for f in command.faces or ()])
        )
    elif isinstance(command, RollMummyDie) and command.value is None:
        said = msg("rolled the mummy die")
    elif isinstance(command, RollMummyDie):
        said = msg("entered the mummy die {value}", value=command.value or 0)
    elif isinstance(command, MummyStep):
        said = msg("stepped to {cell}", cell=name(command.to))
    elif isinstance(command, EndMummyMove):
        said = msg("ended the move")
    else:
        said = word(command.kind)
    return Action(owner(before), who(before), said, hidden or said)
