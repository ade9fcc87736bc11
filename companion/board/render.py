"""The LED renderer: a pure function from a scene and a time to a frame of colours.

``render(scene, t, geometry)`` returns one RGB colour (0-255 each) per logical position
(cells in maze order, then camp slots, then sarcophagus slots).  It reads no clock,
keeps no state and draws no random numbers: the only "randomness" is a hash of
(position, time slot), so the same scene at the same time always gives the same frame,
and a test can look at any instant of any animation.

Colours are perceptual (as on a screen, before gamma): the LED output applies gamma,
brightness and the current limiter.  Every element differs from every other by
brightness or motion, not by colour alone, so colour-blind players can read the board:

====================  =============================  =========  ==========================
element               colour                         level      motion
====================  =============================  =========  ==========================
mummy                 amber (255, 170, 60)           100%-50%   breathes, 1 s period
legal destination     sky blue (0, 45, 63)           <= 25%     steady; a seeker's: pulses
lifted figure         white (77, 77, 77)             30%        steady
illegal placement     red (255, 0, 0)                100%       blinks 4 Hz, dark between
"take this away"      magenta (255, 0, 170)          100%       double flash once a second
"put a figure here"   bluish green (0, 230, 90)      90%        blinks 1 Hz, dark between
catch                 white core, orange ring        100%       ring spreads, 1.5 s fade
idle                  sand (255, 170, 80)            5%-30%     slow diagonal wave, 8 s
mummy wins            red-amber rings, mummy amber   6%-40%     rings close in on the mummy
seekers win           white / sky blue / green       <= 70%     sparkles; winners steady
====================  =============================  =========  ==========================

The mummy is the brightest steady-state element: even at the bottom of its breath
(50%) it is twice as bright as a hint and brighter than a lifted figure, and it is the
only element that breathes.  A seeker's legal destinations say whose they are by
a count, not by colour (one LED per cell cannot show a letter or a shape): they pulse
to full hint level 1 (red), 2 (turquoise), 3 (blue) or 4 (violet) times every two
seconds, the seeker colours' order on the pages, and stay dim between, never dark.
Red and green feedback differ by speed (4 Hz against
1 Hz) as well as colour.

Precedence, highest first: illegal placement > "take this away" > "put a figure here"
> catch > mummy > lifted > hints > paint > background (dark in play, the animation in
the other modes).  The catch burst is light added over the layers below it (the
brighter of the two per channel), so the mummy shows through as the burst fades.
Mummy, lifted and hints are drawn only in PLAY, paint in PLAY and IDLE, the catch and
the feedback in every mode but OFF, which is all dark.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .scene import Mode, Scene

if TYPE_CHECKING:
    from .config import BoardConfig

RGB = tuple[int, int, int]
Frame = tuple[RGB, ...]

DARK: RGB = (0, 0, 0)

# -- the visual language -------------------------------------------------------------

MUMMY_COLOUR: RGB = (255, 170, 60)
#: Seconds per breath, and the level at the bottom of the breath.
MUMMY_PERIOD = 1.0
MUMMY_FLOOR = 0.5
HINT_COLOUR: RGB = (0, 45, 63)
#: A seeker's hints pulse this many times per HINT_CYCLE seconds (its colour's number),
#: each pulse HINT_PULSE seconds at full hint level, the gaps at HINT_FLOOR of it.
HINT_PULSES = {"red": 1, "turquoise": 2, "blue": 3, "violet": 4}
HINT_CYCLE = 2.0
HINT_PULSE = 0.2
HINT_FLOOR = 0.35
LIFTED_COLOUR: RGB = (77, 77, 77)
ERROR_COLOUR: RGB = (255, 0, 0)
ERROR_HZ = 4.0
UNEXPECTED_COLOUR: RGB = (255, 0, 170)
#: "Take this away": two flashes of 1/8 s each, once a second.
UNEXPECTED_FLASHES = ((0.0, 0.125), (0.25, 0.375))
MISSING_COLOUR: RGB = (0, 230, 90)
MISSING_HZ = 1.0
CATCH_CORE: RGB = (255, 255, 255)
CATCH_RING: RGB = (255, 90, 20)
CATCH_SECONDS = 1.5
#: How fast the ring spreads (cells per second) and how wide it is (cells).
CATCH_SPEED = 8.0
CATCH_WIDTH = 1.2
IDLE_COLOUR: RGB = (255, 170, 80)
IDLE_PERIOD = 8.0
IDLE_LOW, IDLE_HIGH = 0.05, 0.30
MUMMY_WINS_COLOUR: RGB = (255, 80, 0)
SEEKERS_WIN_COLOURS: tuple[RGB, ...] = ((255, 255, 255), (60, 180, 255), (0, 230, 90))
SEEKERS_WIN_WINNER: RGB = (230, 230, 230)
#: Twinkles per second per position slot, and one slot in SPARKLE_ODDS lights.
SPARKLE_RATE = 6.0
SPARKLE_ODDS = 4


@dataclass(frozen=True)
class Geometry:
    """The shape of the board the renderer needs: the grid and the pads beside it."""

    columns: int
    rows: int
    camp_slots: int = 0
    sarcophagus_slots: int = 0

    def __post_init__(self) -> None:
        if self.columns < 1 or self.rows < 1:
            raise ValueError("a board needs at least one column and one row")
        if self.camp_slots < 0 or self.sarcophagus_slots < 0:
            raise ValueError("slot counts cannot be negative")

    @classmethod
    def of(cls, board: BoardConfig) -> Geometry:
        """The geometry of a configured board."""
        return cls(board.columns, board.rows, board.camp_slots, board.sarcophagus_slots)

    @property
    def cells(self) -> int:
        return self.columns * self.rows

    @property
    def positions(self) -> int:
        return self.cells + self.camp_slots + self.sarcophagus_slots

    def is_cell(self, position: int) -> bool:
        return 0 <= position < self.cells


@lru_cache(maxsize=16)
def _places(geometry: Geometry) -> tuple[tuple[float, float], ...]:
    """(x, y) of every position in cell units; pads sit in a virtual row under the grid.

    Camp slots count from the left edge, sarcophagus slots end at the right edge; only
    the whole-board animations use the pads' places, never the catch ring.
    """
    places = [
        (float(p % geometry.columns), float(p // geometry.columns)) for p in range(geometry.cells)
    ]
    below = float(geometry.rows)
    places += [(float(i), below) for i in range(geometry.camp_slots)]
    first = geometry.columns - geometry.sarcophagus_slots
    places += [(float(first + i), below) for i in range(geometry.sarcophagus_slots)]
    return tuple(places)


# -- helpers -------------------------------------------------------------------------


def scale(colour: RGB, level: float) -> RGB:
    """``colour`` at ``level`` (0 to 1), rounded and kept within 0-255."""
    r, g, b = colour
    return (_byte(r * level), _byte(g * level), _byte(b * level))


def _byte(value: float) -> int:
    return 0 if value <= 0 else 255 if value >= 255 else round(value)


def _brighter(a: RGB, b: RGB) -> RGB:
    return (max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2]))


def _phase(t: float, hz: float) -> float:
    """Where ``t`` falls in a cycle of ``hz`` cycles per second, from 0 up to 1."""
    return (t * hz) % 1.0


def mummy_level(t: float) -> float:
    """The mummy's breath: 1.0 at every whole period, MUMMY_FLOOR half a period later."""
    wave = 0.5 + 0.5 * math.cos(2.0 * math.pi * t / MUMMY_PERIOD)
    return MUMMY_FLOOR + (1.0 - MUMMY_FLOOR) * wave


