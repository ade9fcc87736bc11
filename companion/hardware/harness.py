"""The sensor harnesses: the route of every sensor's wire from its cell to its chip (design
1) or to the matrix board (design 2), one harness per row, with lengths.

The route (the carrier's geometry, ``parts``; the chip bank, hardware/README.md "Where the
chips go"):

1. at the cell: down the carrier's lead channel to the row's wire channel under the
   carrier (open at the underside, :data:`parts.SENSOR_CHANNEL`);
2. along the row's channel to the middle of the board (:func:`drop_x`, the seam between
   the grid's two tile columns), from the west half eastwards and the east half
   westwards;
3. down through a 10 mm hole in the base board at the middle of that row (one hole per
   harness; the assembly sheet marks each), to the chip bank, which lies under the base
   board along the middle line, chip 0 at the north end;
4. along the bank to the wire's chip (design 2: its row's place on the matrix board).

Each harness is that row's sensor wires, each cut to its own length, and one common
wire per half (GND on design 1, the matrix row on design 2) joined at every switch.
Lengths include :data:`SLACK_MM` for stripping, a service loop and soldering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.board.config import BoardConfig
from companion.games.mummy.maze import Maze

from .clock import CHIP_PITCH_MM
from .placement import Place, places
from .wires import SENSOR_WIRE
from .wiring import sensor_wires

#: The base board under the carrier (6 mm plywood or MDF, hardware/README.md).
BASE_BOARD_MM = 6.0
#: From the base board's underside down to the chip bank's stripboard.
BANK_BELOW_MM = 20.0
#: Added to every wire: 10 mm stripped and soldered at each end, a 20 mm service loop.
SLACK_MM = 40.0
#: The hole in the base board where a harness goes down.
HOLE_MM = 10.0


@dataclass(frozen=True)
class HarnessWire:
    """One sensor's wire: its position, where it lands, and its length (mm)."""

    position: str
    lands: str  # "chip 3 input E (pin 3)", "row 2 x column 7"
    along_row_mm: float
    along_bank_mm: float
    length_mm: float


@dataclass(frozen=True)
class Harness:
    """A row's harness: its name, where it goes down, its wires and its commons."""

    name: str
    hole: tuple[float, float]  # the base board hole (board mm, A1's top-left corner 0, 0)
    wires: tuple[HarnessWire, ...]
    commons: tuple[float, ...]  # the common wire of each half (mm)

    @property
    def conductors(self) -> int:
        return len(self.wires) + len(self.commons)

    @property
    def total_mm(self) -> float:
        return sum(w.length_mm for w in self.wires) + sum(self.commons)


def drop_x(config: BoardConfig) -> float:
    """Where every harness goes down: the middle of the grid, between its two halves."""
    return config.columns * config.cell_pitch_mm / 2


def chip_y(config: BoardConfig, chip: int) -> float:
    """Where chip ``chip`` sits along the bank (board mm, y south): the bank centred on
    the grid's middle row line, chip 0 at the north end, chips CHIP_PITCH_MM apart."""
    middle = config.rows * config.cell_pitch_mm / 2
    chips = config.sensors.chips if config.sensors.backend == "shift_register" else 1
    return middle + (chip - (chips - 1) / 2) * CHIP_PITCH_MM


def _down_mm(carrier_mm: float, channel_roof_mm: float) -> float:
    """From the channel's roof, where a wire leaves its cell, down to the bank."""
    return (carrier_mm - channel_roof_mm) + BASE_BOARD_MM + BANK_BELOW_MM


def harnesses(
    maze: Maze, config: BoardConfig, carrier_mm: float, channel_roof_mm: float
) -> list[Harness]:
    """One harness per row of sensors (the grid's rows, then each pad group), north to
    south, for a carrier ``carrier_mm`` thick whose wire channels start
    ``channel_roof_mm`` under its top."""
    board = places(maze, config)
    wires = sensor_wires(config)
    x_drop = drop_x(config)
    down = _down_mm(carrier_mm, channel_roof_mm)
    rows: dict[float, list[Place]] = {}
    for place in board:
        rows.setdefault(round(place.sensor[1], 6), []).append(place)
    result = []
    for y, members in sorted(rows.items()):
        members.sort(key=lambda p: p.sensor[0])
        row_wires = []
        for place in members:
            wire = wires[place.position]
            along_row = abs(place.sensor[0] - x_drop)
            lands_y = chip_y(config, wire.chip) if wire.chip is not None else y
            along_bank = abs(lands_y - y)
            length = along_row + down + along_bank + SLACK_MM
            row_wires.append(
                HarnessWire(place.name, wire.where, along_row, along_bank, round(length))
            )
        pairs = list(zip(members, row_wires, strict=True))
        west = [w.along_row_mm for p, w in pairs if p.sensor[0] < x_drop]
        east = [w.along_row_mm for p, w in pairs if p.sensor[0] > x_drop]
        commons = tuple(round(max(half) + down + SLACK_MM) for half in (west, east) if half)
        name = harness_name(members[0].position, config)
        result.append(Harness(name, (x_drop, y), tuple(row_wires), commons))
    return result


def harness_name(position: int, config: BoardConfig) -> str:
    """The harness that carries ``position``'s wire: "row 3", "camp", "sarcophagus"."""
    if position < config.cells:
        return f"row {position // config.columns + 1}"
    return config.position_name(position).rsplit(" slot", 1)[0]


def harness_table(items: Sequence[Harness]) -> list[tuple[str, ...]]:
    """Rows of the harness table: name, hole, conductors, shortest and longest wire (mm),
    the wire it takes (m)."""
    out: list[tuple[str, ...]] = []
    for h in items:
        lengths = [w.length_mm for w in h.wires]
        out.append(
            (
                h.name,
                f"{h.hole[0]:g}, {h.hole[1]:g}",
                f"{len(h.wires)} + {len(h.commons)} common",
                f"{min(lengths):.0f}",
                f"{max(lengths):.0f}",
                f"{h.total_mm / 1000:.2f}",
            )
        )
    return out


def total_m(items: Sequence[Harness]) -> float:
    """All the sensor wire the harnesses take (m)."""
    return sum(h.total_mm for h in items) / 1000.0


__all__ = [
    "BANK_BELOW_MM",
    "BASE_BOARD_MM",
    "HOLE_MM",
    "SENSOR_WIRE",
    "SLACK_MM",
    "Harness",
    "HarnessWire",
    "chip_y",
    "drop_x",
    "harness_name",
    "harness_table",
    "harnesses",
    "total_m",
]


def harness_markdown(items: Sequence[Harness]) -> str:
    """The harness table as hardware/README.md and the wiring pages quote it."""
    lines = [
        "| harness | base board hole (x, y mm from A1's corner) | wires | shortest mm "
        "| longest mm | wire m |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in harness_table(items)]
    lines.append("")
    lines.append(
        f"All {len(items)} harnesses: {total_m(items):.1f} m of {SENSOR_WIRE.name}; each "
        f"length includes {SLACK_MM:g} mm for stripping, soldering and a service loop."
    )
    return "\n".join(lines)


def reference_harnesses(config: BoardConfig) -> list[Harness]:
    """The harnesses of ``config`` on the default maze for the recommended reed carrier."""
    from companion.mazes import load_maze

    from .parts import channel_roof, thickness, verified_build

    build = verified_build("reed")
    maze, _ = load_maze(None)
    return harnesses(maze, config, thickness(build), channel_roof(build))
