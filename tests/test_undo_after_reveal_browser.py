"""The host's undo after the end in real browsers (chromium at 390x844): the undo asks
with the warning that the cards the end showed stay known, every page then shows it as
a lasting notice, and "Deal the unplayed missions again" makes them secret once more."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.test_browser import phone, sync_api
from tests.test_end_browser import CHROMIUM, browser, put_board_right, site

__all__ = ["CHROMIUM", "browser", "site"]

ARTIFACTS = Path("/work/coord/artifacts/34")
PAGES = {"mummy": "/mummy", "seeker0": "/seeker", "table": "/table"}


def test_the_undo_after_the_end_warns_every_page_and_the_host_deals_again(site, browser):
    from companion.service.autoplay import play_on

    appliance, url = site
    service = appliance.service
    expect = sync_api.expect
    host = phone(browser)
    host.goto(url + "/")
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_board_right(appliance)
    pages: dict[str, Any] = {}
    for seat, path in PAGES.items():
        page = phone(browser)
        page.goto(f"{url}/join/{codes[seat]}")
        page.locator("#join").click()
        expect(page).to_have_url(url + path)
        expect(page.locator("#cards-notice")).to_be_hidden()
        pages[seat] = page
    play_on(appliance)
    assert service.game.current.is_over
    for page in pages.values():
        expect(page.locator("#end")).to_be_visible()

    asked: list[str] = []

    def accept(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    host.on("dialog", accept)
    expect(host.locator("#redeal")).to_be_hidden()
    host.locator("#undo").click()
    expect(host.locator("#host-cards")).to_contain_text("known to the whole table")
    assert "stay known to the whole table" in asked[0]
    assert service.game.current.cards_known
    for page in pages.values():
        expect(page.locator("#end")).to_have_count(0)
        expect(page.locator("#cards-notice")).to_contain_text("known to the whole table")
    if ARTIFACTS.parent.is_dir():
        ARTIFACTS.mkdir(exist_ok=True)
        pages["seeker0"].screenshot(path=str(ARTIFACTS / "seeker-cards-known.png"))
        host.screenshot(path=str(ARTIFACTS / "host-redeal.png"), full_page=True)

    host.locator("#redeal").click()
    expect(host.locator("#redeal")).to_be_hidden()
    for page in pages.values():
        expect(page.locator("#cards-notice")).to_contain_text("secret once more")
    hand = service.game.current.hands[0]
    cards = pages["seeker0"].locator("#hand")
    for card in hand:
        expect(cards).to_contain_text(card.name)
