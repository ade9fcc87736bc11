"""The end of Loot N Run and of the crypt in real browsers (chromium at 390x844): the host
and a phone on every seat follow a game to its end, where every page shows the same end
screen as the maze's (the winner and the summary above everything, which no page had
before), the host rematches the same seats in one tap, and every phone stays on its page
and sees the new game.  A seat's page offers no undo after the end; the host's page
offers the undo of the winning action, which reopens the game once confirmed.

The companion runs in this process behind waitress (the mock appliance); the games'
entries are sent from the host's page (Loot N Run) or played on the simulated board by
the computer's strategy (the crypt), while the phones' pages follow them live.
"""

from __future__ import annotations

import re
from typing import Any

from tests.test_browser import CHROMIUM, PHONE, phone, shot, sync_api
from tests.test_end_browser import browser, put_board_right, site, size
from tests.test_touch_browser import NARROW, SMALL_PLACE_TEXT, too_small

__all__ = ["CHROMIUM", "browser", "site"]

SEATS = ("mummy", "seeker0", "seeker1", "table")
SEND = (
    "([path, body]) => fetch(path, {method: 'POST', credentials: 'same-origin',"
    " headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})"
    ".then(r => r.status)"
)


def table_of_phones(appliance: Any, browser: Any, url: str, game: str) -> dict[str, Any]:
    """The host sets up a maze table of two seekers; a phone joins every seat that plays
    and opens ``game``'s page (the host's page too)."""
    host = phone(browser)
    host.goto(url + "/")
    host.get_by_role("button", name="Start the game").click()
    sync_api.expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_board_right(appliance)
    pages = {"host": host}
    for seat in SEATS:
        page = phone(browser)
        page.goto(f"{url}/join/{codes[seat]}")
        page.locator("#join").click()
        page.wait_for_url(f"{url}/*")
        pages[seat] = page
    for page in pages.values():
        page.goto(f"{url}/{game}")
    return pages


def past_games_reads_as_a_button(page: Any) -> None:
    """The end screen's "Past games" is a link that looks like the buttons beside it,
    not underlined text inside a button's box."""
    link = page.locator('#end a[href="/host/games"]')
    sync_api.expect(link).to_have_css("text-decoration-line", "none")


def narrow(page: Any, name: str) -> None:
    """At 360x740: every control a thumb's target, every text naming a square or a track
    space 12 px (the crypt's squares 44 px); a screenshot; back to 390x844."""
    page.set_viewport_size(NARROW)
    assert too_small(page) == []
    measured = page.evaluate(SMALL_PLACE_TEXT)
    assert measured["count"] >= 16 and measured["small"] == [], measured
    shot(page, name)
    page.set_viewport_size(PHONE)


def test_loot_n_run_to_its_end_on_every_seats_phone_and_a_rematch(site, browser) -> None:
    appliance, url = site
    expect = sync_api.expect
    pages = table_of_phones(appliance, browser, url, "lootnrun")
    host = pages["host"]
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    assert host.evaluate(SEND, ["/lootnrun/api/new", {"players": players}]) == 200
    for page in pages.values():
        expect(page.locator("#turn")).to_contain_text("Anna's turn")
        assert page.locator("#end").count() == 0
    # Ben reaches the target; both reveal what they hold (Anna one cup, Ben nothing).
    body = {"cmd": "correction", "player": 1, "points": 35, "reason": "test", "cards": 0}
    assert host.evaluate(SEND, ["/lootnrun/api/command", body]) == 200
    cup = {"treasures": [1, 0, 0, 0, 0, 0]}
    reveal = {"cmd": "final_reveal", "player": 0, "cards": [cup]}
    assert host.evaluate(SEND, ["/lootnrun/api/command", reveal]) == 200
    for page in pages.values():
        expect(page.locator("#end")).to_have_count(0)  # not before the end
    reveal = {"cmd": "final_reveal", "player": 1, "cards": []}
    assert pages["seeker1"].evaluate(SEND, ["/lootnrun/api/command", reveal]) == 200

    for seat, page in pages.items():
        end = page.locator("#end")
        expect(end).to_be_visible()
        expect(end.locator(".winner")).to_have_text("Ben wins.")
        expect(end).to_contain_text("Ben reached 35 points first.")
        expect(end).to_contain_text("Revealed at the end: 1 card, 1 point")
        # Above everything else on the page, the track and the players under it.
        box = end.bounding_box()
        assert box is not None and box["y"] < page.locator("#track").bounding_box()["y"], seat
        if seat != "host":  # a seat's page: no buttons, and its undo is off
            expect(end.locator("button")).to_have_count(0)
            expect(page.locator("#tool-undo")).to_be_disabled()
        expect(page.locator("#tool-correct")).to_be_disabled()
        # The result once, and the players by rank (Ben first, though Anna sits first).
        assert page.inner_text("body").count("Ben wins") == 1, seat
        expect(end.locator(".end-seekers li")).to_have_text(
            [re.compile(r"^1\. Ben"), re.compile(r"^2\. Anna")]
        )
    shot(pages["seeker0"], "lootnrun-end-seeker")
    shot(host, "lootnrun-end-host")
    narrow(host, "lootnrun-end-360")
    expect(host.locator("#end #end-undo")).to_be_visible()
    past_games_reads_as_a_button(host)
    # Every control of every page at the end is a thumb's target.
    small = {seat: too_small(page) for seat, page in pages.items()}
    assert not any(small.values()), small

    # German: the same end screen in the page's language, its controls as large.
    german = pages["table"]
    german.locator('nav.language button[data-lang="de"]').click()
    expect(german.locator("#end .winner")).to_have_text("Ben gewinnt.")
    expect(german.locator("#end")).to_contain_text("Spielende")
    host.locator('nav.language button[data-lang="de"]').click()
    expect(host.locator("#end #rematch")).to_have_text("Revanche (gleiche Plätze)")
    assert too_small(host) == [] and too_small(german) == []
    host.locator('nav.language button[data-lang="en"]').click()
    expect(host.locator("#end #rematch")).to_have_text("Rematch (same seats)")

    # The host's undo of the winning reveal, confirmed, reopens the game on every page.
    host.locator("#end-undo").click()
    host.locator("#undo-yes").click()
    for page in pages.values():
        expect(page.locator("#end")).to_have_count(0)
        expect(page.locator("#reveal-1")).to_be_visible()
    assert pages["seeker1"].evaluate(SEND, ["/lootnrun/api/command", reveal]) == 200
    expect(host.locator("#end #rematch")).to_be_visible()

    # Rematch: one tap, the same players; every phone stays on its page and follows.
    service = appliance.hub.service("lootnrun")
    first = service.game_id
    host.locator("#end #rematch").click()
    for seat, page in pages.items():
        expect(page.locator("#end")).to_have_count(0)
        expect(page.locator("#turn")).to_contain_text(
            re.compile("Anna's turn|Anna ist dran|Anna") if seat == "table" else "Anna's turn"
        )
        assert page.url == f"{url}/lootnrun", seat
    assert service.game_id != first and not service.state.is_over
    assert [p.name for p in service.state.players] == ["Anna", "Ben"]
    assert PHONE["width"] == 390


