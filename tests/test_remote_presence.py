"""Where the mummy's player far away is, on every seat's page: not come in yet,
connected, dropped (within the host's grace time) and offline after it; a stream
tells the change though the game published nothing, and a spectator's seat far away
is nobody's business but the host's."""

from __future__ import annotations

import json
import queue
import shutil
import threading
import time
from typing import Any

from companion.service.autoplay import play_on
from companion.service.mummy_service import Service
from companion.web import create_app
from companion.web.remote import SEEN_S, Remote
from tests.test_pages import KEY, Table, start, wait_until
from tests.test_remote_doors import Far, open_remote


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_presence_follows_the_far_player_through_drop_and_return() -> None:
    clock = Clock()
    far = Remote(clock)
    assert far.presence() is None
    far.open("watch")
    assert far.presence() is None  # a spectator far away: only the host page tells
    far.open("mummy", grace_s=20)
    assert far.presence() == "waiting"
    far.seen()
    assert far.presence() == "here"
    clock.now += SEEN_S + 1
    assert far.presence() == "away"  # dropped, within the grace time
    clock.now += 20
    assert far.presence() == "offline"
    far.seen()
    assert far.presence() == "here"  # back: the seat resumes as it was
    far.close()
    assert far.presence() is None


def _events(res: Any, out: queue.Queue[dict[str, Any]]) -> None:
    text = ""
    for chunk in res.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        *done, text = text.split("\n\n")
        for event in done:
            data = next((x[5:] for x in event.splitlines() if x.startswith("data:")), None)
            if data:
                out.put(json.loads(data))


def test_every_seat_page_says_the_far_mummy_is_offline_and_back(table) -> None:
    table.new_game(["red", "blue"])
    remote = table.app.extensions["companion.remote"]
    clock = Clock()
    remote.clock = clock
    opened = open_remote(table)
    opened.grace_s = 30
    seeker, board, watch = table.device("seeker0"), table.device("table"), table.device("watch")
    pages = {
        seeker: "/api/seeker/state",
        board: "/api/table/state",
        watch: "/api/watch/state",
    }

    def said() -> set[str]:
        return {json.dumps(phone.get(path).json["remote"]) for phone, path in pages.items()}

    waiting = said()
    assert len(waiting) == 1 and '"waiting"' in waiting.pop()
    far = Far(table)
    assert far.open(f"/r/{opened.token}").status_code == 303
    far.open("/api/mummy/state")
    assert far.open("/api/mummy/state").json["remote"]["state"] == "here"
    assert {json.loads(s)["state"] for s in said()} == {"here"}

    # The seeker's page is open on its stream; the mummy's phone far away drops out.
    stream = seeker.get("/api/seeker/stream", buffered=False)
    got: queue.Queue[dict[str, Any]] = queue.Queue()
    threading.Thread(target=_events, args=(stream, got), daemon=True).start()
    assert got.get(timeout=10)["remote"]["state"] == "here"
    clock.now += SEEN_S + 1
    assert got.get(timeout=10)["remote"]["state"] == "away"
    clock.now += 30
    offline = got.get(timeout=10)["remote"]
    assert offline == {
        "state": "offline",
        "standin": False,
        "text": "The mummy's player far away is offline. The game waits; nothing is forfeited.",
    }
    for phone, path in pages.items():
        assert phone.get(path).json["remote"] == offline
    german = table.device("seeker1")
    german.set_cookie("lang", "de")
    assert "offline" in german.get("/api/seeker/state").json["remote"]["text"]
    assert german.get("/api/seeker/state").json["remote"]["text"].startswith("Die Mumie")

    # Nothing was forfeited: the game waits as it was, and the mummy comes back.
    assert not far.open("/api/mummy/state").json.get("summary")
    assert got.get(timeout=10)["remote"]["state"] == "here"
    remote.close()
    assert said() == {"null"}
    assert got.get(timeout=10)["remote"] is None  # (the stream ends with the appliance)


