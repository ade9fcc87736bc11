"""tools/pi-check/device_access.py, the emulated check's step for what nspawn under qemu
cannot enforce: over a small root with the installer's own unit, modules-load.d file and
udev rules, it passes, and each of the breakages a Pi would suffer makes it fail."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from companion.pi import install

ROOT = Path(__file__).resolve().parent.parent
NODES = ["/dev/gpiochip0", "/dev/spidev0.0", "/dev/spidev1.0", "/dev/ttyACM1"]
DEBIAN_TTY_RULE = (
    'SUBSYSTEM=="tty", KERNEL=="tty[A-Z]*[0-9]|ttymxc[0-9]*|pppox[0-9]*", GROUP="dialout"\n'
)


def load(name: str = "device_access") -> ModuleType:
    """One of pi-check's own Python scripts (``tools/pi-check/NAME.py``), imported."""
    path = ROOT / "tools" / "pi-check" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_root(tmp_path: Path, unit: str) -> Path:
    root = tmp_path / "root"
    units = root / "etc/systemd/system"
    units.mkdir(parents=True)
    (units / install.UNIT_NAME).write_text(unit)
    (root / "etc/modules-load.d").mkdir(parents=True)
    (root / "etc/modules-load.d/pyramid-companion.conf").write_text(install.MODULES_TEXT)
    (root / "etc/udev/rules.d").mkdir(parents=True)
    (root / "etc/udev/rules.d/60-pyramid-companion.rules").write_text(install.UDEV_RULES)
    (root / "usr/lib/udev/rules.d").mkdir(parents=True)
    (root / "usr/lib/udev/rules.d/50-udev-default.rules").write_text(DEBIAN_TTY_RULE)
    (root / "var/lib/dpkg").mkdir(parents=True)
    (root / "var/lib/dpkg/arch").write_text("amd64\n")
    (root / "usr/bin").mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(sys.executable).resolve(), root / "usr/bin/python3")  # an amd64 ELF here
    venv = root / "opt/pyramid-companion/venv/bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to("/usr/bin/python3")  # absolute: resolved inside the root
    return root


def problems(
    tmp_path: Path,
    unit: str,
    modules: str = install.MODULES_TEXT,
    modules_name: str = "pyramid-companion.conf",
) -> list[str]:
    if sys.platform != "linux" or Path(sys.executable).resolve().read_bytes()[18] != 62:
        pytest.skip("the stand-in root's python is this machine's: x86-64 only")
    root = make_root(tmp_path, unit)
    (root / "etc/modules-load.d/pyramid-companion.conf").unlink()
    (root / "etc/modules-load.d" / modules_name).write_text(modules)
    module = load()
    result: list[str] = module.check(
        root,
        root / "etc/systemd/system" / install.UNIT_NAME,
        root / "etc/modules-load.d" / modules_name,
        Path("/opt/pyramid-companion/venv"),
        NODES,
    )
    return result


def test_the_installed_unit_reaches_every_node_the_stack_opens(tmp_path: Path) -> None:
    assert problems(tmp_path, install.unit_text()) == []


def test_without_device_allow_char_spi_the_spi_nodes_fail(tmp_path: Path) -> None:
    unit = install.unit_text().replace("DeviceAllow=char-spi rw\n", "")
    found = problems(tmp_path, unit)
    assert [p.split(":")[0] for p in found] == ["/dev/spidev0.0", "/dev/spidev1.0"]
    assert "no DeviceAllow=char-spi rw" in found[0]


def test_a_unit_started_before_the_modules_load_fails_for_spi_and_the_pico(
    tmp_path: Path,
) -> None:
    unit = install.unit_text().replace("After=systemd-modules-load.service\n", "")
    found = problems(tmp_path, unit)
    assert [p.split(":")[0] for p in found] == ["/dev/spidev0.0", "/dev/spidev1.0", "/dev/ttyACM1"]
    assert "looked up in /proc/devices at start" in found[0]


