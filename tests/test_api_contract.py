"""The API contract through the real app on the mock appliance: /api/openapi.json
describes every JSON route of every game, and bodies of the wrong shape are refused with
a 400 and a sentence, never a 500 or a guess (``"false"`` is not false, ``false`` is not
position 0)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.web.contract import is_api, openapi_path, problem
from tests.test_pages import Table

#: Every game's JSON area, for the 404/405 checks.
API_PREFIXES = ("/api", "/lootnrun/api", "/crypt/api", "/sim/api")


def refused(res: Any, status: int = 400) -> str:
    """The refusal's message (it must be JSON with an error)."""
    assert res.status_code == status, (res.status_code, res.get_data(as_text=True)[:300])
    assert res.is_json, res.get_data(as_text=True)[:300]
    message = res.get_json()["error"]
    assert isinstance(message, str) and message
    return message


def test_the_document_describes_every_api_route_of_every_game(table: Table) -> None:
    doc = table.host.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    routes = {
        (method.lower(), openapi_path(rule.rule)[0])
        for rule in table.app.url_map.iter_rules()
        if is_api(rule.rule)
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    described = {(m, path) for path, ops in doc["paths"].items() for m in ops}
    assert routes == described
    prefixes = {path.split("/api/")[0] for _, path in routes}
    assert prefixes == {"", "/lootnrun", "/crypt", "/sim", "/check"}
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert op["summary"] and "200" in op["responses"], (method, path)
            if method == "post" and "requestBody" in op:
                schema = op["requestBody"]["content"]["application/json"]["schema"]
                assert schema["type"] == "object", path


def test_the_schema_checks_types_without_coercing() -> None:
    flag = {"type": "object", "properties": {"hints": {"type": "boolean"}}}
    assert problem(flag, {"hints": False}) is None
    assert problem(flag, {"hints": "false"}) == '"hints" is true or false'
    whole = {"type": "integer"}
    assert problem(whole, False) == "the request is a whole number"
    assert problem(whole, 2.0) is not None
    assert problem({"type": "number"}, float("inf")) is not None


@pytest.mark.parametrize("cmd", [{}, [], ["roll"], 5, None])
def test_a_command_of_the_wrong_type_is_refused_by_every_game(table: Table, cmd: Any) -> None:
    table.new_game(["red", "blue"])
    seeker, mummy = table.device("seeker0"), table.device("mummy")
    for client, path in (
        (seeker, "/api/seeker/command"),
        (mummy, "/api/mummy/command"),
        (seeker, "/lootnrun/api/command"),
        (seeker, "/crypt/api/command"),
    ):
        key = "kind" if path.startswith("/crypt") else "cmd"
        message = refused(client.post(path, json={key: cmd}))
        assert "Traceback" not in message and "unhashable" not in message, path
    assert table.service.game.commands == []


def test_a_mummy_die_of_1e400_is_refused(table: Table) -> None:
    table.new_game(["red", "blue"], dice="physical")
    mummy = table.device("mummy")
    before = table.service.published.version
    res = mummy.post(
        "/api/mummy/command",
        data='{"cmd": "roll_mummy_die", "value": 1e400}',
        content_type="application/json",
    )
    # Read as the journal reads it: a number no record may hold.
    assert refused(res) == "The number 1e400 is too large."
    assert table.service.published.version == before


@pytest.mark.parametrize("colours", [None, 5, "red", [1, 2], [["red"]]])
def test_a_game_with_colours_that_are_not_a_list_of_names_is_refused(
    table: Table, colours: Any
) -> None:
    res = table.host.post("/api/host/game", json={"colours": colours})
    assert refused(res).startswith('"colours"')
    assert table.app.extensions["companion.seats"].table is None


def test_hints_of_false_in_quotes_are_refused_not_read_as_true(table: Table) -> None:
    table.new_game(["red", "blue"], hints=False)
    res = table.host.post("/api/host/game", json={"colours": ["red", "blue"], "hints": "false"})
    assert refused(res) == '"hints" is true or false.'
    assert table.app.extensions["companion.seats"].table.options.hints is False
    assert table.service.hints is False


@pytest.mark.parametrize("body", [[1], {"position": False}, {"position": "0"}, {"position": 1.0}])
def test_the_simulator_toggles_only_a_position_number(table: Table, body: Any) -> None:
    board = table.appliance.mock_board
    before = set(board.occupied)
    message = refused(table.host.post("/sim/api/toggle", json=body))
    assert "position" in message or "JSON object" in message
    assert set(board.occupied) == before
    assert table.host.post("/sim/api/toggle", json={"position": 0}).status_code == 200
    assert set(board.occupied) == before ^ {0}


@pytest.mark.parametrize("prefix", API_PREFIXES)
def test_unknown_paths_and_methods_under_any_api_answer_json(table: Table, prefix: str) -> None:
    assert "not found" in refused(table.host.get(f"{prefix}/nothing-here"), 404).lower()
    refused(table.host.get(prefix), 404)
    refused(table.host.post(f"{prefix}/nothing-here", json={}), 404)
    known = {"/api": "/api/host/undo", "/lootnrun/api": "/lootnrun/api/undo"}
    known |= {"/crypt/api": "/crypt/api/undo", "/sim/api": "/sim/api/toggle"}
    refused(table.host.get(known[prefix]), 405)
    refused(table.host.delete(known[prefix], json={}), 405)
    page = table.host.get("/no-such-page")  # outside the API a page stays a page
    assert page.status_code == 404 and not page.is_json


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"cmd": ' * 50_000 + "1" + "}" * 50_000,
        "\xff\xfe",
        "1" * 5000,
    ],
)
def test_bodies_too_deep_too_long_or_not_text_are_refused(table: Table, text: str) -> None:
    table.new_game(["red", "blue"])
    seeker = table.device("seeker0")
    for path in ("/api/seeker/command", "/lootnrun/api/command", "/crypt/api/command"):
        res = seeker.post(path, data=text.encode("latin-1"), content_type="application/json")
        words = ("The request is", "Send a JSON object", "The number 111111111111")
        status = 413 if len(text) > 64 * 1024 else 400  # over the limit: too large
        assert refused(res, status).startswith(words), path


