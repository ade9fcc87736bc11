"""The board config: strict, line-numbered errors, index layouts, the shipped examples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.board.config import (
    EXAMPLES,
    ConfigError,
    default_config,
    example_config_text,
    load_config,
    parse_config,
)
from companion.board.layout import GridLayout, grid_indices


def broken(old: str, new: str, name: str = "reference-1-pi") -> str:
    text = example_config_text(name)
    assert old in text
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "board.toml")
    return [f"{p.line}: {p.key}: {p.message}" for p in info.value.problems]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_shipped_example_is_valid(name):
    config = parse_config(example_config_text(name), name)
    assert config.positions == 152
    assert len(config.sensors.indices) == 152
    assert len(set(config.leds.indices)) == 152


def test_default_board_is_reference_design_one():
    config = default_config()
    assert config.sensors.backend == "shift_register"
    assert config.sensors.chips * 8 >= config.positions
    assert config.leds.pin == 10
    assert config.sensors.scan_hz >= 100
    assert config.buttons == {"roll": 5, "confirm": 6, "undo": 13}
    assert config.buzzer_pin == 12


def test_unknown_key_is_named_with_its_line():
    text = broken("clock_pin = 21", "clock_pin = 21\nclok_pin = 22")
    assert f"{line_of(text, 'clok_pin')}: sensors.clok_pin: unknown key" in problems(text)


def test_missing_key_is_named_at_its_table():
    text = broken("load_pin = 25 ", "# no load pin ")
    found = problems(text)
    assert f"{line_of(text, '[sensors]')}: sensors.load_pin: missing" in found


def test_a_pin_used_twice_names_both_users():
    text = broken("pin = 12", "pin = 25")
    buzzer_line = line_of(text, "[buzzer]") + 1
    expected = f"{buzzer_line}: buzzer.pin: GPIO25 is already used by sensors.load_pin"
    assert expected in problems(text)


def test_a_strip_on_a_pin_other_than_spi_mosi_is_refused_at_its_line():
    """GPIO18 is the usual NeoPixel pin elsewhere; here the strip needs SPI0's MOSI, and
    mock mode must refuse what the Pi would."""
    text = broken("pin = 10 ", "pin = 18 ")
    line = line_of(text, "SPI0 MOSI (header pin 19)")
    found = problems(text)
    assert any(p.startswith(f"{line}: leds.pin: GPIO18 cannot drive the NeoPixels") for p in found)
    assert any("GPIO10" in p for p in found)


def test_a_cell_without_a_sensor_is_an_error():
    text = broken("chips = 19", "chips = 18")
    found = problems(text)
    assert any("camp slot 1 has no sensor: index 144 is beyond the 144 sensors" in p for p in found)


def test_two_positions_on_one_index_are_named():
    text = broken("camp = [144, 145, 146, 147]", "camp = [144, 145, 146, 0]")
    found = problems(text)
    assert any("index 0 is given to two positions (A1 and camp slot 4)" in p for p in found)


def test_wrong_types_and_ranges_are_explained():
    text = broken("brightness = 0.5", 'brightness = "bright"')
    assert any("leds.brightness: expected a float, got 'bright'" in p for p in problems(text))
    text = broken("scan_hz = 100", "scan_hz = 5")
    assert any("sensors.scan_hz: must be between 10 and 2000" in p for p in problems(text))
    text = broken("pin = 10", "pin = 40")
    assert any("leds.pin: GPIO40 is not a header pin" in p for p in problems(text))


def test_a_toml_syntax_error_names_its_line():
    text = broken("[pads]", "[pads")
    found = problems(text)
    assert found[0].startswith(f"{line_of(text, '[pads')}: toml:")


def test_every_problem_is_reported_at_once():
    text = broken("clock_pin = 21", "clok_pin = 21")
    text = text.replace("gamma = 2.6", "gamma = 9", 1)
    found = problems(text)
    assert len(found) >= 3  # the unknown key, the missing clock_pin, the gamma range


def test_load_config_reads_a_file(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text(example_config_text("reference-2-pico"))
    config = load_config(path)
    assert config.sensors.backend == "serial"
    assert config.leds.driver == "serial" and config.leds.pin is None
    assert config.source == str(path)
    assert load_config(None) == default_config()


def test_cell_overrides_replace_single_indices():
    text = broken("[sensors.layout]", "[sensors.layout]\ncells = { C4 = 151 }")
    text = text.replace(
        "sarcophagus = [148, 149, 150, 151]", "sarcophagus = [148, 149, 150, 38]", 1
    )
    config = parse_config(text)
    c4 = 3 * 12 + 2
    assert config.sensors.indices[c4] == 151


def test_position_names():
    config = default_config()
    assert config.position_name(0) == "A1"
    assert config.position_name(143) == "L12"
    assert config.position_name(144) == "camp slot 1"
    assert config.position_name(151) == "sarcophagus slot 4"


@pytest.mark.parametrize(
    ("layout", "a1", "b1", "a2", "l12"),
    [
        (GridLayout(), 0, 1, 12, 143),
        (GridLayout(serpentine=True), 0, 1, 23, 132),
        (GridLayout(order="columns"), 0, 12, 1, 143),
        (GridLayout(origin="bottom-left", serpentine=True), 143, 142, 120, 11),
        (GridLayout(origin="top-right"), 11, 10, 23, 132),
        (GridLayout(origin="bottom-right", order="columns", first_index=8), 151, 139, 150, 8),
    ],
)
def test_grid_layouts_cover_rotation_mirroring_and_serpentine(layout, a1, b1, a2, l12):
    indices = grid_indices(12, 12, layout)
    assert sorted(indices) == list(range(layout.first_index, layout.first_index + 144))
    assert (indices[0], indices[1], indices[12], indices[143]) == (a1, b1, a2, l12)


def old_wiring(text: str) -> str:
    """The chain on SPI0 beside the strip (CE1), as reference design 1 was wired before."""
    for old, new in (("clock_pin = 21 ", "clock_pin = 11 "), ("data_pin = 19 ", "data_pin = 9 ")):
        text = text.replace(old, new, 1)
    return text.replace("select_pin = 18 ", "select_pin = 7 ", 1)


def test_a_chain_on_the_led_bus_is_refused_at_each_key_and_line():
    """Sharing SPI0 with the strip switches the bus's mode before every scan: refused,
    naming the key, its line and the pin of SPI1 that replaces it."""
    text = old_wiring(example_config_text())
    found = problems(text)
    for key, old, new, header in (
        ("clock_pin", 11, 21, 40),
        ("data_pin", 9, 19, 35),
        ("select_pin", 7, 18, 12),
    ):
        line = line_of(text, f"{key} = {old} ")
        expected = (
            f"{line}: sensors.{key}: GPIO{old} is SPI0 "
            f"{ {11: 'SCLK', 9: 'MISO', 7: 'CE1'}[old] }, the bus of the NeoPixels on GPIO10"
        )
        match = [p for p in found if p.startswith(expected)]
        assert match, found
        assert f"{key} = {new} (SPI1" in match[0] and f"header pin {header}" in match[0]
    assert len(found) == 3


def test_without_the_strip_on_spi0_the_chain_may_have_spi0():
    """Design 2's strip is the Pico's: SPI0 is free, and a chain may use it."""
    text = old_wiring(example_config_text()).replace('driver = "neopixel"', 'driver = "serial"')
    text = re.sub(r"\npin = 10 .*", "", text)
    config = parse_config(text)
    assert (config.sensors.clock_pin, config.sensors.select_pin) == (11, 7)


def test_spi0_and_spi1_pins_are_refused_to_others():
    text = broken("load_pin = 25 ", "load_pin = 11 ")
    line = line_of(text, "load_pin = 11 ")
    assert f"{line}: sensors.load_pin: GPIO11 is SPI0 SCLK, the bus of the NeoPixels on GPIO10" in (
        problems(text)
    )
    text = broken("undo = 13", "undo = 20")
    line = line_of(text, "undo = 20")
    expected = f"{line}: buttons.undo: GPIO20 is SPI1 MOSI: the spi1-1cs overlay takes it"
    assert any(p.startswith(expected) for p in problems(text))


def test_the_chain_takes_spi1_whole():
    """Clock and data on SPI1 with another select pin would bit-bang pins the overlay
    owns: the select pin must be SPI1's CE0."""
    text = broken("select_pin = 18 ", "select_pin = 17 ")
    line = line_of(text, "select_pin = 17 ")
    found = problems(text)
    assert (
        f"{line}: sensors.select_pin: GPIO17: the chain's other pins are on SPI1, so "
        "select_pin = 18 (SPI1 CE0, header pin 12)"
    ) in found


