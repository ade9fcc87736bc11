"""Schemathesis against the real app (its WSGI interface) on the mock appliance, every
operation of /api/openapi.json with valid and invalid bodies, each as the seat that
may use it (host, mummy, seeker, table screen) and as the watching seat: no input ever
gets a 5xx, every refusal is a 4xx with ``{"error": message}``, and every answer
matches its schema.  Seats come from the real join flow (code, confirm form, cookie).

Derandomized (the same examples every run) and bounded to keep ``make test`` short.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from companion.web.contract import MAX_BODY
from tests.seating import host_by_pin
from tests.test_pages import Table, start

#: Examples per operation and seat (about 25 operations).
EXAMPLES = 50
#: Sequences of requests, and requests in each, for the stateful test.
SEQUENCES = 150
STEPS = 12


def cookie(client: Any) -> dict[str, str]:
    """A device's session cookie (its seat, signed), as the join flow set it."""
    found = client.get_cookie("session")
    assert found is not None, "the join flow gave this device no cookie"
    return {"session": found.value}


class Seated:
    """A game in play on the mock appliance, and a cookie for every seat."""

    def __init__(self, tmp_path: Path) -> None:
        self.appliance = start(tmp_path)
        self.table = Table(self.appliance)
        self.cookies: dict[str, dict[str, str]] = {}
        self.seat_everyone()

    def seat_everyone(self) -> None:
        """A game of red and blue, and a device joined to every seat (the board given
        back to the maze first, if a sequence gave it away)."""
        host = self.table.host
        if host.get("/api/host/status").status_code == 403:  # "New codes" gave the fuzz's
            host_by_pin(host, self.table.app.extensions["companion.seats"].pin)  # a new one
        back = host.post("/api/host/board", json={"game": "mummy", "pause": True})
        assert back.status_code == 200, back.get_data(as_text=True)
        self.table.new_game(["red", "blue"])
        self.cookies["host"] = cookie(self.table.host)
        for seat in ("mummy", "seeker0", "table", "watch"):
            self.cookies[seat] = cookie(self.table.device(seat))

    def seats_hold(self) -> bool:
        client = self.table.app.test_client()
        client.set_cookie("session", self.cookies["seeker0"]["session"])
        return bool(client.get("/api/seeker/state").status_code == 200)

    def seat_for(self, path: str) -> str:
        """The seat that may use ``path`` (its owner's, so the fuzz reaches the game)."""
        if path.startswith(("/api/host", "/sim", "/check")) or path.endswith("/board"):
            return "host"
        for seat in ("mummy", "table"):
            if path.startswith(f"/api/{seat}/"):
                return seat
        return "seeker0"


@pytest.fixture
def seated(tmp_path: Path) -> Iterator[Seated]:
    here = Seated(tmp_path)
    try:
        yield here
    finally:
        here.appliance.close()


def operations(seated: Seated) -> list[Any]:
    """Every operation of the app's own document but the streams (they never end: they
    are described, not fuzzed)."""
    loaded = schemathesis.openapi.from_wsgi("/api/openapi.json", seated.table.app)
    found = [result.ok() for result in loaded.get_all_operations()]
    assert len(found) >= 20, [op.label for op in found]
    return [op for op in found if not op.path.endswith("/stream")]


def check_refusal(response: Any) -> None:
    """A refusal is a 4xx with a sentence; never a 5xx."""
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        message = response.json().get("error")
        assert isinstance(message, str) and message.strip(), response.text[:300]


def call(case: Any, cookie: dict[str, str]) -> int:
    """Send the case with the seat's cookie (a JSON body needs no token: it cannot come
    from another site without an Origin naming it) and check the answer."""
    headers = {"Origin": "http://localhost"}  # the companion's own page
    response = case.call(cookies=cookie, headers=headers)
    if response.status_code == 413:
        # Too large is refused before the body is read, whatever the body says.
        assert len(json.dumps(case.body).encode()) > MAX_BODY, response.text[:300]
    else:
        # A valid body may still be refused by the rules (409) or the seat (403).
        case.validate_response(
            response, excluded_checks=[positive_data_acceptance], headers=headers
        )
    check_refusal(response)
    CALLS.append((case.method.upper(), case.path, response.status_code))
    return int(response.status_code)


