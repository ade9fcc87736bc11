"""``companion hardware pcb``: the sensor-and-LED circuit-board tile, generated from the
board's geometry, checked by KiCad and written as the files an assembly service takes.

Under every cell of a tile: a DRV5032AJ Hall switch with its 100 nF capacitor and its
10 kohm pull-up (the AJ's output is open drain), and a WS2812B-2020 LED with its own
100 nF.  Two 74HC165 read the tile's 16 cells; two 2x5 ribbon headers carry the chain in
and out (3V3, CLK, SH/LD, CLK INH, the chain's data, the LED data), two 2-pin VH headers
the LEDs' 5 V.  One identical tile, 4 x 4 cells of 25 mm (100 x 100 mm, the cheapest
price tier of the PCB services and well inside a 220 mm bed): nine make the 12 x 12 maze,
a tenth carries the 8 pads.

The plan (where every part goes, which chip input reads which cell, the LED order) is
made here from the board config; the board itself is made, routed, checked (DRC) and
plotted by KiCad's ``pcbnew`` in ``pcb_kicad.py``, a subprocess of the system Python
that Debian's ``kicad`` package gives the module (``/usr/bin/python3``; the venv's
Python cannot load KiCad's compiled module).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.board.config import BoardConfig, load_config
from companion.inputs import given_path

#: The Python that has KiCad's ``pcbnew`` (Debian: ``apt-get install kicad``).
KICAD_PYTHON = os.environ.get("COMPANION_KICAD_PYTHON", "/usr/bin/python3")
#: The LED's centre below its cell's centre (toward the next row), mm: beside the sensor,
#: which stays under the figure's magnet; the spacer's light path is over it.
LED_OFFSET_MM = 5.0
#: The price tier the tile is sized for: the PCB services' "up to 100 x 100 mm" boards.
PRICE_TIER_MM = 100.0
#: The 74HC165 inputs, in bit order within a chip (bit 0 is input A).
INPUTS = "ABCDEFGH"

#: The parts the assembly service places (JLCPCB's part library: LCSC numbers).
PARTS: dict[str, dict[str, str]] = {
    "sensor": {
        "value": "DRV5032AJDBZR",
        "lcsc": "C266120",
        "package": "SOT-23",
        "what": "Hall switch, omnipolar, open drain, 20 Hz (TI SLVSDC7)",
    },
    "c100n": {
        "value": "100nF 16V X7R",
        "lcsc": "C1525",
        "package": "0402",
        "what": "decoupling: one per sensor, per LED, per chip",
    },
    "r10k": {
        "value": "10k 1%",
        "lcsc": "C25744",
        "package": "0402",
        "what": "pull-up of the sensor's open-drain output; pull-down of the last SER",
    },
    "led": {
        "value": "WS2812B-2020",
        "lcsc": "C965555",
        "package": "2020",
        "what": "addressable RGB LED, 12 mA a channel (Worldsemi WS2812B-2020 datasheet)",
    },
    "hc165": {
        "value": "74HC165D,653",
        "lcsc": "C5613",
        "package": "SOIC-16",
        "what": "8-bit parallel-in shift register (Nexperia)",
    },
    "c10u": {
        "value": "10uF 25V X5R",
        "lcsc": "C15850",
        "package": "0805",
        "what": "the tile's LED supply bulk capacitor",
    },
}
#: What the maker solders: the connectors (through-hole, on the underside).
MAKER_PARTS = (
    ("J1, J2", "2x5 box header, 2.54 mm, vertical (e.g. Wurth 61201021621)", 2),
    ("J3, J4", "JST VH B2P-VH, 2 pins, 3.96 mm, vertical", 2),
)

#: JLCPCB's published capabilities for 4-layer boards (jlcpcb.com/capabilities, read
#: through copies of the page dated 2023-2025), set as the board's own design rules.
JLCPCB_RULES = {
    "track_min": 0.127,  # 5 mil trace width
    "clearance_min": 0.127,  # 5 mil spacing
    "via_diameter_min": 0.45,
    "drill_min": 0.2,  # multilayer: 0.2 mm via hole
    "annular_ring_min": 0.13,
    "hole_to_hole_min": 0.5,
    "copper_to_edge_min": 0.3,
    "hole_to_copper_min": 0.2,
    "silk_clearance_min": 0.15,
}


@dataclass(frozen=True)
class TileGeometry:
    """How the board is cut into identical tiles."""

    pitch_mm: float
    columns: int  # cells across a tile
    rows: int
    tiles_across: int
    tiles_down: int
    pad_tiles: int  # tiles that carry the pads (camp and sarcophagus slots)

    @property
    def cells(self) -> int:
        return self.columns * self.rows

    @property
    def maze_tiles(self) -> int:
        return self.tiles_across * self.tiles_down

    @property
    def tiles(self) -> int:
        return self.maze_tiles + self.pad_tiles

    @property
    def size_mm(self) -> tuple[float, float]:
        return self.columns * self.pitch_mm, self.rows * self.pitch_mm

    @property
    def chips(self) -> int:
        return self.cells // 8


def geometry(config: BoardConfig) -> TileGeometry:
    """The largest square tile of whole cells within the 100 mm price tier that divides
    the maze evenly (12 x 12 cells of 25 mm: 4 x 4 cells, 100 x 100 mm, 9 tiles); the
    pads go on one more tile of the same design."""
    for n in range(int(PRICE_TIER_MM // config.cell_pitch_mm), 0, -1):
        if config.columns % n == 0 and config.rows % n == 0 and n * n % 8 == 0:
            pads = config.camp_slots + config.sarcophagus_slots
            return TileGeometry(
                config.cell_pitch_mm,
                n,
                n,
                config.columns // n,
                config.rows // n,
                math.ceil(pads / (n * n)),
            )
    raise ValueError(
        f"no square tile of whole cells up to {PRICE_TIER_MM:g} mm divides a "
        f"{config.columns} x {config.rows} maze of {config.cell_pitch_mm:g} mm cells into "
        "tiles of whole 74HC165s"
    )


# -- the wiring a tile is built with (the netlist test reads the copper back) -------------


def sensor_bit(geo: TileGeometry, k: int) -> int:
    """The tile-local chain bit of cell ``k`` (row by row from the tile's top left):
    reversed, so that the whole chain reads each position at 8 x chips - 1 - its LED index."""
    return geo.cells - 1 - k


def chip_input(geo: TileGeometry, k: int) -> tuple[int, str]:
    """(the tile's chip, counted from the one farthest from the Pi, and its input)."""
    bit = sensor_bit(geo, k)
    return bit // 8, INPUTS[bit % 8]


def tile_order(geo: TileGeometry) -> list[tuple[int, int]]:
    """The maze tiles in chain order from the Pi: (tile row, tile column), row by row."""
    return [(r, c) for r in range(geo.tiles_down) for c in range(geo.tiles_across)]


# -- the plan --------------------------------------------------------------------------


IDC_PINS = {"1": "+3V3", "2": "GND", "3": "CLK", "4": "GND", "5": "SH_LD", "6": "CLK_INH"}
IDC_PINS |= {"8": "GND", "10": "GND"}
POWER_PINS = {"1": "+5V", "2": "GND"}
#: The 74HC165's control and supply pins (Nexperia 74HC165 datasheet, pinning).
HC165_PINS = {"1": "SH_LD", "2": "CLK", "8": "GND", "15": "CLK_INH", "16": "+3V3"}
HC165_INPUT_PINS = {"A": 11, "B": 12, "C": 13, "D": 14, "E": 3, "F": 4, "G": 5, "H": 6}


def plan(config: BoardConfig, out: Path, name: str = "pyramid-tile") -> dict[str, Any]:
    """Everything ``pcb_kicad.py`` needs to build one tile, as JSON-ready data."""
    geo = geometry(config)
    width, height = geo.size_mm
    cells = []
    for k in range(geo.cells):
        row, column = divmod(k, geo.columns)
        cells.append(
            {
                "index": k,
                "row": row,
                "column": column,
                "sensor_net": f"SENSE{k}",
                "led_in": f"LED{k}",
                "led_out": f"LED{k + 1}",
            }
        )
    chips = []
    # chip 0 (farthest from the Pi) reads the lower half, chip n-1 the upper half
    for j in range(geo.chips):
        nets = dict(HC165_PINS)
        nets["9"] = "Q_PI" if j == geo.chips - 1 else f"Q_LINK{j}"
        nets["10"] = "Q_NEXT" if j == 0 else f"Q_LINK{j - 1}"
        for k in range(geo.cells):
            chip, letter = chip_input(geo, k)
            if chip == j:
                nets[str(HC165_INPUT_PINS[letter])] = f"SENSE{k}"
        band = geo.chips - 1 - j  # the upper chip is the last one of the tile
        y = height / 2 + (15.0 if band else -15.0)  # between the cell rows' clusters
        chips.append(
            {
                "ref": f"U{geo.cells + j + 1}",
                "x": width / 2,
                "y": y,
                "nets": nets,
                "cap": f"C{geo.cells * 2 + j + 1}",
            }
        )
    mid = height / 2
    connectors = [
        {"ref": "J1", "kind": "idc", "x": 6.0, "y": mid - 0.5, "angle": 90,
         "nets": {**IDC_PINS, "7": "Q_PI", "9": "LED0"}},
        {"ref": "J2", "kind": "idc", "x": width - 6.0, "y": mid + 2.04, "angle": -90,
         "nets": {**IDC_PINS, "7": "Q_NEXT", "9": f"LED{geo.cells}"}},
        {"ref": "J3", "kind": "power", "x": 4.0, "y": geo.pitch_mm, "angle": 0, "nets": POWER_PINS},
        {"ref": "J4", "kind": "power", "x": width - 4.0, "y": geo.pitch_mm, "angle": 180,
         "nets": POWER_PINS},
    ]  # fmt: skip
    extras = [
        # the last tile's SER has no cable: held low, never floating
        {"ref": "R17", "kind": "r0402", "x": width - 22.0, "y": mid - 2.5,
         "nets": {"1": "Q_NEXT", "2": "GND"}, "part": "r10k"},
        {"ref": "C41", "kind": "c0805", "x": 22.0, "y": mid - 2.5,
         "nets": {"1": "+5V", "2": "GND"}, "part": "c10u"},
    ]  # fmt: skip
    holes = [
        (geo.pitch_mm * c, geo.pitch_mm * r)
        for r in (1, geo.rows - 1)
        for c in (1, geo.columns - 1)
    ]
    signals = ["CLK", "SH_LD", "CLK_INH", "Q_PI", "Q_NEXT"]
    signals += [f"Q_LINK{j}" for j in range(geo.chips - 1)]
    signals += [f"SENSE{k}" for k in range(geo.cells)]
    signals += [f"LED{k}" for k in range(geo.cells + 1)]
    signals += ["+3V3"]
    return {
        "name": name,
        "out": str(out),
        "pitch": geo.pitch_mm,
        "tile_columns": geo.columns,
        "tile_rows": geo.rows,
        "cells": cells,
        "chips": chips,
        "connectors": connectors,
        "extras": extras,
        "holes": holes,
        "texts": [],
        "planes": {"In1.Cu": "GND", "In2.Cu": "+5V"},
        "parts": {key: {"value": p["value"], "lcsc": p["lcsc"]} for key, p in PARTS.items()},
        "rules": JLCPCB_RULES,
        "led_offset": LED_OFFSET_MM,
        "route_order": signals,
    }


# -- running KiCad ---------------------------------------------------------------------


class KicadMissing(RuntimeError):
    """KiCad's pcbnew module is not there for the system Python."""


def kicad_available(python: str = KICAD_PYTHON) -> bool:
    try:
        done = subprocess.run(
            [python, "-c", "import pcbnew"], capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def run_kicad(data: dict[str, Any], python: str = KICAD_PYTHON) -> dict[str, Any]:
    """Build, route, check and plot the tile in KiCad; its findings as a dict."""
    if not kicad_available(python):
        raise KicadMissing(
            f"KiCad's pcbnew module is not importable by {python}: install KiCad "
            "(Debian/Ubuntu: sudo apt-get install kicad kicad-footprints)"
        )
    script = Path(__file__).with_name("pcb_kicad.py")
    with tempfile.TemporaryDirectory() as tmp:
        plan_file, result_file = Path(tmp, "plan.json"), Path(tmp, "result.json")
        plan_file.write_text(json.dumps(data), encoding="utf-8")
        done = subprocess.run(
            [python, str(script), str(plan_file), str(result_file)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"KiCad step failed:\n{done.stdout}\n{done.stderr}")
        result: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
    return result


# -- the assembly service's files ------------------------------------------------------


def bom_rows(placements: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """JLCPCB's BOM: one line per part, its designators joined."""
    lines: dict[str, dict[str, Any]] = {}
    for p in placements:
        line = lines.setdefault(
            p["lcsc"], {"Comment": p["value"], "Footprint": p["footprint"], "refs": []}
        )
        line["refs"].append(p["ref"])
    return [
        {
            "Comment": line["Comment"],
            "Designator": ",".join(sorted(line["refs"], key=_ref_key)),
            "Footprint": line["Footprint"],
            "LCSC Part #": lcsc,
        }
        for lcsc, line in lines.items()
    ]


def cpl_rows(placements: Sequence[dict[str, Any]], height_mm: float) -> list[dict[str, str]]:
    """JLCPCB's CPL: every placed part's centre (mm, y up from the board's lower left edge,
    as the service's viewer shows the Gerbers), layer and rotation."""
    return [
        {
            "Designator": p["ref"],
            "Mid X": f"{p['x']:.3f}mm",
            "Mid Y": f"{height_mm - p['y']:.3f}mm",
            "Layer": "Top" if p["layer"] == "top" else "Bottom",
            "Rotation": f"{p['rotation'] % 360:g}",
        }
        for p in sorted(placements, key=lambda p: _ref_key(p["ref"]))
    ]


def _ref_key(ref: str) -> tuple[str, int]:
    letters = ref.rstrip("0123456789")
    return letters, int(ref[len(letters) :] or 0)


def write_csv(path: Path, rows: Sequence[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def zip_gerbers(files: Sequence[str], path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in files:
            archive.write(name, Path(name).name)
    return path


def generate(config: BoardConfig, out: Path, python: str = KICAD_PYTHON) -> dict[str, Any]:
    """The KiCad project, checks, Gerbers (zipped), BOM, CPL and cost table in ``out``."""
    from .pcb_cost import cost_markdown

    out.mkdir(parents=True, exist_ok=True)
    data = plan(config, out)
    result = run_kicad(data, python)
    geo = geometry(config)
    zip_gerbers(result["files"], out / "pyramid-tile-gerbers.zip")
    write_csv(out / "pyramid-tile-bom.csv", bom_rows(result["placements"]))
    write_csv(out / "pyramid-tile-cpl.csv", cpl_rows(result["placements"], geo.size_mm[1]))
    (out / "pyramid-tile-cost.md").write_text(cost_markdown(geo, result["placements"]), "utf-8")
    (out / "placements.json").write_text(json.dumps(result["placements"], indent=1), "utf-8")
    (out / "pyramid-tile-netlist.json").write_text(
        json.dumps(result["netlist"], indent=1, sort_keys=True), "utf-8"
    )
    return result


def add_command(commands: Any) -> None:
    """``companion hardware pcb``."""
    pcb = commands.add_parser("pcb", help="the sensor-and-LED circuit-board tile (KiCad)")
    pcb.add_argument(
        "--out", type=given_path, required=True, help="directory for the KiCad project and files"
    )
    pcb.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    pcb.add_argument(
        "--render", type=given_path, default=None, help="also render the copper to this PNG"
    )
    pcb.set_defaults(func=_pcb_command)


def _pcb_command(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    out = Path(args.out)
    try:
        result = generate(config, out)
    except KicadMissing as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    if args.render:
        from .pcb_render import render_copper

        render_copper(out / "gerbers", Path(args.render))
    drc = result["drc"]
    print(f"tile written to {out}/ (pyramid-tile.kicad_pcb, .kicad_pro)")
    print(
        f"KiCad: {result['unconnected']} unconnected, {drc.get('DRC violations')} DRC "
        f"violations, {drc.get('unconnected pads')} unconnected pads, "
        f"{drc.get('Footprint errors')} footprint errors "
        f"({result['tracks']} tracks, {result['vias']} vias)"
    )
    print("for the assembly service: pyramid-tile-gerbers.zip, pyramid-tile-bom.csv, ")
    print("pyramid-tile-cpl.csv; the cost: pyramid-tile-cost.md")
    clean = result["unconnected"] == 0 and not any(drc.values())
    return 0 if clean else 1
