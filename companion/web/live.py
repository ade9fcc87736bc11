"""``POST /live``: a page's live stream where GET streams do not pass.

A proxy may hold an event stream (a GET answered ``text/event-stream``) back until it
ends: Cloudflare's quick tunnels do.  The same stream then comes another way, picked by
the page itself when its ``EventSource`` stalls (``static/live.js``):

- **post**: the stream is the answer to this POST, as it comes (the broadcaster writes
  it, as for a GET stream; ``broadcast.POST_HEAD``);
- **poll**: one message per request.  The page sends the cursor of what it last got;
  the answer is the stream's first (whole) message when it differs, else the next one
  once something changed, or 204 after ``POLL_HOLD_S``.  Every answer is a whole state
  and its cursor, so nothing is missed or doubled across lost answers and reconnects.

Either way the stream's own view runs, with its doors and its share of streams.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound

from companion.i18n import N_

from .contract import STRING, body, endpoint, obj, one_of, spec_of
from .doors import refuse
from .language import text_of
from .stream import broadcaster, holds, refuse_stream

bp = Blueprint("live", __name__)

#: How long a long poll waits for news before it answers 204 (well under the 100 s a
#: Cloudflare tunnel lets an answer take).
POLL_HOLD_S = 20.0
#: The longest wait between two looks at the stream during a poll.
POLL_LOOK_S = 1.0
LIVE = obj(
    {
        "stream": {**STRING, "description": "The path of the page's live stream."},
        "mode": one_of("post", "poll"),
    },
    {"after": {**STRING, "description": "A poll: the cursor of the last message received."}},
)


def stream_view(path: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    """The view of the live stream at ``path`` and its arguments (404 for any other)."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    try:
        name, args = adapter.match(path.split("?", 1)[0], method="GET")
    except (NotFound, MethodNotAllowed):
        refuse(N_("There is no live stream here."), 404)
    view: Callable[..., Any] = current_app.view_functions[name]
    spec = spec_of(view)
    if spec is None or spec.media != "text/event-stream":
        refuse(N_("There is no live stream here."), 404)
    return view, dict(args)


def cursor_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@bp.post("/live")
@endpoint(
    "A page's live stream for a proxy that holds GET streams back: streamed as the "
    "answer (post), or one whole message per long poll (poll, 204: nothing new).",
    body=LIVE,
    answer=None,
    media="application/octet-stream",
    errors=(400, 403, 404, 429, 503),
)
def live() -> ResponseReturnValue:
    data = body()
    view, args = stream_view(data["stream"])
    if data["mode"] == "post":
        g.companion_live = "post"
        answer: ResponseReturnValue = view(**args)
        return answer
    return poll(view, args, str(data.get("after", "")))


def _capture(view: Callable[..., Any], args: dict[str, Any]) -> tuple[Any, Any]:
    """A fresh step of the stream's view (its doors checked again)."""
    g.companion_live = "capture"
    view(**args)
    step, wait = g.pop("companion_captured")
    return step, wait


def poll(view: Callable[..., Any], args: dict[str, Any], after: str) -> Response:
    """One long poll: a whole message the page does not have, or 204 (see the module)."""
    step, wait = _capture(view, args)
    streams = broadcaster()
    mine = holds(streams.limits)
    full = streams.claim(mine)
    if full is not None:
        refuse_stream(full)
    try:
        deadline = time.monotonic() + POLL_HOLD_S
        while True:
            text, going = step()
            cursor = cursor_of(text)
            if cursor != after or not going:
                return Response(
                    text,
                    mimetype="application/octet-stream",
                    headers={"X-Live-Cursor": cursor, "Cache-Control": "no-store"},
                )
            while True:  # the page has it: wait for a change
                left = deadline - time.monotonic()
                if left <= 0:
                    return Response(status=204, headers={"X-Live-Cursor": after})
                wait(min(left, POLL_LOOK_S))
                news, going = step()
                if news or not going:
                    break
            step, wait = _capture(view, args)  # the new state whole, from a fresh stream
    finally:
        streams.release(mine)


@bp.errorhandler(HTTPException)
def _error(exc: HTTPException) -> ResponseReturnValue:
    if exc.response is not None:
        return exc.response
    return jsonify({"error": text_of(exc.description or "")}), exc.code or 500


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
