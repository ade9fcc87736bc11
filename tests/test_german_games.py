"""A German table plays random games of all three games through the real service and web
layer (the maze, Loot N Run, Into the Crypt), every seat's phone set to German, and
not one English word of the games' vocabulary reaches it: not in a page, not in a
state or a stream, not in an error the rules give back.

The vocabulary is built from the English catalog's game words (colours, treasures, die
faces, places, levels of every game's ``words.py``, with their forms by case) and the
glossary's English terms, with "the", "mummy", "seeker", "Companion" ...; a word German
writes the same way ("Orange", "normal", "Frank", "Meeple") is left out. The maze is
played as ``tests/test_hidden_information.py`` plays it (its ``QuickTable``: the whole
appliance, no thread, the board's magnets as settled sensor changes), by its random
seeker and the public-information mummy; each seat also sends a command the rules
refuse now and then, to read the error.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.board.debounce import OccupancyChange
from companion.games.crypt.ai import choose_command
from companion.games.crypt.board import maze_cell
from companion.games.crypt.commands import Move as CryptMove
from companion.games.crypt.commands import PlaceMeeple
from companion.games.mummy.players import MummyBot, RandomSeekerBot
from companion.games.mummy.record import command_to_json
from companion.games.mummy.views import visible_events
from companion.i18n.catalog import catalog
from tests.seating import join, seat_codes
from tests.test_glossary import terms
from tests.test_hidden_information import QuickTable, submit_for_seekers

COLOURS = ["red", "turquoise", "blue", "violet"]
#: Names, not words: a game's title is the same in both languages.
TITLES = re.compile(r"Loot[ -]N[ -]Run|Into the Crypt")
#: Words every English sentence of the games uses, besides the catalog's game words.
ALWAYS = {
    "the", "mummy", "mummies", "seeker", "seekers", "companion", "arrow", "sarcophagus",
    "start", "field", "treasure", "card", "cards", "dice", "turn", "moves", "rolls",
    "red", "blue", "white", "green", "yellow", "turquoise", "violet", "black", "pink",
    "purple", "lock", "locks", "cube", "cubes", "crypt", "chamber", "awaken", "guardian",
    "amulet", "amulets", "werewolf", "ankh", "ankhs", "step", "steps", "cell", "cells",
    "wins", "caught", "announces", "plays", "left", "and", "with", "your", "you",
}  # fmt: skip
#: Machine values in the JSON (a colour's key "red", a face "arrow", a phase): not text.
IDENTIFIER = re.compile(r"^[a-z0-9_\-]*$")
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")
HIDDEN = ("script", "style")
ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(TITLES.sub(" ", text))}


def vocabulary() -> set[str]:
    """The English words of the games: the catalog's game words (every ``words.py``),
    the glossary's English terms and ``ALWAYS``, less every word German texts use."""
    english: set[str] = set(ALWAYS)
    for entry in catalog("en"):
        if entry.id and any(f.endswith("words.py") for f, _ in entry.locations):
            english |= _words(str(entry.string))
    for term in terms():
        for phrase in term.english:
            english |= _words(phrase)
    german: set[str] = set()
    for entry in catalog("de"):
        if entry.id and entry.string:
            german |= _words(re.sub(r"\{[^}]*\}", " ", str(entry.string)))
    return {w for w in english - german if len(w) > 2 or w == "an"}


