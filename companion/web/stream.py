"""Server-sent events: each page's live stream, served by the broadcaster (``broadcast.py``).

A stream is a ``Step`` (what to send now, whether to go on); ``respond`` hands the
connection to the app's one broadcaster thread under waitress, or runs the step as a
generator elsewhere, once the stream fits the limits of its device's address and seat
(``holds``; a stream past them is refused in words).  ``Once`` keeps the parts that
never change during a game (the maze, the list of cards) out of every message but the
first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from flask import Response, current_app, g, request

from companion.i18n import N_
from companion.i18n.catalog import localize
from companion.service.mummy_service import Service
from companion.service.webserver import Limits

from .broadcast import HEAD, POST_HEAD, Broadcaster, Hold, Key, Step, as_generator, hand_off
from .context import hub
from .doors import current_seat, is_host, refuse
from .language import current_language

#: The parts of a payload sent only when they differ from what this stream last sent.
STATIC_PARTS = (("view", "maze"), ("maze",), ("cards",))


_MAKING = threading.Lock()


def broadcaster() -> Broadcaster:
    """The app's one stream thread (made on first use), woken by every game's publish."""
    with _MAKING:
        made: Broadcaster | None = current_app.extensions.get("companion.broadcaster")
        if made is None:
            limits = current_app.extensions.get("companion.limits")
            made = current_app.extensions["companion.broadcaster"] = Broadcaster(limits=limits)
            games = hub()
            services = list(games.services.values()) if games is not None else []
            services.append(current_app.extensions["companion.service"])
            for svc in {id(s): s for s in services}.values():  # each game once
                svc.on_publish(made.wake)
                before = getattr(svc, "on_publishing", None)
                if before is not None:
                    before(made.publishing)
    return made


def holds(limits: Limits) -> list[Hold]:
    """What this request's stream counts against: every stream, its device's address,
    its seat (the watching seat, shared by every spectator, has a larger share)."""
    seat = current_seat()
    who = seat if seat is not None else ("host" if is_host() else "nobody")
    per_seat = limits.streams_watching if who == "watch" else limits.streams_per_seat
    mine: list[Hold] = [
        (("all",), limits.streams),
        (("address", request.remote_addr or ""), limits.streams_per_address),
        (("seat", who), per_seat),
    ]
    if request.environ.get("companion.tunnel"):  # the host page: "connected" (web/remote.py)
        mine.append((("tunnel",), limits.streams))
    return mine


#: Why a stream was refused, by the kind of limit it met, in player words.
REFUSALS = {
    "all": N_("The companion follows too many live pages right now: reload this page in a moment."),
    "address": N_(
        "Too many live pages are open on this device: close a few, then reload this one."
    ),
    "seat": N_("Too many live pages are open for this seat: close a few, then reload this one."),
}


def refuse_stream(full: Key) -> NoReturn:
    """The answer to a stream past a limit: 429 (503 when the whole companion is full)."""
    refuse(REFUSALS[full[0]], 503 if full[0] == "all" else 429)


def respond(step: Step, wait: Callable[[float], None], *, retry: bool = False) -> Response:
    """The live stream of ``step``: handed to the broadcaster when the server allows it,
    refused in words when its device or seat already holds its share of streams.

    ``HEAD`` gets the stream's headers only: no event, no hand-over, no share held.
    Asked through ``POST /live`` (``web/live.py``: ``g.companion_live``), the same stream
    is the answer to that POST ("post"), or its step is given to a long poll ("capture")."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":
        return Response(b"", mimetype="text/event-stream", headers=headers)
    mode = g.get("companion_live")
    if mode == "capture":
        g.companion_captured = (step, wait)
        return Response(status=204)
    head, mimetype = (POST_HEAD, "application/octet-stream") if mode else (HEAD, None)
    streams = broadcaster()
    mine = holds(streams.limits)
    full = streams.claim(mine)
    if full is not None:
        refuse_stream(full)
    try:
        sock = hand_off(request.environ)
    except OSError:  # no file handle left for it
        streams.release(mine)
        refuse_stream(("all",))
    if sock is not None:
        streams.add(sock, step, mine, head=head)
        return Response(status=204)  # never sent: the connection is the broadcaster's now
    body = _Releasing(as_generator(step, wait, retry=retry), streams, mine)
    return Response(body, mimetype=mimetype or "text/event-stream", headers=headers)


class _Releasing:
    """A stream served as a generator: frees its holds when it ends or is closed (even
    before its first message)."""

    def __init__(self, events: Iterator[str], streams: Broadcaster, mine: Sequence[Hold]):
        self.events, self.streams, self.mine = events, streams, mine
        self.held = True

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        try:
            return next(self.events)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.held:
            self.held = False
            self.streams.release(self.mine)
        stop = getattr(self.events, "close", None)
        if stop is not None:
            stop()


def event(data: Any, version: int | str | None = None) -> str:
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
    also: Callable[[], object] = lambda: None,
) -> Response:
    """Send ``make(published)`` now and after every newer published version, while
    ``still_open()`` (the device may still look); ``also``: anything else the payload
    reads that changes without a publish (the simulated board's LED frame)."""
    version = -1 if start < 0 else start
    other = also()
    lang = current_language()  # the stream outlives its request: the language is kept

    def step() -> tuple[str, bool]:
        nonlocal version, other
        if service.closing or not still_open():
            return "", False
        published, now = service.published, also()
        if published.version <= version and now == other:
            return "", True
        version, other = max(version, published.version), now
        return event(localize(make(published), lang), version), True

    def wait(seconds: float) -> None:
        service.wait_for_change(version, seconds)

    return respond(step, wait)
