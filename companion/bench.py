"""``companion bench``: the figures that decide whether the board feels instant.

Every figure is measured on the machine it runs on (a laptop in mock mode, or a Pi)
and printed beside what it is compared with, measured in the same run:

- engine: legal-destination queries against a plain breadth-first reference, and
  complete self-play games;
- sensors: a pin change to its occupancy event (settle excluded), the full-board scan
  against a bare loop reading the same pins;
- end to end: a settled pin change to the LED frame and to the SSE event an HTTP client
  receives from the real server, against the floor of settle + one scan period + one
  LED frame at 800 kHz;
- serial link (when the firmware link is installed): an LED frame to the simulated
  Pico over a pty, and a press to its event;
- service: idle CPU, RSS after a complete game, start-up to the first page;
- web: bytes of each page with everything it loads;
- streams: RSS over a soak of 12 phones on their live streams, and the slowest page
  while 40 phones drop off at once (``bench_streams.py``);
- attacks: the slowest page of another phone while one device holds 150 half-sent
  requests, asks for 1,100 streams, or uploads 300 MB, and what that upload wrote to
  disk (``bench_attacks.py``).
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.bench_attacks import TARGETS as ATTACK_TARGETS
from companion.bench_attacks import bench_attacks
from companion.bench_pages import TARGETS as PAGE_TARGETS
from companion.bench_pages import bench_pages
from companion.bench_streams import TARGETS as STREAM_TARGETS
from companion.bench_streams import bench_streams
from companion.games.mummy.maze import DIRECTIONS

#: Targets from the issue, printed with the figures.
TARGETS = {
    "engine.legal_destinations_per_s": "at least 5x the reference",
    "end_to_end.led_p99": "within 1.5x of the floor",
    "end_to_end.sse_p99": "within 1.5x of the floor",
    "service.idle_cpu": "under 2% of one core",
    "service.rss_after_game": "under 60 MB",
    "engine.fast_games_per_s": "at least 500 games/s",
    "mummy.think_p99.easy": "within 200 ms",
    "mummy.think_p99.normal": "within 200 ms",
    "mummy.think_p99.hard": "within 200 ms",
    **STREAM_TARGETS,
    **PAGE_TARGETS,
    **ATTACK_TARGETS,
}


@dataclass(frozen=True)
class Figure:
    key: str
    value: float
    unit: str
    reference: float | None = None
    reference_label: str = ""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference in (None, 0):
            return None
        assert self.reference is not None
        return self.value / self.reference

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": round(self.value, 6), "unit": self.unit}
        if self.reference is not None:
            out["reference"] = round(self.reference, 6)
            out["ratio"] = None if self.ratio is None else round(self.ratio, 3)
        if self.reference_label:
            out["reference_label"] = self.reference_label
        if self.note:
            out["note"] = self.note
        return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


# -- engine -----------------------------------------------------------------------------


def _timed(run: Callable[[], None]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def reference_destinations(state: Any, figure: int, steps: int) -> set[int]:
    """Breadth-first search over (cell, steps taken): the plain way to answer the query."""
    maze = state.maze
    others = {p for f, p in enumerate(state.positions) if f != figure and maze.is_cell(p)}
    start = state.positions[figure]
    seen: set[tuple[int, int]] = set()
    queue: list[tuple[int, int]] = []
    if maze.is_cell(start):
        queue.append((start, 0))
    else:
        queue += [(o.cell, 1) for o in maze.openings(start) if o.cell != state.mummy]
    ends = set()
    while queue:
        cell, taken = queue.pop(0)
        if (cell, taken) in seen:
            continue
        seen.add((cell, taken))
        if taken == steps:
            if cell not in others:
                ends.add(cell)
            continue
        for d in DIRECTIONS:
            nxt = maze.neighbour(cell, d)
            if nxt is not None and nxt != state.mummy:
                queue.append((nxt, taken + 1))
    return ends


def bench_engine(quick: bool) -> list[Figure]:
    from companion.games.mummy.dice import NUMBER_FACES
    from companion.games.mummy.engine import apply, new_game
    from companion.games.mummy.moves import legal_destinations
    from companion.games.mummy.players import MummyBot, RandomSeekerBot
    from companion.games.mummy.simulate import play_fast, play_game, setup_for, simulate
    from companion.games.mummy.views import visible_events
    from companion.mazes import load_maze

    maze, _ = load_maze(None)
    states = []  # positions from the middle of random games

    for seed in range(10 if quick else 40):
        state, events = new_game(setup_for(maze, 4, seed))
        bot, mummy = RandomSeekerBot(seed), MummyBot(state.setup)
        for i in range(200):
            if state.is_over:
                break
            command = (
                mummy.choose(state.phase, state.mummy, state.steps_left, False)
                if state.is_mummy_turn
                else bot.choose(state)
            )
            state, events = apply(state, command)
            mummy.observe(visible_events(events, "mummy"))
            if i % 20 == 0:
                states.append(state)
    queries = [(s, f, face) for s in states for f in range(4) for face in NUMBER_FACES]

    def fast_pass() -> None:
        for state, figure, face in queries:
            legal_destinations(state, figure, face)

    def reference_pass() -> None:
        for state, figure, face in queries:
            reference_destinations(state, figure, int(face))

    # Alternate the two and keep each one's best pass, so that a noisy moment on the
    # machine does not land on one side of the ratio only.
    fast_best = slow_best = float("inf")
    for _ in range(2 if quick else 5):
        fast_best = min(fast_best, _timed(fast_pass))
        slow_best = min(slow_best, _timed(reference_pass))
    fast = len(queries) / fast_best
    slow = len(queries) / slow_best
    games = 20 if quick else 200
    started = time.perf_counter()
    for seed in range(games):
        play_game(setup_for(maze, 4, seed))
    games_per_s = games / (time.perf_counter() - started)
    _, seconds = simulate(maze, 4, games)  # as `companion simulate` measures it
    fast_games_per_s = games / seconds
    played = [play_fast(setup_for(maze, 4, seed)) for seed in range(games)]
    replay_apply, replay_fast = _replay_rates(played)
    return [
        Figure(
            "engine.legal_destinations_per_s",
            fast,
            "queries/s",
            slow,
            "breadth-first reference",
        ),
        Figure("engine.self_play_games_per_s", games_per_s, "games/s", note="4 seekers, bots"),
        Figure(
            "engine.fast_games_per_s",
            fast_games_per_s,
            "games/s",
            games_per_s,
            "the same games on engine.apply",
            note="4 seekers, bots, fast path",
        ),
        Figure(
            "engine.fast_replay_games_per_s",
            replay_fast,
            "games/s",
            replay_apply,
            "the same commands on engine.apply",
            note="the engine alone: recorded 4-seeker games played again",
        ),
        *bench_think_time(quick),
    ]


def _replay_rates(played: list[Any]) -> tuple[float, float]:
    """Games a second when only the engine works: each game's commands played again on
    ``engine.apply`` and on the fast path."""
    from companion.games.mummy.engine import apply, new_game
    from companion.games.mummy.fast import FastGame

    started = time.perf_counter()
    for result in played:
        state, _ = new_game(result.state.setup)
        for command in result.commands:
            state, _ = apply(state, command)
    slow = len(played) / (time.perf_counter() - started)
    started = time.perf_counter()
    for result in played:
        game = FastGame(new_game(result.state.setup)[0])
        for command in result.commands:
            game.apply(command)
    fast = len(played) / (time.perf_counter() - started)
    return slow, fast


def bench_think_time(quick: bool) -> list[Figure]:
    """How long each level of the computer mummy thinks per decision (one core)."""
    from companion.games.mummy.computer import Level
    from companion.games.mummy.simulate import ComputerPlayer, play_fast, setup_for
    from companion.mazes import load_maze

    maze, _ = load_maze(None)
    figures = []
    for level in Level:
        times: list[float] = []
        learning: list[float] = []
        for seed in range(3 if quick else 20):
            setup = setup_for(maze, 4, 70_000 + seed)
            player = ComputerPlayer(setup, level)
            timed = _TimedDecisions(player, times, learning)
            play_fast(setup, timed)
        figures.append(
            Figure(
                f"mummy.learn_p99.{level.value}",
                percentile(learning, 99) * 1000,
                "ms",
                note="taking in one command's events (on the seekers' turns)",
            )
        )
        figures.append(
            Figure(
                f"mummy.think_p99.{level.value}",
                percentile(times, 99) * 1000,
                "ms",
                note=f"{len(times)} decisions, 4 seekers, "
                f"mean {1000 * sum(times) / len(times):.2f} ms",
            )
        )
    return figures


class _TimedDecisions:
    """A self-play mummy that notes how long each of its decisions took."""

    def __init__(self, player: Any, times: list[float], learning: list[float]) -> None:
        self.player = player
        self.times = times
        self.learning = learning

    def observe(self, events: Any) -> None:
        started = time.perf_counter()
        self.player.observe(events)
        self.learning.append(time.perf_counter() - started)

    def decide(self, game: Any) -> Any:
        view = self.player.view(game)
        started = time.perf_counter()
        command = self.player.computer.choose(view)
        self.times.append(time.perf_counter() - started)
        return command


# -- sensors ----------------------------------------------------------------------------


def bench_sensors(quick: bool) -> list[Figure]:
    from companion.board.config import default_config
    from companion.board.mock_board import MockBoard, mock_factory
    from companion.board.sensors import Sensors, open_backend

    config = default_config()
    factory = mock_factory(config)
    figures = []
    with MockBoard(config, factory) as board:
        backend = open_backend(config.sensors, pin_factory=factory)
        reads = []
        for _ in range(50 if quick else 300):
            started = time.perf_counter()
            backend.read()
            reads.append(time.perf_counter() - started)
        backend.close()
        with Sensors(config.sensors, pin_factory=factory) as sensors:
            scans = []
            for _ in range(50 if quick else 300):
                started = time.perf_counter()
                sensors.scan_once()
                scans.append(time.perf_counter() - started)
        figures.append(
            Figure(
                "sensors.scan_p50",
                percentile(scans, 50) * 1000,
                "ms",
                percentile(reads, 50) * 1000,
                "bare read of the same pins",
                f"{config.sensors.backend}, {config.sensors.count} inputs, mock pins",
            )
        )
        figures.append(Figure("sensors.scan_p99", percentile(scans, 99) * 1000, "ms"))
        latencies: list[float] = []
        arrived = threading.Event()
        stamp: list[float] = []

        def on_change(change: Any) -> None:
            stamp.append(time.perf_counter())
            arrived.set()

        settle = config.sensors.settle_ms / 1000
        with Sensors(config.sensors, pin_factory=factory, on_change=on_change) as sensors:
            sensors.prime()
            sensors.start()
            target = board.position("F6")
            for i in range(15 if quick else 100):
                arrived.clear()
                stamp.clear()
                time.sleep(0.003 * (i % 5))  # not in step with the scans
                started = time.perf_counter()
                if i % 2 == 0:
                    board.place(target)
                else:
                    board.lift(target)
                if arrived.wait(2):
                    latencies.append(stamp[0] - started - settle)
            stats = sensors.stats()
    figures.append(
        Figure(
            "sensors.event_latency_p50",
            percentile(latencies, 50) * 1000,
            "ms",
            note=f"settle ({config.sensors.settle_ms:g} ms) excluded",
        )
    )
    figures.append(Figure("sensors.event_latency_p99", percentile(latencies, 99) * 1000, "ms"))
    figures.append(Figure("sensors.settle", config.sensors.settle_ms, "ms"))
    figures.append(
        Figure(
            "sensors.scan_rate",
            float(stats.get("scan_hz") or 0.0),
            "Hz",
            float(config.sensors.scan_hz),
            "configured rate",
        )
    )
    return figures


# -- end to end -------------------------------------------------------------------------


class _SseClient:
    """A plain HTTP client reading a server-sent-event stream; stamps every event."""

    def __init__(self, host: str, port: int, path: str, cookie: str = "") -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=10)
        headers = {"Accept": "text/event-stream", "Cookie": cookie}
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self._lines():
                if raw.startswith("data: "):
                    data = json.loads(raw[6:])
                    with self.lock:
                        self.events.append((time.perf_counter(), data))
        except (OSError, ValueError, http.client.HTTPException):
            return

    def _lines(self) -> Iterator[str]:
        while True:
            line = self.response.readline()
            if not line:
                return
            yield line.decode().rstrip("\n")

    def close(self) -> None:
        self.connection.close()


def bench_end_to_end(quick: bool) -> list[Figure]:
    import waitress

    from companion.board.config import default_config_text, parse_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.web import create_app

    config = parse_config(default_config_text())
    maze, text = load_maze(None)
    with tempfile.TemporaryDirectory() as directory:
        app = build(config, maze, text, state_dir=Path(directory), mock=True)
        assert app.mock_board is not None
        web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
        server = waitress.create_server(web, host="127.0.0.1", port=0, threads=8)
        port = int(server.effective_port)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        _, cookie = _host_session(f"http://127.0.0.1:{port}")
        client = _SseClient("127.0.0.1", port, "/sim/api/stream", cookie)
        try:
            led, sse = _measure_e2e(app, client, 10 if quick else 60)
        finally:
            client.close()
            app.service.close()  # ends the live streams
            time.sleep(0.2)
            server.task_dispatcher.shutdown()
            server.close()
            app.close()
    settle = config.sensors.settle_ms / 1000
    scan = 1 / config.sensors.scan_hz
    frame = config.leds.count * 24 / 800_000 + 50e-6
    floor = (settle + scan + frame) * 1000
    label = "settle + one scan period + one LED frame at 800 kHz"
    return [
        Figure("end_to_end.led_p50", percentile(led, 50) * 1000, "ms", floor, label),
        Figure("end_to_end.led_p99", percentile(led, 99) * 1000, "ms", floor, label),
        Figure("end_to_end.sse_p50", percentile(sse, 50) * 1000, "ms", floor, label),
        Figure("end_to_end.sse_p99", percentile(sse, 99) * 1000, "ms", floor, label),
    ]


def _measure_e2e(app: Any, client: _SseClient, count: int) -> tuple[list[float], list[float]]:
    board, lights = app.mock_board, app.lights
    slot = app.service.board.camp[0]
    deadline = time.monotonic() + 5
    while not app.service.published.judgement.matches and time.monotonic() < deadline:
        time.sleep(0.01)
    led: list[float] = []
    sse: list[float] = []
    for i in range(count):
        lifting = i % 2 == 0
        time.sleep(0.02 + 0.003 * (i % 7))
        with client.lock:
            seen = len(client.events)
        started = time.perf_counter()
        (board.lift if lifting else board.place)(slot)

        def shows(scene: Any, lifting: bool = lifting) -> bool:
            return (slot in scene.missing) == lifting

        got_led = got_sse = None
        limit = time.perf_counter() + 3
        while (got_led is None or got_sse is None) and time.perf_counter() < limit:
            scene = getattr(lights, "last_scene", None)
            if got_led is None and scene is not None and shows(scene):
                got_led = lights.last_frame_perf
            if got_sse is None:
                with client.lock:
                    for at, data in client.events[seen:]:
                        if (slot in data.get("missing", [])) == lifting:
                            got_sse = at
                            break
            time.sleep(0.0005)
        if got_led is not None:
            led.append(got_led - started)
        if got_sse is not None:
            sse.append(got_sse - started)
    return led, sse


# -- service ----------------------------------------------------------------------------


def ready_port(proc: subprocess.Popen[str]) -> int:
    """The port a starting ``companion run`` logs in its "ready on HOST:PORT" line."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("companion run exited before it was ready")
        if "ready on" in line:
            return int(line.rsplit(":", 1)[1])


