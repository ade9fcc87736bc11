"""The 74HC165 chain's clock line: where the chips go, how long the wire may be, and why.

The clock (SPI1 SCLK, GPIO21) reaches all 19 chips.  The 74HC165 has no Schmitt-trigger
inputs, so an edge that rings back through the input's threshold counts twice and every
sensor after that chip reads one place off.  The guide therefore places the chips on
purpose: **one bank**, all chips side by side on one strip of board under the middle of
the maze, the clock a single bus along them, from one 47 ohm resistor at the Pi's pin.
Only the sensor wires (slow, static levels with pull-ups) run out to the cells.

Why that works, in numbers (``clock_line``), with datasheet values:

- The edge is set by the resistor and the load, not by the SPI clock's 500 kHz: the
  Pi's pin (about 40 ohm at its default 8 mA drive) plus the 47 ohm resistor charge the
  chips' inputs (74HC165 C_I 3.5 pF typical, 10 pF maximum) and the wire (about 50 pF/m
  beside its GND wire).  A 10-90 % edge is 2.2 RC.
- The wire is *electrically short* (one lumped load, no reflections between chips) while
  its one-way delay (about 5 ns/m) is at most a sixth of the fastest edge.  That gives
  the length budget; within it the line is one series RLC circuit.
- The 47 ohm resistor damps that circuit (the wire's inductance, about 0.7 uH/m,
  against its capacitance): ``damping`` is its ratio, ``overshoot`` the first peak.
  Without the resistor the same wire overshoots by a third and rings back; with it,
  by a few per cent.
- The slowest edge (all inputs at their 10 pF) stays a small part of the 1 us half
  period at 500 kHz and far inside the 74HC's input transition limit (500 ns at 4.5 V).

Chips placed next to their cells instead make a clock bus of metres (12 rows of
300 mm): a transmission line with 19 taps, where the series resistor that tames a
lumped load leaves the taps in the middle a half-height step (near 1.65 V, inside the
74HC's undefined band) for a round trip.  A board that cannot keep the chips in one
bank needs a buffer per branch instead (one 74LVC125 gate per group of chips, each
output with its own 33-47 ohm resistor, each branch within this budget).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.board.shift_register import SPI_CLOCK_HZ

#: The 47 ohm series resistor at the Pi's SCLK pin.
SERIES_OHMS = 47.0
#: A Pi GPIO's output resistance at its default 8 mA drive (a 3.3 V pin sagging about
#: 0.3 V at 8 mA): about 40 ohm, on the BCM283x and on the Pi 5's RP1 alike.
PIN_OHMS = 40.0
#: 74HC165 clock input capacitance C_I: typical and maximum (NXP 74HC165 datasheet).
INPUT_PF_TYPICAL = 3.5
INPUT_PF_MAX = 10.0
#: A hook-up or ribbon wire beside its GND wire: capacitance, inductance, delay per metre.
WIRE_PF_PER_M = 50.0
WIRE_UH_PER_M = 0.7
WIRE_NS_PER_M = 5.0
#: The wire is one lumped load while its delay is at most this part of the edge.
LUMPED_FRACTION = 1 / 6
#: The 74HC's longest input edge at 4.5 V (t_t, 500 ns): 3.3 V allows more.
MAX_INPUT_EDGE_NS = 500.0
#: The bank: DIP-16 chips side by side on stripboard, 0.6 inch apart.
CHIP_PITCH_MM = 15.24
#: The lead from the resistor at the Pi to the bank's first chip, at most.
LEAD_MM = 300.0


@dataclass(frozen=True)
class ClockLine:
    """The clock bus of ``chips`` chips over ``length_mm`` of wire, from the resistor on."""

    chips: int
    length_mm: float
    series_ohms: float
    capacitance_pf_typical: float
    capacitance_pf_max: float
    #: 10-90 % edges: the fastest (typical inputs) and the slowest (every input at maximum).
    edge_ns_fastest: float
    edge_ns_slowest: float
    delay_ns: float
    damping: float
    overshoot: float

    @property
    def lumped(self) -> bool:
        """Short enough to be one load: its delay is at most a sixth of the fastest edge."""
        return self.delay_ns <= LUMPED_FRACTION * self.edge_ns_fastest

    @property
    def half_period_ns(self) -> float:
        return 1e9 / SPI_CLOCK_HZ / 2

    @property
    def edge_share(self) -> float:
        """The slowest edge as a part of the clock's half period."""
        return self.edge_ns_slowest / self.half_period_ns


