"""The build guide agrees with itself: BOM, wiring tables, diagrams, the assembly sheet and
the configs name the same column pull-ups, clock resistor and LED pieces.

The generated files are checked against their generators by test_hardware_sheets; this
checks that what the generators say is also what the BOM buys and the configs describe.
"""

from __future__ import annotations

from pathlib import Path

from companion.board.config import example_config_text, parse_config
from companion.hardware.clock import bank_length_mm, clock_line, longest_lumped_mm, summary
from companion.hardware.placement import PIECE_MM, ROUND_MM
from companion.hardware.wiring import CLOCK_RESISTOR, COLUMN_PULLUP, FIRMWARE_MATRIX

ROOT = Path(__file__).resolve().parents[1]
HARDWARE = ROOT / "hardware"


def read(name: str) -> str:
    return (HARDWARE / name).read_text()


def words(text: str) -> str:
    """Comment text joined across its lines."""
    return " ".join(text.replace("#:", " ").replace("#", " ").split())


def bom(design: str) -> str:
    """The BOM tables of README.md: the shared one and ``design``'s own."""
    text = read("README.md")
    start, end = text.index("## Bill of materials"), text.index("## Reed or Hall")
    section = text[start:end]
    shared = section[: section.index("### Design 1")]
    own = section[section.index(f"### {design}") :]
    return shared + own.split("### ", 2)[1]


def test_every_pico_matrix_column_has_its_pull_up_everywhere() -> None:
    columns = len(FIRMWARE_MATRIX.column_pins)
    wiring = read("wiring-reference-2.md")
    assert wiring.count(f"{COLUMN_PULLUP} pull-up to 3V3(OUT)") == columns
    assert f"| 36 | 3V3(OUT) | the {columns} column pull-ups ({COLUMN_PULLUP}) |" in wiring
    diagram = read("wiring-diagram-reference-2.svg")
    assert COLUMN_PULLUP in diagram and "3V3(OUT) (36)" in diagram
    assert f"| {columns} | 10 kohm resistors (4.7-10 kohm) | one pull-up per column wire" in bom(
        "Design 2"
    )
    toml = words((ROOT / "companion/board/data/reference-2-pico.toml").read_text())
    settings = words((ROOT / "companion/firmware/settings.py").read_text())
    assert f"{columns} column wires" in toml and "10 kohm (4.7-10 kohm) pull-up" in toml
    assert "external 10 kohm (4.7-10 kohm) pull-up" in settings


def test_the_74hc165_clock_has_its_series_resistor_and_ground_everywhere() -> None:
    wiring = read("wiring-reference-1.md")
    assert f"{CLOCK_RESISTOR} in series at the Pi, then one bus along the chip bank" in wiring
    assert "a GND wire runs beside it" in wiring
    diagram = read("wiring-diagram-reference-1.svg")
    assert f"SCLK: {CLOCK_RESISTOR} in series at the Pi, and a GND wire" in diagram
    assert "beside the clock to every chip" in diagram
    own = bom("Design 1")
    assert f"| 1 | {CLOCK_RESISTOR} resistor | in series with SCLK" in own
    assert "GND conductor beside SCLK" in own
    assert "double-clocked chain" in read("troubleshooting.md")


def test_the_chips_sit_in_one_bank_within_the_clocks_length_budget() -> None:
    """Item 7 of issue 29: the chips are placed on purpose, and every page quotes the same
    numbers, computed in companion/hardware/clock.py for the config's chain."""
    chips = parse_config(example_config_text("reference-1-pi")).sensors.chips
    length, budget = bank_length_mm(chips), longest_lumped_mm(chips)
    line = clock_line(chips, length)
    assert line.lumped and length < budget
    assert summary(chips) in words(read("wiring-reference-1.md"))
    diagram = read("wiring-diagram-reference-1.svg")
    assert "All chips in ONE BANK" in diagram
    assert f"clock bus {length:.0f} mm, at most {budget:.0f} mm" in diagram
    readme = words(read("README.md"))
    assert f"at most {budget:.0f} mm" in readme and "one bank" in readme
    assert f"{line.edge_ns_fastest:.0f}-{line.edge_ns_slowest:.0f} ns" in readme
    assert "| 1 | stripboard" in bom("Design 1")
    assembly = words(read("assembly.md"))
    assert "one bank" in assembly and f"{budget:.0f} mm" in assembly


def test_the_led_pieces_fit_the_pitch_everywhere() -> None:
    shared = bom("Design 1")
    # A piece lies along the row beside its sensor; a round board no wider than the
    # piece (10 mm) fits its place, a 12 mm one reaches the sensor's hole.
    assert ROUND_MM == PIECE_MM[1] == 10.0
    assert "**60/m** strip" in shared and "**10 mm round**" in shared
    for name in ("wiring-reference-1.md", "wiring-reference-2.md"):
        assert "cut from a 60/m strip (10 x 16.7 mm, laid along the row) or on a 10 mm" in read(
            name
        )
    for name in ("wiring-diagram-reference-1.svg", "wiring-diagram-reference-2.svg"):
        assert "pieces: 60/m strip or 10 mm rounds" in read(name)
    assembly = read("maze-assembly.svg")
    assert "cut from a 60/m strip" in assembly and 'width="16.67" height="10"' in assembly


def test_the_pico_data_line_has_its_pull_down_and_the_jumper_its_crossing_everywhere() -> None:
    """Item 6 of issue 29: the play jumper left the LED data pin for a spare crossing, and
    the data line got a pull-down; the BOM, wiring sheet, diagram and firmware guide agree."""
    own = bom("Design 2")
    assert "| 1 | 10 kohm resistor | pull-down from GP28 (the LED data line) to GND" in own
    assert "spare crossing row 11 (GP11) x column 12 (GP27)" in own
    wiring = read("wiring-reference-2.md")
    assert "HIDE_DRIVE_PIN" not in wiring and "| play jumper |" in wiring
    diagram = read("wiring-diagram-reference-2.svg")
    assert "GP28: 10 kohm pull-down to GND" in diagram
    assert "Play jumper: crossing 155 (GP11 x GP27)," in diagram
    guide = (ROOT / "firmware" / "README.md").read_text()
    assert "GP28 -> 10 kohm -> GND" in guide and "`PLAY_JUMPER = 155`" in guide
    assert "supervisor.reload()" in guide
