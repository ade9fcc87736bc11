"""Commands: everything a player (or a sensor) can ask the engine to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .dice import Face


@dataclass(frozen=True)
class Command:
    """Base of all commands; ``kind`` is the name used in game records."""

    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class Resolve(Command):
    """The seeker resolves the mummy faces lying out: the mummy makes an intermediate move."""

    kind: ClassVar[str] = "resolve"


@dataclass(frozen=True)
class Roll(Command):
    """Roll (or roll again) every white die not lying out mummy-up.

    ``faces`` are the faces thrown with physical dice; None rolls with the game's RNG.
    """

    kind: ClassVar[str] = "roll"
    faces: tuple[Face, ...] | None = None


@dataclass(frozen=True)
class Announce(Command):
    """Choose one die of the last roll and announce it aloud."""

    kind: ClassVar[str] = "announce"
    face: Face


@dataclass(frozen=True)
class Move(Command):
    """Move the figure whose turn it is to ``to`` (a node of the maze) by the announced die."""

    kind: ClassVar[str] = "move"
    to: int


@dataclass(frozen=True)
class PlayCard(Command):
    """Play the mission card of the treasure the figure ended its move on."""

    kind: ClassVar[str] = "play_card"


@dataclass(frozen=True)
class EndTurn(Command):
    """End the turn without playing a card."""

    kind: ClassVar[str] = "end_turn"


@dataclass(frozen=True)
class RollMummyDie(Command):
    """Roll the brown mummy die for a normal move; ``value`` for a physical die."""

    kind: ClassVar[str] = "roll_mummy_die"
    value: int | None = None


@dataclass(frozen=True)
class MummyStep(Command):
    """Move the mummy one step to the neighbouring cell ``to``."""

    kind: ClassVar[str] = "mummy_step"
    to: int


@dataclass(frozen=True)
class EndMummyMove(Command):
    """Stop the mummy's move before its steps are used up."""

    kind: ClassVar[str] = "end_mummy_move"


@dataclass(frozen=True)
class Reveal(Command):
    """The end showed every seeker's unplayed mission cards and the host undid it: the
    game goes on with those cards known to the whole table.  Written by the companion
    with the host's undo of an end (never sent by a seat); it changes nothing else."""

    kind: ClassVar[str] = "reveal"


@dataclass(frozen=True)
class Redeal(Command):
    """The host deals the unplayed mission cards again after a reveal: each seeker gets
    as many cards of each colour as they held, from the deal's own secret stream."""

    kind: ClassVar[str] = "redeal"


#: The commands of the host, never of a seat's page: the companion's record of a
#: reveal, and the deal after it.
HOST_COMMANDS: tuple[type[Command], ...] = (Reveal, Redeal)


COMMAND_TYPES: dict[str, type[Command]] = {
    c.kind: c
    for c in (
        Resolve,
        Roll,
        Announce,
        Move,
        PlayCard,
        EndTurn,
        RollMummyDie,
        MummyStep,
        EndMummyMove,
        Reveal,
        Redeal,
    )
}
