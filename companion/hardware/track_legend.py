"""The Loot N Run track legend: which cell of the board stands for which score.

While Loot N Run is played the board is its score track: every player's token is a
light on the cell of their score (``companion.board.score_track``).  This sheet
prints that track at true scale, from the same ``track_path`` the LEDs use, so it can
lie over the maze (or beside it): the spaces 0 to 35 with their numbers and the
direction of play, every fifth space stressed as the LEDs stress it, the end at 35
(and at 30, the end with six players), and the centre cells where whose turn it is
shows.  With ``assembly=True`` each space also shows its sensor and pixel.
"""

from __future__ import annotations

from itertools import pairwise

from companion.board.config import BoardConfig
from companion.board.score_track import MILESTONE_EVERY, centre_cells, track_path

from .drawing import INK, Drawing, Group, Item, Line, Rect, Style, Text, arrow_head, wrap
from .sheets import MARGIN, assembly_layer

TITLE_HEIGHT = 18.0
LEGEND_HEIGHT = 14.0
#: The target score (35 points; 30 with six players, RULES.md section 2).
TARGET = 35
SIX_PLAYER_TARGET = 30
TRACK_FILL = "#fbe3c4"
MILESTONE_FILL = "#f4b870"
TARGET_FILL = "#f2c300"
TURN_FILL = "#e4e4f4"


def track_sheet(config: BoardConfig, *, assembly: bool = False) -> Drawing:
    """The score track on the board's grid at the config's pitch."""
    p = config.cell_pitch_mm
    columns, rows = config.columns, config.rows
    path = track_path(columns, rows, TARGET)
    width = 2 * MARGIN + columns * p
    height = MARGIN + TITLE_HEIGHT + rows * p + LEGEND_HEIGHT + MARGIN
    gx, gy = MARGIN, MARGIN + TITLE_HEIGHT

    def centre(cell: int) -> tuple[float, float]:
        r, c = divmod(cell, columns)
        return (gx + (c + 0.5) * p, gy + (r + 0.5) * p)

    cells: list[Item] = []
    for space, cell in enumerate(path):
        cx, cy = centre(cell)
        if space in (TARGET, SIX_PLAYER_TARGET):
            fill = TARGET_FILL
        elif space % MILESTONE_EVERY == 0:
            fill = MILESTONE_FILL
        else:
            fill = TRACK_FILL
        parts: list[Item] = [
            Rect(cx - p / 2, cy - p / 2, p, p, Style(stroke=None, fill=fill)),
            Text(cx, cy + p * 0.15, str(space), p * 0.4, "middle", INK, bold=space % 5 == 0),
        ]
        note = {0: "start", SIX_PLAYER_TARGET: "end: 6 players", TARGET: "end"}.get(space)
        if note:
            parts.append(Text(cx, cy + p * 0.38, note, p * 0.09, "middle", "#333333", bold=True))
        cells.append(
            Group(
                tuple(parts),
                cls="space",
                data=(("score", str(space)), ("cell", config.position_name(cell))),
            )
        )
    arrows: list[Item] = []
    for a, b in pairwise(path):
        (x1, y1), (x2, y2) = centre(a), centre(b)
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        arrows.append(
            arrow_head(
                mx + (x2 - x1) * 0.08, my + (y2 - y1) * 0.08, x2 - x1, y2 - y1, p * 0.12, "#8a5a1a"
            )
        )
    turn: list[Item] = []
    for cell in centre_cells(columns, rows):
        if cell in path:
            continue
        cx, cy = centre(cell)
        turn.append(Rect(cx - p / 2, cy - p / 2, p, p, Style(stroke=None, fill=TURN_FILL)))
    lines: list[Item] = []
    grid = Style(stroke="#bbbbbb", width=0.2)
    for i in range(columns + 1):
        lines.append(Line(gx + i * p, gy, gx + i * p, gy + rows * p, grid))
    for i in range(rows + 1):
        lines.append(Line(gx, gy + i * p, gx + columns * p, gy + i * p, grid))
    lines.append(Rect(gx, gy, columns * p, rows * p, Style(stroke=INK, width=0.6)))
    # Words in the middle of the grid, inside the ring of the track.
    inner_y = gy + 2 * p
    inner_w = (columns - 4) * p
    text: list[Item] = [
        Text(
            gx + columns * p / 2, inner_y + p * 0.8, "Loot N Run", p * 0.5, "middle", INK, bold=True
        )
    ]
    explanation = (
        "While Loot N Run is played the board is the score track: each player's token is a "
        "light in their colour on the space of their score. The game ends as soon as a token "
        f"reaches {TARGET} ({SIX_PLAYER_TARGET} with six players). Every fifth space glows a "
        "little brighter; the end glows gold. The cells in the middle light up in the colour "
        "of the player whose turn it is."
    )
    size = p * 0.13
    for i, line in enumerate(wrap(explanation, size, inner_w - p)):
        text.append(
            Text(
                gx + columns * p / 2,
                inner_y + p * 1.6 + i * size * 1.4,
                line,
                size,
                "middle",
                "#333333",
            )
        )
    items: list[Item] = [
        Group(tuple(turn), id="turn-cells"),
        Group(tuple(cells), id="track"),
        Group(tuple(lines), id="grid"),
        Group(tuple(arrows), id="direction"),
        Group(tuple(text), id="words"),
    ]
    if assembly:
        centres = {cell: centre(cell) for cell in path}
        items.append(assembly_layer(config, centres, p))
    title = "Loot N Run: score track" + (" - assembly sheet" if assembly else "")
    items.append(
        Group(
            (
                Text(MARGIN, MARGIN + 6.5, title, 6.5, bold=True),
                Text(
                    MARGIN,
                    MARGIN + 12.5,
                    f"Spaces 0 to {TARGET} on the {columns} x {rows} cells of {p:g} mm, clockwise "
                    "from the top-left corner, as the LEDs show them.",
                    2.8,
                    fill="#333333",
                ),
            ),
            id="title",
        )
    )
    ly = gy + rows * p + 7.0
    legend: list[Item] = []
    x = MARGIN
    for fill, label in (
        (TRACK_FILL, "a space"),
        (MILESTONE_FILL, "every fifth space"),
        (TARGET_FILL, "the end (35, or 30 with six players)"),
        (TURN_FILL, "whose turn it is"),
    ):
        legend.append(Rect(x, ly - 4.2, 6, 6, Style(stroke=INK, width=0.25, fill=fill)))
        legend.append(Text(x + 8, ly, label, 2.6))
        x += 14 + len(label) * 1.45
    items.append(Group(tuple(legend), id="legend"))
    return Drawing(
        width,
        height,
        title,
        tuple(items),
        description=f"Loot N Run score track, spaces 0 to {TARGET}, cells of {p:g} mm, true scale.",
    )
