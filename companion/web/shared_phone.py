"""Pass the phone: one phone holds several seekers' seats, with a cover between them.

The session's ``seat`` is the seat the phone shows now; ``also`` keeps the cookies of
the other seekers' seats it holds (each seat keeps its own cookie, so taking one over on
another phone or a new game ends only that one).  Only seekers share a phone: joining
any other seat gives them all up, so a phone holding seekers never holds the mummy's.
The page shows a cover ("Give the phone to Red, then tap") and asks for a seat's
state only after the tap (``POST /api/seeker/pass``).
"""

from __future__ import annotations

from typing import Any

from flask import session

from companion.table.doors import seat_kind, seeker_index

from .doors import current_seat, seats

#: The session key of the other seekers' seats this phone holds.
ALSO = "also"


def others() -> list[tuple[str, dict[str, Any]]]:
    """The other seekers' seats this phone holds, still valid, with their cookies."""
    store = seats()
    found: list[tuple[str, dict[str, Any]]] = []
    shown = current_seat()
    for cookie in session.get(ALSO) or []:
        seat = None if store is None else store.seat_of(cookie)
        if seat is None or seat_kind(seat) != "seeker" or seat == shown:
            continue
        if seat not in (s for s, _ in found):
            found.append((seat, cookie))
    return found


def held() -> list[str]:
    """Every seeker's seat this phone holds, the shown one included, in turn order."""
    shown = current_seat()
    mine = [s for s, _ in others()]
    if shown is not None and seat_kind(shown) == "seeker":
        mine.append(shown)
    return sorted(mine, key=seeker_index)


def may_add(seat: str) -> bool:
    """Whether ``seat`` may join this phone beside the seeker it shows (pass the phone)."""
    shown = current_seat()
    return (
        shown is not None
        and seat_kind(shown) == "seeker"
        and seat_kind(seat) == "seeker"
        and seat not in held()
    )


def keep_shown() -> None:
    """Before the phone joins another seeker beside this one: keep this seat's cookie."""
    session[ALSO] = [c for _, c in others()] + [session["seat"]]


def give_up_others() -> None:
    """The phone joins another kind of seat (or switches): its other seekers are left, on
    the server too, so a copy of their cookies opens nothing."""
    store = seats()
    for _, cookie in others():
        if store is not None:
            store.leave(cookie)
    session.pop(ALSO, None)


def switch(seat: str) -> bool:
    """Show ``seat`` now (one of the others); False if this phone does not hold it."""
    rest = others()
    wanted = [cookie for s, cookie in rest if s == seat]
    if not wanted:
        return False
    session[ALSO] = [c for s, c in rest if s != seat] + [session["seat"]]
    session["seat"] = wanted[0]
    return True


def settle() -> None:
    """The shown seat is gone (left, taken over, out of a new game) but the phone holds
    another seeker: show that one (behind the cover)."""
    if current_seat() is not None:
        return
    rest = others()
    if rest:
        session["seat"] = rest[0][1]
        session[ALSO] = [c for _, c in rest[1:]]
    else:
        session.pop(ALSO, None)
