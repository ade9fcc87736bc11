"""The pages in a real browser (Playwright on Debian's chromium) against ``companion run
--mock``: the host sets up a game, seekers and the mummy join and play full turns, the
table follows live.  Figures are moved on the simulated board through ``/sim``.

Screenshots of each page on a phone viewport go to ``/tmp/companion-*.png``.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parent.parent
PHONE = {"width": 390, "height": 844}
#: How long a page may take to load: a busy two-core CI machine running several chromium
#: pages has taken over 8 s (the page-open figure a player waits on is ``companion bench``'s).
NAVIGATION_MS = 20_000
#: Headless in a container (no sandbox, no GPU), and nothing fetched from the internet.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path("/tmp")

if not CHROMIUM.exists():
    pytest.skip(
        "Debian's chromium is not installed (/usr/bin/chromium): apt-get install chromium",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")


class Server:
    """``companion run --mock`` on a free port of 127.0.0.1, with its log."""

    def __init__(self, state_dir: Path) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion",
                "run",
                "--mock",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--state-dir",
                str(state_dir),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert self.proc.stdout is not None
        self.log: list[str] = []
        deadline = time.monotonic() + 30
        port = None
        while port is None and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            self.log.append(line)
            if "ready on" in line:
                port = int(line.rsplit(":", 1)[1])
        assert port, "".join(self.log)
        self.url = f"http://127.0.0.1:{port}"
        self._opener: Any = None

    def _host(self) -> Any:
        """An HTTP client holding the host's cookie (``/sim`` and the details of
        ``/healthz`` are the host's): it opens the host page with the PIN from the log."""
        if self._opener is None:
            opener = urllib.request.build_opener(
                urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
            )
            try:
                opener.open(self.url + "/host", timeout=5)
            except urllib.error.HTTPError as exc:  # the PIN form (403)
                page = exc.read().decode()
            token = re.search(r'name="csrf" value="([^"]+)"', page)
            pin = re.search(r"host PIN (\d{6})", "".join(self.log))
            assert token is not None and pin is not None
            form = urllib.parse.urlencode({"pin": pin.group(1), "csrf": token.group(1)})
            opener.open(self.url + "/host", data=form.encode(), timeout=5)
            self._opener = opener
        return self._opener

    def get(self, path: str) -> Any:
        with self._host().open(self.url + path, timeout=5) as res:
            return json.load(res)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with self._host().open(req, timeout=5) as res:
            return json.load(res)

    def toggle(self, position: int) -> None:
        self.post("/sim/api/toggle", {"position": position})

    def wait_board_ok(self) -> None:
        wait(lambda: self.get("/healthz")["board"]["matches"])

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=15)
        return "".join(self.log) + out


def wait(check: Any, timeout: float = 8.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("companion"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
        )
        yield browser
        browser.close()


def phone(browser: Any) -> Any:
    page = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True).new_page()
    page.set_default_timeout(8000)
    page.set_default_navigation_timeout(NAVIGATION_MS)
    return page


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"companion-{name}.png"), full_page=True)


def seeker_turn(server: Server, page: Any, faces: list[str], face: str, camp: int) -> int:
    """Throw (physical dice), announce, move the figure on the simulated board, end."""
    expect = sync_api.expect
    expect(page.locator("#guidance")).to_contain_text("Your turn")
    for f in faces:
        page.get_by_role("button", name=f"add {f}", exact=True).click()
    page.get_by_role("button", name=re.compile("Send the throw")).click()
    expect(page.locator("#guidance")).to_contain_text("Tap a die to announce it")
    page.get_by_role("button", name=f"announce {face}", exact=True).first.click()
    expect(page.locator("#guidance")).to_contain_text(
        f"cell{'' if face == '1' else 's'} on the board"
    )
    state = page.evaluate("fetch('/api/seeker/state').then(r => r.json())")
    target = state["view"]["legal_destinations"][0]
    server.toggle(camp)
    server.toggle(target)
    expect(page.locator("#guidance")).to_contain_text(re.compile("End your turn|play the card"))
    page.get_by_role("button", name="End the turn").click()
    expect(page.locator("#guidance")).not_to_contain_text("Your turn")
    return int(target)


