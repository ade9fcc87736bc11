"""Static files under versioned URLs, cached by the phone for a year.

``url_for('static', filename=...)`` adds ``?v=`` and the first hex digits of the file's
SHA-256; a request that names the file's current version is answered with
``Cache-Control: public, max-age=31536000, immutable``, so a page load on a phone
that has been here before asks for none of its scripts and styles again (no
revalidation round trip: each is one over the Pi's Wi-Fi).  A new release changes
the file, so its URL: the phone fetches the new one.  A request without the version,
or with an old one, is served as before (revalidated).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from flask import Flask, Response, request

#: A year: the longest lifetime browsers honour.
IMMUTABLE_S = 365 * 24 * 3600


def version_of(data: bytes) -> str:
    """The version in a URL: the first ten hex digits of the content's SHA-256."""
    return hashlib.sha256(data).hexdigest()[:10]


def init_app(app: Flask) -> None:
    folder = Path(app.static_folder or "")

    @cache
    def version(filename: str) -> str:
        path = (folder / filename).resolve()
        if folder.resolve() not in path.parents or not path.is_file():
            return ""
        return version_of(path.read_bytes())

    @app.url_defaults
    def _versioned(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static" and "filename" in values and "v" not in values:
            tag = version(str(values["filename"]))
            if tag:
                values["v"] = tag

    @app.after_request
    def _cached(response: Response) -> Response:
        if request.endpoint == "static" and response.status_code == 200:
            filename = (request.view_args or {}).get("filename", "")
            tag = request.args.get("v")
            if tag and tag == version(str(filename)):
                immutable(response)
        return response


def immutable(response: Response) -> None:
    """Cache the answer for a year, never revalidated (its URL names its content)."""
    response.cache_control.public = True
    response.cache_control.max_age = IMMUTABLE_S
    response.cache_control.immutable = True
    response.cache_control.no_cache = None
