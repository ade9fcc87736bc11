"""At the table, in a real browser: a figure that rests on one legal cell and then goes
on to another moves where it ends; a seat takes back its own move after a confirmation
that names it, and every page hears of it; the maze's edges are labelled."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.test_browser import (
    CHROMIUM,
    NAVIGATION_MS,
    Server,
    browser,
    phone,
    put_figures_in_the_camp,
    server,
    shot,
    sync_api,
)

assert CHROMIUM.exists()

__all__ = ["browser", "server"]  # the browser tests' shared fixtures (one each per module)

CAMP = 144


@pytest.fixture(scope="module")
def seats(server: Server, browser: Any) -> dict[str, Any]:
    """A two-seeker game with real dice: the host, Red, Blue, the mummy and the table."""
    expect = sync_api.expect
    host = phone(browser)
    host.on("dialog", lambda dialog: dialog.accept())
    host.goto(server.url + "/")
    host.get_by_label("Real dice: players enter what they throw").check()
    host.get_by_role("button", name=re.compile("Start the game")).click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {
        seat["seat"]: seat["code"] for seat in server.get("/api/host/status")["table"]["seats"]
    }
    put_figures_in_the_camp(server, 2)
    pages: dict[str, Any] = {"host": host, "codes": codes}
    for seat, label in [
        ("seeker0", "Seeker Red"),
        ("seeker1", "Seeker Blue"),
        ("mummy", "Mummy"),
        ("table", "Table screen"),
    ]:
        page = phone(browser)
        page.goto(f"{server.url}/join/{codes[seat]}")
        page.get_by_role("button", name=f"Join as the {label}").click()
        expect(page.locator("#guidance")).not_to_be_empty()
        pages[seat] = page
    return pages


def throw_and_announce(page: Any, faces: list[str], face: str) -> list[int]:
    expect = sync_api.expect
    expect(page.locator("#guidance")).to_contain_text("Your turn")
    for f in faces:
        page.get_by_role("button", name=f"add {f}", exact=True).click()
    page.get_by_role("button", name=re.compile("Send the throw")).click()
    page.get_by_role("button", name=f"announce {face}", exact=True).first.click()
    expect(page.locator("#guidance")).to_contain_text("on the board")
    state = page.evaluate("fetch('/api/seeker/state').then(r => r.json())")
    return [int(c) for c in state["view"]["legal_destinations"]]


def test_a_pause_on_a_legal_cell_then_a_final_cell_moves_where_the_figure_ends(
    server: Server, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    red, table = seats["seeker0"], seats["table"]
    targets = throw_and_announce(red, ["3", "3", "2", "4", "arrow"], "3")
    first, final = targets[0], targets[-1]
    server.toggle(CAMP)
    server.toggle(first)  # Red rests here while deciding: long enough to count
    expect(red.locator("#guidance")).to_contain_text(re.compile("End your turn|play the card"))
    expect(table.locator(f'.piece[data-colour="red"][data-node="{first}"]')).to_have_count(1)
    server.toggle(first)
    server.toggle(final)  # ... and puts the figure down where Red meant
    expect(table.locator(f'.piece[data-colour="red"][data-node="{final}"]')).to_have_count(1)
    expect(red.locator("#guidance")).to_contain_text(re.compile("End your turn|play the card"))
    expect(red.locator("#guidance")).not_to_contain_text("Restore")
    positions = server.get("/sim/api/board")["game"]["positions"]
    assert positions[0]["node"] == final


def test_a_seat_takes_back_its_own_move_after_a_confirmation(
    server: Server, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    red, table, mummy = seats["seeker0"], seats["table"], seats["mummy"]
    at = server.get("/sim/api/board")["game"]["positions"][0]["node"]
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    red.on("dialog", answer)
    button = red.locator("#takeback-button")
    expect(button).to_contain_text(re.compile(r"Take back: moved to [A-L]\d+"))
    cell = button.inner_text().rsplit(" ", 1)[1]
    button.click()
    assert asked == [f"Take back your last action: moved to {cell}?"]
    expect(table.locator("#notice")).to_have_text(f"Red took back: moved to {cell}")
    expect(mummy.locator("#notice")).to_have_text("Red took back: moved a figure")
    # The host page is public (the host may hold the mummy's seat): no cell there either.
    expect(seats["host"].locator("#host-notice")).to_have_text("Red took back: moved a figure")
    expect(red.locator("#guidance")).to_contain_text(
        f"take the figure off {cell}; put Red back on camp slot 1"
    )
    expect(seats["seeker1"].locator("#takeback-button")).to_have_count(0)
    # The cell the guidance names is ringed on the maze (the phone has no letters on it).
    index = (int(cell[1:]) - 1) * 12 + ord(cell[0]) - 65
    expect(red.locator(f'.named[data-cell="{index}"]')).to_have_count(1)
    shot(table, "table-takeback")
    server.toggle(at)
    server.toggle(CAMP)
    expect(red.locator("#guidance")).to_contain_text("Move Red 3 cells on the board")
    expect(red.locator("#takeback-button")).to_contain_text("Take back: announced 3")
    red.remove_listener("dialog", answer)


def test_the_mazes_edges_are_labelled_as_on_the_printed_sheet(seats: dict[str, Any]) -> None:
    for seat in ("seeker0", "mummy", "table"):
        labels = seats[seat].locator(".edge-label").all_text_contents()
        assert labels.count("A") == 2 and labels.count("L") == 2
        assert labels.count("1") == 2 and labels.count("12") == 2


def test_a_tap_on_a_treasure_cells_centre_reaches_the_cell(
    server: Server, seats: dict[str, Any], browser: Any
) -> None:
    """The treasure's dot does not take the tap: the whole cell is the target (each
    brought into view first: the mummy's maze is zoomed to 44 px cells on a phone)."""
    script = """() => [...document.querySelectorAll('.treasure')].map(t => {
        t.scrollIntoView({block: 'center', inline: 'center'});
        const r = t.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return hit ? hit.getAttribute('class') : null; })"""
    hits = seats["mummy"].evaluate(script)
    assert hits and all(h == "cell" for h in hits), hits
    sim = seats["host"].context.new_page()  # /sim is the host's
    sim.goto(server.url + "/sim")
    sim.locator(".treasure").first.wait_for(state="attached")
    sim.evaluate("() => document.querySelector('.treasure').scrollIntoView()")
    hits = sim.evaluate(script.replace(".map(", ".slice(0, 1).map("))
    assert hits and "treasure" not in str(hits), hits


