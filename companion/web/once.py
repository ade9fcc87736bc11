"""A command sent twice is played once.

A page far away (through a tunnel, with loss on the way) sends each of its commands
twice, a moment apart, with one id: whichever copy arrives first is played, and the other
gets the state as it is now.  A lost piece then costs nothing, where it would cost TCP's
retransmission time (``docs/remote.md``).  Ids are remembered per seat, the last
``KEEP`` of them; a refused command is not remembered (its copy is refused alike).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from flask import Flask, current_app, make_response
from flask.typing import ResponseReturnValue

#: The ids remembered (a page sends a new one per command; a copy comes within seconds).
KEEP = 256


class Played:
    """The command ids played lately, by seat."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: OrderedDict[tuple[str, str], None] = OrderedDict()

    def once(
        self,
        seat: str,
        command_id: str,
        act: Callable[[], ResponseReturnValue],
        again: Callable[[], ResponseReturnValue],
    ) -> ResponseReturnValue:
        """``act()`` unless a command with this id was played for ``seat``; ``again()``
        (the state now) for its copy."""
        key = (seat, command_id)
        with self.lock:  # a copy arriving meanwhile waits for the first one's answer
            if key in self.ids:
                return again()
            answer = make_response(act())
            if answer.status_code == 200:
                self.ids[key] = None
                while len(self.ids) > KEEP:
                    self.ids.popitem(last=False)
            return answer


def played() -> Played:
    made: Played = current_app.extensions["companion.played"]
    return made


def init_app(app: Flask) -> None:
    app.extensions.setdefault("companion.played", Played())
