"""``companion hardware parts``: printable 3D parts that fix every depth of the build.

From the maze file and the board config, the same ones the sheets and the software read,
this writes binary STL files for a 3D printer:

- **the carrier**, in tiles that fit the printer's bed (220 x 220 mm by default): under
  every position a hole or pocket that holds the sensor at the verified depth (an
  upright reed switch stands in a blind hole with a channel for its top lead and a hole
  for its bottom lead; a Hall switch lies face up on the floor of a pocket), beside it
  a pocket for the pixel (a strip piece along the row, or a 10 mm round board), grooves
  for the LED chain's jumpers from pixel to pixel, and a wire hole where a row's supply
  or a long jump comes up from below;
- **a figure base** with its magnet pocket, so the magnet's underside sits exactly
  the figure base's floor (``builds.STACK``) above the board: a plain one, and one per
  seeker with its mark (``seekers.py``: the letter and shape raised on the top, its
  count of notches in the rim), so no one needs the colour to tell the figures apart;
- **a 3 x 3 test jig**: nine cells of the carrier, with a ring where a figure base
  stands centred on each cell, round dimples (labelled "5") where its edge goes when
  it stands ``tolerance`` mm off-centre and slots (labelled "W") where the magnet
  tool's worst neighbours stand, so a maker checks one sensor batch before buying 152;
- **a test piece** to print first: a magnet pocket, a reed cavity, a Hall pocket and a
  groove, each as the real parts have them, to check the printer's tolerances.

Every x and y comes from ``placement`` (the geometry the assembly sheet is drawn from);
every depth from the recommended builds of ``builds`` (the sensor, its verified depth,
the magnet and the layers above the carrier, through :func:`verified_build`): depth =
the base's floor + the cover and print + the sensing element's depth in the carrier.
The meshes are made with manifold3d (exact booleans whose result is always a closed,
manifold solid) and written with trimesh; both are in the ``hardware`` extra, never on
the Pi.  Coordinates of every file: mm, x east, y north (the sheet's y flipped), z up
from the print bed; a carrier tile keeps its place on the board, so the tiles of one
board line up in a slicer as they do on the table.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.board.config import BoardConfig, load_config
from companion.games.mummy.maze import Direction, Maze
from companion.games.mummy.state import FigureColour
from companion.inputs import Number, given_path
from companion.mazes import load_maze

from .builds import (
    MAGNET_DIAMETER_MM,
    MAGNET_HEIGHT_MM,
    RECOMMENDED,
    STACK,
    ReedPackage,
    Sot23,
)
from .placement import (
    PIECE_MM,
    Place,
    is_long_link,
    link_route,
    pixel_centre,
    places,
    room_layout,
)
from .seekers import LETTER_STROKES, SEEKER_MARKS, outline
from .wires import LED_WIRE, side_by_side_mm

if TYPE_CHECKING:
    from manifold3d import Manifold

#: A figure base's diameter (mm): a figure 5 mm off-centre stays on its 25 mm cell's
#: side of the neighbours' bases.
BASE_DIAMETER_MM = 20.0
#: A seeker's mark on its figure base (``seekers.py``): the raised letter's stroke width
#: and the height of the letter and shape above the top (at least 0.8 and 0.6 mm, two
#: lines of a 0.4 mm nozzle, three 0.2 mm layers); the letter's height and width
#: without its strokes' round ends (its counters stay 0.9 mm open); the distance of the
#: letter's and the shape's centres from the base's centre; the shape's size (a
#: circle's radius); the rim's notches (width, depth) and the angle between them (mm,
#: degrees).  The figure's foot, up to 10 mm across, is glued over the magnet between
#: the letter and the shape.
SEEKER_MARK_MM = (0.9, 0.6)
LETTER_HEIGHT_MM = 3.6
LETTER_WIDTH_MM = 2.8
MARK_RADIUS_MM = 7.4
SHAPE_R_MM = 2.2
NOTCH_MM = (1.2, 1.0)
NOTCH_STEP_DEG = 30.0
#: Plastic under the deepest blind feature (mm).
FLOOR_MM = 1.5
#: Play around a part in its hole or pocket (mm, on each side): the glass in its bore,
#: a SOT-23 in its pocket, the magnet in the figure base (a printed hole comes out about
#: 0.1-0.2 mm small; the test piece checks it).
FIT_MM = 0.2
#: Play around a lead in its slot (mm, on each side).
LEAD_FIT_MM = 0.25
#: No lead is bent nearer the glass than this (mm): the glass-to-metal seal cracks.
BEND_CLEAR_MM = 3.0
#: A lead's bend, inside radius (mm): about the lead's own diameter.
BEND_RADIUS_MM = 0.5
#: The reed's side channel: the top lead's down leg, its solder joint with the harness
#: wire and that wire (square, mm), and its centre's distance from the glass's axis.
SIDE_CHANNEL_MM = 1.4
SIDE_OFFSET_MM = 2.5
#: A lead-to-wire solder joint's length (mm).
JOINT_MM = 3.0
#: Least plastic over a cavity, under the carrier's top (mm).
MIN_ROOF_MM = 1.2
#: The Hall pocket's floor strip under the SOT-23's body between its two rows of feet,
#: and the slots beside it that take the feet's wires down (mm).
HALL_RIB_MM = 1.0
#: A pixel's pocket depth (a 60/m piece with its LED is about 1.6 mm thick), mm.
PIXEL_POCKET_MM = 2.0
#: The LED chain's grooves: three of the BOM's LED wires side by side (5 V, GND, data),
#: width and depth, mm.
GROOVE_MM = (side_by_side_mm(LED_WIRE, 3, 0.3), 2.0)
#: Where a row's 5 V and GND or a long jump comes up from below: a hole at the pixel (mm).
WIRE_HOLE_MM = 4.0
#: Channels under the carrier along every row (width, depth mm; open at the underside,
#: the base board closes them): one under the sensors for their harness (it also takes
#: a reed's side channel, so it lies a little north of the sensors' line), one under
#: the pixels for the row's 5 V and GND and the long jumps.
SENSOR_CHANNEL_MM = (7.0, 3.0)
SENSOR_CHANNEL_OFFSET_MM = -0.5
SUPPLY_CHANNEL_MM = (6.0, 3.0)
#: Kept free at the bed's edges (mm).
BED_MARGIN_MM = 5.0
#: Least printable wall between a sensor's hole and a pixel's pocket (mm): 3 lines of
#: a 0.4 mm nozzle.
MIN_WALL_MM = 1.2
#: The test jig's marks: ring groove width and depth; the off-centre dimples' diameter
#: and depth (deeper than a ring: those on a neighbour's ring stay visible); the worst
#: neighbours' slots (width, length along the line to the centre); the labels' height,
#: stroke and depth (mm).
MARK_MM = (0.8, 0.6)
DIMPLE_MM = (1.2, 1.5)
SLOT_MM = (1.0, 3.0)
LABEL_MM = (3.0, 0.6, 0.5)
#: Facets of a full circle.
SEGMENTS = 48

BED_MM = Number(50, 1000, unit="mm")


class PartsError(ValueError):
    """The board cannot be printed as asked (said in words)."""


@dataclass(frozen=True)
class SensorBuild:
    """A recommended sensor at its verified depth under a figure's magnet (mm)."""

    sensor: str  # "reed" or "hall": the key of companion.hardware.builds
    name: str
    kind: str  # "reed" (upright) or "hall" (face up)
    body_mm: tuple[float, float, float]  # length (a reed's glass), width, height
    depth_mm: float  # magnet underside to the sensing element (a reed: its glass's top)
    face_mm: float  # carrier top to the package face (a reed: its glass's top)
    element_mm: float  # the sensing element under the package face (0 for a reed)
    magnet_mm: tuple[float, float]  # diameter, height
    floor_mm: float  # the figure base's floor under the magnet
    cover_mm: float  # the cover and the printed maze on the carrier
    tolerance_mm: float  # how far off-centre a figure may stand
    reed_package: ReedPackage | None = None  # a reed's glass and leads (its datasheet)
    sot23: Sot23 | None = None  # a SOT-23's outline (its datasheet)

    @property
    def in_carrier_mm(self) -> float:
        """How deep under the carrier's top the reed's top end or the Hall element sits."""
        return round(self.face_mm + self.element_mm, 3)


