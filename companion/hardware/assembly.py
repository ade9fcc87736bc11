"""The order of work of the hand-wired build, checked against the carrier's geometry.

hardware/assembly.md prints :data:`ORDER` (a test keeps the page and this list equal).
Each step says which side of a tile it works on and which facts of the generated
carrier it relies on; :func:`problems` walks the order as a maker would and names every
step that cannot be done: one that needs the underside after the tiles are glued down,
or a fact the geometry does not give (a reed that cannot go in from the underside, a
lead whose bend would be nearer the glass than 3 mm, a wire channel that does not reach
the harness's way down).  Every stage ends with a named check.

The bring-up checklist (:data:`TEST_POINTS`) is the voltages to measure at named test
points at the first power-on, on a current-limited supply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .parts import (
    GROOVE_MM,
    SENSOR_CHANNEL_MM,
    SENSOR_CHANNEL_OFFSET_MM,
    SensorBuild,
    chain_holes,
    hall_leads,
    reed_cavity,
    reed_leads,
    sensor_holes,
    thickness,
    under_channels,
)
from .placement import Place
from .wires import LED_WIRE

#: The checks a stage may end with.
CHECKS = ("test piece", "jig", "continuity", "no short", "selftest", "bring-up", "/check")


@dataclass(frozen=True)
class Step:
    """One instruction: the side of the tile it works on ("bench": off the tile,
    "underside", "top", "below": under the base board), the builds it is for, the
    geometry facts it relies on, and whether it closes the underside for good."""

    text: str
    side: str
    builds: tuple[str, ...] = ("reed", "hall")
    needs: tuple[str, ...] = ()
    closes_underside: bool = False


@dataclass(frozen=True)
class Stage:
    title: str
    steps: tuple[Step, ...]
    check: str  # one of CHECKS
    check_text: str


ORDER = (
    Stage(
        "Print and check",
        (
            Step("Print the test piece; try a magnet, a sensor and three LED wires in it.",
                 "bench", needs=("groove holds three LED wires",)),
            Step("Print the 3 x 3 jig and two or more figure bases; glue a magnet into each, "
                 "the same pole up on all.", "bench"),
        ),
        "jig",
        "the jig with five sensors of the batch: each switches under a centred figure and "
        "at every round dimple, and stays open with figures at the slots",
    ),
    Stage(
        "Prepare each reed on the bench",
        (
            Step("Bend the top lead with pliers holding it 3 mm from the glass: straight up "
                 "3 mm, over 2.5 mm, back down beside the glass.", "bench", ("reed",),
                 ("top lead bends 3 mm from the glass",)),
            Step("Solder its harness wire to the end of the top lead.", "bench", ("reed",)),
            Step("Solder three harness wires to each Hall switch's feet and the 100 nF "
                 "across VCC and GND.", "bench", ("hall",)),
        ),
        "continuity",
        "a meter across the reed's wire and bottom lead: open, and closed with a magnet "
        "held to the glass (a Hall switch: powered from 3.3 V, its output goes low)",
    ),
    Stage(
        "Fit and wire the sensors, tile upside down",
        (
            Step("Lay the tile upside down. Push each reed glass first into its bore until "
                 "the glass meets the ledge, the top lead and its wire in the side channel.",
                 "underside", ("reed",),
                 ("reed goes in from the underside", "ledge holds the glass by its top",
                  "top lead ends in its side channel, open to the underside")),
            Step("Bend the bottom lead flat into the wire channel where it leaves the bore "
                 "and solder its wire to it; a dab of hot glue on the lead, not the glass.",
                 "underside", ("reed",), ("bottom lead bends in the wire channel",)),
            Step("Put each Hall switch face up into its pocket from the top, its wires "
                 "down the slots, then lay the tile upside down.", "top", ("hall",),
                 ("hall switch goes in from the top with its wires down its slots",)),
            Step("Lay each row's wires along its wire channel to the middle of the board "
                 "and tie them into the row's harness (the harness table's lengths).",
                 "underside", needs=("wire channel reaches the harness hole",)),
            Step("Run each row's 5 V and GND feed along the supply channel and up through "
                 "the wire hole at the row's first pixel.", "underside",
                 needs=("every row's feed has a wire hole",)),
        ),
        "continuity",
        "at the middle of each row, each harness wire to its common: open, and closed "
        "with a figure on that wire's cell (the cell names on the harness table)",
    ),
    Stage(
        "Pixels and jumpers on top",
        (
            Step("Turn the tile right side up; fit the pixels into their pockets in chain "
                 "order and solder the jumpers (5 V, GND, data) lying in the grooves.",
                 "top", needs=("groove holds three LED wires",)),
        ),
        "no short",
        "a meter between 5 V and GND of every row's feed: no short",
    ),
    Stage(
        "Glue the tiles down",
        (
            Step("Drill the base board's harness holes where the assembly sheet marks "
                 "them; glue the tiles on, each harness through its hole.", "top",
                 closes_underside=True),
        ),
        "continuity",
        "from under the base board, each harness wire to its common again, with a figure "
        "on its cell",
    ),
    Stage(
        "Chips, power and bring-up",
        (
            Step("Build the chip bank (design 1) or the Pico's matrix board (design 2) "
                 "under the base board and solder each harness wire to its input.", "below"),
            Step("Wire the supply through its 5 A fuse to the bus, each row's feed through "
                 "its PTC; power it first from a bench supply at 5.0 V, 0.3 A limit.",
                 "below"),
        ),
        "bring-up",
        "the voltages at the test points, then `companion selftest` (every position "
        "lights in turn; a figure on each reads exactly there)",
    ),
    Stage(
        "The maze on top",
        (
            Step("Lay the cover and the printed maze on the carrier.", "top"),
        ),
        "/check",
        "the board check in the browser (`/check`): empty board, every cell centred and "
        "5 mm off, and (design 2) the diode corners",
    ),
)  # fmt: skip


def facts(
    build: SensorBuild, board: Sequence[Place], pitch: float, x_drop: float
) -> dict[str, bool]:
    """What the generated carrier of ``board`` gives, for the steps to rely on (the
    harnesses go down at ``x_drop``)."""
    spot = board[0]
    holes = {h.what: h for h in sensor_holes(build, spot)}
    channels = [
        h for h in under_channels(board, thickness(build)) if h.what == "sensor wires channel"
    ]
    rows = {round(p.sensor[1], 6) for p in board}
    reach = all(
        any(
            abs(c.centre[1] - (y + SENSOR_CHANNEL_OFFSET_MM)) < 1e-6
            and c.box()[0] < x_drop < c.box()[2]
            for c in channels
        )
        for y in rows
    )
    wire_holes = {h.centre for h in chain_holes(board, pitch) if h.what == "wire hole"}
    firsts: dict[float, Place] = {}
    for place in sorted(board, key=lambda p: p.pixel_index):
        firsts.setdefault(round(place.pixel[1], 6), place)
    result = {
        "groove holds three LED wires": GROOVE_MM[0] >= 3 * LED_WIRE.od_max_mm,
        "wire channel reaches the harness hole": reach and SENSOR_CHANNEL_MM[0] > 0,
        "every row's feed has a wire hole": all(p.pixel in wire_holes for p in firsts.values()),
    }
    if build.kind == "reed" and build.reed_package is not None:
        cavity = reed_cavity(build)
        glass = build.reed_package
        top_lead, bottom_lead = reed_leads(build, spot)
        side = holes["top lead channel"]
        x, y, depth = top_lead.end
        x0, y0, x1, y1 = side.box()
        result |= {
            "reed goes in from the underside": holes["reed glass"].bottom is None
            and cavity.bore >= glass.glass_diameter_max,
            "ledge holds the glass by its top": cavity.slot < glass.glass_diameter_max,
            "top lead bends 3 mm from the glass": min(top_lead.bends_from_glass) >= 3.0 - 1e-9,
            "top lead ends in its side channel, open to the underside": side.bottom is None
            and x0 <= x <= x1
            and y0 <= y <= y1
            and cavity.glass_top < depth < thickness(build),
            "bottom lead bends in the wire channel": min(bottom_lead.bends_from_glass) >= 3.0 - 1e-9
            and cavity.channel_roof + 1e-9 >= bottom_lead.points[0][2] + 3.0,
        }
    else:
        feet = hall_leads(build, spot)
        slots = [h for h in holes.values() if h.what.startswith("hall foot") or "feet" in h.what]
        pocket = holes["hall"]

        def in_a_slot(x: float, y: float) -> bool:
            return any(
                s.box()[0] <= x <= s.box()[2] and s.box()[1] <= y <= s.box()[3] for s in slots
            )

        result["hall switch goes in from the top with its wires down its slots"] = (
            pocket.top == 0.0
            and all(s.bottom is None for s in slots)
            and all(in_a_slot(lead.end[0], lead.end[1]) for lead in feet)
        )
    return result


def problems(
    build: SensorBuild,
    board: Sequence[Place],
    pitch: float,
    x_drop: float,
    order: tuple[Stage, ...] = ORDER,
) -> list[str]:
    """Every step of ``order`` that cannot be done on ``build``'s carrier, in words."""
    given = facts(build, board, pitch, x_drop)
    closed = False
    found = []
    for stage in order:
        if stage.check not in CHECKS:
            found.append(f"{stage.title}: it ends with no named check")
        for step in stage.steps:
            if build.sensor not in step.builds:
                continue
            if step.side == "underside" and closed:
                found.append(f"{stage.title}: {step.text!r} needs the underside, glued down")
            for fact in step.needs:
                if not given.get(fact, False):
                    found.append(f"{stage.title}: {step.text!r} needs {fact!r}")
            closed = closed or step.closes_underside
    return found


