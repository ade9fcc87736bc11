"""The guided board check: its steps, its verdicts and its report (pure: no clock, no I/O).

One core, two shells: the host's page ``/check`` (``companion.service.boardcheck_service``
and ``companion.web.boardcheck``) and ``companion selftest`` (``selftest.py``).  A shell
lights the step's positions, feeds what the sensors read (``reading``, with the time on
its clock) and passes on the maker's presses (``press``); the core says what to do next
and what it found.

The steps, in order:

1. **Empty board**: whatever reads with nothing on the board is *stuck*.
2. **Every position**, one at a time (its cell lit): once the board is clear, a figure
   is put on the centre.  The position must read: otherwise it is *dead* (the maker
   presses "nothing reads"), and if another position read instead, the wires are
   *swapped*.  Any other position that reads with it is *crosstalk*.
3. **Off the centre**: the maker slides that figure 5 mm off the centre, towards each
   side in turn, and presses "done" while it still stands: a position that let go
   meanwhile is *off-centre dead* (a sensor too deep, too weak or off its mark).
4. **Diodes** (a diode matrix only): three figures on three corners of a rectangle of
   crossings, X (the corner tested) and one crossing on its row and one on its column.
   The fourth corner reads as well (a *ghost*) exactly when X's diode conducts
   backwards: missing with a wire in its place, shorted or reversed
   (``diode_matrix.matrix_reads``).  An open diode shows as a dead position in step 2.

The report (``report``) names positions, not numbers, so one saved after repairs can
be compared with an older one (``compare``): what got fixed, what is new.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.i18n import Msg, joined, msg

#: How far off the centre the maker slides a figure (the figures' tolerance, mm).
OFFSET_MM = 5.0
#: A rectangle's three figures must read this long without a ghost before it passes (s).
RECTANGLE_HOLD_S = 0.4
#: The board must read empty this long (longer than any settle time) to pass (s).
EMPTY_HOLD_S = 1.0
#: A figure on the centre is watched this long for crosstalk before the next step (s).
CENTRE_HOLD_S = 0.3
#: The report's format.
REPORT_VERSION = 1

StepKind = Literal["empty", "centre", "off_centre", "rectangle", "done"]
FaultKind = Literal["stuck", "dead", "off_centre", "crosstalk", "swapped", "diode"]
Press = Literal["next", "skip", "finish"]
FAULT_KINDS: tuple[FaultKind, ...] = (
    "stuck",
    "dead",
    "off_centre",
    "crosstalk",
    "swapped",
    "diode",
)


@dataclass(frozen=True)
class Fault:
    """One finding: its kind, the position, and the others it concerns (the neighbours a
    figure also switched, where it was read instead, the ghost of a rectangle)."""

    kind: FaultKind
    position: int
    others: tuple[int, ...] = ()


@dataclass(frozen=True)
class Step:
    """What the maker does now: ``figures`` are the positions lit (where figures go)."""

    kind: StepKind
    position: int | None = None
    figures: tuple[int, ...] = ()
    #: A rectangle's fourth corner: it must stay empty.
    ghost: int | None = None


@dataclass(frozen=True)
class Board:
    """What the check needs of a board: its positions' names and, on a diode matrix,
    the crossing (row, column) of every position."""

    names: tuple[str, ...]
    crossings: Mapping[int, tuple[int, int]] | None = None

    @property
    def positions(self) -> int:
        return len(self.names)


def board_of(config: Any) -> Board:
    """The ``Board`` of a board config: a crossing per position when its sensors are a
    diode matrix (the Pi's ``matrix`` backend, or the Pico's: ``serial`` with a stride)."""
    sensors = config.sensors
    names = tuple(config.position_name(p) for p in range(config.positions))
    width = matrix_columns(config)
    crossings = None
    if width is not None:
        crossings = {p: divmod(index, width) for p, index in enumerate(sensors.indices)}
    return Board(names, crossings)


def matrix_columns(config: Any) -> int | None:
    """How many columns the board's diode matrix has (None: not a matrix): the Pi's
    ``matrix`` backend, or the Pico's firmware as shipped (``companion/firmware/settings.py``)
    when its matrix has as many crossings as the config's sensors."""
    sensors = config.sensors
    if sensors.backend == "matrix":
        return len(sensors.column_pins)
    if sensors.backend == "serial":
        from companion.firmware import settings

        columns = len(settings.COLUMN_PINS)
        if settings.SCANNER == "matrix" and len(settings.ROW_PINS) * columns == sensors.count:
            return columns
    return None


