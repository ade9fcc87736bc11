"""The Loot N Run score track on the board's LEDs: a pure function of the game and a time.

Loot N Run uses no figures, so while it is the active game the board is a score track:
a path of ``target + 1`` cells (0 to the target) spiralling clockwise from the top-left
corner along the edge of the grid, like the track printed round a game box.  On the
12x12 board with a target of 35 the 36 cells fill the top row, the right column, the
bottom row and two cells of the left column; the ring's last 8 cells stay dark, so the
start and the finish are easy to tell apart.

====================  ==============================  =======  ===========================
element               colour                          level    motion
====================  ==============================  =======  ===========================
track cell            sand (255, 170, 80)             6%       steady
every fifth cell, 0   sand                            16%      steady
target cell           gold (255, 200, 40)             45%      steady
token                 the player's colour             100%     steady
shared space          each player's colour in turn    100%     1 s each, short dark dip
whose turn            their colour, centre cells      30%      steady
Run / Awaken          token sweeps old -> new space   100%     1 s sweep, then a flash
caught player         their token                     100%     blinks 4 Hz for 1.3 s
game over             sparkles, winners white         render   4 s, then the final track
                                                               with winners pulsing, 3 s
====================  ==============================  =======  ===========================

Everything here is deterministic given (the game, its last change, ``t``): no clock, no
state, so any instant of any animation can be tested.  ``t`` is on the same clock as
``TrackMove.at`` (the service's monotonic clock, which the LED thread also uses).
Scores past the target stay on the target cell (only the final reveal goes past it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .render import Geometry, scale
from .scene import Mode, Scene

RGB = tuple[int, int, int]
Paint = tuple[tuple[int, RGB], ...]

DARK: RGB = (0, 0, 0)
TRACK_COLOUR: RGB = (255, 170, 80)
TRACK_LEVEL = 0.06
MILESTONE_EVERY = 5
MILESTONE_LEVEL = 0.16
TARGET_COLOUR: RGB = (255, 200, 40)
TARGET_LEVEL = 0.45
TURN_LEVEL = 0.30
#: Players on the same space take turns: each colour shows this long ...
SHARE_SECONDS = 1.0
#: ... and the last part of each turn is dark, so a change of colour is seen as one.
SHARE_DIP = 0.12
#: The sweep of a token from its old space to its new one, then a flash on arrival.
SWEEP_SECONDS = 1.0
FLASH_SECONDS = 0.3
ANIMATION_SECONDS = SWEEP_SECONDS + FLASH_SECONDS
#: Levels of the two trail cells behind a sweeping token.
TRAIL_LEVELS = (0.4, 0.15)
CAUGHT_HZ = 4.0
#: Game over: sparkles with the winners' spaces lit, then the final track, in a loop.
CELEBRATE_SECONDS = 4.0
FINAL_TRACK_SECONDS = 3.0
WINNER_PULSE_HZ = 2.0

#: Token colour names (English and German) and the LED colour each one shows.  Black
#: is shown as a dim grey: a dark LED would look like an empty space.
NAMED_COLOURS: dict[str, RGB] = {
    "red": (255, 0, 0),
    "rot": (255, 0, 0),
    "orange": (255, 100, 0),
    "yellow": (255, 210, 0),
    "gelb": (255, 210, 0),
    "gold": (255, 180, 0),
    "green": (0, 220, 40),
    "grün": (0, 220, 40),
    "gruen": (0, 220, 40),
    "lime": (140, 255, 0),
    "turquoise": (0, 210, 170),
    "türkis": (0, 210, 170),
    "tuerkis": (0, 210, 170),
    "cyan": (0, 220, 255),
    "teal": (0, 150, 140),
    "blue": (0, 70, 255),
    "blau": (0, 70, 255),
    "navy": (0, 30, 160),
    "purple": (150, 0, 255),
    "violet": (150, 0, 255),
    "lila": (150, 0, 255),
    "pink": (255, 60, 160),
    "rosa": (255, 60, 160),
    "magenta": (255, 0, 200),
    "brown": (150, 70, 20),
    "braun": (150, 70, 20),
    "white": (255, 255, 255),
    "weiß": (255, 255, 255),
    "weiss": (255, 255, 255),
    "grey": (120, 120, 120),
    "gray": (120, 120, 120),
    "grau": (120, 120, 120),
    "black": (60, 60, 70),
    "schwarz": (60, 60, 70),
}
#: Colours given to players whose colour name is not known, in this order.
FALLBACK_COLOURS: tuple[RGB, ...] = (
    (255, 0, 0),
    (0, 70, 255),
    (0, 220, 40),
    (255, 210, 0),
    (150, 0, 255),
    (255, 100, 0),
    (0, 210, 170),
    (255, 60, 160),
)


def colour_rgb(name: str) -> RGB | None:
    """The LED colour of a token colour name (``"red"``, ``"Türkis"``, ``"#ff8800"``).

    None when the name is not known, so the caller can pick a colour nobody else has.
    """
    key = name.strip().casefold()
    if key in NAMED_COLOURS:
        return NAMED_COLOURS[key]
    digits = key[1:] if key.startswith("#") else ""
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    if len(digits) == 6:
        try:
            value = int(digits, 16)
        except ValueError:
            return None
        return ((value >> 16) & 255, (value >> 8) & 255, value & 255)
    return None


def player_colours(names: Iterable[str]) -> tuple[RGB, ...]:
    """The LED colour of every player: their named colour, or a fallback nobody uses."""
    known = [colour_rgb(n) for n in names]
    spare = [c for c in FALLBACK_COLOURS if c not in known]
    result: list[RGB] = []
    for i, colour in enumerate(known):
        if colour is None:
            colour = spare.pop(0) if spare else FALLBACK_COLOURS[i % len(FALLBACK_COLOURS)]
        result.append(colour)
    return tuple(result)


def hex_colour(colour: RGB) -> str:
    """``(255, 136, 0)`` -> ``"#ff8800"`` (for the page, so it shows the LEDs' colours)."""
    return "#{:02x}{:02x}{:02x}".format(*colour)


# -- what the track shows ---------------------------------------------------------------


@dataclass(frozen=True)
class TrackView:
    """What the LEDs need of a Loot N Run game.

    ``current`` is whose turn it is (None during the final reveal and after the end);
    ``winners`` are set once the game is over.
    """

    colours: tuple[RGB, ...]
    scores: tuple[int, ...]
    target: int
    current: int | None = None
    over: bool = False
    winners: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.colours) != len(self.scores):
            raise ValueError("every player needs a colour and a score")
        if self.target < 1:
            raise ValueError("the target must be at least 1 point")


