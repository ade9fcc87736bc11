"""Who sits at the table: the host, the seats (mummy, seekers, table screen, watching)
and their join codes, for every game on the board.

The host sets up a *table*: the seekers' colours, the options and one short join code
per seat.  A device that joins a seat gets it in Flask's signed session cookie
(``{"table", "v", "seat", "d"}``; the app's secret key is made once per install,
readable by its owner only), so a forged or edited cookie is simply not there.  A seat
is valid while the table id and its code version are current ("new codes" on the host
page shuts every phone out) and, for a playing seat, while it is still this device's
(``d``): one device per seat, a second device takes the seat over only after a
confirmation, and the first one is told why it was shut out.  A new game keeps every
seat whose role it still has (``Table.recoloured``): the mummy, the table, the watching
seat and each seeker colour it keeps stay joined with their codes, even where a seeker's
place in the turn order moved (a playing seat is found by its device); only the phones
of colours left out lose their seat, and they are told why (``Seats.removed_colour``).
The watching seat is read-only and may be open on any number of devices.

A seat ends on the server, not only in the cookie: "Leave" unbinds the device from its
seat (``leave``), so a copy of the cookie taken before opens nothing afterwards.

The host's cookie holds the host token.  "New codes" makes a new one (``new_codes``):
the device that asked gets it, every other host device needs the PIN again.  The PIN is
new at every start; a start also ends the host token when the host has not used it for
``HOST_KEEP_S`` (the last game night's, or a copy taken then), while a host who was
active just before (a power cut, a restart during the game) stays host.

Wrong join codes and wrong host PINs are counted per address (``Throttle``); what may be
opened with which seat is said in ``doors.py``.

The table (with its codes) is kept in ``seats.json`` beside the journal, owner-only, so
a restart keeps every phone joined as long as the journal resumes the table's game.
Every change is written there before it takes effect (``Seats.put``): a write that fails
(a full SD card) raises ``StorageError`` and leaves the seats, on disk and in memory, as
they were, so no phone is shut out by a change the host was told failed.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import hmac
import json
import logging
import os
import secrets
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion import writes
from companion.errors import StorageError
from companion.i18n import MessageError, msg
from companion.inputs import read_text

log = logging.getLogger(__name__)

#: Letters and digits nobody mistakes for another (no 0/O, 1/I/L, 2/Z, 5/S, 8/B).
CODE_ALPHABET = "ACDEFHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6
PIN_LENGTH = 6
#: Wrong PINs from one address before the host page locks for it a while.
PIN_TRIES = 5
PIN_LOCK_S = 30.0

#: Wrong join codes from one address before it must wait.
CODE_TRIES = 10
CODE_LOCK_S = 30.0

SEEKER_COLOURS = ("red", "turquoise", "blue", "violet")
#: The read-only seat: Loot N Run and the crypt (open information), any number of devices.
WATCH = "watch"
#: A start keeps the host's token only if the host used it within this many seconds.
HOST_KEEP_S = 12 * 3600.0
#: The host's last use is written down at most this often (an SD card, not every request).
HOST_SEEN_SAVE_S = 300.0
#: Watching devices that left, remembered by their device id; beyond this many, every
#: watching device must join again (the list cannot grow without end).
MAX_LEFT = 256


class Throttle:
    """Counts failed guesses per address; ``tries`` failures lock that address a while.

    A failure counts until the lock it leads to expires (or, without a lock, until
    ``forget_s`` have passed since the address last failed): a success in between
    clears nothing, so a guesser cannot mix in their own good code to keep going.
    """

    def __init__(self, tries: int, lock_s: float, forget_s: float = 600.0) -> None:
        self.tries = tries
        self.lock_s = lock_s
        self.forget_s = forget_s
        self._failures: dict[str, tuple[int, float]] = {}
        self._locked_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def locked(self, who: str, now: float) -> bool:
        with self._lock:
            return now < self._locked_until.get(who, 0.0)

    def failed(self, who: str, now: float) -> None:
        with self._lock:
            count, last = self._failures.get(who, (0, now))
            if now - last > self.forget_s:
                count = 0
            count += 1
            if count >= self.tries:
                self._locked_until[who] = now + self.lock_s
                count = 0
            self._failures[who] = (count, now)
            if len(self._failures) > 4096:  # many addresses: forget the oldest
                oldest = min(self._failures, key=lambda k: self._failures[k][1])
                del self._failures[oldest]


def new_code() -> str:
    """A short random join code (6 characters: about 2^27 codes)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_pin() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(PIN_LENGTH))


