"""Server-sent events: each page's live stream, served by the broadcaster (``broadcast.py``).

A stream is a ``Step`` (what to send now, whether to go on); ``respond`` hands the
connection to the app's one broadcaster thread under waitress, or runs the step as a
generator elsewhere.  ``Once`` keeps the parts that never change during a game (the maze,
the list of cards) out of every message but the first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, request

from companion.i18n.catalog import localize
from companion.service.mummy_service import Service

from .broadcast import Broadcaster, Step, as_generator, hand_off
from .context import hub
from .language import current_language

#: The parts of a payload sent only when they differ from what this stream last sent.
STATIC_PARTS = (("view", "maze"), ("maze",), ("cards",))


_MAKING = threading.Lock()


def broadcaster() -> Broadcaster:
    """The app's one stream thread (made on first use), woken by every game's publish."""
    with _MAKING:
        made: Broadcaster | None = current_app.extensions.get("companion.broadcaster")
        if made is None:
            made = current_app.extensions["companion.broadcaster"] = Broadcaster()
            games = hub()
            services = list(games.services.values()) if games is not None else []
            services.append(current_app.extensions["companion.service"])
            for svc in {id(s): s for s in services}.values():  # each game once
                svc.on_publish(made.wake)
    return made


def respond(step: Step, wait: Callable[[float], None], *, retry: bool = False) -> Response:
    """The live stream of ``step``: handed to the broadcaster when the server allows it."""
    sock = hand_off(request.environ)
    if sock is not None:
        broadcaster().add(sock, step)
        return Response(status=204)  # never sent: the connection is the broadcaster's now
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(
        as_generator(step, wait, retry=retry), mimetype="text/event-stream", headers=headers
    )


def event(data: Any, version: int | None = None) -> str:
    head = "" if version is None else f"id: {version}\n"
    return f"{head}data: {json.dumps(data)}\n\n"


class Once:
    """Drops a payload's static parts when this stream sent the same ones before (the
    page keeps them from the first message)."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, ...], str] = {}

    def slim(self, payload: dict[str, Any]) -> dict[str, Any]:
        out = dict(payload)
        for path in STATIC_PARTS:
            holder = out
            for key in path[:-1]:
                inner = holder.get(key)
                if not isinstance(inner, dict):
                    break
                holder[key] = inner = dict(inner)
                holder = inner
            else:
                last = path[-1]
                if last in holder:
                    text = json.dumps(holder[last])
                    if self.sent.get(path) == text:
                        del holder[last]
                    self.sent[path] = text
        return out


class LogDelta:
    """Sends a payload's announcement log as what is new since this stream's last
    message: ``log`` the entries to add, ``log_keep`` how many of the page's last
    entries stay (the first message, and any after an undo, may keep none)."""

    def __init__(self) -> None:
        self.sent: list[Any] | None = None

    def slim(self, payload: dict[str, Any]) -> dict[str, Any]:
        log = payload.get("log")
        if not isinstance(log, list):
            return payload
        before, self.sent = self.sent, log
        if before is None:
            return payload
        keep = min(len(before), len(log))
        while before[len(before) - keep :] != log[:keep]:  # keep = 0 always matches
            keep -= 1
        return {**payload, "log": log[keep:], "log_keep": keep}


def event_stream(
    service: Service,
    make: Callable[[Any], dict[str, Any]],
    start: int,
    still_open: Callable[[], bool],
) -> Response:
    """Send ``make(published)`` now and after every newer published version, while
    ``still_open()`` (the device may still look)."""
    version = -1 if start < 0 else start
    lang = current_language()  # the stream outlives its request: the language is kept

    def step() -> tuple[str, bool]:
        nonlocal version
        if service.closing or not still_open():
            return "", False
        published = service.published
        if published.version <= version:
            return "", True
        version = published.version
        return event(localize(make(published), lang), version), True

    def wait(seconds: float) -> None:
        service.wait_for_change(version, seconds)

    return respond(step, wait)
