"""The emulated check's stand-in for what nspawn under qemu cannot enforce (pi-check.sh).

nspawn under qemu-user applies neither ``DevicePolicy=``/``DeviceAllow=`` nor seccomp, so
a unit that cannot open SPI on a Pi would boot here.  This proves it statically instead,
for every device node the board stack opened in board_check.py (recorded by the
stand-ins), against the installed files of the emulated root (paths from the installer):

- the unit's device list allows the node (``DeviceAllow=char-NAME rw`` or the path);
- a node whose major a module registers has that module in modules-load.d and the unit
  ordered ``After=systemd-modules-load.service`` (systemd looks the major up at start);
- the group udev gives the node (the root's rules and the installer's, in udev's order)
  is one of the unit's groups;
- ``SystemCallArchitectures=native`` admits the venv's python (its ELF machine is the
  root's own architecture);
- every syscall the board stack made (recorded by qemu-user's ``QEMU_STRACE``) is inside
  the unit's ``SystemCallFilter=`` (the groups as the root's ``systemd-analyze
  syscall-filter`` lists them); with no filter in the unit, it says which of them
  ``@system-service`` would refuse.

    python3 device_access.py ROOT UNIT MODULES_LOAD VENV RECORDED_NODES [STRACE FILTERS]

Prints one line per node; the last line says what fails, and the exit status is 1.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path

#: Device node name -> (the name /proc/devices gives its major, the module registering it
#: or None when built into Raspberry Pi OS's kernel).
KERNEL_NAMES = (
    ("spidev*", "spi", "spidev"),
    ("gpiochip*", "gpiochip", None),
    ("ttyACM*", "ttyACM", "cdc_acm"),
)
#: ELF e_machine of each Debian architecture.
ELF_MACHINE = {"arm64": 183, "armhf": 40, "amd64": 62}


def unit_values(texts: list[str], key: str) -> list[str]:
    """Every ``key=`` value of the unit and its drop-ins, in order (an empty one resets)."""
    values: list[str] = []
    for text in texts:
        for line in text.splitlines():
            if line.startswith(f"{key}="):
                value = line.split("=", 1)[1].strip()
                values = [] if not value else [*values, value]
    return values


#: Where systemd-modules-load reads its lists, and what it reads there (modules-load.d(5)).
MODULES_DIRS = ("etc/modules-load.d", "run/modules-load.d", "usr/lib/modules-load.d",
                "lib/modules-load.d")  # fmt: skip


def modules_loaded_at_boot(root: Path) -> dict[str, str]:
    """The modules systemd-modules-load loads in ``root``, as it reads them: only
    ``*.conf`` files (one in /etc overrides the same name further down), a module name per
    line, lines starting with ``#`` or ``;`` ignored.  Module -> the file naming it."""
    files: dict[str, Path] = {}
    for folder in reversed(MODULES_DIRS):
        for conf in sorted((root / folder).glob("*.conf")):
            files[conf.name] = conf
    loaded: dict[str, str] = {}
    for name in sorted(files):
        for line in files[name].read_text("utf-8", "replace").splitlines():
            line = line.strip()
            if line and not line.startswith(("#", ";")):
                loaded.setdefault(line, name)
    return loaded


def udev_group(root: Path, node: str) -> str | None:
    """The GROUP= the root's udev rules give ``node`` (the last assignment wins)."""
    files: dict[str, Path] = {}
    for folder in ("usr/lib/udev/rules.d", "lib/udev/rules.d", "etc/udev/rules.d"):
        for rules in sorted((root / folder).glob("*.rules")):
            files[rules.name] = rules  # /etc overrides a file of the same name
    group = None
    for name in sorted(files):
        for line in files[name].read_text("utf-8", "replace").splitlines():
            kernel = re.search(r'KERNEL=="([^"]+)"', line)
            assigned = re.search(r'GROUP:?="([^"]+)"', line)
            if kernel and assigned and any(
                fnmatch.fnmatchcase(node, pattern) for pattern in kernel.group(1).split("|")
            ):
                group = assigned.group(1)
    return group


