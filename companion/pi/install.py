"""The Pi's installer (``sudo ./install.sh``): apt packages, SPI, core clock, venv, user, unit.

Runs with the system's ``python3`` from a clone (no venv exists yet), so it uses only the
standard library.  Every step first checks whether it is already done (a second run
changes nothing), ``--dry-run`` prints every step without doing it, and a step that
fails says what to do.  ``uninstall`` undoes it all but keeps the game journal and the
board config unless ``--purge``.  systemd/README.md describes each step.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.inputs import PORT, read_text
from companion.pi import venvs
from companion.pi.atomic import write_atomically
from companion.pi.failures import failure_words
from companion.pi.locks import Busy, installer_lock, wait_for_dpkg
from companion.pi.release import Unsupported, check_release

UNIT_NAME = "pyramid-companion.service"
USER = "companion"
GROUPS = ("gpio", "spi", "dialout")
PREFIX = Path("/opt/pyramid-companion")
VENV = PREFIX / "venv"
CONFIG_DIR = Path("/etc/pyramid-companion")
#: The options a table was installed with (the port), so that a plain re-run keeps them.
OPTIONS_FILE = "install.json"
#: Every wheel the venv was built from (the build backend too), per Python and machine:
#: a re-run, or an update whose constraints did not change, builds from it offline.
WHEELHOUSE = Path("/var/cache/pyramid-companion/wheels")
STATE_DIR = Path("/var/lib/pyramid-companion")
UNIT_DIR = Path("/etc/systemd/system")
UDEV_RULE = Path("/etc/udev/rules.d/60-pyramid-companion.rules")
#: Loaded at boot before the unit starts (its After=systemd-modules-load.service), so that
#: DeviceAllow=char-spi and char-ttyACM find their majors in /proc/devices when systemd
#: builds the device list at start: a Pico plugged in later is then already allowed.
MODULES_LOAD = Path("/etc/modules-load.d/pyramid-companion.conf")
KERNEL_MODULES = ("spidev", "cdc_acm")
#: Written when the installer changed config.txt; pending until the next boot (another
#: boot id), read by the installer's last line and by ``companion run`` at start.
REBOOT_MARKER = STATE_DIR / "reboot-pending"
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
FIRMWARE_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
#: The pinned packages PyPI has no wheel of, by Python and machine (constraints-pi.txt):
#: each is a C extension built with gcc and the Python headers (no g++, no make); lgpio
#: on Python 3.13 (Trixie: PyPI's wheels stop at cp312) also runs swig on its interface.
SOURCE_BUILDS = {
    ((3, 11), "aarch64"): ("spidev",),
    ((3, 11), "armv7l"): ("spidev", "gpiod", "sysv-ipc"),
    ((3, 13), "aarch64"): ("spidev", "lgpio"),
    ((3, 13), "armv7l"): ("spidev", "gpiod", "sysv-ipc", "lgpio"),
}
#: The venv, those build tools, and avahi (it answers <name>.local).
APT_PACKAGES = ("python3-venv", "python3-dev", "gcc", "avahi-daemon")
#: lgpio's sdist, built where PyPI has no wheel (Python 3.13), needs swig; built with
#: PYPI=1 it links its own copy of the lgpio C library in, so no liblgpio-dev (which only
#: Raspberry Pi's own archive has) is needed.
SWIG_FROM = (3, 13)


def apt_packages(python: tuple[int, int] | None = None) -> tuple[str, ...]:
    """The apt packages the installer needs under this Python."""
    have = python or (sys.version_info.major, sys.version_info.minor)
    return APT_PACKAGES + (("swig",) if have >= SWIG_FROM else ())


DATA = Path(__file__).with_name("data")
SOURCE = Path(__file__).resolve().parents[2]

BEGIN = "# >>> pyramid-companion (sudo ./install.sh uninstall removes this block)"
END = "# <<< pyramid-companion"
#: SPI0 on (the NeoPixels, /dev/spidev0.0) and SPI1 with one chip select on GPIO18 (the
#: 74HC165 chain, /dev/spidev1.0: its own bus, docs/board-config.md); the NeoPixels' SPI
#: clock follows the core clock on a Pi 3, Zero 2 W and 4, so it is fixed there
#: (rpi_ws281x README); a Pi 5's SPI has its own clock.
FIRMWARE_BLOCK = f"""{BEGIN}
[all]
dtparam=spi=on
dtoverlay=spi1-1cs,cs0_pin=18
[pi3]
core_freq=250
[pi02]
core_freq=250
[pi4]
core_freq=500
core_freq_min=500
[all]
{END}
"""

UDEV_RULES = """\
# pyramid-companion: the service user reaches GPIO and SPI through these groups
# (Raspberry Pi OS's 99-com.rules does the same; this keeps it true elsewhere).
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
SUBSYSTEM=="spidev", KERNEL=="spidev*", GROUP="spi", MODE="0660"
"""


MODULES_TEXT = (
    "# pyramid-companion: spidev (/dev/spidev*) and cdc_acm (the Pico's /dev/ttyACM*) load\n"
    "# before the service, so its DeviceAllow= list names their majors from the start.\n"
    + "".join(f"{module}\n" for module in KERNEL_MODULES)
)

#: Directories and files of a clone that are never part of a build (the user's venv,
#: caches, an earlier build): the build copy leaves them out.
NOT_BUILT = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
             ".mypy_cache", ".ruff_cache", ".hypothesis", "node_modules")  # fmt: skip


class StepFailed(RuntimeError):
    """A step failed; the message says what to do."""


@dataclass
class Step:
    """One thing the installer does: skipped when ``done()`` says it already is."""

    name: str
    what: str
    action: Callable[[], object]
    hint: str
    done: Callable[[], bool] = field(default=lambda: False)
    #: What ``[done]`` says when ``done()`` is true.
    note: str = "already so"
    #: Minutes, not seconds (apt, pip): a line says it began, so that a log cut off
    #: by a hang-up shows which step was running.
    slow: bool = False


# -- pure helpers (tested) -------------------------------------------------------------


def with_block(text: str, block: str = FIRMWARE_BLOCK) -> str:
    """``text`` (a config.txt) with our block in it once, replacing an older one."""
    return without_block(text).rstrip("\n") + "\n\n" + block


def without_block(text: str) -> str:
    """``text`` without our block (and nothing else changed)."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    skipping = False
    for line in lines:
        if line.rstrip("\n") == BEGIN:
            skipping = True
            if out and out[-1] == "\n":
                out.pop()
            continue
        if skipping:
            skipping = line.rstrip("\n") != END
            continue
        out.append(line)
    return "".join(out)


