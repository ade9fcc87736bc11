"""The maze file format: every problem named on its line, the maze geometry, and the
default maze as designed (docs/maze-format.md)."""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest

from companion.games.mummy.maze import (
    DIRECTIONS,
    TREASURE_COUNTS,
    Colour,
    Direction,
    Maze,
    Opening,
    mask_cells,
    parse_cell_name,
)
from companion.games.mummy.maze_file import MazeError, MazeProblem, check_maze, parse_maze

DOCS = Path(__file__).resolve().parents[1] / "docs" / "maze-format.md"

# -- a small valid maze to break on purpose ---------------------------------------------
#
# 6 columns (A-F), 4 rows (1-4); the camp lies below C4, the sarcophagus above A1 and F1.
# One treasure on every cell but C4.  The line numbers below are the file's.

START_LINE = 3
SARCOPHAGUS_LINE = 4
SPARE_LINE = 28  # a blank line before "maze:" that tests may fill
ART_LINE = 30  # the top wall; row N is drawn on line ART_LINE + 2N - 1

ART = [
    "+  +--+--+--+--+  +",  # 30: gaps above A1 and F1 (the sarcophagus)
    "|        |        |",  # 31: row 1
    "+--+  +  +  +--+  +",  # 32
    "|     |     |     |",  # 33: row 2
    "+  +--+--+  +  +--+",  # 34
    "|           |     |",  # 35: row 3
    "+  +--+  +--+  +  +",  # 36
    "|     |           |",  # 37: row 4 (B4 is a dead end, open to the west only)
    "+--+--+  +--+--+--+",  # 38: gap below C4 (the camp)
]
COLOURS = [("red", 5), ("blue", 5), ("white", 5), ("green", 4), ("yellow", 4)]
TREASURE_CELLS = [f"{c}{r}" for r in range(1, 5) for c in "ABCDEF" if f"{c}{r}" != "C4"]


def tomb_lines() -> list[str]:
    lines = [
        "# a 6x4 maze for the tests",
        "name: Test tomb",
        "start: C4 south",
        "sarcophagus: A1 north, F1 north",
    ]
    cells = iter(TREASURE_CELLS)
    for colour, count in COLOURS:
        lines += [f"treasure: {next(cells)} {colour} relic {n}" for n in range(1, count + 1)]
    lines += ["", "maze:", *ART]
    assert lines[SPARE_LINE - 1] == "" and lines[ART_LINE - 1] == ART[0]
    return lines


def tomb(changes: dict[int, str] | None = None) -> str:
    """The small maze's text with some lines (by 1-based number) replaced."""
    lines = tomb_lines()
    for number, text in (changes or {}).items():
        lines[number - 1] = text
    return "\n".join(lines) + "\n"


def treasure_line(cell: str) -> int:
    return 5 + TREASURE_CELLS.index(cell)


def assert_problems(text: str, *expected: tuple[int, str]) -> None:
    """check_maze reports exactly these problems: (line, a piece of the message)."""
    found = check_maze(text)
    assert [p.line for p in found] == [line for line, _ in expected], found
    for problem, (_, fragment) in zip(found, expected, strict=True):
        assert fragment in problem.message, found


def at(name: str) -> int:
    return parse_cell_name(name, 6, 4)


def cells(*names: str) -> int:
    mask = 0
    for name in names:
        mask |= 1 << at(name)
    return mask


@pytest.fixture(scope="module")
def tomb_maze() -> Maze:
    return parse_maze(tomb())


# -- the small maze is good, and the header is forgiving where the docs say so -----------


def test_the_small_maze_is_good():
    assert check_maze(tomb()) == []
    maze = parse_maze(tomb())
    assert (maze.width, maze.height, maze.name) == (6, 4, "Test tomb")
    assert len(maze.treasures) == 23
    assert maze.treasure_at(at("C4")) is None
    assert maze.treasure_at(at("B2")).title == "blue relic 3"


