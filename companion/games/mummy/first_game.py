"""A first game that teaches itself: each new situation explained once, to its seat.

When the host starts a "first game" (``Options.first_game``), every situation a player
meets for the first time (their first roll, a mummy face set aside, a reroll, the
announcement, the move on the board, a resolve, the mummy's roll and move, a catch, a
card to play) is explained in a sentence or two on the page of the seat whose turn it
is, and on the table screen for the whole table. A player meets the basic turn before
any special case: a seeker whose first turn begins with mummy faces lying out learns the
roll first, and resolving on a later turn. Pure: which lessons a moment brings follows
from the game's commands alone (the state before and after a command, and its events),
so a reload, a second phone or a restart (the journal replays the commands) shows the
same lessons, never one twice and none lost. A seeker's lesson goes to that seeker's
page only; the mummy's page gets only the mummy's situations, none of which reveals a
seeker. The table screen shows every lesson but the card's (which would tell the table
that a seeker stands on the treasure of a card in their hand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.i18n import N_, Msg, word

from .dice import Face
from .engine import playable_card
from .events import DiceRolled, Event, SeekerCaught
from .state import MummyMoveKind, Phase, State


@dataclass(frozen=True, order=True)
class Lesson:
    """One situation explained to one seat ("mummy", "seeker0", ...)."""

    seat: str
    key: str

    @property
    def text(self) -> Msg:
        return word(TEXTS[self.key])


#: Each situation's explanation, in the order a game usually meets them.
TEXTS = {
    "roll": N_(
        "Your turn begins with a roll of the five white seeker dice. "
        "Then you pick one die and move your figure by it."
    ),
    "mummy_face": N_(
        "A die showing the mummy face is set aside and stays out. "
        "Each one gives the mummy a step more, until a seeker resolves them."
    ),
    "reroll": N_(
        "You rolled again: only the dice without the mummy face were thrown. "
        "You may roll again as often as you like, and each new mummy face stays out too."
    ),
    "announce": N_(
        "Pick one die of this roll and tap it to announce it aloud. Everyone hears the "
        "number; the mummy never learns where you go."
    ),
    "move": N_(
        "Now move your figure on the board: a number exactly that many cells, around "
        "corners too, never through a wall or the mummy and never ending on another "
        "figure. The arrow goes straight on to the last free cell."
    ),
    "resolve": N_(
        "Mummy faces lie out, so you may resolve them before you roll. The mummy then "
        "makes an intermediate move of that many steps, and you roll all five dice."
    ),
    "mummy_roll": N_(
        "Your turn: roll the brown mummy die. Your move has that many steps, plus one "
        "for every mummy face lying out."
    ),
    "mummy_move": N_(
        "Walk the mummy one step at a time: tap a lit cell or an arrow, or a cell further "
        "away for the whole way. You cannot see the seekers; one standing where you step "
        "is caught."
    ),
    "mummy_intermediate": N_(
        "An intermediate move, between the seekers' turns: the mummy walks one step for "
        "each mummy face that was resolved. Then the seekers' turns go on."
    ),
    "catch": N_(
        "You caught a seeker: the figure goes into the sarcophagus and its player gives "
        "you an ankh. With enough ankhs the mummy wins."
    ),
    "card": N_(
        "Your figure stands on the treasure of one of your mission cards. Play the card "
        "face up for everyone, or end the turn and keep it; whoever plays their last "
        "card wins."
    ),
}


def situations(before: State | None, after: State, events: Sequence[Event]) -> list[Lesson]:
    """The situations a moment brings, each with the seat it is explained to: what the
    command's events did (a roll, a reroll, a catch) and what the game now waits for."""
    setup = after.setup
    found: list[Lesson] = []
    for event in events:
        if isinstance(event, DiceRolled):
            roller = f"seeker{setup.figure_owner[event.figure]}"
            if before is not None and before.phase is Phase.SEEKER_ROLLED:
                found.append(Lesson(roller, "reroll"))
            if Face.MUMMY in event.faces:
                found.append(Lesson(roller, "mummy_face"))
        elif isinstance(event, SeekerCaught):
            found.append(Lesson("mummy", "catch"))
    waiting = waits_for(after)
    if waiting is not None:
        found.append(waiting)
    return found


