"""``companion hardware magnets``: does a figure's magnet switch its own sensor, and does
the sensor let go again, wherever the game's figures stand?  Fields of the real disc
magnet computed with magpylib, searched for the worst case, checked against the sensor's
datasheet limits.  The model (stated in every report, explained in hardware/README.md):

- the magnet is an axially magnetised cylinder (``--magnet DxH`` in mm) with the grade's
  remanence; ``--depth`` is from its underside down to the sensing element (a Hall
  switch's element lies 0.65 mm (SOT-23) or 1.03 mm (TO-92) below its package face; a
  reed switch's depth is to the top end of its glass); cells on a ``--pitch`` mm grid;
- a reed switch answers to the ampere-turns its blades gather, under two field models
  (:data:`MODELS`), and the verdict is the worse of the two: *point*, the line integral
  of H along the glass's axis (the magnetic potential between its two ends), and
  *blades*, the potential of each blade taken as its average along its half of the
  glass (a blade of soft iron sits at one potential), the difference scaled so that a
  uniform field gives both models the same.  A neighbour's field reverses along the
  glass, which the two models weigh differently.  The catalogue rating is measured in
  a test coil, of which only 50-75 % appears along the glass for a magnet's field
  (:data:`GLASS_FACTOR`): G ampere-turns along the glass count as G / 0.75 coil AT when
  we need them to close the switch and as G / 0.5 when we need them to open.  It
  closes at the ordered pull-in band's top (``--at``) and opens below its drop-out:
  the datasheet's, or :data:`DROPOUT_RATIO` (40 %) of the band's bottom where the
  datasheet gives none (``--dropout``);
- a Hall switch answers to B perpendicular to its face at the element: the DRV5032's
  omnipolar variants to its magnitude, whatever its sign, with the operate and release
  limits of TI SLVSDC7 (section 7.6 / 6.6 "Magnetic Characteristics");
- every figure may stand anywhere within ``--tolerance`` mm of its cell's centre.  A
  game puts at most ``--figures`` magnets on the board (:data:`FIGURES`, 5: Into the
  Crypt's four meeples and the magnet a player touches a square with): beside a
  figure stand at most ``figures - 1`` others, around an empty cell all of them (the
  figure that just left may stand on a neighbour).

Operate margin: the own figure at its weakest point of its circle, with ``figures - 1``
others on the 8 neighbour cells at their worst points (their field is of the other sign
and subtracts), must still reach the least sensitive part's operate point.  Release
margin: ``figures`` neighbours at their worst points, their fields added, must stay below
the most sensitive part's release point (drop-out), or the sensor sticks after a figure
leaves (and a sensor that never closed stays open, since release < operate).

The search is fast because it uses the symmetry: an upright reed or a Hall switch under
the cell centre sees a field that depends only on how far the magnet is from its axis,
so each neighbour circle is a segment of distances (one side cell and one diagonal cell
stand for all four), searched on a coarse grid and refined near the worst point, in one
vectorised magpylib call per pass.  A flat reed has no such symmetry: every cell's disc
is searched on a polar grid and refined.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.inputs import Number

#: Remanence (T) of sintered NdFeB by grade, mid-range of the usual datasheet span.
GRADES = {"N35": 1.20, "N38": 1.24, "N42": 1.30, "N45": 1.35, "N48": 1.39, "N52": 1.45}
#: Points along a reed for the line integral.
STEPS = 160
#: The share of a test coil's ampere-turns that appears along the glass for a magnet's
#: field: 60-75 % (the AT test coil is longer than the glass and fills it evenly; a
#: magnet's field does not.  Standex "Test coils", Hamlin AN103C: the rating belongs to
#: its coil), taken down to 50 % on the release side, where a low share hurts: the
#: review of issue 35 found the old reed margin failing there.
GLASS_FACTOR = (0.50, 0.75)
#: Reed drop-out as a share of pull-in where the datasheet gives none (Littelfuse's MDSR
#: sheets do not): 40 %, below the 50-80 % hysteresis Standex-Meder quotes ("Reed switch
#: and magnet interaction"), since the lowest part of a batch is the one that sticks.
DROPOUT_RATIO = 0.4
#: The most magnets a game puts on the board at once: 4 seeker figures in the mummy
#: game (RULES.md; a 2-player seeker moves two), and in Into the Crypt 4 meeples plus
#: the magnet a player touches a square with to place a cube (crypt_tracker.py): 5.
FIGURES = 5
#: The magnet the guide's figures carry (diameter, height mm; companion/hardware/builds.py).
DEFAULT_MAGNET = (6.0, 3.0)
#: The reed's two field models (the module docstring): the verdict is the worse.
MODELS = ("point", "blades")
#: Where a sensing element lies below its package face (TI SLVSDC7, "Hall Element
#: Location"), mm.
ELEMENT_BELOW_FACE = {"sot23": 0.65, "to92": 1.03}
PACKAGE_NAMES = {"sot23": "SOT-23", "to92": "TO-92"}
#: The 8 neighbour cells, in pitches, with a name for the report ("right" is the next
#: column, "down" the next row as the maze is printed).
NEIGHBOURS = (
    ("right", 1, 0),
    ("left", -1, 0),
    ("down", 0, 1),
    ("up", 0, -1),
    ("down-right", 1, 1),
    ("up-left", -1, -1),
    ("down-left", -1, 1),
    ("up-right", 1, -1),
)


@dataclass(frozen=True)
class Sensor:
    """A sensor: where it sits, what switches it and what lets it go.

    ``operate_max`` and ``release_min`` are in the sensor's catalogue unit (coil AT, mT):
    the least sensitive part operates at or below ``operate_max``, the most sensitive
    releases only below ``release_min``.  The model's field (``unit``: ampere-turns along
    the glass, or mT) is divided by ``operate_scale`` / ``release_scale`` to compare."""

    key: str
    name: str
    kind: str  # "reed-flat", "reed-upright" or "hall"
    length_mm: float  # reed glass length (0 for a Hall switch)
    unit: str  # the model's unit: "A" (along the glass) or "mT"
    catalogue_unit: str  # "AT" (test coil) or "mT"
    operate_max: float
    release_min: float
    limits: str  # where the numbers come from
    operate_min: float | None = None  # the rest of the datasheet's table, for the record
    release_max: float | None = None
    operate_scale: float = 1.0
    release_scale: float = 1.0
    sampling: str = ""  # how often a sampled sensor looks (Hall switches)
    output: str = ""  # a Hall switch's output stage
    order_code: str = ""  # a part number with the band or variant suffix
    dropout: str = ""  # where a reed's drop-out comes from, in words

    @property
    def is_reed(self) -> bool:
        return self.kind != "hall"


def reed(length_mm: float, band: tuple[float, float], dropout: float | None = None) -> Sensor:
    """A reed switch of ``length_mm`` glass ordered in a pull-in ``band`` (coil AT) that
    drops out at ``dropout`` x the band's bottom or later (None: the datasheet gives no
    drop-out, and :data:`DROPOUT_RATIO` stands in)."""
    low, high = band
    given = dropout is not None
    dropout = DROPOUT_RATIO if dropout is None else dropout
    source = (
        f"drop-out at least {dropout:.0%} of pull-in"
        if given
        else f"drop-out not in the datasheet: {dropout:.0%} of pull-in assumed"
    )
    return Sensor(
        key=f"reed-{length_mm:g}mm",
        name=f"reed switch, {length_mm:g} mm glass, pull-in {low:g}-{high:g} AT",
        kind="reed-upright",
        length_mm=length_mm,
        unit="A",
        catalogue_unit="AT",
        operate_max=high,
        release_min=dropout * low,
        operate_min=low,
        limits=(
            f"pull-in {low:g}-{high:g} AT (the band ordered), {source} = "
            f"{dropout * low:g} AT; along the glass only "
            f"{GLASS_FACTOR[0]:.0%}-{GLASS_FACTOR[1]:.0%} of a test coil's AT appear, so the "
            f"model's ampere-turns count / {GLASS_FACTOR[1]:g} to close it and "
            f"/ {GLASS_FACTOR[0]:g} to open it; the worse of the point and blade models"
        ),
        operate_scale=GLASS_FACTOR[1],
        release_scale=GLASS_FACTOR[0],
        dropout=source,
    )


_TI = "TI SLVSDC7, Magnetic Characteristics"
_20HZ = "20 Hz nominal: a sample every 27 to 75 ms (13.3 to 37 Hz over the spread)"


def _drv5032(
    variant: str,
    output: str,
    operate: tuple[float | None, float],
    release: tuple[float, float | None],
    sampling: str = _20HZ,
) -> Sensor:
    return Sensor(
        key=f"drv5032{variant.lower()}",
        name=f"DRV5032{variant} Hall switch (omnipolar, {output}), face up under the centre",
        kind="hall",
        length_mm=0.0,
        unit="mT",
        catalogue_unit="mT",
        operate_max=operate[1],
        release_min=release[0],
        operate_min=operate[0],
        release_max=release[1],
        limits=(
            f"operate at most {operate[1]:g} mT, release at least {release[0]:g} mT, "
            f"either pole ({_TI})"
        ),
        sampling=sampling,
        output=output,
        order_code=f"DRV5032{variant}DBZR (SOT-23) or DRV5032{variant}LPG (TO-92)",
    )


#: The sensors the tool knows.  Reeds default to a generic, unordered band (10-30 AT is
#: what a bag of "14 mm reed switches" holds); ``--at`` gives the band ordered.
SENSORS = {
    s.key: s
    for s in (
        reed(14.0, (10.0, 30.0)),
        reed(15.24, (10.0, 30.0)),
        reed(12.7, (10.0, 30.0)),
        reed(10.16, (10.0, 30.0)),
        reed(7.0, (10.0, 30.0)),
        _drv5032("FA", "push-pull", (None, 4.8), (0.5, None)),
        _drv5032("FB", "push-pull", (None, 4.8), (0.5, None), "5 Hz: a sample every 200 ms"),
        _drv5032("FC", "open drain", (None, 4.8), (0.5, None)),
        _drv5032("AJ", "open drain", (4.0, 9.5), (3.0, 7.5)),
    )
}


def mounted(sensor: Sensor, mount: str | None) -> Sensor:
    """A reed switch stood upright (the default) or laid flat, one end under the centre."""
    if not sensor.is_reed:
        return sensor
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
    figures: int = FIGURES
    package: str = "sot23"

    @property
    def remanence(self) -> float:
        return GRADES[self.grade]

    def describe(self) -> str:
        where = (
            f"the sensing element {self.depth_mm:g} mm below the magnet's underside "
            f"(the {PACKAGE_NAMES[self.package]} face {self.face_depth_mm():g} mm)"
            if not self.sensor.is_reed
            else f"the top of the glass {self.depth_mm:g} mm below the magnet's underside"
        )
        return (
            f"{self.magnet_diameter_mm:g} x {self.magnet_height_mm:g} mm {self.grade} disc "
            f"({self.remanence:.2f} T), {where}, {self.pitch_mm:g} mm pitch, figures up to "
            f"{self.tolerance_mm:g} mm off-centre, {self.figures} on the board; "
            f"{self.sensor.name}"
        )

    def face_depth_mm(self, depth_mm: float | None = None) -> float:
        """How far below the magnet's underside the package face (or glass top) is."""
        depth = self.depth_mm if depth_mm is None else depth_mm
        offset = 0.0 if self.sensor.is_reed else ELEMENT_BELOW_FACE[self.package]
        return round(depth - offset, 2)


