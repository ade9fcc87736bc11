"""``companion install-service``: put the systemd unit in place on a Pi."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from companion.board.config import default_config_text

UNIT_NAME = "pyramid-companion.service"
CONFIG_DIR = Path("/etc/pyramid-companion")
USER = "companion"


def unit_text(executable: str) -> str:
    """The unit file with the path of this install's ``companion`` command filled in."""
    template = resources.files("companion.service").joinpath("data", UNIT_NAME).read_text("utf-8")
    return template.replace("@COMPANION@", executable)


def install(*, unit_dir: Path = Path("/etc/systemd/system"), dry_run: bool = False) -> list[str]:
    """Create the service user, a board config and the unit; enable and start it."""
    beside = Path(sys.executable).with_name("companion")  # this virtual environment's command
    executable = str(beside) if beside.exists() else (shutil.which("companion") or "companion")
    steps: list[list[str]] = [
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
        ["usermod", "-a", "-G", "gpio,spi,dialout", USER],
        ["systemctl", "daemon-reload"],
        ["systemctl", "enable", "--now", UNIT_NAME],
    ]
    done = []
    if dry_run:
        return [f"write {unit_dir / UNIT_NAME}", *(" ".join(s) for s in steps)]
    subprocess.run(steps[0], check=False)  # the user may exist already
    subprocess.run(steps[1], check=True)
    CONFIG_DIR.mkdir(parents=True, exist_ok=True)
    config = CONFIG_DIR / "board.toml"
    if not config.exists():
        config.write_text(default_config_text(), encoding="utf-8")
        done.append(f"wrote {config} (the reference design 1 board: edit it for yours)")
    (unit_dir / UNIT_NAME).write_text(unit_text(executable), encoding="utf-8")
    done.append(f"wrote {unit_dir / UNIT_NAME}")
    for step in steps[2:]:
        subprocess.run(step, check=True)
        done.append(" ".join(step))
    return done