def test_a_group_the_unit_lacks_fails(tmp_path: Path) -> None:
    unit = install.unit_text().replace(
        "SupplementaryGroups=gpio spi dialout", "SupplementaryGroups=gpio spi"
    )
    found = problems(tmp_path, unit)
    assert found == [
        "/dev/ttyACM1: udev gives it group dialout, not one of the unit's: gpio spi companion"
    ]


def test_cdc_acm_named_only_in_a_comment_is_not_loaded(tmp_path: Path) -> None:
    """The modules file read as systemd-modules-load reads it: a comment is no module."""
    modules = install.MODULES_TEXT.replace("\ncdc_acm\n", "\n")
    assert "cdc_acm" in modules  # still in the comment
    found = problems(tmp_path, install.unit_text(), modules)
    assert [p.split(":")[0] for p in found] == ["/dev/ttyACM1"]


def test_a_modules_file_without_conf_is_never_read(tmp_path: Path) -> None:
    found = problems(tmp_path, install.unit_text(), modules_name="pyramid-companion")
    assert found[0].startswith("pyramid-companion: systemd-modules-load reads only *.conf")
    assert [p.split(":")[0] for p in found[1:]] == [
        "/dev/spidev0.0",
        "/dev/spidev1.0",
        "/dev/ttyACM1",
    ]


LIMITS = "Limit                     Soft Limit           Hard Limit           Units\n"


@pytest.mark.parametrize(
    ("show", "running", "fails"),
    [
        ("LimitNOFILE=4096\nLimitNOFILESoft=4096\n", "4096 4096", False),
        ("LimitNOFILE=524288\nLimitNOFILESoft=1024\n", "4096 524288", True),  # removed
        ("LimitNOFILE=2048\nLimitNOFILESoft=2048\n", "2048 2048", True),  # lowered
    ],
    ids=["as shipped", "removed", "lowered"],
)
def test_the_units_limits_as_started_hold_what_the_companion_needs(
    show: str, running: str, fails: bool
) -> None:
    from companion.service.webserver import WANTED_FILES

    module = load("limits_check")
    source = (ROOT / "companion/service/webserver.py").read_text()
    assert module.wanted(source) == WANTED_FILES
    limits = (
        LIMITS + f"Max open files            {running.replace(' ', '                 ')} files\n"
    )
    if fails:
        with pytest.raises(SystemExit, match="allows too few file handles"):
            module.check(show, limits, WANTED_FILES)
    else:
        assert module.check(show, limits, WANTED_FILES).startswith("LimitNOFILE 4096:4096")


def test_pi_check_knows_every_negative_and_both_releases() -> None:
    script = (ROOT / "tools/pi-check.sh").read_text()
    for name in ("no-cdc_acm", "modules-not-conf", "no-LimitNOFILE", "no-rollback"):
        assert f'"{name}|' in script
    assert "bookworm|trixie) ;;" in script
    for point in ("the fetch", "pip", "the new venv's check", "the switch", "the restart"):
        assert f'kill_update_at "{point}"' in script
    assert 'step "piwheels stand-in in /etc/pip.conf"' in script


def test_the_update_steps_reach_the_running_root_only_through_in_box() -> None:
    """Under --boot vm the root's files are a disk inside qemu: a step that read them from
    the host ("$R$...") would pass under nspawn and fail, or read stale files, there."""
    script = (ROOT / "tools/pi-check.sh").read_text()
    update = script[
        script.index('step "previous commit installed') : script.index('step "shut down"')
    ]
    assert '"$R' not in update
    assert "nsenter" not in update and "pgrep --ns" not in update
    assert "hostfwd=tcp:127.0.0.1:$AGENT_PORT-:8022" in script
    assert "box_agent.py serve 8022" in script