_MASK64 = (1 << 64) - 1


def _hash(position: int, slot: int) -> int:
    """A well-mixed 64-bit hash of (position, time slot) (splitmix64's finaliser)."""
    x = (position * 0x9E3779B97F4A7C15 + slot * 0xD1B54A32D192ED03 + 1) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _check(scene: Scene, geometry: Geometry) -> None:
    """Every position a scene names must be on the board: a wrong one is a bug upstream."""
    if scene.positions != geometry.positions:
        raise ValueError(
            f"the scene has {scene.positions} positions, the board {geometry.positions}"
        )
    n = scene.positions
    singles = {"mummy": scene.mummy, "catch_at": scene.catch_at}
    for name, position in singles.items():
        if position is not None and not 0 <= position < n:
            raise ValueError(f"{name} = {position} is not a position of the board (0 to {n - 1})")
    sets = {
        "hints": scene.hints,
        "lifted": scene.lifted,
        "errors": scene.errors,
        "missing": scene.missing,
        "unexpected": scene.unexpected,
        "winners": scene.winners,
    }
    for name, positions in sets.items():
        bad = [p for p in positions if not 0 <= p < n]
        if bad:
            raise ValueError(f"{name}: {min(bad)} is not a position of the board (0 to {n - 1})")
    for position, colour in scene.paint:
        if not 0 <= position < n:
            raise ValueError(f"paint: {position} is not a position of the board (0 to {n - 1})")
        if len(colour) != 3 or not all(0 <= c <= 255 for c in colour):
            raise ValueError(f"paint: {colour!r} at {position} is not an RGB colour (0-255)")