#: The SPI devices the board needs; the firmware config creates them at the next boot.
SPI_DEVICES = (Path("/dev/spidev0.0"), Path("/dev/spidev1.0"))

#: What each line of the block does that only a reboot applies.
NEEDS_REBOOT = {
    "dtparam=spi=on": "SPI0, /dev/spidev0.0: the NeoPixels",
    "dtoverlay=spi1-1cs,cs0_pin=18": "SPI1, /dev/spidev1.0: the sensor chain",
    "core_freq=250": "a Pi 3's or Zero 2 W's fixed core clock: the NeoPixels' timing",
    "core_freq=500": "a Pi 4's fixed core clock: the NeoPixels' timing",
    "core_freq_min=500": "a Pi 4's fixed core clock: the NeoPixels' timing",
}


def new_boot_lines(before: str, after: str) -> list[str]:
    """The lines of ``after`` (a config.txt) that need a reboot and ``before`` lacked."""
    had = {line.strip() for line in before.splitlines()}
    return [line for line in NEEDS_REBOOT if line in after.splitlines() and line not in had]


def boot_id(path: Path | None = None) -> str:
    """This boot's id (a new one at every boot; "" where the kernel has none)."""
    try:
        return (path or BOOT_ID).read_text("ascii").strip()
    except OSError:
        return ""


def mark_reboot(lines: Sequence[str], marker: Path, boot: str) -> None:
    """Note that ``lines`` of config.txt wait for the next boot (added to a pending note)."""
    pending = pending_reboot(marker, boot)
    marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = "".join(
        f"{line}\n" for line in [boot, *pending, *(x for x in lines if x not in pending)]
    )
    write_atomically(marker, text)


def pending_reboot(marker: Path | None = None, boot: str | None = None) -> list[str]:
    """The config.txt lines the installer wrote in this boot (a reboot applies them)."""
    try:
        first, *lines = (marker or REBOOT_MARKER).read_text("utf-8").splitlines()
    except (OSError, ValueError):
        return []
    return lines if first == (boot_id() if boot is None else boot) else []


def reboot_needed(
    devices: Sequence[Path] | None = None, marker: Path | None = None, boot: str | None = None
) -> str | None:
    """What to tell the user while a reboot must still apply config.txt, or None.

    Pending are the lines the installer wrote since the last boot (the marker: the core
    clock has no other trace a script can read) and any SPI device still missing.
    """
    pending = pending_reboot(marker, boot)
    missing = [str(device) for device in devices or SPI_DEVICES if not device.exists()]
    if not pending and not missing:
        return None
    why = [f"{line} ({NEEDS_REBOOT[line]})" for line in pending if line in NEEDS_REBOOT]
    if missing:
        why.append(
            f"{', '.join(missing)} missing (dtparam=spi=on and dtoverlay=spi1-1cs act at boot)"
        )
    return "reboot once so that config.txt takes effect: " + "; ".join(why) + ": sudo reboot"


def unit_text(venv: Path = VENV, name: str = UNIT_NAME) -> str:
    """The unit (or a drop-in) with the venv's path filled in."""
    return (DATA / name).read_text("utf-8").replace("@VENV@", str(venv))


# -- running commands --------------------------------------------------------------------


def run(
    command: Sequence[str], hint: str, env: dict[str, str] | None = None, cwd: str | None = None
) -> str:
    """Run ``command``; on failure raise ``StepFailed`` saying what failed (a full disk,
    a lock, the network, the compiler: failures.py) or its last lines and ``hint``."""
    try:
        done = subprocess.run(
            list(command), capture_output=True, text=True, check=False, env=env, cwd=cwd
        )
    except FileNotFoundError as exc:
        raise StepFailed(f"{command[0]} is missing ({exc}); {hint}") from None
    if done.returncode != 0:
        output = "\n".join(part for part in (done.stdout, done.stderr) if part)
        raise StepFailed(failure_words(list(command), done.returncode, output, hint))
    return done.stdout


def succeeds(command: Sequence[str]) -> bool:
    try:
        return subprocess.run(list(command), capture_output=True, check=False).returncode == 0
    except FileNotFoundError:
        return False


def write_if_changed(path: Path, text: str, mode: int = 0o644) -> None:
    """Write a file the system reads: all of it or nothing (atomic.py)."""
    write_atomically(path, text, mode)


def same_text(path: Path, text: str) -> bool:
    return path.is_file() and read_text(path) == text


def build_copy(source: Path, into: Path) -> Path:
    """A copy of the clone ``source`` to build from, so that pip (as root) writes its
    build/ and *.egg-info there and the user's clone stays as it was."""
    target = into / source.name
    shutil.copytree(source, target, ignore=not_built, symlinks=True)
    return target


