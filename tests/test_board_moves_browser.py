"""Loot N Run's page on a 360 px phone while another game holds the board: its notices
keep a margin from the screen's edge and say each thing once, and its header button
asks before it moves the board, saying what the move pauses (issue 37)."""

from __future__ import annotations

import re
from typing import Any

from tests.test_browser import (
    CHROMIUM,
    NAVIGATION_MS,
    Server,
    browser,
    put_figures_in_the_camp,
    server,
    sync_api,
)

assert CHROMIUM.exists()

__all__ = ["browser", "server"]  # the browser tests' shared fixtures (one each per module)

SMALL = {"width": 360, "height": 740}
NOTICES = "#board-moved, .notices .notice"


def small_phone(browser: Any) -> Any:
    page = browser.new_context(viewport=SMALL, device_scale_factor=2, has_touch=True).new_page()
    page.set_default_timeout(8000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    return page


def shown(page: Any) -> list[dict[str, Any]]:
    """The notices on screen: their text and where their box starts and ends."""
    return list(
        page.evaluate(
            f"""() => [...document.querySelectorAll({NOTICES!r})]
                 .filter(n => n.offsetParent !== null)
                 .map(n => {{ const r = n.getBoundingClientRect();
                   return {{text: n.innerText.trim(), left: r.left, right: r.right}}; }})"""
        )
    )


def test_loot_n_runs_notices_have_margins_and_say_it_once_and_its_button_asks(
    server: Server, browser: Any
) -> None:
    expect = sync_api.expect
    host = small_phone(browser)
    host.goto(server.url + "/")  # the first device is the host
    host.get_by_role("button", name=re.compile("Start the game")).click()
    expect(host.locator("#seats li")).not_to_have_count(0)
    put_figures_in_the_camp(server, 2)
    host.goto("about:blank")  # the host page reloads when the board moves: not mid-way
    game = {"players": [{"name": "Ann", "colour": "red"}, {"name": "Ben", "colour": "blue"}]}
    server.post("/lootnrun/api/new", {**game, "show_on_board": False})
    server.post("/api/host/board", {"game": "crypt", "pause": True})

    host.goto(server.url + "/lootnrun")
    expect(host.locator("#board-moved")).to_contain_text("Into the Crypt")
    expect(host.locator("#maze-paused")).to_be_visible()
    notices = shown(host)
    texts = [n["text"] for n in notices]
    assert len(texts) == len(set(texts)), texts
    assert sum("plays Into the Crypt" in t for t in texts) == 1, texts  # said once
    for notice in notices:  # a margin from both edges of the 360 px screen
        assert notice["left"] >= 8 and notice["right"] <= SMALL["width"] - 8, notices

    # "Show on the board" asks first: it names what waits and what stays paused.
    asked: list[str] = []
    answers = [False, True, False]

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        if answers.pop(0):
            dialog.accept()
        else:
            dialog.dismiss()

    host.on("dialog", answer)
    toggle = host.locator("#board-toggle")
    toggle.click()
    expect(toggle).to_have_text("Show on the board")  # declined: nothing moved
    assert asked[0] == (
        "Give the board to Loot N Run? Into the Crypt waits until it has the board again. "
        "The maze game stays paused."
    )
    assert server.get("/api/host/status")["board"]["active_game"] == "crypt"
    toggle.click()
    expect(toggle).to_have_text("Back to the maze")
    # "Back to the maze" asks too, and says what leaves the board and what goes on.
    toggle.click()
    assert asked[2] == (
        "Give the board back to the maze? Loot N Run's score track leaves the board; its "
        "game goes on on the phones. The maze game goes on once its figures stand where "
        "they were."
    )
    expect(toggle).to_have_text("Back to the maze")  # declined: the board stays
    assert server.get("/api/host/status")["board"]["active_game"] == "lootnrun"