def normalise_code(text: str) -> str:
    """What a player typed, as a code: case and spaces do not matter."""
    return "".join(text.split()).upper()


@dataclass
class TableOptions:
    """The host's choices besides the colours."""

    dice: str = "virtual"  # "virtual": the companion rolls; "physical": players enter throws
    cards: str = "digital"  # "digital": the companion deals; "physical": seekers enter theirs
    hints: bool = True  # seekers may light the cells their die can reach
    exact: bool = False  # the mummy must use every step
    treasures: bool = True  # the mummy's page shows the treasures
    computer: str = ""  # "": a person plays the mummy; else the computer's level
    aid: bool = False  # the mummy's page shows where each seeker can still be
    pace: float = 0.5  # seconds between the computer mummy's steps
    first_game: bool = False  # each new situation explained once (a rematch turns it off)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableOptions:
        dice = str(data.get("dice", "virtual"))
        cards = str(data.get("cards", "digital"))
        if dice not in ("virtual", "physical"):
            raise MessageError("Dice are virtual or physical.")
        if cards not in ("digital", "physical"):
            raise MessageError("Mission cards are digital or physical.")
        computer = str(data.get("computer", "") or "")
        if computer not in ("", "easy", "normal", "hard"):
            raise MessageError("The computer mummy plays easy, normal or hard.")
        try:
            pace = float(data.get("pace", 0.5))
        except (TypeError, ValueError):
            raise MessageError("The computer mummy's pace is seconds a step, like 0.5.") from None
        if not 0 <= pace <= 5:
            raise MessageError("The computer mummy's pace is 0 to 5 seconds a step.")
        return cls(
            dice=dice,
            cards=cards,
            hints=bool(data.get("hints", True)),
            exact=bool(data.get("exact", False)),
            treasures=bool(data.get("treasures", True)),
            computer=computer,
            aid=bool(data.get("aid", False)),
            pace=pace,
            first_game=bool(data.get("first_game", False)),
        )


