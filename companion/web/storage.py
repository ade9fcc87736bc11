"""A change the Pi's storage refused (a full SD card, a read-only one): every page and
API answers it in words, 507 when the storage is full and 503 otherwise, never 500.
The change did not happen (``Seats.put``, the journal): the request may be sent again.
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.errors import StorageError

from .contract import is_api
from .language import message_of


def storage_error(exc: StorageError) -> ResponseReturnValue:
    """``{"error": ...}`` under ``/api``, else the landing page with the words."""
    words = message_of(exc)
    if is_api(request.path):
        return jsonify({"error": words}), exc.status
    return render_template("landing.html", error=words), exc.status


class InsufficientStorage(HTTPException):
    """507: werkzeug knows no exception for it, so ``abort(507, words)`` raised
    ``LookupError`` (a 500 with a traceback) where a route refused a full disk."""

    code = 507
    description = "The Pi's storage is full: nothing was lost, but this was not saved."


def init_app(app: Flask) -> None:
    """StorageError answered in words; ``abort(507, ...)`` as every other status."""
    app.register_error_handler(StorageError, storage_error)
    app.aborter.mapping[507] = InsufficientStorage