def test_a_supply_limit_below_the_idle_draw_is_refused():
    text = broken("max_milliamps = 4000", "max_milliamps = 150")
    assert any("leds.max_milliamps: 150 mA leaves too little" in p for p in problems(text))


DOCS = Path(__file__).resolve().parent.parent / "docs" / "board-config.md"


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("sensors", "active_low"),
        ("sensors", "scan_hz"),
        ("sensors", "settle_ms"),
        ("leds", "brightness"),
        ("leds", "milliamps_per_channel"),
        ("leds", "idle_milliamps"),
        ("leds", "gamma"),
    ],
)
def test_the_documented_defaults_are_the_real_ones(table, key):
    """A key left out of the file takes the default docs/board-config.md gives for it."""
    row = re.search(rf"^\| `{key}` \|[^|]*default ([\w.]+)", DOCS.read_text(), re.MULTILINE)
    assert row, f"docs/board-config.md gives no default for {key}"
    documented = {"true": True, "false": False}.get(row.group(1))
    text = example_config_text("reference-1-pi")
    without = "\n".join(line for line in text.splitlines() if not line.startswith(f"{key} ="))
    assert without != text
    value = getattr(getattr(parse_config(without), table), key)
    if documented is None:
        assert value == float(row.group(1))
    else:
        assert value is documented