@dataclass
class Table:
    """One group of players: their seats, join codes, options and the running game."""

    id: str
    colours: list[str]
    options: TableOptions
    codes: dict[str, str]
    version: int = 1
    game_id: int = 0
    #: Physical cards: the seekers are entering their cards (the game waits).
    dealing: bool = False
    #: Cards entered so far while dealing, by seat, as treasure cell names.
    hands: dict[str, list[str]] = field(default_factory=dict)
    #: Seats whose cards clashed with another seeker's: they enter theirs again.
    recheck: list[str] = field(default_factory=list)
    #: Seats at least one device has joined.
    joined: list[str] = field(default_factory=list)
    #: The device that holds each playing seat (a random id in its cookie).
    devices: dict[str, str] = field(default_factory=dict)
    #: Watching devices that left their seat (their device ids): their cookies end.
    left: list[str] = field(default_factory=list)
    #: Counts the times every watching device was shut out (``left`` grew too long).
    watch_version: int = 0
    #: Devices whose seeker colour a new game left out, with that colour (told why).
    removed: dict[str, str] = field(default_factory=dict)
    #: This game's devices (their lasting ``dev`` id) that have seen where the seekers
    #: stand: a seeker's or the table's seat, ``/sim``, ``/check``, a record's export.
    seen: list[str] = field(default_factory=list)
    #: This game's devices that have held the mummy's seat.
    mummy_held: list[str] = field(default_factory=list)
    #: The lasting id of the device on each playing seat (a new game notes them at once).
    holders: dict[str, str] = field(default_factory=dict)
    #: What the host allowed and every page was told, in order: "to_mummy" (a device
    #: that had seen the seekers took the mummy's seat), "from_mummy" (the other way
    #: round), "code" (the host showed the mummy's code again).
    crossings: list[str] = field(default_factory=list)
    #: The host allowed the next crossing (one device, once).
    allow: bool = False
    #: The mummy's seat was joined with its current code: from then on the host page
    #: hides that code (New codes show the new one until it is joined).
    mummy_code_used: bool = False
    #: The host asked for the mummy's code again (announced): shown until the seat is
    #: joined again.
    show_mummy_code: bool = False
    #: The computer's level while it stands in for the mummy's player (the host's
    #: choice, when she dropped out far away), until the host hands the seat back.
    standin: str = ""

    @property
    def mummy_computer(self) -> str:
        """The computer's level when it plays the mummy now (for the game, or standing
        in), or "" when a person does."""
        return self.options.computer or self.standin

    @property
    def seats(self) -> list[str]:
        return ["mummy", *(f"seeker{i}" for i in range(len(self.colours))), "table", WATCH]

    @property
    def all_joined(self) -> bool:
        """Every playing seat has a device (the host page then hides the codes).

        The mummy's seat needs none while the computer plays it."""
        idle = {WATCH, "mummy"} if self.options.computer else {WATCH}
        return all(seat in self.joined for seat in self.seats if seat not in idle)

    def seat_for_code(self, code: str) -> str | None:
        """The seat whose code this is (compared in constant time)."""
        wanted = normalise_code(code).encode()
        found = None
        for seat, own in self.codes.items():
            if hmac.compare_digest(own.encode(), wanted):
                found = seat
        return found

    def copy(self) -> Table:
        """A copy to change: a change is made on a copy, written, and only then in use."""
        return copy.deepcopy(self)

    def renew_codes(self) -> None:
        """New codes for every seat; every device must join again."""
        self.codes = {seat: new_code() for seat in self.seats}
        self.version += 1
        self.joined = []
        self.devices = {}
        self.holders = {}
        self.left = []
        self.removed = {}
        self.mummy_code_used = self.show_mummy_code = False

    def recoloured(self, colours: list[str]) -> Table:
        """A copy of this table for a new game with ``colours``: every seat whose role is
        still there keeps its code, its device and its "joined" (a seeker by colour,
        wherever it now sits in the turn order); a new colour gets a new code, and the
        devices of colours left out are noted in ``removed`` (their phones are told)."""
        table = self.copy()
        old = {f"seeker{i}": colour for i, colour in enumerate(self.colours)}
        seat_now = {seat: f"seeker{colours.index(c)}" for seat, c in old.items() if c in colours}
        for seat in ("mummy", "table", WATCH):
            seat_now[seat] = seat
        table.colours = list(colours)
        table.codes = {seat_now[s]: code for s, code in self.codes.items() if s in seat_now}
        for seat in table.seats:
            table.codes.setdefault(seat, new_code())
        table.devices = {seat_now[s]: d for s, d in self.devices.items() if s in seat_now}
        table.holders = {seat_now[s]: d for s, d in self.holders.items() if s in seat_now}
        table.joined = [seat_now[s] for s in self.joined if s in seat_now]
        for seat, device in self.devices.items():
            if seat not in seat_now:
                table.removed[device] = old[seat]
        while len(table.removed) > MAX_LEFT:  # the oldest are forgotten (no reason shown)
            del table.removed[next(iter(table.removed))]
        return table

    def new_game_secrets(self) -> None:
        """A new game: only the devices still on their seats have seen its seekers (the
        table's and the seekers') or hold its mummy's seat; nothing is allowed or told."""
        held = {seat: dev for seat, dev in self.holders.items() if seat in self.devices}
        self.mummy_held = [dev for seat, dev in held.items() if seat == "mummy"]
        self.seen = [dev for seat, dev in held.items() if seat != "mummy"]
        self.crossings = []
        self.allow = self.show_mummy_code = False
        self.standin = ""

    def mummy_code_hidden(self) -> bool:
        """The mummy's code is not shown once its seat is joined, unless the host asked
        for it again (announced)."""
        return (self.mummy_code_used or "mummy" in self.joined) and not self.show_mummy_code

    def seat_of_device(self, device: object) -> str | None:
        """The playing seat ``device`` holds (compared in constant time)."""
        found = None
        if isinstance(device, str):
            for seat, own in self.devices.items():
                if hmac.compare_digest(own.encode(), device.encode()):
                    found = seat
        return found

    def unbind(self, seat: str, device: str) -> None:
        """``device`` leaves ``seat``: the seat is free, that device's cookie ends."""
        if seat != WATCH:
            self.devices.pop(seat, None)
            self.holders.pop(seat, None)
            if seat in self.joined:
                self.joined.remove(seat)
        elif len(self.left) < MAX_LEFT:
            self.left.append(device)
        else:  # too many to remember: every watching device joins again
            self.left = []
            self.watch_version += 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        table = cls(
            id=str(data["id"]),
            colours=[str(c) for c in data["colours"]],
            options=TableOptions.from_json(data.get("options", {})),
            codes={str(k): str(v) for k, v in data["codes"].items()},
            version=int(data.get("version", 1)),
            game_id=int(data.get("game_id", 0)),
            dealing=bool(data.get("dealing", False)),
            hands={str(k): [str(c) for c in v] for k, v in data.get("hands", {}).items()},
            recheck=[str(s) for s in data.get("recheck", [])],
            joined=[str(s) for s in data.get("joined", [])],
            devices={str(k): str(v) for k, v in data.get("devices", {}).items()},
            left=[str(d) for d in data.get("left", [])],
            watch_version=int(data.get("watch_version", 0)),
            removed={str(k): str(v) for k, v in data.get("removed", {}).items()},
            seen=[str(d) for d in data.get("seen", [])],
            mummy_held=[str(d) for d in data.get("mummy_held", [])],
            holders={str(k): str(v) for k, v in data.get("holders", {}).items()},
            crossings=[str(c) for c in data.get("crossings", [])],
            allow=bool(data.get("allow", False)),
            mummy_code_used=bool(data.get("mummy_code_used", "mummy" in data.get("joined", []))),
            show_mummy_code=bool(data.get("show_mummy_code", False)),
            standin=str(data.get("standin", "") or ""),
        )
        for seat in table.seats:  # a table saved before a seat was added gets its code
            table.codes.setdefault(seat, new_code())
        return table

    @classmethod
    def new(cls, colours: list[str], options: TableOptions) -> Table:
        table = cls(id=secrets.token_urlsafe(9), colours=list(colours), options=options, codes={})
        table.codes = {seat: new_code() for seat in table.seats}
        return table