@dataclass(frozen=True)
class Spot:
    """One magnet in its worst place: which cell, how far from that cell's centre (mm,
    x to the right, y down as printed), and the field it gives (the model's unit)."""

    cell: str  # "this cell" or a neighbour's name ("right", "up-left", ...)
    dx: float
    dy: float
    value: float

    def describe(self) -> str:
        off = math.hypot(self.dx, self.dy)
        where = (
            "centred" if off < 0.05 else f"{off:.1f} mm off-centre ({self.dx:+.1f}, {self.dy:+.1f})"
        )
        return f"{self.cell} {where}"


@dataclass(frozen=True)
class Verdict:
    """The worst cases of one build at one depth (fields in the sensor's model unit)."""

    depth_mm: float
    sensor: Sensor
    own_centred: float
    own_weakest: Spot  # the own figure's weakest place in its circle
    operate_worst: float  # |own + the others| at its smallest
    operate_others: tuple[Spot, ...]  # the others that pull it down
    release_worst: float  # |sum of the neighbours| at its largest
    release_figures: tuple[Spot, ...]
    all_eight: float  # every neighbour circle at its worst, one sign, summed (signed)
    #: The field model each margin comes from (a reed: the worse of :data:`MODELS`).
    operate_model: str = "point"
    release_model: str = "point"
    #: Every model's (name, operate margin, release margin), for the report.
    models: tuple[tuple[str, float, float], ...] = ()

    @property
    def operate_seen(self) -> float:
        """The weakest own field in catalogue terms (coil AT, mT)."""
        return self.operate_worst / self.sensor.operate_scale

    @property
    def release_seen(self) -> float:
        """The strongest field of the neighbours in catalogue terms."""
        return self.release_worst / self.sensor.release_scale

    @property
    def operate_margin(self) -> float:
        """How far the weakest own field is above the operate maximum (negative: fails)."""
        return self.operate_seen - self.sensor.operate_max

    @property
    def release_margin(self) -> float:
        """How far the neighbours stay below the release minimum (negative: fails)."""
        return self.sensor.release_min - self.release_seen

    @property
    def seen(self) -> bool:
        return self.operate_margin >= 0

    @property
    def released(self) -> bool:
        return self.release_margin > 0

    @property
    def passed(self) -> bool:
        return self.seen and self.released