def test_a_game_through_the_pages(server: Server, browser: Any) -> None:
    expect = sync_api.expect
    log = "".join(server.log)
    assert re.search(r"host PIN \d{6}", log)
    assert "phones open http://" in log

    # The first device to open the companion is the host; it sets up a game.
    host = phone(browser)
    host.goto(server.url + "/")
    expect(host).to_have_url(server.url + "/host")
    assert host.locator(".address .qr svg").count() == 1
    host.get_by_label("Real dice: players enter what they throw").check()
    host.get_by_role("button", name="Start the game").click()
    expect(host.locator("#seats li")).to_have_count(5)  # with the watching seat
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    host.locator('[data-seat="seeker0"] summary').click()
    shot(host, "host")

    # The simulated board still holds the previous game's four figures: two come off.
    for position in sorted(set(server.get("/sim/api/board")["magnets"]) - {144, 145}):
        server.toggle(position)
    server.wait_board_ok()

    # The table screen joins by its link and shows both figures in the camp.
    table = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    table.set_default_timeout(8000)
    table.set_default_navigation_timeout(NAVIGATION_MS)
    table.goto(f"{server.url}/join/{codes['table']}")
    table.get_by_role("button", name="Join as the Table screen").click()
    expect(table).to_have_url(server.url + "/table")
    expect(table.locator(".piece[data-colour]")).to_have_count(2)
    expect(table.locator("#guidance")).to_contain_text("Red's turn")

    # A seeker joins by typing the code on the start page.
    red = phone(browser)
    red.goto(server.url + "/")
    red.get_by_label(re.compile("Enter the code")).fill(codes["seeker0"].lower())
    red.get_by_role("button", name="Join").click()
    expect(red).to_have_url(server.url + "/seeker")
    expect(red.locator("#hand li")).to_have_count(5)
    shot(red, "seeker-start")

    # The mummy joins (as from the QR code) and follows the announcements.
    mummy = phone(browser)
    mummy_json: list[Any] = []
    mummy.on(
        "response",
        lambda r: (
            mummy_json.append(r.json()) if "/api/" in r.url and "stream" not in r.url else None
        ),
    )
    mummy.goto(f"{server.url}/join/{codes['mummy']}")
    mummy.get_by_role("button", name="Join as the Mummy").click()
    expect(mummy).to_have_url(server.url + "/mummy")
    expect(mummy.locator("#guidance")).to_contain_text("Red's turn")

    # A full seeker turn: the table follows live.
    red_at = seeker_turn(server, red, ["2", "2", "3", "4", "arrow"], "2", 144)
    expect(table.locator(f'.piece[data-colour="red"][data-node="{red_at}"]')).to_have_count(1)
    expect(mummy.locator("#log")).to_contain_text("Red announces 2")
    expect(table.locator("#log")).to_contain_text("Red announces 2")

    blue = phone(browser)
    blue.goto(f"{server.url}/join/{codes['seeker1']}")
    blue.locator("#join").click()
    expect(blue.locator("#guidance")).to_contain_text("Your turn")
    blue.get_by_role("button", name="add mummy", exact=True).click()
    for f in ["3", "3", "4", "arrow"]:
        blue.get_by_role("button", name=f"add {f}", exact=True).click()
    shot(blue, "seeker-throw")
    blue.get_by_role("button", name="remove mummy").click()
    blue.get_by_role("button", name="add 1", exact=True).click()
    blue.get_by_role("button", name=re.compile("Send the throw")).click()
    blue.get_by_role("button", name="announce 3", exact=True).first.click()
    blue.get_by_label("Show where I can go").check()
    expect(blue.locator(".lit rect")).not_to_have_count(0)
    shot(blue, "seeker-move")
    state = blue.evaluate("fetch('/api/seeker/state').then(r => r.json())")
    server.toggle(145)
    server.toggle(state["view"]["legal_destinations"][0])
    expect(blue.locator("#guidance")).to_contain_text(re.compile("End your turn|play the card"))
    blue.get_by_role("button", name="End the turn").click()

    # A full mummy turn: throw, one step by tapping the maze, one by arrow, then stop.
    expect(mummy.locator("#guidance")).to_contain_text("throw the mummy die")
    expect(mummy.locator("#log")).to_contain_text("Blue announces 3")
    mummy.get_by_role("button", name="the die shows 3").click()
    expect(mummy.locator("#steps")).to_have_text("3 steps left")
    # The page redraws the lit cells on every update, so read a lit cell's place in one
    # step inside the page: an element found first and measured later may be gone by then.
    expect(mummy.locator(".lit rect")).not_to_have_count(0)
    box = mummy.evaluate(
        "() => { const r = document.querySelector('.lit rect').getBoundingClientRect();"
        " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; }"
    )
    mummy.mouse.click(box["x"], box["y"])
    expect(mummy.locator("#steps")).to_have_text("2 steps left")
    mummy.locator(".pad button.arrow").first.click()
    expect(mummy.locator("#steps")).to_have_text("1 step left")
    shot(mummy, "mummy-moving")
    mummy.get_by_role("button", name="End the move here").click()
    expect(mummy.locator("#guidance")).to_contain_text("Red's turn")
    expect(table.locator("#guidance")).to_contain_text("Red's turn")
    expect(table.locator(".mummy-piece")).to_have_count(1)
    shot(table, "table")
    shot(red, "seeker-waiting")

    # The mummy's page and every JSON it received hold no seeker's position or card.
    assert mummy.locator(".piece[data-colour]").count() == 0
    assert mummy_json
    for data in mummy_json:
        text = json.dumps(data)
        for key in ('"positions"', '"hand"', '"legal_destinations"', '"figure_moved"'):
            assert key not in text

    # Another device cannot open the mummy's page without its code.
    other = phone(browser)
    response = other.goto(server.url + "/mummy")
    assert response is not None and response.status == 403
    other.goto(server.url + "/")
    shot(other, "landing")


