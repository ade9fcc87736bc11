"""The wires and fuses of the hand-wired build: what each conductor carries, the gauge
that carries it, its outer diameter (which sizes the carrier's grooves and channels),
and the fuse that keeps a fault within what the thinnest wire on it can take.

One source for the BOM, the carrier (``parts``: groove and channel widths), the harness
lengths (``harness``) and the bring-up checklist.  The ratings are deliberately low: a
wire lying in a PLA groove must stay far below the 55-60 degC at which PLA softens, so
each is about half the usual chassis-wiring figure for a single PVC conductor in free
air (18 AWG 16 A, 24 AWG 3.5 A, 28 AWG 1.4 A).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.board.config import BoardConfig

from .wiring import led_runs, power_budget


@dataclass(frozen=True)
class Wire:
    """A wire the BOM buys: its cross-section, gauge, largest outer diameter and the
    current it may carry for good (A)."""

    key: str
    mm2: float
    awg: int
    od_max_mm: float
    rated_amps: float
    kind: str  # what to ask for

    @property
    def name(self) -> str:
        return (
            f"{self.mm2:g} mm2 ({self.awg} AWG) {self.kind}, outer diameter at most "
            f"{self.od_max_mm:g} mm"
        )


#: The 5 V and GND bus along the board's side, from the fuse to every row's feed.
BUS_WIRE = Wire("bus", 0.75, 18, 2.5, 8.0, "stranded, PVC")
#: Pixel to pixel (5 V, GND, data) and each row's feed from the bus.
LED_WIRE = Wire("led", 0.2, 24, 1.4, 2.0, "stranded, PVC (e.g. UL1007)")
#: Sensor wires in the harnesses: the conductors of a 1.27 mm pitch ribbon cable.
SENSOR_WIRE = Wire("sensor", 0.08, 28, 0.9, 0.8, "stranded, PVC (1.27 mm ribbon cable)")
WIRES = (BUS_WIRE, LED_WIRE, SENSOR_WIRE)

#: A closed reed switch at its 10 kohm pull-up from 3.3 V.
SENSOR_MILLIAMPS = 0.33


@dataclass(frozen=True)
class Fuse:
    """A fuse: what to buy, the current it carries for good and where it opens (A)."""

    name: str
    hold_amps: float
    trip_amps: float
    where: str


#: At the supply's + output, before the 1000 uF capacitor and the bus: a slow fuse (the
#: capacitor and the strip's switch-on draw a short surge).
SUPPLY_FUSE = Fuse(
    "5 A slow-blow fuse (T5A, 5 x 20 mm) in an inline holder",
    5.0,
    5.0,
    "at the LED supply's + output, before everything else",
)
#: In each row's 5 V feed from the bus: a resettable fuse (PTC) that holds a full row.
ROW_FUSE = Fuse(
    "resettable fuse (PTC) 0.9 A hold, 1.8 A trip: Bourns MF-R090 or Littelfuse RXEF090",
    0.9,
    1.8,
    "in each row's 5 V feed, where it leaves the bus",
)


@dataclass(frozen=True)
class Conductor:
    """One kind of conductor of the board: the most it carries in use, what limits a
    fault on it, and the wire it is made of."""

    what: str
    normal_amps: float
    fault_amps: float  # the fuse that protects it opens at this
    wire: Wire
    fuse: Fuse | None

    @property
    def ok(self) -> bool:
        """The wire carries what it must for good, and a fault opens a fuse before the
        wire carries more than twice its rating (the fuse's trip)."""
        return self.normal_amps <= self.wire.rated_amps and self.fault_amps <= max(
            2 * self.wire.rated_amps, self.wire.rated_amps
        )


def row_amps(config: BoardConfig) -> float:
    """The most one row (or pad group) of pixels can draw: every pixel of the longest
    run at full white, idle current included (A)."""
    leds = config.leds
    per_pixel = 3 * leds.milliamps_per_channel + leds.idle_milliamps
    longest = max(run.last - run.first + 1 for run in led_runs(config))
    return longest * per_pixel / 1000.0


def conductors(config: BoardConfig) -> list[Conductor]:
    """Every kind of conductor of the LED and sensor wiring with its current."""
    limit = config.leds.max_milliamps / 1000.0
    row = row_amps(config)
    return [
        Conductor("supply to fuse and bus (5 V and GND)", limit, SUPPLY_FUSE.trip_amps, BUS_WIRE,
                  SUPPLY_FUSE),
        Conductor("row feed and pixel jumpers (5 V and GND)", min(row, limit),
                  ROW_FUSE.trip_amps, LED_WIRE, ROW_FUSE),
        Conductor("pixel data jumpers", 0.01, 0.01, LED_WIRE, None),
        Conductor("sensor wires", SENSOR_MILLIAMPS / 1000.0, SENSOR_MILLIAMPS / 1000.0,
                  SENSOR_WIRE, None),
    ]  # fmt: skip


def power_problems(config: BoardConfig) -> list[str]:
    """What is wrong with the fuses and gauges for this config (nothing: an empty list)."""
    problems = []
    budget = power_budget(config)
    limit = config.leds.max_milliamps / 1000.0
    if SUPPLY_FUSE.hold_amps < limit:
        problems.append(
            f"the supply fuse ({SUPPLY_FUSE.hold_amps:g} A) would open below "
            f"leds.max_milliamps ({limit:g} A)"
        )
    if SUPPLY_FUSE.hold_amps > budget.supply_amps:
        problems.append(
            f"the supply fuse ({SUPPLY_FUSE.hold_amps:g} A) is larger than the supply the "
            f"guide sizes ({budget.supply_amps:g} A)"
        )
    if row_amps(config) > ROW_FUSE.hold_amps:
        problems.append(
            f"a row draws up to {row_amps(config):.2f} A, more than its fuse holds "
            f"({ROW_FUSE.hold_amps:g} A)"
        )
    for c in conductors(config):
        if not c.ok:
            problems.append(
                f"{c.what}: {c.wire.name} is rated {c.wire.rated_amps:g} A, but carries "
                f"{c.normal_amps:.2f} A and up to {c.fault_amps:g} A before a fuse opens"
            )
    return problems


def side_by_side_mm(wire: Wire, count: int, fit_mm: float) -> float:
    """The width a groove needs for ``count`` of ``wire`` side by side, and a fit."""
    return round(count * wire.od_max_mm + 2 * fit_mm, 2)


def layered_mm(wire: Wire, count: int, layers: int) -> tuple[float, float]:
    """(width, height) of ``count`` wires laid in ``layers`` layers."""
    per_layer = math.ceil(count / layers)
    return (per_layer * wire.od_max_mm, layers * wire.od_max_mm)


def power_table(config: BoardConfig) -> str:
    """The "wire gauge per current" table, as hardware/README.md quotes it."""
    lines = [
        "| conductor | carries in use | until a fuse opens | wire | rated |",
        "|---|---|---|---|---|",
    ]
    for c in conductors(config):
        fused = (
            f"{c.fault_amps:g} A ({c.fuse.name.split(' (')[0].split(':')[0]})" if c.fuse else "-"
        )
        ma = c.normal_amps * 1000
        use = f"{ma:,.0f} mA" if ma >= 1 else f"{ma:.2f} mA"
        lines.append(f"| {c.what} | {use} | {fused} | {c.wire.name} | {c.wire.rated_amps:g} A |")
    return "\n".join(lines)