def not_built(folder: str, names: Sequence[str]) -> set[str]:
    """The entries of ``folder`` no build uses: caches and build output (NOT_BUILT), and
    anything neither a folder nor a file, such as the FIFO lgpio leaves in the folder it
    was imported in (``.lgd-nfy0``): reading one waits for a writer forever."""

    def special(name: str) -> bool:
        path = os.path.join(folder, name)
        return not (os.path.isdir(path) or os.path.isfile(path))

    return {n for n in names if any(fnmatch.fnmatch(n, p) for p in NOT_BUILT) or special(n)}


def firmware_config() -> Path | None:
    return next((p for p in FIRMWARE_CONFIGS if p.is_file()), None)


def source_files(source: Path) -> list[Path]:
    """The clone's files a build uses (what build_copy copies)."""
    found = []
    for folder, dirs, files in os.walk(source):
        skip = not_built(folder, dirs + files)
        dirs[:] = [d for d in dirs if d not in skip]
        found += [Path(folder) / name for name in files if name not in skip]
    return found


def clone_commit(source: Path) -> str:
    """The clone's commit ("" for a copy that is no git checkout)."""
    if not (source / ".git").exists():
        return ""
    try:
        return git(source, "rev-parse", "HEAD")
    except (StepFailed, OSError):
        return ""


def wheel_dir() -> Path:
    """The wheelhouse of this Python and machine."""
    return WHEELHOUSE / f"cp{sys.version_info.major}{sys.version_info.minor}-{os.uname().machine}"


def remembered(config_dir: Path | None = None) -> dict[str, object]:
    """The options the table was installed with ({} before the first install)."""
    path = (config_dir or CONFIG_DIR) / OPTIONS_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def installed_port(config_dir: Path | None = None, unit_dir: Path | None = None) -> int:
    """The port the table was installed with: remembered, else what its unit shows (an
    install from before the options were remembered), else 8080."""
    port = remembered(config_dir).get("port")
    if port in (80, 8080):
        return 80 if port == 80 else 8080
    dropin = (unit_dir or UNIT_DIR) / f"{UNIT_NAME}.d" / "port80.conf"
    return 80 if dropin.exists() else 8080


#: Run by a new venv's own python before it is switched in: what a start needs imports.
VENV_CHECK = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
#: The modules the service's start imports (the board stack's libraries on a Pi).
VENV_MODULES = ("companion.cli", "companion.service.webserver", "flask", "waitress", "gpiozero")
PI_MODULES = ("lgpio", "spidev", "gpiod")


def check_venv(venv: Path) -> None:
    """The new venv's own check: its entry point is there and what a start needs imports."""
    if not (venv / "bin" / "companion").exists():
        raise StepFailed(f"{venv}/bin/companion is missing after the install")
    on_pi = os.uname().machine in ("aarch64", "armv7l", "armv6l")
    modules = VENV_MODULES + (PI_MODULES if on_pi else ())
    # In a folder of its own: importing lgpio leaves a FIFO (.lgd-nfy0) in its LG_WD, else
    # in the current folder, which is the user's clone (install.sh runs from there).
    with tempfile.TemporaryDirectory(prefix="pyramid-companion-check-") as folder:
        run([str(venv / "bin" / "python"), "-c", VENV_CHECK, *modules],
            "the new venv does not import what the service needs; the running one stays",
            {**os.environ, "LG_WD": folder}, cwd=folder)  # fmt: skip


def pip_env(constraints: Path, wheels: Path, offline: bool) -> dict[str, str]:
    """pip's settings, as the environment so that the isolated builds of source packages
    get them too: the constraints (the build backend pinned), the wheelhouse, no index
    when every pin is in it; PYPI=1 builds lgpio with its own C library linked in."""
    env = dict(os.environ)
    env.update(
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_CONSTRAINT=str(constraints),
        PIP_FIND_LINKS=str(wheels),
        PIP_NO_CACHE_DIR="1",
        PYPI="1",
        PYTHONUNBUFFERED="1",
    )
    if offline:
        env["PIP_NO_INDEX"] = "1"
    return env


def build_venv(venv: Path, copy: Path, constraints: Path, wheels: Path) -> None:
    """A venv at ``venv`` with the companion built from ``copy`` and the Pi's packages,
    every wheel kept in ``wheels`` (offline when it already holds every pin)."""
    wheels.mkdir(parents=True, exist_ok=True)
    offline = not venvs.wheelhouse_has(read_text(constraints), wheels)
    env = pip_env(constraints, wheels, offline)
    hint = "read the pip error above; run the installer again"
    run([sys.executable, "-m", "venv", str(venv)], "install python3-venv and run again")
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    # The build backend, pinned: kept as a wheel, then in the venv for the build below.
    run([*pip, "wheel", "--quiet", "-w", str(wheels), "setuptools"], hint, env)
    run([*pip, "install", "--quiet", "--no-index", "setuptools"], hint, env)
    built = copy.parent / "wheel"
    run([*pip, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(built),
         str(copy)], hint, env)  # fmt: skip
    (companion,) = built.glob("pyramid_companion-*.whl")
    # Every dependency as a wheel in the wheelhouse (downloaded or built once), then
    # installed from there alone.
    run([*pip, "wheel", "--quiet", "-w", str(wheels), f"{companion}[pi]"], hint, env)
    offline_env = {**env, "PIP_NO_INDEX": "1"}
    run([*pip, "install", "--quiet", f"{companion}[pi]"], hint, offline_env)


# -- the steps ------------------------------------------------------------------------------


@dataclass
class Options:
    port: int = 8080
    start: bool = True
    source: Path = SOURCE
    constraints: Path | None = None
    purge: bool = False
    #: An update keeps the venv it replaces as venv.previous until /healthz answers.
    keep_previous: bool = False
    #: How a new venv is built and checked (tests give stand-ins).
    build: Callable[[Path, Path, Path, Path], None] = build_venv
    check: Callable[[Path], None] = check_venv
    out: Callable[[str], object] = print


