"""The companion command line: maze check, replay and simulate, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys

from companion.cli import main
from companion.games.mummy.commands import Announce, Move, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.record import write_record
from companion.games.mummy.simulate import play_game, setup_for


def test_maze_check_accepts_the_default_maze(tmp_path, default_maze_text, capsys):
    path = tmp_path / "pyramid.maze"
    path.write_text(default_maze_text)
    assert main(["maze", "check", str(path)]) == 0
    assert "the maze is good" in capsys.readouterr().out


def test_maze_check_names_each_problem_with_its_line(tmp_path, default_maze_text, capsys):
    lines = default_maze_text.splitlines()
    first_treasure = next(i for i, line in enumerate(lines) if line.startswith("treasure:"))
    lines[first_treasure] = "treasure: A1 purple lamp"
    lines.insert(1, "colour: gold")
    path = tmp_path / "broken.maze"
    path.write_text("\n".join(lines) + "\n")
    assert main(["maze", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2: unknown key 'colour'" in out
    assert f"{path}:{first_treasure + 2}: unknown treasure colour 'purple'" in out
    assert "missing treasures" in out


def test_maze_check_of_a_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["maze", "check", str(tmp_path / "nope.maze")]) == 1
    assert "nope.maze" in capsys.readouterr().err


def test_replay_prints_the_final_state(tmp_path, default_maze, default_maze_text, capsys):
    result = play_game(setup_for(default_maze, 2, 5))
    log = tmp_path / "game.jsonl"
    log.write_text(write_record(result.state.setup, default_maze_text, result.commands))
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"{len(result.commands)} commands replayed" in out
    assert "winner:" in out
    assert main(["replay", str(log), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["phase"] == "game_over"
    assert view["mummy_ankhs"] == result.state.mummy_ankhs


def test_replay_stops_at_the_first_rule_error_with_its_line(
    tmp_path, default_maze, default_maze_text, capsys
):
    setup = setup_for(default_maze, 2, 1)
    state, _ = new_game(setup)
    faces = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW)
    state, _ = apply(state, Roll(faces))
    state, _ = apply(state, Announce(Face.TWO))
    two_away = set(legal_destinations(state, 0, Face.TWO))
    wrong = next(c for c in range(default_maze.cell_count) if c not in two_away)
    commands = [Roll(faces), Announce(Face.TWO), Move(wrong)]
    log = tmp_path / "bad.jsonl"
    log.write_text(write_record(setup, default_maze_text, commands))
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert f"{log}:4:" in err
    assert "not exactly 2 steps" in err or "stands on" in err


def test_replay_reports_a_malformed_line(tmp_path, default_maze, default_maze_text, capsys):
    log = tmp_path / "bad.jsonl"
    text = write_record(setup_for(default_maze, 2, 1), default_maze_text, [Roll()])
    log.write_text(text + '{"cmd": "fly"}\n')
    assert main(["replay", str(log)]) == 1
    assert '(not "fly")' in capsys.readouterr().err


def test_simulate_json_has_the_documented_keys(capsys):
    assert main(["simulate", "--games", "20", "--seekers", "4", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("games", "seekers", "mummy_wins", "seeker_wins", "mean_rounds", "games_per_s"):
        assert key in out
    assert out["games"] == 20 and out["seekers"] == 4
    assert out["mummy_wins"] + out["seeker_wins"] == 20
    assert out["mean_rounds"] > 1 and out["games_per_s"] > 0


def test_simulate_is_reproducible_from_its_seed(capsys):
    main(["simulate", "--games", "5", "--seekers", "1", "--seed", "9", "--json"])
    first = json.loads(capsys.readouterr().out)
    main(["simulate", "--games", "5", "--seekers", "1", "--seed", "9", "--json"])
    second = json.loads(capsys.readouterr().out)
    for key in ("mummy_wins", "seeker_wins", "mean_rounds", "mean_commands"):
        assert first[key] == second[key]


def test_the_module_runs_as_a_command():
    done = subprocess.run(
        [sys.executable, "-m", "companion", "simulate", "--games", "2", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["games"] == 2
