"""What failed, in words: the installer reads a failed command's output for the causes a
table meets (a full card, a lock held by another program, no network, a package that
would not compile) instead of telling every failure to "check the network"."""

from __future__ import annotations

import re
from collections.abc import Sequence

#: (what the output says, what failed, what to do), the first that matches wins.
CAUSES: tuple[tuple[str, str, str], ...] = (
    (
        r"No space left on device|Errno 28|ENOSPC|You don't have enough free space",
        "the disk is full",
        "free some space (`df -h /`; `sudo apt-get clean`; old files in /var/log), "
        "then run it again",
    ),
    (
        r"Could not get lock|Unable to acquire the dpkg|dpkg frontend lock|"
        r"is another process using it|dpkg was interrupted",
        "another program holds the package manager's lock",
        "wait until it ends (an update running in the background, or another apt-get), "
        "then run it again; after `dpkg was interrupted`: `sudo dpkg --configure -a`",
    ),
    (
        r"Temporary failure in name resolution|Could not resolve|Name or service not known|"
        r"Failed to establish a new connection|Network is unreachable|Connection refused|"
        r"Connection timed out|Read timed out|No route to host|Failed to fetch|"
        r"ProxyError|SSLError|CERTIFICATE_VERIFY_FAILED",
        "the network",
        "this step needs the internet (a package to download): connect the Pi (`ping "
        "pypi.org`), then run it again",
    ),
    (
        r"command '[^']*(gcc|swig|cc|g\+\+)' failed|Python\.h: No such file|"
        r"error: command .* failed|Failed building wheel for|"
        r"Failed to build installable wheels|unable to execute '[^']+'",
        "building a package from source (the compiler)",
        "the installer's apt step gives gcc, swig and python3-dev: run it again; if it "
        "fails the same way, report the lines above",
    ),
)


def explain(output: str) -> tuple[str, str, str] | None:
    """(what failed, the output line that says so, what to do), or None when the output
    names none of the known causes."""
    lines = output.splitlines()
    for pattern, what, todo in CAUSES:
        found = re.compile(pattern)
        for line in lines:
            if found.search(line):
                return what, line.strip(), todo
    return None


def failure_words(command: Sequence[str], code: int, output: str, hint: str) -> str:
    """The one message a failed command gets: its cause and what to do when the output
    shows one, else its last lines and the step's own hint."""
    said = explain(output)
    tail = " | ".join(line.strip() for line in output.strip().splitlines()[-3:])
    if said is not None:
        what, line, todo = said
        return f"{what}: `{' '.join(command[:3])} …` failed ({code}): {line}; {todo}"
    return f"`{' '.join(command)}` failed ({code}): {tail}; {hint}"