def install_steps(opt: Options) -> list[Step]:
    """What ``sudo ./install.sh`` does, in order."""
    constraints = opt.constraints or opt.source / "constraints-pi.txt"
    unit_path = UNIT_DIR / UNIT_NAME
    dropin = UNIT_DIR / f"{UNIT_NAME}.d" / "port80.conf"
    packages_needed = apt_packages()
    missing = [p for p in packages_needed if not succeeds(["dpkg", "-s", p])]

    def apt() -> None:
        hint = "run `sudo apt-get update` to see why, then run the installer again"
        env_hint = "apt-get could not install " + " ".join(missing) + ": " + hint
        try:
            wait_for_dpkg(out)
        except Busy as exc:
            raise StepFailed(str(exc)) from None
        wait = ["-o", "DPkg::Lock::Timeout=60"]
        run(["apt-get", *wait, "update", "-q"], hint)
        run(["apt-get", *wait, "install", "-y", "-q", "--no-install-recommends", *missing],
            env_hint)  # fmt: skip

    def user() -> None:
        run(
            ["useradd", "--system", "--home-dir", str(STATE_DIR), "--no-create-home",
             "--shell", "/usr/sbin/nologin", USER],
            "create the user by hand (`sudo useradd --system companion`) and run again",
        )  # fmt: skip

    def groups() -> None:
        for group in GROUPS:
            if not succeeds(["getent", "group", group]):
                run(["groupadd", "--system", group], f"create the group {group} by hand")
        run(["usermod", "-a", "-G", ",".join(GROUPS), USER], "add the user to the groups by hand")

    def in_groups() -> bool:
        try:
            out = subprocess.run(["id", "-nG", USER], capture_output=True, text=True).stdout
        except FileNotFoundError:
            return False
        return set(GROUPS) <= set(out.split())

    def udev() -> None:
        write_if_changed(UDEV_RULE, UDEV_RULES)
        if opt.start and shutil.which("udevadm"):
            run(["udevadm", "control", "--reload"], "reboot to load the udev rules")
            run(["udevadm", "trigger"], "reboot to apply the udev rules")

    def modules() -> None:
        write_if_changed(MODULES_LOAD, MODULES_TEXT)
        if opt.start:  # now too, for the start below (a reboot would do it as well)
            run(["modprobe", "-a", *KERNEL_MODULES], "reboot: the modules load at boot")

    def firmware() -> None:
        path = firmware_config()
        if path is None:
            raise StepFailed(
                "no /boot/firmware/config.txt: is this Raspberry Pi OS Bookworm? Add these "
                "lines to the firmware's config.txt by hand:\n" + FIRMWARE_BLOCK
            )
        before = read_text(path)
        after = with_block(before)
        write_if_changed(path, after)
        mark_reboot(new_boot_lines(before, after), REBOOT_MARKER, boot_id())

    def firmware_done() -> bool:
        path = firmware_config()
        return path is not None and FIRMWARE_BLOCK in read_text(path)

    def spi() -> None:
        run(
            ["raspi-config", "nonint", "do_spi", "0"],
            "enable SPI in `sudo raspi-config` (Interface Options), then reboot",
        )

    def spi_done() -> bool:
        # raspi-config's own answer: "0" when config.txt has SPI on (as do_spi 0 leaves it)
        if shutil.which("raspi-config") is None:
            return True
        done = subprocess.run(
            ["raspi-config", "nonint", "get_spi"], capture_output=True, text=True, check=False
        )
        return done.returncode == 0 and done.stdout.strip() == "0"

    def built_from() -> str:
        if not constraints.is_file():
            raise StepFailed(f"{constraints} is missing: run the installer from a full clone")
        return venvs.fingerprint(source_files(opt.source), opt.source, constraints)

    def packages() -> None:
        print_ = built_from()
        VENV.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="pyramid-companion-build-") as tmp:
            copy = build_copy(opt.source, Path(tmp))
            new = venvs.build_beside(
                VENV,
                clone_commit(opt.source),
                print_,
                lambda venv: opt.build(venv, copy, constraints, wheel_dir()),
                opt.check,
            )
        venvs.switch(VENV, new, keep_previous=opt.keep_previous)

    def packages_done() -> bool:
        current = venvs.target(VENV)
        try:
            wanted = built_from()
        except StepFailed:
            return False  # the step says why
        return (
            current is not None
            and venvs.record(current).get("fingerprint") == wanted
            and (current / "bin" / "companion").exists()
        )

    def board_config() -> None:
        example = opt.source / "companion" / "board" / "data" / "reference-1-pi.toml"
        write_if_changed(CONFIG_DIR / "board.toml", example.read_text("utf-8"))

    options_text = json.dumps({"port": opt.port}) + "\n"

    def unit() -> None:
        write_if_changed(unit_path, unit_text())
        if opt.port == 80:
            write_if_changed(dropin, unit_text(name="port80.conf"))
        elif dropin.exists():
            dropin.unlink()
        write_if_changed(CONFIG_DIR / OPTIONS_FILE, options_text)

    def unit_done() -> bool:
        port_ok = same_text(dropin, unit_text(name="port80.conf")) if opt.port == 80 else (
            not dropin.exists()
        )  # fmt: skip
        return (
            same_text(unit_path, unit_text())
            and port_ok
            and same_text(CONFIG_DIR / OPTIONS_FILE, options_text)
        )

    def start() -> None:
        hint = "read `journalctl -u pyramid-companion -b` for why it did not start"
        run(["systemctl", "daemon-reload"], hint)
        run(["systemctl", "restart", UNIT_NAME], hint)
        run(["systemctl", "is-active", UNIT_NAME], hint)

    out = opt.out
    steps = [
        Step(
            "apt packages",
            "apt-get install " + " ".join(packages_needed) + build_note(),
            apt,
            "",
            lambda: not missing,
            slow=True,
        ),
        Step(
            "service user",
            f"useradd --system {USER} (home {STATE_DIR}, no login)",
            user,
            "",
            lambda: succeeds(["id", USER]),
        ),
        Step("groups", f"add {USER} to {', '.join(GROUPS)}", groups, "", in_groups),
        Step(
            "udev rules",
            f"write {UDEV_RULE} (gpiochip to gpio, spidev to spi)",
            udev,
            "",
            lambda: same_text(UDEV_RULE, UDEV_RULES),
        ),
        Step(
            "enable SPI",
            "raspi-config nonint do_spi 0 (SPI0 at once; SPI1's overlay needs the reboot)",
            spi,
            "",
            spi_done,
            "SPI already enabled (raspi-config nonint get_spi says 0)"
            if shutil.which("raspi-config")
            else "no raspi-config here: config.txt's dtparam=spi=on enables SPI at the next boot",
        ),
        Step(
            "kernel modules",
            f"write {MODULES_LOAD} ({', '.join(KERNEL_MODULES)} load at boot, before the unit)",
            modules,
            "",
            lambda: same_text(MODULES_LOAD, MODULES_TEXT),
            f"{MODULES_LOAD} already lists {', '.join(KERNEL_MODULES)}",
        ),
        Step(
            "firmware config",
            "config.txt: dtparam=spi=on, dtoverlay=spi1-1cs,cs0_pin=18 (the sensor chain's "
            "bus); core_freq=250 (Pi 3, Zero 2 W), 500 (Pi 4); a reboot applies it",
            firmware,
            "",
            firmware_done,
            "config.txt already set",
        ),
        Step(
            "python packages",
            f"a new venv beside the running one: pip install -c {constraints.name} "
            f"'{opt.source}[pi]' (no test tools; built in a temporary copy, the clone stays "
            f"as it is; every wheel kept in {WHEELHOUSE}), checked, then switched in with "
            "one rename of " + str(VENV) + piwheels_note(),
            packages,
            "",
            packages_done,
            "the venv already holds this version (nothing to build)",
            slow=True,
        ),
        Step(
            "board config",
            f"write {CONFIG_DIR / 'board.toml'} (reference design 1) unless it exists",
            board_config,
            "",
            lambda: (CONFIG_DIR / "board.toml").exists(),
        ),
        Step(
            "unit",
            f"write {unit_path}" + (f" and {dropin}" if opt.port == 80 else ""),
            unit,
            "",
            unit_done,
        ),
        Step(
            "enable",
            f"systemctl enable {UNIT_NAME}",
            lambda: run(["systemctl", "enable", UNIT_NAME], "run `systemctl enable` by hand"),
            "",
            lambda: succeeds(["systemctl", "is-enabled", "--quiet", UNIT_NAME]),
        ),
    ]
    if opt.start:
        steps.append(Step("start", f"systemctl restart {UNIT_NAME}", start, ""))
    return steps


