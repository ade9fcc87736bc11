"""Who may see what: every door of every game on the board, by seat, in one place.

A door is a page, a JSON read, a live stream or a request that changes something.
The web layer asks ``may`` before it opens one (``companion.web.doors`` does it for
every route); nothing opens for a device with neither a seat nor the host's cookie.

Public and private are decided per device, not per page: the owner of the box often
hosts and plays the mummy on one phone.  So the host's page shows only what every
player may know (the mummy's view: no seeker's cell in its undo, guidance or notices),
and the host's doors that show the figures (``/sim``, a game's record, ``/healthz``'s
details) stay shut to a device that holds the mummy's seat ("the mummy's device").

============  =======================================  ====================================
game          look (pages, JSON, streams)              act (commands, new games, undo)
============  =======================================  ====================================
the maze      each seat its own page only: the mummy    the mummy and the seekers on their
              the mummy's, a seeker its own, the table  own pages (the engine checks turns)
              screen the table's (RULES.md: who sees
              what); the watching seat ``/watch``: the
              mummy's view (the public view), never a
              seeker's cell or cards
Loot N Run    every seat and the host                   every seat but the watching one,
                                                        and the host
the crypt     every seat and the host                   every seat but the watching one,
                                                        and the host
the board     who holds it: everyone with a seat        the host only ("host" below)
host          the host only; the page and its JSON and  the host only; each command names
              stream show the public view               the action or game it confirmed
sim           the host, but not the mummy's device      the host, but not the mummy's device
              (``/sim`` shows every figure: it is the
              board itself)
check         the board check ``/check`` (it shows where   the same
              every magnet stands): the host, but not
              the mummy's device
journal       a game's record (every move): the host,   --
              but not the mummy's device
replay       a finished game's replay and export, the    --
              statistics: the host and every seat; a
              game that is not over: nobody (in words)
private       a seeker's cards behind a cover (a player    --
              without a phone): the table screen, and
              the host's device that holds no playing
              seat (``may_show_private``)
/healthz      everyone: alive or not; the details       --
              (versions that tick with every touch of
              the board) the host, but not the
              mummy's device
============  =======================================  ====================================
"""

from __future__ import annotations

from typing import Literal

from .seats import WATCH

Game = Literal["mummy", "lootnrun", "crypt", "host", "sim", "journal", "check", "replay"]
Action = Literal["look", "act"]

#: The maze page each kind of seat may open.
MAZE_PAGES = {"mummy": "mummy", "seeker": "seeker", "table": "table", "watch": "watch"}
#: The seat whose device never learns where the seekers stand.
MUMMY = "mummy"
#: The games whose every piece is open information (any seat may look).
OPEN_GAMES = frozenset({"lootnrun", "crypt"})


def seat_kind(seat: str) -> str:
    """``seeker2`` -> ``seeker``; the other seats are their own kind."""
    return "seeker" if seat.startswith("seeker") else seat


def seeker_index(seat: str) -> int:
    """``seeker2`` -> 2: the seeker's place in the turn order."""
    return int(seat.removeprefix("seeker"))


def may(seat: str | None, host: bool, game: Game, action: Action, page: str = "") -> bool:
    """Whether a device with ``seat`` (None: no seat) and ``host`` may open the door.

    ``page``: for the maze, the kind of seat whose page it is ("mummy", "seeker",
    "table", "watch"); a device may open only its own seat's page.
    """
    if game == "host":
        return host
    if game in ("sim", "journal", "check"):
        return sees_figures(seat, host)
    if game == "mummy":
        return seat is not None and seat_kind(seat) == page
    if game == "replay":
        # A finished game's replay, its export and the statistics: the host and every
        # seat (each game's own check refuses a game that is not over, in words).
        return host or seat is not None
    if game in OPEN_GAMES:
        if host:
            return True
        if seat is None:
            return False
        return action == "look" or seat != WATCH
    return False


def may_show_private(seat: str | None, host: bool) -> bool:
    """The covered private view of one seeker's cards (a player without a phone): on the
    table screen, or on the host's device while it plays no seat (never the mummy's
    device, nor a seeker's: it would see another seeker's cards)."""
    return seat == "table" or (host and seat in (None, WATCH))


def may_give_board(host: bool) -> bool:
    """Only the host gives the board to another game (a maze game is paused by it)."""
    return host


def sees_figures(seat: str | None, host: bool) -> bool:
    """Whether the host's doors that show where the figures stand open to this device:
    the host's, unless it holds the mummy's seat."""
    return host and seat != MUMMY


def may_see_health_details(seat: str | None, host: bool) -> bool:
    """``/healthz`` tells anyone that the companion is alive, and the host the rest
    (not the mummy's device: its versions tick with every touch of the board)."""
    return sees_figures(seat, host)
