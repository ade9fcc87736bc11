"""One table across the games, in a real browser (Playwright on Debian's chromium) at
390x844 against ``companion run --mock``: every seat's page has the same menu and moves
through the maze, Loot N Run and the crypt by it; when the host gives the board away,
each seat's page offers the game that holds it in one tap, and the way back when it
returns; the crypt offers nothing to tap until it holds the board.  Also the small
faults of issue 26 that a browser shows: the remembered hint switch, /sim's row labels,
the crypt history's margin, Loot N Run's empty reveal and its host-only board button,
the table naming a seeker who has not joined.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import (
    Server,
    browser,
    phone,
    put_figures_in_the_camp,
    shot,
    sync_api,
    wait,
)

__all__ = ["browser"]  # the fixture, shared with the other browser tests


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A companion of its own for each test: its first phone is the host."""
    server = Server(tmp_path)
    yield server
    server.stop()


#: Each seat and its own page (the menu's "The maze").
SEAT_PAGES = {
    "mummy": "/mummy",
    "seeker0": "/seeker",
    "seeker1": "/seeker",
    "table": "/table",
    "watch": "/watch",
}


def at_least_44(page: Any, selector: str) -> None:
    """Every visible element of ``selector`` is a thumb's target (44x44 CSS px)."""
    sizes = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
            .map(e => { const r = e.getBoundingClientRect();
                        return [e.textContent.trim(), r.width, r.height]; })""",
        selector,
    )
    assert sizes, selector
    small = [s for s in sizes if s[1] < 44 or s[2] < 44]
    assert not small, small


def menu_keys(page: Any) -> list[str]:
    return [a.get_attribute("data-menu") for a in page.locator(".table-menu a").all()]


def go(page: Any, key: str, url: str) -> None:
    """Tap the menu's entry ``key`` and land on ``url``, marked as the current page."""
    expect = sync_api.expect
    at_least_44(page, ".table-menu a")
    page.locator(f'.table-menu a[data-menu="{key}"]').click()
    expect(page).to_have_url(url)
    expect(page.locator(f'.table-menu a[data-menu="{key}"]')).to_have_attribute(
        "aria-current", "page"
    )


def set_up_table(server: Server, browser: Any) -> tuple[Any, dict[str, str]]:
    """The host's phone starts a maze game of Red and Blue; the codes of every seat."""
    expect = sync_api.expect
    host = phone(browser)
    host.on("dialog", lambda dialog: dialog.accept())
    host.goto(server.url + "/")
    expect(host).to_have_url(server.url + "/host")
    host.get_by_role("button", name=re.compile("Start")).first.click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        str(li.get_attribute("data-seat")): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_figures_in_the_camp(server, 2)
    return host, codes


