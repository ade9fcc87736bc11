"""axe-core, Deque's accessibility checker, on every page in the states a table sees, in
English and German: setup, each seat mid-game, the mummy's move, a catch, the end, past
games, both side games, ``/sim``, ``/check``, the host, the rules and the doors.

axe-core comes packaged (the PyPI package axe-playwright-python carries ``axe.min.js``,
installed by ``make``): nothing is downloaded at test time.  Every page must report zero
violations of WCAG 2.0/2.1/2.2 A and AA and axe's best practices.  ``$AXE_REPORT`` names a
JSON file for the counts per page (the issue's before/after figures).
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from tests.test_browser import NAVIGATION_MS, PHONE, sync_api
from tests.test_end_browser import browser, put_board_right, site

__all__ = ["browser", "site"]

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
LANGS = ("en", "de")


def axe_source() -> str:
    """axe-core as axe-playwright-python packages it (a test dependency), or the
    ``axe.min.js`` that ``$AXE_CORE`` names (say, a newer one from the npm registry)."""
    if os.environ.get("AXE_CORE"):
        return Path(os.environ["AXE_CORE"]).read_text("utf-8")
    return resources.files("axe_playwright_python").joinpath("axe.min.js").read_text("utf-8")


class Axe:
    """Runs axe on pages and keeps what it found per page (rule id: failing elements)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.source = axe_source()
        self.found: dict[str, dict[str, Any]] = {}

    def run(self, page: Any) -> list[dict[str, Any]]:
        if not page.evaluate("() => typeof window.axe === 'object'"):
            page.evaluate(self.source)
        result: dict[str, Any] = page.evaluate(
            "tags => axe.run(document, {runOnly: {type: 'tag', values: tags},"
            " resultTypes: ['violations']})",
            TAGS,
        )
        violations: list[dict[str, Any]] = result["violations"]
        return violations

    def check(self, name: str, page: Any, ready: str, path: str | None = None) -> None:
        """``page`` (at ``path``, or reloaded) in both languages, once ``ready`` shows."""
        for lang in LANGS:
            page.context.add_cookies([{"name": "lang", "value": lang, "url": self.url}])
            if path is None:
                page.reload()
            else:
                page.goto(self.url + path)
            page.wait_for_selector(ready, state="attached")
            page.wait_for_timeout(150)  # the stream's first message is drawn
            assert page.evaluate("document.documentElement.lang") == lang, (name, lang)
            self.found[f"{name} [{lang}]"] = {
                v["id"]: {
                    "impact": v["impact"],
                    "elements": len(v["nodes"]),
                    "example": v["nodes"][0]["target"],
                    "why": v["nodes"][0].get("failureSummary", "")[:300],
                }
                for v in self.run(page)
            }
        page.context.add_cookies([{"name": "lang", "value": "en", "url": self.url}])

    def report(self) -> None:
        out = os.environ.get("AXE_REPORT")
        if out:
            elements = sum(r["elements"] for page in self.found.values() for r in page.values())
            Path(out).write_text(
                json.dumps({"failing_elements": elements, "pages": self.found}, indent=1)
            )
        bad = {name: rules for name, rules in self.found.items() if rules}
        assert not bad, json.dumps(bad, indent=1)


def device(browser: Any, width: int = PHONE["width"], height: int = PHONE["height"]) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    return page


def play_until(appliance: Any, done: Any) -> None:
    """The bots play on (figures moved on the simulated board) until ``done()``."""
    from companion.service.autoplay import play_on

    play_on(appliance, until=done)


SEAT_READY = "#guidance:not(:empty)"