SENSOR_KEYS = tuple(r.key for r in RECOMMENDED)


def verified_build(sensor: str) -> SensorBuild:
    """The recommended build ``sensor`` ("reed" or "hall") of ``companion.hardware.builds``:
    the part, its depth under the magnet (what ``companion hardware magnets`` passes),
    the magnet and the layers above the carrier, which the parts hold it at."""
    rec = next(r for r in RECOMMENDED if r.key == sensor)
    return SensorBuild(
        sensor=rec.key,
        name=f"{rec.order_code} " + ("reed switch" if rec.sensor.is_reed else "Hall switch"),
        kind="reed" if rec.sensor.is_reed else "hall",
        body_mm=rec.body_mm,
        depth_mm=rec.depth_mm,
        face_mm=rec.below_carrier_top_mm,
        element_mm=rec.element_below_face_mm,
        magnet_mm=(MAGNET_DIAMETER_MM, MAGNET_HEIGHT_MM),
        floor_mm=STACK.figure_floor_mm,
        cover_mm=round(STACK.cover_mm + STACK.print_mm, 3),
        tolerance_mm=rec.build().tolerance_mm,
        reed_package=rec.reed_package,
        sot23=rec.sot23,
    )


# -- what goes where (pure, in board mm: x east, y south, z down from the carrier's top) --


@dataclass(frozen=True)
class Hole:
    """A cut: a box (``size`` = width, height) or a cylinder (``size`` = diameter, 0),
    centred at ``centre`` on the board, from ``top`` to ``bottom`` mm under the carrier's
    top (``bottom`` None: through the whole part)."""

    what: str
    centre: tuple[float, float]
    size: tuple[float, float]
    top: float
    bottom: float | None
    angle: float = 0.0  # a box's turn about its centre, degrees (marks only)

    def box(self) -> tuple[float, float, float, float]:
        w, h = (self.size[0], self.size[0]) if self.size[1] == 0 else self.size
        x, y = self.centre
        return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


@dataclass(frozen=True)
class ReedCavity:
    """Where a reed's cavity lies under the carrier's top (all mm, depths down from it).

    The glass goes in from the underside through its ``bore`` until the top of the
    glass meets the ledge at ``glass_top``: the reed is held by that end, so its depth
    does not depend on the glass's length.  Above the ledge only a slot ``slot`` wide
    (narrower than the glass) goes on: the top lead's path, straight up ``BEND_CLEAR_MM``
    and over to the side channel ``side_offset`` beside the axis, away from the pixel,
    which takes the lead's down leg, its joint with the harness wire and that wire to
    the underside.  The slot and the side channel end at ``roof``.  The bottom lead
    runs straight down in the bore until the row's wire channel (``channel_roof``, at
    least ``BEND_CLEAR_MM`` under the longest glass's end) and bends there."""

    glass_top: float
    bore: float
    slot: float
    roof: float
    side_offset: float
    channel_roof: float
    thickness: float


def _lead_radius(package: ReedPackage) -> float:
    """A lead bend's centre-line radius."""
    return BEND_RADIUS_MM + package.lead_diameter / 2


def reed_cavity(build: SensorBuild) -> ReedCavity:
    """The reed's cavity for ``build`` (see :class:`ReedCavity`), from its datasheet."""
    package = build.reed_package
    if package is None:
        raise PartsError(f"the {build.name} has no lead dimensions")
    top = build.face_mm
    rc = _lead_radius(package)
    roof = top - BEND_CLEAR_MM - rc - package.lead_diameter / 2 - LEAD_FIT_MM
    channel_roof = top + package.glass_length_max + BEND_CLEAR_MM
    return ReedCavity(
        glass_top=round(top, 3),
        bore=round(package.glass_diameter_max + 2 * FIT_MM, 3),
        slot=round(package.lead_diameter + 2 * LEAD_FIT_MM, 3),
        roof=round(roof, 3),
        side_offset=SIDE_OFFSET_MM,
        channel_roof=round(channel_roof, 3),
        thickness=round(channel_roof + SENSOR_CHANNEL_MM[1], 3),
    )


