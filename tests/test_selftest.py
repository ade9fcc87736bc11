"""``companion selftest``: healthy simulated boards pass, injected faults are caught."""

from __future__ import annotations

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
            time.sleep(0.4)
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
    assert report.never_seen == []
    assert report.wrong == [
        "one figure on A1 also reads on B2 (a ghost: check the matrix column pull-ups, "
        "the diodes, or a magnet too strong)"
    ]
    assert not report.ok
