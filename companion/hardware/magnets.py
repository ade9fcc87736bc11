"""``companion hardware magnets``: does a figure's magnet switch its own sensor and not the
neighbours'?  Fields of the real disc magnet computed with magpylib, checked against the
sensor's limits.

The model (first order, stated in every report):

- the magnet is an axially magnetised cylinder (``--magnet DxH`` in mm) with the grade's
  remanence, its underside ``--depth`` mm above the sensor, on a grid of ``--pitch`` mm;
- a reed switch answers to the ampere-turns along its glass: the line integral of the
  applied H along the reed (in A, comparable with the reed's AT rating to first order;
  the reed's own iron and the AT test coil's geometry are ignored).  Flat, one end under
  the cell centre and the glass along the row; upright, its top end at ``depth``;
- a Hall switch answers to B perpendicular to its face at one point (the SOT-23 top, the
  TO-92 flat face, facing up);
- a figure "off-centre" has its magnet moved in the worst horizontal direction; the four
  occupied neighbours each sit on their own cells, their field at our sensor is summed
  (it is opposite in sign to the field straight under a magnet).

A build passes when a figure up to ``--tolerance`` mm off-centre is seen even with four
occupied neighbours, and an empty cell with four neighbours pushed ``--tolerance`` mm
towards it stays below the lowest operate point.  Magnet grade (+-3 %), glue and cover
thickness (a millimetre is 10-20 %) and the sensor spread dominate: build a 3 x 3 test
patch before 152 cells (hardware/README.md).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.inputs import Number

#: Remanence (T) of sintered NdFeB by grade, mid-range of the usual datasheet span.
GRADES = {"N35": 1.20, "N38": 1.24, "N42": 1.30, "N45": 1.35, "N48": 1.39, "N52": 1.45}
#: Horizontal directions a figure may be pushed off-centre (the worst one counts).
DIRECTIONS = 16
#: Points along a reed for the line integral.
STEPS = 200


@dataclass(frozen=True)
class Sensor:
    """A sensor: where it sits and what switches it."""

    key: str
    name: str
    kind: str  # "reed-flat", "reed-upright" or "hall"
    length_mm: float  # reed glass length (0 for a Hall switch)
    unit: str
    operate_max: float  # the figure must give at least this (the least sensitive part)
    operate_min: float  # a neighbour must stay below this (the most sensitive part)
    limits: str  # where the numbers come from


_REED_LIMITS = "pull-in 10-20 AT (the band ordered); ampere-turns along the glass"
SENSORS = {
    "reed-14mm": Sensor(
        "reed-14mm",
        "reed switch, 2 x 14 mm glass, 10-20 AT",
        "reed-upright",
        14.0,
        "A",
        20.0,
        10.0,
        _REED_LIMITS,
    ),
    "reed-7mm": Sensor(
        "reed-7mm",
        "reed switch, 7 mm glass, 10-20 AT",
        "reed-upright",
        7.0,
        "A",
        20.0,
        10.0,
        _REED_LIMITS,
    ),
    "drv5032": Sensor(
        "drv5032",
        "DRV5032FC Hall switch (omnipolar), face up under the cell centre",
        "hall",
        0.0,
        "mT",
        4.8,
        1.0,
        "operate point at most 4.8 mT (TI datasheet); the lowest operate point is taken as "
        "1.0 mT (an assumption: check the datasheet table of your variant)",
    ),
}


def mounted(sensor: Sensor, mount: str | None) -> Sensor:
    """A reed switch stood upright (the default) or laid flat, one end under the centre."""
    if sensor.kind == "hall" or mount is None:
        return replace(sensor, name=sensor.name + (", upright" if sensor.kind != "hall" else ""))
    if mount == "flat":
        return replace(
            sensor, kind="reed-flat", name=sensor.name + ", flat, one end under the centre"
        )
    return replace(sensor, kind="reed-upright", name=sensor.name + ", upright")


@dataclass(frozen=True)
class Build:
    magnet_diameter_mm: float
    magnet_height_mm: float
    grade: str
    depth_mm: float
    pitch_mm: float
    sensor: Sensor
    tolerance_mm: float = 5.0

    @property
    def remanence(self) -> float:
        return GRADES[self.grade]

    def describe(self) -> str:
        return (
            f"{self.magnet_diameter_mm:g} x {self.magnet_height_mm:g} mm {self.grade} disc "
            f"({self.remanence:.2f} T), {self.depth_mm:g} mm above the sensor, "
            f"{self.pitch_mm:g} mm pitch; {self.sensor.name}"
        )


@dataclass(frozen=True)
class Result:
    """What the sensor under one cell sees, in the sensor's unit (signed)."""

    depth_mm: float
    own_centred: float
    own_off: float  # own figure ``tolerance`` off-centre, worst direction
    seen_within_mm: float  # farthest off-centre at which the figure is still seen
    neighbour_centred: float
    neighbour_toward: float  # a neighbour ``tolerance`` towards the shared edge, worst
    four_neighbours: float  # four neighbours pushed towards us, our cell empty
    own_off_with_four: float  # own figure off-centre, four neighbours on their centres
    seen: bool
    not_seen: bool

    @property
    def passed(self) -> bool:
        return self.seen and self.not_seen