def _away_from_pixel(place: Place) -> float:
    """-1 (north) or +1 (south): the side of the sensor away from its pixel."""
    return -math.copysign(1.0, place.pixel[1] - place.sensor[1])


@dataclass(frozen=True)
class Lead:
    """A lead (or a wire soldered to a sensor's foot) as a path of points (board mm: x
    east, y south, z the depth under the carrier's top), its diameter, and each bend's
    distance from the glass along the lead (a reed's)."""

    name: str
    points: tuple[tuple[float, float, float], ...]
    diameter: float
    bends_from_glass: tuple[float, ...] = ()

    @property
    def end(self) -> tuple[float, float, float]:
        return self.points[-1]

    @property
    def length(self) -> float:
        return sum(math.dist(a, b) for a, b in pairwise(self.points))


def _arc(
    centre: tuple[float, float], radius: float, start: float, end: float, steps: int = 8
) -> list[tuple[float, float]]:
    """Points (u, z) on a circle from angle ``start`` to ``end`` (radians)."""
    return [
        (
            centre[0] + radius * math.cos(start + (end - start) * k / steps),
            centre[1] + radius * math.sin(start + (end - start) * k / steps),
        )
        for k in range(1, steps + 1)
    ]


def _straight(
    a: tuple[float, float], b: tuple[float, float], step: float = 0.25
) -> list[tuple[float, float]]:
    n = max(1, math.ceil(math.dist(a, b) / step))
    return [(a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n) for k in range(1, n + 1)]


def reed_leads(
    build: SensorBuild,
    place: Place,
    glass_mm: float | None = None,
    lead_mm: float | None = None,
    toward: float = 1.0,
) -> list[Lead]:
    """Both leads of the reed at ``place`` as the carrier routes them, for a glass
    ``glass_mm`` long (the datasheet's longest by default) and leads ``lead_mm`` long
    (the datasheet's shortest): the top lead straight up, over and down its side
    channel; the bottom lead straight down to the wire channel and along it
    (``toward`` +1 east, -1 west)."""
    package = build.reed_package
    assert package is not None
    cavity = reed_cavity(build)
    glass = package.glass_length_max if glass_mm is None else glass_mm
    length = package.lead_length_min if lead_mm is None else lead_mm
    rc = _lead_radius(package)
    x, y = place.sensor
    side = _away_from_pixel(place)
    top, s = cavity.glass_top, cavity.side_offset
    # The top lead in (u, z): u from the axis towards the side channel, z down.
    path = [(0.0, top)]
    path += _straight(path[-1], (0.0, top - BEND_CLEAR_MM))
    path += _arc((rc, top - BEND_CLEAR_MM), rc, math.pi, 1.5 * math.pi)
    path += _straight(path[-1], (s - rc, top - BEND_CLEAR_MM - rc))
    path += _arc((s - rc, top - BEND_CLEAR_MM), rc, 1.5 * math.pi, 2 * math.pi)
    used = BEND_CLEAR_MM + math.pi * rc + (s - 2 * rc)
    path += _straight(path[-1], (s, top - BEND_CLEAR_MM + (length - used)))
    top_lead = Lead(
        "top lead",
        tuple((x, y + side * u, z) for u, z in path),
        package.lead_diameter,
        (BEND_CLEAR_MM, BEND_CLEAR_MM + math.pi * rc / 2 + (s - 2 * rc)),
    )
    # The bottom lead in (u, z), u along the row towards the harness's way out.
    end = top + glass
    bend = cavity.channel_roof - end
    path = [(0.0, end)]
    path += _straight(path[-1], (0.0, cavity.channel_roof))
    path += _arc((rc, cavity.channel_roof), rc, math.pi, 0.5 * math.pi)
    path += _straight(path[-1], (rc + length - bend - math.pi * rc / 2, cavity.channel_roof + rc))
    bottom_lead = Lead(
        "bottom lead",
        tuple((x + toward * u, y, z) for u, z in path),
        package.lead_diameter,
        (bend,),
    )
    return [top_lead, bottom_lead]


def hall_leads(build: SensorBuild, place: Place) -> list[Lead]:
    """The three wires soldered to a SOT-23's feet, each from its foot's end straight
    down its slot to the wire channel (pins 1 and 2 on the side away from the pixel)."""
    package = build.sot23
    assert package is not None
    x, y = place.sensor
    side = _away_from_pixel(place)
    foot = package.span_max / 2 - package.foot_length_max / 2
    floor = build.face_mm + package.height_max
    bottom = thickness(build)
    feet = (("pin 1", -package.pitch, side), ("pin 2", package.pitch, side), ("pin 3", 0.0, -side))
    return [
        Lead(
            name,
            tuple((x + dx, y + sign * foot, z) for z in (floor - 0.3, floor + 0.5, bottom - 0.5)),
            0.5,
        )
        for name, dx, sign in feet
    ]


def sensor_holes(build: SensorBuild, place: Place) -> list[Hole]:
    """The cavity (reed) or pocket (Hall) that holds one sensor at its depth, and the
    paths of its leads or wires to the wire channel underneath."""
    x, y = place.sensor
    side = _away_from_pixel(place)
    if build.kind == "reed":
        c = reed_cavity(build)
        s = c.side_offset
        return [
            Hole("reed glass", (x, y), (c.bore, 0), c.glass_top, None),
            Hole(
                "top lead slot",
                (x, y + side * (s - c.slot / 2) / 2),
                (c.slot, s + c.slot / 2),
                c.roof,
                None,
            ),
            Hole(
                "top lead channel",
                (x, y + side * s),
                (SIDE_CHANNEL_MM, SIDE_CHANNEL_MM),
                c.roof,
                None,
            ),
        ]
    package = build.sot23
    length, width, height = build.body_mm
    if package is not None:
        length, width, height = package.body_length_max, package.span_max, package.height_max
    floor = build.face_mm + height
    pocket = (length + 2 * FIT_MM, width + 2 * FIT_MM)
    holes = [Hole("hall", (x, y), pocket, 0.0, floor)]
    if package is not None:
        # Under each row of feet a slot down to the wire channel; between them a rib
        # the body rests on.
        half = pocket[1] / 2
        slot_h = half - HALL_RIB_MM / 2
        centre = HALL_RIB_MM / 2 + slot_h / 2
        two = 2 * package.pitch + package.lead_width_max + 2 * LEAD_FIT_MM + 0.5
        one = package.lead_width_max + 2 * LEAD_FIT_MM + 0.5
        holes.append(Hole("hall feet 1-2", (x, y + side * centre), (two, slot_h), floor, None))
        holes.append(Hole("hall foot 3", (x, y - side * centre), (one, slot_h), floor, None))
    return holes


