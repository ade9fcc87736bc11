"""The fast simulation path: one mutable game that plays commands in place.

``engine.apply`` stays the reference (immutable states, player-facing refusals).
Self-play and the computer mummy's search play thousands of commands, where copying
a 20-field state per command dominates; :class:`FastGame` changes its own fields
instead and gives the same events and, through :meth:`FastGame.freeze`, the same
states (tests/test_fast_engine.py proves it over thousands of random games).  An
illegal command is refused by asking the reference engine, so its message and the
unchanged game are exactly the engine's.
"""

from __future__ import annotations

from collections.abc import Callable

from .commands import (
    HOST_COMMANDS,
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
from .dice import SEEKER_DICE, SEEKER_DIE_FACES, Face, random_below, roll_seeker_dice
from .engine import RuleError, apply
from .events import (
    Announced,
    CardPlayed,
    DiceRolled,
    Event,
    FigureMoved,
    GameWon,
    MummyDieRolled,
    MummyMoved,
    MummyMoveEnded,
    MummyMoveStarted,
    MummyTurnStarted,
    Resolved,
    SeekerCaught,
    SeekerOut,
    SeekerSkipped,
    TurnLost,
    TurnStarted,
)
from .maze import Treasure
from .moves import can_move_at_all, destinations_mask
from .state import MummyMoveKind, Phase, Setup, State, Winner

_FACES_BY_INDEX = SEEKER_DIE_FACES


class FastGame:
    """A game that changes in place; reads like a :class:`State` (``state.Situation``)."""

    def __init__(self, state: State) -> None:
        self._load(state)

    def _load(self, state: State) -> None:
        self.setup: Setup = state.setup
        self.maze = state.setup.maze
        self.owner = state.setup.figure_owner
        self.rng = state.rng
        self.phase = state.phase
        self.figure = state.figure
        self.positions = list(state.positions)
        self.mummy = state.mummy
        self.ankhs = list(state.ankhs)
        self.mummy_ankhs = state.mummy_ankhs
        self.hands = [list(h) for h in state.hands]
        self.played = [list(p) for p in state.played]
        self.dice_out = state.dice_out
        self.roll: tuple[Face, ...] = state.roll
        self.announced = state.announced
        self.targets = state.targets
        self.may_resolve = state.may_resolve
        self.forced_resolve = state.forced_resolve
        self.mummy_move = state.mummy_move
        self.steps_left = state.steps_left
        self.rounds = state.rounds
        self.winner = state.winner
        self.cards_known = state.cards_known
        self.redeals = state.redeals
        self.deal = state.deal

    # -- reading -------------------------------------------------------------------------

    @property
    def seeker(self) -> int:
        return self.owner[self.figure]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def is_mummy_turn(self) -> bool:
        return self.phase is Phase.MUMMY_ROLL or self.phase is Phase.MUMMY_MOVING

    def freeze(self) -> State:
        """The immutable :class:`State` this game is in now."""
        return State(
            setup=self.setup,
            rng=self.rng,
            phase=self.phase,
            figure=self.figure,
            positions=tuple(self.positions),
            mummy=self.mummy,
            ankhs=tuple(self.ankhs),
            mummy_ankhs=self.mummy_ankhs,
            hands=tuple(tuple(h) for h in self.hands),
            played=tuple(tuple(p) for p in self.played),
            dice_out=self.dice_out,
            roll=self.roll,
            announced=self.announced,
            targets=self.targets,
            may_resolve=self.may_resolve,
            forced_resolve=self.forced_resolve,
            mummy_move=self.mummy_move,
            steps_left=self.steps_left,
            rounds=self.rounds,
            winner=self.winner,
            cards_known=self.cards_known,
            redeals=self.redeals,
            deal=self.deal,
        )

    # -- playing -------------------------------------------------------------------------

    def apply(self, command: Command) -> list[Event]:
        """Play ``command`` in place and return its events, exactly as ``engine.apply``."""
        events: list[Event] = []
        if isinstance(command, HOST_COMMANDS):  # rare: played by the reference engine
            state, events = apply(self.freeze(), command)
            self._load(state)
            return events
        handler = _HANDLERS.get(type(command))
        if handler is None or self.phase is Phase.GAME_OVER or not handler(self, command, events):
            apply(self.freeze(), command)  # raises the reference engine's RuleError
            raise RuleError(  # pragma: no cover
                "{command} was refused by the fast path only.", command=repr(command)
            )
        return events

    def _resolve(self, command: Command, events: list[Event]) -> bool:
        if self.phase is not Phase.SEEKER_TURN or not self.may_resolve or not self.dice_out:
            return False
        events.append(Resolved(self.figure, self.dice_out, False))
        self._start_mummy_move(MummyMoveKind.RESOLVE, self.dice_out, events)
        return True

    def _roll(self, command: Command, events: list[Event]) -> bool:
        assert isinstance(command, Roll)
        if self.phase is not Phase.SEEKER_TURN and self.phase is not Phase.SEEKER_ROLLED:
            return False
        count = SEEKER_DICE - self.dice_out
        if command.faces is None:
            faces, self.rng = roll_seeker_dice(self.rng, count)
        else:
            faces = tuple(command.faces)
            if len(faces) != count or any(f not in SEEKER_DIE_FACES for f in faces):
                return False
        mummies = faces.count(Face.MUMMY)
        self.dice_out += mummies
        events.append(DiceRolled(self.figure, faces, self.dice_out))
        self.roll = tuple(f for f in faces if f is not Face.MUMMY) if mummies else faces
        self.may_resolve = False
        self.phase = Phase.SEEKER_ROLLED
        if self.dice_out == SEEKER_DICE:
            events.append(TurnLost(self.figure))
            self.forced_resolve = True
            self.roll = ()
            self._end_seeker_turn(events)
        return True

    def _announce(self, command: Command, events: list[Event]) -> bool:
        assert isinstance(command, Announce)
        face = command.face
        if self.phase is not Phase.SEEKER_ROLLED or face not in self.roll:
            return False
        targets = destinations_mask(self, self.figure, face)
        if not targets:
            return False
        events.append(Announced(self.figure, face))
        self.announced = face
        self.targets = targets
        self.phase = Phase.SEEKER_MOVING
        return True

    def _move(self, command: Command, events: list[Event]) -> bool:
        assert isinstance(command, Move)
        to = command.to
        if (
            self.phase is not Phase.SEEKER_MOVING
            or self.announced is None
            or not 0 <= to < self.maze.cell_count
            or not (self.targets >> to) & 1  # fixed at the announcement, as in the engine
        ):
            return False
        events.append(FigureMoved(self.figure, self.positions[self.figure], to))
        self.positions[self.figure] = to
        self.announced = None
        self.targets = 0
        self.roll = ()
        self.phase = Phase.SEEKER_CARD
        return True

    def playable_card(self) -> Treasure | None:
        """The card the figure whose turn it is may play now (``engine.playable_card``)."""
        if self.phase is not Phase.SEEKER_CARD:
            return None
        treasure = self.maze.treasure_by_cell.get(self.positions[self.figure])
        if treasure is not None and treasure in self.hands[self.owner[self.figure]]:
            return treasure
        return None

    def _play_card(self, command: Command, events: list[Event]) -> bool:
        treasure = self.playable_card()
        if treasure is None:
            return False
        seeker = self.owner[self.figure]
        hand = self.hands[seeker]
        hand.remove(treasure)
        self.played[seeker].append(treasure)
        events.append(CardPlayed(self.figure, seeker, treasure, len(hand)))
        if not hand:
            self._win(Winner(seeker, "played their last card"), events)
        else:
            self._end_seeker_turn(events)
        return True

    def _end_turn(self, command: Command, events: list[Event]) -> bool:
        if self.phase is not Phase.SEEKER_CARD:
            return False
        self._end_seeker_turn(events)
        return True

    def _roll_mummy_die(self, command: Command, events: list[Event]) -> bool:
        assert isinstance(command, RollMummyDie)
        if self.phase is not Phase.MUMMY_ROLL:
            return False
        faces = self.setup.options.mummy_die_faces
        if command.value is None:
            index, self.rng = random_below(self.rng, len(faces))
            value = faces[index]
        elif command.value in faces:
            value = command.value
        else:
            return False
        steps = value + self.dice_out
        events.append(MummyDieRolled(value, steps))
        self._start_mummy_move(MummyMoveKind.NORMAL, steps, events)
        return True

    def _mummy_step(self, command: Command, events: list[Event]) -> bool:
        assert isinstance(command, MummyStep)
        if self.phase is not Phase.MUMMY_MOVING:
            return False
        maze = self.maze
        to = command.to
        here = self.mummy
        if here < maze.cell_count:
            if to not in maze.adjacent[here]:
                return False
        elif not (maze.room_exits[here] >> to) & 1 or to >= maze.cell_count:
            return False
        self.steps_left -= 1
        events.append(MummyMoved(here, to, self.steps_left))
        self.mummy = to
        if to in self.positions:
            if not self._catch(self.positions.index(to), events):
                self._finish_mummy_move(events)
        elif self.steps_left == 0:
            self._finish_mummy_move(events)
        return True

    def _end_mummy_move(self, command: Command, events: list[Event]) -> bool:
        if self.phase is not Phase.MUMMY_MOVING or (
            self.setup.options.mummy_moves_exactly and self.steps_left > 0
        ):
            return False
        self._finish_mummy_move(events)
        return True

    # -- turn flow (as in engine.py) -------------------------------------------------------

    def _start_mummy_move(self, kind: MummyMoveKind, steps: int, events: list[Event]) -> None:
        events.append(MummyMoveStarted(kind, steps))
        self.phase = Phase.MUMMY_MOVING
        self.mummy_move = kind
        self.steps_left = steps
        if steps == 0:
            self._finish_mummy_move(events)

    def _finish_mummy_move(self, events: list[Event]) -> None:
        events.append(MummyMoveEnded(self.mummy))
        kind = self.mummy_move
        self.mummy_move = None
        self.steps_left = 0
        if kind is MummyMoveKind.NORMAL:
            self.rounds += 1
            if self.forced_resolve:
                self.forced_resolve = False
                events.append(Resolved(self.figure, self.dice_out, True))
                self._start_mummy_move(MummyMoveKind.AFTER_NORMAL, self.dice_out, events)
                return
            self._begin_seeker_turn(self._next_figure(-1), events)
            return
        self.dice_out = 0
        if kind is MummyMoveKind.AFTER_NORMAL:
            self._begin_seeker_turn(self._next_figure(-1), events)
            return
        if self.positions[self.figure] < 0:
            self._end_seeker_turn(events)
            return
        if not can_move_at_all(self, self.figure):
            events.append(SeekerSkipped(self.figure))
            self._end_seeker_turn(events)
            return
        self.phase = Phase.SEEKER_TURN
        self.may_resolve = False

    def _begin_seeker_turn(self, figure: int, events: list[Event]) -> None:
        while True:
            if figure < 0:
                events.append(MummyTurnStarted(self.dice_out))
                self.phase = Phase.MUMMY_ROLL
                self.roll = ()
                self.announced = None
                self.may_resolve = False
                return
            self.figure = figure
            self.phase = Phase.SEEKER_TURN
            self.may_resolve = True
            self.roll = ()
            self.announced = None
            self.targets = 0
            events.append(TurnStarted(figure))
            if self.forced_resolve:
                self.forced_resolve = False
                events.append(Resolved(figure, self.dice_out, True))
                self._start_mummy_move(MummyMoveKind.RESOLVE, self.dice_out, events)
                return
            if can_move_at_all(self, figure):
                return
            events.append(SeekerSkipped(figure))
            figure = self._next_figure(figure)

    def _end_seeker_turn(self, events: list[Event]) -> None:
        self._begin_seeker_turn(self._next_figure(self.figure), events)

    def _next_figure(self, figure: int) -> int:
        positions = self.positions
        for f in range(figure + 1, len(positions)):
            if positions[f] >= 0:
                return f
        return -1

    def _catch(self, figure: int, events: list[Event]) -> bool:
        """Catch ``figure``; True when that won the game."""
        seeker = self.owner[figure]
        ankhs_left = self.ankhs[seeker] - 1
        self.mummy_ankhs += 1
        events.append(SeekerCaught(figure, seeker, self.mummy, ankhs_left))
        self.positions[figure] = self.maze.sarcophagus_node
        if ankhs_left == 0:
            events.append(SeekerOut(seeker))
            for f, owner in enumerate(self.owner):
                if owner == seeker:
                    self.positions[f] = -1
        self.ankhs[seeker] = ankhs_left
        if self.mummy_ankhs >= self.setup.win_ankhs:
            self._win(Winner(None, f"holds {self.mummy_ankhs} ankhs"), events)
        elif not any(self.ankhs):
            self._win(Winner(None, "every seeker is out"), events)
        else:
            return False
        return True

    def _win(self, winner: Winner, events: list[Event]) -> None:
        events.append(GameWon(winner))
        self.phase = Phase.GAME_OVER
        self.winner = winner
        self.steps_left = 0
        self.mummy_move = None


#: Each command's handler (a class-wide table: a game holds no cycle to itself and is
#: freed the moment it is dropped).
_HANDLERS: dict[type[Command], Callable[[FastGame, Command, list[Event]], bool]] = {
    Resolve: FastGame._resolve,
    Roll: FastGame._roll,
    Announce: FastGame._announce,
    Move: FastGame._move,
    PlayCard: FastGame._play_card,
    EndTurn: FastGame._end_turn,
    RollMummyDie: FastGame._roll_mummy_die,
    MummyStep: FastGame._mummy_step,
    EndMummyMove: FastGame._end_mummy_move,
}
