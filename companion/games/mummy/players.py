"""Simple automatic players for self-play, simulation and the mock demo.

The seekers head for the treasures on their own cards and keep away from the mummy.
The mummy never looks at the seekers: it keeps, for each figure, the set of cells the
figure could be on given only what the mummy may know (the announced dice, cards
played, catches, its own empty steps) and hunts the most certain figure.
"""

from __future__ import annotations

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
from .dice import Face, random_below
from .engine import playable_card
from .events import (
    Announced,
    CardPlayed,
    Event,
    MummyMoved,
    MummyMoveStarted,
    SeekerCaught,
    SeekerOut,
)
from .maze import Maze, mask_cells
from .moves import destinations_mask, free_arrow_masks
from .state import Phase, Setup, Situation, State

# Commands are immutable values: the bots hand out one of each (self-play makes millions).
_RESOLVE, _ROLL, _PLAY_CARD, _END_TURN = Resolve(), Roll(), PlayCard(), EndTurn()
_ROLL_MUMMY_DIE, _END_MUMMY_MOVE = RollMummyDie(), EndMummyMove()


class SeekerBot:
    """Plays every seeker: greedy towards the nearest needed treasure."""

    def __init__(self, maze: Maze, *, rerolls: int = 2, resolve_at: int = 3) -> None:
        self.maze = maze
        self.rerolls = rerolls
        self.resolve_at = resolve_at
        self._rolls_this_turn = 0
        self._target = -1

    def choose(self, state: Situation) -> Command:
        phase = state.phase
        if phase is Phase.SEEKER_TURN:
            self._rolls_this_turn = 0
            if state.may_resolve and state.dice_out >= self.resolve_at:
                return _RESOLVE
            self._rolls_this_turn += 1
            return _ROLL
        if phase is Phase.SEEKER_ROLLED:
            return self._pick(state)
        if phase is Phase.SEEKER_MOVING:
            return Move(self._target)
        if phase is Phase.SEEKER_CARD:
            return _PLAY_CARD if playable_card(state) else _END_TURN
        raise ValueError(f"the seeker bot does not play in phase {phase.value}")

    def _pick(self, state: Situation) -> Command:
        maze = self.maze
        figure = state.figure
        hand = state.hands[state.seeker]
        wanted = frozenset(t.cell for t in hand)
        table = self._distance_table(wanted)
        now = table[state.positions[figure]]
        mummy_dist = maze.distances_from(state.mummy) if maze.is_cell(state.mummy) else None
        # The best (score, face, cell): the highest score, the first face of the roll and
        # then the lowest cell among equals.  Cells are visited from the top bit down.
        best: tuple[int, Face, int] | None = None
        for face in dict.fromkeys(state.roll):
            mask = destinations_mask(state, figure, face)
            face_score, face_cell = -1 << 30, -1
            while mask:
                cell = mask.bit_length() - 1
                mask ^= 1 << cell
                score = 100 if cell in wanted else -table[cell]
                if mummy_dist is not None and 0 <= mummy_dist[cell] <= 3:
                    score -= 4 - mummy_dist[cell]
                if score >= face_score:
                    face_score, face_cell = score, cell
            if face_cell >= 0 and (best is None or face_score > best[0]):
                best = (face_score, face, face_cell)
        if best is None:
            self._rolls_this_turn += 1
            return _ROLL
        improves = best[0] >= 100 or -best[0] < now
        if not improves and self._rolls_this_turn <= self.rerolls and state.dice_out < 3:
            self._rolls_this_turn += 1
            return _ROLL
        self._target = best[2]
        return Announce(best[1])

    def _distance_table(self, wanted: frozenset[int]) -> tuple[int, ...]:
        return self.maze.distances_to_nearest(wanted)