def pixel_holes(place: Place) -> list[Hole]:
    """The pixel's pocket: a strip piece along the row (a 10 mm round board fits too)."""
    piece = (PIECE_MM[0] + 2 * FIT_MM, PIECE_MM[1] + 2 * FIT_MM)
    return [Hole("pixel", place.pixel, piece, 0.0, PIXEL_POCKET_MM)]


def chain_holes(board: Sequence[Place], pitch: float) -> list[Hole]:
    """Grooves for the LED chain's jumpers, and wire holes from below.

    A link to the next pixel within 1.5 pitches (along a row, or a row's turn) is a
    groove along its route (``placement.link_route``, as the sheet draws it); a longer
    one (the last cell to the camp, the camp to the sarcophagus) runs under the
    carrier, up through a wire hole at each end.  Every pixel that starts a
    row of the chain has a wire hole too: the row's 5 V and GND come up there from the
    bus wires below (hardware/README.md: feed every row).
    """
    ordered = sorted(board, key=lambda p: p.pixel_index)
    holes: list[Hole] = []
    if ordered:
        holes.append(Hole("wire hole", ordered[0].pixel, (WIRE_HOLE_MM, 0), 0.0, None))
    width, depth = GROOVE_MM
    for a, b in pairwise(ordered):
        if is_long_link(a.pixel, b.pixel, pitch):
            holes.append(Hole("wire hole", a.pixel, (WIRE_HOLE_MM, 0), 0.0, None))
            holes.append(Hole("wire hole", b.pixel, (WIRE_HOLE_MM, 0), 0.0, None))
            continue
        for (x1, y1), (x2, y2) in pairwise(link_route(a.sensor, a.pixel, b.pixel)):
            dx, dy = abs(x2 - x1), abs(y2 - y1)
            if dx > 1e-9 and dy > 1e-9:
                raise PartsError(
                    f"pixels {a.pixel_index} and {b.pixel_index} ({a.name}, {b.name}) are "
                    "diagonal neighbours: the carrier has grooves along the rows and columns only"
                )
            size = (dx + width, width) if dy < 1e-9 else (width, dy + width)
            holes.append(Hole("groove", ((x1 + x2) / 2, (y1 + y2) / 2), size, 0.0, depth))
        if abs(b.pixel[1] - a.pixel[1]) > 1e-9:  # a new row of the chain: its supply
            holes.append(Hole("wire hole", b.pixel, (WIRE_HOLE_MM, 0), 0.0, None))
    return holes


def thickness(build: SensorBuild) -> float:
    """The carrier's thickness: a reed's cavity sets it (the bottom lead's bend and the
    wire channel under the longest glass); else the deepest blind feature, the floor
    under it and the channels under that."""
    if build.kind == "reed" and build.reed_package is not None:
        return reed_cavity(build).thickness
    deepest = max(h.bottom or 0.0 for h in sensor_holes(build, _ORIGIN))
    blind = max(deepest, PIXEL_POCKET_MM, GROOVE_MM[1])
    return round(blind + FLOOR_MM + SENSOR_CHANNEL_MM[1], 3)


def channel_roof(build: SensorBuild) -> float:
    """How deep under the carrier's top its wire channels start."""
    return round(thickness(build) - SENSOR_CHANNEL_MM[1], 3)


def under_channels(board: Sequence[Place], height: float) -> list[Hole]:
    """The channels under the carrier: under every row of sensors (its harness, to the
    middle of the board and down through the base board) and of pixels (the row's 5 V
    and GND, the long jumps), from the board's west edge to its east edge."""
    if not board:
        return []
    xs = [x for p in board for x in (p.sensor[0], p.pixel[0])]
    x0, x1 = min(xs) - 100.0, max(xs) + 100.0
    rows = sorted(
        {("sensor wires", round(p.sensor[1] + SENSOR_CHANNEL_OFFSET_MM, 6)) for p in board}
        | {("supply", round(p.pixel[1], 6)) for p in board}
    )
    sizes = {"sensor wires": SENSOR_CHANNEL_MM, "supply": SUPPLY_CHANNEL_MM}
    return [
        Hole(
            f"{what} channel",
            ((x0 + x1) / 2, y),
            (x1 - x0, sizes[what][0]),
            height - sizes[what][1],
            None,
        )
        for what, y in rows
    ]


_ORIGIN = Place(0, "A1", (0.0, 0.0), (1.0, 1.0), 0)


def gap(a: Hole, b: Hole) -> float:
    """The plastic left between two cuts, seen from above (mm; 0 when they touch)."""
    (ax, ay), (bx, by) = a.centre, b.centre
    round_a, round_b = a.size[1] == 0, b.size[1] == 0
    if round_a and round_b:
        return max(math.hypot(ax - bx, ay - by) - (a.size[0] + b.size[0]) / 2, 0.0)
    if round_a or round_b:
        circle, box = (a, b) if round_a else (b, a)
        x0, y0, x1, y1 = box.box()
        cx, cy = circle.centre
        dx = max(x0 - cx, 0.0, cx - x1)
        dy = max(y0 - cy, 0.0, cy - y1)
        return max(math.hypot(dx, dy) - circle.size[0] / 2, 0.0)
    dx = max(abs(ax - bx) - (a.size[0] + b.size[0]) / 2, 0.0)
    dy = max(abs(ay - by) - (a.size[1] + b.size[1]) / 2, 0.0)
    return math.hypot(dx, dy)


