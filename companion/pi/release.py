"""Which Raspberry Pi OS this is, checked before the installer changes anything.

Tested releases (tools/pi-check.sh --release): Bookworm (Debian 12, Python 3.11) and
Trixie (Debian 13, Python 3.13), each 64- and 32-bit.  Anything else is refused in
words before a step runs: an older release's Python cannot run the companion, and a
newer one has not been tried.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: Release codename -> the Python it ships (major, minor).
SUPPORTED = {"bookworm": (3, 11), "trixie": (3, 13)}
OS_RELEASE = Path("/etc/os-release")


class Unsupported(RuntimeError):
    """Not a release the installer supports; the message says what to do."""


def os_release(path: Path | None = None) -> dict[str, str]:
    """/etc/os-release as a dict (quotes removed); {} when it cannot be read."""
    try:
        text = (path or OS_RELEASE).read_text("utf-8")
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.startswith("#"):
            values[key.strip()] = value.strip().strip("\"'")
    return values


def check_release(info: dict[str, str] | None = None, python: tuple[int, int] | None = None) -> str:
    """The supported release's words ("Debian GNU/Linux 13 (trixie), Python 3.13"), or
    ``Unsupported`` saying which release and Python this is and what is supported."""
    values = os_release() if info is None else info
    have = python or (sys.version_info.major, sys.version_info.minor)
    name = values.get("PRETTY_NAME", "an unknown system (no /etc/os-release)")
    codename = values.get("VERSION_CODENAME", "")
    py = f"Python {have[0]}.{have[1]}"
    tested = " and ".join(f"{c.title()} (Python {v[0]}.{v[1]})" for c, v in SUPPORTED.items())
    if codename not in SUPPORTED:
        raise Unsupported(
            f"this is {name} with {py}: the installer supports Raspberry Pi OS {tested}, "
            "64- or 32-bit; flash a current Raspberry Pi OS (Raspberry Pi Imager) and run it "
            "there"
        )
    want = SUPPORTED[codename]
    if have != want:
        raise Unsupported(
            f"this is {name}, whose python3 is {want[0]}.{want[1]}, but install.sh runs "
            f"under {py}: run it with the system's /usr/bin/python3 (`sudo ./install.sh`)"
        )
    return f"{name}, {py}"
