"""Pass the phone and the covered private view in a real browser (issue 36): nothing of
a seat is asked for or drawn until its cover's tap (by keyboard here), the turn passing
to the other seeker on the phone covers the page again, and the table screen shows one
seeker's cards behind a cover until "Done"."""

from __future__ import annotations

from typing import Any

from tests.test_axe_browser import SEAT_READY, Axe, device, host_starts_a_game, play_until
from tests.test_browser import sync_api
from tests.test_end_browser import browser, site

__all__ = ["browser", "site"]


def titles(service: Any, seeker: int) -> set[str]:
    """The cells of a seeker's cards, as the pages name them ("D4")."""
    state = service.game.current
    return {state.maze.cell_name(t.cell) for t in state.hands[seeker]}


def shown_cards(page: Any, selector: str) -> set[str]:
    return set(page.locator(f"{selector} li.card:not(.played) .cell").all_inner_texts())


def test_a_phone_passed_between_two_seekers_and_the_table_screens_private_view(site, browser):
    appliance, url = site
    service = appliance.service
    expect = sync_api.expect
    _, codes = host_starts_a_game(browser, site)

    phone = device(browser)
    asked: list[str] = []
    phone.on("request", lambda r: asked.append(r.url))
    phone.goto(f"{url}/join/{codes['seeker0']}")
    phone.locator("#join").click()
    phone.wait_for_selector(SEAT_READY)
    phone.goto(f"{url}/join/{codes['seeker1']}")
    phone.locator("#add").click()  # Blue joins the phone Red holds
    cover = phone.locator("#cover-tap")
    expect(cover).to_have_text("Give the phone to Blue, then tap")
    expect(cover).to_be_focused()
    asked.clear()
    phone.wait_for_timeout(300)
    assert not [u for u in asked if "/api/seeker/" in u], asked  # nothing asked before the tap
    assert phone.locator("#hand li").count() == 0 and phone.locator("#seat").is_hidden()
    phone.keyboard.press("Enter")
    phone.wait_for_selector(SEAT_READY)
    expect(phone.locator("#hand li.card")).not_to_have_count(0)
    assert shown_cards(phone, "#hand") == titles(service, 1)

    # Passed to Red by its link: a fresh cover, nothing of Blue left in the page.
    phone.get_by_role("link", name="Pass the phone to Red").click()
    expect(phone.locator("#cover-tap")).to_have_text("Give the phone to Red, then tap")
    assert phone.locator("#hand li").count() == 0
    phone.locator("#cover-tap").click()
    phone.wait_for_selector(SEAT_READY)
    expect(phone.locator("#hand li.card")).not_to_have_count(0)
    assert shown_cards(phone, "#hand") == titles(service, 0)

    # Red's turn ends (the bots play it): the page covers itself for Blue.
    play_until(appliance, lambda: service.game.current.seeker == 1)
    expect(phone.locator("#cover-tap")).to_have_text("Give the phone to Blue, then tap")
    assert phone.locator("#hand li").count() == 0

    # The table screen: "Private view for Red", a cover, the tap, Red's cards, Done.
    screen = device(browser, 1280, 800)
    screen.goto(f"{url}/join/{codes['table']}")
    screen.locator("#join").click()
    screen.wait_for_selector(SEAT_READY)
    axe = Axe(url)
    screen.get_by_role("button", name="Private view for Blue").click()
    screen.get_by_role("button", name="Not now").click()  # tapped by mistake: back
    screen.get_by_role("button", name="Private view for Red").click()
    tap = screen.locator("#private-tap")
    expect(tap).to_be_focused()
    assert screen.locator("#private-hand li").count() == 0
    assert axe.run(screen) == []
    screen.keyboard.press("Enter")
    expect(screen.locator("#private-hand li.card")).not_to_have_count(0)
    assert shown_cards(screen, "#private-hand") == titles(service, 0)
    assert axe.run(screen) == []
    screen.get_by_role("button", name="Done: hide the cards").click()
    assert screen.locator("#private-hand li").count() == 0
    expect(screen.get_by_role("button", name="Private view for Red")).to_be_focused()