Points = Sequence[tuple[float, float]]


def fields(build: Build, depth_mm: float, magnets: Points, model: str = "point") -> list[float]:
    """What the sensor sees from one magnet centred at each (x, y) mm, in one magpylib call.

    The fields depend only on where the sensor is relative to the magnet, so the magnet
    stays at the origin and the sensor's points move instead.  Signed so that a magnet
    straight above gives a positive value.  A reed's ``model`` (:data:`MODELS`): the
    line integral along the glass (``point``), or twice the difference of the two
    blades' mean potentials (``blades``: a uniform field gives both the same).
    """
    import magpylib  # an extra (pip install '.[hardware]'): never needed on the Pi
    import numpy as np

    if not magnets:
        return []
    if model not in MODELS:
        raise ValueError(f"unknown field model {model!r}")
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
    h = np.atleast_2d(magnet.getH(points)).reshape(len(magnets), len(line), 3)
    along = h @ step  # each step's share of the line integral, from the glass's first end
    if model == "point":
        return [float(v) for v in along.sum(axis=1)]
    # The potential at each point, from the first end (its mid-step value), averaged
    # over each blade's half of the glass.
    potential = np.cumsum(along, axis=1) - along / 2
    half = STEPS // 2
    blades = potential[:, half:].mean(axis=1) - potential[:, :half].mean(axis=1)
    return [float(v) for v in 2 * blades]


