"""Links from another site, in a real browser (Playwright on Debian's chromium): a page on
a second origin (``localhost`` on another port, while the phones use the companion at
``127.0.0.1``: another site) links to the companion's pages, as a chat message or a QR
scanner app would.  After every click the seat and the host still work."""

from __future__ import annotations

import http.server
import re
import threading
import urllib.error
from collections.abc import Iterator
from typing import Any

import pytest

from tests.test_browser import CHROMIUM, Server, browser, phone, server, sync_api

assert CHROMIUM.exists()

__all__ = ["browser", "server"]  # the browser tests' shared fixtures (one each per module)


class Elsewhere:
    """Another site: one page of links to the companion, served on another port."""

    def __init__(self) -> None:
        self.links: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                items = "".join(f'<li><a href="{u}">{u}</a></li>' for u in outer.links)
                body = f"<!doctype html><title>chat</title><ul>{items}</ul>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[Elsewhere]:
    site = Elsewhere()
    yield site
    site.close()


def status_of(page: Any, url: str, path: str) -> int:
    """What the companion answers this device's own request for ``path`` (same site)."""
    page.goto(url + "/favicon.ico")
    return int(page.evaluate(f"fetch({path!r}).then(r => r.status)"))


def test_links_from_another_site_never_replace_a_seat_or_the_host(
    server: Server, browser: Any, elsewhere: Elsewhere
) -> None:
    expect = sync_api.expect
    host = phone(browser)
    host.goto(server.url + "/")
    expect(host).to_have_url(server.url + "/host")
    host.get_by_role("button", name=re.compile("Start the game")).click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    red = phone(browser)
    red.goto(f"{server.url}/join/{codes['seeker0']}")
    red.get_by_role("button", name="Join as the Seeker Red").click()
    expect(red).to_have_url(server.url + "/seeker")
    red.locator('[data-lang="de"]').click()  # Red reads German: links keep that too
    expect(red.locator("html")).to_have_attribute("lang", "de")

    paths = [
        "/",
        "/seeker",
        "/crypt",
        "/lootnrun",
        "/mummy",
        "/host",
        f"/join/{codes['seeker0']}",
        f"/join/{codes['table']}",
        "/join/WRONG9",
    ]
    elsewhere.links = [server.url + p for p in paths]
    for page, own in ((red, "/api/seeker/state"), (host, "/api/host/status")):
        for link in elsewhere.links:
            page.goto(elsewhere.url)
            with page.expect_navigation():
                page.locator(f'a[href="{link}"]').click()
            assert page.url.startswith(server.url)
            if page is red:
                assert page.locator("html").get_attribute("lang") == "de", link
            assert status_of(page, server.url, own) == 200, f"{own} after a link to {link}"
    cookies = {c["name"]: c for c in red.context.cookies(server.url)}
    assert cookies["session"]["sameSite"] == "Lax" and cookies["session"]["httpOnly"]

    # The seat's own page and the host page still open, and the seeker still plays.
    red.goto(server.url + "/")
    expect(red).to_have_url(server.url + "/seeker")
    host.goto(server.url + "/")
    expect(host).to_have_url(server.url + "/host")

    # Another site's form cannot join this device to a seat: refused, the seat kept.
    red.goto(elsewhere.url)
    red.set_content(
        f'<form method="post" action="{server.url}/join/{codes["table"]}">'
        '<input name="takeover" value="1"><button>go</button></form>'
    )
    red.get_by_role("button", name="go").click()
    expect(red.locator("body")).to_contain_text("another site")
    assert status_of(red, server.url, "/api/seeker/state") == 200


def test_new_codes_on_the_host_page_keep_its_device_host_and_end_the_others(
    server: Server, browser: Any
) -> None:
    """The host page's "New codes": the page reloads as the host's, with new codes; a
    second host device (the PIN, over HTTP) and the seats' phones are shut out."""
    expect = sync_api.expect
    assert server.get("/api/host/status")["table"] is not None  # a host by the PIN
    host = phone(browser)
    host.on("dialog", lambda dialog: dialog.accept())
    pin = re.search(r"host PIN (\d{6})", "".join(server.log))
    assert pin is not None
    host.goto(server.url + "/host")
    host.get_by_label(re.compile("Enter the host PIN")).fill(pin.group(1))
    host.get_by_role("button", name="Open the host page").click()
    expect(host).to_have_url(server.url + "/host")
    host.wait_for_load_state("load")  # host.js has wired "New codes" before it is clicked
    before = {c["name"]: c["value"] for c in host.context.cookies(server.url)}["session"]
    old = server.get("/api/host/status")["table"]["codes_key"]
    with host.expect_navigation():  # the page reloads once the new codes are made
        host.locator("#codes").click()
    expect(host.locator("#codes")).to_be_visible()
    after = {c["name"]: c["value"] for c in host.context.cookies(server.url)}["session"]
    assert after != before
    assert status_of(host, server.url, "/api/host/status") == 200
    new = host.evaluate("fetch('/api/host/status').then(r => r.json())")["table"]["codes_key"]
    assert new != old
    with pytest.raises(urllib.error.HTTPError) as refused:
        server.get("/api/host/status")
    assert refused.value.code == 403
