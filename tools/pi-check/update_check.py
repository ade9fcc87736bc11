"""pi-check's update step, the host's side (the standard library only; run by the host's
python3 against the booted root, whose network is the host's).

    update_check.py game URL STATE          the host sets up a game; its cookie, the
                                            game's id and seats saved to STATE (JSON)
    update_check.py same-game URL STATE DB  the same host cookie still opens the host's
                                            status (the secret key that signed it is the
                                            one in use) on the same game, and the journal
                                            DB still holds that game as it was
    update_check.py venv-is SITE CLONE      the venv's companion package is the clone's
                                            (every .py file the same bytes)

Each prints one line; a failure exits 1 with the reason on that line.
"""

from __future__ import annotations

import http.cookiejar
import json
import sqlite3
import sys
import urllib.request
from pathlib import Path
from typing import Any

COLOURS = ["red", "blue"]


def opener(cookie: str = "") -> tuple[urllib.request.OpenerDirector, http.cookiejar.CookieJar]:
    jar = http.cookiejar.CookieJar()
    made = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    if cookie:
        made.addheaders = [("Cookie", cookie)]
    return made, jar


def get_json(open_: urllib.request.OpenerDirector, url: str) -> Any:
    with open_.open(url, timeout=30) as res:
        return json.loads(res.read())


def journal_row(db: Path, game_id: int) -> list[Any] | None:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        row = con.execute("SELECT id, kind, setup FROM games WHERE id = ?", (game_id,)).fetchone()
    return None if row is None else list(row)


def game(url: str, state: Path) -> str:
    open_, jar = opener()
    with open_.open(url + "/", timeout=30) as res:  # the first device is the host
        res.read()
    request = urllib.request.Request(
        url + "/api/host/game",
        data=json.dumps({"colours": COLOURS}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with open_.open(request, timeout=30) as res:
        status = json.loads(res.read())
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    seats = sorted(s["seat"] for s in status["table"]["seats"])
    saved = {"cookie": cookie, "game": status["game"]["id"], "seats": seats}
    state.write_text(json.dumps(saved), encoding="utf-8")
    return f"game {saved['game']} set up by the host ({', '.join(seats)})"


def same_game(url: str, state: Path, db: Path, before: Path | None = None) -> str:
    saved = json.loads(state.read_text("utf-8"))
    open_, _ = opener(saved["cookie"])
    try:
        status = get_json(open_, url + "/api/host/status")
    except OSError as exc:
        raise SystemExit(f"the host's cookie no longer opens /api/host/status: {exc}") from None
    if status["game"]["id"] != saved["game"]:
        raise SystemExit(f"game {status['game']['id']} on the table, not {saved['game']}")
    seats = sorted(s["seat"] for s in status["table"]["seats"])
    if seats != saved["seats"]:
        raise SystemExit(f"seats {seats}, not {saved['seats']}")
    row = journal_row(db, saved["game"])
    if row is None:
        raise SystemExit(f"the journal has no game {saved['game']}")
    if "row" in saved and saved["row"] != row:
        raise SystemExit(f"the journal's game {saved['game']} changed: {saved['row']} -> {row}")
    saved["row"] = row
    state.write_text(json.dumps(saved), encoding="utf-8")
    return f"game {saved['game']} on the table for the same host cookie, in the journal as it was"


def venv_is(site: Path, clone: Path) -> str:
    installed = {p.relative_to(site) for p in (site / "companion").rglob("*.py")}
    source = {p.relative_to(clone) for p in (clone / "companion").rglob("*.py")}
    differ = sorted(str(p) for p in installed ^ source)
    differ += sorted(
        str(p) for p in installed & source if (site / p).read_bytes() != (clone / p).read_bytes()
    )
    if differ:
        raise SystemExit(f"{len(differ)} files of the venv are not the clone's: {differ[:5]}")
    return f"the venv's {len(installed)} companion files are the clone's"


def main(argv: list[str]) -> int:
    command, *args = argv
    if command == "game":
        print(game(args[0], Path(args[1])))
    elif command == "same-game":
        print(same_game(args[0], Path(args[1]), Path(args[2])))
    elif command == "venv-is":
        print(venv_is(Path(args[0]), Path(args[1])))
    else:
        raise SystemExit(f"unknown command {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