Positions = Sequence[tuple[float, float]]


def fields(build: Build, depth_mm: float, magnets: Positions) -> list[float]:
    """What the sensor sees from one magnet centred at each (x, y) mm, in one magpylib call.

    The fields depend only on where the sensor is relative to the magnet, so the magnet
    stays at the origin and the sensor's points move instead.
    """
    import magpylib  # an extra (pip install '.[hardware]'): never needed on the Pi
    import numpy as np

    mm = 1e-3
    sensor = build.sensor
    t = (np.arange(STEPS) + 0.5) / STEPS
    zero = 0 * t
    if sensor.kind == "reed-flat":  # along +x from under the cell centre
        line = np.stack([t * sensor.length_mm, zero, zero - depth_mm], axis=1)
        step = np.array([-sensor.length_mm / STEPS, 0.0, 0.0]) * mm
    elif sensor.kind == "reed-upright":  # from ``depth`` down, integrated upwards
        line = np.stack([zero, zero, -depth_mm - t * sensor.length_mm], axis=1)
        step = np.array([0.0, 0.0, sensor.length_mm / STEPS]) * mm
    else:
        line = np.array([[0.0, 0.0, -depth_mm]])
        step = np.zeros(3)
    shift = np.array([(x, y, 0.0) for x, y in magnets], dtype=float)
    points = (line[None, :, :] - shift[:, None, :]).reshape(-1, 3) * mm
    magnet = magpylib.magnet.Cylinder(
        polarization=(0.0, 0.0, build.remanence),
        dimension=(build.magnet_diameter_mm * mm, build.magnet_height_mm * mm),
        position=(0.0, 0.0, build.magnet_height_mm * mm / 2),
    )
    if sensor.kind == "hall":  # mT through the face (facing up)
        return [float(v) * 1e3 for v in np.atleast_2d(magnet.getB(points))[:, 2]]
    # Ampere-turns along the glass; signed so that a magnet straight above is positive.
    h = np.atleast_2d(magnet.getH(points)).reshape(len(magnets), len(line), 3)
    return [float(v) for v in (h @ step).sum(axis=1)]


def _offsets(radius: float) -> list[tuple[float, float]]:
    return [
        (
            radius * math.cos(2 * math.pi * k / DIRECTIONS),
            radius * math.sin(2 * math.pi * k / DIRECTIONS),
        )
        for k in range(DIRECTIONS)
    ]


def _sees(sensor: Sensor, value: float) -> bool:
    """Whether the least sensitive part surely operates (reeds and these Hall switches
    answer to either pole)."""
    return abs(value) >= sensor.operate_max