def test_each_treasure_shows_its_own_symbol_on_the_maze_and_the_cards(
    seats: dict[str, Any],
) -> None:
    """Colour is never the only sign: every treasure on the seeker's maze and in her hand
    is its colour's shape with its own symbol drawn inside (the sprite loaded)."""
    page = seats["seeker0"]
    sync_api.expect(page.locator("#hand .treasure-icon").first).to_be_visible()
    script = """sel => [...document.querySelectorAll(sel)].map(g => {
        const use = g.querySelector('use');
        return {symbol: g.dataset.symbol, shape: g.dataset.shape,
                drawn: use ? use.getBoundingClientRect().width : 0}; })"""
    on_maze = page.evaluate(script, "#board .treasure")
    assert len(on_maze) == 23
    assert len({(m["shape"], m["symbol"]) for m in on_maze}) == 23
    assert len({m["symbol"] for m in on_maze}) == 23
    in_hand = page.evaluate(script, "#hand .treasure")
    assert in_hand
    symbols_in_hand = [h["symbol"] for h in in_hand]
    assert len(set(symbols_in_hand)) == len(in_hand)
    assert set(symbols_in_hand) <= {m["symbol"] for m in on_maze}
    # Drawn, not only named: the sprite's glyph paints pixels inside each mark.
    painted = page.evaluate(
        """() => [...document.querySelectorAll('#hand .treasure use')].map(u => {
            const s = u.getBBox(); return s.width * s.height; })"""
    )
    assert painted and all(area > 0 for area in painted), painted
    missing = page.evaluate(
        """() => { const u = document.querySelector('#hand .treasure use').cloneNode();
            u.setAttribute('href', u.getAttribute('href').replace(/#.*/, '#no-such'));
            document.querySelector('#hand .treasure').append(u);
            const s = u.getBBox(); u.remove(); return s.width * s.height; }"""
    )
    assert missing == 0  # a symbol the sprite lacks would paint nothing
    shot(page, "treasure-symbols")


