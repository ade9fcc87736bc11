"""The board check's page in a real browser (Playwright on Debian's chromium) against
``companion run --mock``: the host walks a few cells with figures moved on the simulated
board (``/sim``), a dead sensor is found, the report is saved and listed; the mummy's
device is refused in words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_browser import Server, browser, phone, server, wait  # noqa: F401

sync_api = pytest.importorskip("playwright.sync_api")


def host_page(server: Server, browser: Any) -> Any:  # noqa: F811
    page = phone(browser)
    page.goto(server.url + "/host")
    pin = next(line for line in server.log if "host PIN" in line).split("host PIN ")[1][:6]
    if page.locator("input[name=pin]").count():
        page.fill("input[name=pin]", pin)
        page.locator("form button").first.click()
    return page


def test_the_board_check_walks_cells_and_saves_a_report(server: Server, browser: Any) -> None:  # noqa: F811
    page = host_page(server, browser)
    page.goto(server.url + "/check")
    start = page.locator("#start")
    box = start.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44
    # the first row only: 12 cells, A1 to L1 in the reference config
    page.locator("#start-quick").click()
    says = page.locator("#check-says")
    page.wait_for_function("() => document.querySelector('#check-says').dataset.kind === 'empty'")
    for position in server.get("/check/api/state")["reading"]:  # the maze's figures
        server.toggle(position)
    wait(lambda: says.get_attribute("data-kind") == "centre", 10)  # the empty board passed
    names = server.get("/check/api/state")["names"]
    walked = 0
    while walked < 3:
        kind = says.get_attribute("data-kind")
        position = int(says.get_attribute("data-position") or -1)
        if kind == "centre":
            # the reading is shown live: nothing yet
            page.wait_for_function(
                "() => document.querySelector('#check-reading').textContent.includes('nothing')"
            )
            if walked == 2:  # the third cell: nobody puts a figure; nothing reads
                page.locator("#press-skip").click()
                walked += 1
                continue
            server.toggle(position)  # a figure on the lit cell
            page.wait_for_function(
                "p => document.querySelector('#check-says').dataset.kind === 'off_centre'",
                arg=position,
            )
            assert names[position] in page.locator("#check-reading").inner_text()
            for button in page.locator("#check-walk button:visible").all():
                box = button.bounding_box()  # every control at least 44 x 44 CSS px
                assert box is not None and box["width"] >= 44 and box["height"] >= 44
            page.locator("#press-next").click()  # it stood 5 mm off: still read
            wait(
                lambda p=position: (
                    says.get_attribute("data-kind") == "centre"
                    and int(says.get_attribute("data-position") or -1) != p
                )
            )
            server.toggle(position)  # lifted
            walked += 1
    third = names[int(server.get("/check/api/state")["step"]["position"]) - 1]
    page.locator("#press-finish").click()
    page.wait_for_function("() => document.querySelector('#check-saved').textContent !== ''")
    faults = page.locator("#check-faults").inner_text()
    assert f"{third} never read the figure" in faults
    page.locator("#check-reports button").first.click()
    page.wait_for_function("() => !document.querySelector('#check-report').hidden")
    assert f"{third} never read the figure" in page.locator("#check-report-lines").inner_text()
    # the board goes back to the game that had it
    page.locator("#end").click()
    wait(lambda: server.get("/check/api/state")["holds_board"] is False)
    report = server.get("/check/api/reports")["reports"]
    assert len(report) == 1


def test_the_mummys_device_is_refused_in_words(server: Server, browser: Any) -> None:  # noqa: F811
    page = host_page(server, browser)
    page.goto(server.url + "/host")
    page.locator("#setup button[type=submit]").click()
    page.wait_for_selector("#seats li[data-seat=mummy]")
    page.locator("#seats li[data-seat=mummy] summary").click(force=True)
    page.locator("#codes-box").evaluate("d => d.open = true")
    page.locator("#seats li[data-seat=mummy] details").evaluate("d => d.open = true")
    page.locator("#seats li[data-seat=mummy] a.button").click()
    page.locator("form button").first.click()
    page.wait_for_load_state()
    page.wait_for_timeout(300)
    res = page.goto(server.url + "/check")
    assert res is not None and res.status == 403
    assert "board check shows where every magnet stands" in page.content()
