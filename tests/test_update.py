"""``sudo ./install.sh update``: a real git clone goes from the previous commit to the new
one; the venv is built anew, the journal, secret key and board.toml stay, new and removed
config keys are named, and a new version that does not answer /healthz is rolled back.

The install steps and the health check are stand-ins (no apt, systemd or pip here); the
git side, the file moves and the key comparison are the installer's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.board.config import example_config_text
from companion.pi import install
from companion.pi.install import Options, Step, fetch, update

OLD_EXAMPLE = "[sensors]\nchips = 19\nold_key = 2\n"
NEW_EXAMPLE = "[sensors]\nchips = 19\nnew_key = 3\n"


def git(where: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """An upstream with the previous and the new commit, a table's clone at the previous
    one, and an installed table: venv, unit, board.toml, journal and secret key."""
    upstream = tmp_path / "upstream"
    example = upstream / install.EXAMPLES / "reference-1-pi.toml"
    example.parent.mkdir(parents=True)
    example.write_text(OLD_EXAMPLE)
    (upstream / "constraints-pi.txt").write_text("flask==3.1.3\n")
    git(tmp_path, "init", "-q", "-b", "main", str(upstream))
    for key, value in (("user.name", "t"), ("user.email", "t@example.org")):
        git(upstream, "config", key, value)
    git(upstream, "add", ".")
    git(upstream, "commit", "-qm", "previous")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    example.write_text(NEW_EXAMPLE)
    git(upstream, "commit", "-qam", "new")
    paths = {
        "clone": clone,
        "venv": tmp_path / "opt" / "venv",
        "units": tmp_path / "units",
        "config": tmp_path / "etc",
        "state": tmp_path / "state",
    }
    # The installed venv, as this installer leaves it: a venv of its own, the link to it,
    # and its record (the commit it was built from).
    installed = paths["venv"].with_name("venv-previous")
    installed.mkdir(parents=True)
    (installed / "version").write_text("previous")
    record = {"commit": git(clone, "rev-parse", "HEAD"), "fingerprint": "previous"}
    (installed / install.venvs.RECORD).write_text(json.dumps(record))
    paths["venv"].symlink_to(installed.name)
    paths["units"].mkdir()
    (paths["units"] / install.UNIT_NAME).write_text("previous unit")
    paths["config"].mkdir()
    (paths["config"] / "board.toml").write_text("[sensors]\nchips = 7\nold_key = 5\n")
    paths["state"].mkdir()
    (paths["state"] / "journal.sqlite").write_bytes(b"games")
    (paths["state"] / "secret_key").write_bytes(b"s3cret")
    monkeypatch.setattr(install, "VENV", paths["venv"])
    monkeypatch.setattr(install, "UNIT_DIR", paths["units"])
    monkeypatch.setattr(install, "CONFIG_DIR", paths["config"])
    monkeypatch.setattr(install, "STATE_DIR", paths["state"])
    return paths


def stand_in_build(venv: Path, copy: Path, constraints: Path, wheels: Path) -> None:
    """pip's stand-in: a venv holding the version of the clone's copy it was built from."""
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "companion").write_text("#!/bin/sh\n")
    version = (copy / install.EXAMPLES / "reference-1-pi.toml").read_text()
    (venv / "version").write_text("new" if "new_key" in version else "previous")


def new_install(opt: Options) -> list[Step]:
    """The install steps: the installer's own "python packages" step (a venv built beside
    the running one, checked, switched in by one rename) over pip's stand-in, and a unit."""
    opt.build, opt.check = stand_in_build, lambda venv: None

    def unit() -> None:
        (install.UNIT_DIR / install.UNIT_NAME).write_text("new unit")

    packages = [s for s in install.install_steps(opt) if s.name == "python packages"]
    return [*packages, Step("unit", "stand-in", unit, "")]


def no_reboot() -> None:
    return None


def kept(table: dict[str, Path]) -> bool:
    return (
        (table["state"] / "journal.sqlite").read_bytes() == b"games"
        and (table["state"] / "secret_key").read_bytes() == b"s3cret"
        and (table["config"] / "board.toml").read_text() == "[sensors]\nchips = 7\nold_key = 5\n"
    )


