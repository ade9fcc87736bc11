"""The end of a maze game in real browsers (chromium at 390x844): every page shows the
end screen with the winner and the summary, which no page had before the end; the host
plays the same table again in one tap, and every phone stays joined throughout.

The companion runs in this process behind waitress (the mock appliance), so the game
between the joining and the end is played quickly by the bots through the service, with
the figures moved on the simulated board, while the phones' pages follow it live.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import CHROMIUM, CHROMIUM_ARGS, NAVIGATION_MS, PHONE, phone, shot, sync_api
from tests.test_touch_browser import too_small

__all__ = ["CHROMIUM"]

SEATS = ("mummy", "seeker0", "seeker1", "table")
PAGES = {"mummy": "/mummy", "seeker0": "/seeker", "seeker1": "/seeker", "table": "/table"}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """The mock appliance behind the companion's web server on a free port."""
    from companion.service.webserver import Limits
    from companion.service.webthread import ServerThread
    from companion.web import create_app
    from tests.test_service import start

    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    try:
        with ServerThread(app, limits=Limits(threads=8)) as web:
            try:
                yield appliance, web.url
            finally:
                appliance.hub.end_streams()  # as ``companion run`` does: live pages end
    finally:
        appliance.close()


@contextmanager
def chromium(*args: str) -> Iterator[Any]:
    """Debian's chromium, headless, with ``args`` besides the sandbox's and the GPU's."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *args])
        yield browser
        browser.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def put_board_right(appliance: Any) -> None:
    from companion.service.autoplay import wait_until

    service = appliance.service
    appliance.mock_board.set_occupied(service.board.expected(service.game.current).values())
    wait_until(lambda: service.published.judgement.matches)


def size(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["width"], box["height"]


def test_a_maze_game_to_its_end_and_a_rematch_with_the_same_phones(site, browser) -> None:
    from companion.service.autoplay import play_on

    appliance, url = site
    service = appliance.service
    expect = sync_api.expect

    host = phone(browser)
    host.goto(url + "/")
    expect(host).to_have_url(url + "/host")
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_board_right(appliance)
    first_game = service.published.game_id

    pages: dict[str, Any] = {}
    seen: dict[str, list[Any]] = {}
    for seat in SEATS:
        # The owner hosts and plays the mummy on one phone: the host's device, another tab.
        page = host.context.new_page() if seat == "mummy" else phone(browser)
        page.set_default_timeout(8000)
        seen[seat] = []
        page.on(
            "response",
            lambda r, got=seen[seat]: (
                got.append(r.json()) if "/api/" in r.url and "stream" not in r.url else None
            ),
        )
        page.goto(f"{url}/join/{codes[seat]}")
        page.locator("#join").click()
        expect(page).to_have_url(url + PAGES[seat])
        expect(page.locator("#guidance")).to_contain_text(re.compile("Red|Your turn"))
        pages[seat] = page
    # Before the end: no end screen, and no page's state carries a summary.
    for seat, page in pages.items():
        assert page.locator("#end").count() == 0
        kind = "seeker" if seat.startswith("seeker") else seat
        state = page.evaluate(f"fetch('/api/{kind}/state').then(r => r.json())")
        assert state["summary"] is None, seat
    assert host.locator("#end").count() == 0

    play_on(appliance)
    state = service.game.current
    assert state.is_over and state.winner is not None
    summary = service.published.summary
    assert summary is not None
    winner = "The mummy wins" if state.winner.is_mummy else "wins:"

    for page in pages.values():
        end = page.locator("#end")
        expect(end).to_be_visible()
        expect(end.locator(".winner")).to_contain_text(winner)
        expect(end).to_contain_text(f"Played to round {summary.rounds + 1}.")
        expect(end).to_contain_text("The mummy's path")
        # Every seeker's cards are revealed now, on the mummy's page too.
        for hand in summary.hands:
            for card in hand:
                expect(end).to_contain_text(f"{card.colour.value} {card.name}")
    expect(host.locator("#end .winner")).to_contain_text(winner)
    # No die stays on screen once the game is over.
    expect(pages["mummy"].locator("#dice-out")).to_have_text("")
    for seat in ("seeker0", "table"):
        expect(pages[seat].locator("#dice .die")).to_have_count(0)
    # The game is over: no page offers a take-back.
    for seat in ("mummy", "seeker0", "seeker1"):
        expect(pages[seat].locator("#takeback button")).to_have_count(0)
    shot(pages["mummy"], "end-mummy")
    shot(host, "end-host")

    # The host's buttons a thumb can hit, on the host page and on the owner's own end
    # screen, her mummy phone (at 390 and at 360 px wide); no other seat has them.
    owner = pages["mummy"]
    for page in (host, owner):
        for selector in ("#rematch", "#new-game", '#end a[href="/host/games"]'):
            width, height = size(page, selector)
            assert width >= 44 and height >= 44, (selector, width, height)
    for seat in ("seeker0", "seeker1", "table"):
        expect(pages[seat].locator("#end #rematch")).to_have_count(0)
    owner.set_viewport_size({"width": 360, "height": 740})
    expect(owner.locator("#end #rematch")).to_be_visible()
    assert too_small(owner) == []
    shot(owner, "end-owner-mummy-360")
    owner.set_viewport_size(PHONE)

    # Rematch from the owner's mummy phone: one tap, a new deal, the same seats; every
    # phone stays on its page.
    owner.locator("#end #rematch").click()
    expect(host.locator("#end")).to_have_count(0)
    assert service.published.game_id != first_game
    assert not service.game.current.is_over
    put_board_right(appliance)
    for seat, page in pages.items():
        expect(page.locator("#end")).to_have_count(0)
        expect(page).to_have_url(url + PAGES[seat])
        expect(page.locator("#guidance")).to_contain_text(re.compile("Red|Your turn"))
    expect(pages["seeker0"].locator("#guidance")).to_contain_text("Your turn")
    for seat in SEATS:  # the watching seat has no phone here
        expect(host.locator(f'[data-seat="{seat}"] .joined')).to_have_text("joined")

    # The mummy's page never got a seeker's cell or cards before the end.
    for data in seen["mummy"]:
        if data.get("summary") is None:
            text = json.dumps(data)
            assert '"positions"' not in text and '"hand"' not in text

    # The past games list the one that ended (the host page links them).
    width, height = size(host, "#past-games")
    assert width >= 44 and height >= 44
    host.locator("#past-games").click()
    expect(host).to_have_url(url + "/host/games")
    expect(host.locator(f'[data-game="{first_game}"] .winner')).to_contain_text(winner)
    assert PHONE["width"] == 390


@pytest.fixture
def spec_browser() -> Iterator[Any]:
    """Chromium removing a focused element as the HTML standard says, and as Safari and
    Firefox do: without a blur event (``OmitBlurEventOnElementRemoval``).  Chromium's
    default blur on removal cleared a step button's mark by chance, which hid the stale
    marker phones showed; with this, the test sees what a phone's browser does."""
    with chromium("--enable-features=OmitBlurEventOnElementRemoval") as browser:
        yield browser


