"""What the companion accepts from outside as a number or a file: one definition each.

Every numeric option of every command is a :class:`Number`: finite, within its range,
refused otherwise with argparse's exit 2 and a message naming the option ("argument
--pitch: must be a number from 5 to 100 (mm), not 'nan'").  ``nan`` and ``inf`` would
otherwise pass ``float()`` and every ``<`` check, and end in a traceback or a loop that
never ends.  A path option is a :func:`given_path` (an empty one would be the current
directory: ``--to ""`` once copied the firmware there).  Every file the command and the
service read goes through :func:`read_text` or :func:`read_bytes`: only a regular file,
and only up to a size, so ``/dev/zero``, a FIFO or a 2 GB sparse file is refused in words
before a byte of it is read.
"""

from __future__ import annotations

import argparse
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: The most digits an integer option is read from (Python refuses over 4,300 anyway).
MAX_DIGITS = 30


@dataclass(frozen=True)
class Number:
    """An argparse ``type``: a finite number from ``low`` to ``high`` (inclusive; above
    ``low`` only when ``above``), an integer when ``integer``."""

    low: float
    high: float
    integer: bool = False
    above: bool = False
    unit: str = ""

    @property
    def __name__(self) -> str:  # argparse names the type in some of its messages
        return "integer" if self.integer else "number"

    def __call__(self, text: str) -> float:
        value = self.parse(text)
        if value is None:
            shown = text if len(text) <= 24 else text[:20] + "..."
            raise argparse.ArgumentTypeError(f"must be {self.describe()}, not {shown!r}")
        return value

    def parse(self, text: str) -> float | None:
        """The value, or None if ``text`` is not such a number."""
        word = text.strip()
        try:
            if self.integer:
                value: float = int(word) if len(word) <= MAX_DIGITS else math.inf
            else:
                value = float(word)
        except ValueError:
            return None
        if not math.isfinite(value) or value > self.high:
            return None
        if value < self.low or (self.above and value == self.low):
            return None
        return value

    def describe(self) -> str:
        """The range in words: "a whole number from 1 to 1000000"."""
        kind = "a whole number" if self.integer else "a number"
        low, high = _number(self.low), _number(self.high)
        span = f"above {low} up to {high}" if self.above else f"from {low} to {high}"
        return f"{kind} {span}" + (f" ({self.unit})" if self.unit else "")


def given_path(text: str) -> Path:
    """An argparse ``type`` for a file or directory: any path but an empty one (which
    would silently be the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a file or directory, not ''")
    return Path(text)


def given_text(text: str) -> str:
    """An argparse ``type`` for a name, a device or an address: anything but empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


#: A TCP port (0: any free one).
PORT = Number(0, 65535, integer=True)


# -- files -----------------------------------------------------------------------------

#: The largest file read by default: a maze, a board config, a game record is far less.
MAX_FILE_BYTES = 8 * 1024 * 1024


class FileRefused(OSError):
    """A file that is not read: not a regular file, or larger than its limit."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(why)
        self.filename = str(path)
        self.strerror = why

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (a pipe that may never end)"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_file(mode: int) -> str | None:
    """What a file of this ``st_mode`` is when it is not a regular file: "a FIFO ..."."""
    return next((kind for test, kind in _KINDS if test(mode)), None)


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; FileRefused (an OSError)
    for anything else, before it is read.  Opened without blocking, so a FIFO with no
    writer is refused too, not waited for."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        kind = not_a_file(info.st_mode)
        if kind is not None:
            raise FileRefused(path, f"is {kind}, not a file")
        if info.st_size > limit:
            raise FileRefused(path, f"is {_size(info.st_size)}: at most {_size(limit)} is read")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)  # the file may have grown since
    if len(data) > limit:
        raise FileRefused(path, f"is over {_size(limit)}: at most {_size(limit)} is read")
    return data


def read_text(path: str | Path, limit: int = MAX_FILE_BYTES) -> str:
    """:func:`read_bytes` as UTF-8 text with its line ends made ``\\n``, as
    ``Path.read_text`` gives it (UnicodeDecodeError if it is not UTF-8)."""
    text = read_bytes(path, limit).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _size(n: int) -> str:
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("kB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
