"""Phone pages a thumb can use (issue 26): the mummy's move in one gesture.

In chromium at 390x844 against ``companion run --mock``: the mummy taps a distant lit
cell, sees the way on its page, confirms with one "Go", and the companion plays the
steps one by one (each announced in the log, the table following)."""

from __future__ import annotations

import re
from typing import Any

from tests.test_browser import Server, browser, seeker_turn, server, shot, sync_api
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