class MummyBot:
    """Plays the mummy from public information only (it is fed only visible events)."""

    def __init__(self, setup: Setup) -> None:
        self.maze = maze = setup.maze
        self.cells = maze.cells_mask
        self.start_bit = 1 << maze.start_node
        self.sarc_bit = 1 << maze.sarcophagus_node
        self.belief = [self.start_bit for _ in setup.figures]
        self.owner = setup.figure_owner
        self.mummy = maze.sarcophagus_node
        self._target = -1
        self._arrow = free_arrow_masks(maze)

    def observe(self, events: list[Event]) -> None:
        """Learn from the events the mummy may see (see views.visible_events)."""
        for event in events:
            if event.secret_from_mummy:
                raise ValueError("the mummy bot was shown a secret event")
            self.learn(event)

    def learn(self, event: Event) -> None:
        """Learn from one event the mummy may see (self-play calls it directly)."""
        if isinstance(event, MummyMoved):
            self.mummy = event.to
            seen = ~(1 << event.to)
            belief = self.belief
            for f, b in enumerate(belief):
                if b & seen:
                    belief[f] = b & seen
        elif isinstance(event, Announced):
            self.belief[event.figure] = self._spread(self.belief[event.figure], event.face)
        elif isinstance(event, MummyMoveStarted):
            self._target = -1
        elif isinstance(event, CardPlayed):
            self.belief[event.figure] = 1 << event.treasure.cell
        elif isinstance(event, SeekerCaught):
            self.belief[event.figure] = self.sarc_bit
        elif isinstance(event, SeekerOut):
            for f, _ in enumerate(self.belief):
                if self.owner[f] == event.seeker:
                    self.belief[f] = 0

    def choose(self, phase: Phase, mummy: int, steps_left: int, exactly: bool) -> Command:
        """The mummy's next command from its own position and step budget only."""
        if phase is Phase.MUMMY_ROLL:
            return _ROLL_MUMMY_DIE
        self.mummy = mummy
        if self._target < 0 or self._target == mummy:
            self._target = self._pick_target(mummy)
        maze = self.maze
        if self._target >= 0:
            if maze.is_cell(mummy):
                step = maze.next_step_towards(mummy, self._target)
                if step is not None:
                    return MummyStep(step)
            else:
                dist = maze.distances_from(self._target)
                best = min(maze.openings(mummy), key=lambda o: dist[o.cell])
                return MummyStep(best.cell)
        if not exactly:
            return _END_MUMMY_MOVE
        return MummyStep(self._any_step(mummy))

    def _any_step(self, mummy: int) -> int:
        maze = self.maze
        if not maze.is_cell(mummy):
            return maze.openings(mummy)[0].cell
        if not maze.adjacent[mummy]:
            raise ValueError("the mummy is walled in")
        return maze.adjacent[mummy][0]

    def _pick_target(self, mummy: int) -> int:
        """The nearest cell of the figure whose whereabouts are most certain."""
        candidates = [b & self.cells for b in self.belief if b & self.cells]
        if not candidates:
            return -1
        certain = min(candidates, key=int.bit_count)
        maze = self.maze
        dist = maze.distances_from(mummy)
        cells = mask_cells(certain)
        return min(cells, key=lambda c: (dist[c] if dist[c] >= 0 else 10_000, c))

    def _spread(self, belief: int, face: Face) -> int:
        maze = self.maze
        cells = belief & self.cells
        mummy_bit = (1 << self.mummy) if maze.is_cell(self.mummy) else 0
        if face is Face.ARROW:
            out = 0
            for cell in mask_cells(cells):
                out |= self._arrow[cell]
            for room, bit in (
                (maze.start_node, self.start_bit),
                (maze.sarcophagus_node, self.sarc_bit),
            ):
                if belief & bit:
                    out |= self._arrow[room]
            return out & ~mummy_bit or belief
        frontier = maze.expand(cells)
        for room, bit in (
            (maze.start_node, self.start_bit),
            (maze.sarcophagus_node, self.sarc_bit),
        ):
            if belief & bit:
                frontier |= maze.room_exits[room]
        frontier &= ~mummy_bit
        for _ in range(int(face) - 1):
            frontier = maze.expand(frontier) & ~mummy_bit
        return frontier or belief


class RandomSeekerBot:
    """A seeker that picks uniformly among legal moves (for fuzzing the engine)."""

    def __init__(self, seed: int) -> None:
        self.rng = seed

    def choose(self, state: State) -> Command:
        if state.phase is Phase.SEEKER_TURN:
            if state.may_resolve and state.dice_out and self._coin():
                return _RESOLVE
            return _ROLL
        if state.phase is Phase.SEEKER_ROLLED:
            options = [
                f for f in dict.fromkeys(state.roll) if destinations_mask(state, state.figure, f)
            ]
            if not options or self._coin(4):
                return _ROLL
            return Announce(options[self._below(len(options))])
        if state.phase is Phase.SEEKER_MOVING:
            assert state.announced is not None
            cells = mask_cells(destinations_mask(state, state.figure, state.announced))
            return Move(cells[self._below(len(cells))])
        if state.phase is Phase.SEEKER_CARD:
            return _PLAY_CARD if playable_card(state) and self._coin(4) else _END_TURN
        raise ValueError(f"the random bot does not play in phase {state.phase.value}")

    def _below(self, n: int) -> int:
        value, self.rng = random_below(self.rng, n)
        return value

    def _coin(self, odds: int = 2) -> bool:
        return self._below(odds) == 0