def remove_venvs() -> None:
    for path in (PREFIX, WHEELHOUSE):
        shutil.rmtree(path, ignore_errors=True)


def uninstall_steps(opt: Options) -> list[Step]:
    """What ``sudo ./install.sh uninstall`` does: all but the journal and config."""
    unit_path = UNIT_DIR / UNIT_NAME

    def stop() -> None:
        subprocess.run(["systemctl", "disable", "--now", UNIT_NAME], capture_output=True)

    def unit() -> None:
        unit_path.unlink(missing_ok=True)
        shutil.rmtree(UNIT_DIR / f"{UNIT_NAME}.d", ignore_errors=True)
        if opt.start:
            run(["systemctl", "daemon-reload"], "run `sudo systemctl daemon-reload` by hand")

    def firmware() -> None:
        path = firmware_config()
        if path is not None:
            path.write_text(without_block(read_text(path)), encoding="utf-8")

    def firmware_gone() -> bool:
        path = firmware_config()
        return path is None or BEGIN not in read_text(path)

    steps = [
        Step(
            "stop",
            f"systemctl disable --now {UNIT_NAME}",
            stop,
            "",
            lambda: not unit_path.exists(),
        ),
        Step("unit", f"remove {unit_path}", unit, "", lambda: not unit_path.exists()),
        Step(
            "udev rules",
            f"remove {UDEV_RULE}",
            lambda: UDEV_RULE.unlink(),
            "",
            lambda: not UDEV_RULE.exists(),
        ),
        Step(
            "kernel modules",
            f"remove {MODULES_LOAD}",
            lambda: MODULES_LOAD.unlink(),
            "",
            lambda: not MODULES_LOAD.exists(),
        ),
        Step(
            "firmware config",
            "remove our block from config.txt",
            firmware,
            "",
            firmware_gone,
        ),
        Step(
            "venv",
            f"remove {PREFIX} and the kept wheels ({WHEELHOUSE})",
            remove_venvs,
            "",
            lambda: not PREFIX.exists() and not WHEELHOUSE.exists(),
        ),
        Step(
            "service user",
            f"userdel {USER}",
            lambda: run(["userdel", USER], "remove the user by hand: sudo userdel companion"),
            "",
            lambda: not succeeds(["id", USER]),
        ),
    ]
    if opt.purge:
        for path in (STATE_DIR, CONFIG_DIR):
            steps.append(
                Step(
                    "purge",
                    f"remove {path} (the game journal and board config)",
                    lambda path=path: shutil.rmtree(path),  # type: ignore[misc]
                    "",
                    lambda path=path: not path.exists(),  # type: ignore[misc]
                )
            )
    return steps


