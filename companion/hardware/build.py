"""Generate (or check) every file committed in hardware/.

``python -m companion.hardware.build hardware`` writes the printable sheets of the
default maze for reference design 1, the wiring tables and diagrams of both
reference designs; ``--check`` writes nothing and lists the files that differ from
what the generators make now (exit status 1), which is what the tests do too.
``make -C hardware`` runs it.

Outputs are bytes-for-bytes reproducible: the same maze, configs and code always give
the same files, so a stale file in hardware/ is a real difference.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from companion.board.config import BoardConfig, example_config_text, parse_config
from companion.inputs import given_path
from companion.mazes import load_maze

from .crypt_overlay import crypt_sheet
from .diagram import wiring_diagram
from .drawing import Drawing, to_svg
from .pdf import pdf_bytes
from .sheets import maze_sheet
from .tiling import PAGE_SIZES, plan_tiles
from .track_legend import track_sheet
from .wiring import to_markdown, wiring_page

#: The reference designs, by the path their config has in the repository.
REFERENCES = {
    "reference-1": ("reference-1-pi", "companion/board/data/reference-1-pi.toml"),
    "reference-2": ("reference-2-pico", "companion/board/data/reference-2-pico.toml"),
}


def reference_config(name: str) -> BoardConfig:
    """A reference design's config, its source named by its path in the repository."""
    example, path = REFERENCES[name]
    return parse_config(example_config_text(example), path)


def sheet_bytes(drawing: Drawing, kind: str, page: str = "a3") -> bytes:
    """A drawing as ``svg`` (true size, one piece) or ``pdf`` (on ``page`` pages)."""
    if kind == "svg":
        return to_svg(drawing).encode("utf-8")
    if kind == "pdf":
        return pdf_bytes(drawing, plan_tiles(drawing, PAGE_SIZES[page]))
    raise ValueError(f"unknown format {kind!r}: use .svg or .pdf")


@dataclass(frozen=True)
class Output:
    """One generated file: its name in hardware/ and how to make its bytes."""

    name: str
    make: Callable[[], bytes]


def _wiring_markdown(config: BoardConfig) -> bytes:
    return to_markdown(config, wiring_page(config), config.source).encode("utf-8")


def _diagram_svg(config: BoardConfig) -> bytes:
    return sheet_bytes(wiring_diagram(config), "svg")


def outputs() -> list[Output]:
    """Every generated file of hardware/, in a fixed order."""
    maze, _ = load_maze(None)
    ref1 = reference_config("reference-1")
    ref2 = reference_config("reference-2")
    sheet = maze_sheet(maze, ref1)
    assembly = maze_sheet(maze, ref1, assembly=True)
    crypt = crypt_sheet(ref1)
    track = track_sheet(ref1)
    result = [
        Output("maze.svg", lambda: sheet_bytes(sheet, "svg")),
        Output("maze-a3.pdf", lambda: sheet_bytes(sheet, "pdf", "a3")),
        Output("maze-a4-tiles.pdf", lambda: sheet_bytes(sheet, "pdf", "a4")),
        Output("maze-assembly.svg", lambda: sheet_bytes(assembly, "svg")),
        Output("maze-assembly-a3.pdf", lambda: sheet_bytes(assembly, "pdf", "a3")),
        Output("crypt-overlay.svg", lambda: sheet_bytes(crypt, "svg")),
        Output("crypt-overlay-a3.pdf", lambda: sheet_bytes(crypt, "pdf", "a3")),
        Output("lootnrun-track.svg", lambda: sheet_bytes(track, "svg")),
        Output("lootnrun-track-a3.pdf", lambda: sheet_bytes(track, "pdf", "a3")),
    ]
    for name, config in (("reference-1", ref1), ("reference-2", ref2)):
        result.append(Output(f"wiring-{name}.md", partial(_wiring_markdown, config)))
        result.append(Output(f"wiring-diagram-{name}.svg", partial(_diagram_svg, config)))
    return result


def build(directory: Path) -> list[Path]:
    """Write every output into ``directory``; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for output in outputs():
        path = directory / output.name
        path.write_bytes(output.make())
        written.append(path)
    return written


def stale(directory: Path) -> list[str]:
    """Names of outputs missing from ``directory`` or different from a fresh build."""
    names = []
    for output in outputs():
        path = directory / output.name
        if not path.is_file() or path.read_bytes() != output.make():
            names.append(output.name)
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.hardware.build [DIR] [--check]``: write or check hardware/."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.hardware.build",
        description="Generate the printable sheets, wiring tables and diagrams in hardware/.",
    )
    parser.add_argument("directory", type=given_path, nargs="?", default=Path("hardware"))
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    if args.check:
        names = stale(args.directory)
        for name in names:
            print(f"{args.directory / name}: out of date (run make -C hardware)")
        if not names:
            print(f"{args.directory}: every generated file is up to date")
        return 1 if names else 0
    for path in build(args.directory):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