@dataclass(frozen=True)
class TrackMove:
    """The last change of the track, to animate: every score before and after it.

    ``at`` is when it happened (the caller's clock); ``caught`` is the player caught by
    an Awaken, whose token blinks.
    """

    before: tuple[int, ...]
    after: tuple[int, ...]
    at: float
    caught: int | None = None


@lru_cache(maxsize=32)
def track_path(columns: int, rows: int, target: int) -> tuple[int, ...]:
    """The cells of the track, space 0 first: ``target + 1`` cells spiralling clockwise
    inwards from the top-left corner (cell numbers in maze order, row by row).

    Each cell follows the previous one orthogonally, so a sweeping token is seen to
    walk.  Raises ValueError if the grid is too small for the track.
    """
    if columns < 1 or rows < 1:
        raise ValueError("a board needs at least one column and one row")
    if target < 1:
        raise ValueError("the target must be at least 1 point")
    if target + 1 > columns * rows:
        raise ValueError(
            f"a track to {target} needs {target + 1} cells; the board has {columns * rows}"
        )
    order: list[int] = []
    top, bottom, left, right = 0, rows - 1, 0, columns - 1
    while top <= bottom and left <= right and len(order) <= target:
        order += [top * columns + c for c in range(left, right + 1)]
        order += [r * columns + right for r in range(top + 1, bottom + 1)]
        if top < bottom:
            order += [bottom * columns + c for c in range(right - 1, left - 1, -1)]
        if left < right:
            order += [r * columns + left for r in range(bottom - 1, top, -1)]
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return tuple(order[: target + 1])


def track_index(score: int, target: int) -> int:
    """The track space of a score: scores past the target stay on the target space."""
    return min(max(score, 0), target)


