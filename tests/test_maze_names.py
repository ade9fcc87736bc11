"""Names in maze files (issue 34): a maze's or a treasure's name too long, or holding
a control or text-direction character, is refused naming its line; a maze file with no
name is named after its file, and the name goes into the game's record."""

from __future__ import annotations

import pytest

from companion.cli import main
from companion.games.mummy.engine import make_setup
from companion.games.mummy.maze_file import MazeError, parse_maze
from companion.games.mummy.record import setup_from_json, setup_to_json
from companion.mazes import load_maze


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(start))


def test_a_long_name_or_a_direction_character_is_refused_at_its_line(default_maze_text):
    number = line_of(default_maze_text, "name:")
    for name, words in (
        ("P" * 61, "'name' has at most 60 characters (this one 61)"),
        (
            "Pyramid\u202e of Amenophis",
            "'name' holds a control or text-direction character (U+202E)",
        ),
    ):
        text = default_maze_text.replace("name: Pyramid of Amenophis", f"name: {name}")
        with pytest.raises(MazeError) as refused:
            parse_maze(text)
        assert [(p.line, p.message) for p in refused.value.problems] == [(number, words)]
    treasure = line_of(default_maze_text, "treasure:")
    first = default_maze_text.split("\n")[treasure - 1]
    text = default_maze_text.replace(first, first + "\x1b[2J")
    with pytest.raises(MazeError) as refused:
        parse_maze(text)
    assert refused.value.problems[0].line == treasure  # (and the colour now a card short)
    assert "control or text-direction character (U+001B)" in refused.value.problems[0].message


def test_a_nameless_maze_file_is_named_after_its_file_and_its_record_keeps_it(
    tmp_path, default_maze_text
):
    nameless = default_maze_text.replace("name: Pyramid of Amenophis\n", "")
    path = tmp_path / "Omas Keller.maze"
    path.write_text(nameless, encoding="utf-8")
    maze, text = load_maze(path)
    assert maze.name == "Omas Keller"
    record = setup_to_json(make_setup(maze, ("red", "blue")), text)
    assert setup_from_json(record).maze.name == "Omas Keller"  # the replay names it too
    # A problem further down keeps the line the maker sees in the file.
    broken = nameless.replace("treasure:", "treasur:", 1)
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(MazeError) as refused:
        load_maze(path)
    assert refused.value.problems[0].line == line_of(broken, "treasur:")


def test_a_nameless_maze_whose_file_name_will_not_do_is_refused_in_words(
    tmp_path, default_maze_text, capsys
):
    nameless = default_maze_text.replace("name: Pyramid of Amenophis\n", "")
    path = tmp_path / ("x" * 70 + ".maze")
    path.write_text(nameless, encoding="utf-8")
    assert main(["run", "--mock", "--maze", str(path), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "the file's name (the maze has no 'name:' line) has at most 60 characters" in err
