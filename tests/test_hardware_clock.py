"""The clock line of the 74HC165 chain (companion/hardware/clock.py): the numbers the guide
quotes follow from the datasheet values, and they separate the bank from chips spread
out to their cells."""

from __future__ import annotations

import math

import pytest

from companion.board.shift_register import SPI_CLOCK_HZ
from companion.hardware.clock import (
    INPUT_PF_MAX,
    MAX_INPUT_EDGE_NS,
    PIN_OHMS,
    SERIES_OHMS,
    bank_length_mm,
    clock_line,
    longest_lumped_mm,
)


def test_the_bank_is_one_damped_lumped_load_at_the_chains_clock() -> None:
    line = clock_line(19, bank_length_mm(19))
    assert line.lumped and line.delay_ns < line.edge_ns_fastest / 6
    assert line.overshoot < 0.10 and line.damping > 0.6
    assert line.half_period_ns == pytest.approx(1e9 / SPI_CLOCK_HZ / 2) == 1000
    assert line.edge_share < 0.05 and line.edge_ns_slowest < MAX_INPUT_EDGE_NS
    # The slowest edge is the RC of the pin, the resistor and every input at its maximum.
    rc = (PIN_OHMS + SERIES_OHMS) * (19 * INPUT_PF_MAX + 50 * bank_length_mm(19) / 1000)
    assert line.edge_ns_slowest == pytest.approx(2.2 * rc / 1000)


def test_the_resistor_is_what_damps_the_wire() -> None:
    length = bank_length_mm(19)
    bare, damped = clock_line(19, length, series_ohms=0.0), clock_line(19, length)
    assert bare.overshoot > 0.3 > 0.1 > damped.overshoot
    assert bare.edge_ns_fastest < damped.edge_ns_fastest


def test_chips_spread_to_their_cells_are_no_lumped_load() -> None:
    """12 rows of 300 mm and more: the delay is as long as the edge."""
    assert not clock_line(19, 4000).lumped
    budget = longest_lumped_mm(19)
    assert clock_line(19, budget).lumped and not clock_line(19, budget + 1).lumped
    assert bank_length_mm(19) < budget < 4000


@pytest.mark.parametrize("chips, length", [(0, 500.0), (19, 0.0), (19, math.inf), (19, math.nan)])
def test_a_line_without_chips_or_length_is_refused(chips: int, length: float) -> None:
    with pytest.raises(ValueError, match="at least one chip"):
        clock_line(chips, length)
