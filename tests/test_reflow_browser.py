"""Zoom and reflow in chromium: no page disables zoom, and at 320 CSS px wide, and on a
phone with its text at 200 %, every page keeps all its content and controls without
sideways scrolling (only the maze's own scroller may scroll sideways)."""

from __future__ import annotations

import json
from typing import Any

from tests.test_axe_browser import device
from tests.test_browser import sync_api
from tests.test_end_browser import browser, put_board_right, site

__all__ = ["browser", "site"]

#: Elements of a page allowed to scroll sideways themselves: the maze's scroller.
SCROLLERS = ".board.zoomable, .reader-grid"

#: What spills past the page's right edge (the maze's scroller and what is in it aside),
#: and whether the page itself scrolls sideways.
OVERFLOW = """scrollers => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest(scrollers) || e.closest('[hidden]')) continue;
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (r.right > width + 1 || r.left < -1) {
      const cls = typeof e.className === 'string' ? e.className : '';
      const id = e.id ? '#' + e.id : '';
      const tag = e.tagName.toLowerCase();
      out.push(`${tag}${id}.${cls} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  return {page: document.scrollingElement.scrollWidth - width, out: out.slice(0, 5)};
}"""

BIG_TEXT = "html { font-size: 200% !important; }"


def reflows(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(OVERFLOW, SCROLLERS)
    return result


def test_every_page_reflows_at_320_px_and_200_percent_text(site, browser) -> None:
    from companion.games.mummy.state import Phase
    from companion.service.autoplay import play_on

    appliance, url = site
    service = appliance.service
    expect = sync_api.expect
    host = device(browser)
    host.goto(url + "/")
    expect(host).to_have_url(url + "/host")
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_board_right(appliance)
    play_until = lambda done: play_on(appliance, until=done)  # noqa: E731
    play_until(lambda: service.game.current.phase is Phase.MUMMY_MOVING)

    found: dict[str, Any] = {}
    pages = {
        "landing": "/",
        "host": "/host",
        "past games": "/host/games",
        "sim": "/sim",
        "check": "/check",
        "crypt": "/crypt",
        "loot n run": "/lootnrun",
        "rules": "/rules/mummy",
        "join": f"/join/{codes['seeker1']}",
    }
    seats = {"mummy": "/mummy", "seeker0": "/seeker", "table": "/table", "watch": "/watch"}
    for width, text in ((320, ""), (390, BIG_TEXT)):
        tag = f"{width} px" + (", 200 % text" if text else "")
        for name, path in {**pages, **seats}.items():
            page = device(browser, width, 700)
            if name in seats:
                page.goto(f"{url}/join/{codes[name]}")
                page.locator("#join").click()
                page.wait_for_selector("#guidance:not(:empty)")
            elif name != "landing":
                page.context.add_cookies(host.context.cookies())
            page.goto(url + path)
            page.wait_for_selector("main", state="attached")
            # Zoom is never turned off.
            viewport = page.locator('meta[name="viewport"]').get_attribute("content") or ""
            assert "user-scalable=no" not in viewport and "maximum-scale" not in viewport
            if text:
                page.add_style_tag(content=text)
            page.wait_for_timeout(300)
            result = reflows(page)
            if result["page"] > 0 or result["out"]:
                found[f"{name} at {tag}"] = result
            page.context.close()
    assert not found, json.dumps(found, indent=1)


#: The centres of the "now" bar's visible controls (buttons of the dice, the step pad, the
#: actions) on the page, as x in CSS px.
CONTROLS_X = """() => [...document.querySelectorAll('#controls button')]
  .filter(b => !b.closest('[hidden]') && b.getBoundingClientRect().width)
  .map(b => { const r = b.getBoundingClientRect(); return r.left + r.width / 2; })"""


def test_the_left_hand_layout_puts_the_controls_on_the_left_at_390_px(site, browser) -> None:
    """A per-device switch in the header (remembered like the screen-reader mode) puts
    the mummy's step pad and buttons on the left half of a 390 px phone, with nothing
    scrolling sideways; without it the buttons span the width."""
    from companion.games.mummy.state import Phase
    from companion.service.autoplay import play_on

    appliance, url = site
    expect = sync_api.expect
    host = device(browser)
    host.goto(url + "/host")
    if host.get_by_role("button", name="Start the game").count():
        host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li").first).to_be_visible()
    code = host.locator('#seats li[data-seat="mummy"] .code').inner_text()
    put_board_right(appliance)
    play_on(appliance, until=lambda: appliance.service.game.current.phase is Phase.MUMMY_MOVING)
    page = device(browser, 390, 844)
    page.goto(f"{url}/join/{code}")
    page.locator("#join").click()
    expect(page.locator("#actions button").first).to_be_visible()
    switch = page.locator("#left-hand")
    expect(switch).to_have_attribute("aria-pressed", "false")
    assert max(page.evaluate(CONTROLS_X)) > 195, "the buttons span the width by default"
    switch.click()
    for _ in range(2):  # switched, then remembered on the device after a reload
        expect(page.locator("#left-hand")).to_have_attribute("aria-pressed", "true")
        xs = page.evaluate(CONTROLS_X)
        assert xs and max(xs) < 195, xs
        result = reflows(page)
        assert result["page"] <= 0 and not result["out"], result
        page.reload()
        expect(page.locator("#actions button").first).to_be_visible()
    page.context.close()
    host.context.close()
