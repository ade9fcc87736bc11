"""The tile build's power numbers, from one function (``tile_power``) that the guide's
table (``companion hardware pcb --power``) and the tests both read.

- current: every LED at full white (3 channels at the datasheet's channel current) plus
  its idle draw, capped by the config's ``max_milliamps`` (the limiter never lets the
  frame ask for more);
- copper: IPC-2221's chart as a formula, I = k * dT^0.44 * A^0.725 (I in A, dT in K,
  A in square mils; k = 0.048 outer layers, 0.024 inner layers), solved for the width;
- the drop: copper and wire resistance (1.72e-8 ohm m at 20 C), the connectors' contact
  resistance from their datasheets, along each row of tiles from where it is fed;
- the fuse: the next standard slow-blow value above 1.25 x the most the LEDs and logic
  may draw, and below what the smallest part in the path is rated for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.board.config import BoardConfig

#: Copper's resistivity at 20 C, ohm m.
RHO_CU = 1.72e-8
MIL_MM = 0.0254
#: Finished copper: outer layers 1 oz (35 um), inner layers 0.5 oz (17.5 um): JLCPCB's
#: 4-layer default.
OUTER_UM, INNER_UM = 35.0, 17.5
#: IPC-2221 (fig. 6-4 as a formula): outer and inner layer constants.
K_OUTER, K_INNER = 0.048, 0.024
#: The temperature rise the copper is sized for, K.
RISE_K = 10.0
#: JST VH: 10 A per contact (AWG 16), contact resistance at most 10 mohm (JST VH catalogue).
VH_RATED_A, VH_CONTACT_OHM = 10.0, 0.010
#: Wire between tiles and from the supply: AWG 18, 20.9 mohm/m; AWG 16, 13.2 mohm/m.
AWG18_OHM_M, AWG16_OHM_M = 0.0209, 0.0132
#: Lead lengths: tile to tile 0.25 m, supply to the start of a row 0.6 m.
LINK_M, FEED_M = 0.25, 0.6
#: Standard slow-blow fuse values, A.
FUSES = (1.0, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0, 10.0)
#: The 3.3 V logic of one tile: 2 x 74HC165 (80 uA quiescent at most, Nexperia), 16 x
#: DRV5032AJ (at most 3 uA each), and 16 pull-ups of 10 kohm at most 4 closed: 1.4 mA.
LOGIC_MA_PER_TILE = 0.08 * 2 + 0.003 * 16 + 4 * 3.3 / 10.0
#: The narrowest cross-section of the +5V plane on a tile (mm): 100 mm less the copper
#: kept from the edges and the clearance holes of the 5 header pads on the worst line.
PLANE_WIDTH_MM = 100.0 - 2 * 0.3 - 5 * (1.7 + 2 * 0.2)
#: The plane's length from the power header in to the one out, mm.
PLANE_LENGTH_MM = 92.0


@dataclass(frozen=True)
class TilePower:
    leds_per_tile: int
    tiles: int
    tiles_per_row: tuple[int, ...]  # tiles on each fed row, in order of the chain
    led_full_ma: float  # one LED at full white
    tile_max_ma: float  # one tile at full white, all it can draw
    board_max_ma: float  # what the limiter allows the whole board
    row_max_ma: tuple[float, ...]  # what each row may draw, limiter and tiles allowing
    width_outer_mm: float  # IPC-2221 width for the LED current of one tile, outer layer
    width_inner_mm: float  # the same for a whole row's current on the inner plane
    plane_width_mm: float
    plane_mohm: float  # one plane from header to header
    drop_v: tuple[float, ...]  # at the far end of each row, supply and ground together
    fuse_a: float
    per_tile_fuse: bool
    rise_k: float = RISE_K

    @property
    def worst_drop_v(self) -> float:
        return max(self.drop_v)


def ipc2221_width_mm(current_a: float, rise_k: float, thickness_um: float, inner: bool) -> float:
    """The track width IPC-2221 asks for ``current_a`` at ``rise_k`` of temperature rise."""
    k = K_INNER if inner else K_OUTER
    area_mil2 = (current_a / (k * rise_k**0.44)) ** (1 / 0.725)
    thickness_mil = thickness_um / 1000 / MIL_MM
    return float(area_mil2 / thickness_mil * MIL_MM)


def _sheet_mohm(length_mm: float, width_mm: float, thickness_um: float) -> float:
    return RHO_CU * (length_mm / width_mm) / (thickness_um * 1e-6) * 1000


def tile_power(
    config: BoardConfig,
    leds_per_tile: int = 16,
    tiles_per_row: tuple[int, ...] = (3, 3, 4),
) -> TilePower:
    """Current, copper, drop and fuse of the tile build under ``config``'s LED limit.

    Power is fed at the start of each row of tiles from the supply's fused terminal block
    (three feeds); inside a row it runs on from tile to tile (J4 to J3).  The last row
    carries the pad tile too."""
    leds = config.leds
    led_full = 3 * leds.milliamps_per_channel + leds.idle_milliamps
    tile_max = leds_per_tile * led_full
    tiles = sum(tiles_per_row)
    board_max = min(leds.max_milliamps, tiles * tile_max)  # the idle draw counts within it
    row_max = tuple(min(n * tile_max, board_max) for n in tiles_per_row)
    plane = _sheet_mohm(PLANE_LENGTH_MM, PLANE_WIDTH_MM, INNER_UM)
    link_mohm = 2 * (LINK_M * AWG18_OHM_M * 1000 + 2 * VH_CONTACT_OHM * 1000 + plane)
    feed_mohm = 2 * (FEED_M * AWG16_OHM_M * 1000 + VH_CONTACT_OHM * 1000)
    drops = []
    for n, row in zip(tiles_per_row, row_max, strict=True):
        # the worst case for the far tile: the row's whole allowance drawn at its far end
        # (the limiter may put it anywhere): every lead and plane of the row carries it
        drop = row / 1000 * (feed_mohm + (n - 1) * link_mohm + 2 * plane) / 1000
        drops.append(round(drop, 3))
    logic_a = tiles * LOGIC_MA_PER_TILE / 1000
    need = 1.25 * (board_max / 1000 + logic_a)
    rated = VH_RATED_A
    fuse = next(f for f in FUSES if f >= need)
    if fuse > rated:
        raise ValueError(f"no fuse between {need:.2f} A and the headers' {rated:g} A")
    # per tile: only if a tile's copper cannot carry what the supply fuse lets through
    plane_carries = ipc2221_width_mm(fuse, RISE_K, INNER_UM, inner=True) <= PLANE_WIDTH_MM
    return TilePower(
        leds_per_tile=leds_per_tile,
        tiles=tiles,
        tiles_per_row=tiles_per_row,
        led_full_ma=led_full,
        tile_max_ma=tile_max,
        board_max_ma=board_max,
        row_max_ma=row_max,
        width_outer_mm=round(ipc2221_width_mm(tile_max / 1000, RISE_K, OUTER_UM, False), 3),
        width_inner_mm=round(ipc2221_width_mm(max(row_max) / 1000, RISE_K, INNER_UM, True), 2),
        plane_width_mm=PLANE_WIDTH_MM,
        plane_mohm=round(plane, 2),
        drop_v=tuple(drops),
        fuse_a=fuse,
        per_tile_fuse=not plane_carries,
    )


def power_markdown(p: TilePower) -> str:
    """The guide's table (hardware/README.md, "Power for the tiles")."""
    rows = ", ".join(str(n) for n in p.tiles_per_row)
    lines = [
        "| | |",
        "|---|---|",
        f"| one LED at full white | {p.led_full_ma:g} mA |",
        f"| one tile at full white ({p.leds_per_tile} LEDs) | {p.tile_max_ma:g} mA |",
        f"| the whole board, capped by `max_milliamps` | {p.board_max_ma:g} mA |",
        f"| fed rows of tiles ({rows} tiles) at most | "
        + ", ".join(f"{m:g} mA" for m in p.row_max_ma)
        + " |",
        f"| copper for one tile's LEDs, outer layer 1 oz, {p.rise_k:g} K rise (IPC-2221) | "
        f"{p.width_outer_mm:.2f} mm (the stubs are 0.40 mm, each carries one LED) |",
        f"| copper for a row's current, inner plane 0.5 oz, {p.rise_k:g} K rise (IPC-2221) | "
        f"{p.width_inner_mm:.1f} mm (the +5V plane is at least {p.plane_width_mm:.1f} mm "
        "wide) |",
        f"| one +5V or GND plane, header to header | {p.plane_mohm:.2f} mohm |",
        "| drop to the far tile of each row (supply and ground, worst case) | "
        + ", ".join(f"{d:.2f} V" for d in p.drop_v)
        + " |",
        f"| fuse at the supply (slow-blow) | {p.fuse_a:g} A |",
        "| per-tile fuse | "
        + ("needed" if p.per_tile_fuse else "not needed: a tile's plane carries the fuse's current")
        + " |",
    ]
    return "\n".join(lines) + "\n"


def describe_drop_ok(p: TilePower, floor_v: float = 4.5) -> bool:
    """Does every row keep its far tile at ``floor_v`` from a 5.0 V supply?"""
    return all(5.0 - d >= floor_v for d in p.drop_v) and not math.isnan(p.worst_drop_v)