def test_comments_blank_lines_and_upper_case_keys_are_allowed():
    text = tomb(
        {
            1: "",
            2: "NAME: Tomb of Tests   # the name players see",
            START_LINE: "Start: c4 SOUTH",
            5: "treasure: a1 RED relic 1   # top left",
            SPARE_LINE: "# the wall art follows",
        }
    )
    assert check_maze(text) == []
    maze = parse_maze(text)
    assert maze.name == "Tomb of Tests"
    assert maze.start == (Opening(at("C4"), Direction.SOUTH),)
    assert maze.treasure_at(at("A1")).title == "red relic 1"


def test_the_docs_example_is_a_good_maze():
    docs = DOCS.read_text(encoding="utf-8")
    section = docs.split("## A complete example", 1)[1]
    example = re.search(r"```\n(.*?)```", section, re.S)
    assert example is not None
    assert check_maze(example.group(1)) == []
    assert parse_maze(example.group(1)).name == "Little tomb"


# -- every kind of problem, on its line ----------------------------------------------------


def test_an_unknown_key_is_named_on_its_line():
    assert_problems(tomb({1: "colour: red"}), (1, "unknown key 'colour'"))


def test_a_header_line_without_a_colon_is_a_problem():
    assert_problems(tomb({SPARE_LINE: "treasure B2 red scarab"}), (SPARE_LINE, "'key: value'"))


def test_a_second_start_line_is_a_problem():
    assert_problems(tomb({SPARE_LINE: "start: A1 north"}), (SPARE_LINE, "'start' is given twice"))


@pytest.mark.parametrize(
    ("number", "art_line", "message"),
    [
        (32, "+--+  *  +  +--+  +", "expected '+' at column 7"),
        (32, "+--+  +  +- +--+  +", "expected '--' or two spaces at column 11"),
        (33, "|     |     !     |", "expected '|' or a space at column 13"),
        (33, "|     |     |     :", "expected '|' or a space at column 19"),
    ],
)
def test_a_malformed_art_character_is_named_with_its_line_and_column(number, art_line, message):
    assert_problems(tomb({number: art_line}), (number, message))


def test_an_art_line_longer_than_the_top_wall_is_a_problem():
    problems = check_maze(tomb({35: ART[5] + "  |"}))
    assert MazeProblem(35, "line is longer than the top wall (19 characters)") in problems


def test_wall_art_with_an_even_number_of_lines_is_a_problem():
    text = tomb().rstrip("\n").rsplit("\n", 1)[0]  # the bottom wall is missing
    assert_problems(text, (ART_LINE, "odd number of lines"))


def test_a_walled_off_cell_is_named_on_the_line_of_its_row():
    assert_problems(
        tomb({37: "|  |  |           |"}), (37, "B4 cannot be reached from the start field")
    )


def test_a_duplicate_treasure_names_the_first_one():
    assert_problems(
        tomb({SPARE_LINE: "treasure: C4 Red Relic 1"}),
        (SPARE_LINE, "duplicate treasure 'red relic 1' (first on line 5)"),
    )


def test_two_treasures_on_one_cell_are_a_problem():
    assert_problems(
        tomb({SPARE_LINE: "treasure: B2 blue extra relic"}),
        (SPARE_LINE, f"B2 already holds a treasure (line {treasure_line('B2')})"),
    )


def test_wrong_colour_counts_are_reported_at_the_last_treasure_of_the_colour():
    # the last yellow treasure becomes a sixth red one
    assert_problems(
        tomb({treasure_line("F4"): "treasure: F4 red relic 6"}),
        (treasure_line("E4"), "missing treasures: 3 yellow, the game needs 4"),
        (treasure_line("F4"), "too many treasures: 6 red, the game needs 5"),
    )


