"""Every write path of the companion on a really full filesystem (run by
``test_full_disk.py`` inside ``unshare -rm``, with ``STATE`` a small tmpfs mounted there).

It starts a mock appliance with its state directory on the tmpfs, sets a game up, fills
the filesystem with a filler file until the kernel answers ENOSPC, tries each write path,
frees the space and tries again; it prints one JSON object of what each path answered.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from tests.seating import host_undo
from tests.test_pages import FACES, Table, start, wait_until


def fill(directory: Path) -> Path:
    """Write a filler file until the filesystem is full (ENOSPC from the kernel)."""
    filler = directory / "filler"
    chunk = b"x" * 4096
    with filler.open("wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
                f.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    for size in (512, 64, 1):  # the last blocks too
        try:
            with filler.open("ab", buffering=0) as f:
                while True:
                    f.write(b"x" * size)
                    f.flush()
        except OSError:
            pass
    return filler


def answer(res: Any) -> dict[str, Any]:
    body = res.get_json(silent=True) or {}
    return {
        "status": res.status_code,
        "error": body.get("error") if isinstance(body, dict) else None,
        "text": res.get_data(as_text=True)[:600],
    }


def main() -> None:
    state = Path(sys.argv[1])
    out: dict[str, Any] = {}
    appliance = start(state)
    table = Table(appliance)
    table.new_game(["red", "blue"], dice="physical")
    seekers = {s: table.device(s) for s in ("seeker0", "seeker1")}
    service = table.service
    turn = service.game.current.seeker
    seeker = seekers[f"seeker{turn}"]
    res = seeker.post("/api/seeker/command", json={"cmd": "roll", "faces": FACES})
    assert res.status_code == 200, res.json
    assert (
        table.host.post(
            "/lootnrun/api/new",
            json={
                "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
            },
        ).status_code
        == 200
    )
    table.host.post("/api/host/board", json={"game": "mummy"})
    res = seeker.post("/api/seeker/command", json={"cmd": "announce", "face": "1"})
    assert res.status_code == 200, res.json
    targets = res.json["state"]["view"]["legal_destinations"]
    filler = fill(state)
    try:
        out["undo"] = answer(host_undo(table.host))
        out["crypt"] = answer(table.host.post("/crypt/api/new", json={}))
        out["codes"] = answer(table.host.post("/api/host/codes", json={}))
        out["new_game"] = answer(table.host.post("/api/host/game", json={"colours": ["red"]}))
        out["lootnrun"] = answer(table.host.post("/lootnrun/api/command", json={"cmd": "loot"}))
        out["status_full"] = table.host.get("/api/host/status").get_json()["journal"]
        # The board check: its report cannot be written.
        start_check = table.host.post("/check/api/start", json={"pause": True, "quick": True})
        out["check_start"] = start_check.status_code
        finished = table.host.post("/check/api/press", json={"answer": "finish"})
        wait_until(
            lambda: (
                table.host.get("/check/api/state").get_json().get("not_saved")
                or table.host.get("/check/api/state").get_json().get("saved")
            ),
            5,
        )
        out["check_state"] = {
            k: table.host.get("/check/api/state").get_json().get(k) for k in ("saved", "not_saved")
        }
        out["check_finish"] = finished.status_code
        out["check_reports"] = table.host.get("/check/api/reports").get_json()["reports"]
        table.host.post("/check/api/end", json={})
        # A put-down on the board: refused by the journal, the seeker is told why.
        now = service.game.current
        appliance.mock_board.lift(service.board.position_of(now, now.figure))
        appliance.mock_board.place(targets[0])
        time.sleep(1.5)
        out["put_down_guidance"] = seeker.get("/api/seeker/state").get_json()["guidance"]
        out["put_down_phase"] = service.game.current.phase.value
    finally:
        filler.unlink()
    # Room again: one maze write clears "storage full" for every game.
    time.sleep(1.5)
    out["after_phase"] = service.game.current.phase.value
    out["status_after"] = table.host.get("/api/host/status").get_json()["journal"]
    out["healthz_after"] = table.host.get("/healthz").get_json().get("status")
    out["lootnrun_after"] = answer(table.host.post("/lootnrun/api/command", json={"cmd": "loot"}))
    appliance.close()
    print("RESULT " + json.dumps(out, default=str))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
