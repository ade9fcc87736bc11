"""``companion selftest``: healthy simulated boards pass, injected faults are caught."""

from __future__ import annotations

import pytest

from companion.board.config import default_config, example_config_text, parse_config
from companion.board.mock_board import MockBoard, mock_factory
from companion.board.pixels import MockPixels
from companion.board.selftest import run_selftest
from companion.cli import main


def test_the_simulated_board_is_healthy(capsys):
    assert main(["selftest", "--mock"]) == 0
    out = capsys.readouterr().out
    assert "all 152 LEDs and sensors are healthy" in out


def test_an_injected_dead_sensor_is_caught(capsys):
    assert main(["selftest", "--mock", "--inject-fault"]) == 1
    out = capsys.readouterr().out
    assert "dead sensor: D5 never changed" in out
    assert "healthy" not in out


def test_a_stuck_sensor_is_caught():
    config = default_config()
    factory = mock_factory(config)
    board = MockBoard(config, factory)
    board.stick(board.position("K9"))
    # As on a real board: the self-test reads the pins; this simulated board is the table.
    pixels = MockPixels(config.leds.count)
    report = run_selftest(
        config, mock=False, pin_factory=factory, pixels=pixels, seconds=0.5, out=lambda s: None
    )
    board.close()
    assert [config.position_name(p) for p in report.stuck] == ["K9"]
    assert not report.ok


def test_inject_fault_needs_mock(capsys):
    assert main(["selftest", "--inject-fault"]) == 2


