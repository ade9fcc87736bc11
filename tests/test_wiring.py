"""Wiring tables: generated from the config, consistent with the validator and with the
sensor drivers (a switch wired where the table says is read as that position), every
cell and pad exactly once, pins as configured, and the Pico's pins as the firmware's."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.board.config import BoardConfig, parse_config
from companion.board.gpio_sensors import MockDiodeMatrix, MockDrivenPin, mock_pin
from companion.board.sensors import Sensors
from companion.board.shift_register import Mock74HC165Chain, input_name
from companion.cli import main
from companion.hardware.build import reference_config
from companion.hardware.wiring import (
    FIRMWARE_MATRIX,
    HC165_INPUT_PINS,
    INPUTS,
    PI_HEADER,
    PICO_PINS,
    Section,
    Table,
    led_runs,
    pixel_positions,
    power_budget,
    sensor_wires,
    to_markdown,
    to_text,
    wiring_page,
)

FIRMWARE_SETTINGS = Path(__file__).resolve().parents[1] / "companion" / "firmware" / "settings.py"


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    before = Device.pin_factory
    f = MockFactory()
    yield f
    assert Device.pin_factory is before
    f.close()
    f.reset()


@pytest.fixture(scope="module")
def ref1() -> BoardConfig:
    return reference_config("reference-1")


@pytest.fixture(scope="module")
def ref2() -> BoardConfig:
    return reference_config("reference-2")


SMALL = """
[board]
name = "small {backend} board"
columns = 2
rows = 2
cell_pitch_mm = 30.0

[pads]
camp_slots = 1
sarcophagus_slots = 1

[sensors]
{sensors}

[sensors.layout]
order = "columns"
origin = "bottom-right"
camp = [4]
sarcophagus = [5]

[leds]
pin = 10
count = 6
max_milliamps = 1000

[leds.layout]
serpentine = true
camp = [4]
sarcophagus = [5]
"""


def small(backend: str, sensors: str) -> BoardConfig:
    """A 2x2 board with one pad of each kind (6 positions), read by ``backend``."""
    text = SMALL.format(backend=backend, sensors=f'backend = "{backend}"\n{sensors}')
    return parse_config(text, f"small-{backend}.toml")


def section(sections: list[Section], start: str) -> Section:
    return next(s for s in sections if s.title.startswith(start))


def pin_rows(config: BoardConfig) -> dict[str, tuple[str, ...]]:
    """The Pi header table's rows by config key."""
    table = section(wiring_page(config), "Raspberry Pi").tables[0]
    return {row[3].strip("`"): row for row in table.rows if row[3]}


# -- every position exactly once ---------------------------------------------------------


@pytest.mark.parametrize("name", ["reference-1", "reference-2"])
def test_every_cell_and_pad_is_wired_exactly_once(name: str) -> None:
    config = reference_config(name)
    wires = sensor_wires(config)
    assert [w.position for w in wires] == list(range(config.positions))
    assert [w.index for w in wires] == list(config.sensors.indices)
    assert len({w.where for w in wires}) == config.positions
    assert len({w.name for w in wires}) == config.positions
    # The cell grid table names each cell once, the pad table each pad once.
    grid, pads = section(wiring_page(config), "Every cell").tables
    cells = [entry for row in grid.rows for entry in row[1:]]
    assert len(cells) == config.cells == len(set(cells))
    assert [row[0] for row in pads.rows] == [
        config.position_name(p) for p in range(config.cells, config.positions)
    ]


def test_chip_table_follows_the_documented_bit_order(ref1: BoardConfig) -> None:
    chain = section(wiring_page(ref1), "74HC165 chain").tables[0]
    assert len(chain.rows) == ref1.sensors.chips == 19
    assert chain.headers[1:9] == tuple(f"{i} (pin {HC165_INPUT_PINS[i]})" for i in INPUTS)
    where: dict[str, tuple[int, str]] = {}
    for row in chain.rows:
        chip = int(row[0])
        for letter, name in zip(INPUTS, row[1:9], strict=True):
            if name != "-":
                assert name not in where, name
                where[name] = (chip, letter)
    assert len(where) == ref1.positions
    for position, index in enumerate(ref1.sensors.indices):
        chip, letter = where[ref1.position_name(position)]
        # docs/board-config.md: sensor index = 8 x chip + input (A = 0 ... H = 7).
        assert 8 * chip + INPUTS.index(letter) == index
        assert input_name(index) == f"chip {chip} input {letter}"
    assert where["A1"] == (0, "A") and where["camp slot 1"] == (18, "A")
    assert where["sarcophagus slot 4"] == (18, "H")


def test_a_switch_wired_where_the_table_says_reads_as_that_position(
    factory: MockFactory, ref1: BoardConfig
) -> None:
    """Close the switch at each table entry on the simulated chips: the driver sees it."""
    s = ref1.sensors
    assert s.clock_pin and s.data_pin and s.select_pin and s.load_pin
    everything = (1 << s.count) - 1
    with (
        Mock74HC165Chain(
            s.clock_pin, s.data_pin, s.select_pin, s.load_pin, s.chips, pin_factory=factory
        ) as chain,
        Sensors(s, pin_factory=factory) as sensors,
    ):
        for wire in sensor_wires(ref1):
            assert wire.chip is not None and wire.input is not None
            bit = 8 * wire.chip + INPUTS.index(wire.input)
            chain.inputs = everything & ~(1 << bit)  # active low: this switch closed
            assert sensors.prime() == {wire.position}, wire.where