def check(root: Path, unit: Path, modules_load: Path, venv: Path, nodes: list[str]) -> list[str]:
    """The problems (empty: every node is reachable by the unit and nothing else needed)."""
    texts = [unit.read_text("utf-8")]
    dropins = unit.parent / f"{unit.name}.d"
    texts += [p.read_text("utf-8") for p in sorted(dropins.glob("*.conf"))]
    policy = (unit_values(texts, "DevicePolicy") or ["auto"])[-1]
    allowed = [value.split() for value in unit_values(texts, "DeviceAllow")]
    after = " ".join(unit_values(texts, "After")).split()
    groups = " ".join(unit_values(texts, "SupplementaryGroups") + unit_values(texts, "Group"))
    loaded = modules_loaded_at_boot(root)
    problems = []
    if modules_load.suffix != ".conf" or modules_load.parent.name != "modules-load.d":
        problems.append(
            f"{modules_load.name}: systemd-modules-load reads only *.conf files in a "
            "modules-load.d directory, so it loads nothing from this one"
        )
    for node in sorted(set(nodes)):
        name = Path(node).name
        kind = next((k for k in KERNEL_NAMES if fnmatch.fnmatchcase(name, k[0])), None)
        if kind is None:
            problems.append(f"{node}: a device the check does not know (add it to KERNEL_NAMES)")
            continue
        _, major, module = kind
        said = []
        if policy in ("closed", "strict"):
            entry = next((a for a in allowed if a[0] in (f"char-{major}", node)), None)
            access = entry[1] if entry and len(entry) > 1 else "rwm"
            if entry is None or not {"r", "w"} <= set(access):
                problems.append(
                    f"{node}: DevicePolicy={policy} and no DeviceAllow=char-{major} rw "
                    "(the unit cannot open it on a Pi)"
                )
                continue
            said.append(f"DeviceAllow={' '.join(entry)}")
            if module is not None:
                if module not in loaded or "systemd-modules-load.service" not in after:
                    problems.append(
                        f"{node}: char-{major} is looked up in /proc/devices at start, but "
                        f"{module} is not loaded before the unit (a *.conf file of "
                        f"modules-load.d names it, as systemd reads them: {module in loaded}; "
                        "After=systemd-modules-load.service: "
                        f"{'systemd-modules-load.service' in after})"
                    )
                    continue
                said.append(f"{module} loaded before it ({loaded[module]})")
        group = udev_group(root, name)
        if group is None or group not in groups.split():
            problems.append(f"{node}: udev gives it group {group}, not one of the unit's: {groups}")
            continue
        said.append(f"group {group}")
        print(f"    | {node}: " + ", ".join(said))
    arches = unit_values(texts, "SystemCallArchitectures")
    arch = (root / "var/lib/dpkg/arch").read_text().split()[0] if (
        root / "var/lib/dpkg/arch"
    ).exists() else None
    real = root / str(venv).lstrip("/") / "bin" / "python"
    for _ in range(10):  # follow the links inside the root, never into the host
        if not real.is_symlink():
            break
        target = Path(str(real.readlink()))
        real = root / str(target).lstrip("/") if target.is_absolute() else real.parent / target
    machine = int.from_bytes(real.read_bytes()[18:20], "little")
    native = ELF_MACHINE.get(arch or "", -1)
    if arches and arches != ["native"]:
        problems.append(f"SystemCallArchitectures={arches}: the check knows only native")
    elif machine != native:
        problems.append(f"{real} is ELF machine {machine}, not the root's native {arch}")
    else:
        print(f"    | SystemCallArchitectures=native: {real.name} is {arch} (ELF {machine})")
    return problems


def syscall_groups(listing: str) -> dict[str, set[str]]:
    """``systemd-analyze syscall-filter``'s groups: @name -> syscalls (and @subgroups)."""
    groups: dict[str, set[str]] = {}
    current = None
    for line in listing.splitlines():
        if line.startswith("@"):
            current = groups.setdefault(line.split()[0], set())
        elif current is not None and line.startswith("    ") and not line.strip().startswith("#"):
            current.add(line.split()[0])
    return groups


def expand(names: list[str], groups: dict[str, set[str]]) -> set[str]:
    out: set[str] = set()
    for name in names:
        if name.startswith("@"):
            out |= expand(sorted(groups.get(name, ())), groups)
        else:
            out.add(name)
    return out


def check_syscalls(texts: list[str], strace: str, listing: str) -> list[str]:
    """Problems with the recorded syscalls against the unit's SystemCallFilter=."""
    made = set(re.findall(r"^\d+ ([a-z_0-9]+)\(", strace, re.MULTILINE))
    if not made:
        return ["no syscalls recorded (QEMU_STRACE gave nothing)"]
    groups = syscall_groups(listing)
    filters = unit_values(texts, "SystemCallFilter")
    allowed: set[str] = set()
    denied: set[str] = set()
    for value in filters:
        names = value.removeprefix("~").split()
        (denied if value.startswith("~") else allowed).update(expand(names, groups))
    if filters:
        outside = sorted(
            name for name in made if (allowed and name not in allowed) or name in denied
        )
        if outside:
            return [f"SystemCallFilter= refuses syscalls the stack makes: {', '.join(outside)}"]
        print(f"    | SystemCallFilter=: all {len(made)} syscalls the stack made are inside")
        return []
    service = expand(["@system-service"], groups)
    outside = sorted(made - service)
    print(
        f"    | no SystemCallFilter= in the unit; the stack made {len(made)} distinct syscalls; "
        + (f"@system-service would refuse {', '.join(outside)}" if outside else
           "@system-service admits them all")
    )
    return []


def main() -> int:
    root, unit, modules_load, venv, recorded = (Path(a) for a in sys.argv[1:6])
    nodes = [line for line in recorded.read_text().splitlines() if line]
    if not nodes:
        print("the board stack recorded no device node")
        return 1
    inside = Path(str(unit).lstrip("/"))
    problems = check(root, root / inside, root / str(modules_load).lstrip("/"), venv, nodes)
    if len(sys.argv) > 7:
        unit_file = root / inside
        texts = [unit_file.read_text("utf-8")]
        drop_ins = sorted(unit_file.parent.glob(f"{unit_file.name}.d/*.conf"))
        texts += [p.read_text("utf-8") for p in drop_ins]
        strace = Path(sys.argv[6]).read_text("utf-8", "replace")
        problems += check_syscalls(texts, strace, Path(sys.argv[7]).read_text("utf-8"))
    if problems:
        print("; ".join(problems))
        return 1
    print(f"{len(set(nodes))} device nodes reachable by the unit, and only by what it names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
