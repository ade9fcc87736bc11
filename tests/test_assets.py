"""Static files under versioned URLs with a year's cache: a phone that opened a page
before loads it again without one revalidation round trip (each is one over the Pi's
Wi-Fi); a changed file gets a new URL."""

from __future__ import annotations

import re
from typing import Any

from companion.web.assets import version_of
from tests.test_browser import CHROMIUM, Server, browser, phone, server

assert CHROMIUM.exists()

__all__ = ["browser", "server"]  # the browser tests' shared fixtures (one each per module)


def test_a_page_load_makes_no_revalidation_round_trips(server: Server, browser: Any) -> None:
    page = phone(browser)
    answers: list[tuple[str, int]] = []
    page.on("response", lambda r: answers.append((r.url, r.status)))
    page.goto(server.url + "/")
    page.wait_for_load_state("load")
    scripts = [u for u, _ in answers if "/static/" in u or "/i18n/" in u]
    assert len(scripts) >= 3
    assert all(re.search(r"\?v=[0-9a-f]{10}$", u) for u in scripts), scripts
    answers.clear()
    page.goto(server.url + "/")  # the phone comes back to the page
    page.wait_for_load_state("load")
    again = [(u, s) for u, s in answers if "/static/" in u or "/i18n/" in u]
    assert len(again) == len(scripts)  # the same files, from the phone's cache:
    assert all(status == 200 for _, status in again), again  # not one "304 Not Modified"


def test_a_versioned_file_is_cached_for_a_year_and_names_its_content(server: Server) -> None:
    import urllib.request

    html = urllib.request.urlopen(server.url + "/", timeout=5).read().decode()
    found = re.search(r'src="(/static/i18n\.js)\?v=([0-9a-f]{10})"', html)
    assert found is not None
    path, tag = found.groups()
    with urllib.request.urlopen(f"{server.url}{path}?v={tag}", timeout=5) as res:
        body = res.read()
        cache = res.headers["Cache-Control"]
    assert tag == version_of(body)  # the URL names the content: a new file, a new URL
    assert "max-age=31536000" in cache and "immutable" in cache
    with urllib.request.urlopen(f"{server.url}{path}?v=0000000000", timeout=5) as res:
        assert "immutable" not in (res.headers["Cache-Control"] or "")
