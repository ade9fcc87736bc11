"""Replays in a real browser (chromium at 390x844): a finished maze game from the end
screen and from past games, stepped to its end, with the reveal and the mummy's view
beside the truth; Loot N Run's track and the crypt's board; the exported file opened
with the network blocked; the statistics page of 52 simulated games.

Screenshots go to ``REPLAY_SHOTS`` (default /tmp): the reveal and the statistics."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import NAVIGATION_MS, phone, sync_api
from tests.test_end_browser import browser, put_board_right, site

__all__ = ["browser", "site"]

SHOTS = Path(os.environ.get("REPLAY_SHOTS", "/tmp"))


def post(page: Any, path: str, body: dict[str, Any]) -> int:
    """A JSON request with the page's cookies (beside the page: a page that reloads
    itself meanwhile cannot lose it)."""
    status: int = page.request.post(_base(page) + path, data=body).status
    return status


def _base(page: Any) -> str:
    return "/".join(page.url.split("/", 3)[:3])


def at_end(page: Any) -> str:
    page.locator("#replay-last").click()
    status = page.locator(".replay-at")
    total = page.locator("#replay-moment").get_attribute("max")
    sync_api.expect(status).to_contain_text(f"{total} of {total}")
    return str(total)


def test_a_maze_game_replays_from_the_end_screen_with_the_reveal_and_each_seat(
    site, browser, tmp_path
) -> None:
    from companion.service.autoplay import play_on

    appliance, url = site
    expect = sync_api.expect
    host = phone(browser)
    host.goto(url + "/")
    expect(host).to_have_url(url + "/host")
    assert post(host, "/api/host/game", {"colours": ["red", "blue"], "aid": True}) == 200
    # The host page reloads itself to show the new game's codes: let it, before going on.
    expect(host.locator('[data-seat="mummy"] code.code')).to_have_count(1)
    game = appliance.service.published.game_id
    put_board_right(appliance)
    # While the game runs, its replay is refused in words.
    host.goto(f"{url}/replay/{game}")
    expect(host.locator(".error")).to_contain_text("still being played")
    assert host.locator("#replay-data").count() == 0

    play_on(appliance)
    assert appliance.service.game.current.is_over
    host.goto(url + "/host")
    host.locator("#end-replay").click()
    expect(host).to_have_url(f"{url}/replay/{game}")
    reveal = host.locator(".reveal")
    expect(reveal.locator("polyline.mummy-path.whole")).to_have_count(1)
    catches = len(appliance.service.published.summary.catches)
    expect(reveal.locator(".catch")).to_have_count(catches)
    reveal.scroll_into_view_if_needed()
    reveal.screenshot(path=str(SHOTS / "replay-reveal.png"))

    # Step by step with the keyboard, then to the end.
    host.locator("h1").click()
    host.keyboard.press("ArrowRight")
    expect(host.locator(".replay-at")).to_contain_text(re.compile(r"\b1 of "))
    total = at_end(host)
    assert int(total) == len(appliance.service.game.commands)
    board = host.locator(".replay-board")
    final = appliance.service.game.current
    standing = sum(1 for f in range(len(final.positions)) if not final.figure_is_out(f))
    expect(board.locator(".figure-mark")).to_have_count(standing)
    # The mummy's view: no figure, its aid, and where each figure really stood beside it.
    host.locator("#replay-seat").select_option("mummy")
    expect(board.locator(".figure-mark")).to_have_count(0)
    expect(board.locator(".real-mark")).to_have_count(standing)
    shown = "d => d.frames[d.frames.length - 1].aid.reduce((n, f) => n + f.cells.length, 0)"
    cells = host.evaluate(
        f"({shown})(JSON.parse(document.getElementById('replay-data').textContent))"
    )
    assert board.locator("rect.aid").count() == cells
    expect(host.locator(".replay-aid")).to_contain_text("cells possible")
    host.locator("#replay-moment").fill(str(int(total) // 2))
    host.locator(".replay-view").screenshot(path=str(SHOTS / "replay-mummy-view.png"))
    # Red's view: Blue's cards are not Red's to know.
    host.locator("#replay-seat").select_option("seeker0")
    expect(host.locator(".replay-seekers li").nth(1)).to_contain_text("not known to this seat")
    expect(host.locator(".replay-seekers li").nth(0)).not_to_contain_text("not known")
    # Past games link to it too.
    host.goto(url + "/host/games")
    link = host.locator(f'li[data-game="{game}"] a', has_text="Replay this game")
    expect(link).to_have_attribute("href", f"/replay/{game}")

    # The one-file export, German, opened with every request blocked.
    with host.expect_download() as download:
        host.goto(f"{url}/replay/{game}")
        host.get_by_role("link", name="Save as one file (German)").click()
    assert download.value.suggested_filename == f"pyramid-game-{game}-de.html"
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    context = browser.new_context(viewport={"width": 390, "height": 844}, offline=True)
    asked: list[str] = []

    def block(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    offline = context.new_page()
    offline.set_default_timeout(8000)
    offline.goto(saved.as_uri())
    expect(offline.locator("html")).to_have_attribute("lang", "de")
    expect(offline.locator(".reveal h2")).to_have_text("Die Auflösung")
    offline.locator("#replay-last").click()
    expect(offline.locator(".replay-at")).to_contain_text(f"{total} von {total}")
    offline.screenshot(path=str(SHOTS / "replay-export-offline-de.png"), full_page=True)
    assert asked == []
    context.close()


def test_loot_n_run_and_the_crypt_replay(site, browser) -> None:
    from tests.test_crypt_service import COMPUTER, HUMAN, give_board_to_crypt, play_to_the_end

    appliance, url = site
    expect = sync_api.expect
    host = phone(browser)
    host.goto(url + "/")
    expect(host).to_have_url(url + "/host")
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    assert post(host, "/lootnrun/api/new", {"players": players}) == 200
    loot = appliance.hub.service("lootnrun").published.game_id
    for command in (
        {"cmd": "loot"},
        {"cmd": "loot"},
        {"cmd": "correction", "player": 0, "points": 12, "reason": "a Run", "cards": 0},
        {"cmd": "correction", "player": 1, "points": 35, "reason": "test", "cards": 0},
        {"cmd": "final_reveal", "player": 0},
        {"cmd": "final_reveal", "player": 1},
    ):
        assert post(host, "/lootnrun/api/command", command) == 200, command
    host.goto(f"{url}/replay/{loot}")
    expect(host.locator(".chart polyline")).to_have_count(2)
    at_end(host)
    expect(host.locator(".replay-scores")).to_contain_text("35")

    crypt = appliance.hub.service("crypt")
    crypt.computer_delay_s = 0.0
    crypt.new_game(players=2, computer=COMPUTER, first_player=HUMAN, seed=3)
    give_board_to_crypt(appliance)
    play_to_the_end(appliance)
    game = crypt.published.game_id
    host.goto(url + "/crypt")
    host.locator("#end-replay").click()
    expect(host).to_have_url(f"{url}/replay/{game}")
    expect(host.locator(".crypt-board")).to_have_count(1)
    at_end(host)
    state = crypt.published.state
    cubes = sum(bin(c).count("1") for c in state.cubes)
    assert host.locator(".crypt-board rect[fill]").count() == cubes


@pytest.fixture
def stats_site(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """The companion on a journal of 52 simulated games (names beside it)."""
    from companion.mazes import load_maze
    from companion.service.simulated_journal import write_games
    from companion.service.webserver import Limits
    from companion.service.webthread import ServerThread
    from companion.web import create_app
    from tests.test_service import start

    maze, text = load_maze(None)
    write_games(tmp_path / "journal.sqlite3", maze, text, games=52)
    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    try:
        with ServerThread(app, limits=Limits(threads=8)) as web:
            yield appliance, web.url
    finally:
        appliance.close()


def test_the_statistics_page_of_fifty_two_simulated_games(stats_site, browser) -> None:
    _, url = stats_site
    expect = sync_api.expect
    page = browser.new_context(viewport={"width": 800, "height": 1000}).new_page()
    page.set_default_navigation_timeout(NAVIGATION_MS)
    page.goto(url + "/")
    page.goto(url + "/stats")
    expect(page.locator("main > p").first).to_contain_text("52 finished maze games")
    charts = page.locator("svg.stats-chart")
    expect(charts).to_have_count(6)
    for chart in charts.all():
        assert chart.get_attribute("role") == "img" and chart.get_attribute("aria-label")
    page.screenshot(path=str(SHOTS / "statistics.png"), full_page=True)
    # By keyboard: the merge form is reached and sent without a mouse.
    page.get_by_label("Merge the name").fill("Anna")
    page.get_by_label("into").fill("Ben")
    page.get_by_label("into").press("Enter")
    expect(page.locator(".stats-names")).to_contain_text("Anna counts as Ben.")