def perform(
    steps: Sequence[Step],
    *,
    dry_run: bool,
    out: Callable[[str], object] = print,
    again: str = "sudo ./install.sh` again (it skips what is done)",
) -> bool:
    """Run (or with ``dry_run`` only print) every step; stop at the first that fails
    and say what to run ``again`` once it is fixed."""
    for step in steps:
        if dry_run:
            out(f"[dry-run] {step.name}: {step.what}")
            continue
        if step.done():
            out(f"[done]    {step.name}: {step.note}")
            continue
        if step.slow:
            out(f"[...]     {step.name}: {step.what}")
        try:
            step.action()
        except (StepFailed, OSError) as exc:
            said = str(exc)
            if isinstance(exc, OSError) and not isinstance(exc, StepFailed):
                said = failure_words([step.name], exc.errno or 1, str(exc), "see the error")
            out(f"[FAILED]  {step.name}: {said}")
            out(f"          fix that, then run `{again}")
            return False
        out(f"[ok]      {step.name}: {step.what}")
    return True


# -- updates ---------------------------------------------------------------------------------

EXAMPLES = "companion/board/data"


def as_owner(clone: Path, command: Sequence[str]) -> list[str]:
    """``command`` run as the clone's owner (git must never leave root-owned files)."""
    owner = clone.stat().st_uid
    if owner == os.geteuid():
        return list(command)
    import pwd

    return ["runuser", "-u", pwd.getpwuid(owner).pw_name, "--", *command]


def git(clone: Path, *args: str, hint: str = "") -> str:
    return run(as_owner(clone, ["git", "-C", str(clone), *args]), hint or "see git's words").strip()


def toml_keys(text: str) -> set[str]:
    """The dotted keys of a TOML text (tables' keys, not the tables)."""
    keys: set[str] = set()

    def walk(table: dict[str, object], prefix: str) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}{key}.")
            else:
                keys.add(prefix + key)

    with contextlib.suppress(tomllib.TOMLDecodeError):  # a broken one: its start says so
        walk(tomllib.loads(text), "")
    return keys


def config_changes(
    old_examples: Sequence[str], new_examples: Sequence[str], mine: str
) -> list[str]:
    """Lines naming what an update changes in board.toml's keys: those the new version
    added (they take their defaults) and those of ``mine`` it no longer reads."""
    old = set().union(*(toml_keys(t) for t in old_examples)) if old_examples else set()
    new = set().union(*(toml_keys(t) for t in new_examples)) if new_examples else set()
    lines = [f"board.toml: new key {key} (its default applies)" for key in sorted(new - old)]
    lines += [
        f"board.toml: {key} is no longer used by this version (remove it)"
        for key in sorted((old - new) & toml_keys(mine))
    ]
    return lines


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_ASSIGNMENT = re.compile(r"^\s*([A-Za-z0-9_.\-\s\"']+?)\s*=")


def retire_keys(text: str, keys: Sequence[str], why: str) -> str:
    """``text`` with the lines of each dotted key in ``keys`` (and the continuation lines
    of a value over several lines) commented out as ``# <why>: <line>``, the maker's
    value kept to read.  Unchanged when that would not leave valid TOML without them."""
    wanted, table, open_brackets = set(keys), "", 0
    out = []
    for line in text.splitlines(keepends=True):
        if open_brackets > 0:  # the rest of a retired value
            open_brackets += _brackets(line)
            out.append(f"# {why}: {line}")
            continue
        header = _HEADER.match(line)
        if header:
            table = ".".join(part.strip().strip("\"'") for part in header.group(1).split("."))
        assignment = None if header else _ASSIGNMENT.match(line)
        if assignment is not None:
            name = ".".join(p.strip().strip("\"'") for p in assignment.group(1).split("."))
            if (f"{table}.{name}" if table else name) in wanted:
                open_brackets = _brackets(line[assignment.end() :])
                out.append(f"# {why}: {line}")
                continue
        out.append(line)
    result = "".join(out)
    try:
        tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        return text
    return text if toml_keys(result) & wanted else result


def _brackets(value: str) -> int:
    """Brackets a TOML value's line opens and does not close (strings aside)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|#.*', "", value)
    return bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")


#: Run by the new venv's python: the keys of a board.toml its config reader refuses as
#: unknown (one per line).
_REFUSED = """
import sys
from companion.board.config import ConfigError, load_config
try:
    load_config(sys.argv[1])
except ConfigError as exc:
    print("\\n".join(p.key for p in exc.problems if p.message == "unknown key"))
