"""pi-check's step "the unit's limits as started": the service's file handle limit as
systemd started it (``systemctl show``) and as the running process has it
(``/proc/<pid>/limits``), against what the companion needs (``WANTED_FILES`` in the
clone's companion/service/webserver.py, not the unit's own figure, so that a unit whose
``LimitNOFILE`` was lowered or removed fails here).

    python3 limits_check.py SHOW LIMITS WEBSERVER_PY

SHOW: ``systemctl show -p LimitNOFILE -p LimitNOFILESoft`` output; LIMITS: the main
process's /proc/<pid>/limits.  Prints one line; exit 1 on a shortfall.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def wanted(webserver: str) -> int:
    found = re.search(r"^WANTED_FILES = (\d+)", webserver, re.MULTILINE)
    if found is None:
        raise SystemExit("no WANTED_FILES in companion/service/webserver.py")
    return int(found.group(1))


def check(show: str, limits: str, need: int) -> str:
    values = dict(line.split("=", 1) for line in show.splitlines() if "=" in line)
    soft = values.get("LimitNOFILESoft", "?")
    hard = values.get("LimitNOFILE", "?")
    row = next((line for line in limits.splitlines() if line.startswith("Max open files")), "")
    running = row.split()[3:5] if row else ["?", "?"]
    seen = (
        ("LimitNOFILESoft", soft),
        ("LimitNOFILE", hard),
        ("the running process's soft limit", running[0]),
    )
    problems = [
        f"{name} {value} < {need}"
        for name, value in seen
        if not value.isdigit() or int(value) < need
    ]
    if problems:
        raise SystemExit(
            "the unit as started allows too few file handles: " + "; ".join(problems)
            + f" (the companion needs {need}: WANTED_FILES)"
        )
    return (
        f"LimitNOFILE {soft}:{hard} as started, the running process {running[0]}:{running[1]} "
        f"(needs {need})"
    )


def main(argv: list[str]) -> int:
    show, limits, webserver = (Path(a).read_text("utf-8") for a in argv)
    print(check(show, limits, wanted(webserver)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
