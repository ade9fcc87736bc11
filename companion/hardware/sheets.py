"""The printed maze: walls, rooms, treasures and (optionally) the assembly layer.

``maze_sheet(maze, config)`` draws the maze at true scale: one cell is
``config.cell_pitch_mm`` square, so the print lies over the sensor board.  On it:

- every cell with its name in the corner (the phones name cells when the board and
  the game disagree), and the walls of the maze file as thick lines;
- the start field (camp) and the sarcophagus beside the grid, one cell deep, behind
  their openings in the outer wall, with as many slots as the config has pads;
- the 23 treasures as icons whose badge shape tells the colour and whose glyph tells
  the treasure (``icons.py``), with the title of the treasure's mission card;
- a title, a legend of the badge shapes and of the seekers' letters, shapes and colours
  (``seekers.py``: what the pages and the figure bases show), and a 100 mm bar to check
  the print's scale.

With ``assembly=True`` a layer on top marks each position's sensor (centre of the
cell), its pixel (beside it, where ``placement`` puts it), the sensor index with its
chip input (or matrix crossing) and the pixel index, and draws the LED data chain with
arrows, all from the config (``wiring.sensor_wires``), so the board is built as the
software reads it.
"""

from __future__ import annotations

from itertools import pairwise

from companion.board.config import BoardConfig
from companion.games.mummy.maze import Colour, Direction, Maze, column_letter
from companion.games.mummy.state import FigureColour

from .drawing import (
    INK,
    Circle,
    Drawing,
    Group,
    Item,
    Line,
    Rect,
    Style,
    Text,
    arrow_head,
    polyline,
    text_width,
    wrap,
)
from .harness import HOLE_MM, harness_name
from .icons import FAMILIES, assign_glyphs, badge, icon, shape_id
from .placement import (
    PIECE_MM,
    ROUND_MM,
    Geometry,
    Room,
    is_long_link,
    link_route,
    pixel_centre,
    position_centres,
    room_layout,
    slot_centres,
)
from .seekers import SEEKER_MARKS, seeker_badge
from .wiring import sensor_wires

__all__ = ["MARGIN", "SheetError", "assembly_layer", "maze_sheet", "room_layout", "slot_centres"]

MARGIN = 10.0
TITLE_HEIGHT = 18.0
LEGEND_HEIGHT = 32.0
NOTE_LINE = 3.0  # the assembly note's line spacing under the legend
SENSOR_COLOUR = "#b0006e"
LED_COLOUR = "#0062a8"
GRID_STYLE = Style(stroke="#c4c4c4", width=0.2)
CELL_NAME_COLOUR = "#8c8c8c"
ROOM_FILLS = {"camp": "#e6f0e0", "sarcophagus": "#f3e6c8"}
ROOM_TITLES = {"camp": "CAMP (start field)", "sarcophagus": "SARCOPHAGUS"}


class SheetError(ValueError):
    """The maze and the board config do not describe the same board."""


def _walls(maze: Maze, geo: Geometry, width: float) -> list[Item]:
    """Thick wall lines: inner walls from the maze, the outer wall with its openings."""
    gaps = {(o.cell, o.side) for o in (*maze.start, *maze.sarcophagus)}
    style = Style(stroke=INK, width=width)
    items: list[Item] = []

    def closed(cell: int, side: Direction) -> bool:
        return side not in maze.open_sides[cell] and (cell, side) not in gaps

    # Horizontal lines: above each row (and below the last), merged into runs.
    for y in range(maze.height + 1):
        run_start: int | None = None
        for c in range(maze.width + 1):
            wall = False
            if c < maze.width:
                if y < maze.height:
                    wall = closed(y * maze.width + c, Direction.NORTH)
                else:
                    wall = closed((y - 1) * maze.width + c, Direction.SOUTH)
            if wall and run_start is None:
                run_start = c
            elif not wall and run_start is not None:
                x1, yy = geo.cell_box(y, run_start)
                x2, _ = geo.cell_box(y, c)
                items.append(Line(x1, yy, x2, yy, style))
                run_start = None
    for x in range(maze.width + 1):
        run_start = None
        for r in range(maze.height + 1):
            wall = False
            if r < maze.height:
                if x < maze.width:
                    wall = closed(r * maze.width + x, Direction.WEST)
                else:
                    wall = closed(r * maze.width + x - 1, Direction.EAST)
            if wall and run_start is None:
                run_start = r
            elif not wall and run_start is not None:
                xx, y1 = geo.cell_box(run_start, x)
                _, y2 = geo.cell_box(r, x)
                items.append(Line(xx, y1, xx, y2, style))
                run_start = None
    return items