def test_every_page_passes_axe_core_in_both_languages(site, browser) -> None:
    from companion.games.mummy.state import Phase

    appliance, url = site
    service = appliance.service
    axe = Axe(url)
    expect = sync_api.expect

    # Setup: the first device is the host; another device meets the doors.
    host = device(browser)
    host.goto(url + "/")
    expect(host).to_have_url(url + "/host")
    axe.check("host: setup", host, "#setup")
    stranger = device(browser)
    axe.check("landing", stranger, "main", "/")
    axe.check("host PIN", stranger, "main", "/host")
    axe.check("a seat's page without its code", stranger, "main", "/mummy")
    for game in ("mummy", "crypt", "lootnrun"):
        axe.check(f"rules: {game}", stranger, "main", f"/rules/{game}")
    axe.check("past games: none yet", host, "main", "/host/games")

    host.goto(url + "/host")
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {s["seat"]: s["code"] for s in service_seats(host)}
    put_board_right(appliance)
    axe.check("host: a game on", host, "#seats li")
    axe.check("join", stranger, "#join", f"/join/{codes['seeker0']}")

    pages: dict[str, Any] = {}
    for seat in ("mummy", "seeker0", "seeker1", "table", "watch"):
        page = device(browser, *((1280, 800) if seat == "table" else ()))
        page.goto(f"{url}/join/{codes[seat]}")
        page.locator("#join").click()
        page.wait_for_selector(SEAT_READY)
        pages[seat] = page

    # Each seat mid-game (a seeker's turn), the host's tools, the side games.
    play_until(appliance, lambda: service.game.current.seeker == 1)
    for seat, page in pages.items():
        axe.check(f"{seat}: mid-game", page, SEAT_READY)
    axe.check("sim", host, "svg", "/sim")
    axe.check("check", host, "main", "/check")
    axe.check("crypt", host, ".sq", "/crypt")
    axe.check("loot n run", host, "main", "/lootnrun")
    host.goto(url + "/host")

    # The mummy's move.
    play_until(appliance, lambda: service.game.current.phase is Phase.MUMMY_MOVING)
    for seat in ("mummy", "table"):
        axe.check(f"{seat}: the mummy moves", pages[seat], SEAT_READY)

    # A catch (the caught seeker's own page too).
    play_until(appliance, lambda: caught(service))
    assert caught(service), "the bots' game ended without a catch"
    for seat in ("mummy", "seeker0", "seeker1", "table"):
        axe.check(f"{seat}: a catch", pages[seat], SEAT_READY)

    # The end, and the past games.
    play_until(appliance, lambda: False)
    assert service.game.current.is_over
    for seat in ("mummy", "seeker0", "table"):
        axe.check(f"{seat}: the end", pages[seat], "#end")
    axe.check("host: the end", host, "#end", "/host")
    axe.check("past games", host, ".past-games li", "/host/games")
    game = service.published.game_id
    axe.check("replay: the reveal", host, "polyline.mummy-path.whole", f"/replay/{game}")
    axe.check("statistics", host, ".stats-chart.heat", "/stats")
    # Pass the phone: Blue's phone takes Red too, and opens behind the cover.
    blue = pages["seeker1"]
    blue.goto(f"{url}/join/{codes['seeker0']}")
    blue.locator("#add").click()
    blue.wait_for_url("**/seeker")  # the form's own redirect, before the check opens /seeker
    blue.locator("#cover-tap").wait_for()
    axe.check("seeker: the cover of a passed phone", blue, "#cover-tap", "/seeker")
    axe.report()


def host_starts_a_game(browser: Any, site: tuple[Any, str]) -> tuple[Any, dict[str, str]]:
    """The first device becomes the host and starts the default game: its page and the
    seats' codes; the figures are put where the game begins."""
    appliance, url = site
    host = device(browser)
    host.goto(url + "/")
    host.get_by_role("button", name="Start the game").click()
    sync_api.expect(host.locator("#seats li")).to_have_count(5)
    codes = {s["seat"]: s["code"] for s in service_seats(host)}
    put_board_right(appliance)
    return host, codes


def service_seats(host: Any) -> list[dict[str, Any]]:
    status: dict[str, Any] = host.evaluate("fetch('/api/host/status').then(r => r.json())")
    seats: list[dict[str, Any]] = status["table"]["seats"]
    return seats


def caught(service: Any) -> bool:
    """The last command caught a seeker (its figure now waits for the sarcophagus)."""
    from companion.games.mummy.events import SeekerCaught

    return any(isinstance(e, SeekerCaught) for e in service.published.events)