# -- the worst-case search ----------------------------------------------------------------


@dataclass(frozen=True)
class _Region:
    """Where one figure may stand: a disc around a cell centre (or, for a sensor with
    axial symmetry, the segment of it along the line to the sensor, which reaches every
    distance from the sensor the disc does)."""

    cell: str
    cx: float
    cy: float
    radius: float
    axial: bool

    def coarse(self) -> list[tuple[float, float]]:
        if self.radius == 0:
            return [(self.cx, self.cy)]
        if self.axial:
            n = max(3, math.ceil(2 * self.radius / 0.5) + 1)
            return [self._along(-self.radius + 2 * self.radius * k / (n - 1)) for k in range(n)]
        rings = 5
        points = [(self.cx, self.cy)]
        for i in range(1, rings + 1):
            r = self.radius * i / rings
            points += [
                (self.cx + r * math.cos(a), self.cy + r * math.sin(a))
                for a in (2 * math.pi * k / 24 for k in range(24))
            ]
        return points

    def step(self) -> float:
        return 0.5 if self.axial else max(self.radius / 5, 2 * math.pi * self.radius / 24)

    def refine(self, x: float, y: float) -> list[tuple[float, float]]:
        """A finer grid around (x, y), kept inside the circle."""
        h = self.step()
        if self.radius == 0:
            return [(x, y)]
        if self.axial:
            s = self._position(x, y)
            return [
                self._along(min(self.radius, max(-self.radius, s + h * k / 10)))
                for k in range(-10, 11)
            ]
        grid = [(x + h * i / 5, y + h * j / 5) for i in range(-5, 6) for j in range(-5, 6)]
        return [
            (px, py)
            for px, py in grid
            if math.hypot(px - self.cx, py - self.cy) <= self.radius + 1e-9
        ]

    def _direction(self) -> tuple[float, float]:
        distance = math.hypot(self.cx, self.cy)
        if distance == 0:
            return (1.0, 0.0)
        return (-self.cx / distance, -self.cy / distance)  # towards the sensor

    def _along(self, s: float) -> tuple[float, float]:
        ux, uy = self._direction()
        return (self.cx + s * ux, self.cy + s * uy)

    def _position(self, x: float, y: float) -> float:
        ux, uy = self._direction()
        return (x - self.cx) * ux + (y - self.cy) * uy


