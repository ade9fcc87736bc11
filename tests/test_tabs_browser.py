"""Tabs never block each other (``static/live.js``): a phone's browser opens only six
connections to one address, and every open tab of the companion held one for its live
stream, so with ten tabs of one seat the seventh stayed blank.  A hidden tab now lets go
of its stream (Page Visibility) and opens a new one when shown, catching up at once.

In chromium at 390x844 against ``companion run --mock``.  Headless chromium shows every
tab at once (none is ever hidden), so each tab gets the one thing a phone's browser
does to a tab put in the background: ``document.hidden`` turns true and a
``visibilitychange`` event comes.  The six-connection limit is chromium's own."""

from __future__ import annotations

from typing import Any

from tests.test_browser import Server, browser, server, sync_api
from tests.test_table_browser import seats, throw_and_announce

#: The module's fixtures, shared with the other browser tests (a server of its own).
__all__ = ["browser", "seats", "server"]

#: What a phone's browser does to a tab it puts in the background, and back.
VISIBILITY = """
(() => {
  let hidden = false;
  Object.defineProperty(Document.prototype, "hidden", {get: () => hidden, configurable: true});
  Object.defineProperty(Document.prototype, "visibilityState",
                        {get: () => (hidden ? "hidden" : "visible"), configurable: true});
  window.setHidden = value => {
    hidden = value;
    document.dispatchEvent(new Event("visibilitychange"));
  };
})();
"""

TABS = 10


def test_ten_tabs_of_one_seat_all_load_and_the_one_in_front_is_live(
    server: Server, browser: Any, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    context = seats["table"].context
    context.add_init_script(VISIBILITY)
    tabs: list[Any] = []
    for _ in range(TABS):
        if tabs:
            tabs[-1].evaluate("setHidden(true)")  # the tab before goes to the background
        tab = context.new_page()
        tab.set_default_timeout(8000)
        tab.goto(server.url + "/table")
        expect(tab.locator("#guidance")).not_to_be_empty()  # it loaded: not left blank
        expect(tab.locator("#link")).to_have_class("link ok")  # its stream is open
        tabs.append(tab)
    # The one in front follows the game: Red's throw reaches it.
    throw_and_announce(seats["seeker0"], ["3", "3", "2", "4", "arrow"], "3")
    expect(tabs[-1].locator("#announced")).to_contain_text("Red announced 3")
    # The first tab, shown again, catches up with what happened while it was hidden.
    first = tabs[0]
    expect(first.locator("#announced")).to_be_empty()
    tabs[-1].evaluate("setHidden(true)")
    first.evaluate("setHidden(false)")
    expect(first.locator("#announced")).to_contain_text("Red announced 3")
    for tab in tabs:
        tab.close()