def _quiet(sensor: Sensor, value: float) -> bool:
    """Whether the most sensitive part surely stays off."""
    return abs(value) < sensor.operate_min


def _weakest(values: Sequence[float]) -> float:
    return min(values, key=abs)


def _strongest(values: Sequence[float]) -> float:
    return max(values, key=abs)


def analyse(build: Build, depth_mm: float | None = None) -> Result:
    """The table row for one depth (the build's own by default)."""
    depth = build.depth_mm if depth_mm is None else depth_mm
    sensor, tol, pitch = build.sensor, build.tolerance_mm, build.pitch_mm
    neighbours = [(pitch, 0.0), (-pitch, 0.0), (0.0, pitch), (0.0, -pitch)]
    toward = [
        (x - math.copysign(tol, x) if x else 0.0, y - math.copysign(tol, y) if y else 0.0)
        for x, y in neighbours
    ]
    radii = [0.25 * k for k in range(1, int(pitch / 2 / 0.25) + 1)]
    rings = [offset for r in radii for offset in _offsets(r)]
    # A flat reed is not at the cell centre (it runs from the centre along +x), so every
    # neighbour and direction is computed, and the worst one counts.
    values = fields(build, depth, [(0.0, 0.0), *neighbours, *toward, *_offsets(tol), *rings])
    own_centred = values[0]
    at_neighbours, at_toward = values[1:5], values[5:9]
    own_offs = values[9 : 9 + DIRECTIONS]
    ring_values = values[9 + DIRECTIONS :]
    around = sum(at_neighbours)
    own_off = _weakest(own_offs)
    own_off_with_four = _weakest([v + around for v in own_offs])
    four = sum(at_toward)
    seen_within = 0.0
    if _sees(sensor, own_centred):
        for k, radius in enumerate(radii):
            ring = ring_values[k * DIRECTIONS : (k + 1) * DIRECTIONS]
            if not all(_sees(sensor, v) for v in ring):
                break
            seen_within = radius
    neighbour_toward = _strongest(at_toward)
    return Result(
        depth_mm=depth,
        own_centred=own_centred,
        own_off=own_off,
        seen_within_mm=seen_within,
        neighbour_centred=_strongest(at_neighbours),
        neighbour_toward=neighbour_toward,
        four_neighbours=four,
        own_off_with_four=own_off_with_four,
        seen=_sees(sensor, own_off_with_four) and _sees(sensor, own_off),
        not_seen=_quiet(sensor, four) and all(_quiet(sensor, v) for v in at_toward),
    )