def _run_companion(
    state_dir: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], int, float]:
    """``companion run --mock`` on loopback (``env``: its environment): process, port,
    seconds until its first page."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "run",
            "--mock",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--state-dir",
            state_dir,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    port = ready_port(proc)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as res:
                res.read()
                break
        except OSError:
            time.sleep(0.01)
    return proc, port, time.perf_counter() - started


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def bench_service(quick: bool) -> list[Figure]:
    figures = []
    with tempfile.TemporaryDirectory() as directory:
        proc, _port, startup = _run_companion(directory)
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
        [sys.executable, "-m", "companion.bench", "--idle-worker", str(seconds)],
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
        [sys.executable, "-m", "companion.bench", "--rss-worker"],
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

    import waitress

    from companion.board.config import default_config
    from companion.board.mock_board import MockBoard
    from companion.mazes import load_maze
    from companion.service.appliance import build
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
        server = waitress.create_server(web, host="127.0.0.1", port=0, threads=8)
        threading.Thread(target=server.run, daemon=True).start()
        time.sleep(1.0)
        total = cpu_share(lambda: time.sleep(seconds))
        board = app.mock_board
        assert isinstance(board, MockBoard)
        board.lift(min(board.occupied))  # "put it back" blinks
        time.sleep(0.5)
        animating = cpu_share(lambda: time.sleep(seconds))
        app.service.close()
        server.close()
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


# -- web --------------------------------------------------------------------------------


def bench_web(quick: bool) -> list[Figure]:
    figures = []
    with tempfile.TemporaryDirectory() as directory:
        proc, port, _ = _run_companion(directory)
        try:
            opener, _ = _host_session(f"http://127.0.0.1:{port}")
            for path in _page_paths():
                total = _page_bytes(opener, f"http://127.0.0.1:{port}", path)
                if total is not None:
                    key = "web.bytes" + (path.rstrip("/").replace("/", ".") or ".root")
                    figures.append(Figure(key, total, "bytes", note=f"{path} with its assets"))
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return figures


def _page_paths() -> list[str]:
    paths = ["/sim", "/lootnrun", "/crypt", "/"]
    return paths


def _host_session(base: str) -> tuple[urllib.request.OpenerDirector, str]:
    """A client holding the host's cookie (the first device to open the companion is
    the host; ``/sim`` opens only for it), and that cookie as a header value."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(base + "/", timeout=5) as res:
        res.read()
    return opener, "; ".join(f"{c.name}={c.value}" for c in jar)