VOCABULARY = vocabulary()
#: A few whole random games of each kind per run (each one is hundreds of requests).
GAMES = settings(
    max_examples=4,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class _Text(HTMLParser):
    """The text a page shows and speaks (labels, titles), without its scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden += 1
        self.parts += [v for k, v in attrs if k in ATTRIBUTES and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "name" and {"cell", "colour"} <= data.keys():
                continue  # a treasure's key, which the page looks up in its catalog
            yield from _strings(value)
    elif isinstance(data, list):
        for item in data:
            yield from _strings(item)
    elif isinstance(data, str) and not IDENTIFIER.match(data):
        yield data


def texts(body: str) -> list[str]:
    """What a player reads in an answer: a page's text, a JSON's or a stream's strings."""
    chunks = [line[len("data:") :] for line in body.splitlines() if line.startswith("data:")]
    found: list[str] = []
    for chunk in chunks or [body]:
        try:
            found += _strings(json.loads(chunk))
        except ValueError:
            parser = _Text()
            parser.feed(chunk)
            found += parser.parts
    return found


def english(body: str) -> list[tuple[str, str]]:
    """(word, text) for every English game word in what ``body`` shows."""
    out = []
    for text in texts(body):
        for word in WORD.findall(TITLES.sub(" ", text)):
            if word.lower() in VOCABULARY and not (word.isupper() and len(word) > 1):
                out.append((word, text))
    return out


class GermanTable:
    """``QuickTable`` with every phone in German; what each was served, checked."""

    def __init__(self, state_dir: Path) -> None:
        self.quick = QuickTable(state_dir)
        self.host = self.quick.host
        self.host.set_cookie("lang", "de")
        self.served = 0
        #: Every English word found: (where, word, text).
        self.found: list[tuple[str, str, str]] = []

    def phone(self) -> Any:
        client = self.quick.app.test_client()
        client.set_cookie("lang", "de")
        return client

    def check(self, where: str, body: str) -> None:
        self.served += 1
        self.found += [(where, word, text) for word, text in english(body)]

    def assert_german(self) -> None:
        """Nothing served so far had an English word (each word and text said once)."""
        found, self.found = self.found, []
        said = {(word, text): where for where, word, text in found}
        assert not said, "\n".join(f"{w!r} in {t!r} at {at}" for (w, t), at in said.items())

    def get(self, client: Any, path: str) -> None:
        res = client.get(path, buffered=False)
        try:
            if res.mimetype == "text/event-stream":
                chunks: list[str] = []
                for chunk in res.response:
                    chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
                    if "data:" in "".join(chunks) and "".join(chunks).endswith("\n\n"):
                        break
                body = "".join(chunks)
            else:
                body = res.get_data(as_text=True)
        finally:
            res.close()
        assert res.status_code < 500, (path, body[:300])
        if res.status_code < 300 or res.status_code >= 400:  # not a redirect's own body
            self.check(path, body)

    def post(self, client: Any, path: str, body: Any) -> Any:
        res = client.post(path, json=body)
        assert res.status_code < 500, (path, body, res.get_data(as_text=True)[:300])
        self.check(f"{path} {body}", res.get_data(as_text=True))
        return res

    def close(self) -> None:
        self.quick.close()


@pytest.fixture(scope="module")
def german(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GermanTable]:
    table = GermanTable(tmp_path_factory.mktemp("german-table"))
    yield table
    table.close()


def test_the_vocabulary_holds_the_words_that_leaked() -> None:
    """The words issue 27 found in German sentences are in the list; German's own are not."""
    assert {"mummy", "the", "sarcophagus", "companion", "arrow", "scarab", "red"} <= VOCABULARY
    assert not {"orange", "normal", "frank", "meeple", "die", "mumie"} & VOCABULARY
    assert english('{"text": "Blau würfelt 2, mummy, 3, den Pfeil und 1."}') == [
        ("mummy", "Blau würfelt 2, mummy, 3, den Pfeil und 1.")
    ]
    assert english("<p>Die Mumie bleibt auf the sarcophagus stehen.</p>")
    assert not english('{"colour": "red", "face": "arrow", "text": "Rot würfelt."}')


# -- the maze -----------------------------------------------------------------------------

#: Turns of each random maze game (GERMAN_STEPS: more; the end is read in test_german_words).
STEPS = int(os.environ.get("GERMAN_STEPS", "120"))
SEAT_PAGES = {"mummy": "/mummy", "table": "/table", "watch": "/watch"}
SEAT_API = {"mummy": "/api/mummy", "table": "/api/table", "watch": "/api/watch"}
#: Commands a seat's page may send at the wrong moment: the error comes back in words.
PROBES = {
    "seeker": (
        {"cmd": "resolve"},
        {"cmd": "roll"},
        {"cmd": "announce", "face": "mummy"},
        {"cmd": "announce", "face": "arrow"},
        {"cmd": "announce", "face": "4"},
        {"cmd": "play_card"},
        {"cmd": "end_turn"},
    ),
    "mummy": (
        {"cmd": "roll_mummy_die"},
        {"cmd": "mummy_step", "to": "A1"},
        {"cmd": "end_mummy_move"},
    ),
}


def seat_maze_game(table: GermanTable, seekers: int) -> dict[str, Any]:
    table.quick.give_board("mummy")
    res = table.post(table.host, "/api/host/game", {"colours": COLOURS[:seekers]})
    assert res.status_code == 200, res.json
    phones = {}
    for seat, code in seat_codes(table.host, res.json).items():
        phone = table.phone()
        join(phone, code)
        phones[seat] = phone
    table.quick.sync()
    return phones


def look(table: GermanTable, phones: dict[str, Any], pages: bool) -> None:
    """Every seat's state (and, with ``pages``, its page and the first message of its
    stream), and the host's."""
    for seat, phone in phones.items():
        api = SEAT_API.get(seat, "/api/seeker")
        table.get(phone, f"{api}/state")
        if pages:
            table.get(phone, SEAT_PAGES.get(seat, "/seeker"))
            table.get(phone, f"{api}/stream")
    table.get(table.host, "/api/host/status")
    if pages:
        for path in ("/host", "/host/games", "/rules/mummy", "/"):
            table.get(table.host, path)


@GAMES
@given(seed=st.integers(0, 2**32), seekers=st.integers(1, 4))
def test_a_random_maze_game_speaks_only_german(german: GermanTable, seed: int, seekers: int):
    table, rng = german, random.Random(seed)
    service = table.quick.service
    phones = seat_maze_game(table, seekers)
    look(table, phones, pages=True)
    seeker_bot, mummy_bot = RandomSeekerBot(seed), MummyBot(service.game.setup)
    mummy_bot.observe(visible_events(list(service.game.last_events), "mummy"))
    for step in range(STEPS):
        state = service.game.current
        if state.is_over:
            break
        if rng.random() < 0.25:  # a seat sends what the rules refuse now (or not)
            seat = rng.choice([s for s in phones if s == "mummy" or s.startswith("seeker")])
            role = "mummy" if seat == "mummy" else "seeker"
            table.post(phones[seat], f"/api/{role}/command", rng.choice(PROBES[role]))
            table.quick.sync()
            mummy_bot = MummyBot(service.game.setup)  # it may have moved the mummy
            state = service.game.current
            if state.is_over:
                break
        if state.is_mummy_turn:
            command = mummy_bot.choose(state.phase, state.mummy, state.steps_left, False)
            body = command_to_json(command, state.maze)
            res = table.post(phones["mummy"], "/api/mummy/command", body)
            assert res.status_code == 200, res.json
        else:
            submit_for_seekers(table.quick, state, seeker_bot.choose(state))  # type: ignore[arg-type]
        mummy_bot.observe(visible_events(list(service.published.log[-1]), "mummy"))
        table.quick.sync()
        look(table, phones, pages=step % 100 == 0)
    look(table, phones, pages=True)  # the end screen, when the game ended
    assert table.served > 100
    table.assert_german()


# -- Loot N Run ---------------------------------------------------------------------------


def random_cards(rng: random.Random, n: int) -> list[dict[str, Any]]:
    cards = []
    for _ in range(n):
        treasures = [0] * 6
        for _ in range(rng.randint(1, 3)):
            treasures[rng.randrange(6)] += 1
        guardian = rng.choice([None, None, "mummy", "werewolf", "frank"])
        cards.append({"treasures": treasures, "amulets": rng.randint(0, 2), "guardian": guardian})
    return cards


@GAMES
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_a_random_loot_n_run_game_speaks_only_german(german: GermanTable, seed: int, players):
    table, rng, host = german, random.Random(seed), german.host
    names = ["Anna", "Ben", "Cleo", "Dora", "Emil"][:players]
    colours = ["red", "blue", "green", "yellow", "black"][:players]
    table.quick.give_board("lootnrun")
    res = table.post(
        host,
        "/lootnrun/api/new",
        {"players": [{"name": n, "colour": c} for n, c in zip(names, colours, strict=True)]},
    )
    assert res.status_code == 200, res.json
    table.get(host, "/lootnrun")
    table.get(host, "/rules/lootnrun")
    for step in range(60):  # random turns: many refused, each refusal read
        kind = rng.choice(["loot", "loot", "run", "awaken", "werewolf_keep", "undo"])
        body: dict[str, Any] = {"cmd": kind}
        if kind == "run":
            body["cards"] = random_cards(rng, rng.randint(1, 3))
        elif kind == "awaken":
            body["target"] = rng.randrange(players)
            body["cards"] = random_cards(rng, rng.randint(1, 3))
        elif kind == "werewolf_keep":
            body["kept"] = rng.randint(0, 2)
        table.post(host, "/lootnrun/api/command", body)
        if step % 10 == 0:
            table.get(host, "/lootnrun/api/view")
            table.get(host, "/lootnrun/api/stream")
    for step in range(3 * players):  # someone reaches the target; everyone reveals
        phase = host.get("/lootnrun/api/view").get_json()["phase"]
        if phase == "werewolf_keep":
            body = {"cmd": "werewolf_keep", "kept": rng.randint(0, 2)}
        elif phase == "final_reveal":
            body = {"cmd": "final_reveal", "player": step % players}
            body["cards"] = random_cards(rng, rng.randint(0, 2))
        elif phase == "game_over":
            break
        else:
            body = {"cmd": "correction", "player": 0, "points": 35, "reason": "Sprung zum Ziel"}
        table.post(host, "/lootnrun/api/command", body)
    view = host.get("/lootnrun/api/view").get_json()
    assert view["phase"] == "game_over", view["phase"]  # played through the last reveal
    table.get(host, "/lootnrun/api/view")
    table.get(host, "/host/games")
    table.assert_german()


# -- Into the Crypt -----------------------------------------------------------------------


def carry_out(table: GermanTable) -> None:
    """Do what the crypt's board asks (the computer's meeple, a stray magnet)."""
    crypt, hub = table.quick.crypt, table.quick.hub
    judgement = crypt.published.judgement
    for position in sorted(judgement.unexpected):
        hub.occupancy(OccupancyChange(position, False, 0.0, 0.0))
    for position in sorted(judgement.missing):
        hub.occupancy(OccupancyChange(position, True, 0.0, 0.0))
    table.quick.settle()


@GAMES
@given(seed=st.integers(0, 2**32))
def test_a_random_crypt_game_speaks_only_german(tmp_path_factory: Any, seed: int) -> None:
    table = GermanTable(tmp_path_factory.mktemp("german-crypt"))  # a board of its own
    try:
        play_the_crypt(table, seed)
    finally:
        table.close()


def play_the_crypt(table: GermanTable, seed: int) -> None:
    """Red by the computer's own strategy (cubes by taps, the meeple by hand on the
    board), Blue the computer (its meeple carried by hand), to the end."""
    rng, host, quick = random.Random(seed), table.host, table.quick
    quick.hub.set_occupied(frozenset())  # the maze's figures off the board
    quick.give_board("crypt")
    res = table.post(host, "/crypt/api/new", {"players": 2, "computer": 1})
    assert res.status_code == 200, res.json
    quick.settle()
    table.get(host, "/crypt")
    table.get(host, "/rules/crypt")
    hub, crypt = quick.hub, quick.crypt
    for step in range(200):
        state = crypt.published.state
        if state.is_over:
            break
        if not crypt.published.judgement.matches:
            carry_out(table)
            table.get(host, "/crypt/api/state")
            continue
        if state.to_move == 1:
            quick.settle()
            continue
        if rng.random() < 0.2:  # a square the rules refuse, or not
            probe = {"kind": "place_cube", "square": rng.choice(["d4", "a1", "c3"])}
            table.post(host, "/crypt/api/command", probe)
        command = choose_command(state, seed=seed + step)
        if isinstance(command, PlaceMeeple):
            hub.occupancy(OccupancyChange(maze_cell(command.corner), True, 0.0, 0.0))
        elif isinstance(command, CryptMove):
            hub.occupancy(OccupancyChange(maze_cell(state.meeples[0]), False, 0.0, 0.0))
            table.get(host, "/crypt/api/state")  # the meeple in the hand
            hub.occupancy(OccupancyChange(maze_cell(command.to), True, 0.0, 0.0))
        else:
            table.post(host, "/crypt/api/command", command.to_json())
        quick.settle()
        table.get(host, "/crypt/api/state")
        if step % 25 == 0:
            table.get(host, "/crypt/api/stream")
    assert crypt.published.state.is_over  # played to the end
    table.get(host, "/crypt/api/state")
    table.get(host, "/crypt")
    quick.give_board("mummy")
    table.assert_german()
