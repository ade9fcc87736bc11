"""``companion run --mock`` as a user starts it: a real WSGI server, SIGTERM shutdown."""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_run_serves_healthz_and_the_simulator_and_stops_cleanly_on_sigterm(tmp_path):
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
            str(tmp_path),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    lines = []
    port = None
    deadline = time.monotonic() + 30
    while port is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if "ready on" in line:
            port = int(line.rsplit(":", 1)[1])
    assert port, "".join(lines)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as res:
            assert res.status == 200
            assert json.load(res) == {"status": "ok"}  # the details are the host's
        # The first device to open the companion is the host: /sim and the details open.
        jar = http.cookiejar.CookieJar()
        host = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        host.open(f"http://127.0.0.1:{port}/", timeout=5).read()
        with host.open(f"http://127.0.0.1:{port}/healthz", timeout=5) as res:
            status = json.load(res)
        assert status["status"] == "ok"
        assert status["game"]["phase"] == "seeker_turn"
        assert status["board"] == {"connected": True, "matches": True}
        with host.open(f"http://127.0.0.1:{port}/sim", timeout=5) as res:
            assert b"Board simulator" in res.read()
        cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
        assert any("board simulator: http://localhost" in line for line in lines)
        # A page with a live stream open must not hold up the shutdown.
        stream = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        stream.request("GET", "/sim/api/stream", headers={"Cookie": cookie})
        assert stream.getresponse().status == 200
    finally:
        asked = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=15)
    assert time.monotonic() - asked < 4, "the shutdown waited for the open stream"
    assert proc.returncode == 0, out
    assert "shutting down: LEDs off, journal closed" in out
    assert (tmp_path / "journal.sqlite3").exists()
    assert oct((tmp_path / "secret_key").stat().st_mode & 0o777) == "0o600"


def test_a_stop_signal_while_the_tunnel_listener_starts_still_shuts_down_cleanly(tmp_path):
    """systemd may stop the service at any moment of its start: a SIGTERM that came while
    the remote seats' listener started left the process hanging on its threads (the
    signal's exception passed by the clean-up).  Now it shuts down as any stop does."""
    script = (
        "import os, signal, sys\n"
        "import companion.runner as runner\n"
        "started = runner._tunnel_listener\n"
        "def listener(app, limits):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return started(app, limits)\n"
        "runner._tunnel_listener = listener\n"
        "from companion.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    args = ["run", "--mock", "--host", "127.0.0.1", "--port", "0", "--state-dir", str(tmp_path)]
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-2000:]
    assert "shutting down: LEDs off, journal closed" in said
    assert "ready on" not in said  # it never said it served