def touch_phone(browser: Any) -> Any:
    """A phone: 390x844, a finger (touch events, no hover), taps with ``tap``."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=3, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    return page


def test_no_marker_stays_on_the_mummys_maze_after_a_step_and_its_take_back(site, spec_browser):
    """A step button marks its cell (dashed) while the finger is on it; once the step is
    made, and once it is taken back, the maze has no mark left (the fault: the mark of
    the button tapped stayed on the maze, after the take-back too, on a phone's browser
    where removing the focused button fires no blur).  At the start, the deduction aid
    says the figures are on the start field (not "0 cells")."""
    browser = spec_browser
    appliance, url = site
    expect = sync_api.expect
    host = touch_phone(browser)
    host.goto(url + "/")
    host.get_by_label("Real dice: players enter what they throw").check()
    host.get_by_label(re.compile("Deduction aid")).check()
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_board_right(appliance)
    pages = {}
    for seat in ("seeker0", "mummy"):
        page = touch_phone(browser)
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(f"{url}/join/{codes[seat]}")
        page.locator("#join").tap()
        expect(page).to_have_url(url + PAGES[seat])
        pages[seat] = page
    mummy = pages["mummy"]
    # At the start the deduction aid says where the figures are: on the start field.
    expect(mummy.locator("#aid")).to_contain_text("the start field")
    expect(mummy.locator("#aid")).not_to_contain_text("0 cells")
    # Five mummies: Red's turn is lost and the mummy makes an intermediate move.
    five = json.dumps({"cmd": "roll", "faces": ["mummy"] * 5})
    pages["seeker0"].evaluate(
        "body => fetch('/api/seeker/command', {method: 'POST', credentials: 'same-origin',"
        " headers: {'Content-Type': 'application/json'}, body}).then(r => r.status)",
        five,
    )
    arrow = mummy.get_by_role("button", name="step to D1")
    expect(arrow).to_be_visible()
    arrow.tap()  # a finger: touchstart marks the cell, and no leave follows
    expect(mummy.locator("#steps")).to_contain_text("4")
    mummy.wait_for_timeout(300)  # a mark left behind would be drawn by now
    expect(mummy.locator(".named.pointed")).to_have_count(0)
    mummy.locator("#takeback-button").tap()
    expect(mummy.locator("#steps")).to_contain_text("5")
    mummy.wait_for_timeout(300)
    expect(mummy.locator(".named.pointed")).to_have_count(0)
    # While the finger is on a step button its cell is marked, and only then.
    arrow = mummy.get_by_role("button", name="step to D1")
    box = arrow.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    mummy.evaluate(
        """([x, y]) => {
          const target = document.elementFromPoint(x, y);
          const touch = new Touch({identifier: 1, target, clientX: x, clientY: y});
          target.dispatchEvent(new TouchEvent("touchstart", {touches: [touch],
            targetTouches: [touch], changedTouches: [touch], bubbles: true}));
        }""",
        [x, y],
    )
    expect(mummy.locator('.named.pointed[data-cell="3"]')).to_have_count(1)
