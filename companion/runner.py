"""``companion run``: the composition root.  It builds the appliance (service layer),
puts the web pages on it, adds the bench's trace when asked, serves, and shuts down
cleanly; it sits above every layer it composes (``tests/test_layers.py``)."""

from __future__ import annotations

import logging
import os
import signal
from pathlib import Path
from types import FrameType
from typing import Any

from gpiozero.exc import GPIOZeroError

from companion.bench.trace import install as install_trace
from companion.board.config import load_config
from companion.errors import StartupError
from companion.mazes import load_maze
from companion.pi import hotspot
from companion.pi.install import CONFIG_DIR
from companion.pi.notify import Notifier, Watchdog
from companion.service.appliance import build
from companion.service.startup import (
    addresses,
    hardware_error,
    secret_key,
    setup_logging,
    state_dir,
)
from companion.service.webserver import serve
from companion.web import create_app
from companion.web.contract import MAX_BODY

log = logging.getLogger("companion")


class Shutdown(SystemExit):
    """Raised by the signal handler to leave the server loop."""


def run(
    *,
    config_path: Path | None,
    maze_path: Path | None,
    mock: bool,
    host: str,
    port: int,
    state: Path | None,
) -> int:
    setup_logging()
    config = load_config(config_path)
    maze, maze_text = load_maze(maze_path)
    directory = state_dir(state)
    key = secret_key(directory)
    log.info("state in %s; board: %s%s", directory, config.name, " (simulated)" if mock else "")
    try:
        appliance = build(config, maze, maze_text, state_dir=directory, mock=mock)
    except (ImportError, NotImplementedError, GPIOZeroError) as exc:
        if mock:
            raise
        raise hardware_error(exc) from exc
    notifier = Notifier()
    watchdog = Watchdog(notifier)
    appliance.sensors.heartbeat = watchdog.kick  # the scan loop feeds systemd's watchdog
    app = create_app(appliance.service, secret_key=key, appliance=appliance)
    if mock and os.environ.get("COMPANION_TRACE"):  # companion bench's player rows
        install_trace(appliance, app, os.environ["COMPANION_TRACE"])
    # The hotspot's name and password (``companion hotspot``), for the host page's QR code.
    app.config["WIFI_JOIN"] = hotspot.load(config_path.parent if config_path else CONFIG_DIR)
    try:
        server, limits = serve(app, host=host, port=port, max_body=MAX_BODY)
    except OSError as exc:
        appliance.close()
        raise StartupError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from exc
    actual_port = int(getattr(server, "effective_port", port))

    def stop(signum: int, frame: FrameType | None) -> None:
        appliance.hub.end_streams()  # open pages must not hold the server's threads
        raise Shutdown(0)

    for url in addresses(actual_port):
        log.info("phones open %s", url)
    if mock:
        log.info("board simulator: http://localhost:%d/sim", actual_port)
    log.info(
        "web: %d connections (%d per device), %d live pages (%d per device, %d per seat, "
        "%d watching); idle connections close after %g s",
        limits.connections,
        limits.connections_per_address,
        limits.streams,
        limits.streams_per_address,
        limits.streams_per_seat,
        limits.streams_watching,
        limits.idle_s,
    )
    tunnel = None
    try:
        # From here a stop signal always passes through ``finally``: one that came while
        # the tunnel's listener started left the process hanging on its threads.
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        tunnel = _tunnel_listener(app, limits)
        log.info("ready on %s:%d", host, actual_port)  # after everything that serves
        notifier.ready(f"serving on port {actual_port}")
        server.run()
    finally:
        if tunnel is not None:
            tunnel.stop(check=False)
        app.extensions["companion.remote"].stop()  # the provider's client ends with us
        log.info("shutting down: LEDs off, journal closed")
        notifier.stopping()
        appliance.hub.end_streams()
        server.close()
        appliance.close()
    return 0


def _tunnel_listener(app: Any, limits: Any) -> Any:
    """The loopback listener a tunnel provider's client connects to (``web/remote.py``:
    only the remote seat's doors), on a free port told to the remote seat."""
    from companion.service.webthread import ServerThread
    from companion.web.remote import listener_app

    tunnel = ServerThread(listener_app(app), limits=limits, name="tunnel").start()
    remote = app.extensions["companion.remote"]
    remote.port = tunnel.port
    try:
        remote.start_client()  # a seat open before a restart opens again, with its link
    except Exception as exc:  # (its client is gone: the host page says so)
        log.warning("the remote seat kept from before could not reopen its tunnel: %s", exc)
        if remote.current is not None:
            remote.current.problem = str(exc)
    log.info("remote seats: the tunnel's listener on 127.0.0.1:%d (loopback only)", tunnel.port)
    return tunnel