def test_the_computer_stands_in_for_the_far_mummy_and_hands_the_seat_back(tmp_path) -> None:

    table = Table(start(tmp_path))
    try:
        table.new_game(["red", "blue"], pace=0)
        svc: Service = table.service
        opened = open_remote(table)
        far = Far(table)
        far.open(f"/r/{opened.token}")
        seeker = table.device("seeker0")
        play_on(table.appliance, until=lambda: svc.game.current.is_mummy_turn)
        # She dropped out on her turn: the host lets the computer stand in.
        stranger = table.device().post("/api/host/remote/standin", json={"level": "easy"})
        assert stranger.status_code == 403
        res = table.host.post("/api/host/remote/standin", json={"level": "easy"})
        assert res.status_code == 200 and res.json["standin"] == "easy", res.json
        said = seeker.get("/api/seeker/state").json["remote"]
        assert said["standin"] and "stands in for the mummy" in said["text"]
        wait_until(lambda: not svc.game.current.is_mummy_turn, timeout=15)  # it played
        refused = far.post("/api/mummy/command", {"cmd": "roll_mummy_die"})
        assert refused.status_code == 409
        assert "until the host hands the seat back" in refused.json["error"]
        # She is back: the host hands the seat back; her next turn is hers again.
        back = table.host.post("/api/host/remote/standin", json={"level": ""})
        assert back.json["standin"] == "" and table.appliance.computer.level is None
        assert seeker.get("/api/seeker/state").json["remote"]["standin"] is False
        play_on(table.appliance, until=lambda: svc.game.current.is_mummy_turn)
        before = len(svc.game.commands)
        time.sleep(0.5)  # (the computer would have played by now)
        assert svc.game.current.is_mummy_turn and len(svc.game.commands) == before
        assert far.post("/api/mummy/command", {"cmd": "roll_mummy_die"}).status_code != 409
        # A stand-in survives a restart of the companion.
        res = table.host.post("/api/host/remote/standin", json={"level": "hard"})
        assert res.status_code == 200
    finally:
        table.appliance.close()
    appliance = start(tmp_path)
    try:
        create_app(appliance.service, secret_key=KEY, appliance=appliance)
        assert appliance.computer.level is not None and appliance.computer.level.value == "hard"
    finally:
        appliance.close()


def test_a_restart_keeps_the_far_seat_with_its_link_and_she_resumes(tmp_path) -> None:
    from types import SimpleNamespace

    from tests.test_remote_seat import ADDRESS, fake_client

    table = Table(start(tmp_path))
    try:
        table.new_game(["red", "blue"])
        opened = open_remote(table)
        far = Far(table)
        assert far.open(f"/r/{opened.token}").status_code == 303
        play_on(table.appliance, until=lambda: table.service.game.current.is_mummy_turn)
        before = far.open("/api/mummy/state").json
        kept = tmp_path / "remote.json"
        assert kept.stat().st_mode & 0o777 == 0o600  # the link is the way in
    finally:
        table.appliance.close()  # (a power cut: nobody closed the seat)
    appliance = start(tmp_path)
    try:
        app = create_app(appliance.service, secret_key=KEY, appliance=appliance)
        remote = app.extensions["companion.remote"]
        assert remote.current is not None and remote.current.token == opened.token
        assert remote.presence() == "away"  # she dropped with the restart: the grace runs
        # The tunnel's client starts again for the kept seat (``companion run``).
        folder = tmp_path / "bin"
        fake_client(folder)
        remote.port, remote.which = 45678, lambda name: shutil.which(name, path=str(folder))
        remote.start_client()
        wait_until(lambda: remote.current.public_url == ADDRESS, timeout=5)
        remote.current.public_url = opened.public_url  # (the stand-in's edge, as before)
        # The same link seats her again, in the same game where it stood.
        again = Far(SimpleNamespace(app=app))
        assert again.open(f"/r/{opened.token}").status_code == 303
        after = again.open("/api/mummy/state").json
        assert after["guidance"] == before["guidance"] and after["log"] == before["log"]
        assert after["remote"]["state"] == "here"
        remote.close()  # the host closes it: nothing is kept, the link opens nothing
        assert not kept.exists()
        assert again.open(f"/r/{opened.token}").status_code == 503
    finally:
        remote.stop()
        appliance.close()