"""


def refused_keys(python: Path, board: Path) -> list[str]:
    """The keys of ``board`` that the version installed with ``python`` does not know
    (its start refuses them); [] when it reads them all, or cannot be asked."""
    try:
        done = subprocess.run(
            [str(python), "-c", _REFUSED, str(board)], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def retire_refused(
    board: Path, refused: Sequence[str], version: str, out: Callable[[str], object]
) -> bool:
    """Comment out the keys the new version refuses (it would not start with them),
    keeping the file as it was beside it; whether board.toml changed."""
    text = read_text(board)
    retired = retire_keys(text, refused, f"not read since the update to {version}")
    if retired == text:
        for key in refused:
            out(f"board.toml: {key} is not read by this version: remove it and update again")
        return False
    board.with_name(board.name + ".before-update").write_text(text, "utf-8")
    write_if_changed(board, retired)
    for key in refused:
        out(
            f"board.toml: {key} is not read by this version: commented out (the file as it "
            f"was is {board.name}.before-update)"
        )
    return True


def healthy(port: int, wait: float = 180.0, every: float = 3.0) -> bool:
    """True once http://127.0.0.1:<port>/healthz answers 200 (a slow card starts in
    about a minute), False after ``wait`` seconds."""
    end = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        if time.monotonic() >= end:
            return False
        time.sleep(every)


def fetch(clone: Path, out: Callable[[str], object] = print) -> tuple[str, str]:
    """``git pull --ff-only`` in the clone as its owner: (the commit before, the one after)."""
    if not (clone / ".git").exists():
        raise StepFailed(
            f"{clone} is no git clone: put the new release there by hand and run "
            "`sudo ./install.sh` (the journal and board.toml stay)"
        )
    before = git(clone, "rev-parse", "HEAD")
    git(clone, "pull", "--ff-only", "--quiet",
        hint="the clone has changes of its own or no network: `git status` in it")  # fmt: skip
    after = git(clone, "rev-parse", "HEAD")
    out(f"[ok]      fetch: git pull in {clone}: {before[:10]} -> {after[:10]}")
    return before, after


def update(
    opt: Options,
    previous: str,
    *,
    steps: Callable[[Options], list[Step]] = install_steps,
    check: Callable[[int], bool] = healthy,
    out: Callable[[str], object] = print,
    reboot: Callable[[], str | None] = reboot_needed,
) -> bool:
    """Install the clone's new version (already fetched) over ``previous``: the venv is
    built anew from the constraints, the journal, secret key and board.toml stay, the
    service restarts and must answer /healthz; else the previous version is put back.
    Either way it ends with the reboot advice while config.txt lines wait for a boot
    (the new version's firmware step may have added some)."""
    clone = opt.source
    opt.keep_previous = True  # the running venv stays until the new one answers
    unit_path, dropin = UNIT_DIR / UNIT_NAME, UNIT_DIR / f"{UNIT_NAME}.d" / "port80.conf"
    saved = {path: path.read_text("utf-8") for path in (unit_path, dropin) if path.is_file()}

    def examples(commit: str | None) -> list[str]:
        names = sorted(p.name for p in (clone / EXAMPLES).glob("*.toml"))
        if commit is None:
            return [(clone / EXAMPLES / name).read_text("utf-8") for name in names]
        texts = []
        for name in names:
            done = subprocess.run(as_owner(clone, ["git", "-C", str(clone), "show",
                                  f"{commit}:{EXAMPLES}/{name}"]),
                                  capture_output=True, text=True, check=False)  # fmt: skip
            if done.returncode == 0:
                texts.append(done.stdout)
        return texts

    mine = CONFIG_DIR / "board.toml"
    my_text = read_text(mine) if mine.is_file() else None
    for line in config_changes(examples(previous), examples(None), my_text or ""):
        out(line)
    again = "sudo ./install.sh update` again"
    ok = perform(steps(opt), dry_run=False, out=out, again=again)
    answers = ok and check(opt.port)
    if not answers and my_text is not None and venvs.target(VENV) is not None:
        # The new version refuses a key it no longer knows, and so does not start:
        # comment it out (the value kept to read), then start it again.
        refused = refused_keys(VENV / "bin" / "python", mine)
        version = git(clone, "rev-parse", "HEAD")[:10]
        if refused and retire_refused(mine, refused, version, out):
            ok = perform(steps(opt), dry_run=False, out=out, again=again)
            answers = ok and check(opt.port)
    if ok and not answers:
        out(f"[FAILED]  healthz: http://127.0.0.1:{opt.port}/healthz did not answer")
        ok = False
    if ok:
        venvs.confirm(VENV)
        out(f"updated to {git(clone, 'rev-parse', 'HEAD')[:10]}; /healthz answers")
        advise(reboot, out)
        return True
    out(f"update failed: putting {previous[:10]} back")
    git(clone, "reset", "--keep", previous, hint="put the clone back by hand: git checkout")
    venvs.roll_back(VENV)  # the link back at the venv that ran before (if it was switched)
    for path, text in saved.items():
        write_if_changed(path, text)
    if my_text is not None and read_text(mine) != my_text:
        write_if_changed(mine, my_text)  # the previous version reads the keys it knows
    if opt.start:
        run(["systemctl", "daemon-reload"], "run `sudo systemctl daemon-reload`")
        run(["systemctl", "restart", UNIT_NAME], "read `journalctl -u pyramid-companion -b`")
    back = check(opt.port)
    out(f"the previous version {previous[:10]} is back" + ("" if back else " (no /healthz yet)"))
    advise(reboot, out)
    return False


def advise(reboot: Callable[[], str | None], out: Callable[[str], object]) -> None:
    """The reboot advice, when a reboot is pending."""
    words = reboot()
    if words:
        out(words)


def build_note(machine: str | None = None, python: tuple[int, int] | None = None) -> str:
    """What gcc and python3-dev (and swig) are for here (constraints-pi.txt)."""
    have = python or (sys.version_info.major, sys.version_info.minor)
    builds = SOURCE_BUILDS.get((have, machine or os.uname().machine), ())
    tools = "gcc, swig and python3-dev" if have >= SWIG_FROM else "gcc and python3-dev"
    return f" ({tools} build {', '.join(builds)} here)" if builds else ""


def piwheels_note(pip_conf: Path = Path("/etc/pip.conf")) -> str:
    """Where the wheels come from: Raspberry Pi OS names piwheels (ready-built 32-bit
    wheels) in /etc/pip.conf, and pip, run by the installer, reads it."""
    try:
        text = pip_conf.read_text("utf-8")
    except (OSError, ValueError):
        return "; PyPI only"
    return "; PyPI and piwheels (/etc/pip.conf)" if "piwheels" in text else "; PyPI only"


def paths() -> dict[str, Path]:
    """Where the installer puts things (``--print-paths``: tools/pi-check.sh reads them)."""
    return {
        "PREFIX": PREFIX,
        "VENV": VENV,
        "CONFIG_DIR": CONFIG_DIR,
        "STATE_DIR": STATE_DIR,
        "UNIT": UNIT_DIR / UNIT_NAME,
        "UDEV_RULE": UDEV_RULE,
        "MODULES_LOAD": MODULES_LOAD,
        "REBOOT_MARKER": REBOOT_MARKER,
        "WHEELHOUSE": WHEELHOUSE,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="install.sh", description="install the pyramid companion as a service on a Pi"
    )
    parser.add_argument(
        "action", nargs="?", choices=["install", "uninstall", "update"], default="install"
    )
    parser.add_argument("--from", dest="previous", help=argparse.SUPPRESS)  # update, fetched
    parser.add_argument("--dry-run", action="store_true", help="print every step, do nothing")
    parser.add_argument("--port", type=PORT, choices=[80, 8080], default=None,
                        help="80: phones open http://<name>.local/ (no port); remembered: "
                        "a later run without --port keeps it")  # fmt: skip
    parser.add_argument("--no-start", dest="start", action="store_false",
                        help="do not (re)start the service (an image or a chroot)")  # fmt: skip
    parser.add_argument("--purge", action="store_true",
                        help="uninstall: remove the game journal and board config too")  # fmt: skip
    parser.add_argument("--print-paths", action="store_true",
                        help="print where the installer puts things (NAME=path lines)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.print_paths:
        for name, path in paths().items():
            print(f"{name}={path}")
        return 0
    # The port given, else the one the table was installed with (a plain re-run keeps it).
    port = args.port if args.port is not None else installed_port()
    opt = Options(port=port, start=args.start, purge=args.purge)
    try:
        said = check_release()
    except Unsupported as exc:
        if not args.dry_run:
            print(f"[FAILED]  release: {exc}")
            return 1
        said = f"would refuse: {exc}"
    print(f"{'[dry-run]' if args.dry_run else '[ok]     '} release: {said}")
    if args.dry_run:
        return 0 if perform(chosen_steps(args.action, opt), dry_run=True) else 1
    if os.geteuid() != 0:
        print("install.sh: run it as root: sudo ./install.sh", file=sys.stderr)
        return 1
    command = " ".join(["install.sh", *(argv if argv is not None else sys.argv[1:])])
    try:
        with installer_lock(command):
            return run_action(args.action, opt, args.previous)
    except Busy as exc:
        print(f"[FAILED]  lock: {exc}")
        return 1


def chosen_steps(action: str, opt: Options) -> list[Step]:
    return install_steps(opt) if action in ("install", "update") else uninstall_steps(opt)


def run_action(action: str, opt: Options, previous: str | None) -> int:
    """The action, with the installer's lock held."""
    if action == "update":
        if previous is None:  # fetch, then the new version's installer goes on
            return fetch_and_go_on(opt)
        if not opt.start:  # nothing restarts: the new venv's own check is the check
            return 0 if update(opt, previous, check=lambda port: True) else 1
        return 0 if update(opt, previous) else 1
    if not perform(chosen_steps(action, opt), dry_run=False):
        return 1
    if action == "install":
        port = "" if opt.port == 80 else f":{opt.port}"
        print(f"phones open http://{os.uname().nodename}.local{port}/ (logs: journalctl -u "
              f"{UNIT_NAME.removesuffix('.service')} -f)")  # fmt: skip
        advise(reboot_needed, print)
    if action == "uninstall" and not opt.purge:
        print(f"kept: {STATE_DIR} (the game journal) and {CONFIG_DIR}; --purge removes them")
    return 0


def update_needed(
    opt: Options, before: str, after: str, answers: Callable[[int], bool]
) -> tuple[str | None, str]:
    """What ``update`` must still do after the fetch: (the commit to go back to if it
    fails, or None when nothing is left to do; the words saying why).  An update cut off
    at any point (the pull done, the venv half built, switched but never checked) is
    finished, never reported as nothing to do."""
    current = venvs.record(venvs.target(VENV))
    installed = current.get("commit") or None
    pending = venvs.target(venvs.previous_link(VENV))
    if pending is not None:
        back = venvs.record(pending).get("commit") or before
        return back, "an earlier update switched to a new venv and did not finish: finishing it"
    constraints = opt.constraints or opt.source / "constraints-pi.txt"
    built = constraints.is_file() and current.get("fingerprint") == venvs.fingerprint(
        source_files(opt.source), opt.source, constraints
    )
    if installed == after and built:
        if not opt.start or answers(opt.port):
            return None, f"already the newest version ({after[:10]}), installed: nothing to update"
        return installed, f"{after[:10]} is installed but does not answer: starting it again"
    if installed is not None and installed != before:
        return installed, (
            f"an earlier update did not finish ({installed[:10]} installed, the clone at "
            f"{before[:10]}): finishing it"
        )
    return installed or before, f"updating {(installed or before)[:10]} to {after[:10]}"


def fetch_and_go_on(opt: Options) -> int:
    """``update`` without ``--from``: pull, then the new version's own installer goes on
    (its installer may live elsewhere), keeping the lock across the exec."""
    try:
        before, after = fetch(opt.source)
    except StepFailed as exc:
        print(f"[FAILED]  fetch: {exc}")
        return 1
    back, why = update_needed(opt, before, after, lambda port: healthy(port, wait=30))
    print(why)
    if back is None:
        return 0
    again = ["update", "--from", back, "--port", str(opt.port)]
    again += [] if opt.start else ["--no-start"]
    os.execv("/bin/sh", ["sh", str(opt.source / "install.sh"), *again])


if __name__ == "__main__":
    sys.exit(main())
