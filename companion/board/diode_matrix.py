"""The diode matrix's electrical rule, for both simulated matrices (the Pi's pins and
the Pico's ``keypad.KeyMatrix``): which crossings a scan reads, faulty diodes included."""

from __future__ import annotations

from collections.abc import Mapping

#: What a crossing's diode can be instead of good: ``open`` (missing with a gap, or
#: broken: its switch never reads), ``shorted`` (conducts both ways: shorted, or missing
#: with a wire in its place), ``reversed`` (fitted the wrong way round: never reads, and
#: conducts backwards).
DIODE_FAULTS = ("open", "shorted", "reversed")


def matrix_reads(closed: int, rows: int, columns: int, diodes: Mapping[int, str]) -> int:
    """The crossings a matrix scan reads (bit ``row * columns + column``) when the
    switches in ``closed`` are closed and the diodes in ``diodes`` are faulty.

    A crossing reads when current finds a way from its column to its row, the row
    being driven and the others floating.  A good diode lets it through column to row
    only; a shorted one both ways, a reversed one row to column only, an open one
    not at all.  So three closed switches on three corners of a rectangle make the
    fourth corner read (a ghost) exactly when the middle corner's diode conducts
    backwards: the board check's rectangle step.
    """
    if not diodes:
        return closed
    forward: dict[int, set[int]] = {}  # column node -> row nodes, row node -> column nodes
    width = columns
    bits = closed
    while bits:
        low = bits & -bits
        bits ^= low
        crossing = low.bit_length() - 1
        row, column = divmod(crossing, width)
        col_node, row_node = rows + column, row
        kind = diodes.get(crossing, "good")
        if kind in ("good", "shorted"):
            forward.setdefault(col_node, set()).add(row_node)
        if kind in ("reversed", "shorted"):
            forward.setdefault(row_node, set()).add(col_node)
    reads = 0
    for column in range(columns):
        start = rows + column
        seen, todo = {start}, [start]
        while todo:
            for nxt in forward.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        for row in range(rows):
            if row in seen:
                reads |= 1 << (row * width + column)
    return reads