def join(browser: Any, server: Server, code: str) -> Any:
    page = phone(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{server.url}/join/{code}")
    page.locator("#join").click()
    page.wait_for_url(re.compile(r"/(mummy|seeker|table|watch)$"))
    return page


def test_every_seat_moves_through_the_three_games_by_the_menu(server: Server, browser: Any):
    expect = sync_api.expect
    host, codes = set_up_table(server, browser)

    # The table screen says so when the seeker whose turn it is has no phone yet.
    pages = {"table": join(browser, server, codes["table"])}
    expect(pages["table"].locator("#absent")).to_contain_text("Red has not joined")
    for seat in ("mummy", "seeker0", "seeker1", "watch"):
        pages[seat] = join(browser, server, codes[seat])
    expect(pages["table"].locator("#absent")).to_be_hidden()

    # From each seat's page through all three games and the rules by the menu, and back.
    for seat, own in SEAT_PAGES.items():
        page = pages[seat]
        expect(page).to_have_url(server.url + own)
        assert menu_keys(page) == ["maze", "lootnrun", "crypt", "rules"], seat
        go(page, "lootnrun", server.url + "/lootnrun")
        go(page, "crypt", server.url + "/crypt")
        go(page, "rules", server.url + "/rules/crypt")
        go(page, "lootnrun", server.url + "/lootnrun")
        go(page, "maze", server.url + own)
    # The host's phone has the host page in its menu, and the other seats do not.
    assert menu_keys(host) == ["lootnrun", "crypt", "host", "rules"]
    shot(pages["seeker0"], "flow-menu")

    # The crypt before it holds the board: it says so, and nothing invites a tap.
    red = pages["seeker0"]
    go(red, "crypt", server.url + "/crypt")
    expect(red.locator("#board-game")).to_contain_text("The board plays the mummy maze")
    expect(red.locator(".sq.hint")).to_have_count(0)
    expect(red.locator(".sq:disabled")).to_have_count(64)
    red.locator('.sq[data-square="c3"]').click(force=True)
    expect(red.locator("#error")).to_be_hidden()
    offer = red.locator("#board-moved a")
    expect(offer).to_have_text("Back to the maze")  # the board is the maze's: one tap back
    offer.click()
    expect(red).to_have_url(server.url + "/seeker")

    # The host gives the board to the crypt: every seat's maze page offers it in one tap,
    # and offers nothing the paused maze game would refuse (Red's throw a moment ago).
    expect(red.get_by_role("button", name=re.compile("Roll"))).to_be_visible()
    server.post("/api/host/board", {"game": "crypt", "pause": True})
    for seat in ("mummy", "seeker0", "seeker1", "table"):
        page = pages[seat]
        expect(page.locator("#board-moved a")).to_be_visible()
        expect(page.locator("#controls button:visible, .maze .reach")).to_have_count(0)
        offer = page.locator("#board-moved a")
        expect(offer).to_have_text("Open Into the Crypt")
        expect(page.locator("#board-moved")).to_contain_text("The board plays Into the Crypt now")
        at_least_44(page, "#board-moved a")
        offer.click()
        expect(page).to_have_url(server.url + "/crypt")
        expect(page.locator(".sq:disabled")).to_have_count(0)
    shot(pages["seeker0"], "flow-crypt")
    # The watching seat shows the game on the board inside its own page.
    expect(pages["watch"].locator("#other-game")).to_be_visible()

    # Loot N Run takes the board: the crypt's pages offer it, the maze is not offered.
    server.post("/api/host/board", {"game": "lootnrun"})
    for seat in ("mummy", "seeker0", "seeker1", "table"):
        page = pages[seat]
        expect(page.locator("#board-moved a")).to_have_text("Open Loot N Run")
        expect(page.locator(".sq:disabled")).to_have_count(64)
        page.locator("#board-moved a").click()
        expect(page).to_have_url(server.url + "/lootnrun")

    # The board comes back to the maze: every page offers the way back to its seat.
    server.post("/api/host/board", {"game": "mummy"})
    for seat in ("mummy", "seeker0", "seeker1", "table"):
        page = pages[seat]
        expect(page.locator("#board-moved a")).to_have_text("Back to the maze")
        page.locator("#board-moved a").click()
        expect(page).to_have_url(server.url + SEAT_PAGES[seat])
        expect(page.locator("#board-moved")).to_be_hidden()
    expect(pages["watch"].locator("#other-game")).to_be_hidden()

    # German: the same menu in the words of the original game's box.
    red.locator('.language button[data-lang="de"]').click()
    expect(red.locator('.table-menu a[data-menu="maze"]')).to_have_text("Das Labyrinth")
    expect(red.locator('.table-menu a[data-menu="rules"]')).to_have_text("Regeln")
    red.locator('.language button[data-lang="en"]').click()
    expect(red.locator('.table-menu a[data-menu="maze"]')).to_have_text("The maze")

    # The host's board check has the same menu, back to the host page in one tap.
    host.goto(server.url + "/check")
    assert menu_keys(host) == ["lootnrun", "crypt", "host", "rules"]
    go(host, "host", server.url + "/host")


def held_answer(page: Any, pattern: str, ask: Any) -> tuple[Any, Any]:
    """``ask()`` on ``page``: the answer to ``pattern`` is read now and held back."""
    held: list[tuple[Any, Any]] = []
    page.route(pattern, lambda route: held.append((route, route.fetch())))
    ask()
    for _ in range(160):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, f"the page asked for no {pattern}"
    return held[0]


def back_to_the_maze_before(server: Server, page: Any, pattern: str, held: Any) -> Any:
    """The host gives the board back to the maze, then ``held`` (read before) arrives:
    the page still offers the way back; the offer."""
    expect = sync_api.expect
    server.post("/api/host/board", {"game": "mummy"})
    offer = page.locator("#board-moved a")
    expect(offer).to_have_text("Back to the maze")
    expect(offer).to_be_visible()
    route, answer = held
    with page.expect_response(pattern):
        route.fulfill(response=answer)
    page.wait_for_timeout(500)  # the page has read the late answer
    expect(offer).to_be_visible(timeout=100)
    return offer


def test_an_answer_read_before_the_board_came_back_does_not_hide_the_way_back(
    server: Server, browser: Any
):
    """A page that opens Loot N Run as the host gives the board back to the maze: its
    first answer, read before the handover, comes after the stream's news of it.  The
    page keeps offering the way back (it once took the older answer and hid the link)."""
    _, codes = set_up_table(server, browser)
    red = join(browser, server, codes["seeker0"])
    server.post("/api/host/board", {"game": "lootnrun", "pause": True})
    view = "**/lootnrun/api/view"
    held = held_answer(red, view, lambda: red.goto(server.url + "/lootnrun"))
    back_to_the_maze_before(server, red, view, held).click()
    sync_api.expect(red).to_have_url(server.url + "/seeker")


def test_the_crypt_takes_no_answer_read_before_the_board_came_back(server: Server, browser: Any):
    """The crypt's page renders every answer it gets (a move's, a state's): one read
    before the host gave the board back to the maze, coming after the stream's news of
    it, leaves the way back offered and the crypt's squares still closed."""
    expect = sync_api.expect
    _, codes = set_up_table(server, browser)
    red = join(browser, server, codes["seeker0"])
    server.post("/api/host/board", {"game": "crypt", "pause": True})
    red.goto(server.url + "/crypt")
    expect(red.locator(".sq:disabled")).to_have_count(0)  # the crypt holds the board
    state = "**/crypt/api/state"
    held = held_answer(red, state, lambda: red.evaluate("() => { api('/crypt/api/state'); }"))
    back_to_the_maze_before(server, red, state, held)
    expect(red.locator(".sq:disabled")).to_have_count(64, timeout=100)


def test_the_small_faults_a_phone_shows(server: Server, browser: Any):
    """Show where I can go is kept across a reload; /sim's rows 10-12 read 10-12; the
    crypt's move numbers stay inside the margin; Loot N Run: no board button for a
    player, one tap reveals nothing for a player without cards."""
    expect = sync_api.expect
    host, codes = set_up_table(server, browser)

    # The hint switch is this phone's choice: a reload keeps it.
    red = join(browser, server, codes["seeker0"])
    expect(red.locator("#hint")).not_to_be_checked()
    red.evaluate("document.getElementById('hint').click()")
    red.reload()
    expect(red.locator("#hint")).to_be_checked()

    # /sim: the right-hand labels of rows 10 to 12 stay inside the drawing.
    host.goto(server.url + "/sim")
    expect(host.locator(".edge-label")).not_to_have_count(0)
    labels = host.evaluate(
        """() => { const svg = document.querySelector('#board svg');
                   const v = svg.viewBox.baseVal;
                   return [...svg.querySelectorAll('.edge-label')].map(t => {
                     const b = t.getBBox();
                     const right = v.x + v.width + 0.5;
                     return [t.textContent, b.x >= v.x - 0.5 && b.x + b.width <= right];
                   }); }"""
    )
    assert [t for t, inside in labels if not inside] == []
    assert sum(1 for t, _ in labels if t in ("10", "11", "12")) == 6

    # The crypt: eleven moves, and each number of the history inside the page's margin.
    server.post("/api/host/board", {"game": "crypt", "pause": True})
    for _ in range(11):
        hint = server.get("/crypt/api/state")["hints"][0]
        server.post("/crypt/api/command", hint)
    red.goto(server.url + "/crypt")
    expect(red.locator("#history li")).to_have_count(5)
    expect(red.locator("#history li").first).to_contain_text(re.compile(r"^11\."))
    lefts = red.evaluate(
        """() => [...document.querySelectorAll('#history li')].map(li => {
             const r = li.getBoundingClientRect();
             const p = li.querySelector('.ply').getBoundingClientRect();
             const m = document.querySelector('main').getBoundingClientRect();
             return [p.left, r.left, m.left, getComputedStyle(li).listStyleType]; })"""
    )
    for ply, item, main, marker in lefts:
        assert ply >= main and ply >= item >= 0 and marker == "none", lefts
    shot(red, "flow-crypt-history")

    # Loot N Run: only the host's page has "Show on the board".
    game = {"players": [{"name": "Ann", "colour": "red"}, {"name": "Ben", "colour": "blue"}]}
    server.post("/lootnrun/api/new", {**game, "show_on_board": False})
    red.goto(server.url + "/lootnrun")
    expect(red.locator("#turn")).to_contain_text("Ann")
    expect(red.locator("#board-toggle")).to_be_hidden()
    host.goto(server.url + "/lootnrun")
    expect(host.locator("#board-toggle")).to_be_visible()

    # Ben holds no card when Ann reaches the target: one tap reveals nothing.
    view = server.get("/lootnrun/api/view")
    server.post(
        "/lootnrun/api/command",
        {"cmd": "correction", "player": 1, "points": 1, "reason": "test", "cards": 0},
    )
    server.post(
        "/lootnrun/api/command",
        {"cmd": "correction", "player": 0, "points": view["target"], "reason": "test", "cards": 2},
    )
    ben = red.locator("#reveal-1")
    expect(ben).to_contain_text("Ben: no cards to reveal")
    ben.click()
    expect(red.locator("#sheet")).to_be_hidden()
    wait(lambda: server.get("/lootnrun/api/view")["players"][1]["revealed"])
    expect(red.locator("#reveal-1")).to_have_count(0)
    expect(red.locator("#reveal-0")).to_contain_text("Ann reveals")
