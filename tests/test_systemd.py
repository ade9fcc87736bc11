"""The systemd unit (verified by systemd-analyze) and the Pi's installer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.pi import install
from companion.pi.install import (
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
        packaged = ROOT / "companion" / "pi" / "data" / name
        assert packaged.read_bytes() == (ROOT / "systemd" / name).read_bytes()


def test_the_unit_runs_unprivileged_from_opt_in_its_state_directory() -> None:
    text = unit_text()
    lines = set(text.splitlines())
    config = "/etc/pyramid-companion/board.toml"
    assert f"ExecStart={VENV}/bin/companion run --config {config} --port 8080" in lines
    assert {"User=companion", "SupplementaryGroups=gpio spi dialout"} <= lines
    assert {"Type=notify", "WatchdogSec=30", "After=network.target"} <= lines
    assert "After=systemd-modules-load.service" in lines  # DeviceAllow's majors exist
    assert "WorkingDirectory=%S/pyramid-companion" in lines
    # lgpio's pipes: not in / (read-only), nor with the journal, where a killed process's
    # would pile up; in a runtime directory emptied at every stop
    assert {"RuntimeDirectory=pyramid-companion", "Environment=LG_WD=%t/pyramid-companion"} <= lines
    assert len([line for line in text.splitlines() if line.startswith("After=")]) == len(
        {line for line in lines if line.startswith("After=")}
    )  # no line twice
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
    marker = tmp_path / "reboot-pending"
    message = reboot_needed((spi0, spi1), marker, "boot-1")
    assert message and "sudo reboot" in message and str(spi1) in message
    assert str(spi0) not in message and "spi1-1cs" in message
    spi1.touch()
    assert reboot_needed((spi0, spi1), marker, "boot-1") is None
    assert (Path("/dev/spidev0.0"), Path("/dev/spidev1.0")) == install.SPI_DEVICES


RASPI_CONFIG = ROOT / "tools" / "pi-check" / "raspi-config"


@pytest.fixture
def stand_in_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A Raspberry Pi OS config.txt, the stand-in raspi-config on PATH (it does to
    config.txt what the real one does), SPI devices and a boot id, all under tmp_path."""
    config = tmp_path / "config.txt"
    config.write_text("# Raspberry Pi OS\ndtparam=audio=on\n#dtparam=spi=on\n\n[all]\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "raspi-config").symlink_to(RASPI_CONFIG)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("RASPI_CONFIG_CONFIG", str(config))
    monkeypatch.setenv("RASPI_CONFIG_LOG", str(tmp_path / "raspi-config.log"))
    boot = tmp_path / "boot_id"
    boot.write_text("boot-1\n")
    paths = {
        "config": config,
        "boot": boot,
        "marker": tmp_path / "state" / "reboot-pending",
        "spi0": tmp_path / "spidev0.0",
        "spi1": tmp_path / "spidev1.0",
        "modules": tmp_path / "modules-load.d" / "pyramid-companion.conf",
        "log": tmp_path / "raspi-config.log",
    }
    monkeypatch.setattr(install, "FIRMWARE_CONFIGS", (config,))
    monkeypatch.setattr(install, "REBOOT_MARKER", paths["marker"])
    monkeypatch.setattr(install, "BOOT_ID", boot)
    monkeypatch.setattr(install, "SPI_DEVICES", (paths["spi0"], paths["spi1"]))
    monkeypatch.setattr(install, "MODULES_LOAD", paths["modules"])
    return paths


def pi_steps(names: set[str]) -> list[install.Step]:
    return [s for s in install_steps(Options(start=False)) if s.name in names]


def test_a_second_run_changes_nothing_says_so_and_the_reboot_advice_holds_until_a_boot(
    stand_in_pi: dict[str, Path],
) -> None:
    """Over a stand-in config.txt and raspi-config: the first run enables SPI (live, as
    raspi-config does) and writes the block; a second one changes nothing and says so;
    both end with the reboot advice naming the overlay and the core clock, until the
    boot id changes and the SPI devices exist."""
    names = {"enable SPI", "kernel modules", "firmware config"}
    first: list[str] = []
    assert perform(pi_steps(names), dry_run=False, out=first.append)
    assert [line.split(":")[0] for line in first] == [
        "[ok]      enable SPI",
        "[ok]      kernel modules",
        "[ok]      firmware config",
    ]
    assert "dtparam spi=on (live)" in stand_in_pi["log"].read_text()
    stand_in_pi["spi0"].touch()  # do_spi brought SPI0 up at once; SPI1 waits for a boot
    after_first = stand_in_pi["config"].read_text()
    assert "\ndtparam=spi=on\n" in after_first.split(install.BEGIN)[0]
    advice = reboot_needed()
    assert advice and "spi1-1cs" in advice and "core_freq=500" in advice
    assert "core_freq=250" in advice and "sudo reboot" in advice

    stand_in_pi["log"].write_text("")
    second: list[str] = []
    assert perform(pi_steps(names), dry_run=False, out=second.append)
    assert second == [
        "[done]    enable SPI: SPI already enabled (raspi-config nonint get_spi says 0)",
        f"[done]    kernel modules: {stand_in_pi['modules']} already lists spidev, cdc_acm",
        "[done]    firmware config: config.txt already set",
    ]
    assert stand_in_pi["config"].read_text() == after_first
    assert "do_spi" not in stand_in_pi["log"].read_text()
    assert reboot_needed() == advice  # still pending: said again at the end

    stand_in_pi["boot"].write_text("boot-2\n")  # the reboot
    stand_in_pi["spi1"].touch()
    assert reboot_needed() is None


def test_companion_logs_the_pending_reboot_at_start(
    stand_in_pi: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    from companion.pi.pin_factory import log_pending_reboot

    assert perform(pi_steps({"firmware config"}), dry_run=False, out=lambda _: None)
    stand_in_pi["spi0"].touch()
    stand_in_pi["spi1"].touch()
    with caplog.at_level("WARNING"):
        said = log_pending_reboot()
    assert said and "core_freq" in said and said in caplog.text
    stand_in_pi["boot"].write_text("boot-2\n")
    assert log_pending_reboot() is None


def test_the_installer_builds_in_a_copy_and_leaves_the_clone_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pip (as root) builds the companion; the clone gets no build/ or *.egg-info. The
    venv is built beside the link and switched in; a second run builds nothing."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*install.NOT_BUILT))
    before = sorted(str(p.relative_to(clone)) for p in clone.rglob("*"))
    venv = tmp_path / "opt" / "venv"
    wheels = tmp_path / "wheels"

    def build(new: Path, copy: Path, constraints: Path, wheelhouse: Path) -> None:
        # the build stage of build_venv (pip wheel of the copy)
        install.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                     "-w", str(wheels), str(copy)], "pip wheel")  # fmt: skip
        (new / "bin").mkdir(parents=True)
        (new / "bin" / "companion").write_text("#!/bin/sh\n")

    monkeypatch.setattr(install, "VENV", venv)
    opt = Options(source=clone, build=build, check=lambda new: None)
    steps = [s for s in install_steps(opt) if s.name == "python packages"]
    lines: list[str] = []
    assert perform(steps, dry_run=False, out=lines.append), lines
    assert venv.is_symlink() and install.venvs.record(install.venvs.target(venv))
    again: list[str] = []
    assert perform(steps, dry_run=False, out=again.append)
    assert again == [
        "[done]    python packages: the venv already holds this version (nothing to build)"
    ]
    assert [p.name for p in wheels.glob("pyramid_companion-*.whl")]
    assert sorted(str(p.relative_to(clone)) for p in clone.rglob("*")) == before
    makefile = (ROOT / "Makefile").read_text()
    clean = makefile.split("\nclean:")[1].split("\n\n")[0]
    assert "build" in clean and "*.egg-info" in clean


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
        "enable SPI",
        "kernel modules",
        "firmware config",
        "python packages",
        "board config",
        "unit",
        "enable",
        "start",
    ]
    assert "no test tools" in lines[7] and "constraints-pi.txt" in lines[7]
    assert "the clone stays as it is" in lines[7] and "beside the running one" in lines[7]
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


