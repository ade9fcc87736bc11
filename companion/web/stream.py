"""Server-sent events: one stream per page, pushed when the service publishes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, stream_with_context

from companion.service.mummy_service import Service

#: A comment line keeps proxies and phones from closing an idle stream.
KEEPALIVE_S = 15.0


def event_stream(service: Service, make: Callable[[Any], dict[str, Any]], start: int) -> Response:
    """Send ``make(published)`` now and after every newer published version."""

    def generate() -> Iterator[str]:
        version = -1 if start < 0 else start
        published = service.published
        if published.version > version:
            version = published.version
            yield f"id: {version}\ndata: {json.dumps(make(published))}\n\n"
        while not service.closing:
            published = service.wait_for_change(version, KEEPALIVE_S)
            if service.closing:
                return
            if published.version == version:
                yield ": keepalive\n\n"
                continue
            version = published.version
            yield f"id: {version}\ndata: {json.dumps(make(published))}\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(generate()), mimetype="text/event-stream", headers=headers)
