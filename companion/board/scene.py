"""What the board should show: the input of the pure LED renderer.

A scene speaks of logical positions (cells in maze order, then camp slots, then
sarcophagus slots), never of pixel indices; the LED output maps them to the strip.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Mode(enum.Enum):
    PLAY = "play"  # the game is on: mummy, hints, feedback
    IDLE = "idle"  # no game: a calm attract animation
    MUMMY_WINS = "mummy_wins"
    SEEKERS_WIN = "seekers_win"
    OFF = "off"  # everything dark (shutdown)


@dataclass(frozen=True)
class Scene:
    """Everything the LEDs show at one moment; times are seconds on the caller's clock."""

    positions: int
    mode: Mode = Mode.PLAY
    #: Where the mummy stands (a logical position), None while it is in the sarcophagus.
    mummy: int | None = None
    #: Legal destinations to hint at.
    hints: frozenset[int] = field(default_factory=frozenset)
    #: Whose hints these are, as a count of pulses (render.py HINT_PULSES: 1 red, 2
    #: turquoise, 3 blue, 4 violet); 0: steady hints (the crypt, no seeker's move).
    hint_pulses: int = 0
    #: Positions where a figure has just been lifted.
    lifted: frozenset[int] = field(default_factory=frozenset)
    #: Positions where a figure was put down illegally.
    errors: frozenset[int] = field(default_factory=frozenset)
    #: "Restore the board": positions that should hold a figure but are empty ...
    missing: frozenset[int] = field(default_factory=frozenset)
    #: ... and positions that should be empty but hold something.
    unexpected: frozenset[int] = field(default_factory=frozenset)
    #: A catch happened at this position at ``catch_time``: a short burst is played.
    catch_at: int | None = None
    catch_time: float = 0.0
    #: Positions of the winner's figures (or the mummy) for the win animation.
    winners: frozenset[int] = field(default_factory=frozenset)
    #: Optional extra colours by position (e.g. the Loot N Run score track).
    paint: tuple[tuple[int, tuple[int, int, int]], ...] = ()
    #: The scene itself changes with time (its maker reads a clock, as the score
    #: track's animations do): the LEDs must ask for it again every frame.
    animated: bool = False