def test_a_stride_leaves_room_at_the_end_of_every_row():
    layout = GridLayout(stride=13)
    indices = grid_indices(12, 12, layout)
    assert indices[:13] == [*range(12), 13]  # A1..L1, then A2 on the next matrix row
    assert indices[-1] == 11 * 13 + 11
    with pytest.raises(ValueError, match="stride must be at least the row length 12"):
        grid_indices(12, 12, GridLayout(stride=11))
    assert grid_indices(12, 12, GridLayout(order="columns", stride=12)) == grid_indices(
        12, 12, GridLayout(order="columns")
    )


def test_a_stride_shorter_than_a_row_is_named_with_its_line():
    text = broken("stride = 13 ", "stride = 10 ", "reference-2-pico")
    assert problems(text) == [
        f"{line_of(text, 'stride = 10')}: sensors.layout.stride: "
        "stride must be at least the row length 12"
    ]


def test_a_number_too_long_for_python_names_its_line():
    text = example_config_text().replace("undo = 13", "undo = " + "9" * 5001)
    assert "9" * 5001 in text
    with pytest.raises(ConfigError) as info:
        parse_config(text, "board.toml")
    message = str(info.value)
    assert "far too long" in message and "set_int_max_str_digits" not in message
    line = text.splitlines().index("undo = " + "9" * 5001) + 1
    assert f":{line}:" in message or f"line {line}" in message


@pytest.mark.parametrize("origin", ["top-left", "top-right", "bottom-left", "bottom-right"])
@pytest.mark.parametrize("order", ["rows", "columns"])
def test_a_tiled_layout_runs_tile_by_tile_and_gives_every_cell_one_index(order, origin):
    layout = GridLayout(order=order, origin=origin, tile=(4, 4), first_index=16)
    indices = grid_indices(12, 12, layout)
    assert sorted(indices) == list(range(16, 16 + 144))
    # each run of 16 indices lies inside one 4 x 4 tile
    for start in range(16, 160, 16):
        cells = [cell for cell, index in enumerate(indices) if start <= index < start + 16]
        assert len({(cell // 12 // 4, cell % 12 // 4) for cell in cells}) == 1


def test_the_tile_configs_sensor_index_is_159_less_its_led_index():
    """Data returns from the far end of the chain (reference-3-tiles.toml's header)."""
    config = parse_config(example_config_text("reference-3-tiles"))
    assert all(
        s == 159 - led for s, led in zip(config.sensors.indices, config.leds.indices, strict=True)
    )
    assert config.sensors.indices[0] == 159 and config.leds.indices[0] == 0  # A1


def test_a_tile_that_does_not_divide_the_maze_is_named_with_its_line():
    old = "tile = [4, 4]\nfirst_index = 16"
    text = broken(old, "tile = [5, 4]\nfirst_index = 16", "reference-3-tiles")
    line = line_of(text, "tile = [5, 4]")
    message = "tiles of 5 x 4 cells do not divide the 12 x 12 maze"
    assert f"{line}: sensors.layout.tile: {message}" in problems(text)
    text = broken(old, 'tile = [4, "x"]\nfirst_index = 16', "reference-3-tiles")
    line = line_of(text, 'tile = [4, "x"]')
    message = "expected [columns, rows] of a tile, e.g. [4, 4]"
    assert f"{line}: sensors.layout.tile: {message}" in problems(text)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("x" * 2_000_000, "is 2000000 characters long; at most 120"),
        ("Red\u202eboard", "holds the character U+202E, which a name may not"),
        ("tab\there", "holds the character U+0009, which a name may not"),
    ],
)
def test_a_board_name_too_long_or_turning_the_text_is_refused_at_its_line(name, why):
    old = 'name = "Reference design 1: Pi, 74HC165 chain, NeoPixels on GPIO10"'
    text = broken(old, f'name = "{name}"'.replace("\t", "\\t"))
    assert problems(text) == [f"{line_of(text, 'name = ')}: board.name: {why}"]
    parse_config(broken(old, 'name = "' + "n" * 120 + '"'))  # the longest that is fine