def _room_box(geo: Geometry, room: Room) -> tuple[float, float, float, float]:
    r0, c0 = geo.band_cell(room.side, room.first)
    r1, c1 = geo.band_cell(room.side, room.last)
    x0, y0 = geo.cell_box(r0, c0)
    x1, y1 = geo.cell_box(r1 + 1, c1 + 1)
    return (x0, y0, x1 - x0, y1 - y0)


def _room_items(geo: Geometry, room: Room, wall: float, titled: bool) -> list[Item]:
    """The room's floor and title (under the grid) and its outer walls, last.

    The assembly sheet leaves the title out: its labels take the top of the slots.
    """
    x, y, w, h = _room_box(geo, room)
    style = Style(stroke=INK, width=wall)
    items: list[Item] = [Rect(x, y, w, h, Style(stroke=None, fill=ROOM_FILLS[room.kind]))]
    if titled:
        size = min(2.8, geo.pitch * 0.11)
        title = ROOM_TITLES[room.kind]
        items.append(Text(x + w / 2, y + size + 1.0, title, size, "middle", "#5a4a2a", bold=True))
    corners = {
        Direction.NORTH: [(x, y + h), (x, y), (x + w, y), (x + w, y + h)],
        Direction.SOUTH: [(x, y), (x, y + h), (x + w, y + h), (x + w, y)],
        Direction.WEST: [(x + w, y), (x, y), (x, y + h), (x + w, y + h)],
        Direction.EAST: [(x, y), (x + w, y), (x + w, y + h), (x, y + h)],
    }[room.side]
    items.append(polyline(corners, style))
    return items


def _slot_items(geo: Geometry, room: Room, first_position: int, config: BoardConfig) -> list[Item]:
    items: list[Item] = []
    for number, along in enumerate(room.slots, start=1):
        cx, cy = geo.centre(*geo.band_cell(room.side, along))
        r = geo.pitch * 0.3
        items.append(
            Group(
                (
                    Circle(
                        cx,
                        cy,
                        r,
                        Style(stroke="#6b5a3a", width=0.35, fill="#ffffff", dash=(1.2, 0.9)),
                    ),
                    Text(cx, cy + 1.6, str(number), 4.5, "middle", "#6b5a3a", bold=True),
                ),
                cls="slot",
                data=(
                    ("room", room.kind),
                    ("slot", str(number)),
                    ("position", config.position_name(first_position + number - 1)),
                ),
            )
        )
    return items


def _treasure_items(maze: Maze, geo: Geometry) -> list[Item]:
    items: list[Item] = []
    p = geo.pitch
    glyphs = assign_glyphs(maze.treasures)
    for treasure, (glyph_name, glyph) in zip(maze.treasures, glyphs, strict=True):
        row, col = divmod(treasure.cell, maze.width)
        cx, cy = geo.centre(row, col)
        size = p * 0.085
        lines = wrap(treasure.title, size, p * 0.9)
        icon_y = cy - p * 0.1 - (0.0 if len(lines) < 3 else p * 0.04)
        parts: list[Item] = icon(treasure.colour, glyph, cx, icon_y, p * 0.25)
        for i, line in enumerate(lines):
            parts.append(Text(cx, cy + p * 0.29 + i * size * 1.15, line, size, "middle"))
        items.append(
            Group(
                tuple(parts),
                cls="treasure",
                data=(
                    ("title", treasure.title),
                    ("cell", maze.cell_name(treasure.cell)),
                    ("shape", shape_id(treasure.colour, glyph_name)),
                ),
            )
        )
    return items


