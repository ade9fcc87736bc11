"""The screen-reader mode in chromium, keyboard only: a seeker's turn up to the figure a
sighted neighbour moves, and a whole mummy turn, with what a screen reader reads at each
step asserted on the accessibility tree (Playwright's ARIA snapshots).

The mode is found and switched on with the Tab key; the maze is then a grid the arrow
keys walk, each cell saying its name, walls and what is on it as far as the seat knows;
Enter takes a cell; L, T and M say the last announcement, whose turn it is and where the
mummy stands.  ``$READER_TRANSCRIPT`` names a file for what the reader reads over the
mummy's turn.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tests.test_axe_browser import Axe, device, host_starts_a_game
from tests.test_browser import sync_api
from tests.test_end_browser import browser, site

__all__ = ["browser", "site"]


class Reader:
    """A keyboard and the ears of a screen reader on one page: what gets focus is read
    (its ARIA snapshot), and what the live regions say."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.heard: list[str] = []

    def focused(self) -> str:
        if self.page.evaluate("document.activeElement === document.body"):
            return "(the page)"
        snapshot: str = self.page.locator(":focus").aria_snapshot()
        return snapshot

    def tab_to(self, name: str | re.Pattern[str], limit: int = 120) -> str:
        """Tab (and only Tab) until the focused element's snapshot matches ``name``."""
        for _ in range(limit):
            self.page.keyboard.press("Tab")
            snapshot = self.focused()
            if re.search(name, snapshot) if isinstance(name, re.Pattern) else name in snapshot:
                self.heard.append(f"[Tab] {snapshot}")
                return snapshot
        raise AssertionError(f"Tab never reached {name!r}")

    def press(self, key: str) -> str:
        self.page.keyboard.press(key)
        snapshot = self.focused()
        self.heard.append(f"[{key}] {snapshot}")
        return snapshot

    def says(self, text: str | re.Pattern[str]) -> None:
        """The hotkey's answer (a status the reader reads out)."""
        sync_api.expect(self.page.locator("#reader-say")).to_have_text(text)
        self.heard.append(f"  (status) {self.page.locator('#reader-say').inner_text()}")

    def log(self) -> str:
        snapshot: str = self.page.locator("#reader-log").aria_snapshot()
        return snapshot

    def go_to_cell(self, cell: int, width: int) -> str:
        """Walk the grid with the arrow keys from the focused cell to ``cell``."""
        at = int(self.page.evaluate("document.activeElement.dataset.cell"))
        snapshot = self.focused()
        for _ in range(abs(cell // width - at // width)):
            snapshot = self.press("ArrowDown" if cell > at else "ArrowUp")
        for _ in range(abs(cell % width - at % width)):
            snapshot = self.press("ArrowRight" if cell % width > at % width else "ArrowLeft")
        assert int(self.page.evaluate("document.activeElement.dataset.cell")) == cell
        return snapshot


def cell_name(cell: int, width: int) -> str:
    return f"{chr(65 + cell % width)}{cell // width + 1}"


def mummy_at(service: Any) -> str:
    """Where a hotkey says the mummy stands."""
    maze = service.game.setup.maze
    at = service.game.current.mummy
    if at >= maze.width * maze.height:
        return "The mummy is in the sarcophagus."
    return f"The mummy stands on {cell_name(at, maze.width)}."


def join_in_reader_mode(browser: Any, url: str, code: str) -> Reader:
    """A phone joins its seat, then finds the mode with Tab and switches it on."""
    page = device(browser)
    page.goto(f"{url}/join/{code}")
    page.locator("#join").click()
    page.wait_for_selector("#guidance:not(:empty)")
    reader = Reader(page)
    page.locator("body").focus()
    snapshot = reader.tab_to("Screen-reader mode")
    assert "pressed" not in snapshot.replace("[pressed=false]", "")
    reader.press("Enter")
    sync_api.expect(page.locator("#reader")).to_have_attribute("aria-pressed", "true")
    sync_api.expect(page.locator("#narrator")).to_be_hidden()  # the reader speaks instead
    assert page.evaluate("narrator.on()") is False
    sync_api.expect(page.get_by_role("grid", name=re.compile("The maze"))).to_be_visible()
    return reader


def test_a_seeker_and_the_mummy_play_by_keyboard_with_a_screen_reader(site, browser) -> None:
    from companion.games.mummy.state import Phase
    from companion.service.autoplay import play_on, wait_until

    appliance, url = site
    service = appliance.service
    expect = sync_api.expect
    _host, codes = host_starts_a_game(browser, site)
    width = service.game.setup.maze.width

    # A seeker's turn: roll, announce, then a sighted neighbour moves the figure.
    red = join_in_reader_mode(browser, url, codes["seeker0"])
    red.press("t")
    red.says(re.compile("Your turn"))
    # The mode is remembered on the device: a reload keeps it.
    red.page.reload()
    red.page.wait_for_selector("#reader-grid")
    expect(red.page.locator("#reader")).to_have_attribute("aria-pressed", "true")
    red.page.locator("body").focus()
    red.tab_to(re.compile(r'button "Roll'))
    red.press("Enter")
    expect(red.page.locator("#guidance")).to_contain_text("Tap a die to announce it")
    for _ in range(5):  # every die the mummy's face: roll again
        if red.page.get_by_role("button", name=re.compile("^announce")).count():
            break
        red.tab_to(re.compile(r'button "Roll again'))
        red.press("Enter")
        red.page.wait_for_timeout(300)
    assert "announce" in red.tab_to(re.compile(r'button "announce'))
    red.press("Enter")
    expect(red.page.locator("#guidance")).to_contain_text("on the board")
    state = red.page.evaluate("fetch('/api/seeker/state').then(r => r.json())")
    home = state["view"]["positions"][0]["node"]
    # The seeker's own figure is on the grid, by name, where the page knows it.
    if home < width * width:
        grid_cell = red.page.locator(f'#reader-grid [data-cell="{home}"]')
        expect(grid_cell).to_have_attribute("aria-label", re.compile("the figure Red"))
    target = state["view"]["legal_destinations"][0]
    appliance.mock_board.lift(service.board.position_of(service.game.current, 0))
    appliance.mock_board.place(target)
    wait_until(lambda: service.game.current.phase is not Phase.SEEKER_MOVING)
    expect(red.page.locator("#guidance")).to_contain_text(re.compile("End your turn|card"))
    red.page.wait_for_timeout(200)
    cell = red.page.locator(f'#reader-grid [data-cell="{target}"]')
    expect(cell).to_have_attribute("aria-label", re.compile("the figure Red"))
    red.page.locator("body").focus()
    red.tab_to("End the turn")
    red.press("Enter")
    expect(red.page.locator("#reader-log")).to_contain_text("Red")
    assert "log" in red.log()

    # The other seeker's turns by the bots, up to the mummy's.
    mummy = join_in_reader_mode(browser, url, codes["mummy"])
    play_on(appliance, until=lambda: service.game.current.phase is Phase.MUMMY_ROLL)
    expect(mummy.page.locator("#guidance")).to_contain_text("mummy die")

    # The mummy's whole turn, keyboard only.
    mummy.press("t")
    mummy.says(re.compile("mummy die"))
    mummy.press("m")
    mummy.says(mummy_at(service))
    mummy.page.locator("body").focus()
    mummy.tab_to("Roll the mummy die")
    mummy.press("Enter")
    expect(mummy.page.locator("#steps")).to_contain_text("left")
    mummy.heard.append(f"  (status) {mummy.page.locator('#guidance').inner_text()}")
    snapshot = mummy.tab_to(re.compile("gridcell"))
    assert re.search(r'gridcell "[A-L]\d+', snapshot)
    while service.game.current.phase is Phase.MUMMY_MOVING:
        steps = mummy.page.evaluate("fetch('/api/mummy/state').then(r => r.json())")["steps"]
        target = steps[0]["cell"]
        snapshot = mummy.go_to_cell(target, width)
        assert f'gridcell "{cell_name(target, width)}' in snapshot
        assert "the mummy can step here" in snapshot
        before = service.published.version
        mummy.press("Enter")
        wait_until(lambda v=before: service.published.version != v)
        # The focused cell now says the mummy stands on it (the reader reads it again).
        mummy.page.wait_for_function(
            "() => /, the mummy(,|$)/.test(document.activeElement.getAttribute('aria-label'))"
        )
        here = mummy.focused()
        mummy.heard.append(f"  (focus) {here}")
        assert re.search(rf'gridcell "{cell_name(target, width)}[^"]*, the mummy', here)
    expect(mummy.page.locator("#reader-log")).to_contain_text("The mummy")
    mummy.press("l")
    mummy.says(re.compile(r"\w"))
    mummy.press("m")
    mummy.says(mummy_at(service))
    mummy.heard.append("  (log) " + mummy.log().replace("\n", " / "))
    log_snapshot = mummy.log()
    assert log_snapshot.startswith('- log "Announcements as they come"')

    # The mode's page passes axe too, grid and log included.
    axe = Axe(url)
    axe.check("mummy: screen-reader mode", mummy.page, "#reader-grid")
    axe.report()

    out = os.environ.get("READER_TRANSCRIPT")
    if out:
        Path(out).write_text("\n".join(mummy.heard) + "\n")
