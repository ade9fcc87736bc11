"""``companion hardware section``: a section drawing (PNG) of one position of the printed
carrier with its sensor and leads, cut through the sensor's axis north-south and
east-west, traced from the generated mesh (``probe``), not drawn from the design: what
the printer gets is what the picture shows.  With the base board under it, the cover
and a figure's magnet over it, and every bend's distance from the glass.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from companion.board.config import load_config
from companion.inputs import given_path
from companion.mazes import load_maze

from .builds import STACK
from .harness import BASE_BOARD_MM, drop_x
from .parts import (
    SENSOR_KEYS,
    Lead,
    PartsError,
    SensorBuild,
    board_holes,
    carrier_tile,
    hall_leads,
    plan_tiles,
    reed_leads,
    refused,
    thickness,
    verified_build,
)
from .placement import Place, places
from .probe import Probe

#: Half the width of each panel (mm) and the raster step.
HALF_MM = 7.0
STEP_MM = 0.05


def _solid_columns(probe: Probe, along: list[float], fixed: float, ns: bool) -> list[list[float]]:
    """For each position along the cut, the plastic's (bottom, top) heights in pairs."""
    columns = []
    for a in along:
        x, y = (fixed, -a) if ns else (a, -fixed)
        columns.append(probe.crossings(x, y))
    return columns


