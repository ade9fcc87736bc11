"""What ``companion run`` needs before it composes the companion: logging, the state
directory and its secret key, the addresses phones open, and why hardware cannot start."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import struct
import sys
from pathlib import Path

from companion.errors import StartupError
from companion.inputs import read_bytes
from companion.journal import prepare_state_dir

log = logging.getLogger("companion")

#: Where a system install keeps its journal and secret key (systemd StateDirectory=).
SYSTEM_STATE_DIR = Path("/var/lib/pyramid-companion")
#: Bytes of the secret key that signs the seat cookies.
MIN_KEY_BYTES = 32
#: Linux's ioctl for an interface's IPv4 address.
SIOCGIFADDR = 0x8915


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
