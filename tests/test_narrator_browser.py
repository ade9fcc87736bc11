"""The narrator in real browsers (chromium at 390x844): the maze pages speak the turns,
the announcements, the mummy's moves, the catches and the end, in the page's language,
through the phone's speech synthesis, stubbed here at the browser's edge (an init script
puts recorders in the place of ``speechSynthesis`` and ``SpeechSynthesisUtterance``).

A whole game is played by the bots through the service (figures moved on the simulated
board) while the table (English), the mummy (German), a seeker (German) and another
seeker (English, narrator left off) follow it live.  What each page queued is compared,
in order, with the announcements its seat may know, replayed from the game's commands.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.events import Event, FigureMoved
from companion.games.mummy.views import visible_events
from companion.i18n.catalog import localize
from companion.web.payloads import event_json, said_events
from tests.test_browser import NAVIGATION_MS, PHONE, shot, sync_api
from tests.test_end_browser import browser, put_board_right, site

__all__ = ["browser", "site"]

#: The kinds of announcement the narrator speaks (narrator.js SPOKEN).
SPOKEN = {
    "turn_started",
    "mummy_turn_started",
    "resolved",
    "turn_lost",
    "seeker_skipped",
    "announced",
    "card_played",
    "mummy_move_started",
    "mummy_move_ended",
    "seeker_caught",
    "seeker_out",
    "game_won",
}

VOICES = [
    {"name": "Stub English", "lang": "en-GB", "localService": True},
    {"name": "Stub Deutsch", "lang": "de-DE", "localService": True},
]


#: Speech synthesis that records what a page queues; VOICES_HERE: the phone's voices.
STUB = """
  window.spoken = [];
  const voices = VOICES_HERE;
  class Utterance { constructor(text) { this.text = text; this.lang = ""; this.voice = null; } }
  const synth = {
    speak(u) {
      window.spoken.push({text: u.text, lang: u.lang, voice: u.voice && u.voice.name});
      // window.speakError: the phone refuses the words with that error (as phones do).
      if (window.speakError) { if (u.onerror) u.onerror({error: window.speakError}); }
      else if (u.onstart) u.onstart();
    },
    cancel() {}, pause() {}, resume() {},
    getVoices() { return voices; },
    addEventListener() {}, speaking: false, pending: false,
  };
  Object.defineProperty(window, "speechSynthesis", {value: synth, configurable: true});
  window.SpeechSynthesisUtterance = Utterance;
"""


def stub(voices: list[dict[str, Any]]) -> str:
    """The init script for a phone with ``voices``."""
    return STUB.replace("VOICES_HERE", json.dumps(voices))


def open_seat(
    browser: Any, url: str, code: str, lang: str, voices: list[dict[str, Any]], also: str = ""
) -> Any:
    """A phone in ``lang`` with ``voices`` (and the init script ``also``) joins a seat."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    context.add_cookies([{"name": "lang", "value": lang, "url": url}])
    context.add_init_script(stub(voices) + also)
    page = context.new_page()
    page.set_default_timeout(8000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    page.goto(f"{url}/join/{code}")
    page.locator("#join").click()
    page.wait_for_function("() => document.querySelector('#log li')")
    return page


def spoken(page: Any) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = page.evaluate("window.spoken")
    return result


def game_events(service: Any) -> list[Event]:
    """Every event of the game's commands (not the start), replayed from the journal's
    commands."""
    state, _ = new_game(service.game.setup)
    out: list[Event] = []
    for command in service.game.commands:
        state, events = apply(state, command)
        out += events
    return out


def spoken_events(service: Any, role: str) -> list[Event]:
    """The announcements a narrator on ``role``'s page speaks over the game, in order."""
    said = said_events(visible_events(game_events(service), role))  # one line a catch
    return [e for e in said if e.kind in SPOKEN]


def heard(service: Any, role: str, lang: str) -> list[str]:
    """What a narrator on ``role``'s page should say over the game, in order."""
    setup = service.game.setup
    return [
        localize(event_json(e, setup, role)["text"], lang) for e in spoken_events(service, role)
    ]


def start_game(browser: Any, appliance: Any, url: str, label: Any = None) -> tuple[Any, dict]:
    """The host starts a maze game (``label``: an option to tick first): the host's page
    and the seats' codes."""
    expect = sync_api.expect
    host = browser.new_context(viewport=PHONE).new_page()
    host.goto(url + "/")
    if label is not None:
        host.get_by_label(label).check()
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)
    put_board_right(appliance)
    return host, {
        str(li.get_attribute("data-seat")): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }


def test_the_narrator_speaks_a_game_in_each_pages_language(site, browser) -> None:
    from companion.service.autoplay import play_on

    appliance, url = site
    service = appliance.service
    expect = sync_api.expect
    host, codes = start_game(browser, appliance, url)

    table = open_seat(browser, url, codes["table"], "en", VOICES)
    mummy = open_seat(browser, url, codes["mummy"], "de", VOICES)
    red = open_seat(browser, url, codes["seeker0"], "de", VOICES)
    blue = open_seat(browser, url, codes["seeker1"], "en", VOICES)
    pages = (table, mummy, red, blue)

    # On by default on the table screen, the one voice; off on the phones (the switch
    # says so), where a player may switch it on.
    expect(table.locator("#narrator")).to_have_attribute("aria-pressed", "true")
    for page in (mummy, red, blue):
        expect(page.locator("#narrator")).to_have_attribute("aria-pressed", "false")
    for page in pages:
        box = page.locator("#narrator").bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44
    for page in (mummy, red):
        page.locator("#narrator").click()
        expect(page.locator("#narrator")).to_have_attribute("aria-pressed", "true")
    expect(table.locator("#narrator")).to_have_attribute("title", re.compile("narrator speaks"))
    expect(mummy.locator("#narrator")).to_have_attribute("title", re.compile("Erzähler"))

    play_on(appliance, pace=lambda: time.sleep(0.03))
    state = service.game.current
    assert state.is_over
    kinds = [e.kind for e in game_events(service)]
    assert "seeker_caught" in kinds and kinds[-1] == "game_won"

    def check(page: Any, role: str, lang: str, voice: str, switched: bool = True) -> list[str]:
        want = [("Der Erzähler ist an." if lang == "de" else "The narrator is on.")]
        want = (want if switched else []) + heard(service, role, lang)
        page.wait_for_function(f"() => window.spoken.length >= {len(want)}", timeout=15000)
        time.sleep(0.3)
        got = spoken(page)
        assert [g["text"] for g in got] == want, role
        assert {g["voice"] for g in got} == {voice}
        assert {g["lang"] for g in got} == {"de-DE" if voice == "Stub Deutsch" else "en-GB"}
        return want

    check(table, "table", "en", "Stub English", switched=False)
    # What was said holds, in this order: a turn, an announcement, the mummy's move, a
    # catch, and ends with the end.
    kinds = [e.kind for e in spoken_events(service, "table")]
    at = 0
    for kind in ("turn_started", "announced", "mummy_move_ended", "seeker_caught", "game_won"):
        at = kinds.index(kind, at)
    assert kinds[-1] == "game_won"
    said_de = check(mummy, "mummy", "de", "Stub Deutsch")
    assert any("Die Mumie" in t for t in said_de) and not any("The mummy" in t for t in said_de)
    check(red, "seeker", "de", "Stub Deutsch")
    # The switch was never turned on on Blue's page: nothing was queued there.
    assert spoken(blue) == []

    # The mummy's page never queued a seeker's cell: every cell it named is one the
    # mummy stood on (its own steps, its catches), while the seekers went elsewhere too.
    maze = service.game.setup.maze
    summary = service.published.summary
    mummy_cells = {maze.cell_name(n) for n in summary.path if maze.is_cell(n)}
    seeker_cells = {
        maze.cell_name(e.to)
        for e in game_events(service)
        if isinstance(e, FigureMoved) and maze.is_cell(e.to)
    }
    assert seeker_cells - mummy_cells, "the seekers never went where the mummy did not"
    named = {m for t in spoken(mummy) for m in re.findall(r"\b[A-Z]\d{1,2}\b", t["text"])}
    assert named and named <= mummy_cells, named - mummy_cells

    # The switch is remembered on the device: on after a reload, off where it was off.
    mummy.reload()
    expect(mummy.locator("#narrator")).to_have_attribute("aria-pressed", "true")
    table.reload()
    expect(table.locator("#narrator")).to_have_attribute("aria-pressed", "true")
    blue.reload()
    expect(blue.locator("#narrator")).to_have_attribute("aria-pressed", "false")
    # A page that loads mid-game does not read the past out: nothing more is queued.
    table.wait_for_function("() => document.querySelector('#log li')")
    time.sleep(0.3)
    assert spoken(table) == []
    # Off again: nothing is spoken (not even a word of confirmation), over a whole game.
    table.locator("#narrator").click()
    expect(table.locator("#narrator")).to_have_attribute("aria-pressed", "false")
    host.evaluate("post('/api/host/rematch', {})")
    put_board_right(appliance)
    play_on(appliance, pace=lambda: time.sleep(0.01))
    expect(table.locator("#guidance")).to_contain_text("wins")
    assert len(heard(service, "table", "en")) > 10
    assert spoken(table) == []
    for page in pages:
        expect(page.locator("#narrator-note")).to_be_hidden()
    shot(mummy, "narrator-mummy-de")