# -- the renderer --------------------------------------------------------------------


def render(scene: Scene, t: float, geometry: Geometry) -> Frame:
    """The frame for ``scene`` at time ``t`` (seconds): one colour per logical position."""
    _check(scene, geometry)
    if scene.mode is Mode.OFF:
        return (DARK,) * scene.positions
    if scene.mode is Mode.IDLE:
        frame = _idle(geometry, t)
    elif scene.mode is Mode.MUMMY_WINS:
        frame = _mummy_wins(scene, geometry, t)
    elif scene.mode is Mode.SEEKERS_WIN:
        frame = _seekers_win(scene, geometry, t)
    else:
        frame = [DARK] * scene.positions
    if scene.mode in (Mode.PLAY, Mode.IDLE):
        for position, colour in scene.paint:
            frame[position] = colour
    if scene.mode is Mode.PLAY:
        hint = hint_colour(scene.hint_pulses, t)
        for position in scene.hints:
            frame[position] = hint
        for position in scene.lifted:
            frame[position] = LIFTED_COLOUR
        if scene.mummy is not None:
            frame[scene.mummy] = scale(MUMMY_COLOUR, mummy_level(t))
    _catch(scene, geometry, t, frame)
    _feedback(scene, t, frame)
    return tuple(frame)


def hint_colour(pulses: int, t: float) -> RGB:
    """A hint's colour at ``t``: steady, or ``pulses`` pulses every HINT_CYCLE seconds."""
    if pulses <= 0:
        return HINT_COLOUR
    at = t % HINT_CYCLE
    lit = at < 2 * HINT_PULSE * pulses and at % (2 * HINT_PULSE) < HINT_PULSE
    return HINT_COLOUR if lit else scale(HINT_COLOUR, HINT_FLOOR)


def still(scene: Scene, t: float) -> bool:
    """True when ``render(scene, t')`` is the same frame for every ``t' >= t``: nothing
    in the scene moves, so the LEDs need not be drawn again until the scene changes."""
    if scene.animated or scene.mode not in (Mode.PLAY, Mode.OFF):
        return False
    if scene.mode is Mode.OFF:
        return True
    if scene.mummy is not None or scene.missing or scene.unexpected or scene.errors:
        return False
    if scene.hints and scene.hint_pulses > 0:
        return False
    return scene.catch_at is None or t - scene.catch_time >= CATCH_SECONDS


