"""The covered private view: a seeker without a phone sees their cards on the table
screen or the host's device, behind a cover and a tap ("Private view for Blue").

Only a seeker's seat opens here, never the mummy's; the door is ``may_show_private``
(the table screen, the host's device that plays no seat), and the device is noted as
one that has seen the seekers (``doors.cross``: it cannot then take the mummy's seat
untold).
"""

from __future__ import annotations

from flask import Blueprint, abort, jsonify
from flask.typing import ResponseReturnValue

from companion.i18n import N_
from companion.table.doors import may_show_private, seat_kind, seeker_index

from . import doors
from .context import service
from .contract import ANY_OBJECT, TEXT, array, endpoint, obj
from .payloads import private_payload

bp = Blueprint("private_view", __name__, url_prefix="/api")

CARDS = array(ANY_OBJECT)
PRIVATE = obj({"seat": TEXT, "name": TEXT, "hand": CARDS, "played": CARDS})


@bp.get("/private/<seat>")
@endpoint(
    "One seeker's cards for their covered private view (table screen, host).",
    answer=PRIVATE,
    errors=(403, 404),
)
def private_state(seat: str) -> ResponseReturnValue:
    shown = doors.current_seat()
    if not may_show_private(shown, doors.is_host()):
        doors.refuse(
            N_(
                "The private view of a seeker's cards opens on the table screen or the "
                "host's phone that plays no seat."
            )
        )
    store = doors.seats()
    table = None if store is None else store.table
    if table is None or seat_kind(seat) != "seeker" or seat not in table.seats:
        abort(404, "There is no such seeker in this game.")
    doors.cross("figures")
    response = jsonify(private_payload(service().published, table, seeker_index(seat)))
    response.headers["Cache-Control"] = "no-store"
    return response