def test_the_marks_as_the_page_paints_them_stay_apart_for_colour_blind_eyes(
    seats: dict[str, Any],
) -> None:
    """Every pair of marks a seeker's page paints (treasures, figures, the players' and
    cards' dots), in the colours chromium computes for them, stays apart under simulated
    protanopia, deuteranopia and tritanopia, or carries a different shape, symbol or letter."""
    import itertools

    from tests.test_colour_marks import APART, DEFICIENCIES, colorspacious, seen

    page = seats["seeker0"]
    sync_api.expect(page.locator("#board .piece").first).to_be_attached()
    marks = page.evaluate(
        """() => {
        const rgb = (css) => css.match(/[0-9.]+/g).slice(0, 3).map(Number);
        const paint = (e) => rgb(getComputedStyle(e).fill);
        const out = [];
        for (const g of document.querySelectorAll('#board .treasure'))
            out.push({name: 'treasure ' + g.dataset.symbol, colour: paint(g.firstElementChild),
                      sign: g.dataset.shape + '/' + g.dataset.symbol});
        for (const g of document.querySelectorAll('#board .piece[data-colour]')) {
            const dot = g.querySelector('.figure-dot');
            out.push({name: 'figure ' + g.dataset.colour, colour: paint(dot),
                      sign: dot.dataset.shape + '/' + g.querySelector('text').textContent});
        }
        for (const d of document.querySelectorAll('#players .dot[data-shape]'))
            out.push({name: 'dot ' + d.getAttribute('style'),
                      colour: rgb(getComputedStyle(d).backgroundColor), sign: d.dataset.shape});
        return out; }"""
    )
    kinds = {m["name"].split()[0] for m in marks}
    assert kinds == {"treasure", "figure", "dot"} and len(marks) > 30
    for deficiency in DEFICIENCIES:
        for a, b in itertools.combinations(marks, 2):
            if a["name"] == b["name"]:
                continue  # the same mark twice (a colour's dot in two rows)
            distance = colorspacious.deltaE(
                seen(tuple(c / 255 for c in a["colour"]), deficiency),
                seen(tuple(c / 255 for c in b["colour"]), deficiency),
                input_space="CAM02-UCS",
            )
            if distance < APART:
                assert a["sign"] != b["sign"], (deficiency, a, b, distance)


