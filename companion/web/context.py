"""Access to the running service from a request."""

from __future__ import annotations

from typing import Any

from flask import current_app

from companion.service.mummy_service import Service


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