def test_a_maze_without_treasures_reports_each_colour_for_the_whole_file():
    no_treasures = {treasure_line(c): "" for c in TREASURE_CELLS}
    problems = check_maze(tomb(no_treasures))
    assert [str(p) for p in problems] == [
        f"missing treasures: 0 {colour.value}, the game needs {count}"
        for colour, count in TREASURE_COUNTS.items()
    ]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            "sarcophagus: A1 north",
            [
                (SARCOPHAGUS_LINE, "the sarcophagus needs 2 openings, found 1"),
                (ART_LINE, "gap in the outer wall at F1 north"),
            ],
        ),
        (
            "sarcophagus: A1 north, F1 north, B1 north",
            [
                (SARCOPHAGUS_LINE, "the sarcophagus needs 2 openings, found 3"),
                (SARCOPHAGUS_LINE, "the outer wall is closed at B1 north"),
            ],
        ),
    ],
)
def test_the_sarcophagus_needs_exactly_two_openings(header, expected):
    assert_problems(tomb({SARCOPHAGUS_LINE: header}), *expected)


def test_the_start_needs_exactly_one_opening():
    assert_problems(
        tomb({START_LINE: "start: C4 south, A1 west"}),
        (START_LINE, "the start needs one opening, found 2"),
        (START_LINE, "the outer wall is closed at A1 west"),
    )


@pytest.mark.parametrize("opening", ["C3 south", "C2 north", "B4 west", "E4 east"])
def test_an_opening_must_be_in_the_outer_wall(opening):
    assert_problems(
        tomb({START_LINE: f"start: {opening}"}),
        (START_LINE, f"the opening at {opening} is not in the outer wall"),
        (ART_LINE + 8, "gap in the outer wall at C4 south that is neither the start nor"),
    )


def test_an_opening_must_look_like_a_cell_and_a_side():
    assert_problems(
        tomb({START_LINE: "start: C4 down"}),
        (START_LINE, "start opening 'C4 down' should look like 'E1 north'"),
        (ART_LINE + 8, "gap in the outer wall at C4 south"),
    )


def test_start_and_sarcophagus_may_not_share_an_opening():
    assert_problems(
        tomb({START_LINE: "start: A1 north"}),
        (SARCOPHAGUS_LINE, "start and sarcophagus share the opening A1 north"),
        (ART_LINE + 8, "gap in the outer wall at C4 south"),
    )


@pytest.mark.parametrize(
    ("number", "art_line", "gap"),
    [
        (33, " " + ART[3][1:], "A2 west"),
        (35, ART[5][:-1], "F3 east"),
        (30, "+  +  +--+--+--+  +", "B1 north"),
        (38, "+--+--+  +--+  +--+", "E4 south"),
    ],
)
def test_an_undeclared_gap_in_the_outer_wall_is_a_problem(number, art_line, gap):
    assert_problems(
        tomb({number: art_line}),
        (number, f"gap in the outer wall at {gap} that is neither the start nor a sarcophagus"),
    )


def test_a_declared_opening_drawn_closed_is_a_problem():
    assert_problems(
        tomb({ART_LINE + 8: "+--+--+--+--+--+--+"}),
        (START_LINE, "the outer wall is closed at C4 south: draw the opening as a gap"),
    )


@pytest.mark.parametrize(
    ("number", "line", "expected"),
    [
        (SPARE_LINE, "treasure: G1 red extra relic", "'G1' is outside the 6x4 maze (A1 to F4)"),
        (SPARE_LINE, "treasure: A5 red extra relic", "'A5' is outside the 6x4 maze (A1 to F4)"),
        (SPARE_LINE, "treasure: 4C red extra relic", "'4C' is not a cell name like 'C4'"),
        (
            SARCOPHAGUS_LINE,
            "sarcophagus: A1 north, F0 north",
            "'F0' is outside the 6x4 maze (A1 to F4)",
        ),
    ],
)
def test_a_cell_name_outside_the_maze_is_a_problem(number, line, expected):
    problems = check_maze(tomb({number: line}))
    assert MazeProblem(number, expected) in problems


def test_a_treasure_line_needs_a_cell_a_colour_and_a_name():
    assert_problems(
        tomb({SPARE_LINE: "treasure: C4 red"}), (SPARE_LINE, "should look like 'B2 red scarab'")
    )
    assert_problems(
        tomb({SPARE_LINE: "treasure: C4 purple lamp"}),
        (SPARE_LINE, "unknown treasure colour 'purple'"),
    )


