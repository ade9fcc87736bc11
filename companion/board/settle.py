"""The settle time of each kind of sensor, derived from what a passing figure looks like.

A change counts once a sensor has been stable for ``settle_ms`` (``debounce.py``).  The
longest a figure slid across the maze keeps one sensor "occupied", as the Pi's scans
see it, is the limit: a settle time longer than that never reports a cell the figure
only passed, and every millisecond beyond it only delays each real move.  That
longest run depends on the sensor and the way it is read:

- **reed** (read by the Pi): closed while the magnet is over it, at most
  ``SLIDE_OVER_CELL_MS`` (80 ms, the slowest slide over a 25 mm cell), plus its contact
  bounce at the release (``REED_BOUNCE_MS``): 81 ms.
- **hall** (a sampled DRV5032): its output changes only at a sample and holds until the
  next one, up to ``HALL_PERIOD_MAX_MS`` (75 ms) later: 80 + 75 = 155 ms.
- **serial** (the sensors behind the Pico): the Pico's keypad reports a change once
  ``DEBOUNCE_THRESHOLD`` scans ``SCAN_INTERVAL`` apart agree (``firmware/settings.py``).
  Both edges wait for the same number of scans, but each for the first scan after it,
  up to one interval: the run grows by up to one keypad interval (20 ms), whatever the
  threshold.

The settle time is that run plus one scan period of the Pi (``scan_hz``): the margin
for a hand a little slower than the slowest one measured.  ``tests/test_settle.py``
plays scripted timelines of each kind (slides at every phase of the scans and samples,
reed bounce, lifts and put-backs) through the real debouncer and checks that this is
the shortest settle time that keeps every slide out (the run alone lets one through).
"""

from __future__ import annotations

from companion.firmware import settings as pico

#: The slowest a hand slides a figure over one 25 mm cell (it passes in 30 to 80 ms).
SLIDE_OVER_CELL_MS = 80
#: A reed switch's contact bounce at each edge.
REED_BOUNCE_MS = 1
#: The DRV5032's 20 Hz versions sample every 27 to 75 ms (13.3 to 37 Hz, TI SLVSDC7).
HALL_PERIOD_MAX_MS = 75
#: The Pico's keypad scan and how many scans in a row a change must last.
PICO_SCAN_MS = round(pico.SCAN_INTERVAL * 1000)
PICO_THRESHOLD = int(pico.DEBOUNCE_THRESHOLD)
#: The kinds of sensor a board may have.
KINDS = ("reed", "hall")


def longest_run_ms(kind: str, serial: bool) -> float:
    """The longest a slid figure keeps one sensor occupied, as the Pi sees it (ms)."""
    if kind not in KINDS:
        raise ValueError(f"unknown sensor kind {kind!r}")
    run = SLIDE_OVER_CELL_MS + (REED_BOUNCE_MS if kind == "reed" else HALL_PERIOD_MAX_MS)
    if serial:
        run += PICO_SCAN_MS
    return float(run)


def settle_for(kind: str, backend: str, scan_hz: float) -> float:
    """The settle time (ms) of a board: its sensors' longest run plus one scan period."""
    return longest_run_ms(kind, backend == "serial") + 1000.0 / scan_hz