def _extremes(
    evaluate: Callable[[Points], list[float]], regions: Sequence[_Region]
) -> list[tuple[Spot, Spot]]:
    """(weakest-signed, strongest-signed) spot of each region: the minimum and maximum
    field over it, from a coarse grid refined around each extreme."""
    coarse = [r.coarse() for r in regions]
    values = evaluate([p for points in coarse for p in points])
    best: list[list[tuple[float, tuple[float, float]]]] = []
    start = 0
    for points in coarse:
        chunk = values[start : start + len(points)]
        start += len(points)
        low = min(range(len(chunk)), key=chunk.__getitem__)
        high = max(range(len(chunk)), key=chunk.__getitem__)
        best.append([(chunk[low], points[low]), (chunk[high], points[high])])
    fine = [r.refine(*b[k][1]) for r, b in zip(regions, best, strict=True) for k in (0, 1)]
    values = evaluate([p for points in fine for p in points])
    start = 0
    result = []
    for i, region in enumerate(regions):
        spots = []
        for k in (0, 1):
            points = fine[2 * i + k]
            chunk = values[start : start + len(points)]
            start += len(points)
            pick = min if k == 0 else max
            j = pick(range(len(chunk)), key=chunk.__getitem__)
            value, (x, y) = pick(best[i][k], (chunk[j], points[j]), key=lambda v: v[0])
            spots.append(Spot(region.cell, round(x - region.cx, 2), round(y - region.cy, 2), value))
        result.append((spots[0], spots[1]))
    return result


def _rotations(
    spot: Spot, cells: Sequence[tuple[str, int, int]], template: tuple[int, int]
) -> list[Spot]:
    """``spot`` (found on the neighbour ``template``) carried to each of ``cells`` by the
    rotation that maps the template onto it (the sensor is symmetric about its axis)."""
    tx, ty = template
    out = []
    for name, nx, ny in cells:
        angle = math.atan2(ny, nx) - math.atan2(ty, tx)
        c, s = math.cos(angle), math.sin(angle)
        out.append(
            Spot(
                name,
                round(c * spot.dx - s * spot.dy, 2),
                round(s * spot.dx + c * spot.dy, 2),
                spot.value,
            )
        )
    return out


def _pick(spots: Sequence[Spot], count: int, sign: float) -> tuple[float, tuple[Spot, ...]]:
    """The largest sum of up to ``count`` of ``spots`` of one sign (each cell once)."""
    chosen = sorted((s for s in spots if sign * s.value > 0), key=lambda s: -sign * s.value)[:count]
    return sum(s.value for s in chosen), tuple(chosen)


def analyse(build: Build, depth_mm: float | None = None) -> Verdict:
    """The worst cases at one depth (the build's own by default): for a reed, each margin
    from the field model (:data:`MODELS`) that gives it smaller."""
    if not build.sensor.is_reed:
        return analyse_model(build, depth_mm, "point")
    each = [analyse_model(build, depth_mm, model) for model in MODELS]
    op = min(each, key=lambda v: v.operate_margin)
    rel = min(each, key=lambda v: v.release_margin)
    return replace(
        op,
        release_worst=rel.release_worst,
        release_figures=rel.release_figures,
        all_eight=rel.all_eight,
        operate_model=op.operate_model,
        release_model=rel.release_model,
        models=tuple(
            (m, v.operate_margin, v.release_margin) for m, v in zip(MODELS, each, strict=True)
        ),
    )


