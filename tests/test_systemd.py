"""The systemd unit (verified by systemd-analyze) and the Pi's installer."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from companion.service import install
from companion.service.install import (
    FIRMWARE_BLOCK,
    Options,
    install_steps,
    perform,
    reboot_needed,
    uninstall_steps,
    unit_text,
    with_block,
    without_block,
)
from companion.service.webserver import WANTED_FILES

ROOT = Path(__file__).resolve().parent.parent
VENV = Path("/opt/pyramid-companion/venv")


def test_the_packaged_unit_is_the_one_in_systemd() -> None:
    for name in ("pyramid-companion.service", "port80.conf"):
        packaged = ROOT / "companion" / "service" / "data" / name
        assert packaged.read_bytes() == (ROOT / "systemd" / name).read_bytes()


def test_the_unit_runs_unprivileged_from_opt_in_its_state_directory() -> None:
    text = unit_text()
    lines = set(text.splitlines())
    config = "/etc/pyramid-companion/board.toml"
    assert f"ExecStart={VENV}/bin/companion run --config {config} --port 8080" in lines
    assert {"User=companion", "SupplementaryGroups=gpio spi dialout"} <= lines
    assert {"Type=notify", "WatchdogSec=30", "After=network.target"} <= lines
    assert "WorkingDirectory=%S/pyramid-companion" in lines
    assert "Environment=LG_WD=%S/pyramid-companion" in lines  # lgpio's pipes: not in /
    assert "ProtectHome=yes" in lines  # the venv is under /opt, never in a home
    # the web server's connections and streams fit (service/webserver.py raises to it)
    assert f"LimitNOFILE={WANTED_FILES}" in lines
    assert "ProtectKernelTunables=yes" not in lines  # a read-only /sys breaks GPIO edges
    allowed = {line for line in lines if line.startswith("DeviceAllow=")}
    # char-spi is the spidev major: /dev/spidev0.0 (the strip) and /dev/spidev1.0 (the
    # chain's own bus) alike, and the unit says so where it allows it.
    assert "# /dev/spidev0.0 (NeoPixels) and /dev/spidev1.0 (the 74HC165 chain" in text
    assert allowed == {
        "DeviceAllow=char-gpiochip rw",
        "DeviceAllow=char-spi rw",
        "DeviceAllow=char-ttyACM rw",
    }
    assert "@VENV@" not in text
    port80 = unit_text(name="port80.conf")
    assert "AmbientCapabilities=CAP_NET_BIND_SERVICE" in port80
    assert f"ExecStart={VENV}/bin/companion run --config {config} --port 80" in port80


def verify(
    tmp_path: Path, unit: str, dropin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` of ``unit`` in a root with the venv's command and
    the host's own system units (sysinit.target and the rest)."""
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: apt-get install systemd (.ci/run does)"
    root = tmp_path / "root"
    command = root / str(VENV / "bin" / "companion").lstrip("/")
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    system = root / "usr/lib/systemd"
    system.mkdir(parents=True)
    host_units = Path("/usr/lib/systemd/system")
    source = host_units if host_units.is_dir() else Path("/lib/systemd/system")
    shutil.copytree(source, system / "system", symlinks=True)
    units = root / "etc/systemd/system"
    (units / "pyramid-companion.service.d").mkdir(parents=True)
    (units / "pyramid-companion.service").write_text(unit)
    if dropin is not None:
        (units / "pyramid-companion.service.d" / "port80.conf").write_text(dropin)
    return subprocess.run(
        [analyze, "verify", f"--root={root}", "/etc/systemd/system/pyramid-companion.service"],
        capture_output=True,
        text=True,
        check=False,
    )


def test_systemd_analyze_verifies_the_unit_and_the_port_80_drop_in(tmp_path: Path) -> None:
    done = verify(tmp_path, unit_text(), unit_text(name="port80.conf"))
    assert (done.returncode, done.stderr) == (0, "")


