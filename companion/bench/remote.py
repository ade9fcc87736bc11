"""``companion bench --only remote``: the mummy's seat in another house, through a
tunnel provider's stand-in (``companion.tunnel.standin``: TLS, GET streams held back)
with 150 ms round trip and 2 % loss on the internet side.

- put-down -> the remote mummy's screen: a seeker's figure put down on the simulated
  board to the message on the far phone's live page (two streamed POSTs, as ``live.js``
  picks behind such an edge and ``play.js`` holds far away, each message taken from
  whichever brings it first);
- the remote mummy's step -> the table's LEDs: the step sent through the edge to the
  LED frame that shows it;
- a dropout: the edge cuts the far phone off; the time until the host page says it is
  not connected, and, once the edge is back, until a new live page has the whole state.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.bench.clients import Site
from companion.bench.figures import Figure, percentile

RTT_S = 0.150
LOSS = 0.02
#: The issue's target: p99 within the round trip + 200 ms.
TARGET_MS = RTT_S * 1000 + 200
TARGETS = {
    "remote.putdown_to_mummy_p99": f"<= {TARGET_MS:.0f} ms (RTT + 200 ms)",
    "remote.step_to_leds_p99": f"<= {TARGET_MS:.0f} ms (RTT + 200 ms)",
}


def _wait(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.002)


def bench_remote(quick: bool) -> list[Figure]:
    from companion.board.config import default_config_text, parse_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.webserver import Limits
    from companion.service.webthread import ServerThread
    from companion.tunnel.phone import Either, FarPhone
    from companion.tunnel.standin import CLOUDFLARE, Link, StandIn
    from companion.web import create_app
    from companion.web.remote import listener_app

    config = parse_config(default_config_text())
    maze, text = load_maze(None)
    count = 12 if quick else 200  # p99 of 200: not the one slowest
    with tempfile.TemporaryDirectory() as directory:
        app = build(config, maze, text, state_dir=Path(directory), mock=True)
        web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
        table = ServerThread(web, limits=Limits(threads=8)).start()
        tunnel = ServerThread(listener_app(web), limits=Limits(threads=8), name="tunnel").start()
        edge = StandIn(tunnel.port, CLOUDFLARE, path=Link(RTT_S, LOSS, seed=38)).start()
        remote = web.extensions["companion.remote"]
        try:
            site = Site(table.port)
            site.host_post("/api/host/game", {"colours": ["red", "blue"]})
            opened = remote.open("mummy", provider="cloudflare")
            opened.public_url = edge.url
            phone = FarPhone(edge.url)
            phone.join(opened.link)
            page = Either(phone, "/api/mummy/stream", "post")
            _wait(page.messages)
            putdowns, steps = _play(app, phone, page, count)
            page.close()
            notice, resume = _dropout(remote, edge, phone, Either)
        finally:
            edge.stop()
            app.service.close()
            tunnel.stop(check=False)
            table.stop(check=False)
            app.close()
    note = f"{RTT_S * 1000:.0f} ms RTT, {LOSS:.0%} loss, stand-in edge"
    return [
        Figure("remote.putdown_to_mummy_p50", percentile(putdowns, 50), "ms", note=note),
        Figure("remote.putdown_to_mummy_p99", percentile(putdowns, 99), "ms", note=note),
        Figure("remote.step_to_leds_p50", percentile(steps, 50), "ms", note=note),
        Figure("remote.step_to_leds_p99", percentile(steps, 99), "ms", note=note),
        Figure("remote.drop_noticed", notice, "s", note="edge cuts the phone off"),
        Figure("remote.resume", resume, "s", note="edge back -> whole state on a new page"),
    ]


def _play(app: Any, phone: Any, page: Any, count: int) -> tuple[list[float], list[float]]:
    """Bots play; each seeker put-down and each remote mummy step is timed."""
    from companion.games.mummy.commands import Move
    from companion.games.mummy.players import MummyBot, SeekerBot
    from companion.games.mummy.record import command_to_json
    from companion.games.mummy.state import Phase
    from companion.games.mummy.views import visible_events
    from companion.service.autoplay import put_board_right

    service, board, lights = app.service, app.mock_board, app.lights
    putdowns: list[float] = []
    steps: list[float] = []
    while len(putdowns) < count or len(steps) < count:
        put_board_right(app)
        setup = service.game.setup
        seekers, mummy = SeekerBot(setup.maze), MummyBot(setup)
        mummy.observe(visible_events(service.game.last_events, "mummy"))
        for _ in range(5000):
            state = service.game.current
            if state.is_over or (len(putdowns) >= count and len(steps) >= count):
                break
            if not service.published.judgement.matches:
                put_board_right(app)
                continue
            if state.is_mummy_turn:
                command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
                body = command_to_json(command, setup.maze)
                scene = lights.last_scene
                started = time.perf_counter()
                status, _, _ = phone.call_twice("/api/mummy/command", body)
                if status != 200:
                    raise RuntimeError(f"the remote mummy's {body} was refused: {status}")
                if body["cmd"] == "mummy_step" and _wait(_changed(lights, scene)):
                    steps.append((lights.last_frame_perf - started) * 1000)
                events = list(service.published.events)
            else:
                command = seekers.choose(state)
                home = service.board.position_of(state, state.figure)
                if isinstance(command, Move) and command.to != home:
                    board.lift(home)
                    time.sleep(0.3)  # the lift settled: only the put-down is timed
                    seen = len(page.messages())
                    started = time.perf_counter()
                    board.place(command.to)
                    _wait(lambda: service.game.current.phase is not Phase.SEEKER_MOVING)
                    if _wait(_more(page, seen)):
                        putdowns.append((page.got[seen][0] - started) * 1000)
                    events = list(service.published.events)
                else:
                    events = service.submit(f"seeker{state.seeker}", command)
            mummy.observe(visible_events(events, "mummy"))
        if service.game.current.is_over:
            service.new_game(["red", "blue"])
    return putdowns, steps


def _changed(lights: Any, scene: Any) -> Callable[[], bool]:
    return lambda: lights.last_scene is not scene


def _more(page: Any, seen: int) -> Callable[[], bool]:
    return lambda: len(page.messages()) > seen


def _dropout(remote: Any, edge: Any, phone: Any, messages: Any) -> tuple[float, float]:
    """Seconds until a dropped far phone shows as not connected; and, once the edge is
    back, until a new live page there has the whole state."""
    page = messages(phone, "/api/mummy/stream", "post")
    _wait(page.messages)
    _wait(remote.connected)
    started = time.perf_counter()
    edge.drop()
    _wait(lambda: not remote.connected(), timeout=60)
    notice = time.perf_counter() - started
    page.close()
    edge.drop(False)
    started = time.perf_counter()
    again = messages(phone, "/api/mummy/stream", "post")
    _wait(lambda: again.messages() and json.dumps(again.messages()[0]).count('"maze"'))
    resume = time.perf_counter() - started
    again.close()
    return notice, resume
