"""Fair streams: every seat's message about one publish is written in the same pass of
the broadcaster, after all of them were made, whichever seat's payload takes long to make
and whenever the publish lands (here in the middle of a pass), so no seat waits on
another's.  (How close together in milliseconds is the bench's ``stream_spread`` row.)"""

from __future__ import annotations

import socket
import threading
import time

from companion.web.broadcast import Broadcaster


def _written_together(*, begun_before_the_pass: bool) -> None:
    """Three seats' streams, the mummy's slow to make; the game's publish lands while
    the mummy's payload is being made (``publishing`` then the new version and ``wake``,
    or with ``begun_before_the_pass``, ``publishing`` already before that pass began)."""
    streams = Broadcaster(tick=0.05)
    version = 0
    seen = {"table": 0, "mummy": 0, "seeker0": 0}
    asked: list[float] = []  # every time any stream was asked for news
    asked_once: set[str] = set()
    armed = threading.Event()  # set once every stream is in the broadcaster's passes
    made: dict[str, float] = {}  # when each seat's news of the publish was made
    written: dict[str, float] = {}
    streams.written = lambda label, at: written.setdefault(label, at)
    slow_started = threading.Event()
    go_on = threading.Event()

    def step_of(seat: str, slow: bool) -> object:
        def step() -> tuple[str, bool]:
            asked.append(time.perf_counter())
            asked_once.add(seat)
            if slow and armed.is_set() and not slow_started.is_set():
                slow_started.set()
                go_on.wait(2)  # a payload that takes long to make, while the game publishes
            if version == seen[seat]:
                return "", True
            seen[seat] = version
            made[seat] = time.perf_counter()
            return f"data: {version}\n\n", True

        return step

    ends = []
    for seat, slow in (("table", False), ("mummy", True), ("seeker0", False)):
        mine, theirs = socket.socketpair()
        ends.append(theirs)
        streams.add(mine, step_of(seat, slow), [(("seat", seat), 12)])  # type: ignore[arg-type]
    deadline = time.monotonic() + 3
    while len(asked_once) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    if begun_before_the_pass:
        streams.publishing()
    armed.set()
    assert slow_started.wait(2)
    if not begun_before_the_pass:
        streams.publishing()  # the game publishes in the middle of the pass ...
    version = 1
    streams.wake()
    go_on.set()  # ... and the slow payload is finished after it
    deadline = time.monotonic() + 3
    while len(written) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)

    assert set(written) == {"table", "mummy", "seeker0"}
    first, last = min(written.values()), max(written.values())
    assert max(made.values()) < first, "a seat's news was written before another's was made"
    between = [at for at in asked if first <= at <= last]
    assert not between, "the seats' news went out in different passes"
    for end in ends:
        end.settimeout(2)
        assert b"data: 1" in end.recv(4096)
        end.close()


def test_every_seat_is_written_together_when_a_publish_lands_mid_pass() -> None:
    _written_together(begun_before_the_pass=False)


def test_a_publish_begun_before_the_pass_and_landing_in_it_reaches_every_seat_together() -> None:
    _written_together(begun_before_the_pass=True)