def check_build(build: SensorBuild, board: Sequence[Place], pitch: float) -> None:
    """Refuse a build that cannot be printed: the depth above the carrier, or a pixel's
    pocket or a chain groove closer than :data:`MIN_WALL_MM` to a sensor's hole."""
    if build.face_mm < 0:
        raise PartsError(
            f"the {build.name} is verified at {build.depth_mm:g} mm under the magnet, less "
            f"than the figure base's floor ({build.floor_mm:g} mm) and the cover "
            f"({build.cover_mm:g} mm): no carrier can hold it there"
        )
    led = [h for place in board for h in pixel_holes(place)] + [
        h for h in chain_holes(board, pitch) if h.what == "groove"
    ]
    for place in board:
        x, y = place.sensor
        near = [
            h for h in led if abs(h.centre[0] - x) < 2 * pitch and abs(h.centre[1] - y) < 2 * pitch
        ]
        for sensor in sensor_holes(build, place):
            for other in near:
                wall = gap(sensor, other)
                if wall < MIN_WALL_MM:
                    raise PartsError(
                        f"{place.name}: the {other.what} is {wall:.1f} mm from the "
                        f"{sensor.what} (at least {MIN_WALL_MM:g} mm of plastic)"
                    )


@dataclass(frozen=True)
class Tile:
    """One printed piece of the carrier: a rectangle of the board (mm, y south)."""

    name: str
    x0: float
    y0: float
    x1: float
    y1: float


