"""Where each position's sensor and pixel lie: the one geometry of the board, shared by
the printed sheets (``sheets``, ``crypt_overlay``, ``track_legend``) and the printed parts
(``parts``), so the carrier holds every sensor and pixel where the assembly sheet marks it.

Board coordinates are mm on the sheet's axes: x to the right (east), y down (south); a
:class:`Geometry` puts the top-left corner of cell A1 at (x, y).  The rooms (start field
and sarcophagus) lie one cell deep beside the grid, behind their openings.

The sensor sits under the cell centre.  The pixel lies :data:`PIXEL_OFFSET_MM` beside it:
towards the south-east, so that

- a strip piece (60/m, :data:`PIECE_MM`) lies **along the row**, as the LED chain runs
  (``[leds.layout] order = "rows"``): its DIN and DOUT pads face the previous and the
  next pixel, and a link is a straight 8 mm jumper along the row, never past a sensor;
- the piece's near edge is 3 mm from the sensor's centre (a 10 mm round board's the
  same), so a reed's hole or a Hall switch's pocket keeps a printable wall to the
  pixel's pocket (the pixel used to sit 6.5 mm beside the sensor, a 12 mm board's edge
  0.5 mm from its centre, with pieces along the columns);
- the piece stays within its cell along the row and reaches 0.5 mm past the cell's
  south edge (over the next row's cell, whose sensor is 12 mm away): a piece 10 mm
  across cannot lie between a sensor and the edge of a 25 mm cell with a wall to both.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.board.config import BoardConfig
from companion.games.mummy.maze import Direction, Maze, Opening

#: The pixel's centre from the sensor's (the cell centre), mm: east and south.
PIXEL_OFFSET_MM = (3.0, 8.0)
#: A pixel piece cut from a 60/m strip: 1000/60 mm along the row, 10 mm across. A 30/m
#: piece (33.3 mm) would be longer than the 25 mm pitch.
PIECE_MM = (1000.0 / 60.0, 10.0)
#: A row's turn (one row's last pixel to the next row's first) runs this far east of
#: the sensors, between the ends of the two pieces (mm).
TURN_X_MM = 8.5
#: A link longer than this many pitches is a long wire (the last cell to the camp, the
#: camp to the sarcophagus): dashed on the sheet, under the carrier.
LONG_LINK_PITCHES = 1.5
#: The round alternative: a WS2812B on a 10 mm round board, which fits the piece's
#: place (a 12 mm board would reach the sensor's hole).
ROUND_MM = 10.0


@dataclass(frozen=True)
class Room:
    """A room (or the part of one) on one side of the grid, one cell deep.

    ``first``..``last`` are the cells along that side it spans (columns on the north
    and south sides, rows on the west and east); ``slots`` are the cells along the side
    where its pads lie, in slot order.
    """

    kind: str
    side: Direction
    first: int
    last: int
    openings: tuple[int, ...]
    slots: tuple[int, ...]


@dataclass(frozen=True)
class Geometry:
    """Where the grid lies on a sheet, and how big a cell is (all mm)."""

    x: float
    y: float
    pitch: float
    columns: int
    rows: int

    def cell_box(self, row: int, col: int) -> tuple[float, float]:
        """Top-left corner of a cell (row and col may be -1 or beyond, for rooms)."""
        return (self.x + col * self.pitch, self.y + row * self.pitch)

    def centre(self, row: int, col: int) -> tuple[float, float]:
        x, y = self.cell_box(row, col)
        return (x + self.pitch / 2, y + self.pitch / 2)

    def band_cell(self, side: Direction, along: int) -> tuple[int, int]:
        """(row, col) of the room cell beside the grid at ``along`` on ``side``."""
        if side is Direction.NORTH:
            return (-1, along)
        if side is Direction.SOUTH:
            return (self.rows, along)
        if side is Direction.WEST:
            return (along, -1)
        return (along, self.columns)


def _along(maze: Maze, opening: Opening) -> int:
    row, col = divmod(opening.cell, maze.width)
    return col if opening.side in (Direction.NORTH, Direction.SOUTH) else row


def room_layout(maze: Maze, config: BoardConfig) -> list[Room]:
    """The rooms beside the grid: the sarcophagus and the camp, with their slots.

    A room lies behind its openings, spanning them; it grows, alternately to each side
    and within the grid, until it has a cell for every slot, avoiding the other room's
    cells.  Slots take the room's cells between the openings where there are enough,
    else all of them, centred.  Openings on a second side get a room part of their own.
    """
    taken: dict[Direction, set[int]] = {d: set() for d in Direction}
    rooms: list[Room] = []
    plans = (
        ("sarcophagus", maze.sarcophagus, config.sarcophagus_slots),
        ("camp", maze.start, config.camp_slots),
    )
    spans: list[tuple[str, Direction, list[int], int]] = []
    for kind, openings, slots in plans:
        sides: dict[Direction, list[int]] = {}
        for opening in openings:
            sides.setdefault(opening.side, []).append(_along(maze, opening))
        for i, (side, alongs) in enumerate(sides.items()):
            spans.append((kind, side, sorted(alongs), slots if i == 0 else 0))
            taken[side].update(range(min(alongs), max(alongs) + 1))
    for kind, side, alongs, slots in spans:
        length = maze.width if side in (Direction.NORTH, Direction.SOUTH) else maze.height
        first, last = alongs[0], alongs[-1]
        own = set(range(first, last + 1))
        others = taken[side] - own
        grow_right = True
        while last - first + 1 < slots:
            right_ok = last + 1 < length and last + 1 not in others
            left_ok = first - 1 >= 0 and first - 1 not in others
            if not (right_ok or left_ok):
                break
            if (grow_right and right_ok) or not left_ok:
                last += 1
            else:
                first -= 1
            grow_right = not grow_right
        cells = list(range(first, last + 1))
        free = [c for c in cells if c not in alongs]
        pool = free if len(free) >= slots else cells
        start = max(0, (len(pool) - slots) // 2)
        rooms.append(
            Room(kind, side, first, last, tuple(alongs), tuple(pool[start : start + slots]))
        )
    return rooms


def slot_centres(maze: Maze, config: BoardConfig, geo: Geometry) -> dict[int, tuple[float, float]]:
    """Sheet position of every pad (logical position -> centre)."""
    centres: dict[int, tuple[float, float]] = {}
    firsts = {"camp": config.cells, "sarcophagus": config.cells + config.camp_slots}
    for room in room_layout(maze, config):
        for i, along in enumerate(room.slots):
            centres[firsts[room.kind] + i] = geo.centre(*geo.band_cell(room.side, along))
    return centres


@dataclass(frozen=True)
class Place:
    """One logical position: its name, its sensor (the cell centre) and its pixel (mm)."""

    position: int
    name: str
    sensor: tuple[float, float]
    pixel: tuple[float, float]
    pixel_index: int


def pixel_centre(sensor: tuple[float, float]) -> tuple[float, float]:
    """Where the pixel of a sensor at ``sensor`` lies."""
    return (sensor[0] + PIXEL_OFFSET_MM[0], sensor[1] + PIXEL_OFFSET_MM[1])


def position_centres(
    maze: Maze, config: BoardConfig, geo: Geometry
) -> dict[int, tuple[float, float]]:
    """Every position's centre: the cells in maze order, then the pads in their rooms."""
    centres = {cell: geo.centre(*divmod(cell, maze.width)) for cell in range(config.cells)}
    centres.update(slot_centres(maze, config, geo))
    return centres


