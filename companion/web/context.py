"""Access to the running service from a request."""

from __future__ import annotations

from typing import Any

from flask import current_app

from companion.service.mummy_service import Service
from companion.table.seats import Table


def seat_computer(seat: Any, table: Table) -> None:
    """Give the mummy's seat to the computer (for the game or standing in) or to a
    person, and set the deduction aid."""
    if seat is not None:
        level = table.mummy_computer or None
        seat.configure(level, aid=table.options.aid, pace_s=table.options.pace)


def service() -> Service:
    svc: Service = current_app.extensions["companion.service"]
    return svc


def appliance() -> Any:
    return current_app.extensions["companion.appliance"]


def computer_seat() -> Any:
    """The computer in the mummy's seat (``ComputerSeat``), or None without an appliance."""
    return getattr(appliance(), "computer", None)


def hub() -> Any:
    """The game hub (all games on this board), or None without an appliance."""
    app = appliance()
    return getattr(app, "hub", None)