def test_an_update_brings_the_new_version_and_keeps_the_tables_data(
    table: dict[str, Path],
) -> None:
    lines: list[str] = []
    before, after = fetch(table["clone"], lines.append)
    assert before != after == git(table["clone"], "rev-parse", "HEAD")
    opt = Options(source=table["clone"], start=False)
    assert update(
        opt, before, steps=new_install, check=lambda port: True, out=lines.append, reboot=no_reboot
    )
    assert (table["venv"] / "version").read_text() == "new"  # built anew
    assert not table["venv"].with_name("venv.previous").exists()
    assert (table["units"] / install.UNIT_NAME).read_text() == "new unit"
    assert kept(table)
    assert "board.toml: new key sensors.new_key (its default applies)" in lines
    assert "board.toml: sensors.old_key is no longer used by this version (remove it)" in lines
    assert lines[-1] == f"updated to {after[:10]}; /healthz answers"
    assert fetch(table["clone"], lines.append) == (after, after)  # nothing new: nothing to do


def test_a_new_version_without_healthz_is_rolled_back(table: dict[str, Path]) -> None:
    lines: list[str] = []
    before, after = fetch(table["clone"], lines.append)
    assert git(table["clone"], "rev-parse", "HEAD") == after
    answers = iter([False, True])  # the new one stays silent; the previous one answers
    opt = Options(source=table["clone"], start=False)
    assert not update(
        opt,
        before,
        steps=new_install,
        check=lambda p: next(answers),
        out=lines.append,
        reboot=no_reboot,
    )
    assert git(table["clone"], "rev-parse", "HEAD") == before
    assert (table["venv"] / "version").read_text() == "previous"
    assert (table["units"] / install.UNIT_NAME).read_text() == "previous unit"
    assert kept(table)
    assert "[FAILED]  healthz: http://127.0.0.1:8080/healthz did not answer" in lines
    assert lines[-1] == f"the previous version {before[:10]} is back"


def test_a_failing_step_is_rolled_back_and_names_the_update_to_run_again(
    table: dict[str, Path],
) -> None:
    """A venv that cannot be installed (pip refuses the new constraints): the previous
    version is back, and the words say to run the update again, not a plain install."""

    def broken(opt: Options) -> list[Step]:
        def pip(venv: Path, copy: Path, constraints: Path, wheels: Path) -> None:
            venv.mkdir(parents=True)  # half built
            raise install.StepFailed("pip: ResolutionImpossible")

        opt.build = pip
        return [s for s in install.install_steps(opt) if s.name == "python packages"]

    lines: list[str] = []
    before, _ = fetch(table["clone"], lines.append)
    opt = Options(source=table["clone"], start=False)
    assert not update(
        opt, before, steps=broken, check=lambda p: True, out=lines.append, reboot=no_reboot
    )
    assert "[FAILED]  python packages: pip: ResolutionImpossible" in lines
    assert "          fix that, then run `sudo ./install.sh update` again" in lines
    assert git(table["clone"], "rev-parse", "HEAD") == before
    assert (table["venv"] / "version").read_text() == "previous"
    assert kept(table)
    assert lines[-1] == f"the previous version {before[:10]} is back"


@pytest.mark.parametrize("healthz", [True, False], ids=["updated", "rolled back"])
def test_an_update_ends_with_the_reboot_advice_while_one_is_pending(
    table: dict[str, Path], tmp_path: Path, healthz: bool
) -> None:
    """The new version's firmware step may add config.txt lines: like an install, an
    update (done or rolled back) ends with the advice while they wait for a boot (the
    installer's own reboot_needed over a stand-in marker and SPI device)."""
    marker, spidev = tmp_path / "reboot-pending", tmp_path / "spidev0.0"
    spidev.touch()
    marker.write_text("boot-1\ncore_freq=500\n")

    def pending() -> str | None:
        return install.reboot_needed(devices=[spidev], marker=marker, boot="boot-1")

    lines: list[str] = []
    before, _ = fetch(table["clone"], lines.append)
    answers = iter([healthz, True])
    opt = Options(source=table["clone"], start=False)
    assert update(
        opt, before, steps=new_install, check=lambda p: next(answers), out=lines.append,
        reboot=pending,
    ) is healthz  # fmt: skip
    assert lines[-1] == (
        "reboot once so that config.txt takes effect: core_freq=500 (a Pi 4's fixed core "
        "clock: the NeoPixels' timing): sudo reboot"
    )
    assert lines[-2].startswith("updated to" if healthz else "the previous version")


