"""The board check of ``/check`` through Flask's test client, on the mock appliance of
both reference designs (the 74HC165 chain on the Pi's pins, the Pico scanning its diode
matrix), each with injected faults: the page's verdicts are the simulated board's faults.
The maker is played here: figures are put where the step says, slid 5 mm for the
off-centre step, and the page's buttons are pressed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.board.config import example_config_text, parse_config
from companion.mazes import load_maze
from companion.service.appliance import Appliance, build
from companion.web import create_app
from tests.seating import join

SETTLE_MS = 20


def config_of(name: str) -> Any:
    text = example_config_text(name).replace("settle_ms = 100", f"settle_ms = {SETTLE_MS}")
    return parse_config(text)


@pytest.fixture(params=["reference-1-pi", "reference-2-pico"])
def appliance(request: Any, tmp_path: Any) -> Iterator[Appliance]:
    maze, text = load_maze(None)
    app = build(config_of(request.param), maze, text, state_dir=tmp_path, mock=True, quiet_s=0.03)
    yield app
    app.close()


@pytest.fixture
def flask_app(appliance: Appliance) -> Any:
    return create_app(appliance.service, secret_key=b"k" * 32, appliance=appliance, testing=True)


@pytest.fixture
def host(flask_app: Any) -> Any:
    client = flask_app.test_client()
    assert client.get("/").location == "/host"
    return client


def state(client: Any) -> dict[str, Any]:
    response = client.get("/check/api/state")
    assert response.status_code == 200, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def press(client: Any, answer: str, step: dict[str, Any] | None = None) -> bool:
    """Press a button, naming the step it answers as the page does; whether the check
    took it (a press for a step it has left is refused, and changes nothing)."""
    body: dict[str, Any] = {"answer": answer}
    if step is not None:
        body["step"] = {"kind": step["kind"], "position": step["position"]}
    response = client.post("/check/api/press", json=body)
    assert response.status_code in (200, 409), response.get_json()
    assert response.status_code == 200 or step is not None, response.get_json()
    return bool(response.status_code == 200)


def next_step(client: Any, step: dict[str, Any], seconds: float) -> bool:
    """Wait up to ``seconds`` for the check to leave ``step``; whether it did."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = state(client)
        if not view["running"] or view["step"] != step:
            return True
        time.sleep(0.02)
    return False


def lit(appliance: Appliance) -> list[int]:
    """The positions the LEDs light now."""
    return [p for p, colour in enumerate(appliance.lights.last_frame) if any(colour)]


