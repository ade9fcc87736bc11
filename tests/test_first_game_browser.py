"""A first game that teaches itself, in real browsers (chromium at 390x844): the host
ticks "A first game", and every new situation is explained once, on the page of the seat
it belongs to (the mummy's page only the mummy's), in that page's language, and on the
table screen for the whole table (each named by whom it speaks to, never a card's); a
reload keeps the explanation shown; a rematch (a later game) explains nothing.

The games are played by the bots through the service (figures moved on the simulated
board); after every command the test waits until each lesson the server shows is on its
page.  Each page records every set of explanations it showed (a MutationObserver).
"""

from __future__ import annotations

import re
from typing import Any

from companion.games.mummy.commands import Roll
from companion.games.mummy.first_game import TEXTS, Lesson
from companion.games.mummy.state import Phase
from companion.i18n.catalog import render
from tests.test_browser import shot, sync_api
from tests.test_end_browser import browser, put_board_right, site
from tests.test_narrator_browser import open_seat, start_game

__all__ = ["browser", "site"]

#: Records the explanations a page shows as they appear (one that stays on while its
#: situation lasts is recorded once).
RECORD = """
  window.lessonRuns = [];
  document.addEventListener("DOMContentLoaded", () => {
    const box = document.getElementById("lessons");
    if (!box) return;
    let last = [];
    new MutationObserver(() => {
      const texts = box.hidden ? [] : [...box.querySelectorAll("p.lesson")].map(p => p.textContent);
      const appeared = texts.filter(t => !last.includes(t));
      last = texts;
      if (appeared.length) window.lessonRuns.push(appeared);
    }).observe(box, {childList: true, subtree: true, attributes: true});
  });
"""

#: Each seat's phone and the language its page speaks.
SEATS = {"mummy": "en", "seeker0": "en", "seeker1": "de", "table": "en"}


def runs(page: Any) -> list[str]:
    """Every explanation the page showed, in order (one entry per showing)."""
    shown: list[list[str]] = page.evaluate("window.lessonRuns")
    return [text for run in shown for text in run]


def expected(game: Any, seat: str) -> list[Lesson]:
    if seat == "table":  # every seat's, but a card's
        return [lesson for step in game.lessons for lesson in step if lesson.key != "card"]
    return [lesson for step in game.lessons for lesson in step if lesson.seat == seat]


#: Whom a lesson on the table screen speaks to (the game is Red and Blue against the mummy).
WHO = {"mummy": "The mummy", "seeker0": "Red", "seeker1": "Blue"}


def test_a_first_game_explains_each_new_situation_once_on_its_page(site, browser) -> None:
    from companion.service.autoplay import play_on

    appliance, url = site
    service = appliance.service
    expect = sync_api.expect
    host, codes = start_game(browser, appliance, url, re.compile("A first game"))
    assert service.game.setup.options.first_game
    pages = {
        seat: open_seat(browser, url, codes[seat], lang, [], RECORD) for seat, lang in SEATS.items()
    }

    def text(lesson: Lesson, on: str = "") -> str:
        if on == "table":
            return f"{WHO[lesson.seat]}: {render(lesson.text, SEATS['table'])}"
        return render(lesson.text, SEATS[lesson.seat])

    # The first lesson (Red's first roll) is on Red's page only, and a reload keeps it.
    first = Lesson("seeker0", "roll")
    assert service.published.lessons == (first,)
    expect(pages["seeker0"].locator("#lessons")).to_contain_text(text(first))
    pages["seeker0"].reload()
    expect(pages["seeker0"].locator("#lessons")).to_contain_text(text(first))
    shot(pages["seeker0"], "first-game-roll")
    for seat in ("mummy", "seeker1"):
        expect(pages[seat].locator("#lessons")).to_be_hidden()
    # The table screen teaches the whole table: Red's lesson, named.
    expect(pages["table"].locator("#lessons")).to_contain_text(text(first, "table"))

    def shown_now() -> None:
        """After every command: each lesson the server shows is on its seat's page."""
        for lesson in service.published.lessons:
            expect(pages[lesson.seat].locator("#lessons")).to_contain_text(text(lesson))
            shot(pages[lesson.seat], f"first-game-{lesson.seat}-{lesson.key}")
            table = pages["table"].locator("#lessons")
            if lesson.key == "card":  # it would tell the table what Red holds
                expect(table).not_to_contain_text(text(lesson, "table"))
            else:
                expect(table).to_contain_text(text(lesson, "table"))

    # Red rolls and at once rolls again, so the first game meets a reroll (the bots
    # reroll only when no face helps, which some games never meet).
    service.submit("seeker0", Roll())
    shown_now()
    if service.game.current.phase is Phase.SEEKER_ROLLED:
        service.submit("seeker0", Roll())
        shown_now()

    want: dict[str, list[str]] = {seat: [] for seat in SEATS}
    keys_in_english: set[str] = set()
    for game_number in range(4):  # until the games met every situation (usually one)
        if game_number:
            host.evaluate("post('/api/host/game', {colours: ['red', 'blue'], first_game: true})")
        put_board_right(appliance)
        play_on(appliance, pace=shown_now)
        game = service.game
        for seat in SEATS:
            want[seat] += [text(lesson, seat) for lesson in expected(game, seat)]
        keys_in_english |= {
            lesson.key for step in game.lessons for lesson in step if SEATS[lesson.seat] == "en"
        }
        if keys_in_english == set(TEXTS):
            break
    assert keys_in_english == set(TEXTS), set(TEXTS) - keys_in_english

    # Each page showed its seat's lessons, each once, in order, in its language.
    for seat, page in pages.items():
        assert runs(page) == want[seat], seat
    mummy_texts = {
        render(Lesson("mummy", k).text, "en")
        for k in ("mummy_roll", "mummy_move", "mummy_intermediate", "catch")
    }
    assert set(runs(pages["mummy"])) <= mummy_texts  # never a seeker's situation
    german = runs(pages["seeker1"])
    assert len(german) >= 3 and any("Schatzsucherwürfel" in t for t in german), german
    assert not set(german) & {render(Lesson("seeker1", k).text, "en") for k in TEXTS}

    # A later game (the rematch) explains nothing.
    before = {seat: len(runs(page)) for seat, page in pages.items()}
    seen: list[tuple[Lesson, ...]] = []
    host.evaluate("post('/api/host/rematch', {})")
    put_board_right(appliance)
    assert not service.game.setup.options.first_game
    play_on(appliance, pace=lambda: seen.append(service.published.lessons))
    assert seen and not any(seen)
    for seat, page in pages.items():
        expect(page.locator("#guidance")).to_contain_text(re.compile("wins|gewinnt"))
        assert len(runs(page)) == before[seat], seat
        if page.locator("#lessons").count():
            expect(page.locator("#lessons")).to_be_hidden()
