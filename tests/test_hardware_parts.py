"""Printed parts (``companion hardware parts``): every STL file the command writes is a
closed, manifold solid, and its sizes, depths and positions are the board config's and
the verified build's, probed on the mesh as a printer would see it (vertical lines
through the solid), not read back from the generator.  Each lead's path, drawn from the
part's datasheet, is traced through the STL: in air from end to end, every bend at least
3 mm from the glass, each end where the harness picks it up."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

from companion.board.config import BoardConfig
from companion.cli import main
from companion.games.mummy.maze import Maze
from companion.games.mummy.state import FigureColour
from companion.hardware.build import reference_config
from companion.hardware.builds import HALL, MDSR_10, REED, STACK
from companion.hardware.drawing import Circle, Group, Rect, iter_items
from companion.hardware.harness import drop_x
from companion.hardware.magnets import NEIGHBOURS, analyse
from companion.hardware.parts import (
    BASE_DIAMETER_MM,
    BEND_CLEAR_MM,
    DIMPLE_MM,
    FIT_MM,
    FLOOR_MM,
    GROOVE_MM,
    LABEL_MM,
    MARK_MM,
    MIN_ROOF_MM,
    MIN_WALL_MM,
    PIECE_FEATURES,
    PIECE_SIZE_MM,
    PIXEL_POCKET_MM,
    SEEKER_MARK_MM,
    SENSOR_CHANNEL_MM,
    SENSOR_KEYS,
    SLOT_MM,
    PartsError,
    check_build,
    hall_leads,
    reed_cavity,
    reed_leads,
    thickness,
    verified_build,
    worst_neighbours,
)
from companion.hardware.placement import PIXEL_OFFSET_MM, TURN_X_MM, Place, places
from companion.hardware.probe import Probe, blocked
from companion.hardware.seekers import SEEKER_MARKS
from companion.hardware.sheets import maze_sheet
from companion.hardware.wires import LED_WIRE

np = pytest.importorskip("numpy")
trimesh = pytest.importorskip("trimesh")
pytest.importorskip("manifold3d")
from manifold3d import CrossSection, JoinType, Manifold, Mesh  # noqa: E402

BED = 220.0
#: The recommended builds (companion/hardware/builds.py) as the parts must hold them:
#: the layers above the carrier, then each sensor's face and the carrier's thickness.
ABOVE = STACK.figure_floor_mm + STACK.cover_mm + STACK.print_mm
REED_LENGTH, REED_WIDTH, _ = REED.body_mm
REED_TOP = REED.depth_mm - ABOVE  # the glass's top under the carrier's top: the ledge
#: The longest glass's end, 3 mm of straight bottom lead, then the wire channel.
REED_THICK = REED_TOP + MDSR_10.glass_length_max + BEND_CLEAR_MM + SENSOR_CHANNEL_MM[1]
SOT23_ELEMENT = 0.65  # the DRV5032's element under its SOT-23 face (TI SLVSDC7)
HALL_FACE = HALL.depth_mm - SOT23_ELEMENT - ABOVE
HALL_THICK = HALL_FACE + 1.12 + FLOOR_MM + SENSOR_CHANNEL_MM[1]  # the DBZ is 1.12 mm high


@pytest.fixture(scope="module")
def ref1() -> BoardConfig:
    return reference_config("reference-1")


def _write(tmp: Path, *args: str) -> dict[str, trimesh.Trimesh]:
    assert main(["hardware", "parts", "--out", str(tmp), *args]) == 0
    return {f.name: trimesh.load(f, file_type="stl") for f in sorted(tmp.glob("*.stl"))}


@pytest.fixture(scope="module")
def reed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, trimesh.Trimesh]:
    return _write(tmp_path_factory.mktemp("reed"), "--sensor", "reed")


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> dict[str, trimesh.Trimesh]:
    return _write(tmp_path_factory.mktemp("hall"), "--sensor", "hall", "--part", "carrier")


_PROBES: dict[int, Probe] = {}


def probe_of(mesh: trimesh.Trimesh) -> Probe:
    if id(mesh) not in _PROBES:
        _PROBES[id(mesh)] = Probe(mesh)
    return _PROBES[id(mesh)]


def crossings(mesh: trimesh.Trimesh, x: float, y: float) -> list[float]:
    """Heights where the vertical line at (x, y) (3D: y north) crosses the surface."""
    return probe_of(mesh).crossings(x, y)


def top(mesh: trimesh.Trimesh, sheet_x: float, sheet_y: float) -> float | None:
    """The highest plastic at a point of the board (sheet coordinates: y south)."""
    hits = crossings(mesh, sheet_x, -sheet_y)
    return hits[-1] if hits else None


def tiles_at(meshes: dict[str, trimesh.Trimesh], x: float, y: float) -> list[trimesh.Trimesh]:
    return [
        m
        for name, m in meshes.items()
        if name.startswith("carrier-")
        and m.bounds[0][0] < x < m.bounds[1][0]
        and m.bounds[0][1] < -y < m.bounds[1][1]
    ]


def tile_at(meshes: dict[str, trimesh.Trimesh], x: float, y: float) -> trimesh.Trimesh:
    found = tiles_at(meshes, x, y)
    assert len(found) == 1, f"{len(found)} tiles at {x}, {y}"
    return found[0]


def test_every_part_is_a_closed_manifold_solid(reed: dict[str, trimesh.Trimesh]) -> None:
    assert sorted(reed) == [
        "carrier-reed-camp.stl",
        "carrier-reed-grid-r1c1.stl",
        "carrier-reed-grid-r1c2.stl",
        "carrier-reed-grid-r2c1.stl",
        "carrier-reed-grid-r2c2.stl",
        "carrier-reed-sarcophagus.stl",
        "figure-base-6x3-blue.stl",
        "figure-base-6x3-red.stl",
        "figure-base-6x3-turquoise.stl",
        "figure-base-6x3-violet.stl",
        "figure-base-6x3.stl",
        "test-jig-reed.stl",
        "test-piece.stl",
    ]
    for name, mesh in reed.items():
        # Every edge between exactly two faces, faces consistently outward, a volume.
        assert mesh.is_watertight, name
        assert mesh.is_winding_consistent, name
        assert mesh.is_volume and mesh.volume > 0, name
        edges = np.sort(mesh.edges, axis=1)
        _, counts = np.unique(edges, axis=0, return_counts=True)
        assert set(counts.tolist()) == {2}, name
        assert mesh.bounds[0][2] == pytest.approx(0.0), f"{name} lies on the bed"


def test_carrier_tiles_fit_the_bed_and_cover_the_board(
    reed: dict[str, trimesh.Trimesh], ref1: BoardConfig, default_maze: Maze
) -> None:
    p = ref1.cell_pitch_mm
    # Thickness: the glass's top 9.25 - 1 (base floor) - 1.1 (cover, print) = 7.15 mm
    # down, the longest glass (10.16 mm), 3 mm of straight bottom lead, the 3 mm channel.
    assert round(REED_TOP, 6) == 7.15
    thick = REED_THICK
    assert thick == pytest.approx(thickness(verified_build("reed")))
    tiles = {n: m for n, m in reed.items() if n.startswith("carrier-")}
    area = 0.0
    for name, mesh in tiles.items():
        (x0, y0, z0), (x1, y1, z1) = mesh.bounds
        assert x1 - x0 <= BED - 10 and y1 - y0 <= BED - 10, name
        assert z1 - z0 == pytest.approx(thick), name
        # Tiles end on cell lines.
        for v in (x0, x1, y0, y1):
            assert v / p == pytest.approx(round(v / p)), (name, v)
        area += (x1 - x0) * (y1 - y0)
    # The 12 x 12 grid in four 6 x 6 tiles, and a band for each room's cells.
    bounds = reed["carrier-reed-grid-r1c1.stl"].bounds.ravel().tolist()
    assert bounds == pytest.approx([0, -6 * p, 0, 6 * p, 0, thick])
    assert area == pytest.approx((ref1.columns * ref1.rows + 6 + 4) * p * p)
    # Every position's sensor lies in exactly one tile.
    for place in places(default_maze, ref1):
        tile_at(reed, *place.sensor)


def test_every_reed_is_held_by_the_top_of_its_glass_at_the_verified_depth(
    reed: dict[str, trimesh.Trimesh], ref1: BoardConfig, default_maze: Maze
) -> None:
    """The glass goes in from the underside and stops at a ledge: the depth is the
    ledge's, whatever the glass's length; the bore is open to the underside."""
    thick = REED_THICK
    bore_r = REED_WIDTH / 2 + FIT_MM
    for place in places(default_maze, ref1):
        x, y = place.sensor
        mesh = tile_at(reed, x, y)
        # In the bore beside the top lead's slot: plastic only above the ledge.
        hits = crossings(mesh, x + 0.8, -y)
        assert len(hits) == 2 and hits[1] == pytest.approx(thick), place.name
        ledge = thick - hits[0]
        # Magnet underside to the glass's top: base floor + cover + the ledge's depth.
        assert ABOVE + ledge == pytest.approx(REED.depth_mm), place.name
        # The glass cannot pass the ledge: above it only the slot, narrower than the glass.
        for dx in (-0.8, 0.8):
            assert top(mesh, x + dx, y) == pytest.approx(thick), (place.name, dx)
        # The bore is the glass's width and a fit: plastic just outside it, east.
        assert crossings(mesh, x + bore_r + 0.3, -y)[-1] == pytest.approx(thick), place.name
        assert crossings(mesh, x + bore_r - 0.1, -y)[0] == pytest.approx(thick - ledge)


def _lead_problems(
    meshes: dict[str, trimesh.Trimesh], build_key: str, place: Place, config: BoardConfig
) -> list[str]:
    """Trace both leads (or the Hall switch's three wires) of ``place`` through the
    carrier tile holding it: what blocks them, bends too near the glass, ends that the
    harness cannot pick up."""
    build = verified_build(build_key)
    mesh = tile_at(meshes, *place.sensor)
    thick = thickness(build)
    roof = thick - SENSOR_CHANNEL_MM[1]
    toward = 1.0 if place.sensor[0] < drop_x(config) else -1.0
    if build.kind == "reed":
        leads = [
            lead
            for glass in (MDSR_10.glass_length_max, MDSR_10.glass_length_max - 0.3)
            for lead in reed_leads(build, place, glass_mm=glass, toward=toward)
        ]
    else:
        leads = hall_leads(build, place)
    problems = []
    for lead in leads:
        bad = blocked(probe_of(mesh), lead.points, thick, lead.diameter / 2)
        if bad:
            problems.append(f"{lead.name} runs into plastic at {bad[0]}")
        problems += [
            f"{lead.name} bent {d:.2f} mm from the glass"
            for d in lead.bends_from_glass
            if d < BEND_CLEAR_MM - 1e-6
        ]
        x, y, depth = lead.end
        if lead.name == "top lead":
            # It ends in its side channel, where the harness wire is soldered on: from
            # there the channel goes on down to the wire channel, open to the underside.
            below = [h for h in crossings(mesh, x, -y) if h < thick - depth]
            if below:
                problems.append(f"the top lead's side channel is closed under its end: {below}")
            if depth < reed_cavity(build).glass_top - 1e-6:
                problems.append("the top lead ends above the glass")
        elif not roof <= depth <= thick:
            problems.append(f"{lead.name} ends {depth:.2f} mm deep, not in the wire channel")
    return problems


@pytest.mark.parametrize("sensor", ["reed", "hall"])
def test_every_lead_runs_in_air_bent_3_mm_from_the_glass_to_the_harness(
    sensor: str,
    reed: dict[str, trimesh.Trimesh],
    hall: dict[str, trimesh.Trimesh],
    ref1: BoardConfig,
    default_maze: Maze,
) -> None:
    """The MDSR-10's leads (0.43 mm, 14.39 mm at their shortest) and the SOT-23's wires,
    traced through the STL at every seventh position and every pad."""
    meshes = reed if sensor == "reed" else hall
    board = places(default_maze, ref1)
    chosen = [p for p in board if p.position % 7 == 0 or p.position >= ref1.cells]
    for place in chosen:
        assert _lead_problems(meshes, sensor, place, ref1) == [], place.name


def test_the_reed_leads_come_from_the_datasheet() -> None:
    build = verified_build("reed")
    place = Place(0, "A1", (12.5, 12.5), (15.5, 20.5), 0)
    top_lead, bottom_lead = reed_leads(build, place)
    assert top_lead.length == pytest.approx(MDSR_10.lead_length_min, abs=0.05)
    assert bottom_lead.length == pytest.approx(MDSR_10.lead_length_min, abs=0.05)
    assert top_lead.diameter == MDSR_10.lead_diameter == 0.43
    assert min(top_lead.bends_from_glass + bottom_lead.bends_from_glass) == pytest.approx(3.0)
    # A shorter glass (held by its top end) only moves the bottom lead's bend further away.
    _, short = reed_leads(build, place, glass_mm=9.8)
    assert short.bends_from_glass[0] == pytest.approx(3.0 + MDSR_10.glass_length_max - 9.8)
    cavity = reed_cavity(build)
    assert cavity.roof >= MIN_ROOF_MM and cavity.glass_top == pytest.approx(REED_TOP)


def test_every_hall_pocket_holds_the_element_at_the_verified_depth(
    hall: dict[str, trimesh.Trimesh], ref1: BoardConfig, default_maze: Maze
) -> None:
    thick = HALL_THICK
    package = HALL.sot23
    assert package is not None
    half = (package.body_length_max / 2 + FIT_MM, package.span_max / 2 + FIT_MM)
    for place in places(default_maze, ref1):
        x, y = place.sensor
        mesh = tile_at(hall, x, y)
        assert mesh.bounds[1][2] == pytest.approx(thick)
        # The rib under the body's middle, between the two rows of feet.
        floor = top(mesh, x + half[0] - 0.2, y)
        assert floor is not None
        element = floor + package.height_max - SOT23_ELEMENT
        assert ABOVE + (thick - element) == pytest.approx(HALL.depth_mm), place.name
        assert top(mesh, x + half[0] + 0.3, y) == pytest.approx(thick)
        # Under each row of feet a slot all the way down.
        for dy in (-(half[1] - 0.2), half[1] - 0.2):
            assert top(mesh, x, y + dy) is None, (place.name, dy)


def _keep_out(x: float, y: float, hx: float, hy: float) -> list[tuple[float, float]]:
    """Points around a sensor's hole (half sizes hx, hy), MIN_WALL_MM outside it."""
    points = []
    for k in range(48):
        a = 2 * math.pi * k / 48
        if math.sin(a) < -0.3:  # north: the reed's top lead's slot and channel
            continue
        r = hx + MIN_WALL_MM if hx == hy else 1.0
        px, py = r * math.cos(a), r * math.sin(a)
        if hx != hy:  # a rectangle: its outline grown by the wall
            s = max(abs(px) / (hx + MIN_WALL_MM), abs(py) / (hy + MIN_WALL_MM))
            px, py = px / s, py / s
        points.append((x + px, y + py))
    return points


@pytest.mark.parametrize("sensor", ["reed", "hall"])
def test_no_pixel_pocket_or_groove_comes_near_a_sensor(
    sensor: str,
    reed: dict[str, trimesh.Trimesh],
    hall: dict[str, trimesh.Trimesh],
    ref1: BoardConfig,
    default_maze: Maze,
) -> None:
    meshes = reed if sensor == "reed" else hall
    if sensor == "reed":
        hx = hy = REED_WIDTH / 2 + FIT_MM
    else:
        package = HALL.sot23
        assert package is not None
        hx, hy = package.body_length_max / 2 + FIT_MM, package.span_max / 2 + FIT_MM
    for place in places(default_maze, ref1):
        mesh = tile_at(meshes, *place.sensor)
        thick = mesh.bounds[1][2]
        for px, py in _keep_out(*place.sensor, hx, hy):
            if (
                mesh.bounds[0][0] < px < mesh.bounds[1][0]
                and mesh.bounds[0][1] < -py < mesh.bounds[1][1]
            ):
                assert top(mesh, px, py) == pytest.approx(thick), (place.name, px, py)


def test_each_pixel_pocket_lies_beside_its_sensor(
    reed: dict[str, trimesh.Trimesh], ref1: BoardConfig, default_maze: Maze
) -> None:
    thick = reed["carrier-reed-grid-r1c1.stl"].bounds[1][2]
    for place in places(default_maze, ref1):
        x, y = place.sensor
        assert place.pixel == (x + PIXEL_OFFSET_MM[0], y + PIXEL_OFFSET_MM[1])
        # The piece's pocket: along the row, 16.7 mm long, 10 mm across (and a fit); a
        # pocket that crosses a cell line continues on the next tile, if there is one.
        for dx, dy in ((-8.0, -4.8), (8.0, 4.8), (-8.0, 4.8), (8.0, -4.8)):
            px, py = place.pixel[0] + dx, place.pixel[1] + dy
            for mesh in tiles_at(reed, px, py):
                assert top(mesh, px, py) == pytest.approx(thick - PIXEL_POCKET_MM), place.name
        # Beyond its ends and sides: the carrier's top.
        for dx, dy in ((-8.9, -4.0), (8.9, -4.0), (-6.0, -5.6)):
            px, py = place.pixel[0] + dx, place.pixel[1] + dy
            mesh = tile_at(reed, px, py)
            if place.position < ref1.cells:
                assert top(mesh, px, py) == pytest.approx(thick), (place.name, dx, dy)


def test_the_chain_runs_in_grooves_along_the_rows(
    reed: dict[str, trimesh.Trimesh], ref1: BoardConfig, default_maze: Maze
) -> None:
    board = {p.pixel_index: p for p in places(default_maze, ref1)}
    thick = reed["carrier-reed-grid-r1c1.stl"].bounds[1][2]
    p = ref1.cell_pitch_mm
    linked = 0
    for i in range(len(board) - 1):
        a, b = board[i], board[i + 1]
        (x1, y1), (x2, y2) = a.pixel, b.pixel
        if abs(x2 - x1) + abs(y2 - y1) > 1.5 * p:
            continue  # a long jump runs under the carrier
        linked += 1
        # Halfway between the two pieces (beyond both pockets) the jumpers' groove.
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        if y1 != y2:  # a row's turn: east of the sensor, across the cell line
            mx, my = a.sensor[0] + TURN_X_MM, my + 0.5
        assert top(tile_at(reed, mx, my), mx, my) == pytest.approx(thick - GROOVE_MM[1]), (i,)
        # Three of the BOM's LED wires side by side fit across it.
        half = 1.5 * LED_WIRE.od_max_mm + 0.05
        for d in (-half, half):
            qx, qy = (mx, my + d) if y1 == y2 else (mx + d, my)
            assert top(tile_at(reed, qx, qy), qx, qy) == pytest.approx(thick - GROOVE_MM[1])
    assert linked == len(board) - 1 - 2  # all but the jumps to the camp and the sarcophagus
    # Pixels 0 (A12) and 23 (A11) are not linked: no groove between them.
    a, b = board[0], board[23]
    assert (a.name, b.name) == ("A12", "A11")
    mx, my = a.pixel[0] - 3.0, (a.pixel[1] + b.pixel[1]) / 2
    assert top(tile_at(reed, mx, my), mx, my) == pytest.approx(thick)


def test_the_figure_base_holds_the_magnet_at_the_assumed_height(
    reed: dict[str, trimesh.Trimesh],
) -> None:
    build = verified_build("reed")
    floor = STACK.figure_floor_mm
    d, h = build.magnet_mm
    base = reed["figure-base-6x3.stl"]
    assert base.extents.tolist() == pytest.approx(
        [BASE_DIAMETER_MM, BASE_DIAMETER_MM, floor + h], abs=0.01
    )
    # The pocket's floor: the magnet's underside 1 mm above the board.
    assert crossings(base, 0.0, 0.0) == pytest.approx([0.0, floor])
    assert crossings(base, d / 2 - 0.05, 0.0) == pytest.approx([0.0, floor])
    # About 0.2 mm of play all round: a printed hole comes out small.
    assert crossings(base, d / 2 + 0.15, 0.0) == pytest.approx([0.0, floor])
    assert crossings(base, d / 2 + 0.25, 0.0) == pytest.approx([0.0, floor + h])
    assert crossings(base, BASE_DIAMETER_MM / 2 + 0.1, 0.0) == []
    # Magnet underside to the reed's top: base floor + cover and print + the carrier's.
    assert floor + STACK.cover_mm + STACK.print_mm + REED_TOP == pytest.approx(REED.depth_mm)


SEEKER_BASES = {s: f"figure-base-6x3-{s.value}.stl" for s in FigureColour}


def _section(mesh: trimesh.Trimesh, z: float) -> CrossSection:
    """The STL's plastic at height ``z`` (mm above the bed), seen from above."""
    solid = Manifold(
        Mesh(
            vert_properties=np.asarray(mesh.vertices, dtype=np.float32),
            tri_verts=np.asarray(mesh.faces, dtype=np.uint32),
        )
    )
    assert solid.status().name == "NoError"
    return solid.slice(z)


def test_each_seekers_base_holds_the_magnet_as_the_plain_base_does(
    reed: dict[str, trimesh.Trimesh],
) -> None:
    """The marks change neither the magnet's pocket nor the floor under it, and no base
    grows past the 20 mm the neighbours' clearances assume."""
    floor = STACK.figure_floor_mm
    d, h = verified_build("reed").magnet_mm
    _, raised = SEEKER_MARK_MM
    for seeker, name in SEEKER_BASES.items():
        base = reed[name]
        (x0, y0, z0), (x1, y1, z1) = base.bounds
        assert max(-x0, -y0, x1, y1) <= BASE_DIAMETER_MM / 2 + 0.01, name
        assert (z0, z1) == pytest.approx((0.0, floor + h + raised), abs=0.01), name
        assert crossings(base, 0.0, 0.0) == pytest.approx([0.0, floor]), name
        assert crossings(base, -(d / 2 + 0.15), 0.0) == pytest.approx([0.0, floor]), name
        assert crossings(base, -(d / 2 + 0.25), 0.0) == pytest.approx([0.0, floor + h]), name
        # The underside is flat everywhere inside the notches: it stands as the plain one.
        for k in range(0, 360, 15):
            for r in (2.0, 5.0, 8.5):
                a = math.radians(k)
                hits = crossings(base, r * math.cos(a), r * math.sin(a))
                assert hits[0] == pytest.approx(0.0), (seeker, k, r)


def test_the_seekers_bases_differ_by_a_raised_mark_and_notches_a_finger_counts(
    reed: dict[str, trimesh.Trimesh],
) -> None:
    """Read from the STL files: each base's raised letter and shape (sliced in the middle
    of their height) differs from every other's by more than a 3 mm stroke, every
    stroke is at least one 0.8 mm line wide (an opening by 0.4 mm keeps every piece and
    most of it: only corners and a star's tips round off) and no gap is narrower, the
    raised mark stays in the
    ring between the figure's foot (10 mm) and the rim, and the rim has the seeker's
    count of notches (1 to 4)."""
    floor = STACK.figure_floor_mm
    _, h = verified_build("reed").magnet_mm
    width, raised = SEEKER_MARK_MM
    assert width >= 0.8 and raised >= 0.6
    marks = {s: _section(reed[n], floor + h + raised / 2) for s, n in SEEKER_BASES.items()}
    for a, b in itertools.combinations(FigureColour, 2):
        apart = (marks[a] - marks[b]).area() + (marks[b] - marks[a]).area()
        assert apart > width * 3.0, (a, b, apart)
    foot = CrossSection.circle(5.0, 64)
    for seeker, mark in marks.items():
        assert (mark ^ foot).area() == pytest.approx(0.0, abs=1e-6), seeker
        opened = mark.offset(-0.4, JoinType.Round).offset(0.4, JoinType.Round)
        pieces, kept = mark.decompose(), opened.decompose()
        assert len(kept) == len(pieces) == 2, seeker  # the letter (R and B: one piece) and shape
        assert opened.area() >= 0.8 * mark.area(), seeker
        # The counters of R and B stay open: no gap narrower than a 0.8 mm line.
        closed = mark.offset(0.4, JoinType.Round).offset(-0.4, JoinType.Round)
        assert closed.num_contour() == mark.num_contour(), seeker
    for seeker, name in SEEKER_BASES.items():
        body = _section(reed[name], floor / 2)
        rim = CrossSection.circle(BASE_DIAMETER_MM / 2 - 0.01, 4 * 96) - CrossSection.circle(
            BASE_DIAMETER_MM / 2 - 0.5, 96
        )
        notches = [n for n in (rim - body).decompose() if n.area() > 0.1]
        assert len(notches) == SEEKER_MARKS[seeker].notches, seeker


def test_the_jig_marks_the_centre_the_tolerance_and_the_neighbours(
    reed: dict[str, trimesh.Trimesh], ref1: BoardConfig
) -> None:
    jig = reed["test-jig-reed.stl"]
    p = ref1.cell_pitch_mm
    thick = jig.bounds[1][2]
    assert jig.bounds.ravel().tolist() == pytest.approx([0, -3 * p, 0, 3 * p, 0, thick])
    ring = BASE_DIAMETER_MM / 2 + MARK_MM[0] / 2 - MARK_MM[0] / 2  # the groove's middle
    for row in range(3):
        for col in range(3):
            cx, cy = (col + 0.5) * p, (row + 0.5) * p
            # A reed cavity under every cell, as in the carrier: plastic down to the ledge.
            assert top(jig, cx, cy) == pytest.approx(thick)
            assert crossings(jig, cx + 0.8, -cy)[0] == pytest.approx(thick - REED_TOP)
            # The ring where a centred figure base's edge stands (north-west of the centre).
            a = math.radians(225)
            rx, ry = cx + ring * math.cos(a), cy + ring * math.sin(a)
            assert top(jig, rx, ry) == pytest.approx(thick - MARK_MM[1])
            assert top(jig, cx + 7.0 * math.cos(a), cy + 7.0 * math.sin(a)) == pytest.approx(thick)
    # Eight round dimples where the base's edge goes when it stands 5 mm off the centre
    # cell: as deep 0.45 mm to either side across the line to the centre as along it.
    reach = BASE_DIAMETER_MM / 2 + verified_build("reed").tolerance_mm
    for k in range(8):
        a = math.radians(45 * k)
        dx, dy = 1.5 * p + reach * math.cos(a), 1.5 * p + reach * math.sin(a)
        assert top(jig, dx, dy) == pytest.approx(thick - DIMPLE_MM[1]), k
        across = (dx - 0.45 * math.sin(a), dy + 0.45 * math.cos(a))
        assert top(jig, *across) == pytest.approx(thick - DIMPLE_MM[1]), k
        along = (dx + 1.2 * math.cos(a), dy + 1.2 * math.sin(a))
        assert top(jig, *along) != pytest.approx(thick - DIMPLE_MM[1]), k
    # Where the magnet tool's release worst case puts the neighbours' figures: a slot
    # along the line to the centre where each base's edge nearest the centre goes (the
    # reed build: the four diagonals and one side cell).
    build = REED.build(pitch_mm=p)
    verdict = analyse(build)
    cells = {name: (dc, dr) for name, dc, dr in NEIGHBOURS}
    assert len(verdict.release_figures) == 5
    assert sum("-" in s.cell for s in verdict.release_figures) == 4
    for spot in verdict.release_figures:
        dc, dr = cells[spot.cell]
        fx, fy = dc * p + spot.dx, dr * p + spot.dy  # the figure's centre from the centre's
        off = math.hypot(fx, fy)
        ux, uy = fx / off, fy / off
        x, y = (
            1.5 * p + ux * (off - BASE_DIAMETER_MM / 2),
            1.5 * p + uy * (off - BASE_DIAMETER_MM / 2),
        )
        # A slot: deep 1.2 mm along the line to the centre, shallow 0.8 mm across it.
        for d in (-1.2, 0.0, 1.2):
            assert top(jig, x + d * ux, y + d * uy) == pytest.approx(thick - DIMPLE_MM[1]), spot
        assert top(jig, x - 0.8 * uy, y + 0.8 * ux) != pytest.approx(thick - DIMPLE_MM[1])
    # Labelled: a "5" beside the north-east dimple and a "W" beside a slot, engraved.
    labels = [h for h in _jig_holes(p) if h.what in ("dimple label", "slot label")]
    assert {h.what for h in labels} == {"dimple label", "slot label"}
    for hole in labels:
        assert top(jig, *hole.centre) == pytest.approx(thick - LABEL_MM[2], abs=0.01), hole
    assert SLOT_MM[1] > 2 * DIMPLE_MM[0]


def _jig_holes(pitch: float) -> list:  # type: ignore[type-arg]
    from companion.hardware.parts import jig_marks

    return jig_marks(verified_build("reed"), pitch)


def test_a_pixel_beside_the_sensor_as_before_is_refused() -> None:
    """The old place (6.5 mm east of the centre, a 12 mm board reaching the reed's hole)."""
    build = verified_build("reed")
    old = [Place(0, "A1", (12.5, 12.5), (19.0, 12.5), 0)]
    with pytest.raises(PartsError, match=r"A1: the pixel is 0\.0 mm from the reed"):
        check_build(build, old, 25.0)
    check_build(build, [Place(0, "A1", (12.5, 12.5), (16.0, 20.5), 0)], 25.0)


def test_parts_follow_the_configs_pitch(tmp_path: Path, ref1: BoardConfig) -> None:
    text = Path(ref1.source).read_text().replace("cell_pitch_mm = 25.0", "cell_pitch_mm = 30.0")
    config = tmp_path / "board.toml"
    config.write_text(text)
    meshes = _write(tmp_path / "out", "--config", str(config), "--part", "jig")
    jig = meshes["test-jig-reed.stl"]
    assert jig.extents[:2].tolist() == pytest.approx([90.0, 90.0])
    assert crossings(jig, 45.0 + 0.8, -45.0)[0] == pytest.approx(REED_THICK - REED_TOP)


def test_a_bed_too_small_for_a_cell_is_refused_in_words(
    tmp_path: Path, ref1: BoardConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    text = Path(ref1.source).read_text().replace("cell_pitch_mm = 25.0", "cell_pitch_mm = 60.0")
    config = tmp_path / "board.toml"
    config.write_text(text)
    argv = ["hardware", "parts", "--out", str(tmp_path), "--bed", "60", "--config", str(config)]
    assert main(argv) == 1
    assert "a 60 mm cell does not fit on the bed (50 mm usable)" in capsys.readouterr().err
    assert list(tmp_path.glob("*.stl")) == []


def test_the_build_guide_gives_the_parts_depths_and_thicknesses() -> None:
    readme = (Path(__file__).resolve().parent.parent / "hardware" / "README.md").read_text()
    for sensor in SENSOR_KEYS:
        build = verified_build(sensor)
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{sensor}`"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == f"{build.depth_mm:g} mm", sensor
        assert cells[3] == f"{thickness(build):g} mm", sensor
        assert f"{build.in_carrier_mm:g} mm" in cells[2], sensor


def test_the_build_guide_places_the_pixel_where_the_sheet_and_carrier_do() -> None:
    readme = (Path(__file__).resolve().parent.parent / "hardware" / "README.md").read_text()
    east, south = PIXEL_OFFSET_MM
    where = f"{east:g} mm east and {south:g} mm south of"
    assert readme.count(where) == 2  # the BOM and "Printed parts"


def test_an_out_that_is_a_file_is_refused_before_anything_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "parts"
    out.write_text("not a directory")
    assert main(["hardware", "parts", "--out", str(out)]) == 2
    assert f"--out {out} is a file, not a directory" in capsys.readouterr().err
    assert out.read_text() == "not a directory"


def test_the_assembly_sheet_and_the_carrier_place_every_sensor_and_pixel_alike(
    reed: dict[str, trimesh.Trimesh], ref1: BoardConfig, default_maze: Maze
) -> None:
    """One geometry: the sheet's marks, moved so A1's sensor lies where the carrier's
    does, are the carrier's holes and pockets, position by position."""
    sheet = maze_sheet(default_maze, ref1, assembly=True)
    marks: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {}
    for group in iter_items(sheet.items):
        if isinstance(group, Group) and group.cls == "position":
            name = dict(group.data)["position"]
            circle = next(i for i in group.items if isinstance(i, Circle) and i.r == 1.3)
            square = next(i for i in group.items if isinstance(i, Rect) and i.w == 2.4)
            pixel = (square.x + square.w / 2, square.y + square.h / 2)
            marks[name] = ((circle.cx, circle.cy), pixel)
    board = places(default_maze, ref1)
    assert sorted(marks) == sorted(p.name for p in board)
    (ax, ay), _ = marks["A1"]
    a1 = next(p for p in board if p.name == "A1").sensor
    for place in board:
        (sx, sy), (px, py) = marks[place.name]
        assert (sx - ax + a1[0], sy - ay + a1[1]) == pytest.approx(place.sensor)
        assert (px - ax + a1[0], py - ay + a1[1]) == pytest.approx(place.pixel)
    # And the carrier has its reed hole and pixel pocket exactly there.
    thick = REED_THICK
    for place in board[::7]:
        x, y = place.sensor
        bore = crossings(tile_at(reed, x, y), x + 0.8, -y)
        assert bore == pytest.approx([thick - REED_TOP, thick]), place.name
        px, py = place.pixel[0] - 7.0, place.pixel[1]
        assert top(tile_at(reed, px, py), px, py) == pytest.approx(thick - PIXEL_POCKET_MM)


def test_the_build_guide_says_where_the_jig_puts_the_worst_neighbours() -> None:
    readme = (Path(__file__).resolve().parent.parent / "hardware" / "README.md").read_text()
    text = " ".join(readme.split("**The test jig.**")[1].split("\n\n")[0].split())
    for key in SENSOR_KEYS:
        words = worst_neighbours(verified_build(key))
        assert f"{key} build: {words}" in text, key
    assert "four side neighbours (each 5.0 mm towards the centre)" in worst_neighbours(
        verified_build("hall")
    )


def test_the_test_piece_has_each_feature_as_the_parts_do(
    reed: dict[str, trimesh.Trimesh],
) -> None:
    """Printed first: the magnet pocket, a reed cavity with its ledge, a Hall pocket with
    its slots and a groove, cut as the figure base, the carrier and the jig cut them."""
    piece = reed["test-piece.stl"]
    thick = REED_THICK
    length, width = PIECE_SIZE_MM
    assert piece.bounds.ravel().tolist() == pytest.approx([0, -width, 0, length, 0, thick])
    y = width / 2
    d, h = verified_build("reed").magnet_mm
    magnet = PIECE_FEATURES["magnet pocket"]
    assert top(piece, magnet + d / 2 + 0.15, y) == pytest.approx(thick - h)
    assert top(piece, magnet + d / 2 + 0.3, y) == pytest.approx(thick)
    x = PIECE_FEATURES["reed"]
    assert crossings(piece, x + 0.8, -y)[0] == pytest.approx(thick - REED_TOP)
    assert crossings(piece, x + 0.8, -y)[1] == pytest.approx(thick)
    hall = verified_build("hall")
    x = PIECE_FEATURES["hall"]
    assert top(piece, x + 1.5, y) == pytest.approx(thick - hall.face_mm - 1.12)
    assert top(piece, x, y - 1.2) is None  # the feet's slot, right through
    x = PIECE_FEATURES["groove"]
    for dx in (-1.5 * LED_WIRE.od_max_mm, 0.0, 1.5 * LED_WIRE.od_max_mm):
        assert top(piece, x + dx, 2.0) == pytest.approx(thick - GROOVE_MM[1])


def test_the_section_drawing_of_a_position_is_traced_from_its_tile(tmp_path: Path) -> None:
    """`companion hardware section`: a PNG of both cuts through a position's sensor."""
    png = tmp_path / "camp.png"
    assert main(["hardware", "section", "--position", "camp slot 1", "--out", str(png)]) == 0
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def _block(page: str, name: str) -> str:
    text = (Path(__file__).resolve().parent.parent / "hardware" / page).read_text()
    match = re.search(rf"<!-- {name} [^>]*-->\n(.*?)\n<!-- end -->", text, re.S)
    assert match, f"hardware/{page} has no block {name}"
    return match.group(1)


@pytest.mark.parametrize("sensor", ["reed", "hall"])
def test_the_guides_order_of_work_can_be_done_on_the_generated_carrier(
    sensor: str,
    reed: dict[str, trimesh.Trimesh],
    hall: dict[str, trimesh.Trimesh],
    ref1: BoardConfig,
    default_maze: Maze,
) -> None:
    """Issue 35: the old order glued the tiles down, then fitted the sensors with their
    wires in the channels underneath, which the gluing had closed."""
    from companion.hardware.assembly import CHECKS, ORDER, Stage, Step, markdown, problems

    assert _block("assembly.md", "order") == markdown(), "update hardware/assembly.md"
    board = places(default_maze, ref1)
    build = verified_build(sensor)
    assert problems(build, board, ref1.cell_pitch_mm, drop_x(ref1)) == []
    assert all(stage.check in CHECKS for stage in ORDER)
    assert {"continuity", "jig", "/check"} <= {stage.check for stage in ORDER}
    # The old order fails the same walk.
    glue_first = Stage(
        "glue first", (Step("glue", "top", closes_underside=True),), "continuity", ""
    )
    old = problems(build, board, ref1.cell_pitch_mm, drop_x(ref1), (glue_first, *ORDER[1:]))
    assert any("needs the underside, glued down" in p for p in old)
    # And on the mesh: the sensor goes in where the order says it does.
    meshes = reed if sensor == "reed" else hall
    x, y = board[0].sensor
    mesh = tile_at(meshes, x, y)
    if sensor == "reed":  # up the bore from the underside to the ledge
        assert crossings(mesh, x + 0.8, -y) == pytest.approx([REED_THICK - REED_TOP, REED_THICK])
    else:  # into the pocket from the top, the feet's slots open underneath
        assert top(mesh, x, y + 1.2) is None and top(mesh, x, y - 1.2) is None


def test_the_bring_up_checklist_names_its_test_points() -> None:
    from companion.hardware.assembly import TEST_POINTS, checklist_table

    assert _block("assembly.md", "test points") == checklist_table()
    assert [tp.name for tp in TEST_POINTS] == [f"TP{k}" for k in range(1, len(TEST_POINTS) + 1)]
    assert all(tp.low < tp.high for tp in TEST_POINTS)