def test_install_sh_writes_no_bytecode_into_the_clone(tmp_path: Path) -> None:
    """Run as root from the user's clone, its Python must leave no root-owned
    __pycache__ there (the user's rm -rf and make clean would be refused)."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*install.NOT_BUILT))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run(
        [str(clone / "install.sh"), "--print-paths"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "VENV=/opt/pyramid-companion/venv" in done.stdout.splitlines()
    assert not list(clone.rglob("__pycache__"))


def test_the_build_tools_are_those_the_pinned_source_packages_need() -> None:
    """gcc and the headers, for the C extensions the constraints say have no wheel."""
    assert {"gcc", "python3-dev"} <= set(install.APT_PACKAGES)
    assert "build-essential" not in install.APT_PACKAGES
    constraints = (ROOT / "constraints-pi.txt").read_text()
    pinned = {line.split("==")[0].lower() for line in constraints.splitlines() if "==" in line}
    for (python, machine), builds in install.SOURCE_BUILDS.items():
        assert set(builds) <= pinned
        tools = "gcc, swig and python3-dev" if python >= (3, 13) else "gcc and python3-dev"
        assert install.build_note(machine, python) == f" ({tools} build {', '.join(builds)} here)"
        assert ("swig" in install.apt_packages(python)) is ("lgpio" in builds)
    assert "64-bit (aarch64): spidev; 32-bit (armv7l): spidev, gpiod" in constraints.replace(
        "\n# ", " "
    )
    assert "setuptools==" in constraints  # the build backend: a re-run builds offline
    assert install.build_note("x86_64") == ""


def test_make_install_never_installs_the_test_tools() -> None:
    makefile = (ROOT / "Makefile").read_text()
    target = makefile.split("\ninstall:")[1].split("\n\n")[0]
    assert "./install.sh" in target and "[test]" not in target and "STAMP" not in target