@dataclass
class BoardCheck:
    """The check's state: the step, what has been found, which positions were walked."""

    board: Board
    #: The positions to walk (default: every one), in order.
    order: Sequence[int] | None = None
    #: Walk the off-centre step after each position's centre step.
    off_centre: bool = True
    #: Walk the diode step (matrix boards only).
    diodes: bool = True
    faults: list[Fault] = field(default_factory=list)
    #: Positions whose centre step ended (read or found dead).
    checked: list[int] = field(default_factory=list)
    #: Positions whose diode was tested.
    diodes_checked: list[int] = field(default_factory=list)
    #: The last reading: the positions whose sensors read a figure.
    active: frozenset[int] = frozenset()
    _queue: list[Step] = field(default_factory=list)
    _step: Step = field(default_factory=lambda: Step("empty"))
    _cleared: bool = False
    _leftover: set[int] = field(default_factory=set)
    _dropped: bool = False
    _present: bool = False
    _extras: set[int] = field(default_factory=set)
    _held_since: float | None = None
    #: The maker ended the check before its last step.
    finished_early: bool = False

    def __post_init__(self) -> None:
        order = list(range(self.board.positions)) if self.order is None else list(self.order)
        self._queue = [Step("centre", p, (p,)) for p in order]
        if self.diodes and self.board.crossings is not None:
            self._queue += [Step("rectangle", p) for p in order]
        self._step = Step("empty")

    # -- what the shells ask ----------------------------------------------------------

    @property
    def step(self) -> Step:
        return self._step

    @property
    def done(self) -> bool:
        return self._step.kind == "done"

    @property
    def stuck(self) -> frozenset[int]:
        return frozenset(f.position for f in self.faults if f.kind == "stuck")

    def of_kind(self, kind: FaultKind) -> list[Fault]:
        return [f for f in self.faults if f.kind == kind]

    @property
    def waiting_for_clear(self) -> bool:
        """A position's step waits for the board to be cleared of the last figure."""
        return self._step.kind == "centre" and not self._cleared

    def remaining(self) -> int:
        """Steps still to walk after this one."""
        return len(self._queue)

    # -- what the shells feed ---------------------------------------------------------

    def reading(self, active: Iterable[int], now: float) -> None:
        """What the sensors read now (debounced), at ``now`` on the shell's clock."""
        self.active = frozenset(active)
        step = self._step
        loose = self.active - self.stuck
        if step.kind == "empty":
            if self.active:
                self._held_since = None
            elif self._held_since is None:
                self._held_since = now
            elif now - self._held_since >= EMPTY_HOLD_S:
                self._advance()
        elif step.kind == "centre":
            assert step.position is not None
            if not self._cleared:
                # the figures that stood when this step began must go first (they may
                # go and the new one come between two readings)
                self._leftover &= loose
                self._cleared = not self._leftover
                if not self._cleared:
                    return
            read = step.position in loose
            if read:
                self._extras |= loose - {step.position}
                if self._held_since is None:
                    self._held_since = now
            else:
                self._extras |= loose
            # watched long enough for crosstalk, or lifted early: the position read
            if self._held_since is not None and (
                not read or now - self._held_since >= CENTRE_HOLD_S
            ):
                if self.off_centre:
                    extras = self._extras
                    self._begin(Step("off_centre", step.position, step.figures))
                    self._extras = extras
                else:
                    self._end_position(step.position, seen=True)
        elif step.kind == "off_centre":
            assert step.position is not None
            if step.position in self.active:
                self._present = True
            elif self._present:
                self._dropped = True
            self._extras |= loose - {step.position}
        elif step.kind == "rectangle":
            self._judge_rectangle(now)

    def press(self, answer: Press) -> None:
        """The maker's button: ``next`` (done, or the board is clear), ``skip`` (nothing
        reads here, or this step cannot be done), ``finish`` (end the check now)."""
        step = self._step
        if answer == "finish":
            self.finished_early = bool(self._queue) or step.kind != "done"
            self._queue.clear()
            self._begin(Step("done"))
            return
        if step.kind == "empty":
            self.faults += [Fault("stuck", p) for p in sorted(self.active)]
            self._advance()
        elif step.kind == "centre":
            assert step.position is not None
            loose = self.active - self.stuck
            if self._cleared and step.position in loose:
                return  # it reads: ``reading`` ends the step by itself
            if self._cleared:
                self._extras |= loose  # read elsewhere: swapped wires
            self._end_position(step.position, seen=False)
        elif step.kind == "off_centre":
            assert step.position is not None
            if self._dropped or step.position not in self.active:
                self.faults.append(Fault("off_centre", step.position))
            self._end_position(step.position, seen=True)
        elif step.kind == "rectangle":
            if answer == "next" and step.ghost is not None:
                self._verdict(step, step.ghost in self.active)
            else:
                self._advance()

    # -- inside -----------------------------------------------------------------------

    def _end_position(self, position: int, *, seen: bool) -> None:
        if not seen:
            self.faults.append(Fault("dead", position))
        extras = tuple(sorted(self._extras))
        if extras:
            self.faults.append(Fault("crosstalk" if seen else "swapped", position, extras))
        self.checked.append(position)
        self._advance()

    def _advance(self) -> None:
        while self._queue:
            step = self._queue.pop(0)
            if step.kind == "centre" and step.position in self.stuck:
                continue  # a stuck sensor reads anyway: its verdict is given
            if step.kind == "rectangle":
                made = self._rectangle(step.position)
                if made is None:
                    continue
                step = made
            self._begin(step)
            return
        self._begin(Step("done"))

    def _begin(self, step: Step) -> None:
        self._step = step
        self._cleared = False
        self._dropped = False
        self._present = False
        self._held_since = None
        if step.kind == "centre":
            self._extras = set()
            self._leftover = set(self.active - self.stuck)

    def _rectangle(self, corner: int | None) -> Step | None:
        """Three figures for ``corner``'s diode: it, one on its row and one on its column,
        the nearest whose sensors and the fourth corner's work (None: no such rectangle)."""
        crossings = self.board.crossings
        if crossings is None or corner is None:
            return None
        bad = {f.position for f in self.faults if f.kind in ("stuck", "dead", "crosstalk")}
        at = {crossing: p for p, crossing in crossings.items()}
        row, column = crossings[corner]
        rows = sorted({r for r, _ in at}, key=lambda r: (abs(r - row), r))
        columns = sorted({c for _, c in at}, key=lambda c: (abs(c - column), c))
        for other_row in rows:
            for other_column in columns:
                if other_row == row or other_column == column:
                    continue
                along = at.get((row, other_column))
                down = at.get((other_row, column))
                ghost = at.get((other_row, other_column))
                if along is None or down is None or ghost is None:
                    continue
                if {along, down, ghost} & bad:
                    continue
                return Step("rectangle", corner, (corner, along, down), ghost)
        return None

    def _judge_rectangle(self, now: float) -> None:
        step = self._step
        if step.ghost is None:
            return
        if step.ghost not in self.active:
            self._cleared = True  # a ghost left from the step before is no verdict
        if not self._cleared or not set(step.figures[1:]) <= self.active:
            self._held_since = None
            return
        if step.ghost in self.active:
            self._verdict(step, True)
            return
        if step.figures[0] not in self.active:
            return  # a dead corner: the maker says when its figure stands (``press``)
        if self._held_since is None:
            self._held_since = now
        elif now - self._held_since >= RECTANGLE_HOLD_S:
            self._verdict(step, False)

    def _verdict(self, step: Step, ghost: bool) -> None:
        assert step.position is not None and step.ghost is not None
        if ghost:
            self.faults.append(Fault("diode", step.position, (*step.figures[1:], step.ghost)))
        self.diodes_checked.append(step.position)
        self._advance()


