"""``companion bench`` rows for the live streams: a soak and a crowd of dropped phones.

Both run ``companion run --mock`` in its own process on loopback, seat phones the way
a phone does (the host sets up a game, each phone opens its seat's link and confirms),
and read the server from outside: its RSS and threads in ``/proc``, the time a page
takes.

- soak: 12 phones on their streams (the mummy, the table, four seekers, the watching
  seat on Loot N Run and the crypt, some seats on two phones) while the bots play maze
  games at a command a second (figures moved on the simulated board; a server of
  ``companion run``'s shape in a process of its own, ``--server``); the highest RSS
  after the first minute less RSS at the first minute (10 minutes; ``--quick``: 12 s,
  the first 4 s left out), and the bytes of the stream messages after each's first;
- dropped: 40 phones open their streams and vanish at once (their sockets reset);
  the slowest of ``/healthz`` and a page in the seconds after.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.bench.clients import Reader, Site, answered, phone_address
from companion.bench.figures import Figure

#: The figures' targets, printed beside them.
TARGETS = {
    "streams.soak_rss_growth": "under 5 MB after the first minute",
    "streams.dropped_worst_page": "under 1000 ms",
}

#: Each phone's seat and stream.
PHONES = [
    ("mummy", "/api/mummy/stream"),
    ("table", "/api/table/stream"),
    ("seeker0", "/api/seeker/stream"),
    ("seeker1", "/api/seeker/stream"),
    ("seeker2", "/api/seeker/stream"),
    ("seeker3", "/api/seeker/stream"),
    ("watch", "/lootnrun/api/stream"),
    ("watch", "/crypt/api/stream"),
    ("table", "/api/table/stream"),
    ("seeker0", "/api/seeker/stream"),
    ("mummy", "/api/mummy/stream"),
    ("watch", "/crypt/api/stream"),
]
DROPPED = 40


def _rss_mb(pid: int) -> float:
    found = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    return float(found.group(1)) / 1024 if found else 0.0


def bench_streams(quick: bool, run_companion: Callable[[str], tuple[Any, int, float]]) -> list[Any]:
    """The soak and the dropped phones, each in a fresh companion."""
    figures: list[Figure] = []
    soak_s, settle_s = (12.0, 4.0) if quick else (600.0, 60.0)
    with tempfile.TemporaryDirectory() as directory:
        proc, port = _playing_server(directory)
        try:
            site = Site(port)
            socks = [
                site.open_stream(seat, path, phone_address(i))
                for i, (seat, path) in enumerate(PHONES)
            ]
            reader = Reader(socks)
            rss: list[tuple[float, float]] = []
            started = time.monotonic()
            flips = 0
            try:
                assert proc.stdin is not None
                proc.stdin.write("play\n")  # the bots play, a command a second
                proc.stdin.flush()
                while time.monotonic() - started < soak_s:
                    flips += 1
                    rss.append((time.monotonic() - started, _rss_mb(proc.pid)))
                    time.sleep(max(0.0, started + flips - time.monotonic()))
            finally:
                reader.close()
                for sock in socks:
                    sock.close()
            later = [mb for at, mb in rss if at >= settle_s]
            growth = max(later) - later[0]  # the peak: never below 0
            sizes = [n for counts in reader.messages.values() for n in counts[1:]]
            firsts = [counts[0] for counts in reader.messages.values() if counts]
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    soak_note = f"12 phones, the bots play a command a second, {soak_s:g} s"
    figures += [
        Figure(
            "streams.soak_rss_growth",
            growth,
            "MB",
            5.0,
            "target",
            note=f"{soak_note}: the highest RSS after {settle_s:g} s less RSS at {settle_s:g} s",
        ),
        Figure("streams.soak_rss_end", rss[-1][1], "MB", note=soak_note),
        Figure(
            "streams.message_bytes",
            sum(sizes) / max(1, len(sizes)),
            "bytes",
            note=f"mean of {len(sizes)} stream messages after each stream's first",
        ),
        Figure(
            "streams.first_message_bytes",
            sum(firsts) / max(1, len(firsts)),
            "bytes",
            note="mean first message (it carries the maze)",
        ),
    ]
    figures += _dropped(run_companion, quick)
    return figures


def _dropped(run_companion: Callable[[str], tuple[Any, int, float]], quick: bool) -> list[Any]:
    watch_s = 3.0 if quick else 30.0
    with tempfile.TemporaryDirectory() as directory:
        proc, port, _ = run_companion(directory)
        try:
            site = Site(port)
            table_cookie = site.cookies["table"]
            calm = max(site.page_ms("/healthz"), site.page_ms("/table", table_cookie))
            socks = [
                site.request_stream(*PHONES[i % len(PHONES)], phone_address(i))
                for i in range(DROPPED)
            ]
            deadline = time.monotonic() + 5
            streaming = sum(answered(sock, deadline) for sock in socks)
            for sock in socks:  # gone at once, as when the Wi-Fi drops: a reset, no goodbye
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
            worst = 0.0
            started = time.monotonic()
            while time.monotonic() - started < watch_s:
                worst = max(worst, site.page_ms("/healthz"), site.page_ms("/table", table_cookie))
                site.toggle(site.magnets[0])
                time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return [
        Figure(
            "streams.dropped_worst_page",
            worst,
            "ms",
            1000.0,
            "target",
            note=f"/healthz and /table over {watch_s:g} s after {DROPPED} phones on their "
            f"streams dropped at once ({streaming} had their stream open; calm: {calm:.1f} ms)",
        )
    ]


def _playing_server(state_dir: str) -> tuple[subprocess.Popen[str], int]:
    """``python -m companion.bench.streams --server``: its process and port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.bench.streams", "--server", state_dir],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("port "):
        proc.kill()
        raise RuntimeError("the playing server did not start")
    return proc, int(line.split()[1])


def _serve_and_play(state_dir: str) -> None:
    """The mock appliance behind waitress as ``companion run`` serves it; on "play"
    the bots play maze games with the table's colours, a command a second."""
    from companion.board.config import default_config
    from companion.mazes import load_maze
    from companion.service.appliance import build
    from companion.service.autoplay import play_game
    from companion.service.webserver import serve
    from companion.web import create_app
    from companion.web.contract import MAX_BODY

    maze, text = load_maze(None)
    app = build(default_config(), maze, text, state_dir=Path(state_dir), mock=True)
    web = create_app(app.service, secret_key=os.urandom(32), appliance=app)
    server, _ = serve(web, host="127.0.0.1", port=0, max_body=MAX_BODY)
    threading.Thread(target=server.run, daemon=True).start()
    print(f"port {server.effective_port}", flush=True)
    if sys.stdin.readline().strip() != "play":
        return
    colours = list(web.extensions["companion.seats"].table.colours)
    while True:
        play_game(app, colours, pace=lambda: time.sleep(1.0))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--server":
        _serve_and_play(sys.argv[2])
