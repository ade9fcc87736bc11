"""The order of a seat's live messages across two channels.

A page far away (through a tunnel) holds two live channels and takes each message from
whichever brings it first (``static/play.js``): a piece lost on one connection then waits
TCP's retransmission time only if the other lost its copy too.  Each message carries an
SSE ``id`` ``<run>-<stamp>``: messages read later have larger stamps, and one state read
by both channels, one after the other, has the same stamp, so the page renders it once
and never goes back to an older one.  ``run`` changes when the companion starts again
(the clock may have gone back): a page takes the new run's messages as newer.

A stamp is a wall-clock microsecond count, not a counter: it tells nothing the message's
arrival does not (the mummy must not count how often the service published).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable

#: This run of the companion.
RUN = secrets.token_hex(4)
#: Pages remembered (a device's seat and language each); the oldest are forgotten.
KEPT = 512


class Stamps:
    """Per page key: the last text sent by any of its channels and its stamp."""

    def __init__(self) -> None:
        #: Held while a channel reads the state and stamps it, so the stamps' order is
        #: the order in which the state was read (only pages through the tunnel take it).
        self.lock = threading.Lock()
        self._last: OrderedDict[Hashable, tuple[str, int]] = OrderedDict()

    def stamp(self, key: Hashable, text: str) -> str:
        """The id of ``text`` read now (under ``lock``): the last one's again when it is
        the same text."""
        last = self._last.get(key)
        if last is not None and last[0] == text:
            return f"{RUN}-{last[1]}"
        now = time.time_ns() // 1000
        stamp = max(now, last[1] + 1) if last is not None else now
        self._last[key] = (text, stamp)
        self._last.move_to_end(key)
        while len(self._last) > KEPT:
            self._last.popitem(last=False)
        return f"{RUN}-{stamp}"
