"""The debouncer on its own: bounce, settle, slides, and a property over any timeline.

Times are whole milliseconds (settle 40) where exactness matters, so the
arithmetic is exact; the debouncer does not care about the unit.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board.debounce import (
    SUGGESTED_SETTLE_S,
    TIME_TOLERANCE_S,
    Debouncer,
    OccupancyChange,
)

SETTLE = 40


def scan(
    debouncer: Debouncer, timeline: dict[int, int], start: int, stop: int, step: int = 1
) -> list[OccupancyChange]:
    """Feed a scan every ``step`` from ``start`` to ``stop``; raw comes from the last
    ``timeline`` entry at or before each scan.  Returns every change."""
    raw = 0
    changes: list[OccupancyChange] = []
    for now in range(start, stop, step):
        for t in sorted(timeline):
            if t <= now:
                raw = timeline[t]
        changes += debouncer.feed(raw, now)
    return changes


def test_chatter_shorter_than_settle_is_ignored() -> None:
    d = Debouncer(8, SETTLE)
    # Sensor 3 chatters for 10 ms and falls back to empty: a knock, not a figure.
    timeline = {t: (1 << 3) if t % 2 == 0 else 0 for t in range(100, 110)}
    timeline[110] = 0
    assert scan(d, timeline, 0, 400) == []
    assert d.snapshot == 0


def test_chatter_gaps_restart_the_settle_time() -> None:
    d = Debouncer(1, SETTLE)
    # On for 30, off for 1, on for 30: never stable for 40 until the last edge + 40.
    timeline = {100: 1, 130: 0, 131: 1}
    changes = scan(d, timeline, 0, 300)
    assert changes == [OccupancyChange(0, True, at=171, since=131)]


def test_stable_change_reported_once_with_timestamps() -> None:
    d = Debouncer(152, SETTLE)
    # A reed switch bounces for ~1 ms (three edges), then stays closed.
    timeline = {100: 1 << 40, 101: 0, 102: 1 << 40}
    changes = scan(d, timeline, 0, 500, step=1)
    assert changes == [OccupancyChange(40, True, at=142, since=102)]
    assert d.snapshot == 1 << 40
    # ... and lifted later: one report, stamped the same way.  Scanned every 5 ms,
    # the bounce falls between scans, so the edge is the scan at 100.
    timeline[300] = 0
    d2 = Debouncer(152, SETTLE)
    changes = scan(d2, timeline, 0, 500, step=5)
    assert changes == [
        OccupancyChange(40, True, at=140, since=100),
        OccupancyChange(40, False, at=340, since=300),
    ]


def test_confirmation_waits_for_a_scan_at_or_after_the_settle_time() -> None:
    d = Debouncer(4, 0.040)
    assert d.feed(0b10, 0.100) == []
    assert d.next_deadline() == pytest.approx(0.140)
    assert d.feed(0b10, 0.139) == []
    assert d.pending == 0b10
    # 0.1 + 0.04 is not exactly 0.14 in binary; the tolerance absorbs that.
    (change,) = d.feed(0b10, 0.100 + 0.040)
    assert change.at - change.since >= 0.040 - TIME_TOLERANCE_S
    assert d.pending == 0 and d.next_deadline() is None


def test_figure_slid_across_three_cells_reports_only_the_last() -> None:
    d = Debouncer(152, SETTLE, initial=1 << 10)  # a figure stands on sensor 10
    # Slid over 11 and 12 (30 ms each, under the settle time) onto 13.
    timeline = {0: 1 << 10, 100: 1 << 11, 130: 1 << 12, 160: 1 << 13}
    changes = scan(d, timeline, 0, 400, step=5)
    assert changes == [
        OccupancyChange(10, False, at=140, since=100),
        OccupancyChange(13, True, at=200, since=160),
    ]
    assert d.snapshot == 1 << 13


def test_slide_with_overlap_between_cells_still_reports_only_the_last() -> None:
    # A magnet closes the next reed before the last one opens (fields overlap).
    d = Debouncer(16, SETTLE)
    timeline = {100: 0b0001, 125: 0b0011, 130: 0b0010, 155: 0b0110, 160: 0b0100}
    changes = scan(d, timeline, 0, 400, step=5)
    assert changes == [OccupancyChange(2, True, at=195, since=155)]


def test_settle_zero_reports_every_scan_change() -> None:
    d = Debouncer(2, 0.0)
    assert d.feed(0b01, 1.0) == [OccupancyChange(0, True, 1.0, 1.0)]
    assert d.feed(0b10, 2.0) == [
        OccupancyChange(0, False, 2.0, 2.0),
        OccupancyChange(1, True, 2.0, 2.0),
    ]


def test_rejects_foreign_bits_and_time_going_back() -> None:
    d = Debouncer(4, SETTLE)
    with pytest.raises(ValueError, match="beyond the 4 sensors"):
        d.feed(1 << 4, 0)
    d.feed(0, 10)
    with pytest.raises(ValueError, match="backwards"):
        d.feed(0, 9)
    with pytest.raises(ValueError):
        Debouncer(4, -1)


def test_suggested_settle_covers_a_slow_slide() -> None:
    # A hand-speed slide crosses a 25 mm cell in 30 to 80 ms.
    assert SUGGESTED_SETTLE_S > 0.080


# -- property: any raw timeline -------------------------------------------------------

COUNT = 5
timelines = st.lists(
    st.tuples(st.integers(min_value=0, max_value=60), st.integers(0, (1 << COUNT) - 1)),
    min_size=1,
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(timelines, st.integers(min_value=0, max_value=50))
def test_every_report_follows_settle_of_stable_input(
    steps: list[tuple[int, int]], settle: int
) -> None:
    d = Debouncer(COUNT, settle)
    scans: list[tuple[int, int]] = []
    reports: list[tuple[int, OccupancyChange]] = []  # (index of the confirming scan, change)
    now = 0
    for gap, raw in steps:
        now += gap
        scans.append((now, raw))
        reports += [(len(scans) - 1, change) for change in d.feed(raw, now)]

    for k, change in reports:
        bit = 1 << change.position
        assert change.at == scans[k][0]
        assert change.at - change.since >= settle
        # The raw value held the reported state from the scan stamped ``since`` on:
        # walk back over the run of equal values to find where it began.
        j = k
        while j > 0 and bool(scans[j - 1][1] & bit) == change.occupied:
            j -= 1
        assert bool(scans[k][1] & bit) == change.occupied
        assert scans[j][0] == change.since

    # Reports of one sensor alternate, starting from empty: never the same twice.
    for position in range(COUNT):
        states = [c.occupied for _, c in reports if c.position == position]
        assert states == [i % 2 == 0 for i in range(len(states))]

    # At the end, every sensor stable for the settle time shows its raw value.
    end = scans[-1][0]
    for position in range(COUNT):
        bit = 1 << position
        value, edge = False, float("-inf")  # the debouncer starts with all sensors empty
        for t, raw in scans:
            if bool(raw & bit) != value:
                value, edge = not value, t
        if end - edge >= settle:
            assert bool(d.snapshot & bit) == value
        else:
            assert d.pending & bit or bool(d.snapshot & bit) == value
