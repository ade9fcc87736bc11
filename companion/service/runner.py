"""``companion run``: the appliance, the web server, logging and a clean shutdown."""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import sys
from pathlib import Path
from types import FrameType

from companion.board.config import load_config
from companion.mazes import load_maze

from . import hotspot
from .appliance import build
from .install import CONFIG_DIR
from .notify import Notifier, Watchdog

log = logging.getLogger("companion")

#: Where a system install keeps its journal and secret key (systemd StateDirectory=).
SYSTEM_STATE_DIR = Path("/var/lib/pyramid-companion")


class Shutdown(SystemExit):
    """Raised by the signal handler to leave the server loop."""


def setup_logging(level: str = "INFO") -> None:
    """One line per record on stdout: journald adds the time and keeps the level."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def state_dir(explicit: Path | None) -> Path:
    """The state directory: --state-dir, $STATE_DIRECTORY (systemd), /var/lib/..., or ~."""
    if explicit is not None:
        return explicit
    from_systemd = os.environ.get("STATE_DIRECTORY")
    if from_systemd:
        return Path(from_systemd.split(":")[0])
    if SYSTEM_STATE_DIR.is_dir() and os.access(SYSTEM_STATE_DIR, os.W_OK):
        return SYSTEM_STATE_DIR
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "pyramid-companion"


def secret_key(directory: Path) -> bytes:
    """The install's secret key for signed cookies: made once, readable by the owner only."""
    path = directory / "secret_key"
    directory.mkdir(parents=True, exist_ok=True)
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    os.chmod(path, 0o600)
    return key


def addresses(port: int) -> list[str]:
    """The addresses phones should open: hostname.local and the LAN IPs (no traffic sent)."""
    host = socket.gethostname()
    at = "" if port == 80 else f":{port}"
    urls = [f"http://{host}.local{at}/"]
    try:
        infos = socket.getaddrinfo(host, None, socket.AF_INET)
    except OSError:
        infos = []
    for ip in sorted({info[4][0] for info in infos}):
        if not str(ip).startswith("127."):
            urls.append(f"http://{ip}{at}/")
    return urls


def run(
    *,
    config_path: Path | None,
    maze_path: Path | None,
    mock: bool,
    host: str,
    port: int,
    state: Path | None,
) -> int:
    import waitress

    from companion.web import create_app

    setup_logging()
    config = load_config(config_path)
    maze, maze_text = load_maze(maze_path)
    directory = state_dir(state)
    log.info("state in %s; board: %s%s", directory, config.name, " (simulated)" if mock else "")
    appliance = build(config, maze, maze_text, state_dir=directory, mock=mock)
    notifier = Notifier()
    watchdog = Watchdog(notifier)
    appliance.sensors.heartbeat = watchdog.kick  # the scan loop feeds systemd's watchdog
    app = create_app(appliance.service, secret_key=secret_key(directory), appliance=appliance)
    # The hotspot's name and password (``companion hotspot``), for the host page's QR code.
    app.config["WIFI_JOIN"] = hotspot.load(config_path.parent if config_path else CONFIG_DIR)
    server = waitress.create_server(app, host=host, port=port, threads=32, ident="companion")
    actual_port = int(getattr(server, "effective_port", port))

    def stop(signum: int, frame: FrameType | None) -> None:
        appliance.hub.end_streams()  # open pages must not hold the server's threads
        raise Shutdown(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for url in addresses(actual_port):
        log.info("phones open %s", url)
    if mock:
        log.info("board simulator: http://localhost:%d/sim", actual_port)
    log.info("ready on %s:%d", host, actual_port)
    notifier.ready(f"serving on port {actual_port}")
    try:
        server.run()
    finally:
        log.info("shutting down: LEDs off, journal closed")
        notifier.stopping()
        appliance.hub.end_streams()
        server.close()
        appliance.close()
    return 0
