"""The installer at a real table's re-runs: the release checked first, the options a
table was installed with kept by a plain re-run, one installer at a time, apt's lock
waited for, failures that say what failed, files the system reads written whole, and
output that reaches a log line by line."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.pi import atomic, install, locks, venvs
from companion.pi.failures import explain, failure_words
from companion.pi.release import Unsupported, check_release

ROOT = Path(__file__).resolve().parents[1]


# -- the release, first ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codename", "python"), [("bookworm", (3, 11)), ("trixie", (3, 13))], ids=str
)
def test_bookworm_and_trixie_with_their_python_are_supported(codename, python):
    info = {"PRETTY_NAME": f"Debian GNU/Linux ({codename})", "VERSION_CODENAME": codename}
    assert check_release(info, python) == f"Debian GNU/Linux ({codename}), Python 3.{python[1]}"


@pytest.mark.parametrize(
    ("codename", "python", "words"),
    [
        ("bullseye", (3, 9), "Python 3.9: the installer supports Raspberry Pi OS Bookworm"),
        ("noble", (3, 12), "Trixie (Python 3.13), 64- or 32-bit"),
        ("trixie", (3, 11), "whose python3 is 3.13, but install.sh runs under Python 3.11"),
    ],
)
def test_an_unsupported_release_or_python_is_refused_in_words(codename, python, words):
    with pytest.raises(Unsupported, match=words.replace("(", r"\(").replace(")", r"\)")):
        check_release({"PRETTY_NAME": codename, "VERSION_CODENAME": codename}, python)


def test_the_installer_refuses_an_unsupported_release_before_any_step(monkeypatch, capsys):
    def refuse() -> str:
        raise Unsupported("this is Raspbian GNU/Linux 11 (bullseye) with Python 3.9")

    ran: list[str] = []
    monkeypatch.setattr(install, "check_release", refuse)
    monkeypatch.setattr(install, "run_action", lambda *a: ran.append("ran") or 0)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert install.main([]) == 1
    assert capsys.readouterr().out.startswith("[FAILED]  release: this is Raspbian")
    assert ran == []


# -- options remembered -----------------------------------------------------------------------


def test_a_plain_re_run_keeps_port_80(tmp_path, monkeypatch, capsys):
    """Installed with --port 80: the unit step remembers it, and ``install.sh`` without
    --port keeps the port-80 drop-in (the dry run shows what it would write)."""
    monkeypatch.setattr(install, "UNIT_DIR", tmp_path / "units")
    monkeypatch.setattr(install, "CONFIG_DIR", tmp_path / "etc")
    (unit,) = [s for s in install.install_steps(install.Options(port=80)) if s.name == "unit"]
    assert install.perform([unit], dry_run=False, out=lambda _: None)
    assert install.installed_port() == 80
    monkeypatch.setattr(install, "check_release", lambda: "a supported release")
    assert install.main(["--dry-run"]) == 0
    said = capsys.readouterr().out
    assert "port80.conf" in next(line for line in said.splitlines() if "] unit:" in line)
    (again,) = [s for s in install.install_steps(install.Options(port=80)) if s.name == "unit"]
    assert again.done()  # a plain re-run changes nothing
    (eighty80,) = [s for s in install.install_steps(install.Options()) if s.name == "unit"]
    assert not eighty80.done()  # --port 8080 given: the drop-in goes


def test_a_table_installed_before_options_were_remembered_keeps_its_port(tmp_path):
    units = tmp_path / "units"
    (units / f"{install.UNIT_NAME}.d").mkdir(parents=True)
    assert install.installed_port(tmp_path / "etc", units) == 8080
    (units / f"{install.UNIT_NAME}.d" / "port80.conf").write_text("[Service]\n")
    assert install.installed_port(tmp_path / "etc", units) == 80


# -- one installer at a time ------------------------------------------------------------------

HOLD = """
import sys, time
from pathlib import Path
from companion.pi.locks import installer_lock
with installer_lock("install.sh update", Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(30)
"""


def test_a_second_installer_is_refused_naming_the_first_and_a_killed_one_blocks_nothing(
    tmp_path,
):
    lock = tmp_path / "install.lock"
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "held"
        with pytest.raises(locks.Busy) as refused, locks.installer_lock("install.sh", lock):
            pass
        said = str(refused.value)
        assert f"pid {first.pid}, `install.sh update`, since " in said
        assert "another install.sh is running" in said
    finally:
        first.kill()
        first.wait()
    with locks.installer_lock("install.sh", lock):  # the kernel let go of the killed one's
        assert f"pid {os.getpid()}" in lock.read_text()


def test_the_lock_is_kept_across_the_updates_exec(tmp_path, monkeypatch):
    lock = tmp_path / "install.lock"
    with locks.installer_lock("install.sh update", lock):
        # what the new version's installer finds after os.execv: the fd, inherited
        fd = int(os.environ[locks.LOCK_FD])
        assert os.get_inheritable(fd)
        with locks.installer_lock("install.sh update --from x", lock):
            pass


HOLD_DPKG = """
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.lockf(f, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(30)
"""


def test_apt_waits_for_another_programs_dpkg_lock_then_refuses_naming_it(tmp_path):
    """The dpkg lock, held by another process (as unattended-upgrades holds it): the
    installer names the holder from the kernel's lock table, waits, and refuses in words;
    once it is let go, it goes on."""
    frontend = tmp_path / "lock-frontend"
    frontend.touch()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_DPKG, str(frontend)], stdout=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert locks.lock_holder(frontend) == f"python3, pid {holder.pid}" or (
            f"pid {holder.pid}" in (locks.lock_holder(frontend) or "")
        )
        with pytest.raises(locks.Busy, match=f"held by .*pid {holder.pid} \\(waited 1 s\\)"):
            locks.wait_for_dpkg(lines.append, wait=1, every=0.2, locks=(frontend,))
        assert lines and f"pid {holder.pid} holds its lock" in lines[0]
    finally:
        holder.kill()
        holder.wait()
    locks.wait_for_dpkg(lines.append, wait=1, every=0.2, locks=(frontend,))  # free: goes on


# -- failures in words ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "what"),
    [
        ("OSError: [Errno 28] No space left on device: '/opt/x'", "the disk is full"),
        (
            "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 412 "
            "(unattended-upgr)",
            "another program holds the package manager's lock",
        ),
        (
            "WARNING: Retrying ... Failed to establish a new connection: [Errno -3] Temporary "
            "failure in name resolution\nERROR: No matching distribution found for setuptools",
            "the network",
        ),
        (
            "  error: command 'swig' failed: No such file or directory\n"
            "  ERROR: Failed building wheel for lgpio",
            "building a package from source (the compiler)",
        ),
    ],
    ids=["full disk", "lock", "network", "compiler"],
)
def test_a_failure_says_what_failed(output, what):
    said = explain(output)
    assert said is not None and said[0] == what
    words = failure_words(["pip", "install", "x"], 1, "noise\n" + output + "\nmore noise", "h")
    assert words.startswith(what) and said[1] in words
    if what != "the network":
        assert "network" not in words


def test_an_unknown_failure_keeps_its_last_lines_and_the_hint():
    words = failure_words(["git", "pull"], 1, "a\nb\nc\nd\n", "see git's words")
    assert words == "`git pull` failed (1): b | c | d; see git's words"


def test_a_step_that_meets_a_full_disk_says_so(tmp_path):
    def full() -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "venv"))

    lines: list[str] = []
    assert not install.perform([install.Step("board config", "x", full, "")], dry_run=False,
                               out=lines.append)  # fmt: skip
    assert lines[0].startswith("[FAILED]  board config: the disk is full")


# -- files written whole ----------------------------------------------------------------------


def test_a_file_the_system_reads_is_the_old_or_the_new_never_half(tmp_path, monkeypatch):
    config = tmp_path / "config.txt"
    config.write_text("dtparam=audio=on\n")

    def cut(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", cut)
    with pytest.raises(OSError):
        atomic.write_atomically(config, "dtparam=audio=on\ndtparam=spi=on\n")
    assert config.read_text() == "dtparam=audio=on\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.txt"]  # no staged file left
    monkeypatch.undo()
    atomic.write_atomically(config, "new\n", 0o600)
    assert config.read_text() == "new\n" and config.stat().st_mode & 0o777 == 0o600


# -- output line by line ----------------------------------------------------------------------


def test_install_sh_output_reaches_a_pipe_line_by_line(tmp_path):
    """Through a pipe (a log, ``| tee``), the first line arrives while the run still
    works (here: a dpkg that hangs), not when it ends."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dpkg").write_text("#!/bin/sh\nsleep 30\n")
    (fake / "dpkg").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    env.pop("PYTHONUNBUFFERED", None)
    run = subprocess.Popen(
        ["sh", str(ROOT / "install.sh"), "--dry-run"], stdout=subprocess.PIPE, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert run.stdout is not None
        ready, _, _ = select.select([run.stdout], [], [], 20)
        assert ready, "no line within 20 s: the output is buffered"
        assert run.stdout.readline().startswith(b"[dry-run] release: ")
        assert run.poll() is None  # still running
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()


# -- the venv link ----------------------------------------------------------------------------


def test_a_venv_from_before_the_link_is_adopted_and_a_switch_is_one_rename(tmp_path):
    link = tmp_path / "venv"
    (link / "bin").mkdir(parents=True)
    (link / "bin" / "companion").write_text("old")
    new = tmp_path / "venv-abc-1"
    (new / "bin").mkdir(parents=True)
    (new / "bin" / "companion").write_text("new")
    old = venvs.switch(link, new, keep_previous=True)
    assert old == tmp_path / "venv-installed" and link.is_symlink()
    assert (link / "bin" / "companion").read_text() == "new"
    assert venvs.target(venvs.previous_link(link)) == old
    assert venvs.roll_back(link)
    assert (link / "bin" / "companion").read_text() == "old"
    assert not new.exists() and not venvs.previous_link(link).exists()


def test_the_wheelhouse_says_which_pins_it_lacks(tmp_path):
    (tmp_path / "Flask-3.1.3-py3-none-any.whl").touch()
    (tmp_path / "adafruit_circuitpython_neopixel-6.4.2-py3-none-any.whl").touch()
    pins = "# c\nflask==3.1.3\nadafruit-circuitpython-neopixel==6.4.2\nsetuptools==80.9.0\n"
    assert venvs.wheelhouse_has(pins, tmp_path) == ["setuptools==80.9.0"]
    (tmp_path / "setuptools-80.9.0-py3-none-any.whl").touch()
    assert venvs.wheelhouse_has(pins, tmp_path) == []


def test_a_lock_of_our_own_is_no_flock_leak(tmp_path):
    """fcntl is the kernel's: the lock file is plain and any run may open it."""
    lock = tmp_path / "l"
    with locks.installer_lock("x", lock), open(lock) as other, pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_the_new_venvs_check_names_modules_that_exist():
    """A module moved away would make every new venv fail its own check."""
    import importlib.util

    for name in install.VENV_MODULES:
        assert importlib.util.find_spec(name) is not None, name


def test_a_fifo_in_the_clone_is_no_build_input(tmp_path):
    """lgpio leaves a FIFO (.lgd-nfy0) where it was imported: the re-run's fingerprint
    read it and waited forever, and the build copy could not copy it."""
    clone = tmp_path / "clone"
    (clone / "companion").mkdir(parents=True)
    (clone / "companion" / "a.py").write_text("x = 1\n")
    (clone / "__pycache__").mkdir()
    (clone / "constraints-pi.txt").write_text("flask==3.1.3\n")
    os.mkfifo(clone / ".lgd-nfy0")
    names = {p.relative_to(clone).as_posix() for p in install.source_files(clone)}
    assert names == {"companion/a.py", "constraints-pi.txt"}
    copy = install.build_copy(clone, tmp_path / "build")
    assert not (copy / ".lgd-nfy0").exists() and (copy / "companion" / "a.py").is_file()


def test_the_new_venvs_check_leaves_nothing_in_the_folder_it_runs_from(tmp_path, monkeypatch):
    """The check runs in a folder of its own with LG_WD there (install.sh runs from the
    user's clone): what an import leaves behind goes with that folder."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "companion").touch()
    script = "import os, sys\nos.mkfifo(os.path.join(os.environ['LG_WD'], '.lgd-nfy0'))\n"
    script += "os.mkfifo('.lgd-nfy1')\n"
    (venv / "bin" / "python").write_text(f'#!/bin/sh\nexec {sys.executable} -c "{script}"\n')
    (venv / "bin" / "python").chmod(0o755)
    clone = tmp_path / "clone"
    clone.mkdir()
    monkeypatch.chdir(clone)
    install.check_venv(venv)
    assert list(clone.iterdir()) == []
