"""In a real browser: the host gives the mummy's seat to the computer, a seeker plays a
whole two-figure game against it on the simulated board, the LEDs show every one of its
steps, and the table page says who plays the mummy and narrates its steps."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.board.render import MUMMY_COLOUR
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.events import SeekerCaught
from companion.games.mummy.maze import parse_cell_name
from companion.games.mummy.record import command_from_json, setup_from_json
from companion.journal import Journal
from tests.test_browser import CHROMIUM, NAVIGATION_MS, Server, browser, phone, shot, sync_api, wait

assert CHROMIUM.exists()

__all__ = ["browser"]  # the module's fixture, shared with the other browser tests

#: The running companion's state directory (its journal).
STATE: list[Path] = []


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    STATE[:] = [tmp_path_factory.mktemp("computer-mummy")]
    server = Server(STATE[0])
    yield server
    server.stop()


class LedWatch:
    """Samples the LEDs of the simulated board and notes every cell the mummy lit."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.cells: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            leds = self.server.get("/sim/api/board")["leds"]
            lit = [p for p, c in enumerate(leds[:144]) if _is_mummy(c)]
            if len(lit) == 1 and (not self.cells or self.cells[-1] != lit[0]):
                self.cells.append(lit[0])
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _is_mummy(colour: list[int]) -> bool:
    """The mummy's amber at any point of its breath (50 % to 100 %)."""
    r, g, _b = colour
    return r >= MUMMY_COLOUR[0] * 0.45 and abs(g * MUMMY_COLOUR[0] - r * MUMMY_COLOUR[1]) < 40 * r


def put_board_right(server: Server) -> None:
    """Carry the figures where the game says (a catch sends one to the sarcophagus)."""
    board = server.get("/sim/api/board")
    camp, slots = 144, board["board"]["camp_slots"]
    want = set()
    for p in board["game"]["positions"]:
        node, figure = p["node"], p["figure"]
        if node == 144:
            want.add(camp + figure)
        elif node == 145:
            want.add(camp + slots + figure)
        elif node >= 0:
            want.add(node)
    for position in sorted(set(board["magnets"]) ^ want):
        server.toggle(position)
    server.wait_board_ok()


def call(page: Any, path: str, body: dict[str, Any] | None = None) -> Any:
    """The seeker's page asks its API (with its seat cookie)."""
    if body is None:
        return page.evaluate(f"fetch('{path}').then(r => r.json())")
    script = (
        "b => fetch('" + path + "', {method: 'POST', headers: {'Content-Type': "
        "'application/json'}, body: JSON.stringify(b)}).then(r => r.json())"
    )
    return page.evaluate(script, body)


def seeker_step(server: Server, page: Any) -> None:
    """One seeker action, like a careful player: roll, announce, move on the board, end."""
    data = call(page, "/api/seeker/state")
    view = data["view"]
    if not data["my_turn"]:
        return
    send = "/api/seeker/command"
    if view["phase"] == "seeker_turn":
        call(page, send, {"cmd": "roll"})
    elif view["phase"] == "seeker_rolled":
        for face in dict.fromkeys(view["roll"]):
            if "error" not in call(page, send, {"cmd": "announce", "face": face}):
                return
        call(page, send, {"cmd": "roll"})
    elif view["phase"] == "seeker_moving":
        figure = view["turn"]
        here = view["positions"][figure]["node"]
        wanted = {t["cell"] for t in data["view"]["hand"]}
        targets = [c for c in view["legal_destinations"] if c != here] or [here]
        target = next((c for c in targets if c in wanted), targets[-1])
        if target == here:
            call(page, send, {"cmd": "move", "to": data["stay"]})
            return
        slots = server.get("/sim/api/board")["board"]["camp_slots"]
        origin = here if here < 144 else 144 + figure + (slots if here == 145 else 0)
        server.toggle(origin)
        server.toggle(target)
        wait(lambda: call(page, "/api/seeker/state")["view"]["phase"] != "seeker_moving")
    elif view["phase"] == "seeker_card":
        call(page, send, {"cmd": "play_card" if data["playable"] else "end_turn"})