def put_figures_in_the_camp(server: Server, figures: int) -> None:
    """A new game starts with every figure on its camp slot (cells 0..143, slots 144..)."""
    want = set(range(144, 144 + figures))
    for position in sorted(set(server.get("/sim/api/board")["magnets"]) ^ want):
        server.toggle(position)
    server.wait_board_ok()


def test_physical_cards_entered_on_the_seekers_pages(server: Server, browser: Any) -> None:
    expect = sync_api.expect
    pin = re.search(r"host PIN (\d{6})", "".join(server.log))
    assert pin is not None

    # A second device becomes host with the PIN from the log, and deals physical cards.
    host = phone(browser)
    host.on("dialog", lambda dialog: dialog.accept())
    host.goto(server.url + "/host")
    host.get_by_label(re.compile("Enter the host PIN")).fill(pin.group(1))
    host.get_by_role("button", name="Open the host page").click()
    expect(host.locator("#setup")).to_be_visible()
    host.get_by_label(re.compile("Real cards")).check()
    host.get_by_role("button", name="Start a new game").click()
    expect(host.locator(".notice:not(.lasting)")).to_contain_text("entering the mission cards")
    # Every seat joined in the first game: the codes hide behind a tap.
    expect(host.locator("#codes-box")).not_to_have_attribute("open", "")
    host.locator("#codes-box > summary").click()
    codes = {
        li.get_attribute("data-seat"): li.locator(".code").inner_text()
        for li in host.locator("#seats li").all()
    }
    put_figures_in_the_camp(server, 2)

    # The same colours keep the seats: new phones take them over after a confirmation,
    # and the phones of the first game are told.
    red, blue = phone(browser), phone(browser)
    for page, seat in ((red, "seeker0"), (blue, "seeker1")):
        page.goto(f"{server.url}/join/{codes[seat]}")
        expect(page.locator(".notice")).to_contain_text("open on another phone")
        page.get_by_role("button", name=re.compile("Take over")).click()
    expect(red.locator("#guidance")).to_contain_text("Tap the one card of each colour")
    picks = {
        red: ["scarab", "papyrus scroll", "canopic jar", "eye of Horus", "death mask"],
        blue: ["sun disk", "ibis statue", "lotus flower", "cobra diadem", "sun barque"],
    }
    for page, names in picks.items():
        for name in names:
            page.get_by_role("button", name=re.compile(name)).click()
    expect(red.locator('.card-pick[aria-pressed="true"]')).to_have_count(5)
    shot(red, "seeker-cards")
    red.get_by_role("button", name="Send my cards").click()
    expect(red.locator("#guidance")).to_contain_text("Your cards are in")
    expect(host.locator('[data-seat="seeker0"] .joined')).to_have_text("cards in", timeout=6000)
    blue.get_by_role("button", name="Send my cards").click()
    expect(red.locator("#guidance")).to_contain_text("Your turn")
    expect(red.locator("#hand")).to_contain_text("red scarab")
    expect(blue.locator("#hand")).to_contain_text("blue lotus flower")
    assert blue.locator("#hand").inner_text().count("\n") >= 4
