"""Who may see what: every door of every game on the board, by seat, in one place.

A door is a page, a JSON read, a live stream or a request that changes something.
The web layer asks ``may`` before it opens one (``companion.web.doors`` does it for
every route); nothing opens for a device with neither a seat nor the host's cookie.

============  =======================================  ====================================
game          look (pages, JSON, streams)              act (commands, new games, undo)
============  =======================================  ====================================
the maze      each seat its own page only: the mummy    the mummy and the seekers on their
              the mummy's, a seeker its own, the table  own pages (the engine checks turns)
              screen the table's (RULES.md: who sees
              what); the watching seat none
Loot N Run    every seat and the host                   every seat but the watching one,
                                                        and the host
the crypt     every seat and the host                   every seat but the watching one,
                                                        and the host
the board     who holds it: everyone with a seat        the host only ("host" below)
host, sim     the host only (``/sim`` shows every       the host only
              figure: it is the board itself)
/healthz      everyone: alive or not; the details       --
              only to the host
============  =======================================  ====================================
"""

from __future__ import annotations

from typing import Literal

from .seats import WATCH

Game = Literal["mummy", "lootnrun", "crypt", "host", "sim"]
Action = Literal["look", "act"]

#: The maze page each kind of seat may open.
MAZE_PAGES = {"mummy": "mummy", "seeker": "seeker", "table": "table"}
#: The games whose every piece is open information (any seat may look).
OPEN_GAMES = frozenset({"lootnrun", "crypt"})


def seat_kind(seat: str) -> str:
    """``seeker2`` -> ``seeker``; the other seats are their own kind."""
    return "seeker" if seat.startswith("seeker") else seat


def may(seat: str | None, host: bool, game: Game, action: Action, page: str = "") -> bool:
    """Whether a device with ``seat`` (None: no seat) and ``host`` may open the door.

    ``page``: for the maze, the kind of seat whose page it is ("mummy", "seeker",
    "table"); a device may open only its own seat's page.
    """
    if game in ("host", "sim"):
        return host
    if game == "mummy":
        return seat is not None and seat != WATCH and seat_kind(seat) == page
    if game in OPEN_GAMES:
        if host:
            return True
        if seat is None:
            return False
        return action == "look" or seat != WATCH
    return False


def may_give_board(host: bool) -> bool:
    """Only the host gives the board to another game (a maze game is paused by it)."""
    return host


def may_see_health_details(host: bool) -> bool:
    """``/healthz`` tells anyone that the companion is alive, and the host the rest."""
    return host