def test_a_phone_without_a_voice_for_the_language_says_so(site, browser) -> None:
    appliance, url = site
    expect = sync_api.expect
    _, codes = start_game(browser, appliance, url)
    # A German page on a phone with English voices only; an English one with none at all.
    german = open_seat(browser, url, codes["table"], "de", VOICES[:1])
    english = open_seat(browser, url, codes["watch"], "en", [])
    expect(english.locator("#narrator-note")).to_be_hidden()  # off: nothing to say
    english.locator("#narrator").click()  # the watching seat's phone: off by default
    expect(german.locator("#narrator-note")).to_be_visible()
    expect(german.locator("#narrator-note")).to_contain_text("keine Stimme")
    expect(english.locator("#narrator-note")).to_be_visible()
    expect(english.locator("#narrator-note")).to_contain_text("no voice for this language")
    shot(german, "narrator-no-voice-de")
    # It still queues its words without a voice (the phone may speak them its own way).
    german.locator("#narrator").click()  # off, and on again: "Der Erzähler ist an."
    expect(german.locator("#narrator-note")).to_be_hidden()
    german.locator("#narrator").click()
    expect(german.locator("#narrator-note")).to_be_visible()
    assert [u["voice"] for u in spoken(german)] == [None]

    # A phone whose only voice for the language needs the internet says so too.
    online = open_seat(browser, url, codes["mummy"], "en", [{**VOICES[0], "localService": False}])
    online.locator("#narrator").click()
    expect(online.locator("#narrator-note")).to_contain_text("needs the internet")
    # A phone that refuses to speak before a first tap (after a reload) asks for one,
    # and the tap ends the note.
    shy = open_seat(browser, url, codes["seeker0"], "en", VOICES)
    shy.evaluate("window.speakError = 'not-allowed'")
    shy.locator("#narrator").click()
    expect(shy.locator("#narrator-note")).to_contain_text("Tap the page once")
    shy.locator("#guidance").click()
    expect(shy.locator("#narrator-note")).to_be_hidden()
    # Any other failure (a network voice offline) is named in words, not kept silent.
    shy.evaluate("window.speakError = 'network'")
    shy.locator("#narrator").click()
    shy.locator("#narrator").click()
    expect(shy.locator("#narrator-note")).to_contain_text("could not speak")
    expect(shy.locator("#narrator-note")).to_have_attribute("title", "network")
