"""A whole maze game with the mummy's seat in another house: chromium opens the remote
link through each provider's stand-in (GET streams held back, as Cloudflare's quick
tunnels do), the page picks the streamed POST by itself, the mummy plays every one of
its turns from that page, and the connection drops at each phase of the mummy's turn
and comes back: the page resumes with the whole log, nothing missed or doubled."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from companion.bench.clients import Site
from companion.games.mummy.players import MummyBot, SeekerBot
from companion.games.mummy.record import command_to_json
from companion.games.mummy.views import visible_events
from companion.service.autoplay import put_board_right, wait_until
from companion.service.webserver import Limits
from companion.service.webthread import ServerThread
from companion.tunnel.standin import PROFILES, StandIn
from companion.web import create_app
from companion.web.remote import listener_app
from tests.test_browser import (
    CHROMIUM_ARGS,
    NAVIGATION_MS,
    PHONE,
    sync_api,
)  # skips without chromium

CHROMIUM = "/usr/bin/chromium"


def _in_step(page: Any) -> None:
    """The page shows every announcement the seat's state holds (its live updates came)."""
    deadline = time.monotonic() + 15
    while True:
        shown, state = page.evaluate(
            "() => fetch('/api/mummy/state').then(r => r.json())"
            ".then(s => [document.querySelectorAll('#log li').length, s.log.length])"
        )
        if shown == state:
            return
        assert time.monotonic() < deadline, (shown, state)
        time.sleep(0.1)


@pytest.mark.parametrize("provider", list(PROFILES))
def test_a_whole_game_with_the_mummy_far_away(tmp_path: Path, provider: str) -> None:
    from companion.games.mummy.commands import EndMummyMove, Move, MummyStep, RollMummyDie
    from companion.games.mummy.state import Phase
    from tests.test_service import start

    appliance = start(tmp_path)
    app = create_app(appliance.service, secret_key=os.urandom(32), appliance=appliance)
    service, board = appliance.service, appliance.mock_board
    try:
        with (
            ServerThread(app, limits=Limits(threads=8)) as web,
            ServerThread(listener_app(app), limits=Limits(threads=8), name="tunnel") as tunnel,
            StandIn(tunnel.port, PROFILES[provider], buffer_get=True) as edge,
            sync_api.sync_playwright() as p,
        ):
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            site = Site(web.port)
            status = site.host_post("/api/host/game", {"colours": ["red", "blue"]})
            codes = {s["seat"]: s["code"] for s in status["table"]["seats"]}
            put_board_right(appliance)
            opened = app.extensions["companion.remote"].open("mummy", provider=provider)
            opened.public_url = edge.url
            page = browser.new_context(ignore_https_errors=True, viewport=PHONE).new_page()
            page.set_default_timeout(15000)
            page.set_default_navigation_timeout(NAVIGATION_MS)
            lives: list[str] = []
            page.on("request", lambda r: lives.append(r.url) if r.url.endswith("/live") else None)
            page.goto(opened.link)
            assert page.url == edge.url + "/mummy"
            sync_api.expect(page.locator("#guidance")).to_contain_text("turn")
            wait_until(lambda: page.evaluate("sessionStorage.getItem('companion-live')") == "post")
            # Far away: two live channels, not one (the evaluate lets Playwright hand over
            # its request events, which it does only while it waits on the page).
            wait_until(lambda: page.evaluate("0") == 0 and len(lives) >= 2, timeout=30)
            # The table screen at home says where the mummy's player is, in words.
            screen = browser.new_context(viewport=PHONE).new_page()
            screen.goto(f"{site.base}/join/{codes['table']}")
            screen.locator("#join").click()
            far = screen.locator("#far")
            sync_api.expect(far).to_have_attribute("data-state", "here")
            assert page.evaluate("document.body.dataset.far") == "1"  # sends commands twice
            assert screen.evaluate("document.body.dataset.far") == "0"  # at the table: once
            # The host lets the computer stand in, and hands the seat back (its own page).
            host = browser.new_context(viewport=PHONE)
            jar = next(h.cookiejar for h in site.host.handlers if hasattr(h, "cookiejar"))
            host.add_cookies(
                [{"name": c.name, "value": c.value or "", "url": site.base} for c in jar]
            )
            hosting = host.new_page()
            hosting.goto(site.base + "/host")
            hosting.get_by_role("button", name="Let the computer stand in").click()
            sync_api.expect(hosting.locator("#remote-standin-words")).to_contain_text("stands in")
            sync_api.expect(far).to_contain_text("The computer stands in for the mummy")
            hosting.get_by_role("button", name="Hand the seat back").click()
            sync_api.expect(far).to_contain_text("connected")
            assert app.extensions["companion.appliance"].computer.level is None
            host.close()
            opened.grace_s = 1.0

            setup = service.game.setup
            seekers, mummy = SeekerBot(setup.maze), MummyBot(setup)
            mummy.observe(visible_events(service.game.last_events, "mummy"))
            dropped: set[Phase] = set()
            sent = 0
            for _ in range(5000):
                state = service.game.current
                if state.is_over:
                    break
                if not service.published.judgement.matches:
                    put_board_right(appliance)
                    continue
                if state.is_mummy_turn:
                    _in_step(page)
                    if state.phase not in dropped:  # a dropout at each phase of its turn
                        dropped.add(state.phase)
                        edge.drop()
                        if len(dropped) == 1:  # once long enough to show offline at home
                            sync_api.expect(far).to_have_attribute("data-state", "offline")
                            sync_api.expect(far).to_contain_text("nothing is forfeited")
                        else:
                            time.sleep(1.0)
                        edge.drop(False)
                    command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
                    body = json.dumps(command_to_json(command, setup.maze))
                    # As the page sends it: twice, one id (a lost piece costs nothing).
                    answer = page.evaluate(
                        "body => postTwice('/api/mummy/command', JSON.parse(body))"
                        ".then(() => 200, err => err.status)",
                        body,
                    )
                    assert answer == 200, answer
                    sent += 1
                    events = list(service.published.events)
                else:
                    command = seekers.choose(state)
                    home = service.board.position_of(state, state.figure)
                    if isinstance(command, Move) and command.to != home:
                        assert home is not None and board is not None
                        board.lift(home)
                        board.place(command.to)
                        wait_until(lambda: service.game.current.phase is not Phase.SEEKER_MOVING)
                        events = list(service.published.events)
                    else:
                        events = service.submit(f"seeker{state.seeker}", command)
                mummy.observe(visible_events(events, "mummy"))
            assert service.game.current.is_over
            mummy_kinds = (RollMummyDie, MummyStep, EndMummyMove)
            played = [c for c in service.game.commands if isinstance(c, mummy_kinds)]
            assert len(played) == sent  # each command the page sent twice was played once
            assert {Phase.MUMMY_ROLL, Phase.MUMMY_MOVING} <= dropped
            _in_step(page)  # the end reached the far page too
            sync_api.expect(far).to_have_attribute("data-state", "here")
            assert page.evaluate("sessionStorage.getItem('companion-live')") == "post"
            browser.close()
    finally:
        appliance.hub.end_streams()
        appliance.close()
