"""The simulated board is true: after a mummy step, ``/sim``'s live stream carries the
LED frame the board got for it, not the frame before (the stream used to send at the
publish, a moment before the LED thread rendered the step)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from companion.bench.clients import SseClient, host_session
from companion.games.mummy.commands import MummyStep
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.players import MummyBot, SeekerBot
from companion.games.mummy.record import command_to_json, setup_to_json
from companion.games.mummy.simulate import setup_for
from companion.games.mummy.views import visible_events
from companion.journal import Journal
from companion.mazes import load_maze
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from tests.test_service import start, wait_until


def a_game_at_the_mummys_steps(seed: int = 3) -> tuple[Any, list[Any], list[Any]]:
    """A bot game's commands up to the mummy's first steps, and the mummy's commands of
    that turn (its die, its steps, its end)."""
    maze, _ = load_maze(None)
    setup = setup_for(maze, 2, seed)
    state, events = new_game(setup)
    seeker, mummy = SeekerBot(maze), MummyBot(setup)
    mummy.observe(visible_events(events, "mummy"))
    before: list[Any] = []
    turn: list[Any] = []
    while not state.is_over:
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
            turn.append(command)
        elif turn:
            break
        else:
            command = seeker.choose(state)
            before.append(command)
        state, events = apply(state, command)
        mummy.observe(visible_events(events, "mummy"))
    return setup, before, turn


def test_a_mummy_step_appears_on_sim_with_the_new_frame(tmp_path: Path) -> None:
    setup, before, turn = a_game_at_the_mummys_steps()
    maze, text = load_maze(None)
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game = journal.new_game("mummy", setup_to_json(setup, text))
        for command in before:
            journal.append(game, command_to_json(command, maze))
    app = start(tmp_path)
    from companion.web import create_app

    web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
    server = ServerThread(web, limits=Limits(threads=4)).start()
    port = server.port
    _, cookie = host_session(f"http://127.0.0.1:{port}")
    client = SseClient("127.0.0.1", port, "/sim/api/stream", cookie)
    steps = 0
    try:
        service, lights = app.service, app.lights
        wait_until(lambda: service.published.judgement.matches and client.events)
        for command in turn:
            service.submit("mummy", command)
            if not isinstance(command, MummyStep):
                continue
            steps += 1
            cell = service.game.current.mummy
            # The frame the board got for this step: the first one showing the mummy here.
            wait_until(lambda c=cell: lights.last_scene.mummy == c)
            frame = [list(c) for c in lights.last_frame]
            assert any(frame[cell]), "the mummy's new cell is lit on the board"

            def on_sim(cell: int = cell) -> bool:
                with client.lock:
                    last = client.events[-1][1]
                return bool(any(last["leds"][cell])) and last["leds"] == [
                    list(c) for c in lights.last_frame
                ]

            wait_until(on_sim, timeout=2.0)
            time.sleep(0.05)  # the next step a little later, as a player would
    finally:
        client.close()
        app.service.close()  # ends the live streams
        server.stop()
        app.close()
    assert steps >= 1