# -- words -------------------------------------------------------------------------------


def fault_message(fault: Fault, names: Sequence[str]) -> Msg:
    """A finding in the maker's words (English and German through the catalogs)."""
    cell = names[fault.position]
    others: list[str | Msg] = [names[p] for p in fault.others]
    if fault.kind == "stuck":
        return msg("{cell} reads a figure on the empty board: a stuck sensor.", cell=cell)
    if fault.kind == "dead":
        return msg(
            "{cell} never read the figure: a dead sensor (its switch, its wiring, on a "
            "diode matrix its diode).",
            cell=cell,
        )
    if fault.kind == "off_centre":
        return msg(
            "{cell} sees a figure at its centre but not 5 mm off it: the sensor is too "
            "deep, too weak or off its mark.",
            cell=cell,
        )
    if fault.kind == "crosstalk":
        return msg(
            "A figure on {cell} also switches {others}: crosstalk (a magnet too strong, a "
            "sensor too close, or on a diode matrix a column without its pull-up).",
            cell=cell,
            others=joined(others),
        )
    if fault.kind == "swapped":
        return msg(
            "A figure on {cell} was read on {others}: swapped wires.",
            cell=cell,
            others=joined(others),
        )
    along, down, ghost = others
    return msg(
        "Figures on {cell}, {along} and {down} make {ghost} read: the diode at {cell} is "
        "missing, shorted or reversed.",
        cell=cell,
        along=along,
        down=down,
        ghost=ghost,
    )


