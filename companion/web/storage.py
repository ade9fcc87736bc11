"""A change the Pi's storage refused (a full SD card, a read-only one): every page and
API answers it in words, 507 when the storage is full and 503 otherwise, never 500.
The change did not happen (``Seats.put``, the journal): the request may be sent again.
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from companion.errors import StorageError

from .contract import is_api
from .language import message_of


def storage_error(exc: StorageError) -> ResponseReturnValue:
    """``{"error": ...}`` under ``/api``, else the landing page with the words."""
    words = message_of(exc)
    if is_api(request.path):
        return jsonify({"error": words}), exc.status
    return render_template("landing.html", error=words), exc.status


def init_app(app: Flask) -> None:
    app.register_error_handler(StorageError, storage_error)
