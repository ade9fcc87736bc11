"""pi-check's command channel into a qemu-system machine (tools/pi-check/box_agent.py),
served and called over a real socket: what the update steps rely on when they run a
command in the machine, wait on its log, find its process and kill it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

AGENT = Path(__file__).resolve().parents[1] / "tools/pi-check/box_agent.py"


@pytest.fixture
def address() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(AGENT), "serve", str(port)])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()


def run(address: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(AGENT), "run", address, *argv],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip


def test_a_command_gives_back_its_stdout_stderr_and_status_apart(address: str) -> None:
    done = run(address, "sh", "-c", "echo out; echo err >&2; exit 3")
    assert (done.stdout, done.stderr, done.returncode) == ("out\n", "err\n", 3)


def test_a_missing_command_is_127_with_its_name(address: str) -> None:
    done = run(address, "/no/such/command")
    assert done.returncode == 127
    assert "/no/such/command" in done.stderr


def test_output_arrives_while_the_command_runs_and_a_killed_group_is_128_plus_9(
    address: str, tmp_path: Path
) -> None:
    marker = f"600.{time.time_ns() % 10**9}"  # this test's sleep, told from any other
    log = tmp_path / "log"
    with log.open("wb") as out:
        client = subprocess.Popen(
            [sys.executable, str(AGENT), "run", address, "setsid", "sh", "-c",
             f"echo started; exec sleep {marker}"],
            stdout=out,
        )  # fmt: skip
        for _ in range(200):
            if log.read_bytes() == b"started\n":
                break
            time.sleep(0.05)
        assert log.read_bytes() == b"started\n"  # streamed, not held until the end
        pid = run(address, "pgrep", "-f", f"^sleep {marker}").stdout.split()[0]
        pgid = run(address, "ps", "-o", "pgid=", "-p", pid).stdout.strip()
        assert pgid == pid  # setsid: its own process group, as the update steps kill it
        assert run(address, "kill", "-KILL", "--", f"-{pgid}").returncode == 0
        assert client.wait(timeout=30) == 128 + 9


def test_no_agent_is_said_in_words(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys, time; sys.path.insert(0, sys.argv[1]); import box_agent;"
         "time.sleep = lambda s: None; sys.exit(box_agent.run(sys.argv[2], ['true']))",
         str(AGENT.parent), f"127.0.0.1:{port}"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 255
    assert f"no agent on 127.0.0.1:{port}" in done.stderr
