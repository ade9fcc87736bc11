"""One installer at a time, and the package manager's lock.

Two ``install.sh`` runs at once (a second ssh session, a re-run while an update still
builds) would build and switch the same venv: the second waits for nothing and refuses
in words naming the first (its pid, command and start).  apt's own lock may be held by
another program (unattended-upgrades after a boot, an apt-get in another window): the
apt step waits for it a while, saying who holds it, then refuses in words.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

#: The installer's own lock (tmpfs: gone at a reboot, with any stale holder).
INSTALL_LOCK = Path("/run/lock/pyramid-companion-install.lock")
#: The locks apt-get and dpkg take (apt-get takes the frontend lock first).
DPKG_LOCKS = (Path("/var/lib/dpkg/lock-frontend"), Path("/var/lib/dpkg/lock"))
#: Seconds the apt step waits for another program's dpkg lock before it refuses.
DPKG_WAIT_S = 300.0
#: The environment variable naming the lock's fd across ``update``'s exec.
LOCK_FD = "PYRAMID_INSTALL_LOCK_FD"


class Busy(RuntimeError):
    """Another run holds the lock; the message names it."""


@contextlib.contextmanager
def installer_lock(command: str, path: Path | None = None) -> Iterator[None]:
    """Hold the installer's lock while the body runs, or raise ``Busy`` naming the run
    that holds it.  The kernel drops the lock when its holder dies, so a killed run
    never blocks the next one."""
    lock = path or INSTALL_LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    if _inherited(lock):  # ``update`` went on in the new version's installer: still ours
        yield
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
            raise Busy(
                f"another install.sh is running ({holder or 'its details unknown'}): wait "
                "until it ends (it may be building the venv: minutes on a small Pi), then "
                "run this again"
            ) from None
        os.ftruncate(fd, 0)
        since = time.strftime("%H:%M:%S")
        os.pwrite(fd, f"pid {os.getpid()}, `{command}`, since {since}\n".encode(), 0)
        # Held across ``update``'s exec of the new version's installer (same open file).
        os.set_inheritable(fd, True)
        os.environ[LOCK_FD] = str(fd)
        yield
    finally:
        os.environ.pop(LOCK_FD, None)
        os.close(fd)


def _inherited(lock: Path) -> bool:
    """This process holds ``lock`` already: an fd it inherited over exec."""
    try:
        fd = int(os.environ.get(LOCK_FD, ""))
        return os.fstat(fd).st_ino == lock.stat().st_ino
    except (ValueError, OSError):
        return False


def lock_holder(path: Path, locks: Path = Path("/proc/locks")) -> str | None:
    """Who holds a POSIX or flock lock on ``path`` ("unattended-upgr, pid 412"), from
    the kernel's list of locks; None when nobody does (or it cannot be told)."""
    try:
        inode = path.stat().st_ino
        table = locks.read_text("ascii")
    except OSError:
        return None
    for line in table.splitlines():
        fields = line.split()
        if "->" in fields:  # a waiter, not a holder
            continue
        try:
            pid, where = int(fields[4]), fields[5]
        except (IndexError, ValueError):
            continue
        if where.rsplit(":", 1)[-1] == str(inode):
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                name = "a program"
            return f"{name}, pid {pid}"
    return None


def wait_for_dpkg(
    out: Callable[[str], object],
    *,
    wait: float | None = None,
    every: float = 2.0,
    locks: tuple[Path, ...] | None = None,
    holder: Callable[[Path], str | None] = lock_holder,
) -> None:
    """Return once no other program holds the dpkg lock; say who does while waiting, and
    raise ``Busy`` naming it after ``wait`` seconds."""
    paths = locks or DPKG_LOCKS
    limit = DPKG_WAIT_S if wait is None else wait
    end = time.monotonic() + limit
    said = False
    while True:
        held = next((h for h in map(holder, paths) if h is not None), None)
        if held is None:
            return
        if time.monotonic() >= end:
            raise Busy(
                f"the package manager's lock is held by {held} (waited {limit:.0f} s): let "
                "it finish (`ps -p <pid>`; an automatic update after a boot takes minutes), "
                "then run this again"
            )
        if not said:
            out(f"          waiting for the package manager: {held} holds its lock")
            said = True
        time.sleep(every)