def test_the_computer_mummys_options_are_checked_like_every_other(table: Table) -> None:
    for options in ({"computer": "brilliant"}, {"pace": 9}, {"pace": "fast"}, {"aid": 1}):
        res = table.host.post("/api/host/game", json={"colours": ["red"], **options})
        assert res.status_code == 400 and res.get_json()["error"], options
    res = table.host.post(
        "/api/host/game", json={"colours": ["red"], "computer": "hard", "pace": 0.2, "aid": False}
    )
    assert res.status_code == 200


def test_the_journal_export_is_described_with_its_game_number(table: Table) -> None:
    doc = table.host.get("/api/openapi.json").get_json()
    op = doc["paths"]["/api/host/journal/{game_id}"]["get"]
    assert op["parameters"] == [
        {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
    ]
    assert "application/jsonl" in op["responses"]["200"]["content"]


def test_a_body_over_the_limit_is_413_in_words_and_the_document_says_so(table: Table) -> None:
    """Every endpoint with a body lists the 413 that refuses one over 64 kB (the server
    refuses a longer one before reading it; the app one sent in chunks)."""
    doc = table.host.get("/api/openapi.json").get_json()
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            if "requestBody" in op:
                assert "413" in op["responses"], (method, path)
                assert "larger than 65536 bytes" in op["responses"]["413"]["description"]
    huge = '{"game": "' + "x" * 70_000 + '"}'
    res = table.host.post(
        "/api/host/board", data=huge, headers={"Content-Type": "application/json"}
    )
    assert res.status_code == 413
    assert res.get_json()["error"] == "The request is too large (more than 65536 bytes)."