def test_missing_start_sarcophagus_or_art_are_problems_of_the_whole_file():
    no_start = check_maze(tomb({START_LINE: ""}))
    assert MazeProblem(0, "no 'start:' line") in no_start
    no_sarcophagus = check_maze(tomb({SARCOPHAGUS_LINE: ""}))
    assert MazeProblem(0, "no 'sarcophagus:' line") in no_sarcophagus
    no_art = check_maze(tomb().split("maze:")[0])
    assert no_art == [MazeProblem(0, "no 'maze:' section with the wall art")]
    assert str(no_art[0]) == "no 'maze:' section with the wall art"


def test_several_problems_are_all_reported_in_line_order():
    text = tomb(
        {
            1: "colour: gold",
            treasure_line("D1"): "treasure: D9 red relic 4",
            33: "|     |     |      ",  # F2 east opened
            37: "|  |  |           |",  # B4 walled off
        }
    )
    assert_problems(
        text,
        (1, "unknown key 'colour'"),
        (treasure_line("D1"), "'D9' is outside the 6x4 maze"),
        (treasure_line("E1"), "missing treasures: 4 red"),
        (33, "gap in the outer wall at F2 east"),
        (37, "B4 cannot be reached"),
    )
    with pytest.raises(MazeError) as raised:
        parse_maze(text)
    assert isinstance(raised.value, ValueError)
    assert raised.value.problems == check_maze(text)
    assert "line 1: unknown key 'colour'" in str(raised.value)
    assert "line 37: B4 cannot be reached from the start field" in str(raised.value)


def test_a_sarcophagus_opening_given_twice_is_not_blamed_on_the_start():
    problems = check_maze(tomb({SARCOPHAGUS_LINE: "sarcophagus: A1 north, A1 north"}))
    on_line = [p.message for p in problems if p.line == SARCOPHAGUS_LINE]
    assert on_line
    assert all("start" not in m and "A1 north" in m for m in on_line)


# -- the geometry of the small maze --------------------------------------------------------


def test_neighbour_steps_through_open_sides_only(tomb_maze):
    assert tomb_maze.neighbour(at("A1"), Direction.EAST) == at("B1")
    assert tomb_maze.neighbour(at("D2"), Direction.NORTH) == at("D1")
    assert tomb_maze.neighbour(at("A1"), Direction.SOUTH) is None  # a wall
    assert tomb_maze.neighbour(at("C1"), Direction.EAST) is None  # a wall
    assert tomb_maze.neighbour(at("F4"), Direction.EAST) is None  # the outer wall
    # the openings lead into the rooms, which are no steps to a cell
    assert tomb_maze.neighbour(at("A1"), Direction.NORTH) is None
    assert tomb_maze.neighbour(at("C4"), Direction.SOUTH) is None


def test_the_rooms_lead_to_their_opening_cells(tomb_maze):
    assert tomb_maze.room_exits[tomb_maze.start_node] == cells("C4")
    assert tomb_maze.room_exits[tomb_maze.sarcophagus_node] == cells("A1", "F1")
    assert tomb_maze.cell_name(tomb_maze.start_node) == "the start field"
    assert tomb_maze.cell_name(tomb_maze.sarcophagus_node) == "the sarcophagus"


def test_reach_exactly_counts_every_step_and_allows_going_back(tomb_maze):
    start = tomb_maze.start_node
    assert tomb_maze.reach_exactly(start, 1, 0) == cells("C4")
    assert tomb_maze.reach_exactly(start, 2, 0) == cells("C3", "D4")
    assert tomb_maze.reach_exactly(start, 3, 0) == cells("B3", "D3", "C4", "E4")
    # B4 is a dead end: two steps go to A4 and back, or on to A3
    assert tomb_maze.reach_exactly(at("B4"), 2, 0) == cells("B4", "A3")
    assert tomb_maze.reach_exactly(at("B4"), 0, 0) == cells("B4")
    assert tomb_maze.reach_exactly(tomb_maze.sarcophagus_node, 1, 0) == cells("A1", "F1")


