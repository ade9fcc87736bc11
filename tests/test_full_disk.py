"""A really full filesystem (a 16 MB tmpfs, mounted in a user namespace of its own):
every write path answers 507 in words, never 500 or a traceback; a seeker's put-down
that cannot be saved says why; the board check never says "saved" for a report it could
not write; and "storage full" clears with the next write that succeeds, whichever game
made it.  (``full_disk_worker.py`` runs the table; RLIMIT_FSIZE cases stay in
``test_storage_faults.py``.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FULL = "The Pi's storage is full: nothing was lost, but this was not saved."


def _can_mount() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k t $d"],
        capture_output=True,
        timeout=20,
    )
    return probe.returncode == 0


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    if not _can_mount():
        pytest.skip("this machine cannot mount a tmpfs in a user namespace")
    state = tmp_path_factory.mktemp("tmpfs")
    script = (
        f"mount -t tmpfs -o size=16m companion-full {state} && "
        f"exec {sys.executable} -m tests.full_disk_worker {state}"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env=env,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stdout[-3000:] + done.stderr[-3000:]
    found = json.loads(lines[-1].removeprefix("RESULT "))
    found["log"] = done.stderr
    return found


@pytest.mark.parametrize("path", ["undo", "crypt", "codes", "new_game", "lootnrun"])
def test_every_write_path_answers_507_in_words(results, path):
    answer = results[path]
    assert answer["status"] == 507, answer
    assert answer["error"].startswith(FULL), answer
    assert "Traceback" not in answer["text"]


def test_no_traceback_in_the_log(results):
    assert "Traceback" not in results["log"], results["log"][-3000:]
    assert "LookupError" not in results["log"]


def test_the_host_is_told_while_full_and_it_clears_with_the_next_write(results):
    assert results["status_full"]["ok"] is False
    assert results["status_full"]["problem"].startswith(FULL)
    # Room again: the seeker's move waiting on the board was saved by the maze, and
    # that clears "storage full" for every game, Loot N Run's too (it wrote nothing).
    assert results["after_phase"] == "seeker_card"
    assert results["status_after"]["ok"] is True, results["status_after"]
    assert results["healthz_after"] == "ok"
    assert results["lootnrun_after"]["status"] == 200


def test_a_put_down_that_cannot_be_saved_tells_the_seeker_why(results):
    assert results["put_down_phase"] == "seeker_moving"
    words = results["put_down_guidance"]
    assert words.startswith(FULL) and "waits and is saved as soon as there is room" in words


def test_the_board_check_never_says_saved_for_a_report_it_could_not_write(results):
    assert results["check_state"]["saved"] is None
    assert "report was not saved: the Pi's storage is full" in results["check_state"]["not_saved"]
    assert results["check_reports"] == []
