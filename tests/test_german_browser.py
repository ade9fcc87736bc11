"""The pages' own German, in a real browser: the scripts fill names into their sentences
in the case the sentence asks for (the forms from ``/i18n/de.js``), so a German seeker's
dice buttons say "den Pfeil hinzufügen" and "die Mumienseite hinzufügen", and the table
screen "Rot hat den Pfeil angesagt"; English pages keep "add arrow"."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.test_browser import (
    CHROMIUM,
    Server,
    browser,
    phone,
    put_figures_in_the_camp,
    server,
    sync_api,
)

assert CHROMIUM.exists()

__all__ = ["browser", "server"]  # the browser tests' shared fixtures (one each per module)


def german_phone(browser: Any, server: Server, code: str) -> Any:
    page = phone(browser)
    page.context.add_cookies([{"name": "lang", "value": "de", "url": server.url}])
    page.goto(f"{server.url}/join/{code}")
    page.get_by_role("button", name=re.compile("beitreten")).click()
    sync_api.expect(page.locator("#guidance")).not_to_be_empty()
    return page


def test_a_german_seekers_dice_and_the_table_name_the_faces_by_case(
    server: Server, browser: Any
) -> None:
    expect = sync_api.expect
    host = phone(browser)
    host.goto(server.url + "/")
    host.get_by_label("Real dice: players enter what they throw").check()
    host.get_by_role("button", name=re.compile("Start the game")).click()
    expect(host.locator("#seats li")).to_have_count(5)
    codes = {s["seat"]: s["code"] for s in server.get("/api/host/status")["table"]["seats"]}
    put_figures_in_the_camp(server, 2)
    red = german_phone(browser, server, codes["seeker0"])
    table = german_phone(browser, server, codes["table"])
    expect(red.locator("#guidance")).to_contain_text("Du bist dran")
    expect(red.get_by_role("button", name="den Pfeil hinzufügen", exact=True)).to_be_visible()
    expect(red.get_by_role("button", name="die Mumienseite hinzufügen", exact=True)).to_be_visible()
    for face in ["1", "2", "3", "4", "den Pfeil"]:
        red.get_by_role("button", name=f"{face} hinzufügen", exact=True).click()
    expect(red.get_by_role("button", name="den Pfeil entfernen", exact=True)).to_be_visible()
    red.get_by_role("button", name=re.compile("Wurf senden")).click()
    expect(red.locator("#guidance")).to_contain_text("Tippe auf einen Würfel, um ihn anzusagen")
    red.get_by_role("button", name="den Pfeil ansagen", exact=True).first.click()
    expect(table.locator("#announced")).to_have_text("Rot hat den Pfeil angesagt")
    expect(table.locator("#log")).to_contain_text("Rot sagt den Pfeil an.")
    # the same page in English keeps its words
    english = phone(browser)
    english.goto(f"{server.url}/join/{codes['seeker1']}")
    english.get_by_role("button", name="Join as the Seeker Blue").click()
    expect(english.locator("#log")).to_contain_text("Red announces the arrow.")


SMALL = {"width": 360, "height": 740}
#: Every title and aria-label on the page, the scripts' own included (play.js dieFace).
LABELS = """() => [...document.querySelectorAll('[title], [aria-label]')]
    .flatMap(e => [e.getAttribute('title'), e.getAttribute('aria-label')]).filter(Boolean)"""


def test_a_german_phone_at_360_px_keeps_its_title_on_one_line_and_labels_german(
    server: Server, browser: Any
) -> None:
    """Issue 37: "Schatzsucher Türkis" wrapped onto two lines at 360 px, and the dice's
    titles said "mummy" and "arrow" on German pages."""
    from tests.test_german_games import english

    expect = sync_api.expect
    phone(browser).goto(server.url + "/")  # a phone hosts (when this test runs alone)
    status = server.post("/api/host/game", {"colours": ["violet", "turquoise"], "dice": "physical"})
    codes = {s["seat"]: s["code"] for s in status["table"]["seats"]}
    put_figures_in_the_camp(server, 2)
    violet = german_phone(browser, server, codes["seeker0"])  # new colours: new seats
    turquoise = german_phone(browser, server, codes["seeker1"])
    turquoise.set_viewport_size(SMALL)
    title = turquoise.locator("#title")
    expect(title).to_have_text("Schatzsucher Türkis")
    lines = title.evaluate(
        """h => { const r = document.createRange(); r.selectNodeContents(h);
                  const tops = new Set([...r.getClientRects()].map(c => Math.round(c.top)));
                  return [tops.size, h.scrollWidth <= h.clientWidth]; }"""
    )
    assert lines == [1, True], lines  # one line, nothing cut off
    # A roll with the mummy face and the arrow: the dice's titles are German too.
    for face in ["die Mumienseite", "den Pfeil", "1", "2", "3"]:
        violet.get_by_role("button", name=f"{face} hinzufügen", exact=True).click()
    violet.get_by_role("button", name=re.compile("Wurf senden")).click()
    expect(violet.locator("#guidance")).to_contain_text("Tippe auf einen Würfel")
    for page in (violet, turquoise):
        expect(page.locator(".die.face-arrow").first).to_be_attached()
        labels = page.evaluate(LABELS)
        assert any("Pfeil" in label for label in labels), labels
        found = [hit for label in labels for hit in english(f'{{"t": {json.dumps(label)}}}')]
        assert not found, found