#: Every request sent: method, path, status.
CALLS: list[tuple[str, str, int]] = []


def sent_since(start: int, title: str) -> collections.Counter[int]:
    """The statuses of the requests sent since ``start`` (printed with ``-s``)."""
    sent = collections.Counter(status for _, _, status in CALLS[start:])
    print(f"{title}: {sum(sent.values())} requests, {dict(sorted(sent.items()))}")
    return sent


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def fuzz(tmp_path: Path, watching: bool, examples: int) -> int:
    """Valid and invalid requests to every operation, each on a fresh companion with a
    game in play (a new game or new codes in one operation must not shut the seats out
    of the next); how many operations ran."""
    labels = [op.label for op in with_seats(tmp_path / "first", operations)]
    for number, label in enumerate(labels):

        def send(seated: Seated, label: str = label) -> None:
            operation = next(op for op in operations(seated) if op.label == label)
            cookie = seated.cookies["watch" if watching else seated.seat_for(operation.path)]
            # Without a body there is nothing invalid to send (no parameters either).
            takes_body = "requestBody" in operation.definition.raw
            for mode in GenerationMode if takes_body else [GenerationMode.POSITIVE]:
                runner(operation.as_strategy(generation_mode=mode), cookie, examples)()

        with_seats(tmp_path / f"op{number}", send)
    return len(labels)


def with_seats(path: Path, use: Any) -> Any:
    """``use(seated)`` on a fresh companion in ``path``, closed afterwards."""
    path.mkdir()
    seated = Seated(path)
    try:
        return use(seated)
    finally:
        seated.appliance.close()


def runner(cases: Any, cookie: dict[str, str], examples: int) -> Any:
    """A hypothesis test sending ``cases`` with ``cookie``."""

    @given(case=cases)
    @settings(FUZZ, max_examples=examples)
    def run(case: Any) -> None:
        call(case, cookie)

    return run


def test_no_input_gets_a_server_error_from_the_seat_it_belongs_to(tmp_path: Path) -> None:
    start = len(CALLS)
    assert fuzz(tmp_path, False, EXAMPLES) >= 20
    sent = sent_since(start, "own seats")
    # The seats' cookies opened their doors: the requests reached the games.
    assert sent[200] >= 20 and sent[403] < sum(sent.values()) // 10, sent


def test_no_input_gets_a_server_error_from_the_watching_seat(tmp_path: Path) -> None:
    start = len(CALLS)
    assert fuzz(tmp_path, True, EXAMPLES // 3) >= 20
    sent_since(start, "watching seat")
    # The watching seat looks at the maze's public view, Loot N Run and the crypt, and
    # changes nothing.
    looked = {path for method, path, status in CALLS[start:] if status == 200}
    assert looked == {"/api/watch/state", "/crypt/api/state", "/lootnrun/api/view"}, looked
    assert {status for method, _, status in CALLS[start:] if method == "POST"} == {403}


def test_no_sequence_of_requests_gets_a_server_error(seated: Seated) -> None:
    """Stateful: random sequences of valid requests to every operation, each from the
    seat it belongs to, on one running companion (a game set up, the board given to
    Loot N Run or the crypt and back, new games, commands, undo ...)."""
    cases = st.one_of([op.as_strategy() for op in operations(seated)])
    start = len(CALLS)

    @given(steps=st.lists(cases, min_size=1, max_size=STEPS))
    @settings(FUZZ, max_examples=SEQUENCES)
    def run(steps: list[Any]) -> None:
        if not seated.seats_hold():  # a new game or new codes in the last sequence
            seated.seat_everyone()
        for case in steps:
            cookie = seated.cookies[seated.seat_for(case.path)]
            call(case, cookie)

    run()
    sent = sent_since(start, "sequences")
    assert sent[200] and sent[400] + sent[409], sent
