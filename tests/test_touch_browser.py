"""Phone pages a thumb can use (issue 26): the mummy's move in one gesture.

In chromium at 390x844 against ``companion run --mock``: the mummy taps a distant lit
cell, sees the way on its page, confirms with one "Go", and the companion plays the
steps one by one (each announced in the log, the table following)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.test_browser import Server, browser, phone, seeker_turn, server, shot, sync_api
from tests.test_table_browser import seats

#: The module's fixtures, shared with the other browser tests (a server of its own).
__all__ = ["browser", "seats", "server"]


def cell_name(cell: int) -> str:
    return f"{chr(65 + cell % 12)}{cell // 12 + 1}"


def test_the_mummy_goes_to_a_cell_in_one_gesture(server: Server, seats: dict[str, Any]) -> None:
    expect = sync_api.expect
    mummy, table = seats["mummy"], seats["table"]
    red_at = seeker_turn(server, seats["seeker0"], ["2", "2", "3", "4", "arrow"], "2", 144)
    blue_at = seeker_turn(server, seats["seeker1"], ["1", "2", "3", "4", "arrow"], "3", 145)

    expect(mummy.locator("#guidance")).to_contain_text("throw the mummy die")
    mummy.get_by_role("button", name="the die shows 6").click()
    expect(mummy.locator("#steps")).to_have_text("6 steps left")
    state = mummy.evaluate("fetch('/api/mummy/state').then(r => r.json())")
    # A cell four steps away whose way passes no seeker (the page cannot know: the test does).
    route = next(
        r for r in state["routes"] if len(r["path"]) == 4 and not {red_at, blue_at} & set(r["path"])
    )
    to = route["cell"]
    expect(mummy.locator(f'.maze .reach[data-cell="{to}"]')).to_have_count(1)
    mummy.locator(f'.maze rect.cell[data-cell="{to}"]').click()
    go = mummy.locator("#go")
    expect(go).to_have_text(f"Go to {route['name']} (4 steps)")
    expect(mummy.locator(".maze .route")).to_have_count(1)
    expect(mummy.locator(f'.maze .route-end[data-cell="{to}"]')).to_have_count(1)
    assert mummy.locator(".maze .route").get_attribute("points").count(",") == 5  # M + 4 cells
    shot(mummy, "mummy-route")
    assert too_small(mummy) == []  # the mummy's controls while it moves: the pad, "Go"
    # Tapping another cell picks it instead; tapping the first again picks it again.
    other = next(r for r in state["routes"] if len(r["path"]) == 3)
    mummy.locator(f'.maze rect.cell[data-cell="{other["cell"]}"]').click()
    expect(go).to_have_text(f"Go to {other['name']} (3 steps)")
    mummy.locator(f'.maze rect.cell[data-cell="{to}"]').click()
    expect(go).to_have_text(f"Go to {route['name']} (4 steps)")
    go.click()

    # One "Go": the companion plays four single steps, each announced, like taps.
    expect(mummy.locator("#steps")).to_have_text("2 steps left", timeout=10000)
    steps = [
        f"The mummy steps to {cell_name(c)} ({5 - i} left)." for i, c in enumerate(route["path"])
    ]
    log = mummy.locator("#log li").all_inner_texts()
    assert [t for t in reversed(log) if t.startswith("The mummy steps to")] == steps
    expect(table.locator(f'.mummy-piece[data-node="{to}"]')).to_have_count(1)
    expect(mummy.locator(".maze .route")).to_have_count(0)
    # Step taps stay: an arrow still takes a single step.
    mummy.locator(".pad button.arrow").first.click()
    expect(mummy.locator("#steps")).to_have_text("1 step left")
    # A cell out of reach is refused in words and changes nothing.
    far = mummy.evaluate(
        "fetch('/api/mummy/command', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify({cmd: 'mummy_go', to: 'A1'})})"
        ".then(r => r.json())"
    )
    if 0 not in [r["cell"] for r in far["state"]["routes"]]:
        assert re.match(r"The mummy cannot reach A1 with 1 steps? left\.", far["error"])
    expect(mummy.locator("#steps")).to_have_text("1 step left")


#: What a thumb taps: links, buttons, fields, anything styled as tappable (a maze cell on
#: the mummy's page, a square of the crypt, a cell of /sim). A checkbox or radio button
#: is measured by its label, which takes the tap; a part inside a control is the control.
MEASURE = """() => {
  const controls = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
    + '[role=button], [onclick], [tabindex]:not([tabindex="-1"])';
  const tappable = e => e.matches(controls) || getComputedStyle(e).cursor === 'pointer';
  const small = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!tappable(e) || (e.parentElement && e.parentElement.closest(controls))) continue;
    if (e.closest('[hidden], [aria-hidden=true]')) continue;
    const style = getComputedStyle(e);
    if (style.visibility === 'hidden' || style.pointerEvents === 'none') continue;
    let box = e;
    if (e.matches('input[type=checkbox], input[type=radio]') && e.closest('label')) {
      box = e.closest('label');
    }
    const r = box.getBoundingClientRect();
    if (!r.width && !r.height) continue;  // not shown
    if (r.width < 43.5 || r.height < 43.5) {
      const name = (e.getAttribute('aria-label') || e.textContent || e.id || '').trim();
      small.push(`${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''} `
        + `"${name.slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return small;
}"""


#: The narrowest phone the pages are made for.
NARROW = {"width": 360, "height": 740}

NEW_LOOT_N_RUN = """players => fetch('/lootnrun/api/new', {method: 'POST',
  credentials: 'same-origin', headers: {'Content-Type': 'application/json'},
  body: JSON.stringify({players})}).then(r => r.status)"""

#: Every text naming a square, a track space or a slot (the crypt's ranks and files, Loot
#: N Run's space numbers, the maze's edge labels and pieces' letters): how many are shown,
#: and those under 12 CSS px as drawn (an SVG text's font size times its drawing's scale;
#: a square's name that something else took the place of counts as 0 px).
SMALL_PLACE_TEXT = """() => {
  const sizes = [];
  for (const sq of document.querySelectorAll(".sq[data-rank], .sq[data-file]")) {
    if (!sq.getBoundingClientRect().width) continue;
    for (const [pseudo, name] of [["::before", sq.dataset.rank], ["::after", sq.dataset.file]]) {
      if (!name) continue;
      const style = getComputedStyle(sq, pseudo);  // a hint's mark must not hide the name
      const shown = style.content.startsWith(`"${name}"`);
      sizes.push([`square ${name}`, shown ? parseFloat(style.fontSize) : 0]);
    }
  }
  const svgTexts = "svg text.space-no, svg text.edge-label, svg text.piece-letter";
  for (const t of document.querySelectorAll(svgTexts)) {
    if (!t.getBoundingClientRect().width) continue;
    const scale = t.getScreenCTM().a;
    sizes.push([`${t.getAttribute("class")} ${t.textContent}`,
                parseFloat(getComputedStyle(t).fontSize) * scale]);
  }
  const small = sizes.filter(([, px]) => px < 11.95)
    .map(([what, px]) => `${what}: ${px.toFixed(1)} px`);
  return {count: sizes.length, small};
}"""


def too_small(page: Any) -> list[str]:
    """The controls under 44 px, alike ones once with their number ("... (144 of them)")."""
    page.wait_for_load_state("load")
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(700)  # the live stream has drawn the page
    found: dict[str, list[str]] = {}
    for line in page.evaluate(MEASURE):
        found.setdefault(re.sub(r' ".*"', "", line), []).append(line)
    small = [s[0] if len(s) == 1 else f"{s[0]} ({len(s)} of them)" for s in found.values()]
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if wide > 0:  # the page scrolls sideways: a control is cut off at the edge
        small.append(f"the page is {wide} px wider than the screen")
    return small


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_control_of_every_page_is_44_px_at_least(
    server: Server, browser: Any, seats: dict[str, Any], lang: str
) -> None:
    """At 390x844 in both languages: every link, button, field and tappable cell of every
    page (the seats', the host's, the other games', the rules, joining) is 44x44 CSS px,
    and no page is wider than the screen; at 360x740 the crypt's, Loot N Run's and the
    simulated board's pages too, and every text there naming a square, a track space or a
    slot is 12 CSS px at least."""
    codes = seats["codes"]

    def device() -> Any:
        page = phone(browser)
        page.context.add_cookies([{"name": "lang", "value": lang, "url": server.url}])
        return page

    found: dict[str, list[str]] = {}

    def check(page: Any, name: str, path: str) -> None:
        page.goto(server.url + path)
        found[name] = too_small(page)

    host = device()
    host.goto(server.url + "/host")
    pin = re.search(r"host PIN (\d{6})", "".join(server.log))
    assert pin is not None
    host.locator("input[name=pin]").fill(pin.group(1))
    host.locator("form button[type=submit]").click()
    for path in (
        "/host",
        "/host/games",
        "/sim",
        "/lootnrun",
        "/crypt",
        "/check",
        "/rules/mummy",
        "/rules/lootnrun",
        "/rules/crypt",
    ):
        check(host, path, path)
    check(device(), "landing /", "/")
    check(device(), "pin /host", "/host")
    for seat in ("mummy", "seeker0", "table", "watch"):
        page = device()
        check(page, f"join {seat}", f"/join/{codes[seat]}")
        assert page.locator("#join").count() == 1, (seat, page.url, page.inner_text("body"))
        page.locator("#join").click()
        page.wait_for_url(re.compile(r"/(mummy|seeker|table|watch)$"))
        found[seat] = too_small(page)
        if seat == "mummy":
            shot(page, f"touch-mummy-{lang}")
            # The language in use shows as the current one, never as disabled.
            current = page.locator(f'.language [data-lang="{lang}"]')
            sync_api.expect(current).to_have_attribute("aria-current", "true")
            sync_api.expect(current).to_be_enabled()
    # At 360x740 (the narrowest phone): the crypt's squares, Loot N Run's track and the
    # simulated board's slots, every target 44 px and every text naming a square, a track
    # space or a slot 12 px, Loot N Run with a game under way (its track drawn).
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    assert host.evaluate(NEW_LOOT_N_RUN, players) == 200
    host.set_viewport_size(NARROW)
    texts: dict[str, int] = {}
    for path in ("/crypt", "/lootnrun", "/sim"):
        check(host, f"{path} at 360 px", path)
        measured = host.evaluate(SMALL_PLACE_TEXT)
        texts[path] = measured["count"]
        found[f"{path} at 360 px"] += measured["small"]
    assert texts["/crypt"] >= 16 and texts["/lootnrun"] >= 36 and texts["/sim"] >= 48, texts
    # The phone whose seat was taken over: the page that says so.
    seats["mummy"].context.add_cookies([{"name": "lang", "value": lang, "url": server.url}])
    check(seats["mummy"], "denied", "/mummy")
    failing = {name: small for name, small in found.items() if small}
    assert not failing, json.dumps(failing, indent=1, ensure_ascii=False)