def test_the_simulator_shows_each_figure_in_its_colour_and_follows_the_stream(
    server: Server, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    sim = seats["host"].context.new_page()  # /sim is the host's
    asked: list[str] = []
    sim.on("request", lambda r: asked.append(r.url) if "/sim/api/board" in r.url else None)
    sim.goto(server.url + "/sim")
    expect(sim.locator('.figure[data-colour="red"]')).to_have_count(1)
    expect(sim.locator('.figure[data-colour="blue"]')).to_have_count(1)
    expect(sim.locator("#turn")).to_contain_text("turn")
    spare = 150  # a sarcophagus slot: a stray magnet, in no figure's colour
    server.toggle(spare)
    expect(sim.locator(f'.figure[data-position="{spare}"]')).to_have_count(1)
    expect(sim.locator(f'.figure[data-position="{spare}"]')).to_have_attribute("data-colour", "")
    server.toggle(spare)
    expect(sim.locator(f'.figure[data-position="{spare}"]')).to_have_count(0)
    sim.wait_for_timeout(600)
    assert len(asked) == 1, asked  # one load, then the stream: no polling
    sim.close()
    seats["host"].context.pages[0].bring_to_front()


def test_cues_for_the_seats_own_turn_and_a_mute_that_is_remembered(
    server: Server, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    red, blue = seats["seeker0"], seats["seeker1"]
    blue.evaluate("window.cueLog.length = 0")
    expect(red.locator("#guidance")).to_contain_text("Move Red 3 cells on the board")
    target = red.evaluate("fetch('/api/seeker/state').then(r => r.json())")["view"][
        "legal_destinations"
    ][0]
    server.toggle(CAMP)
    server.toggle(int(target))
    expect(red.locator("#guidance")).to_contain_text(re.compile("End your turn|play the card"))
    red.get_by_role("button", name="End the turn").click()
    expect(blue.locator("#guidance")).to_contain_text("Your turn")
    assert blue.evaluate("window.cueLog") == ["turn"]
    mute = blue.locator("#mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    blue.reload()
    expect(blue.locator("#mute")).to_have_attribute("aria-pressed", "true")
    blue.locator("#mute").click()  # sound back on for the next tests
    expect(blue.locator("#mute")).to_have_attribute("aria-pressed", "false")


def test_leaving_a_seat_asks_first(seats: dict[str, Any]) -> None:
    table = seats["seeker1"]
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    table.once("dialog", dismiss)
    url = table.url
    table.get_by_role("button", name="Leave this seat").click()
    sync_api.expect(table).to_have_url(url)
    assert asked and asked[0].startswith("Leave this seat?")


def test_a_lost_connection_is_said_in_words(seats: dict[str, Any]) -> None:
    blue = seats["seeker1"]
    blue.route("**/api/seeker/command", lambda route: route.abort())
    try:
        for f in ["1", "2", "3", "4", "arrow"]:
            blue.get_by_role("button", name=f"add {f}", exact=True).click()
        blue.get_by_role("button", name=re.compile("Send the throw")).click()
        sync_api.expect(blue.locator("#error")).to_contain_text("The companion cannot be reached")
        assert "Failed to fetch" not in blue.locator("#error").inner_text()
    finally:
        blue.unroute("**/api/seeker/command")


def test_the_page_in_german_from_the_phone_and_switched_to_english(
    server: Server, seats: dict[str, Any], browser: Any
) -> None:
    """A German phone gets the table screen in German; the switch turns it English and the
    choice is remembered."""
    expect = sync_api.expect
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    page = context.new_page()
    page.set_default_timeout(8000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    page.goto(f"{server.url}/join/{seats['codes']['table']}")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.get_by_role("button", name=re.compile("Den Platz Tischanzeige übernehmen")).click()
    expect(page).to_have_url(server.url + "/table")
    expect(page.locator("#guidance")).to_contain_text("ist am Zug")
    expect(page.locator("h2").first).to_have_text("Würfel")
    expect(page.locator("#log")).to_contain_text("würfelt")
    titles = page.eval_on_selector_all("#board .treasure title", "ts => ts.map(t => t.textContent)")
    assert "roter Skarabäus" in titles and not any("red" in t for t in titles)
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#guidance")).to_contain_text("turn")
    expect(page.locator("h2").first).to_have_text("Dice")
    expect(page.locator("#log")).to_contain_text("rolls")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    shot(page, "table-english")
    context.close()


def test_a_new_game_with_real_cards_clears_the_old_one_from_every_page(
    server: Server, seats: dict[str, Any]
) -> None:
    expect = sync_api.expect
    host, mummy = seats["host"], seats["mummy"]
    expect(mummy.locator("#log li")).not_to_have_count(0)  # the old game's announcements
    host.goto(server.url + "/host")
    host.get_by_label(re.compile("Real cards")).check()
    host.get_by_role("button", name="Start a new game").click()
    expect(mummy.locator("#guidance")).to_contain_text("entering the mission cards")
    expect(mummy.locator("#log li")).to_have_count(0)
    expect(mummy.locator(".maze .mummy-piece")).to_have_count(0)
    assert mummy.locator("#dice-out").inner_text() == ""