def analyse_model(build: Build, depth_mm: float | None, model: str) -> Verdict:
    """The worst cases at one depth under one field model (:data:`MODELS`)."""
    depth = build.depth_mm if depth_mm is None else depth_mm
    pitch, tol = build.pitch_mm, build.tolerance_mm
    axial = build.sensor.kind != "reed-flat"

    def evaluate(points: Points) -> list[float]:
        return fields(build, depth, points, model)

    own_region = _Region("this cell", 0.0, 0.0, tol, axial)
    if axial:  # one side cell and one diagonal cell stand for all four of each
        regions = [
            _Region("right", pitch, 0.0, tol, True),
            _Region("down-right", pitch, pitch, tol, True),
        ]
        own, side, diagonal = _extremes(evaluate, [own_region, *regions])
        lows = _rotations(side[0], NEIGHBOURS[:4], (1, 0)) + _rotations(
            diagonal[0], NEIGHBOURS[4:], (1, 1)
        )
        highs = _rotations(side[1], NEIGHBOURS[:4], (1, 0)) + _rotations(
            diagonal[1], NEIGHBOURS[4:], (1, 1)
        )
    else:
        regions = [_Region(name, nx * pitch, ny * pitch, tol, False) for name, nx, ny in NEIGHBOURS]
        found = _extremes(evaluate, [own_region, *regions])
        own, rest = found[0], found[1:]
        lows, highs = [r[0] for r in rest], [r[1] for r in rest]
    centred = evaluate([(0.0, 0.0)])[0]
    # Operate: the own figure's range plus the others' range; |sum| at its smallest.
    others = build.figures - 1
    down, down_spots = _pick(lows, others, -1.0)
    up, up_spots = _pick(highs, others, 1.0)
    low_end, high_end = own[0].value + down, own[1].value + up
    if low_end <= 0 <= high_end:
        operate, weakest, pulling = 0.0, own[0], down_spots
    elif low_end > 0:
        operate, weakest, pulling = low_end, own[0], down_spots
    else:
        operate, weakest, pulling = -high_end, own[1], up_spots
    # Release: every figure on a neighbour; |sum| at its largest.
    plus, plus_spots = _pick(highs, build.figures, 1.0)
    minus, minus_spots = _pick(lows, build.figures, -1.0)
    release, around = (plus, plus_spots) if plus >= -minus else (-minus, minus_spots)
    eight_plus, eight_minus = _pick(highs, 8, 1.0)[0], _pick(lows, 8, -1.0)[0]
    return Verdict(
        depth_mm=depth,
        sensor=build.sensor,
        own_centred=centred,
        own_weakest=weakest,
        operate_worst=operate,
        operate_others=pulling,
        release_worst=release,
        release_figures=around,
        all_eight=eight_plus if eight_plus >= -eight_minus else eight_minus,
        operate_model=model,
        release_model=model,
    )


# -- the report -----------------------------------------------------------------------------


def _fmt(value: float) -> str:
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def table(build: Build, depths: Sequence[float]) -> list[str]:
    """The Markdown table of the verdicts over ``depths`` (a reed: each margin from the
    worse of the two field models, named in the last column but one)."""
    s, u, c = build.sensor, build.sensor.unit, build.sensor.catalogue_unit
    others, n = build.figures - 1, build.figures
    reed_col = " | worse model (operate / release)" if s.is_reed else ""
    lines = [
        f"| depth mm | own centred {u} | own weakest {u} | with {others} others {c} "
        f"| operate needs {c} "
        f"| {n} around an empty cell {c} | release below {c} | operate margin | release margin"
        f"{reed_col} | verdict |",
        "|---|---|---|---|---|---|---|---|---|" + ("---|" if s.is_reed else "") + "---|",
    ]
    for d in depths:
        v = analyse(build, d)
        mark = " (this build)" if math.isclose(d, build.depth_mm) else ""
        models = f" | {v.operate_model} / {v.release_model}" if s.is_reed else ""
        lines.append(
            f"| {d:g}{mark} | {_fmt(v.own_centred)} | {_fmt(v.own_weakest.value)} | "
            f"{_fmt(v.operate_seen)} | {s.operate_max:g} | {_fmt(v.release_seen)} | "
            f"{s.release_min:g} | {v.operate_margin:+.2f} | {v.release_margin:+.2f}{models} | "
            f"{'pass' if v.passed else 'FAIL'} |"
        )
    return lines