def render(
    out: Path, build: SensorBuild, mesh: Any, place: Place, leads: list[Lead], toward: float
) -> None:
    """Draw both cuts through ``place`` of the tile ``mesh`` into ``out`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    height = thickness(build)
    probe = Probe(mesh)
    x0, y0 = place.sensor
    fig, axes = plt.subplots(1, 2, figsize=(12, 7.5), dpi=150)
    cuts = (
        ("north-south through the axis (north on the left)", True, y0, x0),
        ("east-west through the axis (west on the left)", False, x0, y0),
    )
    for ax, (title, ns, centre, fixed) in zip(axes, cuts, strict=True):
        along = [centre - HALF_MM + STEP_MM * (k + 0.5) for k in range(int(2 * HALF_MM / STEP_MM))]
        local = probe.near(
            (fixed if ns else centre) - HALF_MM - 1,
            -(centre if ns else fixed) - HALF_MM - 1,
            (fixed if ns else centre) + HALF_MM + 1,
            -(centre if ns else fixed) + HALF_MM + 1,
        )
        for a, hits in zip(along, _solid_columns(local, along, fixed, ns), strict=True):
            for i in range(0, len(hits), 2):
                top, bottom = height - hits[i + 1], height - hits[i]
                ax.add_patch(
                    Rectangle((a - STEP_MM / 2, top), STEP_MM, bottom - top, color="#c9c3b6", lw=0)
                )
        # The base board under the carrier, the cover and print over it, the magnet.
        lo, hi = centre - HALF_MM, centre + HALF_MM
        ax.add_patch(Rectangle((lo, height), hi - lo, BASE_BOARD_MM, color="#a0805a", alpha=0.6))
        cover = STACK.cover_mm + STACK.print_mm
        ax.add_patch(Rectangle((lo, -cover), hi - lo, cover, color="#9ecae1", alpha=0.6))
        d, h = build.magnet_mm
        magnet_bottom = -cover - build.floor_mm
        ax.add_patch(
            Rectangle((centre - d / 2, magnet_bottom - h), d, h, color="#777777", alpha=0.9)
        )
        ax.text(centre, magnet_bottom - h / 2, "magnet", ha="center", va="center", fontsize=7,
                color="white")  # fmt: skip
        if build.kind == "reed" and build.reed_package is not None:
            glass = build.reed_package
            ax.add_patch(
                Rectangle(
                    (centre - glass.glass_diameter_max / 2, build.face_mm),
                    glass.glass_diameter_max,
                    glass.glass_length_max,
                    color="#6baed6",
                    alpha=0.8,
                )
            )
        for lead in leads:
            pts = [(p[1] if ns else p[0], p[2], p[0] if ns else p[1]) for p in lead.points]
            inside = [abs(off - fixed) < 0.8 for _, _, off in pts]
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                color="#d94801",
                lw=2.2 if all(inside) else 1.2,
                ls="-" if all(inside) else ":",
                label=lead.name,
            )
            for n, distance in enumerate(lead.bends_from_glass):
                k = _point_at(lead, distance)
                a = k[1] if ns else k[0]
                if abs((k[0] if ns else k[1]) - fixed) < 0.8:
                    ax.annotate(
                        f"bend {distance:.1f} mm from the glass",
                        (a, k[2]),
                        (centre + 1.5, k[2] - 1.2 - 1.6 * n),
                        fontsize=7,
                        arrowprops={"arrowstyle": "-", "lw": 0.6},
                    )
        ax.axhline(0.0, color="k", lw=0.5)
        ax.text(lo + 0.2, -cover / 2, "cover and print", fontsize=7, va="center")
        ax.text(lo + 0.2, 0.2, "carrier top", fontsize=7, va="top")
        ax.text(lo + 0.2, height + BASE_BOARD_MM / 2, "base board", fontsize=7, va="center")
        depth = build.depth_mm
        ax.set_title(
            f"{place.name}, {title}\n{build.name}, {depth:g} mm under the magnet", fontsize=9
        )
        ax.set_xlim(lo, hi)
        ax.set_ylim(height + BASE_BOARD_MM, magnet_bottom - h - 1.0)
        ax.set_aspect("equal")
        ax.set_xlabel("mm (board)")
        ax.set_ylabel("depth under the carrier's top, mm")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _point_at(lead: Lead, distance: float) -> tuple[float, float, float]:
    """The point ``distance`` mm along ``lead`` from its first point."""
    import math

    travelled = 0.0
    for a, b in zip(lead.points, lead.points[1:], strict=False):
        step = math.dist(a, b)
        if travelled + step >= distance:
            return b
        travelled += step
    return lead.points[-1]


def add_command(commands: Any) -> None:
    """``companion hardware section``, among the hardware commands."""
    cmd = commands.add_parser(
        "section", help="a section drawing (PNG) of one carrier position with its leads"
    )
    cmd.add_argument("--maze", type=given_path, default=None, help="maze file (default: built in)")
    cmd.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    cmd.add_argument("--sensor", choices=SENSOR_KEYS, default="reed")
    cmd.add_argument("--position", default="A1", help="a cell or pad name (default A1)")
    cmd.add_argument("--out", type=given_path, required=True, help="the PNG to write")
    cmd.set_defaults(func=_section_command)


def _section_command(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    maze, _ = load_maze(args.maze)
    build = verified_build(args.sensor)
    board = places(maze, config)
    place = next((p for p in board if p.name.lower() == args.position.lower()), None)
    if place is None:
        print(
            f"companion: --position {args.position}: no such position on this board "
            f"({board[0].name} to {board[-1].name})",
            file=sys.stderr,
        )
        return 2
    try:
        tile = next(
            t
            for t in plan_tiles(maze, config, 220.0)
            if t.x0 < place.sensor[0] < t.x1 and t.y0 < place.sensor[1] < t.y1
        )
        mesh = _mesh(carrier_tile(build, board_holes(build, board, config.cell_pitch_mm), tile))
        toward = 1.0 if place.sensor[0] < drop_x(config) else -1.0
        leads = (
            reed_leads(build, place, toward=toward)
            if build.kind == "reed"
            else hall_leads(build, place)
        )
        render(args.out, build, mesh, place, leads, toward)
    except (ImportError, PartsError) as exc:
        return refused(exc)
    print(f"wrote {args.out}: {place.name}, {build.name}")
    return 0


def _mesh(solid: Any) -> Any:
    import numpy as np
    import trimesh

    mesh = solid.to_mesh()
    return trimesh.Trimesh(
        vertices=np.asarray(mesh.vert_properties)[:, :3],
        faces=np.asarray(mesh.tri_verts),
        process=False,
    )