def check_colours(colours: list[str]) -> list[str]:
    """The seekers' colours in turn order, or ValueError in player words."""
    if not 1 <= len(colours) <= 4:
        raise MessageError("Choose 1 to 4 seekers.")
    for colour in colours:
        if colour not in SEEKER_COLOURS:
            raise MessageError("{colour} is not a seeker colour.", colour=colour)
    if len(set(colours)) != len(colours):
        raise MessageError("Every seeker needs a colour of their own.")
    return list(colours)


#: ``Seats.stage``/``put``: this part stays as it is.
KEEP: Any = object()


@dataclass(frozen=True)
class Staged:
    """Seats written to a file beside ``seats.json`` (``file``), not yet in its place:
    ``Seats.commit`` puts them there and in use, ``Seats.discard`` drops them."""

    host: str | None
    host_seen: float
    table: Table | None
    file: Path | None


class CrossingRefused(MessageError):
    """A device may not both see the seekers and hold the mummy's seat in one game
    without the host allowing it (the words say so, naming no cell)."""


def save_failure(exc: OSError) -> StorageError:
    """A failed write of the seats in player words (it changed nothing)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return StorageError(
            msg(
                "The Pi's storage is full: nothing was lost, but this was not saved."
                " Free some space, then try again."
            ),
            full=True,
        )
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StorageError(
            msg("The Pi's storage has become read-only: nothing changed. Try again later.")
        )
    return StorageError(
        msg(
            "The seats could not be saved ({error}): nothing changed. Try again.",
            error=exc.strerror or str(exc),
        )
    )


class Seats:
    """The host token, the host PIN and the current table; saved to ``path`` (if any)."""

    def __init__(self, path: Path | None, pin: str | None = None) -> None:
        self.path = path
        self.pin = pin or new_pin()
        self.lock = threading.RLock()
        self.host_token: str | None = None
        #: When the host token was last used (wall clock; ``HOST_KEEP_S``).
        self.host_seen = time.time()
        self.table: Table | None = None
        #: Wrong host PINs, by the address they came from.
        self.pin_guesses = Throttle(PIN_TRIES, PIN_LOCK_S)
        #: Wrong join codes, by the address they came from.
        self.code_guesses = Throttle(CODE_TRIES, CODE_LOCK_S)
        #: Counts changes to the table (cards entered, new codes) for the live streams.
        self.serial = 0
        self._load()

    def bump(self) -> None:
        """Tell the live streams that the table changed."""
        self.serial += 1

    # -- the host ----------------------------------------------------------------------

    def claim_host(self) -> str | None:
        """The first device becomes the host without a PIN; later ones need the PIN."""
        with self.lock:
            if self.host_token is not None:
                return None
            token = secrets.token_urlsafe(18)
            self.put(host=token)
            return token

    def host_by_pin(self, pin: str, who: str, now: float) -> str | None:
        """The host token for the right PIN; a few wrong ones from one address lock the
        form for that address a while (not for the others)."""
        with self.lock:
            if self.pin_guesses.locked(who, now):
                return None
            if not hmac.compare_digest(pin.strip().encode(), self.pin.encode()):
                self.pin_guesses.failed(who, now)
                return None
            if self.host_token is None:
                self.put(host=secrets.token_urlsafe(18))
            return self.host_token

    def pin_locked(self, who: str, now: float) -> bool:
        return self.pin_guesses.locked(who, now)

    def is_host(self, token: object) -> bool:
        own = self.host_token
        return isinstance(token, str) and own is not None and hmac.compare_digest(token, own)

    def host_used(self, now: float) -> None:
        """The host token was just used: written down now and then (``HOST_KEEP_S``); a
        write that fails only logs (the host goes on)."""
        with self.lock:
            if 0 <= now - self.host_seen < HOST_SEEN_SAVE_S:
                return
            try:
                self.put(host_seen=now)
            except StorageError as exc:  # only a note: kept in memory, saved next time
                log.warning("could not note the host's last visit in %s: %s", self.path, exc)
                self.host_seen = now

    def new_codes(self) -> str:
        """New codes for every seat and a new host token, which only the device that
        asked gets: every phone joins again, every other host device needs the PIN."""
        with self.lock:
            assert self.table is not None
            table = self.table.copy()
            table.renew_codes()
            token = secrets.token_urlsafe(18)
            self.put(table=table, host=token, host_seen=time.time())
            return token

    # -- seats -------------------------------------------------------------------------

    def seat_of(self, cookie: object) -> str | None:
        """The seat a session cookie's binding gives, if still valid (and still this
        device's: a playing seat opened on another device is no longer)."""
        return self._check(cookie)[0]

    def taken_over(self, cookie: object) -> bool:
        """This device's seat was opened on another device (it was shut out)."""
        return self._check(cookie)[1]

    def _check(self, cookie: object) -> tuple[str | None, bool]:
        table = self.table
        if not isinstance(cookie, dict) or table is None:
            return None, False
        seat = cookie.get("seat")
        if cookie.get("table") != table.id or cookie.get("v") != table.version:
            return None, False
        if not isinstance(seat, str):
            return None, False
        device = cookie.get("d")
        if seat == WATCH:
            if cookie.get("w", 0) != table.watch_version or device in table.left:
                return None, False
            return seat, False
        held = table.seat_of_device(device)
        if held is not None:  # its place in the turn order may have moved (a new game)
            return held, False
        if not isinstance(device, str) or device in table.removed:
            return None, False
        return None, table.devices.get(seat) is not None

    def removed_colour(self, cookie: object) -> str | None:
        """The seeker colour this device played, when a new game left that colour out."""
        table = self.table
        if not isinstance(cookie, dict) or table is None:
            return None
        if cookie.get("table") != table.id or cookie.get("v") != table.version:
            return None
        return table.removed.get(str(cookie.get("d")))

    def held_elsewhere(self, seat: str, cookie: object) -> bool:
        """Joining ``seat`` would take it from another device (ask first)."""
        table = self.table
        if table is None or seat == WATCH or seat not in table.devices:
            return False
        return self.seat_of(cookie) != seat

    def join(self, seat: str, holder: str | None = None) -> dict[str, Any]:
        """This device (``holder``: its lasting id, if known) takes ``seat`` (from any
        device that held it): its cookie value."""
        with self.lock:
            table = self.table
            assert table is not None
            device = secrets.token_urlsafe(12)
            if seat != WATCH or seat not in table.joined:
                table = table.copy()
                if seat != WATCH:
                    table.devices[seat] = device
                    table.holders.pop(seat, None)
                    if holder is not None:
                        table.holders[seat] = holder
                if seat not in table.joined:
                    table.joined.append(seat)
                if seat == "mummy":  # its code is hidden on the host page from now on
                    table.mummy_code_used, table.show_mummy_code = True, False
                self.put(table=table)
            cookie: dict[str, Any] = {"table": table.id, "v": table.version, "seat": seat}
            if seat == WATCH:
                cookie["w"] = table.watch_version
            return {**cookie, "d": device}

    def leave(self, cookie: object) -> None:
        """This device gives its seat up, on the server too: the seat is free, and a
        copy of this cookie taken before opens nothing afterwards."""
        with self.lock:
            seat = self.seat_of(cookie)
            if seat is None or self.table is None or not isinstance(cookie, dict):
                return
            table = self.table.copy()
            table.unbind(seat, str(cookie.get("d")))
            self.put(table=table)

    def cross(self, device: str, to: str) -> None:
        """``device`` takes the mummy's seat (``to`` "mummy") or sees where the seekers
        stand (``to`` "figures"): noted for this game.  A device that has done the other
        in this game is refused (CrossingRefused, in words naming no cell) unless the
        host allowed it; then it is noted in ``crossings`` for every page and the
        summary (kept in memory when the file cannot be written)."""
        with self.lock:
            table = self.table
            if table is None:
                return
            mine, other = (
                (table.mummy_held, table.seen) if to == "mummy" else (table.seen, table.mummy_held)
            )
            crossing = device in other
            if device in mine:  # noted already (and told, if it crossed)
                return
            if crossing and not table.allow:
                raise CrossingRefused(
                    msg(
                        "This phone has seen where the seekers stand in this game: it may take "
                        "the mummy's seat only if the host allows it on the host page, and "
                        "every phone is told."
                    )
                    if to == "mummy"
                    else msg(
                        "This phone has held the mummy's seat in this game: it may see where "
                        "the seekers stand only if the host allows it on the host page, and "
                        "every phone is told."
                    )
                )
            table = table.copy()
            (table.mummy_held if to == "mummy" else table.seen).append(device)
            if crossing:
                table.allow = False
                table.crossings.append("to_mummy" if to == "mummy" else "from_mummy")
            try:
                self.put(table=table)
            except StorageError as exc:
                # A full card must not shut the host out of the board check: the note holds
                # in memory (the rule with it) and is written with the next write that works.
                log.error("%s: %s (noted in memory)", self.path, exc)
                self.table = table
                self.bump()

    def allow_crossing(self) -> None:
        """The host lets the next device cross (see ``cross``)."""
        with self.lock:
            if self.table is not None and not self.table.allow:
                table = self.table.copy()
                table.allow = True
                self.put(table=table)

    def show_mummy_code(self) -> None:
        """The host asks for the mummy's code again: shown, and every page is told."""
        with self.lock:
            if self.table is not None and self.table.mummy_code_hidden():
                table = self.table.copy()
                table.show_mummy_code = True
                table.crossings.append("code")
                self.put(table=table)

    # -- persistence -------------------------------------------------------------------

    def forget_table_unless(self, game_id: int) -> None:
        """After a restart: keep the table only if the journal resumed its game (its
        seats open nothing either way: if the file cannot be written now, the next
        start forgets the table again)."""
        with self.lock:
            if self.table is not None and self.table.game_id != game_id:
                log.info("the stored table belongs to another game: phones must join again")
                try:
                    self.put(table=None)
                except StorageError as exc:
                    log.error("%s: %s", self.path, exc)
                    self.table = None

    # -- writing: on disk first, then in use ---------------------------------------------

    def put(
        self,
        *,
        table: Table | None = KEEP,
        host: str | None = KEEP,
        host_seen: float = KEEP,
    ) -> None:
        """Make ``table``, ``host`` (the token) and ``host_seen`` current: written to disk
        first, then in use, and the streams told.  StorageError if the write fails:
        nothing changed.  A table is changed on a copy (``Table.copy``), never in place."""
        with self.lock:
            self.commit(self.stage(table=table, host=host, host_seen=host_seen))

    def stage(
        self,
        *,
        table: Table | None = KEEP,
        host: str | None = KEEP,
        host_seen: float = KEEP,
    ) -> Staged:
        """Write these seats to a file beside ``seats.json`` and flush it to the card (the
        step that fails on a full disk); nothing is in use until ``commit``.  It takes no
        lock, so a game's loop may call it inside the journal's transaction."""
        staged = Staged(
            self.host_token if host is KEEP else host,
            self.host_seen if host_seen is KEEP else host_seen,
            self.table if table is KEEP else table,
            None,
        )
        if self.path is None:
            return staged
        data = {
            "host": staged.host,
            "host_seen": staged.host_seen,
            "table": None if staged.table is None else staged.table.to_json(),
        }
        tmp: Path | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=".seats-", suffix=".tmp", dir=self.path.parent)
            tmp = Path(name)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
            log.error("could not write %s: %s", self.path, exc)
            failure = save_failure(exc)
            writes.failed(writes.place_of(self.path), failure.message)
            raise failure from exc
        writes.succeeded(writes.place_of(self.path))
        return Staged(staged.host, staged.host_seen, staged.table, tmp)

    def commit(self, staged: Staged) -> None:
        """Put staged seats in place of ``seats.json``, then in use (StorageError if the
        file cannot be moved: nothing changed)."""
        with self.lock:
            if staged.file is not None and self.path is not None:
                try:
                    os.replace(staged.file, self.path)
                except OSError as exc:
                    self.discard(staged)
                    log.error("could not write %s: %s", self.path, exc)
                    raise save_failure(exc) from exc
            self.host_token, self.host_seen, self.table = (
                staged.host,
                staged.host_seen,
                staged.table,
            )
            self.bump()

    def discard(self, staged: Staged) -> None:
        """Drop staged seats that will not be used (the change was refused)."""
        if staged.file is not None:
            staged.file.unlink(missing_ok=True)

    def _load(self) -> None:
        if self.path is None:
            return
        for stale in self.path.parent.glob(".seats-*.tmp"):  # staged, never put in place
            with contextlib.suppress(OSError):
                stale.unlink()
        if not self.path.exists():
            return
        try:
            data = json.loads(read_text(self.path))
            host = data.get("host")
            self.host_token = host if isinstance(host, str) else None
            seen = data.get("host_seen")
            if isinstance(seen, (int, float)) and not isinstance(seen, bool):
                self.host_seen = float(seen)  # a file from before has none: kept as now
            table = data.get("table")
            self.table = Table.from_json(table) if table else None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error(
                "could not read %s (%s): the host and the phones must join again", self.path, exc
            )
            self.host_token, self.table = None, None
        self._end_idle_host(time.time())

    def _end_idle_host(self, now: float) -> None:
        """At a start: a host token unused for ``HOST_KEEP_S`` ends (the host opens the
        host page with this start's PIN); a clock that went back counts as recent."""
        if self.host_token is None or now - self.host_seen <= HOST_KEEP_S:
            return
        hours = (now - self.host_seen) / 3600
        log.info(
            "the host has not been here for %.0f hours: the old host cookies end, the "
            "host page needs this start's PIN",
            hours,
        )
        token = secrets.token_urlsafe(18)  # nobody holds it: the PIN is needed
        try:
            self.put(host=token, host_seen=now)
        except StorageError as exc:  # the old cookies end all the same (this start)
            log.warning("could not write %s: %s", self.path, exc)
            self.host_token, self.host_seen = token, now
