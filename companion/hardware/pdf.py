"""A small vector PDF writer for drawings: the same sheet as the SVG, on paper pages.

Why our own: a sheet needs only lines, rectangles, Bezier paths and Helvetica text,
which PDF has built in; about 200 lines give deterministic bytes (no dates, no ids,
uncompressed streams, so no dependence on the zlib version) without adding a large
dependency to a Raspberry Pi appliance.

The sheet is written once as a form XObject and shown by every page through a clip
window (see ``tiling.Tile``), so tiling a sheet onto four pages does not store it
four times.  Pages use millimetres with y pointing down, like the drawing: one
``cm`` at the start of each page flips and scales PDF's points, and text gets its own
flip back so it reads upright.  Fonts are the standard Helvetica and Helvetica-Bold
(not embedded; every PDF reader has them) in WinAnsi encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .drawing import (
    Circle,
    Drawing,
    Item,
    Line,
    Path,
    Rect,
    Style,
    Text,
    ellipse,
    num,
    text_width,
)
from .tiling import Tile

#: PDF points per millimetre.
POINTS_PER_MM = 72.0 / 25.4


def _colour(value: str) -> str:
    r, g, b = (int(value[i : i + 2], 16) / 255.0 for i in (1, 3, 5))
    return " ".join(f"{c:.3f}".rstrip("0").rstrip(".") or "0" for c in (r, g, b))


def pdf_string(text: str) -> str:
    """A PDF literal string in WinAnsi (cp1252); anything else becomes ``?``."""
    out = []
    for byte in text.encode("cp1252", errors="replace"):
        char = chr(byte)
        if char in "\\()":
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return "(" + "".join(out) + ")"


@dataclass
class _State:
    stroke: str = "#000000"
    fill: str = "#000000"
    width: float = 1.0
    dash: tuple[float, ...] = ()


class _Content:
    """Builds one content stream, emitting graphics state only when it changes."""

    def __init__(self) -> None:
        self.ops: list[str] = ["1 J 1 j 0 G 0 g 1 w [] 0 d"]
        self.state = _State()
        self.stack: list[_State] = []

    def push(self) -> None:
        """Save the graphics state (``q``), as an SVG group does."""
        self.ops.append("q")
        self.stack.append(_State(**vars(self.state)))

    def pop(self) -> None:
        """Restore the graphics state saved by the matching ``push``."""
        self.ops.append("Q")
        self.state = self.stack.pop()

    def _stroke(self, style: Style) -> None:
        assert style.stroke is not None
        if style.stroke != self.state.stroke:
            self.ops.append(f"{_colour(style.stroke)} RG")
            self.state.stroke = style.stroke
        if style.width != self.state.width:
            self.ops.append(f"{num(style.width)} w")
            self.state.width = style.width
        if style.dash != self.state.dash:
            self.ops.append(f"[{' '.join(num(d) for d in style.dash)}] 0 d")
            self.state.dash = style.dash

    def _fill(self, colour: str) -> None:
        if colour != self.state.fill:
            self.ops.append(f"{_colour(colour)} rg")
            self.state.fill = colour

    def paint(self, construct: str, style: Style) -> None:
        """Set the style, then build the path and stroke and/or fill it."""
        if style.stroke:
            self._stroke(style)
        if style.fill:
            self._fill(style.fill)
        op = {(True, True): "B", (True, False): "S", (False, True): "f", (False, False): "n"}[
            (bool(style.stroke), bool(style.fill))
        ]
        self.ops.append(f"{construct} {op}")

    def text(self, item: Text) -> None:
        """One line of Helvetica, placed by its anchor with the AFM widths."""
        self._fill(item.fill)
        x = item.x
        if item.anchor != "start":
            width = text_width(item.text, item.size, item.bold)
            x -= width / 2 if item.anchor == "middle" else width
        font = "/F2" if item.bold else "/F1"
        self.ops.append(
            f"BT {font} {num(item.size)} Tf 1 0 0 -1 {num(x)} {num(item.y)} Tm "
            f"{pdf_string(item.text)} Tj ET"
        )

    def items(self, items: Iterable[Item]) -> None:
        """Draw every item in order."""
        for item in items:
            self.item(item)

    def item(self, item: Item) -> None:
        """Draw one item (a group in its own saved state and transform)."""
        if isinstance(item, Line):
            self.paint(
                f"{num(item.x1)} {num(item.y1)} m {num(item.x2)} {num(item.y2)} l",
                Style(stroke=item.style.stroke, width=item.style.width, dash=item.style.dash),
            )
        elif isinstance(item, Rect):
            self.paint(f"{num(item.x)} {num(item.y)} {num(item.w)} {num(item.h)} re", item.style)
        elif isinstance(item, Circle):
            self.item(ellipse(item.cx, item.cy, item.r, item.r, item.style))
        elif isinstance(item, Path):
            parts = []
            for op, args in item.commands:
                coords = " ".join(num(a) for a in args)
                parts.append(
                    {"M": f"{coords} m", "L": f"{coords} l", "C": f"{coords} c"}.get(op, "h")
                )
            self.paint(" ".join(parts), item.style)
        elif isinstance(item, Text):
            self.text(item)
        else:
            self.push()
            tx, ty = item.translate
            if item.scale != 1.0 or (tx, ty) != (0.0, 0.0):
                s = f"{item.scale:.4f}"
                self.ops.append(f"{s} 0 0 {s} {num(tx)} {num(ty)} cm")
            self.items(item.items)
            self.pop()

    def data(self) -> bytes:
        """The content stream's bytes."""
        return ("\n".join(self.ops) + "\n").encode("ascii")


def _stream(header: str, data: bytes) -> bytes:
    return f"<< {header} /Length {len(data)} >>\nstream\n".encode() + data + b"endstream"


def _pt(mm: float) -> str:
    return f"{mm * POINTS_PER_MM:.3f}".rstrip("0").rstrip(".")


def pdf_bytes(sheet: Drawing, tiles: Sequence[Tile]) -> bytes:
    """A PDF with one page per tile, each showing its window of ``sheet``."""
    fonts = "/Font << /F1 3 0 R /F2 4 0 R >>"
    form = _Content()
    form.ops.append(f"1 1 1 rg 0 0 {num(sheet.width)} {num(sheet.height)} re f")
    form.items(sheet.items)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        _stream(
            f"/Type /XObject /Subtype /Form /BBox [0 0 {num(sheet.width)} {num(sheet.height)}] "
            f"/Resources << {fonts} >>",
            form.data(),
        ),
        f"<< /Title {pdf_string(sheet.title)} /Producer (pyramid companion) >>".encode(),
    ]
    kids = []
    for tile in tiles:
        page = _Content()
        height_pt = _pt(tile.page_height)
        page.ops.append(f"{POINTS_PER_MM:.6f} 0 0 {-POINTS_PER_MM:.6f} 0 {height_pt} cm")
        wx, wy, ww, wh = tile.window
        ox, oy = tile.origin
        page.push()
        page.ops.append(f"{num(ox)} {num(oy)} {num(ww)} {num(wh)} re W n")
        page.ops.append(f"1 0 0 1 {num(ox - wx)} {num(oy - wy)} cm /Sheet Do")
        page.pop()
        page.items(tile.furniture)
        content_number = len(objects) + 2
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_pt(tile.page_width)} {height_pt}] "
            f"/Resources << {fonts} /XObject << /Sheet 5 0 R >> >> "
            f"/Contents {content_number} 0 R >>".encode()
        )
        kids.append(f"{len(objects)} 0 R")
        objects.append(_stream("", page.data()))
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)