def test_a_clone_that_is_no_git_checkout_is_told_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(install.StepFailed, match="no git clone"):
        fetch(tmp_path)


@pytest.mark.parametrize(
    ("text", "keys", "expected"),
    [
        (  # a key in a table; another table's key of the same name stays
            "[sensors]\nold = 1\n[leds]\nold = 2\n",
            ["sensors.old"],
            "[sensors]\n# gone: old = 1\n[leds]\nold = 2\n",
        ),
        (  # a value over several lines, with a bracket inside a string and a comment
            '[sensors]\nindices = [\n  1, 2, # "]"\n  3,\n]\nchips = 7\n',
            ["sensors.indices"],
            '[sensors]\n# gone: indices = [\n# gone:   1, 2, # "]"\n'
            "# gone:   3,\n# gone: ]\nchips = 7\n",
        ),
        (  # a nested table and a dotted key
            "[leds.layout]\nstride = 12\nserpentine.rows = true\n",
            ["leds.layout.serpentine.rows"],
            "[leds.layout]\nstride = 12\n# gone: serpentine.rows = true\n",
        ),
        (  # a member of an inline table is left alone (the maker is told to remove it)
            "[leds]\nlayout = {stride = 12}\n",
            ["leds.layout.stride"],
            "[leds]\nlayout = {stride = 12}\n",
        ),
    ],
)
def test_retired_keys_are_commented_out_and_the_rest_stays_valid_toml(
    text: str, keys: list[str], expected: str
) -> None:
    assert install.retire_keys(text, keys, "gone") == expected


def with_a_key_no_version_knows() -> str:
    text = example_config_text("reference-1-pi")
    assert "\n[sensors]\n" in text
    return text.replace("\n[sensors]\n", "\n[sensors]\nold_key = 5\n", 1)


def new_install_with_python(opt: Options) -> list[Step]:
    """The install steps' stand-in, with the new venv's python: this one (this companion's
    config reader)."""

    def python() -> None:
        (install.VENV / "bin").mkdir(parents=True, exist_ok=True)
        link = install.VENV / "bin" / "python"
        if not link.exists():
            link.symlink_to(sys.executable)

    return [*new_install(opt), Step("python", "stand-in", python, "", lambda: False)]


def test_the_new_versions_own_config_reader_names_the_keys_it_refuses(tmp_path: Path) -> None:
    board = tmp_path / "board.toml"
    board.write_text(with_a_key_no_version_knows())
    assert install.refused_keys(Path(sys.executable), board) == ["sensors.old_key"]
    board.write_text(example_config_text("reference-1-pi"))
    assert install.refused_keys(Path(sys.executable), board) == []


def test_a_key_the_new_version_refuses_is_commented_out_and_the_update_goes_on(
    table: dict[str, Path],
) -> None:
    """A table's board.toml with a key the new version no longer knows: that version
    would not start with it, so the update comments it out (the maker's value kept to
    read, the file as it was beside it) and starts it again; a rollback puts it back."""
    board = table["config"] / "board.toml"
    board.write_text(with_a_key_no_version_knows())

    def answers(port: int) -> bool:  # the new version starts once the key is gone
        return "\nold_key = 5" not in board.read_text()

    lines: list[str] = []
    before, after = fetch(table["clone"], lines.append)
    opt = Options(source=table["clone"], start=False)
    assert update(
        opt, before, steps=new_install_with_python, check=answers, out=lines.append,
        reboot=no_reboot,
    )  # fmt: skip
    why = f"# not read since the update to {after[:10]}: old_key = 5\n"
    assert why in board.read_text()
    assert (table["config"] / "board.toml.before-update").read_text() == (
        with_a_key_no_version_knows()
    )
    assert (
        "board.toml: sensors.old_key is not read by this version: commented out "
        "(the file as it was is board.toml.before-update)"
    ) in lines
    assert lines[-1] == f"updated to {after[:10]}; /healthz answers"