def bank_length_mm(chips: int) -> float:
    """The clock wire from the resistor to the farthest chip of a bank of ``chips``."""
    return LEAD_MM + CHIP_PITCH_MM * (chips - 1)


def clock_line(chips: int, length_mm: float, series_ohms: float = SERIES_OHMS) -> ClockLine:
    """Edges, delay and damping of the clock bus (see the module docstring)."""
    if chips < 1 or not math.isfinite(length_mm) or length_mm <= 0:
        raise ValueError("a clock line needs at least one chip and a length above 0 mm")
    metres = length_mm / 1000
    wire_pf = WIRE_PF_PER_M * metres
    typical = chips * INPUT_PF_TYPICAL + wire_pf
    worst = chips * INPUT_PF_MAX + wire_pf
    ohms = PIN_OHMS + series_ohms
    inductance = WIRE_UH_PER_M * metres * 1e-6
    # A series RLC loaded at its end: zeta = R / 2 * sqrt(C / L); the lightest load rings most.
    damping = ohms / 2 * math.sqrt(typical * 1e-12 / inductance)
    overshoot = math.exp(-math.pi * damping / math.sqrt(1 - damping**2)) if damping < 1 else 0.0
    return ClockLine(
        chips=chips,
        length_mm=length_mm,
        series_ohms=series_ohms,
        capacitance_pf_typical=typical,
        capacitance_pf_max=worst,
        edge_ns_fastest=2.2 * ohms * typical * 1e-3,
        edge_ns_slowest=2.2 * ohms * worst * 1e-3,
        delay_ns=WIRE_NS_PER_M * metres,
        damping=damping,
        overshoot=overshoot,
    )


def longest_lumped_mm(chips: int, series_ohms: float = SERIES_OHMS) -> float:
    """The length budget: the longest clock bus that is still one lumped load (1 mm steps)."""
    length = 1.0
    while clock_line(chips, length + 1, series_ohms).lumped:
        length += 1
    return length


def summary(chips: int) -> str:
    """One paragraph with the bank's numbers, for the wiring sheet and the guide."""
    length = bank_length_mm(chips)
    line = clock_line(chips, length)
    bare = clock_line(chips, length, series_ohms=0.0)
    budget = longest_lumped_mm(chips)
    return (
        f"Put all {chips} chips side by side in one bank ({CHIP_PITCH_MM:g} mm apart) under "
        f"the middle of the maze, the clock one bus along them; only the sensor wires run "
        f"out to the cells. From the {SERIES_OHMS:g} ohm resistor at the Pi's SCLK pin to "
        f"the farthest chip that is {length:.0f} mm ({LEAD_MM:.0f} mm lead + the bank): "
        f"keep it under {budget:.0f} mm, the length at which the wire stops being one "
        f"lumped load. At {SPI_CLOCK_HZ / 1000:.0f} kHz a clock half period is "
        f"{line.half_period_ns:.0f} ns; the edge is set by the resistor and the load: "
        f"{line.edge_ns_fastest:.0f} ns with typical inputs ({line.capacitance_pf_typical:.0f} "
        f"pF), {line.edge_ns_slowest:.0f} ns with every input at its 10 pF maximum "
        f"({line.edge_share:.0%} of the half period), against a one-way delay of "
        f"{line.delay_ns:.1f} ns. The resistor damps the wire's inductance against its "
        f"capacitance: overshoot {line.overshoot:.0%} (damping {line.damping:.2f}); without "
        f"it {bare.overshoot:.0%} (damping {bare.damping:.2f}), ringing back towards the "
        "threshold of inputs that have no Schmitt trigger. Chips spread out to their cells "
        f"make a bus of metres (4 m have a {clock_line(chips, 4000).delay_ns:.0f} ns delay, "
        "as long as the edge): reflections, which one resistor does not tame; "
        "such a board needs a 74LVC125 buffer per branch, each with its own 33-47 ohm "
        "resistor."
    )