def _page_bytes(opener: urllib.request.OpenerDirector, base: str, path: str) -> int | None:
    try:
        with opener.open(base + path, timeout=5) as res:
            if res.status != 200:
                return None
            html = res.read()
    except OSError:
        return None
    total = len(html)
    for asset in sorted(set(re.findall(rb'(?:src|href)="(/[^"#?]+)"', html))):
        try:
            with opener.open(base + asset.decode(), timeout=5) as res:
                total += len(res.read())
        except OSError:
            continue
    return total


# -- serial link ------------------------------------------------------------------------


def bench_serial(quick: bool) -> list[Figure]:
    """An LED frame to the simulated Pico over a pty, and a press to its event."""
    import queue

    from companion.board.firmware_sim import SimulatedPico
    from companion.board.serial_link import SerialLink

    pixels = 152
    pico = SimulatedPico(156, pixels)
    events: queue.Queue[float] = queue.Queue()
    link = SerialLink(pico.url, on_event=lambda index, pressed, at: events.put(time.perf_counter()))
    try:
        deadline = time.monotonic() + 5
        while not link.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        transfers: list[float] = []
        wire: list[int] = []
        for i in range(20 if quick else 100):
            colour = (i % 200 + 1, (7 * i) % 256, (13 * i) % 256)
            frame = bytes(colour) * pixels
            before = link.stats()["bytes_sent"]
            started = time.perf_counter()
            link.send_frame(frame)

            def latched(lit: list[tuple[int, int, int]], c: tuple[int, int, int] = colour) -> bool:
                return lit[0] == c and lit[-1] == c

            if pico.strip.wait_for(latched, 2.0):
                transfers.append(time.perf_counter() - started)
            wire.append(link.stats()["bytes_sent"] - before)
        latencies: list[float] = []
        for i in range(30 if quick else 300):
            while not events.empty():
                events.get_nowait()
            time.sleep(0.002 * (i % 3))
            started = time.perf_counter()
            (pico.press if i % 2 == 0 else pico.release)(10)
            try:
                latencies.append(events.get(timeout=2) - started)
            except queue.Empty:
                continue
    finally:
        link.close()
        pico.close()
    frame_bytes = max(wire) if wire else 0
    usb_full_speed = frame_bytes * 8 / 12e6 * 1000
    return [
        Figure("serial.led_frame_bytes", float(frame_bytes), "bytes", note=f"{pixels} pixels"),
        Figure(
            "serial.led_frame_p50",
            percentile(transfers, 50) * 1000,
            "ms",
            usb_full_speed,
            "the same bytes at USB full speed (12 Mbit/s)",
            "host send to strip latched in the simulated firmware, over a pty",
        ),
        Figure("serial.led_frame_p99", percentile(transfers, 99) * 1000, "ms"),
        Figure(
            "serial.event_latency_p50",
            percentile(latencies, 50) * 1000,
            "ms",
            note="simulated press to the host's event, over a pty",
        ),
        Figure("serial.event_latency_p99", percentile(latencies, 99) * 1000, "ms"),
    ]


