"""Crash test: SIGKILL the service at random moments of a scripted game, 20+ times.

After every restart the resumed game must equal the game after the last acknowledged
command (or the one in flight, which may have been committed just before the kill):
nothing acknowledged is ever lost.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from companion.games.mummy.commands import Move
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.players import MummyBot, SeekerBot
from companion.games.mummy.record import command_to_json
from companion.games.mummy.simulate import setup_for
from companion.games.mummy.views import visible_events
from tests.crash_worker import digest

ROOT = Path(__file__).resolve().parent.parent
KILLS = 24


def scripted_game(maze, seed: int):
    """(line for the worker, digest after it) for every command of a bot game."""
    setup = setup_for(maze, 2, seed)
    state, events = new_game(setup)
    seeker, mummy = SeekerBot(maze), MummyBot(setup)
    mummy.observe(visible_events(events, "mummy"))
    script = []
    while not state.is_over:
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
            role = "mummy"
        else:
            command = seeker.choose(state)
            role = f"seeker{state.seeker}"
        state, events = apply(state, command)
        mummy.observe(visible_events(events, "mummy"))
        if isinstance(command, Move):
            line = {"move": maze.cell_name(command.to)}
        else:
            line = {"role": role, "cmd": command_to_json(command, maze)}
        script.append((json.dumps(line), digest(state)))
    return setup, script


def start_worker(state_dir: Path) -> tuple[subprocess.Popen[str], int, str]:
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_worker", str(state_dir)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert worker.stdout is not None
    words = worker.stdout.readline().split(" ", 2)
    assert words[0] == "ready", words
    return worker, int(words[1]), words[2].strip()


def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path, default_maze):
    rng = random.Random(2026)
    setup, script = scripted_game(default_maze, seed=11)
    assert len(script) > 60
    # The worker starts its own game: begin the journal with this script's setup instead.
    from companion.games.mummy.record import setup_to_json
    from companion.journal import Journal
    from companion.mazes import load_maze

    with Journal(tmp_path / "journal.sqlite3") as journal:
        journal.new_game("mummy", setup_to_json(setup, load_maze(None)[1]))
    initial = digest(new_game(setup)[0])
    acked = 0
    kills = 0
    while kills < KILLS and acked < len(script):
        worker, resumed, state = start_worker(tmp_path)
        # The resumed game is the one after the last acknowledged command, or after
        # the one in flight when the process died (committed, not yet acknowledged).
        assert resumed in (acked, acked + 1), (resumed, acked)
        assert state == (script[resumed - 1][1] if resumed else initial)
        acked = resumed
        stop_after = rng.randint(1, 6)
        sent = 0
        assert worker.stdin is not None and worker.stdout is not None
        while sent < stop_after and acked < len(script):
            worker.stdin.write(script[acked][0] + "\n")
            worker.stdin.flush()
            sent += 1
            # Kill mid-command sometimes, right after an acknowledgement other times.
            if sent == stop_after and rng.random() < 0.5:
                break
            words = worker.stdout.readline().split(" ", 2)
            assert words[0] == "ack", words
            assert int(words[1]) == acked + 1
            assert words[2].strip() == script[acked][1]
            acked += 1
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
        kills += 1
    assert kills >= 20
    worker, resumed, state = start_worker(tmp_path)
    assert resumed in (acked, acked + 1)
    worker.stdin.close()
    worker.wait(timeout=10)