def test_a_whole_game_against_the_computer_mummy(server: Server, browser: Any) -> None:
    expect = sync_api.expect
    host = phone(browser)
    host.goto(server.url + "/")
    expect(host).to_have_url(server.url + "/host")
    host.locator("input[name=colour][value=blue]").uncheck()  # one seeker, two figures
    host.get_by_label("Played by the computer: normal").check()
    host.locator("input[name=pace]").fill("0.5")  # the default: what a table follows
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(4)  # with the watching seat
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_board_right(server)

    table = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    table.set_default_timeout(8000)
    table.set_default_navigation_timeout(NAVIGATION_MS)
    table.goto(f"{server.url}/join/{codes['table']}")
    table.locator("#join").click()  # confirm the seat
    expect(table.locator("#players")).to_contain_text("Mummy (the computer, normal)")
    seeker = phone(browser)
    seeker.goto(f"{server.url}/join/{codes['seeker0']}")
    seeker.locator("#join").click()  # confirm the seat
    expect(seeker).to_have_url(server.url + "/seeker")

    leds = LedWatch(server)
    try:
        deadline = time.monotonic() + 420  # about a minute alone; CI's machine may be busy
        while time.monotonic() < deadline:
            summary = server.get("/sim/api/board")["game"]
            if summary["winner"] is not None:
                break
            if not server.get("/healthz")["board"]["matches"]:
                put_board_right(server)
            seeker_step(server, seeker)
            time.sleep(0.02)
        else:
            raise AssertionError(f"the game did not end: {summary}")
    finally:
        leds.stop()
    expect(table.locator("#log")).to_contain_text(re.compile("wins|won"))
    shot(table, "computer-mummy-table")

    # The record: the computer played every mummy step, and each one was lit in turn.
    with Journal(STATE[0] / "journal.sqlite3") as journal:
        stored = journal.latest("mummy")
    assert stored is not None and stored.ended
    # Every mummy step, but a catch: it lights the catch (and maybe the win), not a step.
    setup = setup_from_json(stored.setup)
    state, _ = new_game(setup)
    steps = []
    for data in stored.commands:
        state, events = apply(state, command_from_json(data, setup.maze))
        if data["cmd"] == "mummy_step" and not any(isinstance(e, SeekerCaught) for e in events):
            steps.append(parse_cell_name(data["to"], 12, 12))
    assert len(steps) > 3
    it = iter(leds.cells)
    unseen = [(i, cell) for i, cell in enumerate(steps) if not any(cell == s for s in it)]
    assert not unseen, f"steps never lit: {unseen}; steps {steps}; lit {leds.cells}"
    expect(table.locator("#log")).to_contain_text("The mummy")


def test_the_deduction_aid_on_the_mummys_page(server: Server, browser: Any) -> None:
    expect = sync_api.expect
    pin = re.search(r"host PIN (\d{6})", "".join(server.log))
    assert pin is not None
    host = phone(browser)
    host.on("dialog", lambda dialog: dialog.accept())
    host.goto(server.url + "/host")
    host.get_by_label(re.compile("Enter the host PIN")).fill(pin.group(1))
    host.get_by_role("button", name="Open the host page").click()
    host.get_by_label("Played by a person").check()
    host.get_by_label(re.compile("Deduction aid")).check()
    host.get_by_role("button", name="Start a new game").click()
    expect(host.locator("#seats li")).to_have_count(4)  # with the watching seat
    expect(host.locator('#seats li[data-seat="mummy"] .code')).to_have_count(1)  # a person's
    # The codes from the host's API: the page may still reload (the board changing hands
    # is seen by its poll), and a list read from it then could be half gone.
    codes = {
        seat["seat"]: seat["code"] for seat in server.get("/api/host/status")["table"]["seats"]
    }
    assert "mummy" in codes, codes
    put_board_right(server)
    mummy, seeker = phone(browser), phone(browser)
    mummy.goto(f"{server.url}/join/{codes['mummy']}")
    mummy.locator("#join").click()  # confirm the seat
    expect(mummy).to_have_url(server.url + "/mummy")
    seeker.goto(f"{server.url}/join/{codes['seeker0']}")
    seeker.locator("#join").click()  # takes the seat over from the first game's phone
    expect(seeker).to_have_url(server.url + "/seeker")  # no request while it navigates
    expect(mummy.locator("#aid")).to_contain_text("the start field")  # not "0 cells"
    for _ in range(40):  # until the first figure has moved
        seeker_step(server, seeker)
        if call(seeker, "/api/seeker/state")["view"]["phase"] == "seeker_card":
            break
    expect(mummy.locator(".aid rect")).not_to_have_count(0)
    counts = mummy.locator("#aid .aid-count").all_inner_texts()
    assert len(counts) == 2 and re.search(r"[1-9]\d* cells?", counts[0]), counts
    shot(mummy, "mummy-aid")