def centre_cells(columns: int, rows: int) -> tuple[int, ...]:
    """The middle cell(s) of the grid: 1, 2 or 4 cells (where whose turn it is shows)."""
    cols = {(columns - 1) // 2, columns // 2}
    rws = {(rows - 1) // 2, rows // 2}
    return tuple(sorted(r * columns + c for r in rws for c in cols))


def animation_elapsed(move: TrackMove | None, t: float) -> float | None:
    """Seconds since ``move`` while its animation plays, else None."""
    if move is None:
        return None
    since = t - move.at
    return since if 0.0 <= since < ANIMATION_SECONDS else None


def _ease_out(p: float) -> float:
    return 1.0 - (1.0 - p) ** 2


def _mix(colour: RGB, other: RGB, amount: float) -> RGB:
    """``colour`` moved ``amount`` (0 to 1) of the way towards ``other``."""
    a = min(max(amount, 0.0), 1.0)
    r, g, b = (round(x + (y - x) * a) for x, y in zip(colour, other, strict=True))
    return (r, g, b)


def _share_colour(colours: Sequence[RGB], t: float) -> RGB:
    """Players on one space take turns at 1 Hz, with a short dark dip between them."""
    if len(colours) == 1:
        return colours[0]
    slot = math.floor(t / SHARE_SECONDS)
    if (t / SHARE_SECONDS) - slot >= 1.0 - SHARE_DIP:
        return DARK
    return colours[slot % len(colours)]


def track_paint(
    view: TrackView,
    columns: int,
    rows: int,
    t: float,
    move: TrackMove | None = None,
    *,
    pulse_winners: bool = False,
) -> Paint:
    """The colours of the track at time ``t``: the path, the tokens, whose turn it is,
    and the sweep of the last Run or Awaken while it plays.

    Only cells are painted (the pads stay dark); positions not listed are dark.
    """
    path = track_path(columns, rows, view.target)
    colours: dict[int, RGB] = {}
    for space, cell in enumerate(path):
        if space == view.target:
            colours[cell] = scale(TARGET_COLOUR, TARGET_LEVEL)
        elif space % MILESTONE_EVERY == 0:
            colours[cell] = scale(TRACK_COLOUR, MILESTONE_LEVEL)
        else:
            colours[cell] = scale(TRACK_COLOUR, TRACK_LEVEL)
    on_path = set(path)
    if view.current is not None and 0 <= view.current < len(view.colours):
        turn = scale(view.colours[view.current], TURN_LEVEL)
        for cell in centre_cells(columns, rows):
            if cell not in on_path:
                colours[cell] = turn

    elapsed = animation_elapsed(move, t)
    moving: set[int] = set()
    if move is not None and elapsed is not None and len(move.before) == len(view.scores):
        moving = {p for p, (a, b) in enumerate(zip(move.before, move.after, strict=True)) if a != b}
    # Tokens standing still, grouped by space; players sharing a space take turns.
    spaces: dict[int, list[int]] = {}
    for player, score in enumerate(view.scores):
        if player not in moving:
            spaces.setdefault(track_index(score, view.target), []).append(player)
    for space, players in spaces.items():
        shown = [view.colours[p] for p in players]
        colour = _share_colour(shown, t)
        if pulse_winners and any(p in view.winners for p in players):
            wave = 0.5 + 0.5 * math.cos(2.0 * math.pi * WINNER_PULSE_HZ * t)
            colour = scale(colour, 0.35 + 0.65 * wave)
        if (
            move is not None
            and elapsed is not None
            and move.caught is not None
            and move.caught in players
            and (elapsed * CAUGHT_HZ) % 1.0 >= 0.5
        ):
            colour = DARK
        colours[path[space]] = colour
    # Sweeping tokens, drawn over everything else on the track.
    if move is not None and elapsed is not None:
        for player in sorted(moving):
            _sweep(colours, path, view, move, player, elapsed)
    return tuple(sorted(colours.items()))


def _sweep(
    colours: dict[int, RGB],
    path: tuple[int, ...],
    view: TrackView,
    move: TrackMove,
    player: int,
    elapsed: float,
) -> None:
    """One token walking from its old space to its new one, a short trail behind it."""
    start = track_index(move.before[player], view.target)
    end = track_index(move.after[player], view.target)
    colour = view.colours[player]
    progress = min(elapsed / SWEEP_SECONDS, 1.0)
    step = 1 if end >= start else -1
    head = start + round((end - start) * _ease_out(progress))
    for back, level in enumerate(TRAIL_LEVELS, 1):
        space = head - back * step
        if progress < 1.0 and min(start, end) <= space <= max(start, end):
            colours[path[space]] = scale(colour, level)
    if progress >= 1.0:
        # The arrival flash: from white back to the token's colour.
        flash = 1.0 - (elapsed - SWEEP_SECONDS) / FLASH_SECONDS
        colour = _mix(colour, (255, 255, 255), 0.7 * flash)
    colours[path[head]] = colour


def track_scene(
    view: TrackView | None,
    geometry: Geometry,
    t: float,
    move: TrackMove | None = None,
) -> Scene:
    """The scene the board shows for a Loot N Run game at time ``t``.

    No game: the idle animation.  During play and the final reveal: the track.  Once
    the game is over: sparkles with the winners' spaces lit (``Mode.SEEKERS_WIN``) for
    4 s, then the final track with the winners' tokens pulsing for 3 s, in a loop that
    starts when the last change's animation has played.
    """
    if view is None:
        return Scene(positions=geometry.positions, mode=Mode.IDLE)
    columns, rows = geometry.columns, geometry.rows
    if view.over and animation_elapsed(move, t) is None:
        since = t - (move.at + ANIMATION_SECONDS) if move is not None else t
        cycle = CELEBRATE_SECONDS + FINAL_TRACK_SECONDS
        if since % cycle < CELEBRATE_SECONDS:
            path = track_path(columns, rows, view.target)
            winners = frozenset(
                path[track_index(view.scores[p], view.target)]
                for p in view.winners
                if 0 <= p < len(view.scores)
            )
            return Scene(positions=geometry.positions, mode=Mode.SEEKERS_WIN, winners=winners)
        paint = track_paint(view, columns, rows, t, pulse_winners=True)
        return Scene(positions=geometry.positions, mode=Mode.PLAY, paint=paint, animated=True)
    paint = track_paint(view, columns, rows, t, move)
    # Tokens sharing a space take turns and moves sweep: the track is drawn with a clock.
    return Scene(positions=geometry.positions, mode=Mode.PLAY, paint=paint, animated=True)
