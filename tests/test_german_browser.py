"""The pages' own German, in a real browser: the scripts fill names into their sentences
in the case the sentence asks for (the forms from ``/i18n/de.js``), so a German seeker's
dice buttons say "den Pfeil hinzufügen" and "die Mumienseite hinzufügen", and the table
screen "Rot hat den Pfeil angesagt"; English pages keep "add arrow"."""

from __future__ import annotations

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
