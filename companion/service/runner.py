"""``companion run``: the appliance, the web server, logging and a clean shutdown."""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import struct
import sys
from pathlib import Path
from types import FrameType

from gpiozero.exc import GPIOZeroError

from companion.board.config import load_config
from companion.errors import StartupError
from companion.inputs import read_bytes
from companion.mazes import load_maze
from companion.pi import hotspot
from companion.pi.install import CONFIG_DIR
from companion.pi.notify import Notifier, Watchdog

from .appliance import build
from .journal import prepare_state_dir
from .webserver import serve

log = logging.getLogger("companion")

#: Where a system install keeps its journal and secret key (systemd StateDirectory=).
SYSTEM_STATE_DIR = Path("/var/lib/pyramid-companion")
#: Bytes of the secret key that signs the seat cookies.
MIN_KEY_BYTES = 32
#: Linux's ioctl for an interface's IPv4 address.
SIOCGIFADDR = 0x8915


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
    """The install's secret key for signed cookies: made once, readable by the owner only.

    A key file that is too short is an error, never replaced silently: a new key would
    log every phone out."""
    path = directory / "secret_key"
    prepare_state_dir(directory)
    try:
        key = read_bytes(path, limit=4096)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise StartupError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    else:
        if len(key) < MIN_KEY_BYTES:
            raise StartupError(
                f"{path}: the secret key has {len(key)} bytes, at least {MIN_KEY_BYTES} are "
                "needed. Delete the file to make a new key (every phone then joins again)."
            )
        return key
    key = secrets.token_bytes(MIN_KEY_BYTES)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    os.chmod(path, 0o600)
    return key


def hardware_error(exc: BaseException) -> StartupError:
    """Why the board's libraries cannot run on this machine, and what to do instead."""
    if isinstance(exc, ImportError):
        what = f"the library {exc.name or exc} is missing (pip install it on the Pi)"
    elif isinstance(exc, NotImplementedError):
        what = f"its libraries do not know this machine ({exc}): it is not a Raspberry Pi"
    else:
        what = f"{type(exc).__name__}: {exc}"
    return StartupError(
        f"the board's hardware cannot be used here: {what}. "
        "Without the board, start with --mock (a simulated board)."
    )


def addresses(port: int) -> list[str]:
    """The addresses phones should open: hostname.local and the LAN IPs (no traffic
    sent): the companion's own, for the log, the join links and the QR codes."""
    host = socket.gethostname()
    at = "" if port == 80 else f":{port}"
    urls = [f"http://{host}.local{at}/"]
    try:
        infos = socket.getaddrinfo(host, None, socket.AF_INET)
    except OSError:
        infos = []
    ips = {str(info[4][0]) for info in infos} | set(interface_ips())
    for ip in sorted(ips):
        if not ip.startswith("127."):
            urls.append(f"http://{ip}{at}/")
    return urls


def interface_ips() -> list[str]:
    """The IPv4 address of each network interface (Linux; elsewhere none): the hotspot's
    own address (10.42.0.1) is often not among the hostname's."""
    try:
        import fcntl
    except ImportError:
        return []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:  # a sandbox without interfaces to list
        return []
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            request = struct.pack("256s", name[:15].encode())
            try:
                answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, request)
            except OSError:  # no IPv4 address on this interface
                continue
            found.append(socket.inet_ntoa(answer[20:24]))
    return found


def run(
    *,
    config_path: Path | None,
    maze_path: Path | None,
    mock: bool,
    host: str,
    port: int,
    state: Path | None,
) -> int:
    from companion.web import create_app
    from companion.web.contract import MAX_BODY

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
        from companion.bench.trace import install

        install(appliance, app, os.environ["COMPANION_TRACE"])
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

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
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