def step_message(check: BoardCheck) -> Msg:
    """What the maker does now, in words."""
    step, names = check.step, check.board.names
    if step.kind == "empty":
        return msg("Clear the board of every figure and magnet. If a cell still reads, press Done.")
    if step.kind == "done":
        return msg("The check is over: the report is saved.")
    assert step.position is not None
    cell = names[step.position]
    if step.kind == "centre":
        if not check._cleared:
            return msg("Lift every figure off the board.")
        return msg(
            "Put one figure on the centre of {cell} (lit). If nothing reads, press Nothing reads.",
            cell=cell,
        )
    if step.kind == "off_centre":
        return msg(
            "Slide the figure on {cell} 5 mm off the centre, towards each side in turn, "
            "and press Done while it still stands.",
            cell=cell,
        )
    along, down = (names[p] for p in step.figures[1:])
    return msg(
        "Diode of {cell}: put figures on {cell}, {along} and {down} (lit); {ghost} must "
        "stay empty.",
        cell=cell,
        along=along,
        down=down,
        ghost=names[step.ghost] if step.ghost is not None else "",
    )


# -- the report --------------------------------------------------------------------------


def report(check: BoardCheck, *, board_name: str, started: str, finished: str) -> dict[str, Any]:
    """The check's result as JSON data: positions by name, faults by kind."""
    names = check.board.names
    return {
        "version": REPORT_VERSION,
        "board": board_name,
        "started": started,
        "finished": finished,
        "complete": check.done and not check.finished_early,
        "positions": len(names),
        "checked": [names[p] for p in check.checked],
        "diodes_checked": [names[p] for p in check.diodes_checked],
        "faults": [
            {"kind": f.kind, "cell": names[f.position], "others": [names[p] for p in f.others]}
            for f in check.faults
        ],
    }


def report_lines(data: Mapping[str, Any]) -> list[Msg]:
    """A saved report's findings in words."""
    lines = []
    for entry in data.get("faults", []):
        kind, cell, others = entry.get("kind"), entry.get("cell"), entry.get("others", [])
        if kind not in FAULT_KINDS or not isinstance(cell, str) or not isinstance(others, list):
            continue
        names = [cell, *(str(o) for o in others)]
        fault = Fault(kind, 0, tuple(range(1, len(names))))
        if kind == "diode" and len(names) != 4:
            continue
        lines.append(fault_message(fault, names))
    return lines


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """What changed between two reports of one board: ``fixed`` (found before, checked
    again and not found now), ``new`` (found now, not before), ``still`` (both)."""

    def key(entry: Mapping[str, Any]) -> tuple[str, str]:
        return (str(entry.get("kind")), str(entry.get("cell")))

    before = {key(e): e for e in old.get("faults", [])}
    after = {key(e): e for e in new.get("faults", [])}
    rechecked = set(new.get("checked", [])) | set(new.get("diodes_checked", []))
    # the empty board is looked at every time; the rest only where the walk came
    fixed = [
        e for k, e in before.items() if k not in after and (k[0] == "stuck" or k[1] in rechecked)
    ]
    return {
        "fixed": fixed,
        "new": [e for k, e in after.items() if k not in before],
        "still": [e for k, e in after.items() if k in before],
    }
