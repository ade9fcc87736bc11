"""The Loot N Run page in a real browser (Playwright on Debian's chromium) against the
companion's web server in a thread: a game of three starts, everyone loots, and Anna's Run is
entered card by card by tapping treasure pictures; a second phone follows live.

Screenshots on a phone viewport go to ``$LOOTNRUN_SHOTS`` (default: the test's tmp dir).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.board.score_track import track_path
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from companion.web import create_app
from tests.test_browser import CHROMIUM_ARGS as ARGS
from tests.test_browser import NAVIGATION_MS
from tests.test_service import start, wait_until

CHROMIUM = Path("/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}

if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed (/usr/bin/chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """The mock appliance behind the companion's web server on a free port of 127.0.0.1."""
    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    try:
        with ServerThread(app, limits=Limits(threads=8)) as web:
            try:
                yield web.url, appliance
            finally:
                appliance.service.closing = True  # as ``companion run`` does: live streams end
    finally:
        appliance.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def phone(browser: Any) -> Any:
    page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    page.set_default_timeout(10_000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    return page


def small_targets(page: Any) -> list[str]:
    """Visible buttons, inputs and selects less than 44 px high (touch targets)."""
    result: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('button, select, input[type=text], a.button')]
            .filter((e) => e.offsetParent !== null && !e.closest('[hidden]'))
            .filter((e) => e.getBoundingClientRect().height < 44)
            .map((e) => e.id || e.className || e.textContent.trim())"""
    )
    return result


def test_a_run_entered_by_tapping_treasures_moves_the_score_on_every_phone(
    server, browser, tmp_path
):
    url, appliance = server
    shots = Path(os.environ.get("LOOTNRUN_SHOTS", tmp_path))
    anna = phone(browser)
    anna.goto(f"{url}/")  # the first device to open the companion is the host
    anna.wait_for_url(f"{url}/host")
    anna.goto(f"{url}/lootnrun")

    # A new game of three.
    names = anna.locator("#setup-players .name")
    anna.wait_for_selector("#setup-players .name")
    for i, name in enumerate(["Anna", "Ben", "Cleo"]):
        names.nth(i).fill(name)
    assert small_targets(anna) == []
    anna.click("#start-game")
    anna.wait_for_selector("#act-loot")
    assert "Anna's turn" in anna.inner_text("#turn")
    assert appliance.hub.active == "lootnrun"  # the board shows the score track

    # A second phone on the table follows live, on the watching seat the host hands out
    # (with a maze table set up, which keeps the board where it is).
    seats = anna.evaluate(
        """() => fetch('/api/host/game', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({colours: ['red']})})
            .then((r) => r.json()).then((s) => s.table.seats)"""
    )
    watch = next(s["code"] for s in seats if s["seat"] == "watch")
    table = phone(browser)
    table.goto(f"{url}/join/{watch}")
    table.click("#join")
    table.wait_for_url(f"{url}/watch")
    table.goto(f"{url}/lootnrun")
    table.wait_for_selector("#act-loot")

    # Everyone loots a card (one tap each).
    for who in ("Ben", "Cleo", "Anna"):
        anna.click("#act-loot")
        anna.wait_for_function(
            "who => document.querySelector('#turn').innerText.includes(who + \"'s turn\")",
            arg=who,
        )

    # Anna runs: card 1 shows a cup and a chest, card 2 a cup and two gems.
    anna.click("#act-run")
    anna.wait_for_selector("#sheet:not([hidden])")
    anna.click(".pad button[data-type='1']")
    anna.click(".pad button[data-type='2']")
    anna.click("#next-card")
    for treasure in ("1", "3", "3"):
        anna.click(f".pad button[data-type='{treasure}']")
    anna.wait_for_function("document.querySelector('#preview-points').textContent === '7'")
    # Both cups: doubled (waited for, as the page may still be drawing the preview).
    anna.wait_for_function("document.querySelectorAll('.card .sym.doubled').length === 2")
    assert "doubled" in anna.inner_text(".breakdown li.doubled")
    assert anna.inner_text("#sheet-confirm") == "Run: 7 points"
    assert small_targets(anna) == []
    anna.screenshot(path=str(shots / "lootnrun-run.png"))

    anna.click("#sheet-confirm")
    anna.wait_for_selector("#sheet", state="hidden")
    anna.wait_for_function("document.querySelector('#players li .score').textContent === '7'")
    anna.wait_for_function(
        "(document.querySelector('#history-list li') || {}).textContent?.includes('Anna ran')"
    )
    first = anna.locator("#history-list li").first.inner_text()
    assert "Anna ran with 2 cards: 7 points (cup doubled)." in first
    assert "+7 Anna" in first
    assert "Ben's turn" in anna.inner_text("#turn")

    # The other phone saw it without reloading.
    table.wait_for_function("document.querySelector('#players li .score').textContent === '7'")
    table.wait_for_function(
        "(document.querySelector('#history-list li') || {}).textContent?.includes('Anna ran')"
    )
    assert "Anna ran with 2 cards" in table.locator("#history-list li").first.inner_text()

    # The chart has Anna's line; the LEDs show her token on space 7 of the track.
    anna.click("#tab-chart")
    anna.wait_for_function("document.querySelectorAll('#chart polyline.series').length === 3")
    red_on_seven = track_path(12, 12, 35)[7]
    wait_until(lambda: appliance.lights.last_frame[red_on_seven] == (255, 0, 0), timeout=5)
    anna.click("#tab-list")
    anna.evaluate("window.scrollTo(0, 0)")
    anna.wait_for_timeout(1000)  # the token has slid to its space
    anna.screenshot(path=str(shots / "lootnrun-after-run.png"))
    assert small_targets(anna) == []
    assert anna.errors == [] and table.errors == []


def test_a_long_name_wraps_on_a_phone_and_the_input_stops_at_the_limit(server, browser):
    url, _ = server
    page = phone(browser)
    page.goto(f"{url}/")
    page.wait_for_url(f"{url}/host")
    page.goto(f"{url}/lootnrun")
    names = page.locator("#setup-players .name")
    page.wait_for_selector("#setup-players .name")
    names.nth(0).fill("Maximiliane-Josephine-Antonia")  # longer than the limit
    assert names.nth(0).input_value() == "Maximiliane-Josephine-Antonia"[:24]
    names.nth(1).fill("B" * 24)
    for i in range(2, names.count()):
        names.nth(i).fill(f"P{i}")
    page.click("#start-game")
    page.wait_for_selector("#act-loot")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], wide  # the page does not scroll sideways
    assert "B" * 24 in page.inner_text("body")
    assert page.errors == []


def test_the_final_screen_offers_a_rematch_with_the_same_players(server, browser) -> None:
    url, appliance = server
    expect = sync_api.expect
    anna = phone(browser)
    anna.goto(f"{url}/")  # the first device is the host
    anna.goto(f"{url}/lootnrun")
    send = (
        "([path, body]) => fetch('/lootnrun/api/' + path, {method: 'POST', credentials:"
        " 'same-origin', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify(body)}).then(r => r.status)"
    )
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    assert anna.evaluate(send, ["new", {"players": players, "first": 0}]) == 200
    # A correction to the target starts the final reveal; nobody has cards to reveal.
    body = {"cmd": "correction", "player": 1, "points": 35, "reason": "test", "cards": 0}
    assert anna.evaluate(send, ["command", body]) == 200
    for player in (0, 1):
        status = anna.evaluate(send, ["command", {"cmd": "final_reveal", "player": player}])
        assert status == 200
    service = appliance.hub.service("lootnrun")
    first = service.game_id
    rematch = anna.locator("#end #rematch")
    expect(rematch).to_be_visible()
    box = rematch.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44
    rematch.tap()
    expect(anna.locator("#end #rematch")).to_have_count(0)
    assert service.game_id != first and not service.state.is_over
    names = [p.name for p in service.state.players]
    assert names == ["Anna", "Ben"]
    assert not anna.errors


def test_the_setup_offers_colours_apart_and_names_a_look_alike_pair(server, browser) -> None:
    """The checked palette: the first colours offered are ones a colour-blind player tells
    apart on the board's lights; choosing Red and Green is said in words (not refused),
    and in German on a German phone."""
    url, _ = server
    page = phone(browser)
    page.goto(f"{url}/")
    page.wait_for_url(f"{url}/host")
    page.goto(f"{url}/lootnrun")
    page.wait_for_selector("#setup-players .colour")
    for _ in range(3):
        page.click("#add-player")
    colours = page.eval_on_selector_all("#setup-players .colour", "ss => ss.map(s => s.value)")
    assert colours == ["red", "blue", "yellow", "turquoise", "white", "black"]
    warning = page.locator("#setup-look-alike")
    assert warning.inner_text() == ""
    assert warning.get_attribute("role") == "status"
    rows = page.locator("#setup-players .colour")
    for _ in range(3):
        page.locator("#setup-players .remove").last.click()
    rows.nth(2).select_option("green")
    sync_api.expect(warning).to_have_text(
        "Red and Green look alike to colour-blind players on the board's lights: "
        "choose another colour for one of them."
    )
    rows.nth(2).select_option("yellow")
    sync_api.expect(warning).to_have_text("")
    page.click("#add-player")
    assert rows.nth(3).input_value() == "turquoise"  # like none of red, blue, yellow
    rows.nth(3).select_option("purple")
    sync_api.expect(warning).to_contain_text("Blue and Purple look alike")
    page.locator("#setup-players .remove").nth(1).click()  # a row removed: checked again
    sync_api.expect(warning).to_have_text("")
    # The same words in German (the phone's language switch is a cookie).
    host = url.split("//")[1].split(":")[0]
    page.context.add_cookies([{"name": "lang", "value": "de", "domain": host, "path": "/"}])
    page.reload()
    page.wait_for_selector("#setup-players .colour")
    page.locator("#setup-players .colour").nth(2).select_option("green")
    sync_api.expect(warning).to_have_text(
        "Rot und Grün sehen für Farbenblinde auf den Lichtern des Bretts gleich aus: "
        "Wähle für einen von beiden eine andere Farbe."
    )
    assert page.errors == []
