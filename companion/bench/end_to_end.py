"""``companion bench --only end_to_end``: a settled pin change to the LED frame and to
the SSE event an HTTP client receives from the real server, against the floor of settle
+ one scan period + one LED frame at 800 kHz.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bench.clients import SseClient, host_session
from companion.bench.figures import Figure, percentile

TARGETS = {
    "end_to_end.led_p99": "within 1.5x of the floor",
    "end_to_end.sse_p99": "within 1.5x of the floor",
}


def bench_end_to_end(quick: bool) -> list[Figure]:
    from companion.board.config import default_config_text, parse_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.webserver import Limits
    from companion.service.webthread import ServerThread
    from companion.web import create_app

    config = parse_config(default_config_text())
    maze, text = load_maze(None)
    with tempfile.TemporaryDirectory() as directory:
        app = build(config, maze, text, state_dir=Path(directory), mock=True)
        assert app.mock_board is not None
        web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
        server = ServerThread(web, limits=Limits(threads=8)).start()
        port = server.port
        _, cookie = host_session(f"http://127.0.0.1:{port}")
        client = SseClient("127.0.0.1", port, "/sim/api/stream", cookie)
        try:
            led, sse = _measure_e2e(app, client, 10 if quick else 60)
        finally:
            client.close()
            app.service.close()  # ends the live streams
            server.stop()
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


def _measure_e2e(app: Any, client: SseClient, count: int) -> tuple[list[float], list[float]]:
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