def report(build: Build, depths: Sequence[float]) -> tuple[bool, str]:
    """The table over ``depths`` and the verdict for the build's own depth."""
    sensor, tol = build.sensor, build.tolerance_mm
    unit = sensor.unit
    rows = [analyse(build, d) for d in depths]
    mine = analyse(build)
    lines = [
        f"build: {build.describe()}",
        f"sensor limits: {sensor.limits}",
        "",
        f"| depth mm | on axis {unit} | {tol:g} mm off {unit} | seen up to mm off-centre "
        f"| neighbour centred {unit} | neighbour {tol:g} mm toward the edge {unit} "
        f"| four neighbours {unit} | own {tol:g} mm off + four {unit} | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        mark = " (this build)" if math.isclose(r.depth_mm, build.depth_mm) else ""
        lines.append(
            f"| {r.depth_mm:g}{mark} | {r.own_centred:.1f} | {r.own_off:.1f} | "
            f"{r.seen_within_mm:.2f} | {r.neighbour_centred:.2f} | {r.neighbour_toward:.2f} | "
            f"{r.four_neighbours:.2f} | {r.own_off_with_four:.1f} | "
            f"{'pass' if r.passed else 'FAIL'} |"
        )
    lines.append("")
    why = []
    if not mine.seen:
        why.append(
            f"a figure {tol:g} mm off-centre gives {mine.own_off_with_four:.1f} {unit} with "
            f"four neighbours, under the {sensor.operate_max:g} {unit} the least sensitive "
            "part needs"
        )
    if not mine.not_seen:
        loudest = max(abs(mine.neighbour_toward), abs(mine.four_neighbours))
        why.append(
            f"neighbours give up to {loudest:.1f} "
            f"{unit} under an empty cell, not below the {sensor.operate_min:g} {unit} "
            "the most sensitive part may operate at"
        )
    verdict = "PASS" if mine.passed else "FAIL"
    lines.append(f"{verdict}: " + ("; ".join(why) if why else "own figure seen, neighbours not"))
    lines.append(
        "model: magpylib fields of the ideal disc; left out: iron nearby, the reed's own "
        "iron, the grade's spread (+-3 %) and depth errors; confirm on a 3 x 3 test patch."
    )
    return mine.passed, "\n".join(lines)


#: The options' ranges: a board's plausible sizes (nan, inf, 0 or a metre: exit 2).
MAGNET_MM = Number(0, 50, above=True, unit="mm")
DEPTH_MM = Number(0, 50, above=True, unit="mm")
PITCH_MM = Number(5, 100, unit="mm")
TOLERANCE_MM = Number(0, 50, unit="mm")


def parse_magnet(text: str) -> tuple[float, float]:
    """``"8x3"`` as (diameter, height) in mm, each a :data:`MAGNET_MM`."""
    parts = [MAGNET_MM.parse(part) for part in text.lower().split("x")]
    if len(parts) != 2 or None in parts:
        raise argparse.ArgumentTypeError(
            f"a magnet is DIAMETERxHEIGHT, each {MAGNET_MM.describe()}, e.g. 8x3; not {text!r}"
        )
    diameter, height = parts
    assert diameter is not None and height is not None
    return diameter, height


def add_parser(sub: Any) -> None:
    """``companion hardware magnets``."""
    hardware = sub.add_parser("hardware", help="design checks for the board")
    commands = hardware.add_subparsers(title="hardware commands")
    magnets = commands.add_parser(
        "magnets", help="does the magnet switch its own sensor and not the neighbours'?"
    )
    magnets.add_argument("--magnet", type=parse_magnet, default=(8.0, 3.0), help="DxH mm (8x3)")
    magnets.add_argument("--grade", choices=sorted(GRADES), default="N35")
    magnets.add_argument("--depth", type=DEPTH_MM, default=7.0, help="magnet underside to sensor")
    magnets.add_argument("--pitch", type=PITCH_MM, default=25.0, help="cell pitch")
    magnets.add_argument("--sensor", choices=sorted(SENSORS), default="reed-14mm")
    magnets.add_argument("--mount", choices=("upright", "flat"), default=None, help="for reed-14mm")
    magnets.add_argument(
        "--tolerance",
        type=TOLERANCE_MM,
        default=5.0,
        help="how far off-centre a figure may stand, mm",
    )
    magnets.set_defaults(func=_magnets_command)


def _magnets_command(args: argparse.Namespace) -> int:
    if args.mount is not None and SENSORS[args.sensor].kind == "hall":
        print("companion: --mount is for reed switches (a Hall switch lies face up)")
        return 2
    sensor = mounted(SENSORS[args.sensor], args.mount)
    build = Build(
        args.magnet[0], args.magnet[1], args.grade, args.depth, args.pitch, sensor, args.tolerance
    )
    try:
        depths = sorted({*(args.depth + d for d in (-2, -1, 0, 1, 2, 3)), args.depth})
        ok, text = report(build, [d for d in depths if d > 0])
    except ImportError:
        print("companion: magpylib is not installed: pip install 'pyramid-companion[hardware]'")
        return 2
    print(text)
    return 0 if ok else 1