SECTIONS: dict[str, Callable[[bool], list[Figure]]] = {
    "engine": bench_engine,
    "sensors": bench_sensors,
    "end_to_end": bench_end_to_end,
    "serial": bench_serial,
    "service": bench_service,
    "web": bench_web,
    "streams": lambda quick: bench_streams(quick, _run_companion),
    "pages": bench_pages,
    "attacks": lambda quick: bench_attacks(quick, _run_companion),
    "player": lambda quick: _player("bench_player", quick),
    "player_pi": lambda quick: _player("bench_player_pi", quick),
}


def _player(name: str, quick: bool) -> list[Figure]:
    """The player's rows in real browsers (``bench_player.py``)."""
    from companion import bench_player

    figures: list[Figure] = getattr(bench_player, name)(quick)
    return figures


def bench_think_decisions(level: str, quick: bool) -> list[float]:
    """Every decision time (s) of one level of the computer mummy over a few games."""
    from companion.games.mummy.computer import Level
    from companion.games.mummy.simulate import ComputerPlayer, play_fast, setup_for
    from companion.mazes import load_maze

    maze, _ = load_maze(None)
    times: list[float] = []
    for seed in range(3 if quick else 20):
        setup = setup_for(maze, 4, 70_000 + seed)
        play_fast(setup, _TimedDecisions(ComputerPlayer(setup, Level(level)), times, []))
    return times


#: Sections run only when named (``--only player_pi``): minutes in a quarter core.
ON_REQUEST = frozenset({"player_pi"})


def run_bench(quick: bool, only: list[str] | None = None) -> list[Figure]:
    figures: list[Figure] = []
    for name, section in SECTIONS.items():
        if (only and name not in only) or (not only and name in ON_REQUEST):
            continue
        figures += section(quick)
    return figures


def report(figures: list[Figure]) -> str:
    lines = []
    for f in figures:
        text = f"{f.key:40} {f.value:12.3f} {f.unit}"
        if f.reference is not None:
            ratio = f.ratio
            text += f"   vs {f.reference:.3f} ({f.reference_label})"
            if ratio is not None:
                text += f", ratio {ratio:.2f}"
        if f.key in TARGETS:
            text += f"   [target: {TARGETS[f.key]}]"
        if f.note:
            text += f"   ({f.note})"
        lines.append(text)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--rss-worker"]:
        _rss_worker()
        return 0
    if len(args) == 2 and args[0] == "--idle-worker":
        _idle_worker(float(args[1]))
        return 0
    raise SystemExit("use `companion bench`")


if __name__ == "__main__":
    raise SystemExit(main())