def _feedback(scene: Scene, t: float, frame: list[RGB]) -> None:
    """Restore-the-board guidance and illegal placements, over everything else."""
    if scene.missing:
        colour = scale(MISSING_COLOUR, 0.9) if _phase(t, MISSING_HZ) < 0.5 else DARK
        for position in scene.missing:
            frame[position] = colour
    if scene.unexpected:
        phase = _phase(t, 1.0)
        lit = any(start <= phase < end for start, end in UNEXPECTED_FLASHES)
        colour = UNEXPECTED_COLOUR if lit else DARK
        for position in scene.unexpected:
            frame[position] = colour
    if scene.errors:
        colour = ERROR_COLOUR if _phase(t, ERROR_HZ) < 0.5 else DARK
        for position in scene.errors:
            frame[position] = colour


def catch_progress(scene: Scene, t: float) -> float | None:
    """Seconds since the catch while its burst plays, else None."""
    if scene.catch_at is None:
        return None
    since = t - scene.catch_time
    return since if 0.0 <= since < CATCH_SECONDS else None


def _catch(scene: Scene, geometry: Geometry, t: float, frame: list[RGB]) -> None:
    """A white flash on the catch cell and an orange ring spreading over the grid."""
    since = catch_progress(scene, t)
    if since is None or scene.catch_at is None:
        return
    fade = (1.0 - since / CATCH_SECONDS) ** 2
    centre = scene.catch_at
    frame[centre] = _brighter(frame[centre], scale(CATCH_CORE, fade))
    if not geometry.is_cell(centre):
        return
    places = _places(geometry)
    cx, cy = places[centre]
    radius = since * CATCH_SPEED
    for position in range(geometry.cells):
        if position == centre:
            continue
        x, y = places[position]
        closeness = 1.0 - abs(math.hypot(x - cx, y - cy) - radius) / CATCH_WIDTH
        if closeness > 0.0:
            frame[position] = _brighter(frame[position], scale(CATCH_RING, fade * closeness))


def _idle(geometry: Geometry, t: float) -> list[RGB]:
    """A slow, dim wave of sand colour running diagonally over the board."""
    span = float(geometry.columns + geometry.rows)
    frame = []
    for x, y in _places(geometry):
        wave = 0.5 + 0.5 * math.sin(2.0 * math.pi * (t / IDLE_PERIOD - (x + y) / span))
        frame.append(scale(IDLE_COLOUR, IDLE_LOW + (IDLE_HIGH - IDLE_LOW) * wave * wave))
    return frame


def _mummy_wins(scene: Scene, geometry: Geometry, t: float) -> list[RGB]:
    """Rings of red-amber closing in on the winning mummy, which breathes fast."""
    places = _places(geometry)
    centres = [places[p] for p in sorted(scene.winners) if geometry.is_cell(p)]
    if not centres:
        centres = [((geometry.columns - 1) / 2.0, (geometry.rows - 1) / 2.0)]
    frame = []
    for x, y in places:
        distance = min(math.hypot(x - cx, y - cy) for cx, cy in centres)
        wave = 0.5 + 0.5 * math.cos(2.0 * math.pi * (distance / 3.0 + t * 0.8))
        frame.append(scale(MUMMY_WINS_COLOUR, 0.06 + 0.34 * wave**3))
    winner = scale(MUMMY_COLOUR, 0.8 + 0.2 * math.cos(4.0 * math.pi * t))
    for position in scene.winners:
        frame[position] = winner
    return frame


def _seekers_win(scene: Scene, geometry: Geometry, t: float) -> list[RGB]:
    """Cool sparkles all over the board; the winners' figures glow steady white."""
    slot = math.floor(t * SPARKLE_RATE)
    decay = 1.0 - (t * SPARKLE_RATE - slot)
    base = scale(SEEKERS_WIN_COLOURS[1], 0.04)
    frame = []
    for position in range(geometry.positions):
        mixed = _hash(position, slot)
        if mixed % SPARKLE_ODDS == 0:
            colour = SEEKERS_WIN_COLOURS[(mixed >> 8) % len(SEEKERS_WIN_COLOURS)]
            frame.append(_brighter(base, scale(colour, 0.7 * decay)))
        else:
            frame.append(base)
    for position in scene.winners:
        frame[position] = SEEKERS_WIN_WINNER
    return frame