def walk(client: Any, board: Any, appliance: Appliance | None = None) -> dict[str, Any]:
    """Play the maker until the check is over; the last view.  With ``appliance``, every
    position's step is first seen lit on the LEDs, the only one besides those that read."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = state(client)
        if not view["running"]:
            return view
        step = view["step"]
        kind = step["kind"]
        if kind == "empty":
            board.set_occupied(())
            if not next_step(client, step, 1.6):
                press(client, "next", step)  # something reads on the clear board
        elif kind == "centre":
            board.set_occupied(())
            if appliance is not None:
                deadline_lit = time.monotonic() + 2
                while set(lit(appliance)) - set(state(client)["reading"]) != {step["position"]}:
                    assert time.monotonic() < deadline_lit, (lit(appliance), step)
                    time.sleep(0.01)
            time.sleep(0.1)
            board.place(step["position"])
            if not next_step(client, step, 1.0):
                press(client, "skip", step)  # nothing reads
        elif kind == "off_centre":
            board.place(step["position"], 5.0)  # slid 5 mm off the centre
            time.sleep(0.15)
            press(client, "next", step)
        else:
            board.set_occupied(())
            time.sleep(0.1)
            board.set_occupied(step["figures"])
            if not next_step(client, step, 1.5):
                press(client, "next", step)
    raise AssertionError("the check did not end")


def findings(view: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["kind"], f["cell"]) for f in view["faults"])


def test_a_quick_check_finds_each_injected_sensor_fault(host: Any, appliance: Appliance) -> None:
    board = appliance.mock_board
    names = state(host)["names"]
    at = {name: i for i, name in enumerate(names)}
    first_row = names[:12]
    dead, stuck, weak, noisy, neighbour = (first_row[i] for i in (1, 3, 5, 7, 8))
    board.kill(at[dead])
    board.stick(at[stuck])
    board.weaken(at[weak])
    board.couple(at[noisy], at[neighbour])
    response = host.post("/check/api/start", json={"quick": True})
    assert response.status_code == 200, response.get_json()
    view = walk(host, board, appliance)
    assert findings(view) == sorted(
        [("dead", dead), ("stuck", stuck), ("off_centre", weak), ("crosstalk", noisy)]
    )
    says = {f["kind"]: f["says"] for f in view["faults"]}
    assert says["crosstalk"].startswith(f"A figure on {noisy} also switches {neighbour}")
    # the report is saved beside the journal and listed
    saved = view["saved"]
    assert host.get("/check/api/reports").get_json()["reports"] == [saved]
    path = Path(appliance.journal.path).parent / "boardchecks" / saved
    data = json.loads(path.read_text())
    assert sorted((f["kind"], f["cell"]) for f in data["faults"]) == findings(view)
    # repaired: the next check says what got fixed and what is still there
    board.heal()
    board.kill(at[dead])
    time.sleep(1.1)  # a second report, a second later (reports are named by time)
    host.post("/check/api/start", json={"quick": True})
    walk(host, board)
    reports = host.get("/check/api/reports").get_json()["reports"]
    assert len(reports) == 2 and reports[1] == saved
    newest = host.get(f"/check/api/reports/{reports[0]}").get_json()
    assert newest["compared_with"] == saved
    assert len(newest["changes"]["fixed"]) == 3
    assert newest["changes"]["still"] == [
        f"{dead} never read the figure: a dead sensor (its switch, its wiring, on a diode "
        "matrix its diode)."
    ]
    assert newest["changes"]["new"] == []
    # the board goes back to the maze
    assert host.post("/check/api/end", json={}).status_code == 200
    assert appliance.hub.active == "mummy"


def test_the_rectangle_finds_a_shorted_diode_on_the_picos_matrix(
    host: Any, appliance: Appliance
) -> None:
    if appliance.config.sensors.backend != "serial":
        pytest.skip("the diode step is the matrix design's")
    board = appliance.mock_board
    names = state(host)["names"]
    at = {name: i for i, name in enumerate(names)}
    board.break_diode(at["C1"], "shorted")
    host.post("/check/api/start", json={"quick": True})
    view = walk(host, board)
    diode = [f for f in view["faults"] if f["kind"] == "diode"]
    assert [f["cell"] for f in diode] == ["C1"]
    assert diode[0]["says"].endswith("the diode at C1 is missing, shorted or reversed.")
    assert [k for k, _ in findings(view)] == ["diode"]


def test_the_check_asks_before_it_pauses_a_maze_game(host: Any, appliance: Appliance) -> None:
    response = host.post("/api/host/game", json={"colours": ["red", "blue"]})
    assert response.status_code == 200, response.get_json()
    refused = host.post("/check/api/start", json={})
    assert refused.status_code == 409
    assert "pauses it" in refused.get_json()["error"]
    assert appliance.hub.active == "mummy"
    figures = sorted(appliance.mock_board.occupied)  # the maze's figures in the camp
    assert figures
    assert host.post("/check/api/start", json={"pause": True}).status_code == 200
    assert appliance.hub.active == "boardcheck"
    # the check sees the magnets the paused maze left (other games do not), and asks
    # for the board to be cleared
    deadline = time.monotonic() + 3
    while state(host)["reading"] != figures:
        assert time.monotonic() < deadline, state(host)
        time.sleep(0.02)
    assert state(host)["step"]["says"].startswith("Clear the board of every figure and magnet.")
    assert appliance.hub.off_board() == 0
    assert host.post("/check/api/end", json={}).status_code == 200
    assert appliance.hub.active == "mummy"


def test_the_mummys_device_and_a_seat_are_refused(flask_app: Any, host: Any) -> None:
    setup = host.post("/api/host/game", json={"colours": ["red", "blue"]}).get_json()
    codes = {s["seat"]: s["code"] for s in setup["table"]["seats"]}
    seeker = flask_app.test_client()
    join(seeker, codes["seeker1"])
    for path in ("/check/api/state", "/check/api/reports"):
        response = seeker.get(path)
        assert response.status_code == 403
        assert "Only the host" in response.get_json()["error"]
    assert seeker.post("/check/api/start", json={"pause": True}).status_code == 403
    # the host's own device, once it holds the mummy's seat: refused in words
    join(host, codes["mummy"])
    response = host.get("/check")
    assert response.status_code == 403
    assert "the board check shows where every magnet stands" in response.get_data(as_text=True)
    assert host.get("/check/api/stream").status_code == 403


def test_a_check_whose_board_was_given_away_says_so(host: Any, appliance: Appliance) -> None:
    assert host.post("/check/api/start", json={}).status_code == 200
    assert host.post("/api/host/board", json={"game": "crypt"}).status_code == 200
    response = host.post("/check/api/press", json={"answer": "next"})
    assert response.status_code == 409
    assert response.get_json()["error"] == (
        "Another game has the board now: start the board check again."
    )
    assert state(host)["holds_board"] is False


def test_a_press_meant_for_a_step_the_check_has_left_is_refused_and_changes_nothing(
    host: Any, appliance: Appliance
) -> None:
    """ "Nothing reads" pressed just as the figure was seen: the check has gone on to the
    off-centre step, and that press must not skip it (its fault would go unfound)."""
    board = appliance.mock_board
    assert host.post("/check/api/start", json={"quick": True}).status_code == 200
    empty = state(host)["step"]
    assert empty["kind"] == "empty"
    board.set_occupied(())
    if not next_step(host, empty, 2.0):
        assert press(host, "next", empty)
    centre = state(host)["step"]
    assert centre["kind"] == "centre"
    board.place(centre["position"])
    deadline = time.monotonic() + 5  # it reads: the check goes on by itself
    while state(host)["step"]["kind"] == "centre":
        assert time.monotonic() < deadline, state(host)
        time.sleep(0.02)
    before = state(host)
    assert before["step"]["kind"] == "off_centre"
    assert before["step"]["position"] == centre["position"]
    stale = {"answer": "skip", "step": {"kind": "centre", "position": centre["position"]}}
    response = host.post("/check/api/press", json=stale)
    assert response.status_code == 409
    assert "already gone on to the next step" in response.get_json()["error"]
    after = state(host)
    assert after["step"]["kind"] == "off_centre" and after["faults"] == before["faults"]
