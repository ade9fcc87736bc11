"""Fair streams: every seat's message about one publish is written in the same pass of
the broadcaster, whichever seat's payload takes long to make and whenever the publish
lands (here in the middle of a pass), so no seat waits on another's."""

from __future__ import annotations

import socket
import threading
import time

from companion.web.broadcast import Broadcaster


def test_every_seat_is_written_together_when_a_publish_lands_mid_pass() -> None:
    streams = Broadcaster(tick=0.05)
    version = 0
    seen = {"table": 0, "mummy": 0, "seeker0": 0}
    written: dict[str, float] = {}
    streams.written = lambda label, at: written.setdefault(label, at)
    slow_started = threading.Event()

    def step_of(seat: str, slow: bool) -> object:
        def step() -> tuple[str, bool]:
            if slow and version == 0 and seen[seat] == 0:
                slow_started.set()
                time.sleep(0.05)  # a payload that takes long to make, while ...
            if version == seen[seat]:
                return "", True
            seen[seat] = version
            time.sleep(0.015)  # every payload takes its time to make
            return f"data: {version}\n\n", True

        return step

    ends = []
    for seat, slow in (("table", False), ("mummy", True), ("seeker0", False)):
        mine, theirs = socket.socketpair()
        ends.append(theirs)
        streams.add(mine, step_of(seat, slow), [(("seat", seat), 12)])  # type: ignore[arg-type]
    assert slow_started.wait(2)
    streams.publishing()  # ... the game publishes (its on_publishing, then on_publish)
    version = 1
    streams.wake()
    deadline = time.monotonic() + 3
    while len(written) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert set(written) == {"table", "mummy", "seeker0"}
    assert max(written.values()) - min(written.values()) < 0.010, written
    for end in ends:
        end.settimeout(2)
        assert b"data: 1" in end.recv(4096)
        end.close()