def waits_for(state: State) -> Lesson | None:
    """The lesson about what the game waits for now, and whose it is (None at the end,
    and for a card that cannot be played)."""
    seat = f"seeker{state.seeker}"
    phase = state.phase
    if phase is Phase.SEEKER_TURN:
        return Lesson(seat, "resolve" if state.may_resolve and state.dice_out else "roll")
    if phase is Phase.SEEKER_ROLLED:
        return Lesson(seat, "announce")
    if phase is Phase.SEEKER_MOVING:
        return Lesson(seat, "move")
    if phase is Phase.SEEKER_CARD and playable_card(state) is not None:
        return Lesson(seat, "card")
    if phase is Phase.MUMMY_ROLL:
        return Lesson("mummy", "mummy_roll")
    if phase is Phase.MUMMY_MOVING:
        normal = state.mummy_move in (None, MummyMoveKind.NORMAL)
        return Lesson("mummy", "mummy_move" if normal else "mummy_intermediate")
    return None


#: A special case and the basic situation a player meets before it: until the basic
#: one was taught to that seat, it is taught instead (a seeker's first turn is a roll,
#: even with mummy faces lying out) ...
BASIC_FIRST = {"resolve": "roll"}
#: ... or, where the special case cannot wait, taught with it, first (the mummy's first
#: move may be an intermediate one: how to walk, then why now).
TAUGHT_WITH = {"mummy_intermediate": "mummy_move"}


def basics(lesson: Lesson) -> set[Lesson]:
    """The basic lessons a special case stands for (see ``BASIC_FIRST``, ``TAUGHT_WITH``)."""
    keys = {BASIC_FIRST.get(lesson.key), TAUGHT_WITH.get(lesson.key)} - {None}
    return {Lesson(lesson.seat, key) for key in keys if key}


def new_lessons(
    taught: Iterable[Lesson], before: State | None, after: State, events: Sequence[Event]
) -> tuple[Lesson, ...]:
    """The lessons this moment shows: its situations that ``taught`` (every lesson shown
    earlier in the game) does not hold yet, each once."""
    seen = set(taught)
    out: list[Lesson] = []
    for lesson in situations(before, after, events):
        basic = BASIC_FIRST.get(lesson.key)
        if basic and Lesson(lesson.seat, basic) not in seen:
            lesson = Lesson(lesson.seat, basic)
        also = TAUGHT_WITH.get(lesson.key)
        if also and Lesson(lesson.seat, also) not in seen:
            seen.add(Lesson(lesson.seat, also))
            out.append(Lesson(lesson.seat, also))
        if lesson not in seen:
            seen.add(lesson)
            out.append(lesson)
    return tuple(out)


def still_shown(shown: Sequence[Lesson], new: Sequence[Lesson], after: State) -> tuple[Lesson, ...]:
    """What the pages show after a moment: its new lessons, and the one shown before
    about what the game still waits for (the mummy's walk after its first step, the
    announcement after a reroll), so an explanation stays while its situation lasts."""
    waiting = waits_for(after)
    lasting = {waiting, *basics(waiting)} if waiting else set()
    kept = [lesson for lesson in shown if lesson in lasting and lesson not in new]
    return (*new, *kept)


def taught(steps: Iterable[Sequence[Lesson]]) -> frozenset[Lesson]:
    """Every lesson shown in a game so far (its lessons step by step)."""
    return frozenset(lesson for step in steps for lesson in step)


def lessons_for(lessons: Sequence[Lesson], seat: str) -> list[Msg]:
    """The explanations one seat's page shows now (another seat's are never sent)."""
    return [lesson.text for lesson in lessons if lesson.seat == seat]


#: Lessons the table screen does not show: the card's would tell everyone that a seeker
#: stands on the treasure of a card in their hand.
PRIVATE = frozenset({"card"})


def table_lessons(lessons: Sequence[Lesson]) -> list[tuple[str, Msg]]:
    """The explanations the table screen shows now, for the whole table: each with the
    seat it speaks to ("mummy", "seeker0", ...), none that tells a seat's secret."""
    return [(lesson.seat, lesson.text) for lesson in lessons if lesson.key not in PRIVATE]
