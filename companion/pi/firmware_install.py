"""``companion firmware install`` and ``companion firmware check``: put the bundled firmware
on the Pico, and ask a running board which firmware and protocol it speaks.

The firmware is companion/firmware/ (the one copy the host also imports).  Its only
library is ``neopixel``: the adafruit-circuitpython-neopixel package from PyPI, which the
companion already installs, carries it as plain ``neopixel.py``; CircuitPython runs .py
libraries as they are (compiling them at import), so no .mpy bundle and no internet
beyond PyPI is needed.  ``adafruit_pixelbuf`` and ``neopixel_write`` are built into
CircuitPython 8 and later.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from companion.board.serial_link import SerialLink, refusal
from companion.firmware import protocol
from companion.firmware.firmware import VERSION
from companion.inputs import Number, given_path, given_text

#: The firmware's files, copied to the top of CIRCUITPY.
FIRMWARE_FILES = ("boot.py", "code.py", "firmware.py", "protocol.py", "settings.py")
#: How long ``firmware check`` may wait for the board's answer (nan, inf: exit 2).
TIMEOUT_S = Number(0, 600, above=True, unit="s")

#: CircuitPython libraries the firmware imports, copied to CIRCUITPY/lib.
LIBRARIES = ("neopixel",)
#: The only file a builder edits; kept on the board unless asked otherwise.
SETTINGS = "settings.py"

HOW_TO_MOUNT = (
    "Raspberry Pi OS Lite does not mount USB drives by itself. Plug the Pico in, then:\n"
    "  sudo mkdir -p /mnt/CIRCUITPY\n"
    "  sudo mount -o uid=$(id -u),gid=$(id -g) /dev/disk/by-label/CIRCUITPY /mnt/CIRCUITPY\n"
    "  companion firmware install --to /mnt/CIRCUITPY\n"
    "  sudo umount /mnt/CIRCUITPY   # then press RESET on the Pico\n"
    "No CIRCUITPY drive at all? The play jumper (boot.py) hides it: open the jumper and "
    "press RESET. No drive in /dev/disk/by-label? Put CircuitPython on the Pico first "
    "(hold BOOTSEL while plugging it in and copy the .uf2)."
)


class FirmwareInstallError(RuntimeError):
    """The firmware cannot be installed; the message says what to do."""


def find_circuitpy(mounts: Path = Path("/proc/mounts")) -> Path:
    """The mount point of a CircuitPython drive (labelled CIRCUITPY, or with boot_out.txt)."""
    found: list[Path] = []
    try:
        lines = mounts.read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        if len(fields) < 2:
            continue
        point = Path(fields[1].replace("\\040", " "))
        if point.name == "CIRCUITPY" or (point / "boot_out.txt").is_file():
            found.append(point)
    if not found:
        raise FirmwareInstallError(f"no CIRCUITPY drive is mounted.\n{HOW_TO_MOUNT}")
    if len(found) > 1:
        names = ", ".join(str(p) for p in found)
        raise FirmwareInstallError(f"more than one CIRCUITPY drive ({names}): name one with --to")
    return found[0]


def _library_source(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    origin = None if spec is None else spec.origin
    if origin is None or not origin.endswith(".py"):
        raise FirmwareInstallError(
            f"the CircuitPython library {name}.py is not installed "
            f"(pip install adafruit-circuitpython-{name})"
        )
    return Path(origin)


@dataclass(frozen=True)
class Copied:
    """One file put on the drive (or kept there)."""

    target: Path
    source: str
    kept: bool = False


def install(to: Path, *, replace_settings: bool = False) -> list[Copied]:
    """Copy the firmware and its libraries to the drive at ``to``; what was done, in order."""
    if not to.is_dir():
        raise FirmwareInstallError(f"{to} is not a directory (a mounted CIRCUITPY drive)")
    done: list[Copied] = []
    package = resources.files("companion.firmware")
    for name in FIRMWARE_FILES:
        target = to / name
        if name == SETTINGS and target.exists() and not replace_settings:
            done.append(Copied(target, "the board's own (--replace-settings to overwrite)", True))
            continue
        _write(target, package.joinpath(name).read_bytes())
        done.append(Copied(target, f"companion/firmware/{name}"))
    for name in LIBRARIES:
        source = _library_source(name)
        target = to / "lib" / f"{name}.py"
        target.parent.mkdir(exist_ok=True)
        _write(target, source.read_bytes())
        done.append(Copied(target, str(source)))
    os.sync()  # the drive may be pulled right after; FAT has no journal
    return done


def _write(target: Path, data: bytes) -> None:
    """Write in place: CIRCUITPY is small, so no temporary copy beside the file."""
    if target.is_file() and target.read_bytes() == data:
        return  # unchanged files are not rewritten (each write makes the board reload)
    with open(target, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def check(url: str, timeout: float = 5.0) -> tuple[bool, list[str]]:
    """Ask the board at ``url`` (or "auto") for its HELLO: (playable, lines to print)."""
    with SerialLink(url, on_event=lambda *_: None, reconnect=(0.1, 0.5)) as link:
        deadline = time.monotonic() + timeout
        while link.device is None and time.monotonic() < deadline:
            time.sleep(0.02)
        info = link.device
        port = link.port_name or url
    bundled = f"this companion carries firmware {VERSION}, protocol {protocol.PROTOCOL_VERSION}"
    if info is None:
        return False, [f"no answer from a board on {port} within {timeout:g} s", bundled]
    lines = [
        f"board on {port}: firmware {info.firmware_version}, protocol {info.protocol}, "
        f"{info.sensor_count} sensors, {info.pixel_count} pixels ({info.pixel_order})",
        bundled,
    ]
    problem = refusal(info)
    lines.append(problem or "the board is up to date")
    return not problem, lines


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``companion firmware install|check``."""
    firmware = sub.add_parser("firmware", help="install or check the Pico's firmware")
    commands = firmware.add_subparsers(title="firmware commands")
    inst = commands.add_parser("install", help="copy the firmware and its libraries to CIRCUITPY")
    inst.add_argument("--to", type=given_path, default=None, help="the mounted CIRCUITPY drive")
    inst.add_argument(
        "--replace-settings", action="store_true", help="overwrite the board's settings.py"
    )
    inst.set_defaults(func=_install_command)
    chk = commands.add_parser("check", help="the board's firmware and protocol versions")
    chk.add_argument(
        "--port", type=given_text, default=None, help='device path or URL (default: config, "auto")'
    )
    chk.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    chk.add_argument("--timeout", type=TIMEOUT_S, default=5.0, help="seconds to wait (default 5)")
    chk.set_defaults(func=_check_command)


def _install_command(args: argparse.Namespace) -> int:
    try:
        to = args.to if args.to is not None else find_circuitpy()
        done = install(to, replace_settings=args.replace_settings)
    except FirmwareInstallError as exc:
        print(f"companion: {exc}")
        return 1
    for item in done:
        print(f"{'kept' if item.kept else 'wrote'} {item.target}  ({item.source})")
    print(f"firmware {VERSION} is on {to}. Press RESET on the Pico (boot.py needs a hard reset).")
    return 0


def _check_command(args: argparse.Namespace) -> int:
    port = args.port
    if port is None:
        from companion.board.config import load_config

        config = load_config(args.config)
        port = config.sensors.port if config.sensors.backend == "serial" else "auto"
    ok, lines = check(port, args.timeout)
    for line in lines:
        print(line)
    return 0 if ok else 1