def assembly_layer(
    config: BoardConfig,
    centres: dict[int, tuple[float, float]],
    pitch: float,
    harnesses: bool = False,
) -> Group:
    """Sensor and pixel marks, their indices, and the LED chain, for every position
    (``harnesses``: and each harness's hole through the base board, on the whole board)."""
    wires = sensor_wires(config)
    items: list[Item] = []
    led_points: dict[int, tuple[float, float]] = {}
    sensor_points: dict[int, tuple[float, float]] = {}
    size = min(1.8, pitch * 0.072)
    for position, (cx, cy) in sorted(centres.items()):
        wire = wires[position]
        pixel = config.leds.indices[position]
        lx, ly = pixel_centre((cx, cy))
        led_points[pixel] = (lx, ly)
        sensor_points[pixel] = (cx, cy)
        tx, ty = cx + pitch * 0.5 - max(1.0, 0.07 * pitch) / 2 - 0.7, cy - pitch * 0.5 + size + 1.2
        items.append(
            Group(
                (
                    Circle(cx, cy, 1.3, Style(stroke=SENSOR_COLOUR, width=0.3)),
                    Line(cx - 2.2, cy, cx + 2.2, cy, Style(stroke=SENSOR_COLOUR, width=0.2)),
                    Line(cx, cy - 2.2, cx, cy + 2.2, Style(stroke=SENSOR_COLOUR, width=0.2)),
                    Rect(
                        lx - PIECE_MM[0] / 2,
                        ly - PIECE_MM[1] / 2,
                        PIECE_MM[0],
                        PIECE_MM[1],
                        Style(stroke=LED_COLOUR, width=0.15, dash=(1.0, 0.8)),
                    ),
                    Circle(
                        lx, ly, ROUND_MM / 2, Style(stroke=LED_COLOUR, width=0.1, dash=(0.4, 0.6))
                    ),
                    Rect(
                        lx - 1.2,
                        ly - 1.2,
                        2.4,
                        2.4,
                        Style(stroke=LED_COLOUR, width=0.3, fill="#ffffff"),
                    ),
                    Text(tx, ty, f"S{wire.index}", size, "end", SENSOR_COLOUR, bold=True),
                    Text(tx, ty + size * 1.15, wire.short, size, "end", SENSOR_COLOUR),
                    Text(tx, ty + size * 2.3, f"L{pixel}", size, "end", LED_COLOUR, bold=True),
                ),
                cls="position",
                data=(
                    ("position", wire.name),
                    ("sensor", str(wire.index)),
                    ("wired", wire.where),
                    ("pixel", str(pixel)),
                ),
            )
        )
    chain: list[Item] = []
    ordered = sorted(led_points)
    for a, b in pairwise(ordered):
        # A jump longer than a cell is a long wire: dashed, so it is not read as a row.
        if is_long_link(led_points[a], led_points[b], pitch):
            style = Style(stroke=LED_COLOUR, width=0.25, dash=(2.0, 1.5))
            chain.append(polyline([led_points[a], led_points[b]], style))
            continue
        route = link_route(sensor_points[a], led_points[a], led_points[b])
        chain.append(polyline(route, Style(stroke=LED_COLOUR, width=0.25)))
        (x1, y1), (x2, y2) = max(
            pairwise(route), key=lambda s: abs(s[1][0] - s[0][0]) + abs(s[1][1] - s[0][1])
        )
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        chain.append(
            arrow_head(
                mx + (x2 - x1) * 0.06, my + (y2 - y1) * 0.06, x2 - x1, y2 - y1, 1.6, LED_COLOUR
            )
        )
    return Group(
        (
            Group(tuple(chain), id="led-chain"),
            *items,
            *(_harness_holes(config, centres) if harnesses else ()),
        ),
        id="assembly",
    )


