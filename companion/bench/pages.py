"""``companion bench`` rows for page weight: the bytes a phone receives over a game.

A mock companion behind waitress on loopback (as ``companion run`` serves it); the
table's phones join the way phones do (the mummy, the table screen, every seeker), each
loads its page once (HTML, scripts, styles, the language catalog, its first state) and
keeps its live stream open while the bots play one complete game on the simulated board.

``pages.weight_per_phone`` is the mean of those bytes per phone.  ``..._unslimmed`` is
what the same phones would have received had every stream message carried its whole
payload, as streams did before: each message is rebuilt as the page rebuilds it (the
maze of the stream's first message, the announcements whole) and weighed as the server
writes it.  ``pages.weight_ratio`` is the one over the other (target: halved).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from companion.bench.clients import Reader, Site
from companion.bench.figures import Figure

TARGETS = {"pages.weight_ratio": "at most 0.5 (the page weight halved)"}
#: Each phone: its seat, page and stream.
PHONES = [
    ("mummy", "/mummy", "/api/mummy/stream", "/api/mummy/state"),
    ("table", "/table", "/api/table/stream", "/api/table/state"),
    ("seeker0", "/seeker", "/api/seeker/stream", "/api/seeker/state"),
    ("seeker1", "/seeker", "/api/seeker/stream", "/api/seeker/state"),
    ("seeker2", "/seeker", "/api/seeker/stream", "/api/seeker/state"),
    ("seeker3", "/seeker", "/api/seeker/stream", "/api/seeker/state"),
]
ASSET = re.compile(r'(?:src|href)="(/[^"]+\.(?:js|css)[^"]*)"')


def _page_bytes(site: Site, seat: str, page: str, state: str) -> int:
    """One page load as a phone does it: the HTML, its scripts and styles, its state."""
    cookie = site.cookies[seat]

    def get(path: str) -> bytes:
        request = urllib.request.Request(site.base + path, headers={"Cookie": cookie})
        with urllib.request.urlopen(request, timeout=30) as res:
            body: bytes = res.read()
            return body

    html = get(page)
    total = len(html) + len(get(state))
    for asset in sorted(set(ASSET.findall(html.decode()))):
        total += len(get(asset))
    return total


def _unslimmed(texts: list[bytes]) -> int:
    """The bytes of a stream's messages had each carried the whole payload: the maze
    put back into every ``view`` and the announcements whole, as the page rebuilds them."""
    total = 0
    maze: Any = None
    log: list[Any] = []
    for text in texts:
        payload = json.loads(text.split(b"data:", 1)[1])
        view = payload.get("view")
        if isinstance(view, dict):
            maze = view.setdefault("maze", maze)
        if "log_keep" in payload:
            payload["log"] = log[len(log) - payload.pop("log_keep") :] + payload["log"]
        log = payload.get("log", log)
        total += len(f"data: {json.dumps(payload)}\n\n")
    return total


def bench_pages(quick: bool) -> list[Any]:
    from companion.board.config import default_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.autoplay import play_game
    from companion.service.webserver import Limits
    from companion.service.webthread import ServerThread
    from companion.web import create_app

    pace_s = 0.03 if quick else 0.2
    with tempfile.TemporaryDirectory() as directory:
        maze, text = load_maze(None)
        app = build(default_config(), maze, text, state_dir=Path(directory), mock=True)
        web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
        server = ServerThread(web, limits=Limits(threads=16)).start()
        try:
            site = Site(server.port)
            colours = list(web.extensions["companion.seats"].table.colours)
            pages = [_page_bytes(site, seat, page, state) for seat, page, _, state in PHONES]
            socks = [site.open_stream(seat, stream) for seat, _, stream, _ in PHONES]
            reader = Reader(socks, keep_texts=True)
            try:
                moves = play_game(app, colours, pace=lambda: time.sleep(pace_s))
                time.sleep(1.0)  # the last messages reach every phone
            finally:
                reader.close()
                for sock in socks:
                    sock.close()
        finally:
            app.service.close()  # ends the live streams
            server.stop()
            app.close()
    streams = [sum(reader.messages[s]) for s in socks]
    texts = reader.texts or {}
    unslimmed = [_unslimmed(texts[s]) for s in socks]
    phones = len(PHONES)
    weight = (sum(pages) + sum(streams)) / phones / 1000
    old = (sum(pages) + sum(unslimmed)) / phones / 1000
    messages = sum(len(texts[s]) for s in socks)
    note = f"{phones} phones, one four-seeker bot game ({moves} figure moves, {messages} messages)"
    return [
        Figure("pages.weight_per_phone", weight, "kB", note=note),
        Figure(
            "pages.weight_per_phone_unslimmed",
            old,
            "kB",
            note="the same messages whole: the maze and all announcements in each",
        ),
        Figure("pages.weight_ratio", weight / old, "ratio", 0.5, "target", note=note),
        Figure("pages.page_load", sum(pages) / phones / 1000, "kB", note="one load per phone"),
    ]
