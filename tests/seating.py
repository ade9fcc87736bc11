"""Joining seats and sending forms the way a phone does: open the page, send its form
back with the page's CSRF token (shared by the page tests)."""

from __future__ import annotations

import re
from typing import Any

TOKEN = re.compile(r'name="csrf" value="([^"]+)"')


def token_of(html: str) -> str:
    found = TOKEN.search(html)
    assert found is not None, html[:400]
    return found.group(1)


def join(client: Any, code: str, *, takeover: bool = True, name: str | None = None) -> Any:
    """Open a seat's link and confirm (taking the seat over if another phone has it),
    with the name the player typed, if any."""
    page = client.get(f"/join/{code}")
    assert page.status_code == 200, page.get_data(as_text=True)
    data = {"csrf": token_of(page.get_data(as_text=True))}
    if takeover:
        data["takeover"] = "1"
    if name is not None:
        data["player_name"] = name
    return client.post(f"/join/{code}", data=data)


def post_form(client: Any, page: str, path: str, data: dict[str, str]) -> Any:
    """Open ``page`` and post its form to ``path`` with ``data`` and the page's token."""
    html = client.get(page).get_data(as_text=True)
    return client.post(path, data={**data, "csrf": token_of(html)})


def host_undo(host: Any) -> Any:
    """The host's Undo as the page sends it: with the key of the action it showed."""
    key = host.get("/api/host/status").get_json()["game"]["action_key"]
    return host.post("/api/host/undo", json={"action": key})


def host_by_pin(client: Any, pin: str) -> Any:
    """Open the host page with the PIN (after "New codes" from another device, or a
    start that ended an idle host's cookie)."""
    page = client.get("/host")
    assert page.status_code == 403, page.status_code  # the PIN form
    res = client.post("/host", data={"pin": pin, "csrf": token_of(page.get_data(as_text=True))})
    assert res.status_code == 303, res.get_data(as_text=True)
    return res


def seat_codes(host: Any, status: dict[str, Any]) -> dict[str, str]:
    """Each seat's code as the host page shows it (a host status).  The mummy's is hidden
    once its seat is joined (a rematch keeps it): the host asks for it again, as the
    host page's button does, which every page is told."""
    codes = {s["seat"]: s["code"] for s in status["table"]["seats"]}
    if codes.get("mummy", "") is None:
        again = host.post("/api/host/mummy-code", json={})
        assert again.status_code == 200, again.get_json()
        codes = {s["seat"]: s["code"] for s in again.get_json()["table"]["seats"]}
    return codes