def test_systemd_analyze_would_catch_a_broken_unit(tmp_path: Path) -> None:
    broken = unit_text().replace("WatchdogSec=30", "WatchdogSecs=30")
    done = verify(tmp_path, broken)
    assert "Unknown key 'WatchdogSecs'" in done.stderr


def test_the_firmware_block_goes_in_once_and_comes_out_cleanly() -> None:
    original = "# Raspberry Pi OS\ndtparam=audio=on\n\n[pi4]\narm_boost=1\n"
    once = with_block(original)
    assert with_block(once) == once
    assert once.count("core_freq_min=500") == 1
    assert without_block(once) == original
    assert FIRMWARE_BLOCK.endswith("[all]\n# <<< pyramid-companion\n")


def test_the_chains_bus_is_in_the_block_and_an_older_block_is_replaced() -> None:
    """SPI1 (the sensor chain's own bus) is switched on for every model, in [all]; a Pi
    installed before it got the block without the overlay: running the installer again
    replaces that block, and a third run changes nothing."""
    assert "[all]\ndtparam=spi=on\ndtoverlay=spi1-1cs,cs0_pin=18\n" in FIRMWARE_BLOCK
    older = FIRMWARE_BLOCK.replace("dtoverlay=spi1-1cs,cs0_pin=18\n", "")
    installed = "dtparam=audio=on\n\n" + older
    again = with_block(installed)
    assert again.count("dtoverlay=spi1-1cs") == 1 and again.count("dtparam=spi=on") == 1
    assert FIRMWARE_BLOCK in again and with_block(again) == again


def test_the_installer_says_a_reboot_is_needed_until_both_spi_devices_exist(
    tmp_path: Path,
) -> None:
    spi0, spi1 = tmp_path / "spidev0.0", tmp_path / "spidev1.0"
    spi0.touch()
    message = reboot_needed((spi0, spi1))
    assert message and "sudo reboot" in message and str(spi1) in message
    assert str(spi0) not in message and "spi1-1cs" in message
    spi1.touch()
    assert reboot_needed((spi0, spi1)) is None
    assert (Path("/dev/spidev0.0"), Path("/dev/spidev1.0")) == install.SPI_DEVICES


def test_dry_run_prints_every_step_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(install, "UNIT_DIR", tmp_path)
    lines: list[str] = []
    assert perform(install_steps(Options(port=80)), dry_run=True, out=lines.append)
    names = [line.split(":")[0].removeprefix("[dry-run] ") for line in lines]
    assert names == [
        "apt packages",
        "service user",
        "groups",
        "udev rules",
        "firmware config",
        "enable SPI",
        "venv",
        "python packages",
        "board config",
        "unit",
        "enable",
        "start",
    ]
    assert "no test tools" in lines[7] and "constraints-pi.txt" in lines[7]
    assert "port80.conf" in lines[9]
    assert list(tmp_path.iterdir()) == []
    lines.clear()
    perform(uninstall_steps(Options()), dry_run=True, out=lines.append)
    assert not any("/var/lib/pyramid-companion" in line for line in lines)  # journal kept
    lines.clear()
    perform(uninstall_steps(Options(purge=True)), dry_run=True, out=lines.append)
    assert any("/var/lib/pyramid-companion" in line for line in lines)


def test_a_failing_step_says_what_to_do_and_stops() -> None:
    def fail() -> None:
        raise install.StepFailed("apt-get failed; check the network")

    ran: list[str] = []
    steps = [
        install.Step("first", "fails", fail, ""),
        install.Step("second", "never runs", lambda: ran.append("second"), ""),
    ]
    lines: list[str] = []
    assert not perform(steps, dry_run=False, out=lines.append)
    assert lines[0] == "[FAILED]  first: apt-get failed; check the network"
    assert "run `sudo ./install.sh` again" in lines[1]
    assert ran == []


def test_make_install_never_installs_the_test_tools() -> None:
    makefile = (ROOT / "Makefile").read_text()
    target = makefile.split("\ninstall:")[1].split("\n\n")[0]
    assert "./install.sh" in target and "[test]" not in target and "STAMP" not in target