def test_reach_exactly_never_enters_nor_crosses_a_blocked_cell(tomb_maze):
    start = tomb_maze.start_node
    assert tomb_maze.reach_exactly(start, 3, cells("D4")) == cells("B3", "D3", "C4")
    assert tomb_maze.reach_exactly(start, 2, cells("C4")) == 0
    # walled in between two blocked cells, C4 cannot make a single step
    assert tomb_maze.reach_exactly(at("C4"), 1, cells("C3", "D4")) == 0


def test_slide_goes_straight_to_the_last_cell_before_an_obstacle(tomb_maze):
    assert tomb_maze.slide(at("C4"), Direction.EAST, 0) == at("F4")
    assert tomb_maze.slide(at("C4"), Direction.EAST, cells("E4")) == at("D4")
    assert tomb_maze.slide(at("E4"), Direction.NORTH, 0) == at("E2")
    assert tomb_maze.slide(at("A1"), Direction.EAST, 0) == at("C1")
    # a wall, and the opening into the camp, stop the slide at once
    assert tomb_maze.slide(at("C4"), Direction.WEST, 0) == at("C4")
    assert tomb_maze.slide(at("C4"), Direction.SOUTH, 0) == at("C4")


def test_distances_count_steps_through_the_corridors(tomb_maze):
    from_start = tomb_maze.distances_from(tomb_maze.start_node)
    assert from_start[at("C4")] == 1
    assert from_start[at("D4")] == 2
    assert from_start[at("A1")] == 8  # round by A3, A2, B2, B1
    from_sarcophagus = tomb_maze.distances_from(tomb_maze.sarcophagus_node)
    assert from_sarcophagus[at("A1")] == from_sarcophagus[at("F1")] == 1
    assert from_sarcophagus[at("C4")] == 7  # F1, F2, E2, E3, E4, D4, C4
    from_b4 = tomb_maze.distances_from(at("B4"))
    assert from_b4[at("B4")] == 0
    assert from_b4[at("C4")] == tomb_maze.distances_from(at("C4"))[at("B4")] == 5
    assert min(from_start) >= 1 and min(from_b4) >= 0


# -- the default maze, as designed ---------------------------------------------------------


def open_edges(maze: Maze) -> int:
    return sum(len(sides) for sides in maze.open_sides) // 2


def row_col(maze: Maze, cell: int) -> tuple[int, int]:
    return divmod(cell, maze.width)


def test_the_default_maze_is_good(default_maze_text):
    assert check_maze(default_maze_text) == []


def test_the_default_maze_is_the_pyramid_of_amenophis(default_maze):
    def at12(name: str) -> int:
        return parse_cell_name(name, 12, 12)

    assert (default_maze.width, default_maze.height) == (12, 12)
    assert default_maze.name == "Pyramid of Amenophis"
    assert default_maze.start == (Opening(at12("F12"), Direction.SOUTH),)
    assert default_maze.sarcophagus == (
        Opening(at12("D1"), Direction.NORTH),
        Opening(at12("I1"), Direction.NORTH),
    )


def test_the_default_maze_keeps_camp_and_sarcophagus_far_apart(default_maze):
    from_start = default_maze.distances_from(default_maze.start_node)
    for opening in default_maze.sarcophagus:
        assert from_start[opening.cell] >= 15


def test_every_cell_of_the_default_maze_can_be_reached(default_maze):
    for room in (default_maze.start_node, default_maze.sarcophagus_node):
        assert min(default_maze.distances_from(room)) >= 1


def test_the_default_maze_has_many_loops(default_maze):
    loops = open_edges(default_maze) - default_maze.cell_count + 1
    assert loops >= 25


def test_the_default_maze_is_a_maze_of_corridors_not_an_open_field(default_maze):
    maze = default_maze
    interior_sides = 2 * maze.width * maze.height - maze.width - maze.height
    walls = interior_sides - open_edges(maze)
    # 25 loops on 144 cells leave at most 96 of the 264 inner sides walled (36 %)
    assert walls / interior_sides >= 1 / 3
    # no 2x2 block of cells open on all four inner sides
    for cell in range(maze.cell_count):
        row, col = row_col(maze, cell)
        if row + 1 < maze.height and col + 1 < maze.width:
            square = (
                Direction.EAST in maze.open_sides[cell]
                and Direction.SOUTH in maze.open_sides[cell]
                and Direction.EAST in maze.open_sides[cell + maze.width]
                and Direction.SOUTH in maze.open_sides[cell + 1]
            )
            assert not square, f"open 2x2 room at {maze.cell_name(cell)}"
    dead_ends = [c for c in range(maze.cell_count) if len(maze.open_sides[c]) == 1]
    assert 6 <= len(dead_ends) <= 20


