"""Per-sensor debouncing with a settle rule: raw scans in, occupancy changes out.

A sensor's new value counts once it has stayed the same for ``settle_s`` seconds,
measured from that sensor's last raw edge.  That one rule removes reed-switch bounce
(about 1 ms) and the cells a figure merely passes over while it is slid across the
board (each is touched for less than the settle time), so neither produces an event.

The debouncer is pure: it has no clock and no thread.  The caller feeds it whole
scans as bit masks (bit i = sensor i is active) with the time of each scan, so the
same code runs in the scan thread, in tests with a fake clock and in replays.

Choosing ``settle_s`` (see ``SUGGESTED_SETTLE_S``): it must be longer than contact
bounce (~1 ms for a reed switch) and longer than the time a sliding figure keeps one
sensor active.  At hand speed a figure crosses a 25 mm cell in 30 to 80 ms, and the
sensor sees the magnet for most of that, so anything shorter than ~80 ms lets a slow
slide leave phantom visits.  100 ms is the suggested default: it covers the slowest
pass plus two 100 Hz scan periods, and a placement is still confirmed within about
0.1 s, below what a player notices next to the LED feedback.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Suggested settle time in seconds (the reasoning is in the module docstring).
SUGGESTED_SETTLE_S = 0.100
#: Scan times closer than this count as equal, so float rounding of sums of scan
#: periods (0.005 * 8 != 0.04) cannot delay a confirmation by a whole scan.
TIME_TOLERANCE_S = 1e-9


@dataclass(frozen=True)
class OccupancyChange:
    """One confirmed change: ``position`` became ``occupied`` (or empty).

    ``since`` is the time of the scan that first saw the new raw value (the figure
    landed, or left, then); ``at`` is the time of the scan that confirmed it, so
    ``at - since >= settle_s``.  The Debouncer numbers positions by sensor bit;
    ``Sensors`` reports logical board positions.
    """

    position: int
    occupied: bool
    at: float
    since: float


class Debouncer:
    """Debounces ``count`` sensors: a change counts once stable for ``settle_s``."""

    __slots__ = ("_count", "_edges", "_last_now", "_mask", "_raw", "_settle", "_stable")

    def __init__(self, count: int, settle_s: float, *, initial: int = 0) -> None:
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        if settle_s < 0:
            raise ValueError(f"settle_s must be >= 0, got {settle_s}")
        self._count = count
        self._mask = (1 << count) - 1
        if initial & ~self._mask:
            raise ValueError(f"initial has bits beyond the {count} sensors")
        self._settle = float(settle_s)
        self._raw = initial
        self._stable = initial
        #: Time of the last raw edge of every sensor (meaningful while it differs).
        self._edges = [0.0] * count
        self._last_now: float | None = None

    @property
    def count(self) -> int:
        return self._count

    @property
    def settle_s(self) -> float:
        return self._settle

    @property
    def snapshot(self) -> int:
        """The debounced state: bit i set while sensor i is (confirmed) active."""
        return self._stable

    @property
    def raw(self) -> int:
        """The last raw mask fed in."""
        return self._raw

    @property
    def pending(self) -> int:
        """Sensors whose raw value differs from the debounced one (not settled yet)."""
        return self._raw ^ self._stable

    def feed(self, raw: int, now: float) -> list[OccupancyChange]:
        """Take one scan taken at ``now``; return the changes confirmed by it.

        Changes come in increasing sensor order.  ``now`` must not go backwards.
        """
        if raw & ~self._mask:
            raise ValueError(f"raw has bits beyond the {self._count} sensors")
        if self._last_now is not None and now < self._last_now:
            raise ValueError(f"time went backwards: {now} after {self._last_now}")
        self._last_now = now
        edges = self._edges
        changed = raw ^ self._raw
        if changed:
            self._raw = raw
            while changed:
                low = changed & -changed
                edges[low.bit_length() - 1] = now
                changed ^= low
        pending = raw ^ self._stable
        if not pending:
            return []
        settle = self._settle - TIME_TOLERANCE_S
        confirmed: list[OccupancyChange] = []
        stable = self._stable
        while pending:
            low = pending & -pending
            pending ^= low
            index = low.bit_length() - 1
            since = edges[index]
            if now - since >= settle:
                stable ^= low
                confirmed.append(OccupancyChange(index, bool(raw & low), now, since))
        self._stable = stable
        return confirmed

    def next_deadline(self) -> float | None:
        """The earliest time a pending change could be confirmed, or None if none is."""
        pending = self._raw ^ self._stable
        earliest: float | None = None
        while pending:
            low = pending & -pending
            pending ^= low
            edge = self._edges[low.bit_length() - 1]
            if earliest is None or edge < earliest:
                earliest = edge
        return None if earliest is None else earliest + self._settle