def explain(build: Build, v: Verdict) -> list[str]:
    """Both margins of ``v`` in words, each with where its worst case is."""
    s, c = build.sensor, build.sensor.catalogue_unit
    others = ", ".join(spot.describe() for spot in v.operate_others) or "none that weaken it"
    around = ", ".join(spot.describe() for spot in v.release_figures) or "none"
    scale_op = (
        f" (= {_fmt(v.operate_worst)} {s.unit} along the glass / {s.operate_scale:g}, "
        f"{v.operate_model} model)"
        if s.is_reed
        else ""
    )
    scale_rel = (
        f" (= {_fmt(v.release_worst)} {s.unit} along the glass / {s.release_scale:g}, "
        f"{v.release_model} model)"
        if s.is_reed
        else ""
    )
    lines = [
        f"operate margin {v.operate_margin:+.2f} {c}: the own figure gives at least "
        f"{_fmt(v.operate_seen)} {c}{scale_op} against the {s.operate_max:g} {c} the least "
        f"sensitive part may need; worst case: {v.own_weakest.describe()}, with "
        f"{len(v.operate_others)} other figure(s): {others}"
        + ("" if v.seen else " -> a figure there is NOT seen"),
        f"release margin {v.release_margin:+.2f} {c}: {len(v.release_figures)} figure(s) "
        f"around an empty cell give at most {_fmt(v.release_seen)} {c}{scale_rel} against "
        f"the {s.release_min:g} {c} below which the most sensitive part lets go; worst "
        f"case: {around}" + ("" if v.released else " -> the sensor sticks or reads a ghost"),
    ]
    if v.models:
        each = "; ".join(
            f"{m}: operate {op:+.2f}, release {rel:+.2f} {c}" for m, op, rel in v.models
        )
        lines.append(f"each field model's margins: {each}; the verdict takes the worse")
    eight = _fmt(v.all_eight)
    lines.append(f"(all 8 neighbour circles at their worst would give {eight} {s.unit})")
    return lines


MODEL = (
    "model: magpylib fields of the ideal disc, every figure anywhere in its circle; a reed "
    "under two field models (along the glass, each blade averaged), the worse counting; "
    "left out: iron nearby, the grade's spread (+-3 %), cut or bent reed leads (they raise "
    "the AT) and depth errors; computed, not measured: confirm on the 3 x 3 test jig."
)


def report(build: Build, depths: Sequence[float]) -> tuple[bool, str]:
    """The table over ``depths`` and the verdict, with both margins, for the build's depth."""
    mine = analyse(build)
    lines = [f"build: {build.describe()}", f"sensor limits: {build.sensor.limits}", ""]
    lines += table(build, depths)
    lines.append("")
    lines.append(f"{'PASS' if mine.passed else 'FAIL'} at {build.depth_mm:g} mm:")
    lines += ["- " + line for line in explain(build, mine)]
    lines.append(MODEL)
    return mine.passed, "\n".join(lines)


#: The depths ``--sweep`` tries (mm, to the sensing element).
SWEEP = [round(1.0 + 0.25 * k, 2) for k in range(0, 117)]  # 1 to 30 mm


def window(build: Build, depths: Sequence[float] = SWEEP) -> list[tuple[float, float]]:
    """The runs of consecutive ``depths`` at which the build passes, as (first, last)."""
    runs: list[tuple[float, float]] = []
    previous = False
    for d in depths:
        ok = analyse(build, d).passed
        if ok and previous:
            runs[-1] = (runs[-1][0], d)
        elif ok:
            runs.append((d, d))
        previous = ok
    return runs


def sweep_report(build: Build) -> tuple[bool, str]:
    """``--sweep``: the window of depths that pass, and the margins across it."""
    runs = window(build)
    lines = [f"build: {build.describe()}", f"sensor limits: {build.sensor.limits}", ""]
    if not runs:
        lines.append(
            f"no depth from {SWEEP[0]:g} to {SWEEP[-1]:g} mm passes: change the magnet, the "
            "sensor (its band or variant) or the pitch"
        )
        lines.append(MODEL)
        return False, "\n".join(lines)
    spans = ", ".join(f"{a:g} to {b:g} mm" for a, b in runs)
    lines.append(
        f"passes from {spans} (in {SWEEP[1] - SWEEP[0]:g} mm steps, depth to the sensing element)"
    )
    first, last = runs[0]
    middle = round(round((first + last) / 2 / 0.25) * 0.25, 2)
    lines.append("")
    lines += table(build, sorted({first, middle, last}))
    lines.append(MODEL)
    return True, "\n".join(lines)


