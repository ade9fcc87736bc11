"""The token colours a Loot N Run table chooses from, and the pairs of them that a
colour-blind player cannot tell apart on the board's lights.

On the phones every token carries its player's initial; on the score track's lights
(``companion.board.score_track.NAMED_COLOURS``) colour is all there is, so the setup
(lootnrun.js) warns of a look-alike pair and offers colours apart from those taken.
``tests/test_colour_marks.py`` recomputes ``LOOK_ALIKE`` under simulated protanopia,
deuteranopia and tritanopia, so the list cannot drift from the lights.
"""

from __future__ import annotations

#: The colours the setup offers, in the order it offers them.
PALETTE = (
    "red",
    "blue",
    "yellow",
    "green",
    "purple",
    "orange",
    "pink",
    "turquoise",
    "white",
    "black",
)

#: Pairs whose lights are closer than a colour difference of 20 (CAM02-UCS) to a
#: protanope, deuteranope or tritanope.
LOOK_ALIKE: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("red", "orange"),
        ("red", "green"),
        ("red", "pink"),
        ("blue", "purple"),
        ("green", "yellow"),
        ("green", "orange"),
        ("green", "turquoise"),
        ("yellow", "orange"),
        ("orange", "pink"),
        ("pink", "turquoise"),
    )
)
