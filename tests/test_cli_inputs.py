"""Every command and option of ``companion`` with non-finite, negative, huge and empty
values, and the files it reads that never end: a refusal in words (exit 2 naming the
option, exit 1 naming the file) or a run that finishes, never a traceback, never a hang.

The commands and options are read from the parser that ``companion --help`` prints, so
an option added later is tested here without a new row.  Each case runs the real entry
point, ``companion.cli.main``, in a forked child (stdout and stderr to files, a memory
limit, a timeout after which it is killed and the case fails as a hang).
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.board.config import default_config_text
from companion.cli import _parser, main
from companion.inputs import Number

#: Non-finite, negative, huge (overflowing a float; more digits than any range) and empty.
VALUES = ("nan", "inf", "-inf", "-1", "1e400", "9" * 40, "")
#: Seconds a case may take before it counts as a hang (``run`` serves until SIGTERM).
TIMEOUT_S = 30.0
#: Address space a case may use beyond the test process's own (``replay /dev/zero``
#: once read until a MemoryError).
MEMORY_HEADROOM = 768 * 1024 * 1024

#: What makes each command quick and harmless, put before the option under test (the
#: positional first argument, if any, is ``POSITIONAL`` unless it is the one tested).
BASE: dict[tuple[str, ...], list[str]] = {
    ("maze", "check"): [],
    ("maze", "render"): ["--out=sheet.svg"],
    ("replay",): [],
    ("simulate",): ["--games=1", "--seekers=1"],
    ("selftest",): ["--mock", "--seconds=0"],
    ("wiring",): [],
    ("run",): ["--mock", "--port=0", "--state-dir=state"],
    ("bench",): ["--only=no-such-section"],  # never the whole bench
    ("i18n", "update"): [],  # (no options: only an unknown argument is tried)
    ("i18n", "check"): [],
    ("hotspot",): [],  # never --name and --password together: no network is made
    ("install-service",): ["--dry-run"],
    ("firmware", "install"): ["--to=circuitpy"],  # a directory that is no drive
    ("firmware", "check"): ["--timeout=0.2"],  # no board answers here
    ("hardware", "magnets"): [],
    ("hardware", "parts"): ["--part=base", "--out=parts"],  # the quick part only
    # A position no board has: answered before any mesh is made.
    ("hardware", "section"): ["--position=no-such-position", "--out=section.png"],
    # never KiCad here (a minute a run): the config is missing, so it stops before
    ("hardware", "pcb"): ["--out=tile", "--config=no-such-board.toml"],
    # a state directory with no key: it stops before asking any companion
    ("remote",): ["--state-dir=no-such-state", "--url=http://127.0.0.1:9"],
    ("hardware", "spacer"): ["--out=spacer", "--config=no-such-board.toml"],
}
POSITIONAL = "missing-file"
#: Commands that refuse to run for want of other options, whatever the one tested says.
INCOMPLETE = {
    ("hotspot",): "companion hotspot: give --name and --password (or --remove)",
    ("hardware", "section"): "--position no-such-position: no such position",
    ("hardware", "pcb"): "companion: no-such-board.toml: No such file or directory",
    ("hardware", "spacer"): "companion: no-such-board.toml: No such file or directory",
}


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))
    if parser.get_default("func") is not None:
        yield path, parser


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]


COMMANDS = dict(_commands(_parser()))


def test_every_command_of_the_help_has_a_row():
    assert sorted(COMMANDS) == sorted(BASE)


def test_every_numeric_option_is_a_finite_number_with_a_range():
    """No option parses a number with a bare int or float (nan, inf and 10**40 pass them)."""
    plain = [
        f"{' '.join(path)} {argparse._get_action_name(action)}"
        for path, parser in COMMANDS.items()
        for action in _options(parser)
        if action.type in (int, float)
    ]
    assert plain == []


@dataclass(frozen=True)
class Case:
    path: tuple[str, ...]
    option: str  # as argparse names it in its messages: "--pitch", "file"
    value: str
    argv: tuple[str, ...]
    refused: bool  # exit 2 naming the option; else: an answer in words, or a success

    def __str__(self) -> str:
        return f"{' '.join(self.path)} {self.option}={self.value!r}"


def _cases() -> list[Case]:
    cases = []
    for path, parser in COMMANDS.items():
        actions = _options(parser)
        positionals = [a for a in actions if not a.option_strings]
        if not positionals:  # an argument the command does not take
            argv = (*path, *BASE[path], "nan")
            cases.append(Case(path, "nan", "nan", argv, True))
        for action in actions:
            name = argparse._get_action_name(action) or action.dest
            refused = action.nargs == 0 or isinstance(action.type, Number) or bool(action.choices)
            for value in VALUES:
                if action.option_strings:
                    rest = [POSITIONAL] * len(positionals)
                    argv = (*path, *BASE[path], f"{action.option_strings[-1]}={value}", *rest)
                else:
                    argv = (*path, *BASE[path], "--", value)
                cases.append(Case(path, name, value, argv, refused))
    return cases


CASES = _cases()


@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: killed after the timeout (a hang)
    out: str
    err: str


def run_cli(argv: tuple[str, ...] | list[str], cwd: Path, *, serve: bool = False) -> Outcome:
    """``companion ARGV`` in a forked child, in ``cwd``, under a memory limit; a server
    (``serve``: its 32 threads' arenas need more address space, so no limit) gets SIGTERM
    once it logs that it is ready (its clean exit is 0)."""
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    limit = _address_space() + MEMORY_HEADROOM
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        code = 99
        try:
            os.chdir(cwd)
            for fd, target in ((1, out), (2, err)):
                os.dup2(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            if not serve:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            try:
                code = main(list(argv))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            except BaseException:
                traceback.print_exc()
                code = 99
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + TIMEOUT_S
    stopped = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code: int | None = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            code = None
            break
        if serve and not stopped and out.exists() and "ready on" in out.read_text():
            os.kill(pid, signal.SIGTERM)
            stopped = True
        time.sleep(0.01)
    return Outcome(code, out.read_text(errors="replace"), err.read_text(errors="replace"))


def _address_space() -> int:
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmSize:")[1].split()[0]) * 1024


def _words(outcome: Outcome) -> None:
    """Finished in time, without a traceback."""
    assert outcome.code is not None, "a hang: killed after the timeout"
    assert "Traceback" not in outcome.out + outcome.err, outcome.err[-2000:]
    assert outcome.code != 99


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_every_option_with_bad_values_answers_in_words(case: Case, tmp_path):
    (tmp_path / "circuitpy").mkdir()
    outcome = run_cli(case.argv, tmp_path, serve=case.path == ("run",))
    _words(outcome)
    if case.refused:
        assert outcome.code == 2, outcome
        shown = "unrecognized arguments" if case.option == "nan" else f"argument {case.option}:"
        assert shown in outcome.err
        return
    # Paths, names and addresses: a success where the value is fine (a state directory
    # named "nan", a diagram written to "-1"), else the command's own words.
    assert outcome.code in (0, 1, 2), outcome
    if outcome.code != 0:  # the words name what they refuse
        text = outcome.err + outcome.out
        named = (case.value and case.value in text) or case.option in text
        assert named or INCOMPLETE.get(case.path, "?") in text, text


# -- files that never end, or are huge -----------------------------------------------------


def _endless(kind: str, where: Path) -> Path:
    """/dev/zero, a FIFO nobody writes to, a 2 GB sparse file, a directory."""
    path = where / f"endless-{kind}"
    if kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "sparse":
        with open(path, "wb") as f:
            f.truncate(2 * 1024**3)
    else:
        path.mkdir()
    return path


WORDS = {
    "zero": "is a character device, not a file",
    "fifo": "is a FIFO (a pipe that may never end), not a file",
    "sparse": "is 2.0 GB: at most 8.0 MB is read",
    "dir": "is a directory, not a file",
}

#: Every file the command reads: FILE is the endless one.
READERS = [
    ("maze", "check", "FILE"),
    ("replay", "FILE"),
    ("simulate", "--games=1", "--seekers=1", "--maze", "FILE"),
    ("maze", "render", "--out=x.svg", "--maze", "FILE"),
    ("maze", "render", "--out=x.svg", "--sheet=crypt", "--config", "FILE"),
    ("wiring", "--config", "FILE"),
    ("selftest", "--mock", "--seconds=0", "--config", "FILE"),
    ("firmware", "check", "--timeout=0.2", "--config", "FILE"),
    ("run", "--mock", "--port=0", "--state-dir=state", "--maze", "FILE"),
    ("run", "--mock", "--port=0", "--state-dir=state", "--config", "FILE"),
]


@pytest.mark.parametrize("kind", sorted(WORDS))
@pytest.mark.parametrize("argv", READERS, ids=[" ".join(a) for a in READERS])
def test_an_endless_or_huge_file_is_refused_by_size_before_it_is_read(argv, kind, tmp_path):
    path = _endless(kind, tmp_path)
    outcome = run_cli([str(path) if a == "FILE" else a for a in argv], tmp_path)
    _words(outcome)
    assert outcome.code == 1
    assert f"companion: {path}: {WORDS[kind]}" in outcome.err


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_the_service_refuses_an_endless_journal_or_key_and_logs_an_endless_seats_file(
    kind, tmp_path
):
    """What ``companion run`` reads besides its options: the secret key and the journal
    stop start-up in words; the seats file is logged and the phones join again; the
    hotspot's file is left out (the host page shows no Wi-Fi QR code), never waited for."""
    state = tmp_path / "state"
    state.mkdir()
    for name, words in (
        ("secret_key", "cannot be read (is "),
        ("journal.sqlite3", "is "),
    ):
        target = state / name
        target.unlink(missing_ok=True)
        (state / f"endless-{kind}").unlink(missing_ok=True)
        _endless(kind, state).rename(target)
        outcome = run_cli(["run", "--mock", "--port=0", f"--state-dir={state}"], tmp_path)
        _words(outcome)
        assert outcome.code == 1
        assert f"companion: {target}: {words}" in outcome.err
        assert "not a journal file" in outcome.err or name == "secret_key"
        target.unlink()
    _endless(kind, state).rename(state / "seats.json")
    config = tmp_path / "etc"  # the hotspot's wifi.toml beside the board config: no QR code
    config.mkdir()
    (config / "board.toml").write_text(default_config_text(), encoding="utf-8")
    _endless(kind, config).rename(config / "wifi.toml")
    argv = ["run", "--mock", "--port=0", f"--state-dir={state}", f"--config={config}/board.toml"]
    outcome = run_cli(argv, tmp_path, serve=True)
    _words(outcome)
    assert outcome.code == 0
    assert f"could not read {state / 'seats.json'} ({state / 'seats.json'}: is " in outcome.out


@pytest.mark.parametrize("value", VALUES)
def test_install_sh_and_the_hardware_build_refuse_bad_values_too(value, capsys):
    """The two commands outside ``companion``: ``install.sh --port`` (the same port type)
    and ``python -m companion.hardware.build DIR`` (an empty one is not the current one)."""
    from companion.hardware import build
    from companion.pi import install

    with pytest.raises(SystemExit) as info:
        install.main(["--dry-run", f"--port={value}"])
    assert info.value.code == 2
    assert "argument --port: must be a whole number from 0 to 65535" in capsys.readouterr().err
    if not value:
        with pytest.raises(SystemExit) as info:
            build.main(["--check", value])
        assert info.value.code == 2
        assert "argument directory: must name a file or directory" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-inf", "-1", "-nan", "-1e400"])
def test_a_number_option_given_a_dashed_value_apart_names_the_option(value, tmp_path):
    """``--seconds -inf`` (a space, not "="): the option's own words, not argparse's
    "expected one argument"."""
    outcome = run_cli(["selftest", "--mock", "--seconds", value], tmp_path)
    _words(outcome)
    assert outcome.code == 2, outcome
    assert "argument --seconds: must be a number from 0 to 3600" in outcome.err, outcome.err
    assert "expected one argument" not in outcome.err
