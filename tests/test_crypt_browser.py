"""A short browser test of /crypt: start a game against the computer, tap a square.

Runs the real page in Debian's Chromium through Playwright against the mock appliance
served by a werkzeug server in a thread; skipped where either is missing.  The
screenshot at phone size (390x844) is kept in the test's tmp directory (and in
``$CRYPT_SCREENSHOT`` if set) for a person to look at.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.web import create_app
from tests.test_browser import CHROMIUM_ARGS
from tests.test_crypt_service import crypt, start

CHROMIUM = "/usr/bin/chromium"
ARGS = CHROMIUM_ARGS

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no Chromium at " + CHROMIUM)


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, object]]:
    from werkzeug.serving import make_server

    appliance = start(tmp_path)
    crypt(appliance).computer_delay_s = 0.2
    app = create_app(appliance.service, secret_key=b"k" * 32, appliance=appliance)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", appliance
    finally:
        appliance.close()  # ends the live streams first
        server.shutdown()
        thread.join(timeout=5)


def test_a_game_against_the_computer_on_a_phone(served, tmp_path):
    base, appliance = served
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{base}/")  # the first device is the host: every door opens
            page.wait_for_url(f"{base}/host")
            page.goto(f"{base}/crypt")
            page.wait_for_selector(".sq[data-square=a8]")
            assert page.locator(".sq").count() == 64
            assert page.locator(".sq .lock").count() == 4

            page.click("#setup summary")
            assert page.locator("#computer").input_value() == "1"  # the computer plays Blue
            page.click("#setup-form button[type=submit]")
            page.wait_for_selector("#back-to-maze:not([hidden])")
            assert appliance.hub.active == "crypt"
            # The maze's figures still stand: the crypt asks, in a notice of its own
            # beside its words, to take them off (how many, never where), and the notice
            # goes once they are off.
            notice = page.locator("#maze-notice")
            sync_api.expect(notice).to_have_text(
                "The maze game left 4 figures on the board: take them off."
            )
            assert "maze game" not in page.inner_text("#message")
            for position in sorted(appliance.mock_board.occupied):  # clear the maze figures
                appliance.mock_board.lift(position)
            sync_api.expect(notice).to_be_hidden()
            page.wait_for_function(
                "document.getElementById('message').textContent.startsWith('Red places')"
            )

            page.click(".sq[data-square=c3]")
            page.wait_for_selector(".sq[data-square=c3] .cube")
            page.wait_for_selector("#computer-move:not([hidden])")
            assert page.inner_text("#computer-move").startswith("Computer: Blue put one of Red")
            assert crypt(appliance).published.state.ply == 2
            page.wait_for_function("document.querySelectorAll('.sq .cube').length === 2")
            assert page.inner_text("#turn").startswith("Red to play")

            page.click(".sq[data-square=a1]")  # a green corner: refused with the reason
            page.wait_for_selector("#error:not([hidden])")
            assert "green corner tile" in page.inner_text("#error")

            shot = tmp_path / "crypt-phone.png"
            page.screenshot(path=str(shot), full_page=True)
            keep = os.environ.get("CRYPT_SCREENSHOT")
            if keep:
                shutil.copy(shot, keep)
            assert not errors, errors
        finally:
            browser.close()


def host_phone(browser, base: str):
    """A phone (390x844, touch) that opened the companion first: the host's device."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True)
    page.goto(f"{base}/")
    page.wait_for_url(f"{base}/host")
    return page


def test_the_end_of_a_game_offers_a_rematch_with_the_same_seats(served):
    from tests.test_crypt_service import COMPUTER, HUMAN, give_board_to_crypt, play_to_the_end

    base, appliance = served
    service = crypt(appliance)
    service.computer_delay_s = 0.0
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = host_phone(browser, base)
            page.goto(f"{base}/crypt")
            service.new_game(players=2, computer=COMPUTER, first_player=HUMAN, seed=3)
            give_board_to_crypt(appliance)
            play_to_the_end(appliance)
            first = service.game.id
            colours = [
                p["colour"]
                for p in page.evaluate("fetch('/crypt/api/state').then(r => r.json())")["players"]
            ]
            sync_api.expect(page.locator("#turn")).to_contain_text("Game over")
            rematch = page.locator("#rematch")
            box = rematch.bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44
            rematch.tap()
            sync_api.expect(page.locator("#rematch")).to_have_count(0)
            assert service.game.id != first and not service.published.state.is_over
            state = page.evaluate("fetch('/crypt/api/state').then(r => r.json())")
            assert [p["colour"] for p in state["players"]] == colours
            assert service.game.computer == COMPUTER
        finally:
            browser.close()


def test_before_the_crypt_has_the_board_nothing_invites_a_tap_and_no_error_stays(served):
    """Another game holds the board: the squares take no tap and invite none; an error a
    seat's page showed then (a command sent anyway) goes once the host gives the board."""
    base, appliance = served
    expect = sync_api.expect
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            host = host_phone(browser, base)
            table = host.evaluate(
                """() => fetch('/api/host/game', {method: 'POST',
                      headers: {'Content-Type': 'application/json'},
                      body: JSON.stringify({colours: ['red']})}).then((r) => r.json())"""
            )
            code = next(s["code"] for s in table["table"]["seats"] if s["seat"] == "seeker0")
            red = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True)
            red.goto(f"{base}/join/{code}")
            red.locator("#join").tap()
            red.wait_for_url(f"{base}/seeker")
            red.goto(f"{base}/crypt")
            expect(red.locator("#board-game")).to_contain_text("The board plays the mummy maze")
            expect(red.locator(".sq:disabled")).to_have_count(64)
            expect(red.locator(".sq.hint")).to_have_count(0)
            red.evaluate("api('/crypt/api/command', {kind: 'pass'})")  # sent anyway
            expect(red.locator("#error")).to_contain_text("The board plays")
            given = host.evaluate(
                """() => fetch('/crypt/api/board', {method: 'POST',
                      headers: {'Content-Type': 'application/json'},
                      body: JSON.stringify({game: 'crypt', pause: true})}).then((r) => r.status)"""
            )
            assert given == 200 and appliance.hub.active == "crypt"
            expect(red.locator("#board-game")).to_contain_text("The board plays Into the Crypt")
            expect(red.locator("#error")).to_be_hidden()
            expect(red.locator(".sq:disabled")).to_have_count(0)
        finally:
            browser.close()
