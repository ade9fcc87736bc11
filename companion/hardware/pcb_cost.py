"""The cost of N tiles from an assembly service, with the date and source of every figure.

No fab can be reached from here: the assembly fees are JLCPCB's published ones as they
read in a stored copy of their SMT assembly FAQ; the part prices, the bare boards and the
shipping are estimates, marked so in the table; all dated below.  The table says which lines are
published fees and which are estimates; a maker gets the binding quote by uploading the
zip, the BOM and the CPL at jlcpcb.com.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

#: When and where the figures were read.
DATE = "2026-11-28"
SOURCE_FEES = (
    "JLCPCB, PCB Assembly FAQs (support.jlcpcb.com/article/83-smt-assembly-faqs): setup "
    "fee $8.00, stencil $1.50, $0.0017 per solder joint; $3.00 loading fee per extended "
    "part type (jlcpcb.com/parts, 'Extended components')"
)
SOURCE_PARTS = (
    "estimates of LCSC's unit prices at 100+ pieces (lcsc.com could not be reached from "
    "where these files were made: check each part's price and stock there)"
)
SETUP_USD, STENCIL_USD, JOINT_USD, EXTENDED_USD = 8.00, 1.50, 0.0017, 3.00
#: Unit prices (USD) and library class at JLCPCB, by LCSC number.
PRICES: dict[str, tuple[float, str]] = {
    "C266120": (0.38, "extended"),  # DRV5032AJDBZR
    "C965555": (0.14, "extended"),  # WS2812B-2020
    "C5613": (0.16, "extended"),  # 74HC165D,653
    "C1525": (0.0012, "basic"),  # 100 nF 0402
    "C25744": (0.0008, "basic"),  # 10 kohm 0402
    "C15850": (0.0060, "basic"),  # 10 uF 0805
}
#: Estimates (no published fixed price): 4-layer 100 x 100 mm FR-4 1.6 mm HASL, the board
#: price for 10 pieces from JLCPCB's online calculator as commonly reported, and DHL.
PCB_10_USD = 24.00
SHIPPING_USD = 22.00
#: Pads soldered per part (the SMT joints).
JOINTS = {"SOT-23": 3, "C_0402_1005Metric": 2, "R_0402_1005Metric": 2, "C_0805_2012Metric": 2}
JOINTS |= {"SOIC-16_3.9x9.9mm_P1.27mm": 16, "LED_WS2812B-2020_PLCC4_2.0x2.0mm": 4}
#: What the maker buys and solders: through-hole connectors and cables, per board of N tiles.
MAKER = (
    ("2x5 box header 2.54 mm (J1, J2)", 2, 0.25),
    ("JST VH 2-pin header B2P-VH (J3, J4)", 2, 0.20),
    ("10-way ribbon cable with two IDC sockets, 250 mm", 1, 1.20),
    ("JST VH 2-pin housing + crimps, AWG 18 pair, 250 mm", 1, 0.80),
)


def cost_rows(tiles: int, placements: Sequence[dict[str, Any]]) -> list[tuple[str, str, float]]:
    """(item, how it is counted, USD) for ``tiles`` assembled tiles."""
    per_tile = Counter(p["lcsc"] for p in placements)
    joints = sum(JOINTS[p["footprint"]] for p in placements) * tiles
    rows: list[tuple[str, str, float]] = [
        ("PCB, 4 layers, 100 x 100 mm, 10 pcs", "estimate (online calculator)", PCB_10_USD),
    ]
    for lcsc, count in sorted(per_tile.items()):
        price, kind = PRICES[lcsc]
        value = next(p["value"] for p in placements if p["lcsc"] == lcsc)
        n = count * tiles
        rows.append((f"{value} ({lcsc}, {kind}) x {n}", f"${price:g} each", round(price * n, 2)))
    extended = sum(1 for lcsc in per_tile if PRICES[lcsc][1] == "extended")
    rows += [
        ("assembly setup", "published", SETUP_USD),
        ("stencil", "published", STENCIL_USD),
        (f"SMT joints x {joints}", f"published, ${JOINT_USD} each", round(joints * JOINT_USD, 2)),
        (f"extended part loading x {extended}", f"published, ${EXTENDED_USD:.2f} each",
         extended * EXTENDED_USD),
        ("shipping (DHL)", "estimate", SHIPPING_USD),
    ]  # fmt: skip
    return rows


def cost_markdown(geo: Any, placements: Sequence[dict[str, Any]]) -> str:
    tiles = geo.tiles
    rows = cost_rows(tiles, placements)
    total = sum(usd for _, _, usd in rows)
    lines = [
        f"# Cost of {tiles} assembled tiles ({geo.maze_tiles} for the maze, "
        f"{geo.pad_tiles} for the pads)",
        "",
        f"Read on {DATE}. Fees: {SOURCE_FEES}. Parts: {SOURCE_PARTS}. Lines marked",
        "'estimate' have no published fixed price; the binding quote comes from uploading",
        "the zip, BOM and CPL at jlcpcb.com. No order has been placed from these files.",
        "",
        "| item | basis | USD |",
        "|---|---|---:|",
        *(f"| {item} | {basis} | {usd:.2f} |" for item, basis, usd in rows),
        f"| **total, {tiles} tiles** | | **{total:.2f}** |",
        f"| per tile | | {total / tiles:.2f} |",
        "",
        "What the maker still solders (through-hole, on the underside): connectors only.",
        "",
        "| part | per tile | USD each |",
        "|---|---:|---:|",
        *(f"| {name} | {n} | {usd:.2f} |" for name, n, usd in MAKER),
        "",
    ]
    return "\n".join(lines)
