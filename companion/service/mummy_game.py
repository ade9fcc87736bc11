"""The running mummy-maze game as the service holds it: setup, commands, state.

Pure bookkeeping around the engine: building a setup from the host's choices, the
journal's JSON forms of setup and commands, and rebuilding a state by replay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.mummy.commands import Command, Redeal, Reveal
from companion.games.mummy.engine import apply, make_setup, new_game
from companion.games.mummy.events import Event
from companion.games.mummy.first_game import Lesson, new_lessons, still_shown, taught
from companion.games.mummy.maze import Maze
from companion.games.mummy.record import (
    command_from_json,
    command_to_json,
    setup_from_json,
    setup_to_json,
)
from companion.games.mummy.state import Options, Setup, State
from companion.games.mummy.takeback import Action, describe

KIND = "mummy"


@dataclass
class RunningGame:
    """One game: its journal id, setup, accepted commands and current state."""

    id: int
    setup: Setup
    maze_text: str
    commands: list[Command] = field(default_factory=list)
    state: State | None = None
    #: Events of the last accepted command (for the live pages).
    last_events: list[Event] = field(default_factory=list)
    #: The state before the last accepted command (None: no command yet).
    previous: State | None = None
    #: Each command as an action in words (its seat and what it did), for the take-backs
    #: and the host's undo.
    actions: list[Action] = field(default_factory=list)
    #: Bumped by every accepted or replaced command: a decision made for the game as it
    #: stood is stale once this has moved on.
    changes: int = 0
    #: A first game's lessons, step by step: those the start showed, then those each
    #: command showed (``first_game.py``; all empty in other games).
    lessons: list[tuple[Lesson, ...]] = field(default_factory=list)
    #: What the pages showed at each step: its lessons, and one still about what the
    #: game waits for (``first_game.still_shown``).
    showing: list[tuple[Lesson, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.state is None:
            self.state, self.last_events = new_game(self.setup)
            self.lessons = [self._teach(None, self.state, self.last_events)]
            self.showing = [self.lessons[0]]

    def _teach(self, before: State | None, after: State, events: list[Event]) -> tuple[Lesson, ...]:
        """The lessons a moment shows (none unless the game is a first game)."""
        if not self.setup.options.first_game:
            return ()
        return new_lessons(taught(self.lessons), before, after, events)

    def _learn(self, before: State | None, after: State, events: list[Event]) -> None:
        """A step's lessons, and what the pages show after it."""
        new = self._teach(before, after, events)
        self.lessons.append(new)
        self.showing.append(still_shown(self.showing[-1] if self.showing else (), new, after))

    @property
    def lessons_now(self) -> tuple[Lesson, ...]:
        """The lessons the pages show now: those of the last command (or the start), and
        one shown before about what the game still waits for."""
        return self.showing[-1] if self.showing else ()

    @property
    def owners(self) -> list[str]:
        """The seat whose action each command was ("mummy", "seeker0", ...)."""
        return [action.seat for action in self.actions]

    @property
    def key(self) -> tuple[int, int, int]:
        """This game as it stands now: its journal id, this object, its changes."""
        return self.id, id(self), self.changes

    @property
    def current(self) -> State:
        assert self.state is not None
        return self.state

    def try_apply(self, command: Command) -> tuple[State, list[Event]]:
        """Apply without keeping (RuleError if illegal): journal first, then ``accept``."""
        return apply(self.current, command)

    def accept(self, command: Command, state: State, events: list[Event]) -> None:
        self.previous = self.state
        self.actions.append(describe(self.current, command))
        self.commands.append(command)
        self._learn(self.previous, state, events)
        self.state = state
        self.last_events = events
        self.changes += 1

    def replace_last(self, command: Command, state: State, events: list[Event]) -> None:
        """Put ``command`` (applied to ``previous``) in the place of the last command."""
        self.commands[-1] = command
        assert self.previous is not None
        self.actions[-1] = describe(self.previous, command)
        self.lessons.pop()  # the replaced command's lessons: those of the new one
        self.showing.pop()
        self._learn(self.previous, state, events)
        self.state = state
        self.last_events = events
        self.changes += 1

    def trailing_reveals(self) -> int:
        """How many of the last commands are the record of a reveal (``Reveal``): an
        undo or a take-back reaches past them to the action before."""
        count = 0
        for command in reversed(self.commands):
            if not isinstance(command, Reveal):
                break
            count += 1
        return count

    def reveal_kept(self, count: int) -> bool:
        """Whether an undo of the last ``count`` commands must record a reveal again:
        every hand is known now (the end showed them, or a reveal says so) and the
        commands that stay would not say it (an end taken back, or its reveal)."""
        if not (self.current.is_over or self.current.cards_known):
            return False
        known = False
        for command in self.commands[: len(self.commands) - count]:
            if isinstance(command, Reveal | Redeal):
                known = isinstance(command, Reveal)
        return not known

    def setup_json(self) -> dict[str, Any]:
        return setup_to_json(self.setup, self.maze_text)

    def command_json(self, command: Command) -> dict[str, Any]:
        return command_to_json(command, self.setup.maze)

    @classmethod
    def replayed(
        cls, game_id: int, setup_data: dict[str, Any], commands: list[dict[str, Any]]
    ) -> RunningGame:
        """Rebuild a game from the journal: same state, same turn."""
        setup = setup_from_json(setup_data)
        game = cls(game_id, setup, str(setup_data["maze"]))
        for data in commands:
            game.replay_one(data)
        return game

    def replay_one(self, data: Any) -> RunningGame:
        """Apply one journal command (RecordError, RuleError if it cannot be)."""
        command = command_from_json(data, self.setup.maze)
        state, events = self.try_apply(command)
        self.accept(command, state, events)
        return self


def make_game_setup(
    maze: Maze,
    colours: list[str],
    *,
    seed: int,
    mummy_moves_exactly: bool = False,
    mummy_sees_treasures: bool = True,
    first_game: bool = False,
) -> Setup:
    """A setup from the host page's choices."""
    options = Options(
        mummy_moves_exactly=mummy_moves_exactly,
        mummy_sees_treasures=mummy_sees_treasures,
        first_game=first_game,
    )
    return make_setup(maze, tuple(colours), seed=seed, options=options)