def _split(first: int, count: int, usable: float, pitch: float) -> list[tuple[int, int]]:
    """Cells ``first``..``first + count`` in the fewest near-equal runs that fit."""
    most = int((usable + 1e-9) // pitch)
    if most < 1:
        raise PartsError(f"a {pitch:g} mm cell does not fit on the bed ({usable:g} mm usable)")
    runs = math.ceil(count / most)
    cuts = [first + round(i * count / runs) for i in range(runs + 1)]
    return list(pairwise(cuts))


def plan_tiles(maze: Maze, config: BoardConfig, bed_mm: float) -> list[Tile]:
    """The carrier's tiles: the grid in near-equal rectangles, then each room's band."""
    p = config.cell_pitch_mm
    usable = bed_mm - 2 * BED_MARGIN_MM
    tiles: list[Tile] = []
    rows = _split(0, maze.height, usable, p)
    cols = _split(0, maze.width, usable, p)
    for r, (r0, r1) in enumerate(rows, start=1):
        for c, (c0, c1) in enumerate(cols, start=1):
            tiles.append(Tile(f"grid-r{r}c{c}", c0 * p, r0 * p, c1 * p, r1 * p))
    for room in room_layout(maze, config):
        runs = _split(room.first, room.last - room.first + 1, usable, p)
        for i, (a, b) in enumerate(runs, start=1):
            name = room.kind + (f"-{i}" if len(runs) > 1 else "")
            if room.side in (Direction.NORTH, Direction.SOUTH):
                y = -p if room.side is Direction.NORTH else maze.height * p
                tiles.append(Tile(name, a * p, y, b * p, y + p))
            else:
                x = -p if room.side is Direction.WEST else maze.width * p
                tiles.append(Tile(name, x, a * p, x + p, b * p))
    return tiles


# -- meshes (manifold3d) ---------------------------------------------------------------


def _cutter(hole: Hole, height: float) -> Manifold:
    from manifold3d import Manifold

    # 1 mm past the part's faces: no coplanar faces.
    bottom = height + 1.0 if hole.bottom is None else hole.bottom
    z0, z1 = height - bottom, height + 1.0 if hole.top == 0 else height - hole.top
    x, y = hole.centre
    if hole.size[1] == 0:
        r = hole.size[0] / 2
        return Manifold.cylinder(z1 - z0, r, r, SEGMENTS).translate((x, -y, z0))
    w, h = hole.size
    box = Manifold.cube((w, h, z1 - z0)).translate((-w / 2, -h / 2, z0))
    # A turn in the sheet's axes (y south) is the opposite turn in the solid's (y north).
    return box.rotate((0.0, 0.0, -hole.angle)).translate((x, -y, 0.0))


def _cut(body: Manifold, holes: Sequence[Hole], height: float) -> Manifold:
    from manifold3d import Manifold, OpType

    cutters = [_cutter(h, height) for h in holes]
    return Manifold.batch_boolean([body, *cutters], OpType.Subtract) if cutters else body


def _slab(x0: float, y0: float, x1: float, y1: float, height: float) -> Manifold:
    from manifold3d import Manifold

    return Manifold.cube((x1 - x0, y1 - y0, height)).translate((x0, -y1, 0.0))


def _overlaps(hole: Hole, tile: Tile) -> bool:
    a, b, c, d = hole.box()
    return a < tile.x1 and c > tile.x0 and b < tile.y1 and d > tile.y0


def board_holes(build: SensorBuild, board: Sequence[Place], pitch: float) -> list[Hole]:
    """Every cut of the carrier, for the whole board."""
    holes: list[Hole] = []
    for place in board:
        holes += sensor_holes(build, place) + pixel_holes(place)
    return holes + chain_holes(board, pitch) + under_channels(board, thickness(build))


def sensor_only_holes(build: SensorBuild, board: Sequence[Place]) -> list[Hole]:
    """The sensors' cuts and the channels under them, without the LEDs (the test jig)."""
    holes = [h for place in board for h in sensor_holes(build, place)]
    under = under_channels(board, thickness(build))
    return holes + [h for h in under if h.what == "sensor wires channel"]


def carrier_tile(build: SensorBuild, holes: Sequence[Hole], tile: Tile) -> Manifold:
    """One tile of the carrier with every cut that reaches into it."""
    height = thickness(build)
    body = _slab(tile.x0, tile.y0, tile.x1, tile.y1, height)
    return _cut(body, [h for h in holes if _overlaps(h, tile)], height)


def _stroke(
    a: tuple[float, float], b: tuple[float, float], width: float, steps: int = 8
) -> list[tuple[float, float]]:
    """A stroke from ``a`` to ``b``, ``width`` wide with round ends (a nozzle's line),
    counter-clockwise, so the strokes of a letter meet smoothly."""
    heading = math.atan2(b[1] - a[1], b[0] - a[0])
    r = width / 2
    points = []
    for end, start in ((b, heading - math.pi / 2), (a, heading + math.pi / 2)):
        for i in range(steps + 1):
            angle = start + math.pi * i / steps
            points.append((end[0] + r * math.cos(angle), end[1] + r * math.sin(angle)))
    return points


def seeker_mark_outline(seeker: FigureColour) -> list[list[tuple[float, float]]]:
    """The raised mark on ``seeker``'s figure base, seen from above (mm, x east, y north
    from the base's centre): its letter upright in front (south, read from the table's
    edge) and its shape behind (north), both in the ring between the magnet's pocket
    and the rim, where the figure's foot leaves the top free."""
    mark = SEEKER_MARKS[seeker]
    width, _ = SEEKER_MARK_MM
    k = LETTER_HEIGHT_MM / 6
    kx = LETTER_WIDTH_MM / 4
    x0, y0 = -2 * kx, -MARK_RADIUS_MM - 3 * k
    contours = [
        _stroke((x0 + ax * kx, y0 + ay * k), (x0 + bx * kx, y0 + by * k), width)
        for stroke in LETTER_STROKES[mark.letter]
        for (ax, ay), (bx, by) in pairwise(stroke)
    ]
    contours.append([(x, y + MARK_RADIUS_MM) for x, y in outline(mark.shape, SHAPE_R_MM)])
    return contours


def figure_base(build: SensorBuild, seeker: FigureColour | None = None) -> Manifold:
    """A figure base: a disc with the magnet's pocket open at the top, its floor
    ``build.floor_mm`` thick, so the magnet's underside sits that high.  A seeker's base
    carries its mark (``seekers.py``): its letter and shape raised on the top, and its
    count of notches in the rim, east, where a finger finds them."""
    from manifold3d import CrossSection, Manifold, OpType

    diameter, height = build.magnet_mm
    floor = build.floor_mm
    total = floor + height
    disc = Manifold.cylinder(total, BASE_DIAMETER_MM / 2, BASE_DIAMETER_MM / 2, 2 * SEGMENTS)
    r = diameter / 2 + FIT_MM
    pocket = Manifold.cylinder(height + 1.0, r, r, 2 * SEGMENTS).translate((0, 0, floor))
    base = disc - pocket
    if seeker is None:
        return base
    _, raised = SEEKER_MARK_MM
    mark = CrossSection(seeker_mark_outline(seeker)).extrude(raised).translate((0, 0, total))
    width, depth = NOTCH_MM
    notches = []
    count = SEEKER_MARKS[seeker].notches
    for i in range(count):
        angle = (i - (count - 1) / 2) * NOTCH_STEP_DEG
        cut = Manifold.cube((2 * depth, width, total + 2.0), True)
        notches.append(cut.translate((BASE_DIAMETER_MM / 2, 0, total / 2)).rotate((0, 0, angle)))
    return Manifold.batch_boolean([base + mark, *notches], OpType.Subtract)


def jig_places(pitch: float) -> list[Place]:
    """The test jig's nine positions: cells of ``pitch`` mm, the chain along the rows."""
    result = []
    for row in range(3):
        for col in range(3):
            centre = ((col + 0.5) * pitch, (row + 0.5) * pitch)
            i = row * 3 + col
            name = ("NW", "N", "NE", "W", "centre", "E", "SW", "S", "SE")[i]
            result.append(Place(i, name, centre, pixel_centre(centre), i))
    return result


def release_worst_case(build: SensorBuild, pitch: float) -> list[tuple[float, float]]:
    """Where ``companion hardware magnets`` puts the neighbours' figures in its release
    worst case for this build: each figure's centre relative to the centre cell's (mm,
    x east, y south as printed)."""
    from .magnets import NEIGHBOURS, analyse

    rec = next(r for r in RECOMMENDED if r.key == build.sensor)
    cells = {name: (dc, dr) for name, dc, dr in NEIGHBOURS}
    verdict = analyse(rec.build(pitch_mm=pitch))
    return [
        (cells[s.cell][0] * pitch + s.dx, cells[s.cell][1] * pitch + s.dy)
        for s in verdict.release_figures
    ]


_COUNT = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def worst_neighbours(build: SensorBuild, pitch: float = 25.0) -> str:
    """The magnet tool's release worst case for ``build`` in words, as the jig marks it
    and the guide says it: which neighbours, how far off-centre, towards or away from
    the centre cell."""
    from .magnets import NEIGHBOURS, analyse

    rec = next(r for r in RECOMMENDED if r.key == build.sensor)
    cells = {name: (dc, dr) for name, dc, dr in NEIGHBOURS}
    groups: dict[tuple[str, str, str], int] = {}
    for spot in analyse(rec.build(pitch_mm=pitch)).release_figures:
        dc, dr = cells[spot.cell]
        kind = "diagonal" if dc and dr else "side"
        towards = spot.dx * dc + spot.dy * dr < 0
        key = (kind, f"{math.hypot(spot.dx, spot.dy):.1f}", "towards" if towards else "away from")
        groups[key] = groups.get(key, 0) + 1
    parts = []
    for (kind, off, way), n in sorted(groups.items(), key=lambda kv: -kv[1]):
        each = "each " if n > 1 else ""
        noun = "neighbours" if n > 1 else "neighbour"
        parts.append(f"{_COUNT[n]} {kind} {noun} ({each}{off} mm {way} the centre)")
    return " and ".join(parts)


#: Engraved characters as strokes on a 4 x 6 grid (x right, y up).
FONT = {
    "5": ((4, 6), (0, 6), (0, 3), (3, 3), (4, 2), (4, 1), (3, 0), (0, 0)),
    "W": ((0, 6), (1, 0), (2, 4), (3, 0), (4, 6)),
}


def label(text: str, centre: tuple[float, float], what: str) -> list[Hole]:
    """``text`` engraved on the top, centred at ``centre`` (board mm), upright on the
    board as the maze is printed (north up): one box per stroke."""
    height, stroke, depth = LABEL_MM
    k = height / 6
    width = len(text) * 5 * k - k
    holes = []
    for i, char in enumerate(text):
        x0 = centre[0] - width / 2 + i * 5 * k
        y0 = centre[1] + height / 2
        for (ax, ay), (bx, by) in pairwise(FONT[char]):
            a = (x0 + ax * k, y0 - ay * k)
            b = (x0 + bx * k, y0 - by * k)
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
            holes.append(Hole(what, mid, (math.dist(a, b) + stroke, stroke), 0.0, depth, angle))
    return holes


def jig_marks(build: SensorBuild, pitch: float) -> list[Hole]:
    """On the jig's top: a ring where a figure base stands centred on each cell; eight
    round dimples where its edge goes when it stands ``tolerance`` mm off the centre
    cell's centre (one labelled "5"); and for each figure of the magnet tool's release
    worst case a slot along the line to the centre, where that figure's edge nearest
    the centre cell goes (one labelled "W")."""
    marks: list[Hole] = []
    width, depth = MARK_MM
    for place in jig_places(pitch):
        marks.append(Hole("ring", place.sensor, (BASE_DIAMETER_MM + width, 0), 0.0, depth))
    cx, cy = jig_places(pitch)[4].sensor
    reach = BASE_DIAMETER_MM / 2 + build.tolerance_mm
    for k in range(8):
        a = math.radians(45 * k)
        centre = (cx + reach * math.cos(a), cy + reach * math.sin(a))
        marks.append(Hole("dimple", centre, (DIMPLE_MM[0], 0), 0.0, DIMPLE_MM[1]))
    a = math.radians(315)  # north-east, between the rings
    beside = (
        cx + reach * math.cos(a) + 2.6 * math.sin(-a),
        cy + reach * math.sin(a) + 2.6 * math.cos(a),
    )
    marks += label("5", beside, "dimple label")
    slots = []
    for fx, fy in release_worst_case(build, pitch):
        off = math.hypot(fx, fy)
        edge = (1 - BASE_DIAMETER_MM / 2 / off) if off else 0.0
        centre = (cx + fx * edge, cy + fy * edge)
        angle = math.degrees(math.atan2(fy, fx))
        slots.append(
            Hole("worst neighbour", centre, (SLOT_MM[1], SLOT_MM[0]), 0.0, DIMPLE_MM[1], angle)
        )
    marks += slots
    if slots:
        first = min(slots, key=lambda h: abs(h.angle + 45))  # up-right first, if any
        ux, uy = math.cos(math.radians(first.angle)), math.sin(math.radians(first.angle))
        marks += label("W", (first.centre[0] + 2.8 * uy, first.centre[1] - 2.8 * ux), "slot label")
    return marks


def _ring_cut(body: Manifold, marks: Sequence[Hole], height: float) -> Manifold:
    """Cut each ring as a groove (an annulus MARK_MM wide), the dimples as holes."""
    from manifold3d import Manifold, OpType

    cutters = []
    width, depth = MARK_MM
    for mark in marks:
        if mark.what != "ring":
            cutters.append(_cutter(mark, height))
            continue
        x, y = mark.centre
        outer, inner = mark.size[0] / 2, mark.size[0] / 2 - width
        ring = Manifold.cylinder(depth + 1.0, outer, outer, 2 * SEGMENTS) - Manifold.cylinder(
            depth + 1.0, inner, inner, 2 * SEGMENTS
        )
        cutters.append(ring.translate((x, -y, height - depth)))
    return Manifold.batch_boolean([body, *cutters], OpType.Subtract)


def jig(build: SensorBuild, pitch: float) -> Manifold:
    """Nine cells of the carrier's sensor holes (the sensor under test in the centre,
    eight more to check the neighbours both ways), the figure positions marked on top;
    no LEDs, so no pocket swallows a mark."""
    board = jig_places(pitch)
    height = thickness(build)
    body = _slab(0.0, 0.0, 3 * pitch, 3 * pitch, height)
    holes = sensor_only_holes(build, board)
    return _ring_cut(_cut(body, holes, height), jig_marks(build, pitch), height)


#: The test piece's features, west to east along it (mm from its west end), and its width.
PIECE_FEATURES = {"magnet pocket": 8.0, "reed": 22.0, "hall": 36.0, "groove": 50.0}
PIECE_SIZE_MM = (58.0, 16.0)


def tolerance_piece_holes(reed: SensorBuild, hall: SensorBuild) -> list[Hole]:
    """The test piece's cuts (board mm, the piece's north-west corner at 0, 0): the figure
    base's magnet pocket, a reed's cavity with the wire channel under it, a Hall pocket
    with its feet's slots, and a chain groove, each as the real parts cut them."""
    length, width = PIECE_SIZE_MM
    y = width / 2
    height = thickness(reed)
    d, h = reed.magnet_mm
    spot = Place(0, "test", (PIECE_FEATURES["reed"], y), (PIECE_FEATURES["reed"], y + 8.0), 0)
    hall_spot = Place(0, "test", (PIECE_FEATURES["hall"], y), (PIECE_FEATURES["hall"], y + 8.0), 0)
    holes = [
        Hole("magnet pocket", (PIECE_FEATURES["magnet pocket"], y), (d + 2 * FIT_MM, 0), 0.0, h)
    ]
    holes += sensor_holes(reed, spot)
    holes += [
        replace(hole, bottom=None) if hole.bottom is not None and hole.what != "hall" else hole
        for hole in sensor_holes(hall, hall_spot)
    ]
    holes.append(
        Hole(
            "groove", (PIECE_FEATURES["groove"], y), (GROOVE_MM[0], width + 2.0), 0.0, GROOVE_MM[1]
        )
    )
    channel_y = y + SENSOR_CHANNEL_OFFSET_MM
    holes.append(
        Hole(
            "sensor wires channel",
            (length / 2, channel_y),
            (length + 2.0, SENSOR_CHANNEL_MM[0]),
            height - SENSOR_CHANNEL_MM[1],
            None,
        )
    )
    return holes


def tolerance_piece(reed: SensorBuild, hall: SensorBuild) -> Manifold:
    """The printer's tolerance test: print it first, then try a magnet, a reed, a SOT-23
    and three LED wires in it (assembly.md, stage 0)."""
    length, width = PIECE_SIZE_MM
    height = thickness(reed)
    body = _slab(0.0, 0.0, length, width, height)
    return _cut(body, tolerance_piece_holes(reed, hall), height)


# -- files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One file to print: its name, what it is, and its solid."""

    name: str
    what: str
    solid: Manifold


PART_KINDS = ("all", "carrier", "base", "jig", "test-piece")


def parts(
    maze: Maze, config: BoardConfig, build: SensorBuild, bed_mm: float = 220.0, only: str = "all"
) -> list[Part]:
    """Every part of the board, for a build (``only``: one kind of part)."""
    if (maze.width, maze.height) != (config.columns, config.rows):
        raise PartsError(
            f"the maze is {maze.width}x{maze.height} cells but the board config "
            f"{config.source} has {config.columns}x{config.rows}"
        )
    board = places(maze, config)
    pitch = config.cell_pitch_mm
    check_build(build, board, pitch)
    result: list[Part] = []
    if only in ("all", "carrier"):
        holes = board_holes(build, board, pitch)
        for tile in plan_tiles(maze, config, bed_mm):
            cells = sum(
                tile.x0 < p.sensor[0] < tile.x1 and tile.y0 < p.sensor[1] < tile.y1 for p in board
            )
            what = f"carrier tile, {cells} positions, {build.name} at {build.depth_mm:g} mm"
            result.append(
                Part(
                    f"carrier-{build.sensor}-{tile.name}.stl",
                    what,
                    carrier_tile(build, holes, tile),
                )
            )
    if only in ("all", "base"):
        d, h = build.magnet_mm
        what = (
            f"plain figure base for a {d:g} x {h:g} mm magnet, {build.floor_mm:g} mm above "
            "the board (Into the Crypt's meeples)"
        )
        result.append(Part(f"figure-base-{d:g}x{h:g}.stl", what, figure_base(build)))
        for seeker in FigureColour:
            mark = SEEKER_MARKS[seeker]
            notches = f"{mark.notches} notch" + ("es" if mark.notches > 1 else "")
            result.append(
                Part(
                    f"figure-base-{d:g}x{h:g}-{seeker.value}.stl",
                    f"{seeker.value} seeker's figure base: raised {mark.letter} and "
                    f"{mark.shape}, {notches} in the rim",
                    figure_base(build, seeker),
                )
            )
    if only in ("all", "jig"):
        what = f"3 x 3 test jig, {build.name} at {build.depth_mm:g} mm"
        result.append(Part(f"test-jig-{build.sensor}.stl", what, jig(build, pitch)))
    if only in ("all", "test-piece"):
        what = "printer tolerance test: magnet pocket, reed cavity, Hall pocket, groove"
        piece = tolerance_piece(verified_build("reed"), verified_build("hall"))
        result.append(Part("test-piece.stl", what, piece))
    return result


def stl_bytes(solid: Manifold) -> bytes:
    """A solid as binary STL (trimesh's writer)."""
    import numpy as np
    import trimesh

    mesh = solid.to_mesh()
    vertices = np.asarray(mesh.vert_properties)[:, :3]
    faces = np.asarray(mesh.tri_verts)
    data: Any = trimesh.Trimesh(vertices=vertices, faces=faces, process=False).export(
        file_type="stl"
    )
    return bytes(data)


def write_parts(out: Path, items: Sequence[Part]) -> list[tuple[Path, str, tuple[float, ...]]]:
    """Write each part into ``out``; returns (path, what, size x, y, z in mm)."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[tuple[Path, str, tuple[float, ...]]] = []
    for part in items:
        path = out / part.name
        path.write_bytes(stl_bytes(part.solid))
        x0, y0, z0, x1, y1, z1 = part.solid.bounding_box()
        written.append((path, part.what, (x1 - x0, y1 - y0, z1 - z0)))
    return written


# -- the command -----------------------------------------------------------------------


def add_command(commands: Any) -> None:
    """``companion hardware parts``, among the hardware commands."""
    cmd = commands.add_parser("parts", help="printable 3D parts (STL): carrier, figure base, jig")
    cmd.add_argument("--maze", type=given_path, default=None, help="maze file (default: built in)")
    cmd.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    cmd.add_argument(
        "--sensor", choices=SENSOR_KEYS, default="reed", help="a recommended build (hardware/)"
    )
    cmd.add_argument("--bed", type=BED_MM, default=220.0, help="the printer's bed, mm square")
    cmd.add_argument("--part", choices=PART_KINDS, default="all", help="only one kind of part")
    cmd.add_argument("--out", type=given_path, required=True, help="directory for the STL files")
    cmd.set_defaults(func=_parts_command)


def refused(exc: ImportError | PartsError) -> int:
    """A hardware command's refusal in words: the extra not installed (2), or parts that
    cannot be made (1)."""
    if isinstance(exc, ImportError):
        print(
            f"companion: {exc.name or exc} is not installed: "
            "pip install 'pyramid-companion[hardware]'",
            file=sys.stderr,
        )
        return 2
    print(f"companion: {exc}", file=sys.stderr)
    return 1


def _parts_command(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.out.is_dir():
        print(f"companion: --out {args.out} is a file, not a directory", file=sys.stderr)
        return 2
    config = load_config(args.config)
    maze, _ = load_maze(args.maze)
    build = verified_build(args.sensor)
    try:
        written = write_parts(args.out, parts(maze, config, build, args.bed, args.part))
    except (ImportError, PartsError) as exc:
        return refused(exc)
    except OSError as exc:
        print(f"companion: cannot write into {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(
        f"{build.name}: sensing element {build.depth_mm:g} mm under the magnet's underside "
        f"= figure base floor {build.floor_mm:g} + cover and print {build.cover_mm:g} + "
        f"{build.in_carrier_mm:g} mm in the carrier (companion/hardware/builds.py)"
    )
    for path, what, size in written:
        dims = " x ".join(f"{v:.1f}" for v in size)
        print(f"wrote {path} ({dims} mm): {what}")
    return 0