def _harness_holes(config: BoardConfig, centres: dict[int, tuple[float, float]]) -> list[Item]:
    """Where each row's harness goes down through the base board (``harness``): a
    dashed circle the hole's size in the middle of the row, named."""
    cells = [centres[p] for p in range(config.cells)]
    x = (min(c[0] for c in cells) + max(c[0] for c in cells)) / 2
    style = Style(stroke=SENSOR_COLOUR, width=0.25, dash=(1.0, 0.7))
    items: list[Item] = []
    rows: dict[float, int] = {}
    for position, (_, y) in sorted(centres.items()):
        rows.setdefault(round(y, 6), position)
    for y, position in sorted(rows.items()):
        name = harness_name(position, config)
        items.append(
            Group(
                (
                    Circle(x, y, HOLE_MM / 2, style),
                    Text(
                        x, y + HOLE_MM / 2 + 2.2, f"harness: {name}", 1.8, "middle", SENSOR_COLOUR
                    ),
                ),
                cls="harness-hole",
                data=(("harness", name),),
            )
        )
    return items


def _seeker_legend(x: float, y: float) -> list[Item]:
    """The seekers without their colours: each figure's shape and letter (as the pages
    draw them) with its colour's name and its figure base's notches."""
    title = "Seekers (the figure bases: raised letter and shape, notches in the rim):"
    items: list[Item] = [Text(x, y + 3.0, title, 2.8, bold=True)]
    bx = x
    for seeker in FigureColour:
        mark = SEEKER_MARKS[seeker]
        notches = f"{mark.notches} notch" + ("es" if mark.notches > 1 else "")
        label = f"{mark.letter} {seeker.value}: {mark.shape}, {notches}"
        items.append(seeker_badge(seeker, bx + 3.5, y + 9.0, 3.0))
        items.append(Text(bx + 8.5, y + 10.0, label, 2.6))
        bx += 12.0 + text_width(label, 2.6)
    return items


def _assembly_note(config: BoardConfig, width: float) -> list[str]:
    """What the assembly layer's marks mean, in lines ``width`` mm long."""
    wire_text = {
        "shift_register": "second line: 74HC165 chip and input (U3 E)",
        "matrix": "second line: matrix row and column (R2 C7)",
        "serial": "second line: the Pico's matrix row and column (R2 C7)",
        "gpio": "second line: the GPIO pin",
    }[config.sensors.backend]
    return wrap(
        f"Assembly layer: circle = sensor (S = sensor index, {wire_text}); "
        "square = pixel (L = pixel index), inside the outline of its piece: 16.7 x 10 mm "
        "cut from a 60/m strip, along the row, or a 10 mm round board (dotted); "
        "the blue arrows follow the LED data chain from pixel 0; a dashed circle "
        "is a harness's 10 mm hole through the base board.",
        2.4,
        width,
    )


def _legend(x: float, y: float, width: float, assembly: bool, config: BoardConfig) -> list[Item]:
    """Badge shapes, the seekers' marks, the scale bar and (with the assembly layer) what
    its marks mean."""
    items: list[Item] = []
    items.append(Text(x, y + 3.0, "Treasures: the badge shape gives the colour.", 2.8, bold=True))
    bx = x
    for colour in Colour:
        family = FAMILIES[colour]
        shapes, _, _ = badge(colour, 3.0)
        items.append(Group(tuple(shapes), translate=(bx + 3.5, y + 9.0)))
        label = f"{colour.value}: {family.badge}"
        items.append(Text(bx + 8.5, y + 10.0, label, 2.6))
        bx += 12.0 + text_width(label, 2.6)
    items += _seeker_legend(x, y + 14.0)
    # Scale bar: 100 mm with a tick every 10 mm, at the right.
    bar_x = x + width - 100.0
    bar_y = y + 8.0
    items.append(Rect(bar_x, bar_y, 100.0, 2.0, Style(stroke=INK, width=0.2, fill="#ffffff")))
    for i in range(0, 10, 2):
        items.append(Rect(bar_x + i * 10.0, bar_y, 10.0, 2.0, Style(stroke=None, fill=INK)))
    items.append(Text(bar_x, bar_y - 1.2, "0", 2.4, "middle"))
    items.append(Text(bar_x + 100.0, bar_y - 1.2, "100 mm", 2.4, "middle"))
    items.append(
        Text(bar_x + 50.0, bar_y + 5.2, "Printed at 100 % this bar is 100 mm long.", 2.4, "middle")
    )
    for i, line in enumerate(_assembly_note(config, width) if assembly else []):
        items.append(Text(x, y + 29.0 + i * NOTE_LINE, line, 2.4, fill="#333333"))
    return items


