"""A page whose live stream was turned away comes back by itself (``static/live.js``).

The companion refuses a stream past a device's or a seat's share (429), as when a child
opens a hundred tabs. EventSource then gives up for good, so a phone whose Wi-Fi dropped
at that moment kept a page that never changed again. In chromium at 390x844 against
``companion run --mock``: the table's phone reloads while the share is full, and once
the tabs are closed its page goes live again without anyone touching it."""

from __future__ import annotations

import socket
import time
import urllib.parse
from typing import Any

from tests.test_browser import Server, browser, phone, server, sync_api
from tests.test_table_browser import seats, throw_and_announce

#: The module's fixtures, shared with the other browser tests (a server of its own).
__all__ = ["browser", "seats", "server"]


def open_stream(server: Server, path: str, cookie: str) -> tuple[socket.socket, bytes]:
    """A raw stream request with a seat's cookie, and the status line of its answer."""
    url = urllib.parse.urlsplit(server.url)
    sock = socket.create_connection((url.hostname, url.port), timeout=5)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nCookie: {cookie}\r\n\r\n".encode())
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(1024)
        if not chunk:
            break
        head += chunk
    return sock, head.split(b"\r\n", 1)[0]


def fill_the_share(server: Server, cookie: str, path: str) -> list[socket.socket]:
    """The tabs: streams opened until the companion turns one away (a moment more for
    a stream a page just closed to be freed, and taken too)."""
    held: list[socket.socket] = []
    for _ in range(2):
        for _ in range(40):
            sock, status = open_stream(server, path, cookie)
            if b" 429 " in status + b" ":
                sock.close()
                break
            assert b" 200 " in status + b" ", status
            held.append(sock)
        else:
            raise AssertionError("the companion never refused a stream")
        time.sleep(0.6)
    return held


def cookie_of(page: Any) -> str:
    return "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())


def turned_away(page: Any, url: str, path: str) -> None:
    """Open ``url`` on ``page`` while its stream ``path`` is refused with 429."""
    with page.expect_response(lambda r: r.url.endswith(path) and r.status == 429):
        page.goto(url)


def test_a_page_turned_away_while_the_share_is_full_goes_live_when_it_is_free(
    server: Server, browser: Any, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    table = seats["table"]
    table.goto("about:blank")  # the table's Wi-Fi dropped ...
    held = fill_the_share(server, cookie_of(table), "/api/table/stream")
    try:
        turned_away(table, server.url + "/table", "/api/table/stream")  # ... and came back
        expect(table.locator("#link")).to_contain_text("offline")
    finally:
        for sock in held:  # the tabs are closed
            sock.close()
    expect(table.locator("#link")).not_to_contain_text("offline", timeout=15000)
    # It follows the game again: Red's throw reaches the table's page.
    before = table.locator("#guidance").inner_text()
    throw_and_announce(seats["seeker0"], ["1", "2", "3", "4", "arrow"], "2")
    expect(table.locator("#guidance")).not_to_have_text(before)


def test_a_page_waiting_to_come_back_whose_seat_is_taken_meanwhile_says_so(
    server: Server, browser: Any, seats: dict[str, Any]
) -> None:
    """A page retrying its stream reloads when its seat has gone to another phone (the
    companion answers 403 now): the page then says so, instead of retrying for ever."""
    expect = sync_api.expect
    mummy = seats["mummy"]
    mummy.goto("about:blank")
    held = fill_the_share(server, cookie_of(mummy), "/api/mummy/stream")
    try:
        turned_away(mummy, server.url + "/mummy", "/api/mummy/stream")
        expect(mummy.locator("#link")).to_contain_text("offline")
    finally:
        for sock in held:
            sock.close()
    other = phone(browser)
    other.goto(f"{server.url}/join/{seats['codes']['mummy']}")
    other.locator("#join").click()
    expect(other.locator("#guidance")).not_to_be_empty()
    expect(mummy.locator("h1")).to_have_text("Not your seat", timeout=20000)
