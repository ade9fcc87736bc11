"""``companion bench``: the sections in order, their targets, and the printed report.

The top of ``companion.bench``: it imports every section, none imports it.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.bench import attacks, end_to_end, engine, pages, remote, service, streams
from companion.bench.attacks import bench_attacks
from companion.bench.clients import run_companion
from companion.bench.end_to_end import bench_end_to_end
from companion.bench.engine import bench_engine
from companion.bench.figures import Figure
from companion.bench.pages import bench_pages
from companion.bench.player import bench_player, bench_player_pi
from companion.bench.remote import bench_remote
from companion.bench.sensors import bench_sensors
from companion.bench.serial_link import bench_serial
from companion.bench.service import bench_service
from companion.bench.streams import bench_streams
from companion.bench.web import bench_web

#: Targets from the issue, printed with the figures.
TARGETS = {
    **engine.TARGETS,
    **end_to_end.TARGETS,
    **service.TARGETS,
    **streams.TARGETS,
    **pages.TARGETS,
    **attacks.TARGETS,
    **remote.TARGETS,
}


SECTIONS: dict[str, Callable[[bool], list[Figure]]] = {
    "engine": bench_engine,
    "sensors": bench_sensors,
    "end_to_end": bench_end_to_end,
    "serial": bench_serial,
    "service": bench_service,
    "web": bench_web,
    "streams": lambda quick: bench_streams(quick, run_companion),
    "pages": bench_pages,
    "attacks": lambda quick: bench_attacks(quick, run_companion),
    "player": bench_player,
    "player_pi": bench_player_pi,
    "remote": bench_remote,
}


#: Sections run only when named (``--only player_pi``): minutes in a quarter core.
ON_REQUEST = frozenset({"player_pi"})


def run_bench(quick: bool, only: list[str] | None = None) -> list[Figure]:
    figures: list[Figure] = []
    for name, section in SECTIONS.items():
        if (only and name not in only) or (not only and name in ON_REQUEST):
            continue
        figures += section(quick)
    return figures


def report(figures: list[Figure]) -> str:
    lines = []
    for f in figures:
        text = f"{f.key:40} {f.value:12.3f} {f.unit}"
        if f.reference is not None:
            ratio = f.ratio
            text += f"   vs {f.reference:.3f} ({f.reference_label})"
            if ratio is not None:
                text += f", ratio {ratio:.2f}"
        if f.key in TARGETS:
            text += f"   [target: {TARGETS[f.key]}]"
        if f.note:
            text += f"   ({f.note})"
        lines.append(text)
    return "\n".join(lines)