def maze_sheet(maze: Maze, config: BoardConfig, *, assembly: bool = False) -> Drawing:
    """The printable maze at true scale (see the module docstring)."""
    if (maze.width, maze.height) != (config.columns, config.rows):
        raise SheetError(
            f"the maze is {maze.width}x{maze.height} cells but the board config "
            f"{config.source} has {config.columns}x{config.rows}"
        )
    p = config.cell_pitch_mm
    rooms = room_layout(maze, config)
    sides = {room.side for room in rooms}
    west = p if Direction.WEST in sides else 0.0
    east = p if Direction.EAST in sides else 0.0
    north = p if Direction.NORTH in sides else 0.0
    south = p if Direction.SOUTH in sides else 0.0
    width = 2 * MARGIN + west + maze.width * p + east
    height = MARGIN + TITLE_HEIGHT + north + maze.height * p + south + LEGEND_HEIGHT + MARGIN
    if assembly:
        height += len(_assembly_note(config, width - 2 * MARGIN)) * NOTE_LINE
    geo = Geometry(MARGIN + west, MARGIN + TITLE_HEIGHT + north, p, maze.width, maze.height)
    wall = max(1.0, 0.07 * p)

    floor: list[Item] = []
    walls: list[Item] = []
    slots: list[Item] = []
    firsts = {"camp": config.cells, "sarcophagus": config.cells + config.camp_slots}
    for room in rooms:
        room_items = _room_items(geo, room, wall, not assembly)
        floor += room_items[:-1]
        walls.append(room_items[-1])
        slots += _slot_items(geo, room, firsts[room.kind], config)

    grid: list[Item] = []
    names: list[Item] = []
    for r in range(maze.height):
        y = geo.y + r * p
        grid.append(Line(geo.x, y, geo.x + maze.width * p, y, GRID_STYLE))
        for c in range(maze.width):
            x = geo.x + c * p
            names.append(
                Text(
                    x + wall / 2 + 0.6,
                    y + wall / 2 + 2.4,
                    f"{column_letter(c)}{r + 1}",
                    2.0,
                    fill=CELL_NAME_COLOUR,
                )
            )
    for c in range(maze.width):
        x = geo.x + c * p
        grid.append(Line(x, geo.y, x, geo.y + maze.height * p, GRID_STYLE))

    items: list[Item] = [
        Group(tuple(floor), id="rooms"),
        Group(tuple(grid), id="cell-lines"),
        Group(tuple(names), id="cell-names"),
        Group(tuple(_treasure_items(maze, geo)), id="treasures"),
        Group(tuple(walls + _walls(maze, geo, wall)), id="walls"),
        Group(tuple(slots), id="slots"),
    ]
    if assembly:
        items.append(assembly_layer(config, position_centres(maze, config, geo), p, True))

    start = ", ".join(f"{maze.cell_name(o.cell)} {o.side.value}" for o in maze.start)
    sarc = ", ".join(f"{maze.cell_name(o.cell)} {o.side.value}" for o in maze.sarcophagus)
    title = maze.name + (" - assembly sheet" if assembly else "")
    header: list[Item] = [
        Text(MARGIN, MARGIN + 6.5, title, 6.5, bold=True),
        Text(
            MARGIN,
            MARGIN + 12.5,
            f"{maze.width} x {maze.height} cells of {p:g} mm; start field at {start}; "
            f"sarcophagus at {sarc}; board: {config.name}",
            2.8,
            fill="#333333",
        ),
    ]
    legend_y = geo.y + maze.height * p + south + 4.0
    legend = _legend(MARGIN, legend_y, width - 2 * MARGIN, assembly, config)
    items += [Group(tuple(header), id="title"), Group(tuple(legend), id="legend")]
    return Drawing(
        width,
        height,
        title,
        tuple(items),
        description=(
            f"{maze.name}: {maze.width} x {maze.height} cells at {p:g} mm, true scale. "
            "Generated by companion maze render."
        ),
    )