def test_pi_pins_match_the_config(ref1: BoardConfig) -> None:
    rows = pin_rows(ref1)
    s = ref1.sensors
    expected = {
        "sensors.clock_pin": s.clock_pin,
        "sensors.data_pin": s.data_pin,
        "sensors.select_pin": s.select_pin,
        "sensors.load_pin": s.load_pin,
        "leds.pin": ref1.leds.pin,
        "buttons.roll": ref1.buttons["roll"],
        "buttons.confirm": ref1.buttons["confirm"],
        "buttons.undo": ref1.buttons["undo"],
        "buzzer.pin": ref1.buzzer_pin,
    }
    assert set(rows) == set(expected)
    for key, gpio in expected.items():
        assert gpio is not None
        header, name, *_ = rows[key]
        assert name == f"GPIO{gpio}" and header == str(PI_HEADER[gpio])
    assert rows["sensors.data_pin"][4] == "QH (pin 9) of chip 18, the last of the chain"
    headers = [int(r[0]) for r in rows.values()]
    assert len(set(headers)) == len(headers) and headers == sorted(headers)
    # Each bus named: the chain on SPI1, its own, the strip on SPI0 (docs/board-config.md).
    assert rows["sensors.clock_pin"][2] == "SPI1 SCLK"
    assert rows["sensors.data_pin"][2] == "SPI1 MISO"
    assert rows["sensors.select_pin"][2] == "SPI1 CE0"
    assert rows["leds.pin"][2] == "SPI0 MOSI"
    # SPI1's MOSI is listed as taken by the overlay, so no button goes there.
    table = section(wiring_page(ref1), "Raspberry Pi").tables[0]
    mosi = [row for row in table.rows if row[1] == "GPIO20"]
    assert mosi and mosi[0][0] == "38" and "dtoverlay=spi1-1cs takes the pin" in mosi[0][4]


def test_pi_header_map_is_the_40_pin_header() -> None:
    assert sorted(PI_HEADER) == list(range(2, 28))
    assert len(set(PI_HEADER.values())) == 26
    assert PI_HEADER[10] == 19 and PI_HEADER[11] == 23 and PI_HEADER[9] == 21
    assert PI_HEADER[7] == 26 and PI_HEADER[8] == 24 and PI_HEADER[18] == 12


# -- other backends -------------------------------------------------------------------------


def test_matrix_backend_table_reads_back_through_the_matrix(factory: MockFactory) -> None:
    config = small("matrix", "row_pins = [5, 6]\ncolumn_pins = [13, 19, 26]")
    wires = sensor_wires(config)
    matrix = section(wiring_page(config), "Diode matrix").tables[0]
    assert matrix.headers[1:] == tuple(
        f"column {c}: GPIO{p} (pin {PI_HEADER[p]})" for c, p in enumerate((13, 19, 26))
    )
    named = [entry for row in matrix.rows for entry in row[1:] if entry != "-"]
    assert sorted(named) == sorted(w.name for w in wires)
    s = config.sensors
    with (
        MockDiodeMatrix(s.row_pins, s.column_pins, pull_up=s.active_low, pin_factory=factory) as m,
        Sensors(s, pin_factory=factory) as sensors,
    ):
        for wire in wires:
            assert wire.row is not None and wire.column is not None
            assert matrix.rows[wire.row][1 + wire.column] == wire.name
            m.pressed = 1 << (wire.row * len(s.column_pins) + wire.column)
            assert sensors.prime() == {wire.position}, wire.where


def test_gpio_backend_table_names_each_pin(factory: MockFactory) -> None:
    pins = [4, 17, 27, 22, 23, 24]
    config = small("gpio", f"pins = {pins}")
    wires = sensor_wires(config)
    rows = pin_rows(config)
    for i, pin in enumerate(pins):
        assert rows[f"sensors.pins[{i}]"][1] == f"GPIO{pin}"
    drivers = {pin: mock_pin(factory, pin, MockDrivenPin) for pin in pins}
    with Sensors(config.sensors, pin_factory=factory) as sensors:
        for wire in wires:
            gpio = int((wire.pin or "").split()[0][4:])
            for pin, driver in drivers.items():
                driver.drive(pin != gpio)  # active low: only this one pulled down
            assert sensors.prime() == {wire.position}, wire.where
    assert wires[0].short.startswith("GPIO")


