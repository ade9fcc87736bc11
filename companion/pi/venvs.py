"""The service's venv, replaced without a moment in which none works.

``/opt/pyramid-companion/venv`` is a symlink to a venv directory of its own
(``venv-<commit>-<time>``).  A new version's venv is built beside the running one, checked
by its own python (the entry point and the board stack import), given a record of what
it holds, and switched in by one rename of a new symlink over the old one.  Until a new
version answers /healthz, ``venv.previous`` names the one it replaced: an update that
fails (or a re-run after an interruption that finds the new one does not answer) points
the link back at it.  A kill at any moment leaves a link to a complete venv: the old
one, or the new one already checked.

A venv's record (``pyramid-companion.json`` in it) holds the commit it was built from
and a fingerprint of everything that went into it (the clone's files, the constraints,
the Python and the machine): the same fingerprint means nothing must be built again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

RECORD = "pyramid-companion.json"
PREVIOUS = ".previous"


def fingerprint(files: Iterable[Path], root: Path, constraints: Path) -> str:
    """What a venv is built from: the clone's files, the constraints, Python, machine."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version_info[:2]} {platform.machine()}\n".encode())
    for path in sorted(files):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(constraints.read_bytes())
    return digest.hexdigest()[:24]


def target(link: Path) -> Path | None:
    """The venv directory ``link`` stands for: its target, itself (an install from before
    the link), or None when there is none."""
    if link.is_symlink():
        real = link.parent / os.readlink(link)
        return real if real.is_dir() else None
    return link if link.is_dir() else None


def record(venv: Path | None) -> dict[str, str]:
    """The record of a venv ({} when it has none: built before records, or unfinished)."""
    if venv is None:
        return {}
    try:
        data = json.loads((venv / RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def previous_link(link: Path) -> Path:
    return link.with_name(link.name + PREVIOUS)


def new_dir(link: Path, commit: str) -> Path:
    """Where the next venv is built: beside the link, a name no venv has."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = link.with_name(f"{link.name}-{(commit or 'local')[:10]}-{stamp}")
    made, n = base, 1
    while made.exists():
        made, n = base.with_name(f"{base.name}-{n}"), n + 1
    return made


def build_beside(
    link: Path,
    commit: str,
    print_: str,
    build: Callable[[Path], None],
    check: Callable[[Path], None],
) -> Path:
    """Build a venv beside the running one (``build``), check it with its own python
    (``check``), then write its record: the venv ready to switch to.  A build that fails
    or is killed leaves a directory without a record, which ``prune`` removes."""
    new = new_dir(link, commit)
    build(new)
    check(new)
    staged = new / (RECORD + ".new")
    staged.write_text(json.dumps({"commit": commit, "fingerprint": print_}), "utf-8")
    os.replace(staged, new / RECORD)
    return new


def _point(link: Path, at: Path) -> None:
    """Make ``link`` point at ``at`` with one rename (a new symlink over the old one)."""
    staged = link.with_name(f".{link.name}.switching")
    with contextlib.suppress(FileNotFoundError):
        staged.unlink()
    staged.symlink_to(at.name)
    os.replace(staged, link)


def adopt(link: Path) -> None:
    """A venv from before the link (a directory at the link's path) becomes a venv of
    its own with the link pointing at it; its scripts, which name the link's path, still
    find their python through it.  Done again if killed between the two renames."""
    legacy = link.with_name(f"{link.name}-installed")
    if link.is_dir() and not link.is_symlink():
        os.rename(link, legacy)
    if not link.exists() and not link.is_symlink() and legacy.is_dir():
        _point(link, legacy)


def switch(link: Path, new: Path, *, keep_previous: bool) -> Path | None:
    """Point ``link`` at ``new`` in one rename; the venv it pointed at before is kept as
    ``venv.previous`` (an update that must still answer /healthz) or removed."""
    adopt(link)
    old = target(link)
    if keep_previous and old is not None and old != new:
        _point(previous_link(link), old)
    _point(link, new)
    if not keep_previous:
        confirm(link)
    return old


def confirm(link: Path) -> None:
    """The venv the link points at is the one: forget the previous one."""
    previous_link(link).unlink(missing_ok=True)
    prune(link)


def roll_back(link: Path) -> bool:
    """Point the link back at ``venv.previous`` (whether there was one to go back to)."""
    old = target(previous_link(link))
    if old is None:
        return False
    _point(link, old)
    previous_link(link).unlink(missing_ok=True)
    prune(link)
    return True


def prune(link: Path) -> list[Path]:
    """Remove every venv directory beside the link that neither it nor ``venv.previous``
    points at (an earlier version, or a build that was killed); what was removed."""
    keep = {target(link), target(previous_link(link))}
    removed = []
    pattern = re.compile(re.escape(link.name) + r"-.+")
    for path in sorted(link.parent.glob(f"{link.name}-*")):
        ours = path.is_dir() and not path.is_symlink() and pattern.fullmatch(path.name)
        if ours and path not in keep:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def wheelhouse_has(constraints: str, wheelhouse: Path) -> list[str]:
    """The pins of ``constraints`` with no wheel in ``wheelhouse`` ([]: a build from it
    needs no network)."""
    have = set()
    for wheel in wheelhouse.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        have.add((_normal(name), version))
    missing = []
    for line in constraints.splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" not in line:
            continue
        name, version = (part.strip() for part in line.split("==", 1))
        if (_normal(name), version.split(";")[0].strip()) not in have:
            missing.append(line)
    return missing


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