def test_a_bad_config_is_named_with_its_line(tmp_path, capsys):
    path = tmp_path / "board.toml"
    path.write_text("[board]\nname = 'x'\ncolumns = 12\nrows = 12\ncell_pitch_mm = 25\nwidth = 3\n")
    assert main(["selftest", "--mock", "--config", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:6: board.width: unknown key" in err


def test_a_gpio_board_walks_too(capsys):
    text = """
[board]
name = "small test board"
columns = 2
rows = 2
cell_pitch_mm = 25
[pads]
camp_slots = 1
sarcophagus_slots = 1
[sensors]
backend = "gpio"
pins = [4, 5, 6, 12, 13, 16]
[sensors.layout]
camp = [4]
sarcophagus = [5]
[leds]
pin = 10
count = 6
max_milliamps = 500
[leds.layout]
camp = [4]
sarcophagus = [5]
"""
    report = run_selftest(parse_config(text), mock=True, out=lambda s: None)
    assert report.ok and report.leds_checked


def test_reference_design_two_is_checked_through_the_simulated_pico(capsys):
    config = parse_config(example_config_text("reference-2-pico"))
    report = run_selftest(config, mock=True, out=lambda s: None)
    assert report.ok and report.leds_checked
    report = run_selftest(config, mock=True, inject_fault=True, out=lambda s: None)
    assert [config.position_name(p) for p in report.never_seen] == ["D5"]


SMALL_MATRIX = """
[board]
name = "2 x 2 diode matrix"
columns = 2
rows = 2
cell_pitch_mm = 25
[pads]
camp_slots = 1
sarcophagus_slots = 1
[sensors]
backend = "matrix"
row_pins = [5, 6]
column_pins = [12, 13, 16]
[sensors.layout]
stride = 3
camp = [2]
sarcophagus = [5]
[leds]
pin = 10
count = 6
max_milliamps = 500
[leds.layout]
camp = [4]
sarcophagus = [5]
"""


def _player(board, pixels, config, ghost, stop):
    """A person at the table: one figure on whichever position is lit, then lifted."""
    import time

    done = set()
    while not stop.is_set():
        lit = [i for i, colour in enumerate(pixels.colours()) if any(colour)]
        if len(lit) == 1 and config.leds.indices.index(lit[0]) not in done:
            position = config.leds.indices.index(lit[0])
            done.add(position)
            board.place(position)
            if position in ghost:  # a slow column: the switch also reads on the next row
                board.stick(ghost[position])
            until = time.monotonic() + 3.0  # lifted once the next cell lights
            while time.monotonic() < until and not stop.is_set():
                now = [i for i, colour in enumerate(pixels.colours()) if any(colour)]
                if now != lit:
                    break
                time.sleep(0.01)
            board.lift(position)
            board.heal()
        time.sleep(0.01)


def test_by_hand_one_lit_cell_one_figure_exactly_one_press_finds_a_ghost():
    import threading

    config = parse_config(SMALL_MATRIX)
    factory = mock_factory(config)
    board = MockBoard(config, factory)
    pixels = MockPixels(config.leds.count)
    a1, b2 = board.position("A1"), board.position("B2")
    stop = threading.Event()
    player = threading.Thread(
        target=_player, args=(board, pixels, config, {a1: b2}, stop), daemon=True
    )
    player.start()
    lines = []
    try:
        report = run_selftest(
            config, mock=False, pin_factory=factory, pixels=pixels, seconds=20, out=lines.append
        )
    finally:
        stop.set()
        player.join()
        board.close()
    assert report.never_seen == [], lines
    assert report.wrong == [
        "A figure on A1 also switches B2: crosstalk (a magnet too strong, a sensor too "
        "close, or on a diode matrix a column without its pull-up)."
    ]
    assert not report.ok


# -- the board check's core over the simulated boards, each fault injected --------------

REFERENCE_1 = "reference-1-pi"
REFERENCE_2 = "reference-2-pico"


def _reference(name):
    return parse_config(example_config_text(name))


@pytest.mark.parametrize("design", [REFERENCE_1, REFERENCE_2])
@pytest.mark.parametrize(
    ("fault", "kind", "others"),
    [
        ("dead", "dead", []),
        ("stuck", "stuck", []),
        ("off-centre", "off_centre", []),
        ("crosstalk", "crosstalk", ["E5"]),
    ],
)
def test_each_sensor_fault_is_found_on_both_reference_designs(design, fault, kind, others):
    config = _reference(design)
    report = run_selftest(config, mock=True, inject_fault=fault, out=lambda s: None)
    names = [config.position_name(p) for p in range(config.positions)]
    found = [(f.kind, names[f.position], [names[p] for p in f.others]) for f in report.faults]
    assert found == [(kind, "D5", others)]
    assert not report.ok


@pytest.mark.parametrize(
    ("fault", "found"),
    [
        # an open diode: the crossing never conducts, the position reads nothing
        ("open-diode", [("dead", "D5")]),
        # a shorted one (or missing, a wire in its place): a ghost on the rectangle
        ("shorted-diode", [("diode", "D5")]),
        # a reversed one: dead, and a ghost too
        ("reversed-diode", [("dead", "D5"), ("diode", "D5")]),
    ],
)
def test_each_diode_fault_is_found_on_the_picos_matrix(fault, found, capsys):
    config = _reference(REFERENCE_2)
    code = main(
        [
            "selftest",
            "--mock",
            "--config",
            "companion/board/data/reference-2-pico.toml",
            "--inject-fault",
            fault,
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    # every position's diode was tested on a rectangle of its neighbours
    assert f"Diodes: {config.positions} tested with three figures on a rectangle." in out
    summary = out.split("Summary:")[1].strip().splitlines()
    expected = {
        "dead": "dead sensor: D5 never changed (no magnet over it, a broken switch, or its wiring)",
        "diode": "Figures on D5, C5 and D4 make C4 read: the diode at D5 is missing, "
        "shorted or reversed.",
    }
    assert [line.strip() for line in summary] == [expected[kind] for kind, _ in found]


def test_diode_faults_need_a_matrix(capsys):
    assert main(["selftest", "--mock", "--inject-fault", "shorted-diode"]) == 2
    assert "needs a diode matrix board" in capsys.readouterr().err


def test_a_shorted_diode_ghosts_on_the_pis_own_matrix_too():
    config = parse_config(SMALL_MATRIX)
    factory = mock_factory(config)
    board = MockBoard(config, factory)
    a1 = board.position("A1")
    board.break_diode(a1, "shorted")
    from companion.board.boardcheck import BoardCheck, board_of
    from companion.board.selftest import walk_simulated
    from companion.board.sensors import Sensors

    check = BoardCheck(board_of(config))
    with Sensors(config.sensors, pin_factory=factory) as sensors:
        walk_simulated(check, sensors, board)
    board.close()
    names = check.board.names
    assert [(f.kind, names[f.position], [names[p] for p in f.others]) for f in check.faults] == [
        ("diode", "A1", ["B1", "A2", "B2"])
    ]
    assert check.done and sorted(check.checked) == list(range(config.positions))
