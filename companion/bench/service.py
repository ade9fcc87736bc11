"""``companion bench --only service``: idle CPU, RSS after a complete game, start-up to
the first page.

The in-process figures run in workers of their own (``python -m
companion.bench.service --idle-worker S`` and ``--rss-worker``), so that nothing of the
bench's own process counts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.bench.clients import run_companion
from companion.bench.figures import Figure

TARGETS = {
    "service.idle_cpu": "under 2% of one core",
    "service.rss_after_game": "under 60 MB",
}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def bench_service(quick: bool) -> list[Figure]:
    figures = []
    with tempfile.TemporaryDirectory() as directory:
        proc, _port, startup = run_companion(directory)
        try:
            time.sleep(1.0)
            seconds = 3.0 if quick else 10.0
            before = _cpu_seconds(proc.pid)
            time.sleep(seconds)
            idle = (_cpu_seconds(proc.pid) - before) / seconds * 100
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    figures.append(Figure("service.startup_to_first_page", startup * 1000, "ms"))
    figures.append(
        Figure(
            "service.idle_cpu",
            idle,
            "% of one core",
            2.0,
            "target",
            note=f"companion run --mock over {seconds:g} s, simulated board included",
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "companion.bench.service", "--idle-worker", str(seconds)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the idle worker failed:\n{done.stderr[-2000:]}")
    total, animating, floor, rates = done.stdout.split()[-4:]
    figures.append(
        Figure(
            "service.idle_cpu_in_process",
            float(total),
            "% of one core",
            float(floor),
            "a bare thread waking as often as the scan",
            note=(
                f"the appliance in one process, idle, its LEDs still; the reference wakes a "
                f"thread {rates} times a second and does nothing else: what waking alone "
                "costs here"
            ),
        )
    )
    figures.append(
        Figure(
            "service.idle_cpu_animating",
            float(animating),
            "% of one core",
            note="the same with a figure off its slot: the LEDs blink at 30 frames a second, "
            "as they do for the mummy's breath during a game",
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "companion.bench.service", "--rss-worker"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the RSS worker failed:\n{done.stderr[-2000:]}")
    rss = float(done.stdout.strip().splitlines()[-1])
    figures.append(
        Figure(
            "service.rss_after_game",
            rss,
            "MB",
            60.0,
            "target",
            note="a complete 2-seeker game on the simulated board",
        )
    )
    return figures


def _idle_worker(seconds: float) -> None:
    """The appliance in mock mode with its web server, idle (LEDs still, then blinking),
    then a bare thread waking at the scan rate: prints the three CPU shares and the rate."""
    import resource

    from companion.board.config import default_config
    from companion.board.mock_board import MockBoard
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.webserver import Limits
    from companion.service.webthread import ServerThread
    from companion.web import create_app

    def cpu_share(wait: Callable[[], None]) -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu0, t0 = usage.ru_utime + usage.ru_stime, time.monotonic()
        wait()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return (usage.ru_utime + usage.ru_stime - cpu0) / (time.monotonic() - t0) * 100

    config = default_config()
    maze, text = load_maze(None)
    with tempfile.TemporaryDirectory() as directory:
        app = build(config, maze, text, state_dir=Path(directory), mock=True)
        web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
        server = ServerThread(web, limits=Limits(threads=8)).start()
        time.sleep(1.0)
        total = cpu_share(lambda: time.sleep(seconds))
        board = app.mock_board
        assert isinstance(board, MockBoard)
        board.lift(min(board.occupied))  # "put it back" blinks
        time.sleep(0.5)
        animating = cpu_share(lambda: time.sleep(seconds))
        app.service.close()
        server.stop()
        app.close()

    stop = threading.Event()

    def wake(hz: float) -> None:
        next_at = time.monotonic()
        while not stop.is_set():
            next_at += 1.0 / hz
            time.sleep(max(0.0, next_at - time.monotonic()))  # as the scan thread sleeps

    waker = threading.Thread(target=wake, args=(config.sensors.scan_hz,))
    waker.start()
    floor = cpu_share(lambda: time.sleep(seconds))
    stop.set()
    waker.join()
    print(total, animating, floor, f"{config.sensors.scan_hz:g}")


def _rss_worker() -> None:
    from companion.board.config import default_config_text, parse_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.autoplay import play_game

    config = parse_config(default_config_text().replace("settle_ms = 91", "settle_ms = 20"))
    maze, text = load_maze(None)
    with tempfile.TemporaryDirectory() as directory:
        app = build(config, maze, text, state_dir=Path(directory), mock=True, quiet_s=0.05)
        try:
            play_game(app, ["red", "blue"])
            status = Path("/proc/self/status").read_text()
            rss_kb = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        finally:
            app.close()
    print(rss_kb / 1024)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--rss-worker"]:
        _rss_worker()
        return 0
    if len(args) == 2 and args[0] == "--idle-worker":
        _idle_worker(float(args[1]))
        return 0
    raise SystemExit("a worker of `companion bench --only service`: use `companion bench`")


if __name__ == "__main__":
    raise SystemExit(main())