def places(maze: Maze, config: BoardConfig) -> list[Place]:
    """Every position of the board, A1's top-left corner at (0, 0), in position order."""
    geo = Geometry(0.0, 0.0, config.cell_pitch_mm, maze.width, maze.height)
    return [
        Place(
            position,
            config.position_name(position),
            xy,
            pixel_centre(xy),
            config.leds.indices[position],
        )
        for position, xy in sorted(position_centres(maze, config, geo).items())
    ]


def is_long_link(a: tuple[float, float], b: tuple[float, float], pitch: float) -> bool:
    """Whether the link between two pixels is a long wire rather than a jumper."""
    return abs(b[0] - a[0]) + abs(b[1] - a[1]) > LONG_LINK_PITCHES * pitch


def link_route(
    sensor: tuple[float, float], pixel: tuple[float, float], following: tuple[float, float]
) -> list[tuple[float, float]]:
    """The jumper's path from a pixel (its sensor at ``sensor``) to the ``following`` one:
    straight along a row; at a row's turn, east to :data:`TURN_X_MM` beside the sensor,
    along the column and back, so it never passes over the sensor."""
    (x1, y1), (x2, y2) = pixel, following
    if abs(y2 - y1) < 1e-9 or abs(x2 - x1) > 1e-9:
        return [pixel, following]
    x = sensor[0] + TURN_X_MM
    return [pixel, (x, y1), (x, y2), following]