#: The options' ranges: a board's plausible sizes (nan, inf, 0 or a metre: exit 2).
MAGNET_MM = Number(0, 50, above=True, unit="mm")
DEPTH_MM = Number(0, 50, above=True, unit="mm")
PITCH_MM = Number(5, 100, unit="mm")
TOLERANCE_MM = Number(0, 50, unit="mm")
AT = Number(1, 200, unit="AT")
DROPOUT = Number(0.1, 1, unit="of pull-in")
FIGURE_COUNT = Number(1, 8, integer=True)


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


def parse_band(text: str) -> tuple[float, float]:
    """``"20-25"``: a reed's ordered pull-in band in AT, low to high, each an :data:`AT`."""
    parts = [AT.parse(part) for part in text.split("-")]
    if len(parts) != 2 or None in parts or parts[0] > parts[1]:  # type: ignore[operator]
        raise argparse.ArgumentTypeError(
            f"a pull-in band is LOW-HIGH, each {AT.describe()}, low first, e.g. 20-25; not {text!r}"
        )
    low, high = parts
    assert low is not None and high is not None
    return low, high


def add_parser(sub: Any) -> Any:
    """``companion hardware magnets``; returns the hardware commands, for the others."""
    hardware = sub.add_parser("hardware", help="design checks for the board")
    commands = hardware.add_subparsers(title="hardware commands")
    magnets = commands.add_parser(
        "magnets", help="does the magnet switch its own sensor, and let it go, in the worst case?"
    )
    magnets.add_argument(
        "--magnet",
        type=parse_magnet,
        default=DEFAULT_MAGNET,
        help="DxH mm (default: 6x3, the guide's)",
    )
    magnets.add_argument("--grade", choices=sorted(GRADES), default="N35")
    magnets.add_argument(
        "--depth", type=DEPTH_MM, default=7.0, help="magnet underside to the sensing element, mm"
    )
    magnets.add_argument("--pitch", type=PITCH_MM, default=25.0, help="cell pitch")
    magnets.add_argument("--sensor", choices=sorted(SENSORS), default="reed-14mm")
    magnets.add_argument("--mount", choices=("upright", "flat"), default=None, help="for a reed")
    magnets.add_argument(
        "--at", type=parse_band, default=None, help="a reed's ordered pull-in band, e.g. 20-25"
    )
    magnets.add_argument(
        "--dropout",
        type=DROPOUT,
        default=None,
        help=f"a reed's least drop-out from its datasheet, share of pull-in "
        f"(none given: {DROPOUT_RATIO:g})",
    )
    magnets.add_argument(
        "--package",
        choices=sorted(ELEMENT_BELOW_FACE),
        default="sot23",
        help="a Hall switch's package",
    )
    magnets.add_argument(
        "--tolerance",
        type=TOLERANCE_MM,
        default=5.0,
        help="how far off-centre a figure may stand, mm",
    )
    magnets.add_argument(
        "--figures",
        type=FIGURE_COUNT,
        default=FIGURES,
        help="magnets a game puts on the board at once",
    )
    magnets.add_argument("--sweep", action="store_true", help="the window of depths that pass")
    magnets.set_defaults(func=_magnets_command)
    return commands


def _magnets_command(args: argparse.Namespace) -> int:
    base = SENSORS[args.sensor]
    if not base.is_reed and (
        args.mount is not None or args.at is not None or args.dropout is not None
    ):
        print(
            "companion: --mount, --at and --dropout are for reed switches "
            "(a Hall switch lies face up)"
        )
        return 2
    if args.tolerance >= args.pitch / 2:
        print(f"companion: --tolerance must be under half the pitch ({args.pitch / 2:g} mm)")
        return 2
    sensor = base
    if base.is_reed and (args.at is not None or args.dropout is not None):
        sensor = reed(
            base.length_mm, args.at or (base.operate_min or 0.0, base.operate_max), args.dropout
        )
    build = Build(
        args.magnet[0],
        args.magnet[1],
        args.grade,
        args.depth,
        args.pitch,
        mounted(sensor, args.mount),
        args.tolerance,
        int(args.figures),
        args.package,
    )
    try:
        if args.sweep:
            ok, text = sweep_report(build)
        else:
            depths = sorted({*(args.depth + d for d in (-2, -1, 0, 1, 2, 3)), args.depth})
            ok, text = report(build, [d for d in depths if d > 0])
    except ImportError:
        print("companion: magpylib is not installed: pip install 'pyramid-companion[hardware]'")
        return 2
    print(text)
    return 0 if ok else 1
