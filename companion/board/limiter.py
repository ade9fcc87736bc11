"""Gamma correction and the current limiter: pure functions on the bytes sent to the strip.

The limiter follows WLED's automatic brightness limiter: estimate the frame's draw
from its channel values (each channel draws ``per_channel_ma`` at 255, linearly, and
every pixel draws ``idle_ma`` even when dark), and if the estimate exceeds the supply's
limit, scale every channel by ``(max - idle_total) / (estimate - idle_total)``.  It
must see the final bytes, after gamma and brightness, because that is what draws the
current.  The scaling is done in whole numbers so the limited frame's estimate never
exceeds the limit, not even by rounding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .render import DARK, RGB, Frame


def gamma_table(gamma: float) -> bytes:
    """``table[v]`` = ``255 * (v / 255) ** gamma``, rounded; 0 stays 0 and 255 stays 255.

    A lit input never rounds to dark (it gives at least 1, like FastLED's "video"
    scaling), so a dim hint stays visible and keeps its hue instead of vanishing.
    """
    if not gamma > 0:
        raise ValueError(f"gamma must be positive, got {gamma}")
    return bytes(0 if v == 0 else max(1, round(255.0 * (v / 255.0) ** gamma)) for v in range(256))


def output_table(gamma: float, brightness: float) -> bytes:
    """Gamma, then brightness as a linear dimmer of the output: one lookup per channel.

    Brightness scales the PWM value (as PixelBuf's and WLED's brightness do), so the
    current scales with it and a colour keeps its gamma-corrected channel ratios.
    """
    if not 0.0 <= brightness <= 1.0:
        raise ValueError(f"brightness must be between 0 and 1, got {brightness}")
    if brightness == 0.0:
        return bytes(256)
    return bytes(0 if g == 0 else max(1, round(g * brightness)) for g in gamma_table(gamma))


def estimate_milliamps(
    frame: Sequence[Sequence[int]], per_channel_ma: float, idle_ma: float
) -> float:
    """The draw of a frame of output bytes: channels linearly, plus every pixel's idle."""
    channels = sum(sum(pixel) for pixel in frame)
    return channels * per_channel_ma / 255.0 + idle_ma * len(frame)


def limit(
    frame: Sequence[RGB], max_ma: float, per_channel_ma: float, idle_ma: float
) -> tuple[Frame, float]:
    """The frame scaled so its estimated draw stays within ``max_ma``, and the scale.

    A frame within the limit comes back unchanged with scale 1.0.  If the idle draw
    alone reaches the limit, every pixel goes dark (scale 0.0): nothing else can help.
    """
    if per_channel_ma <= 0:
        raise ValueError(f"per_channel_ma must be positive, got {per_channel_ma}")
    if estimate_milliamps(frame, per_channel_ma, idle_ma) <= max_ma:
        return tuple(frame), 1.0
    idle_total = idle_ma * len(frame)
    # The channel sum the supply can afford, in whole channel steps (rounded down).
    budget = math.floor((max_ma - idle_total) * 255.0 / per_channel_ma)
    if budget <= 0:
        return (DARK,) * len(frame), 0.0
    channels = sum(sum(pixel) for pixel in frame)
    scaled = tuple(
        ((r * budget) // channels, (g * budget) // channels, (b * budget) // channels)
        for r, g, b in frame
    )
    return scaled, budget / channels