def test_the_default_maze_has_long_straight_corridors_for_the_arrow(default_maze):
    maze = default_maze
    slides = [
        abs(maze.slide(cell, d, 0) - cell) // (maze.width if d.delta[0] else 1)
        for cell in range(maze.cell_count)
        for d in DIRECTIONS
    ]
    assert max(slides) >= 6
    assert sum(1 for s in slides if s >= 4) >= 30


def test_the_default_maze_has_all_23_treasures_well_placed(default_maze):
    maze = default_maze
    counts = Counter(t.colour for t in maze.treasures)
    assert counts == Counter(TREASURE_COUNTS)
    assert len({t.title for t in maze.treasures}) == 23
    opening_cells = {o.cell for o in maze.start + maze.sarcophagus}
    assert not opening_cells & {t.cell for t in maze.treasures}
    for a, b in itertools.combinations(maze.treasures, 2):
        (ra, ca), (rb, cb) = row_col(maze, a.cell), row_col(maze, b.cell)
        assert max(abs(ra - rb), abs(ca - cb)) > 1, f"{a.title} touches {b.title}"


def test_the_default_maze_groups_each_colour_in_its_own_region(default_maze):
    maze = default_maze
    same, other = [], []
    for a, b in itertools.combinations(maze.treasures, 2):
        steps = maze.distances_from(a.cell)[b.cell]
        (same if a.colour is b.colour else other).append(steps)
    assert statistics.mean(same) < statistics.mean(other)

    # rows and columns counted from 0 (row 0 is row 1, column 0 is A)
    regions = {
        Colour.GREEN: lambda row, col: row <= 2 and (col <= 3 or col >= 8),
        Colour.RED: lambda row, col: 3 <= row <= 8 and col <= 3,
        Colour.WHITE: lambda row, col: 3 <= row <= 8 and 4 <= col <= 7,
        Colour.BLUE: lambda row, col: 3 <= row <= 8 and col >= 8,
        Colour.YELLOW: lambda row, col: row >= 9 and (col <= 3 or col >= 8),
    }
    for treasure in maze.treasures:
        row, col = row_col(maze, treasure.cell)
        assert regions[treasure.colour](row, col), (
            f"{treasure.title} on {maze.cell_name(treasure.cell)}"
        )
    # the corner colours sit in both corners of their edge
    for colour in (Colour.GREEN, Colour.YELLOW):
        columns = [row_col(maze, t.cell)[1] for t in maze.treasures if t.colour is colour]
        assert min(columns) <= 3 and max(columns) >= 8


def test_mask_cells_lists_the_cells_of_a_mask(tomb_maze):
    reach = tomb_maze.reach_exactly(tomb_maze.start_node, 3, 0)
    names = [tomb_maze.cell_name(c) for c in mask_cells(reach)]
    assert names == ["B3", "D3", "C4", "E4"]


def test_a_second_name_line_is_reported(default_maze_text):
    text = default_maze_text.replace("name: Pyramid", "name: One\nname: Pyramid", 1)
    line = text.splitlines().index("name: Pyramid of Amenophis") + 1
    assert any(p.line == line and "'name' is given twice" in p.message for p in check_maze(text))


def test_line_numbers_count_newlines_only(default_maze_text):
    text = default_maze_text.replace("name: Pyramid of", "name: Pyramid\u2028of", 1)
    text = text.replace("treasure: B4  red scarab", "treasure: B4  red beetle\ntreasure: B4 red x")
    line = text.split("\n").index("treasure: B4 red x") + 1
    assert any(p.line == line and "already holds a treasure" in p.message for p in check_maze(text))
