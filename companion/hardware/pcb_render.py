"""The tile's Gerbers read back with gerbonara (a Gerber library from PyPI), compared with
the design, and the copper rendered to a PNG for a person to look at.

Reading back is the fab's view: the files are all an assembly service gets, so the
outline, the pads and the holes are counted in them, not in our own data.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Copper layers as the fab's files name them, drawn bottom first, with their colours.
COPPER = (
    (("bottom", "copper"), (60, 110, 230, 210)),
    (("top", "copper"), (230, 120, 40, 235)),
)


@dataclass(frozen=True)
class Readback:
    """What the Gerber and drill files hold."""

    outline_mm: tuple[float, float]
    layers: tuple[str, ...]
    top_pads: int  # flashed apertures on the top copper
    holes_plated: int
    holes_unplated: int


def _stack(gerbers: Path) -> Any:
    from gerbonara import LayerStack

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # KiCad's Excellon header order, harmless
        return LayerStack.open(gerbers)


def read_back(gerbers: Path) -> Readback:
    """Open the Gerbers and drill files of ``gerbers`` with gerbonara and count."""
    from gerbonara.graphic_objects import Flash

    stack = _stack(gerbers)
    (x0, y0), (x1, y1) = stack.outline.bounding_box()
    top = stack[("top", "copper")]
    flashes = sum(1 for obj in top.objects if isinstance(obj, Flash))
    plated = unplated = 0
    for drill in stack.drill_layers:
        count = sum(1 for obj in drill.objects if isinstance(obj, Flash))
        # KiCad writes plated and unplated holes to files of their own (-PTH, -NPTH)
        if drill.is_nonplated or str(drill.original_path).endswith("-NPTH.drl"):
            unplated += count
        else:
            plated += count
    names = tuple(sorted(f"{side} {use}" for side, use in stack.graphic_layers))
    return Readback((round(x1 - x0, 2), round(y1 - y0, 2)), names, flashes, plated, unplated)


def top_flashes(gerbers: Path) -> list[tuple[float, float]]:
    """Where the top copper's pads (and vias) are flashed, mm, the files' own frame."""
    from gerbonara.graphic_objects import Flash

    top = _stack(gerbers)[("top", "copper")]
    return [(obj.x, obj.y) for obj in top.objects if isinstance(obj, Flash)]


def render_copper(gerbers: Path, png: Path, width_px: int = 1400) -> Path:
    """The top and bottom copper over the board, as a maker sees the bare tile from above."""
    import cairosvg
    from PIL import Image

    stack = _stack(gerbers)
    bounds = stack.outline.bounding_box()
    image = Image.new("RGBA", (width_px, width_px), (20, 70, 40, 255))
    for key, (r, g, b, a) in COPPER:
        svg = stack[key].to_svg(fg=f"rgb({r},{g},{b})", bg="none", force_bounds=bounds)
        data = cairosvg.svg2png(bytestring=str(svg).encode(), output_width=width_px)
        layer = Image.open(io.BytesIO(data)).convert("RGBA").resize(image.size)
        alpha = layer.getchannel("A").point([v * a // 255 for v in range(256)])
        layer.putalpha(alpha)
        image = Image.alpha_composite(image, layer)
    png.parent.mkdir(parents=True, exist_ok=True)
    image.convert("RGB").save(png)
    return png