def test_the_crypt_to_its_end_on_every_seats_phone_and_a_rematch(site, browser) -> None:
    from tests.test_crypt_service import (
        COMPUTER,
        HUMAN,
        carry_out,
        crypt,
        play_to_the_end,
        wait_until,
    )

    appliance, url = site
    expect = sync_api.expect
    service = crypt(appliance)
    service.computer_delay_s = 0.0
    pages = table_of_phones(appliance, browser, url, "crypt")
    host = pages["host"]
    service.new_game(players=2, computer=COMPUTER, first_player=HUMAN, seed=3)
    assert host.evaluate(SEND, ["/crypt/api/board", {"game": "crypt", "pause": True}]) == 200
    for position in sorted(appliance.mock_board.occupied):  # the maze's figures off
        appliance.mock_board.lift(position)
    wait_until(lambda: service.published.judgement.matches)
    for page in pages.values():
        expect(page.locator("#turn")).to_contain_text("to play")
        assert page.locator("#end").count() == 0
    # The paused maze game is said once, apart from the crypt's messages.
    expect(host.locator("#board-game")).to_contain_text("The maze game is paused meanwhile.")
    narrow(host, "crypt-360")
    play_to_the_end(appliance)
    state = service.published.state
    first = service.game.id

    for seat, page in pages.items():
        end = page.locator("#end")
        expect(end).to_be_visible()
        expect(end.locator(".winner")).to_contain_text(re.compile(r"wins\.|share the win\."))
        expect(end).to_contain_text(f"{state.ply} moves played.")
        expect(end).to_contain_text("Blue (computer)")
        box = end.bounding_box()
        assert box is not None and box["y"] < page.locator("#board").bounding_box()["y"], seat
        expect(page.locator("#undo")).to_be_hidden()
        if seat != "host":
            expect(end.locator("button")).to_have_count(0)
        # The result once (no "Game over: Blue wins 15 to 9" after every line), the
        # players by rank, the winner first.
        text = page.inner_text("body")
        assert "Game over:" not in text and re.search(r"wins \d+ to", text) is None, seat
        assert len(re.findall(r"wins\.|share the win\.", text)) == 1, seat
        assert "paused meanwhile" not in page.locator("#message").inner_text(), seat
        expect(end.locator(".end-seekers li").first).to_contain_text(re.compile(r"^1\. .*★"))
    shot(pages["mummy"], "crypt-end-seat")
    shot(host, "crypt-end-host")
    # The undo's label is short, on one line (the question names the move).
    expect(host.locator("#end #end-undo")).to_have_text("Undo the winning move")
    assert size(host, "#end #end-undo")[1] < 50 and size(host, "#end #rematch")[1] < 50
    past_games_reads_as_a_button(host)
    narrow(host, "crypt-end-360")
    small = {seat: too_small(page) for seat, page in pages.items()}
    assert not any(small.values()), small
    host.locator('nav.language button[data-lang="de"]').click()
    expect(host.locator("#end")).to_contain_text("Spielende")
    expect(host.locator("#end")).to_contain_text(f"{state.ply} Züge gespielt.")
    assert too_small(host) == []
    host.locator('nav.language button[data-lang="en"]').click()
    expect(host.locator("#end #rematch")).to_have_text("Rematch (same seats)")

    # The host's undo of the winning move, once confirmed, reopens the game on every page;
    # played to its end again, the end screen is back.
    asked: list[str] = []
    host.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    host.locator("#end #end-undo").click()
    for page in pages.values():
        expect(page.locator("#end")).to_have_count(0)
    assert asked and asked[0].startswith("Undo the winning move:")
    assert not service.published.state.is_over and service.game.id == first
    carry_out(appliance)  # the board as the game stands again
    play_to_the_end(appliance)
    for page in pages.values():
        expect(page.locator("#end")).to_be_visible()

    # Rematch: one tap, the same colours and the computer in the same seat.
    host.locator("#end #rematch").click()
    for seat, page in pages.items():
        expect(page.locator("#end")).to_have_count(0)
        expect(page.locator("#turn")).to_contain_text("to play")
        assert page.url == f"{url}/crypt", seat
    assert service.game.id != first and not service.published.state.is_over
    assert service.game.computer == COMPUTER
