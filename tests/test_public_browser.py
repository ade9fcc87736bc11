"""The host page live and the watching seat's page in a real browser (Playwright on
Debian's chromium) against ``companion run --mock`` (the fixtures of
``tests/test_browser.py``): the host page follows its stream without polling, its undo
names the action without the cell and never undoes one that came after the confirmed
one, and the watching seat follows the maze without a seeker and the game that holds
the board."""

from __future__ import annotations

import re
from typing import Any

from tests.test_browser import (
    NAVIGATION_MS,
    Server,
    browser,
    phone,
    put_figures_in_the_camp,
    server,
    shot,
    sync_api,
    wait,
)
from tests.test_table_browser import throw_and_announce

#: The module's fixtures, shared with the other browser tests (a server of its own).
__all__ = ["browser", "server"]

CAMP = 144


def test_the_live_host_page_and_the_watching_seat(server: Server, browser: Any) -> None:
    expect = sync_api.expect
    host = phone(browser)
    status_polls: list[str] = []
    host.on("request", lambda r: status_polls.append(r.url) if "/host/status" in r.url else None)
    host.goto(server.url + "/")
    expect(host).to_have_url(server.url + "/host")
    host.get_by_label("Real dice: players enter what they throw").check()
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_figures_in_the_camp(server, 2)

    # The watching seat: the maze with the mummy, no figure of a seeker.
    watcher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    watcher.set_default_timeout(8000)
    watcher.set_default_navigation_timeout(NAVIGATION_MS)
    watcher.goto(f"{server.url}/join/{codes['watch']}")
    watcher.get_by_role("button", name=re.compile("Join as")).click()
    expect(watcher).to_have_url(server.url + "/watch")
    expect(watcher.locator("#guidance")).to_contain_text("Red's turn")
    expect(watcher.locator(".mummy-piece")).to_have_count(1)
    expect(watcher.locator("#players .player")).to_have_count(3)  # two seekers, the mummy

    red = phone(browser)
    red.goto(f"{server.url}/join/{codes['seeker0']}")
    red.locator("#join").click()
    targets = throw_and_announce(red, ["3", "3", "2", "4", "arrow"], "3")
    # The host page hears of it on its stream, without reloading or polling.
    undo = host.locator("#undo")
    expect(undo).to_have_text("Undo: Red announced 3", timeout=2500)
    expect(host.locator("#host-guidance")).to_contain_text("Red's turn: move Red 3 cells")
    expect(watcher.locator("#log")).to_contain_text("Red announces 3")

    # The host taps Undo having seen "announced 3"; while the dialog asks, Red moves.
    # The companion undoes nothing and names the move (without its cell); asked again,
    # the host confirms and the move is undone.
    target = targets[0]
    dialogs: list[str] = []

    def answer(dialog: Any) -> None:
        dialogs.append(dialog.message)
        if len(dialogs) == 1:
            server.toggle(CAMP)
            server.toggle(target)
            moved = "Red moved a figure"
            wait(lambda: server.get("/api/host/status")["game"]["last_action"] == moved)
        dialog.accept()

    host.on("dialog", answer)
    undo.click()
    expect(host.locator("#host-notice")).to_have_text(
        "The host took back Red's action: moved a figure"
    )
    assert dialogs[0] == "Undo the last action: Red announced 3?"
    assert dialogs[1] == (
        'The last action is now "Red moved a figure" (it came in the meantime): undo that instead?'
    )
    expect(undo).to_have_text("Undo: Red announced 3")
    status = server.get("/api/host/status")
    assert status["game"]["phase"] == "seeker_moving"
    # The host page never says where the figure is: restore steps are on the others'.
    expect(red.locator("#guidance")).to_contain_text("take the figure off")
    assert not re.search(r"\b[A-L](1[0-2]|[1-9])\b", host.locator("main").inner_text())
    expect(watcher.locator(".piece[data-colour]")).to_have_count(0)
    shot(host, "host-live")
    shot(watcher, "watching")
    assert status_polls == []  # the page followed its stream

    # The watching seat follows the game that holds the board, and comes back.
    server.toggle(target)
    server.toggle(CAMP)
    server.wait_board_ok()
    # (the host's dialog handler above accepts every later question: pausing the maze)
    host.get_by_role("button", name="Give the board to Into the Crypt").click()
    expect(watcher.locator("#other-game")).to_be_visible()
    expect(watcher.locator("#elsewhere")).to_contain_text("The board plays Into the Crypt")
    expect(watcher.frame_locator("#other-game").locator("#board-game")).to_contain_text(
        "Into the Crypt"
    )
    expect(watcher.locator("#board")).to_be_hidden()
    host.get_by_role("button", name="Give the board back to the maze").click()
    expect(watcher.locator("#other-game")).to_be_hidden()
    expect(watcher.locator("#board")).to_be_visible()
    expect(watcher.locator("#guidance")).not_to_contain_text("paused")

    # The owner plays the mummy: the host's own phone takes the mummy's seat ("Use this
    # device"), plays on /mummy, and its host page still names no cell; /sim is refused
    # in words.
    expect(host.locator("#board-owner")).to_have_attribute("data-active", "mummy")
    host.locator('[data-seat="mummy"] summary').click()
    host.locator('[data-seat="mummy"]').get_by_role("link", name="Use this device").click()
    host.get_by_role("button", name="Join as the Mummy").click()
    expect(host).to_have_url(server.url + "/mummy")
    expect(host.locator("#guidance")).to_contain_text("Red's turn")
    host.get_by_role("link", name="Host").click()
    expect(host).to_have_url(server.url + "/host")
    expect(undo).to_have_text("Undo: Red announced 3")
    server.toggle(CAMP)
    server.toggle(target)
    expect(undo).to_have_text("Undo: Red moved a figure")
    assert not re.search(r"\b[A-L](1[0-2]|[1-9])\b", host.locator("main").inner_text())
    refused = host.goto(server.url + "/sim")
    assert refused is not None and refused.status == 403
    expect(host.locator("main")).to_contain_text("This phone holds the mummy's seat")
    shot(host, "host-as-mummy")
