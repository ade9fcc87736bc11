"""The tracker: from the occupied positions on the board and the game, what happened.

A presence sensor cannot tell red from blue; the game can.  The tracker compares the
positions the game expects to be occupied with those the sensors report and judges:
the moving figure lifted, a legal placement (a Move command), an illegal one (why, in
player words), or a disturbed board that must be restored.  It is a pure function of
the game state and the occupancy, so a restart or an undo needs no tracker memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.board.render import HINT_PULSES
from companion.games.mummy.commands import Move
from companion.games.mummy.dice import Face
from companion.games.mummy.maze import mask_cells
from companion.games.mummy.moves import why_not
from companion.games.mummy.state import Phase, State
from companion.games.mummy.words import colour_word
from companion.i18n import N_, Msg, counted, joined, msg, word


@dataclass(frozen=True)
class BoardMap:
    """Where the game's places are on the board: cells are positions 0..cells-1, then
    one camp slot and one sarcophagus slot per figure."""

    cells: int
    camp: tuple[int, ...]
    sarcophagus: tuple[int, ...]

    @classmethod
    def for_board(cls, cells: int, camp_slots: int, sarcophagus_slots: int) -> BoardMap:
        camp = tuple(range(cells, cells + camp_slots))
        sarc = tuple(range(cells + camp_slots, cells + camp_slots + sarcophagus_slots))
        return cls(cells, camp, sarc)

    def position_of(self, state: State, figure: int) -> int | None:
        """The board position where ``figure`` should stand (None: out of the game)."""
        node = state.positions[figure]
        maze = state.maze
        if node < 0:
            return None
        if node == maze.start_node:
            return self.camp[figure]
        if node == maze.sarcophagus_node:
            return self.sarcophagus[figure]
        return node

    def expected(self, state: State) -> dict[int, int]:
        """Figure -> position, for every figure still in the game."""
        out = {}
        for figure in range(len(state.positions)):
            position = self.position_of(state, figure)
            if position is not None:
                out[figure] = position
        return out

    def name(self, position: int, state: State) -> Msg:
        if position < self.cells:
            return word(state.maze.cell_name(position))
        if position in self.camp:
            return msg("camp slot {n}", n=self.camp.index(position) + 1)
        return msg("sarcophagus slot {n}", n=self.sarcophagus.index(position) + 1)


@dataclass(frozen=True)
class Judgement:
    """What the board shows and what it means for the game."""

    #: A legal placement of the moving figure: apply it once the board is quiet.
    command: Move | None = None
    #: True when the board is exactly as the game expects (apart from the move in hand).
    matches: bool = True
    lifted: frozenset[int] = field(default_factory=frozenset)
    errors: frozenset[int] = field(default_factory=frozenset)
    hints: frozenset[int] = field(default_factory=frozenset)
    #: Whose hints: the moving seeker colour's pulse count (render.HINT_PULSES).
    hint_pulses: int = 0
    missing: frozenset[int] = field(default_factory=frozenset)
    unexpected: frozenset[int] = field(default_factory=frozenset)
    #: What the players should do, in their words (None: nothing to say).
    message: Msg | None = None
    #: The command replaces the seeker's last move (the figure moved on before the
    #: turn ended): it is applied to the state before that move.
    replaces: bool = False


def may_replace(before: State | None, last: object) -> bool:
    """Whether the last command is a seeker's move that a new placement may still
    replace: it was a move, and nobody has acted since (it is the last command)."""
    return (
        before is not None
        and isinstance(last, Move)
        and before.phase is Phase.SEEKER_MOVING
        and before.announced is not None
    )


def judge_replacement(
    before: State, last: Move, occupied: frozenset[int], board: BoardMap
) -> Judgement | None:
    """A placement that replaces the seeker's last move: the figure now stands on
    another legal cell of the same die, measured from where the turn began."""
    judgement = judge(before, occupied, board)
    if judgement.command is None or judgement.command.to == last.to:
        return None
    return replace(judgement, replaces=True)


def judge(
    state: State,
    occupied: frozenset[int],
    board: BoardMap,
    *,
    hints: bool = False,
    placements: bool = True,
) -> Judgement:
    """Judge the board against the game (see the module docstring).

    With ``placements`` False (just after an undo) a figure standing somewhere else is
    not taken as a move: the board must first be put back as the game now is.
    """
    expected = board.expected(state)
    should = frozenset(expected.values())
    gone = should - occupied
    extra = occupied - should
    colours = state.setup.figures
    if placements and state.phase is Phase.SEEKER_MOVING and state.announced is not None:
        figure = state.figure
        home = expected[figure]
        colour = colour_word(colours[figure])
        targets = frozenset(mask_cells(state.targets))
        pulses = HINT_PULSES[colours[figure].value]
        face = state.announced
        if face is Face.ARROW:
            steps = msg("with the arrow")
        else:
            steps = counted(int(face), "{n} step", "{n} steps")
        if not gone and not extra:
            return Judgement(message=msg("Move {colour} {steps}.", colour=colour, steps=steps))
        if gone == {home} and not extra:
            return Judgement(
                lifted=frozenset({home}),
                hints=targets if hints else frozenset(),
                hint_pulses=pulses,
                message=msg(
                    "Put {colour} down {steps} from {place}.",
                    colour=colour,
                    steps=steps,
                    place=board.name(home, state),
                ),
            )
        if gone == {home} and len(extra) == 1:
            (dest,) = extra
            if dest < board.cells and dest in targets:
                return Judgement(command=Move(dest), lifted=frozenset({home}))
            reason = (
                why_not(state, figure, face, dest)
                if dest < board.cells
                else msg("No figure may move onto the start field or into the sarcophagus.")
            )
            return Judgement(
                matches=False,
                lifted=frozenset({home}),
                errors=frozenset({dest}),
                hints=targets,
                hint_pulses=pulses,
                message=msg(
                    "{colour} may not stop on {place}: {reason}",
                    colour=colour,
                    place=board.name(dest, state),
                    reason=reason,
                ),
            )
    if not gone and not extra:
        return Judgement()
    return Judgement(
        matches=False,
        lifted=gone if len(gone) == 1 and not extra else frozenset(),
        missing=gone,
        unexpected=extra,
        message=_restore_message(state, board, expected, gone, extra),
    )


def _restore_message(
    state: State,
    board: BoardMap,
    expected: dict[int, int],
    gone: frozenset[int],
    extra: frozenset[int],
) -> Msg:
    """The steps in the order hands do them: a caught figure first (off its cell, into
    the sarcophagus), then the figures to take off, then those to put back."""
    colours = state.setup.figures
    caught: Msg | None = None
    back: list[Msg] = []
    for figure, position in sorted(expected.items()):
        if position not in gone:
            continue
        colour = colour_word(colours[figure])
        if position in board.sarcophagus:
            cell = state.mummy
            if caught is None and state.maze.is_cell(cell) and cell in extra:
                caught = msg(
                    "{colour} was caught. Take the figure off {place} and put it into the "
                    "sarcophagus.",
                    colour=colour,
                    place=board.name(cell, state),
                )
                extra = extra - {cell}
            else:
                back.append(
                    msg(
                        "put {colour} into the sarcophagus (slot {n})",
                        colour=colour,
                        n=board.sarcophagus.index(position) + 1,
                    )
                )
        else:
            back.append(
                msg(
                    "put {colour} back on {place}", colour=colour, place=board.name(position, state)
                )
            )
    parts: list[Msg] = []
    if extra:
        places = _places(board, state, extra)
        if len(extra) == 1:
            parts.append(msg("take the figure off {places}", places=places))
        else:
            parts.append(msg("take the figures off {places}", places=places))
    parts += back
    if not parts:
        assert caught is not None
        return caught
    text = parts[0]
    for part in parts[1:]:
        text = msg("{a}; {b}", a=text, b=part)
    restore = msg("Restore the board: {what}.", what=text)
    return restore if caught is None else msg("{a} {b}", a=caught, b=restore)


def _places(board: BoardMap, state: State, positions: frozenset[int]) -> Msg:
    """Board places as a list in words: "D11, camp slots 3 and 4"."""
    places: list[Msg] = [board.name(p, state) for p in sorted(positions) if p < board.cells]
    for one, many, slots in (
        (N_("camp slot {n}"), N_("camp slots {n}"), board.camp),
        (N_("sarcophagus slot {n}"), N_("sarcophagus slots {n}"), board.sarcophagus),
    ):
        numbers: list[Msg | str] = [
            str(slots.index(p) + 1) for p in sorted(positions) if p in slots
        ]
        if numbers:
            places.append(msg(one if len(numbers) == 1 else many, n=joined(numbers)))
    return joined(places)
