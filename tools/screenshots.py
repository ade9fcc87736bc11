"""Screenshots of every page at 390x844 in one language, to read the words in context.

    .venv/bin/python tools/screenshots.py --lang de --out /tmp/shots

A ``companion run --mock`` on loopback; the host sets up a maze game for Red and Blue,
the seats join on their own phones (Debian's chromium, as the tests use), and each page
is shot at the start, after a few turns of the maze, and for the side games (Loot N
Run, the crypt), the rules, the simulated board, the board check and the past games.
The files are named ``NN-moment-page.png`` in the order a table meets them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from companion.bench.player import (
    CHROMIUM,
    Table,
    _api,
    _mummy_turn,
    _phone,
    _seeker_turn,
    companion,
)

SEATS = {
    "host": "/",
    "seeker0": "/seeker",
    "seeker1": "/seeker",
    "mummy": "/mummy",
    "table": "/table",
}
#: Pages every phone may open, shot from the host's phone.
OTHERS = [
    "/rules/mummy",
    "/rules/lootnrun",
    "/rules/crypt",
    "/lootnrun",
    "/crypt",
    "/sim",
    "/check",
    "/host/games",
]


def _language(page: Any, base: str, lang: str) -> None:
    page.context.add_cookies([{"name": "lang", "value": lang, "url": base}])


def _shoot(page: Any, path: str, out: Path) -> None:
    page.wait_for_timeout(400)  # the stream's first message painted
    page.screenshot(path=str(out), full_page=True, scale="css")
    print(out)


def shoot(lang: str, out: Path, turns: int) -> None:
    from playwright import sync_api

    out.mkdir(parents=True, exist_ok=True)
    count = 0

    def name(moment: str, page: str) -> Path:
        nonlocal count
        count += 1
        slug = page.strip("/").replace("/", "-") or "home"
        return out / f"{count:02d}-{moment}-{slug}.png"

    with tempfile.TemporaryDirectory() as directory:
        trace = str(Path(directory) / "trace.jsonl")
        with (
            companion(str(Path(directory) / "state"), trace, None) as base,
            sync_api.sync_playwright() as p,
        ):
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
            )
            try:
                table = Table(browser, base)
                phones = {"host": table.host, **table.pages}
                for phone in phones.values():
                    _language(phone, base, lang)

                def every_seat(moment: str) -> None:
                    for seat, path in SEATS.items():
                        phones[seat].goto(base + path)
                        _shoot(phones[seat], path, name(moment, f"{seat}{path}"))

                every_seat("start")
                for _ in range(turns):
                    _seeker_turn(table)
                    _mummy_turn(table)
                every_seat("later")
                for path in OTHERS:
                    table.host.goto(base + path)
                    _shoot(table.host, path, name("other", path))
                status = _api(table.host, "GET", base + "/api/host/status")[1]
                codes = {s["seat"]: s["code"] for s in status["table"]["seats"]}
                spectator = _phone(browser)  # a late spectator with the watching seat's code
                _language(spectator, base, lang)
                spectator.goto(f"{base}/join/{codes['watch']}")
                spectator.locator("#join").click()
                spectator.wait_for_url(f"{base}/watch")
                _shoot(spectator, "/watch", name("other", "/watch"))
                spare = _phone(browser)
                _language(spare, base, lang)
                spare.goto(base + "/")
                _shoot(spare, "/", name("newcomer", "/"))
            finally:
                browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="de", choices=["de", "en"])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--turns", type=int, default=2, help="maze turns before 'later'")
    args = parser.parse_args(argv)
    shoot(args.lang, args.out, args.turns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
