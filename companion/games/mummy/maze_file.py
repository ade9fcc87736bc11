"""The plain-text maze format: parse it, and name every problem with its line.

The format is documented in docs/maze-format.md.  In short::

    # comment
    name: Pyramid of Amenophis
    start: F12 south            # the camp lies beyond the south wall of F12
    sarcophagus: E1 north, H1 north
    treasure: B2 red scarab
    maze:
    +--+--+--+ ...
    |  |     | ...
    +  +--+  + ...

Wall art: every cell is two characters wide; ``+`` at every corner, ``--`` or
``|`` for a wall, spaces for an open side.  The outer wall is closed except at the
openings of the start field and the sarcophagus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.games.text import MAX_MAZE_NAME, unfit_character

from .maze import (
    DIRECTIONS,
    TREASURE_COUNTS,
    Colour,
    Direction,
    Maze,
    Opening,
    Treasure,
    parse_cell_name,
)

MAX_SIDE = 26


@dataclass(frozen=True)
class MazeProblem:
    """One thing wrong with a maze file, at a 1-based line number (0: the whole file)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class MazeError(ValueError):
    """A maze file that cannot be used; ``problems`` lists every problem found."""

    def __init__(self, problems: list[MazeProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


def parse_maze(text: str) -> Maze:
    """Parse and validate a maze file; raise MazeError listing every problem."""
    maze, problems = _parse(text)
    if problems or maze is None:
        raise MazeError(problems or [MazeProblem(0, "empty maze file")])
    return maze


def with_name(text: str, fallback: str) -> str:
    """A maze file's text with a name: its own, or else ``fallback`` (its file's name)
    written in as line 1, so that the record, the pages and the statistics all carry
    it.  MazeError if the file's name is no name a page may show either."""
    header = _read_header(text, [])
    if header.name_line:
        return text
    problems = _name_problems(1, "the file's name (the maze has no 'name:' line)", fallback)
    if not fallback.strip():
        problems.append(
            MazeProblem(1, "the maze has no 'name:' line: add one, e.g. 'name: My maze'")
        )
    if problems:
        raise MazeError(problems)
    return f"name: {fallback.strip()}\n{text}"


def check_maze(text: str) -> list[MazeProblem]:
    """Every problem of a maze file, in line order (an empty list: the maze is good)."""
    return _parse(text)[1]


@dataclass
class _Header:
    name: str = "unnamed maze"
    name_line: int = 0
    start: list[tuple[int, str]] | None = None  # (line, text)
    sarcophagus: list[tuple[int, str]] | None = None
    start_line: int = 0
    sarcophagus_line: int = 0
    treasures: list[tuple[int, str]] | None = None
    art: list[str] | None = None
    art_line: int = 0


def _parse(text: str) -> tuple[Maze | None, list[MazeProblem]]:
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    problems: list[MazeProblem] = []
    header = _read_header(text, problems)
    if header.art is None:
        problems.append(MazeProblem(0, "no 'maze:' section with the wall art"))
        return None, _sorted(problems)
    grid = _read_art(header.art, header.art_line, problems)
    if grid is None:
        return None, _sorted(problems)
    width, height, open_sides, border_gaps = grid

    def cell_of(line: int, name: str) -> int | None:
        try:
            return parse_cell_name(name, width, height)
        except ValueError as exc:
            problems.append(MazeProblem(line, str(exc)))
            return None

    start = _read_openings("start", header.start, header.start_line, 1, cell_of, problems)
    sarc = _read_openings(
        "sarcophagus", header.sarcophagus, header.sarcophagus_line, 2, cell_of, problems
    )
    for opening, line in start + sarc:
        row, col = divmod(opening.cell, width)
        if not _on_edge(row, col, opening.side, width, height):
            problems.append(
                MazeProblem(
                    line,
                    f"the opening at {_name(opening.cell, width)} {opening.side.value} "
                    "is not in the outer wall",
                )
            )
    declared: dict[tuple[int, Direction], int] = {}
    owner: dict[tuple[int, Direction], str] = {}
    for room, openings in (("start", start), ("sarcophagus", sarc)):
        for opening, line in openings:
            key = (opening.cell, opening.side)
            where = f"{_name(opening.cell, width)} {opening.side.value}"
            if key not in declared:
                declared[key], owner[key] = line, room
            elif owner[key] == room:
                problems.append(MazeProblem(line, f"the {room} opening {where} is given twice"))
            else:
                problems.append(
                    MazeProblem(line, f"start and sarcophagus share the opening {where}")
                )
    for cell, side in sorted(border_gaps, key=lambda g: (g[0], g[1].value)):
        if (cell, side) not in declared:
            row = cell // width
            problems.append(
                MazeProblem(
                    _art_line(header.art_line, row, side),
                    f"gap in the outer wall at {_name(cell, width)} {side.value} "
                    "that is neither the start nor a sarcophagus opening",
                )
            )
    for (cell, side), line in declared.items():
        row, col = divmod(cell, width)
        if _on_edge(row, col, side, width, height) and (cell, side) not in border_gaps:
            problems.append(
                MazeProblem(
                    line,
                    f"the outer wall is closed at {_name(cell, width)} {side.value}: "
                    "draw the opening as a gap",
                )
            )

    treasures = _read_treasures(header.treasures or [], cell_of, problems)
    maze = Maze(
        width=width,
        height=height,
        open_sides=tuple(frozenset(s) for s in open_sides),
        start=tuple(o for o, _ in start),
        sarcophagus=tuple(o for o, _ in sarc),
        treasures=tuple(treasures),
        name=header.name,
    )
    if start:
        _check_reachable(maze, header.art_line, problems)
    return maze, _sorted(problems)


def _sorted(problems: list[MazeProblem]) -> list[MazeProblem]:
    return sorted(problems, key=lambda p: p.line)


def _name(cell: int, width: int) -> str:
    row, col = divmod(cell, width)
    return f"{chr(ord('A') + col)}{row + 1}"


def _on_edge(row: int, col: int, side: Direction, width: int, height: int) -> bool:
    return (
        (side is Direction.NORTH and row == 0)
        or (side is Direction.SOUTH and row == height - 1)
        or (side is Direction.WEST and col == 0)
        or (side is Direction.EAST and col == width - 1)
    )


def _name_problems(number: int, what: str, name: str) -> list[MazeProblem]:
    """A maze's or a treasure's name that no page may show: too long, or with a control
    or text-direction character."""
    problems = []
    if len(name) > MAX_MAZE_NAME:
        problems.append(
            MazeProblem(
                number, f"{what} has at most {MAX_MAZE_NAME} characters (this one {len(name)})"
            )
        )
    bad = unfit_character(name)
    if bad is not None:
        problems.append(
            MazeProblem(number, f"{what} holds a control or text-direction character ({bad})")
        )
    return problems


def _art_line(first: int, row: int, side: Direction | None = None) -> int:
    """File line of a cell row in the art (its side walls), or of its north/south wall."""
    if side is Direction.NORTH:
        return first + 2 * row
    if side is Direction.SOUTH:
        return first + 2 * row + 2
    return first + 2 * row + 1


def _read_header(text: str, problems: list[MazeProblem]) -> _Header:
    header = _Header(treasures=[])
    # Only newlines end a line: str.splitlines() would also split at form feeds and
    # U+2028 and shift every line number after them.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for index, raw in enumerate(lines):
        number = index + 1
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        value = value.strip()
        if not sep:
            problems.append(MazeProblem(number, f"expected 'key: value', got {line!r}"))
            continue
        if key == "maze":
            header.art = [a.rstrip() for a in lines[index + 1 :]]
            while header.art and not header.art[-1]:
                header.art.pop()
            header.art_line = number + 1
            break
        if key == "name":
            if header.name_line:
                problems.append(
                    MazeProblem(number, f"'name' is given twice (first on line {header.name_line})")
                )
            header.name = value or header.name
            header.name_line = number
            problems.extend(_name_problems(number, "'name'", value))
        elif key in ("start", "sarcophagus"):
            if getattr(header, key) is not None:
                problems.append(MazeProblem(number, f"'{key}' is given twice"))
                continue
            parts = [(number, p.strip()) for p in value.split(",") if p.strip()]
            setattr(header, key, parts)
            setattr(header, f"{key}_line", number)
        elif key == "treasure":
            assert header.treasures is not None
            header.treasures.append((number, value))
        else:
            problems.append(
                MazeProblem(
                    number,
                    f"unknown key {key!r} (expected name, start, sarcophagus, treasure, maze)",
                )
            )
    return header


def _read_art(
    art: list[str], first: int, problems: list[MazeProblem]
) -> tuple[int, int, list[set[Direction]], set[tuple[int, Direction]]] | None:
    if len(art) < 3 or len(art) % 2 == 0:
        problems.append(
            MazeProblem(
                first, "the wall art needs an odd number of lines: a wall line around every row"
            )
        )
        return None
    top = art[0]
    if len(top) < 4 or (len(top) - 1) % 3 or not top.startswith("+"):
        problems.append(
            MazeProblem(first, "the top wall line must look like '+--+--+' (3 characters a cell)")
        )
        return None
    width = (len(top) - 1) // 3
    height = (len(art) - 1) // 2
    if width > MAX_SIDE or height > MAX_SIDE:
        problems.append(MazeProblem(first, f"the maze may be at most {MAX_SIDE}x{MAX_SIDE} cells"))
        return None
    open_sides: list[set[Direction]] = [set() for _ in range(width * height)]
    gaps: set[tuple[int, Direction]] = set()
    span = 3 * width + 1
    for i, raw in enumerate(art):
        number = first + i
        line = raw.ljust(span)
        if len(line) > span:
            problems.append(
                MazeProblem(number, f"line is longer than the top wall ({span} characters)")
            )
            line = line[:span]
        if i % 2 == 0:  # wall line above row i//2
            row = i // 2
            for col in range(width):
                corner = line[3 * col]
                seg = line[3 * col + 1 : 3 * col + 3]
                if corner != "+":
                    problems.append(MazeProblem(number, f"expected '+' at column {3 * col + 1}"))
                if seg not in ("--", "  "):
                    problems.append(
                        MazeProblem(number, f"expected '--' or two spaces at column {3 * col + 2}")
                    )
                    continue
                is_open = seg == "  "
                if not is_open:
                    continue
                if row == 0:
                    gaps.add((col, Direction.NORTH))
                elif row == height:
                    gaps.add(((height - 1) * width + col, Direction.SOUTH))
                else:
                    below = row * width + col
                    open_sides[below].add(Direction.NORTH)
                    open_sides[below - width].add(Direction.SOUTH)
            if line[3 * width] != "+":
                problems.append(MazeProblem(number, f"expected '+' at column {span}"))
        else:
            row = i // 2
            for col in range(width + 1):
                ch = line[3 * col]
                if ch not in ("|", " "):
                    problems.append(
                        MazeProblem(number, f"expected '|' or a space at column {3 * col + 1}")
                    )
                    continue
                if ch == "|":
                    continue
                if col == 0:
                    gaps.add((row * width, Direction.WEST))
                elif col == width:
                    gaps.add((row * width + width - 1, Direction.EAST))
                else:
                    right = row * width + col
                    open_sides[right].add(Direction.WEST)
                    open_sides[right - 1].add(Direction.EAST)
    return width, height, open_sides, gaps


def _read_openings(
    what: str,
    parts: list[tuple[int, str]] | None,
    line: int,
    wanted: int,
    cell_of: Callable[[int, str], int | None],
    problems: list[MazeProblem],
) -> list[tuple[Opening, int]]:
    if parts is None:
        problems.append(MazeProblem(0, f"no '{what}:' line"))
        return []
    openings: list[tuple[Opening, int]] = []
    for number, part in parts:
        words = part.split()
        if len(words) != 2 or words[1].lower() not in {d.value for d in DIRECTIONS}:
            problems.append(
                MazeProblem(number, f"{what} opening {part!r} should look like 'E1 north'")
            )
            continue
        cell = cell_of(number, words[0])
        if cell is not None:
            openings.append((Opening(cell, Direction(words[1].lower())), number))
    if len(parts) != wanted:
        noun = "one opening" if wanted == 1 else f"{wanted} openings"
        problems.append(MazeProblem(line, f"the {what} needs {noun}, found {len(parts)}"))
    return openings


def _read_treasures(
    entries: list[tuple[int, str]],
    cell_of: Callable[[int, str], int | None],
    problems: list[MazeProblem],
) -> list[Treasure]:
    treasures: list[Treasure] = []
    seen_title: dict[str, int] = {}
    seen_cell: dict[int, int] = {}
    last_line: dict[Colour, int] = {}
    colours = {c.value: c for c in Colour}
    for number, value in entries:
        words = value.split()
        if len(words) < 3:
            problems.append(
                MazeProblem(number, f"treasure {value!r} should look like 'B2 red scarab'")
            )
            continue
        colour = colours.get(words[1].lower())
        if colour is None:
            problems.append(
                MazeProblem(
                    number,
                    f"unknown treasure colour {words[1]!r} (red, blue, white, green, yellow)",
                )
            )
            continue
        cell = cell_of(number, words[0])
        if cell is None:
            continue
        name = " ".join(words[2:])
        found = _name_problems(number, "the treasure's name", name)
        if found:
            problems.extend(found)
            continue
        title = f"{colour.value} {name}".lower()
        if title in seen_title:
            problems.append(
                MazeProblem(
                    number, f"duplicate treasure {title!r} (first on line {seen_title[title]})"
                )
            )
            continue
        if cell in seen_cell:
            problems.append(
                MazeProblem(
                    number,
                    f"{words[0].upper()} already holds a treasure (line {seen_cell[cell]})",
                )
            )
            continue
        seen_title[title] = number
        seen_cell[cell] = number
        last_line[colour] = number
        treasures.append(Treasure(cell, colour, name))
    for colour, wanted in TREASURE_COUNTS.items():
        count = sum(1 for t in treasures if t.colour is colour)
        if count < wanted:
            problems.append(
                MazeProblem(
                    last_line.get(colour, 0),
                    f"missing treasures: {count} {colour.value}, the game needs {wanted}",
                )
            )
        elif count > wanted:
            problems.append(
                MazeProblem(
                    last_line[colour],
                    f"too many treasures: {count} {colour.value}, the game needs {wanted}",
                )
            )
    return treasures


def _check_reachable(maze: Maze, art_line: int, problems: list[MazeProblem]) -> None:
    dist = maze.distances_from(maze.start_node)
    for cell, d in enumerate(dist):
        if d < 0:
            problems.append(
                MazeProblem(
                    _art_line(art_line, cell // maze.width),
                    f"{maze.cell_name(cell)} cannot be reached from the start field",
                )
            )