def test_a_failed_update_leaves_board_toml_as_the_previous_version_reads_it(
    table: dict[str, Path],
) -> None:
    board = table["config"] / "board.toml"
    board.write_text(with_a_key_no_version_knows())

    checks = iter([False, False, True])  # never answers; the previous version does
    lines: list[str] = []
    before, _ = fetch(table["clone"], lines.append)
    opt = Options(source=table["clone"], start=False)
    assert not update(
        opt, before, steps=new_install_with_python, check=lambda p: next(checks),
        out=lines.append, reboot=no_reboot,
    )  # fmt: skip
    assert board.read_text() == with_a_key_no_version_knows()


class CutOff(BaseException):
    """The update killed here (a hang-up, a power cut): nothing of the installer's runs on."""


@pytest.mark.parametrize("point", ["pip", "switch", "restart"])
def test_an_update_cut_off_anywhere_leaves_a_working_venv_and_running_it_again_finishes(
    table: dict[str, Path], point: str
) -> None:
    """Cut off while pip builds the new venv, right after the switch, or while the new
    version restarts: the link points at a complete venv (the previous one or the checked
    new one), the data is kept, and ``update`` again finishes the job ("nothing to
    update" only once it is done)."""
    lines: list[str] = []
    before, after = fetch(table["clone"], lines.append)

    def cut(opt: Options) -> list[Step]:
        steps = new_install(opt)
        if point == "pip":

            def half(venv: Path, copy: Path, constraints: Path, wheels: Path) -> None:
                (venv / "bin").mkdir(parents=True)
                (venv / "lib").mkdir()
                raise CutOff

            opt.build = half
        elif point == "switch":  # killed just after the rename, before the unit
            steps[-1] = Step("unit", "cut off", lambda: (_ for _ in ()).throw(CutOff()), "")
        return steps

    def restart_cut(port: int) -> bool:
        raise CutOff

    opt = Options(source=table["clone"], start=False)
    with pytest.raises(CutOff):
        update(
            opt, before, steps=cut, check=restart_cut if point == "restart" else lambda p: True,
            out=lines.append, reboot=no_reboot,
        )  # fmt: skip
    venv = install.venvs.target(table["venv"])
    assert venv is not None and (venv / "version").read_text() in ("previous", "new")
    if point == "pip":
        assert (venv / "version").read_text() == "previous"  # the running one untouched
    assert kept(table)

    # sudo ./install.sh update, again: the pull finds nothing new, the job is not done.
    again = Options(source=table["clone"], start=False)
    back, why = install.update_needed(again, after, after, lambda port: True)
    assert back == before, why
    assert "nothing to update" not in why
    assert update(
        again, back, steps=new_install, check=lambda p: True, out=lines.append, reboot=no_reboot
    )
    assert (table["venv"] / "version").read_text() == "new"
    assert (table["units"] / install.UNIT_NAME).read_text() == "new unit"
    assert not install.venvs.previous_link(table["venv"]).exists()
    assert [p.name for p in table["venv"].parent.glob("venv-*")] == [
        install.venvs.target(table["venv"]).name  # type: ignore[union-attr]
    ]  # the half-built and the replaced venvs are gone
    assert kept(table)
    done, why = install.update_needed(again, after, after, lambda port: True)
    assert done is None and "nothing to update" in why


def test_a_switched_venv_that_never_answers_is_rolled_back_by_the_next_run(
    table: dict[str, Path],
) -> None:
    """Cut off after the switch; the re-run restarts the new version, which never answers
    /healthz: the previous venv and commit are back."""
    lines: list[str] = []
    before, after = fetch(table["clone"], lines.append)

    def cut(opt: Options) -> list[Step]:
        steps = new_install(opt)
        steps[-1] = Step("unit", "cut off", lambda: (_ for _ in ()).throw(CutOff()), "")
        return steps

    opt = Options(source=table["clone"], start=False)
    with pytest.raises(CutOff):
        update(opt, before, steps=cut, check=lambda p: True, out=lines.append, reboot=no_reboot)
    again = Options(source=table["clone"], start=False)
    back, why = install.update_needed(again, after, after, lambda port: True)
    assert back == before and "did not finish" in why
    answers = iter([False, True])
    assert not update(
        again, back, steps=new_install, check=lambda p: next(answers), out=lines.append,
        reboot=no_reboot,
    )  # fmt: skip
    assert (table["venv"] / "version").read_text() == "previous"
    assert git(table["clone"], "rev-parse", "HEAD") == before
    assert kept(table)