def test_reference_two_matrix_is_the_firmwares(ref2: BoardConfig) -> None:
    sections = wiring_page(ref2)
    matrix = section(sections, "Diode matrix").tables[0]
    assert len(matrix.rows) == 12 and len(matrix.headers) == 14
    # Matrix row r holds maze row r + 1; the 13th column holds the pads, then spares.
    for r, row in enumerate(matrix.rows):
        assert list(row[1:13]) == [f"{col}{r + 1}" for col in "ABCDEFGHIJKL"], row[0]
    assert [row[13] for row in matrix.rows[:8]] == [
        *(f"camp slot {i}" for i in range(1, 5)),
        *(f"sarcophagus slot {i}" for i in range(1, 5)),
    ]
    named = [entry for row in matrix.rows for entry in row[1:]]
    # 4 spare crossings: the last one (row 11 x column 12) holds the play jumper.
    assert named.count("-") == 156 - 152 - 1 and matrix.rows[11][13] == "play jumper"
    assert sorted(n for n in named if n not in ("-", "play jumper")) == sorted(
        ref2.position_name(p) for p in range(ref2.positions)
    )
    pico = section(sections, "Raspberry Pi Pico").tables[0]
    by_gp = {row[1]: row for row in pico.rows}
    assert by_gp["GP28"][0] == "34" and by_gp["GP0"][0] == "1" and by_gp["GP27"][0] == "32"
    # The LED data line: its pull-down, and no jumper on it any more.
    assert "10 kohm pull-down to GND" in by_gp["GP28"][2] and "jumper" not in by_gp["GP28"][2]
    notes = " ".join(section(sections, "Raspberry Pi Pico").paragraphs)
    assert "play jumper (optional) sits at the spare crossing 155 (row GP11, column GP27" in notes
    for gp, row in by_gp.items():
        if gp.startswith("GP"):
            assert row[0] == str(PICO_PINS[int(gp[2:])])
    assert "needs no Pi GPIO" in section(sections, "Raspberry Pi").paragraphs[0]


def test_pico_defaults_are_the_firmware_settings() -> None:
    """wiring.PicoMatrix mirrors companion/firmware/settings.py; keep the two equal."""
    if not FIRMWARE_SETTINGS.exists():
        pytest.skip("no companion/firmware/ in this tree")
    values = {}
    for node in ast.parse(FIRMWARE_SETTINGS.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    assert tuple(values["ROW_PINS"]) == FIRMWARE_MATRIX.row_pins
    assert tuple(values["COLUMN_PINS"]) == FIRMWARE_MATRIX.column_pins
    assert values["PIXEL_PIN"] == FIRMWARE_MATRIX.pixel_pin
    assert values["COLUMNS_TO_ANODES"] == FIRMWARE_MATRIX.columns_to_anodes
    assert values["PLAY_JUMPER"] == FIRMWARE_MATRIX.play_jumper
    assert values["SCANNER"] == "matrix"


# -- LEDs and power ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["reference-1", "reference-2"])
def test_led_runs_cover_every_pixel_once_in_order(name: str) -> None:
    config = reference_config(name)
    runs = led_runs(config)
    covered = [p for run in runs for p in range(run.first, run.last + 1)]
    assert covered == list(range(config.leds.count))
    positions = pixel_positions(config)
    for run in runs:
        start, end = positions[run.first], positions[run.last]
        assert start is not None and end is not None
        assert run.start == config.position_name(start)
        assert run.end == config.position_name(end)
    # Serpentine from the bottom left: A12 to L12, then back along row 11.
    assert (runs[0].start, runs[0].end, runs[0].heading) == ("A12", "L12", "east")
    assert (runs[1].start, runs[1].end, runs[1].heading) == ("L11", "A11", "west")
    assert (runs[-1].first, runs[-1].last) == (148, 151)


def test_power_budget_from_the_led_settings(ref1: BoardConfig) -> None:
    b = power_budget(ref1)
    assert b.full_white == 152 * 3 * 20 + 152
    assert b.idle == 152
    assert b.limit == 4000
    assert b.pixels_at_full_white == (4000 - 152) // 60
    assert b.share_of_full_white == pytest.approx((4000 - 152) / (152 * 60))
    assert b.supply_amps == 5.0
    table = section(wiring_page(ref1), "Power budget").tables[0]
    text = " ".join(" ".join(row) for row in table.rows)
    assert "at least 5 A (25 W)" in text and "9,272 mA" in text


# -- output -----------------------------------------------------------------------------


def test_markdown_and_text_forms(ref1: BoardConfig) -> None:
    sections = wiring_page(ref1)
    markdown = to_markdown(ref1, sections, ref1.source)
    assert markdown.startswith(f"# Wiring: {ref1.name}\n")
    assert "| 18 | camp slot 1 | camp slot 2 |" in markdown
    assert f"`{ref1.source}`" in markdown
    text = to_text(ref1, sections)
    assert "|" not in text and "`" not in text
    assert "camp slot 1" in text
    piped = to_markdown(ref1, [Section("x", (), (Table(("a",), (("b|c",),)),))], "s")
    assert "b\\|c" in piped


def test_wiring_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diagram = tmp_path / "wiring.svg"
    assert main(["wiring", "--diagram", str(diagram)]) == 0
    out = capsys.readouterr().out
    assert "74HC165 chain" in out and "GPIO21" in out
    assert diagram.read_text().startswith("<?xml")
    assert main(["wiring", "--markdown"]) == 0
    assert "built-in board config" in capsys.readouterr().out