def test_two_checks_at_once_take_turns_at_the_booted_roots_ports() -> None:
    """nspawn's root answers on the host's own port 80, a vm's on fixed forwarded ports: a
    second check waits for the first one's machine instead of testing the wrong table."""
    script = (ROOT / "tools/pi-check.sh").read_text()
    nspawn = script.index("systemd-nspawn -D")
    assert script.rindex("hold_port 80", 0, nspawn) > script.rindex(
        'if [ "$BOOT" = nspawn ]', 0, nspawn
    )
    vm = script.index("qemu-system-$QEMU -M virt")
    assert script.rindex('hold_port "$VM_PORT"; hold_port "$AGENT_PORT"', 0, vm) > 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--boot", "floppy"], "pi-check: --boot is nspawn or vm"),
        (["--arch", "riscv64"], "pi-check: --arch is arm64 or armhf"),
        (["--release", "sid"], "pi-check: --release is bookworm or trixie"),
    ],
)
def test_pi_check_refuses_what_it_cannot_do_in_words_before_it_changes_anything(
    tmp_path: Path, args: list[str], words: str
) -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "tools/pi-check.sh"), *args, str(tmp_path / "work")],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert words in done.stderr
    assert not (tmp_path / "work").exists()


LISTING = """@basic-io
    # Basic IO
    read
    write
    close

@system-service
    # General system service operations
    @basic-io
    ioctl
    openat
"""
STRACE = '4242 openat(AT_FDCWD,"/dev/spidev0.0",O_RDWR) = 3\n4242 ioctl(3,1073769217,0) = 0\n'


def test_the_recorded_syscalls_are_held_against_the_units_filter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    module = load()
    assert module.check_syscalls(["SystemCallFilter=@system-service\n"], STRACE, LISTING) == []
    refused = module.check_syscalls(["SystemCallFilter=@basic-io\n"], STRACE, LISTING)
    assert refused == ["SystemCallFilter= refuses syscalls the stack makes: ioctl, openat"]
    assert module.check_syscalls(["[Service]\n"], STRACE + "4242 mknodat(1) = 0\n", LISTING) == []
    assert "@system-service would refuse mknodat" in capsys.readouterr().out
    assert module.check_syscalls(["[Service]\n"], "", LISTING) == [
        "no syscalls recorded (QEMU_STRACE gave nothing)"
    ]


def test_the_update_steps_game_check_holds_across_a_restart_and_fails_on_a_new_key(
    tmp_path: Path,
) -> None:
    """pi-check's update step judges "journal and secret key kept" by the host's cookie
    opening the same game after the restart: over a real ``companion run --mock``, a
    restart keeps it, a new secret key (the file gone) fails it with words."""
    from companion.bench.clients import run_companion

    check = load("update_check")
    state, saved = tmp_path / "state", tmp_path / "game.json"
    state.mkdir()
    journal = state / "journal.sqlite3"

    def restarted() -> tuple[subprocess.Popen[str], str]:
        proc, port, _ = run_companion(str(state))
        return proc, f"http://127.0.0.1:{port}"

    proc, url = restarted()
    try:
        assert check.game(url, saved).startswith("game ")
        assert "in the journal as it was" in check.same_game(url, saved, journal)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    proc, url = restarted()
    try:
        assert "in the journal as it was" in check.same_game(url, saved, journal)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    (state / "secret_key").unlink()
    proc, url = restarted()
    try:
        with pytest.raises(SystemExit, match="no longer opens /api/host/status: HTTP Error 403"):
            check.same_game(url, saved, journal)
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_the_update_steps_venv_check_names_a_file_that_is_not_the_clones(tmp_path: Path) -> None:
    check = load("update_check")
    site, clone = tmp_path / "site", tmp_path / "clone"
    for where in (site, clone):
        (where / "companion" / "pi").mkdir(parents=True)
        (where / "companion" / "pi" / "install.py").write_text("new = True\n")
    assert check.venv_is(site, clone) == "the venv's 1 companion files are the clone's"
    (site / "companion" / "pi" / "install.py").write_text("new = False\n")
    with pytest.raises(
        SystemExit, match=r"1 files of the venv are not the clone's: \['companion/pi/install.py'\]"
    ):
        check.venv_is(site, clone)