def markdown(order: tuple[Stage, ...] = ORDER) -> str:
    """The order of work as hardware/assembly.md prints it."""
    lines = []
    for n, stage in enumerate(order):
        lines.append(f"{n}. **{stage.title}.**")
        for step in stage.steps:
            only = "" if len(step.builds) == 2 else f" ({step.builds[0]} build)"
            lines.append(f"   - {step.text}{only}")
        lines.append(f"   - **Check ({stage.check}):** {stage.check_text}.")
    return "\n".join(lines)


@dataclass(frozen=True)
class BringUpPoint:
    """A named test point of the bring-up: where, against what, and the range to read."""

    name: str
    where: str
    low: float
    high: float
    unit: str = "V"


#: Measured against GND (the supply's -) at the first power-on, in this order.
TEST_POINTS = (
    BringUpPoint("TP1", "the fuse's load side (the bus's start), LEDs dark", 4.90, 5.25),
    BringUpPoint("TP2", "the far end of the bus, at the last row's PTC, LEDs dark", 4.85, 5.25),
    BringUpPoint("TP3", "5 V to GND at the last pixel of the last row, LEDs dark", 4.80, 5.25),
    BringUpPoint("TP4", "the level shifter's VCC (74AHCT125 pin 14)", 4.80, 5.25),
    BringUpPoint("TP5", "3V3 at the chip bank or the Pico's pull-ups", 3.20, 3.40),
    BringUpPoint("TP6", "a sensor input with no figure on its cell (its pull-up)", 3.20, 3.40),
    BringUpPoint("TP7", "the same input with a figure on its cell", 0.0, 0.10),
    BringUpPoint("TP8", "the supply's current, LEDs dark (the bench supply's meter)", 0.10, 0.25,
              "A"),
)  # fmt: skip


def checklist_table() -> str:
    """The bring-up checklist's table as hardware/assembly.md prints it."""
    lines = ["| test point | where | expect |", "|---|---|---|"]
    for tp in TEST_POINTS:
        lines.append(f"| {tp.name} | {tp.where} | {tp.low:.2f} to {tp.high:.2f} {tp.unit} |")
    return "\n".join(lines)
