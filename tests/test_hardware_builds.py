"""The recommended builds: one source (companion/hardware/builds.py) that the guide, the
BOM, the wiring sheets, the diagrams and the board configs quote, kept agreeing here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.board.config import example_config_text
from companion.hardware.build import reference_config
from companion.hardware.builds import (
    HALL,
    HALL_PERIOD_MAX_MS,
    RECOMMENDED,
    REED,
    STACK,
    settle_needed_ms,
    verdict_table,
)
from companion.hardware.wiring import led_feed, sensor_builds, wiring_page

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
FLAT = " ".join(README.split())  # for phrases that wrap
SHEETS = {
    name: (ROOT / "hardware" / f"wiring-{name}.md").read_text(encoding="utf-8")
    for name in ("reference-1", "reference-2")
}
CONFIGS = {"reference-1": "reference-1-pi", "reference-2": "reference-2-pico"}


def _block(name: str) -> str:
    match = re.search(rf"<!-- verdicts: {name} [^>]*-->\n(.*?)\n<!-- end -->", README, re.S)
    assert match, f"hardware/README.md has no verdict block for {name}"
    return match.group(1)


@pytest.mark.parametrize("recommended", RECOMMENDED, ids=lambda r: r.key)
def test_the_guide_quotes_the_tools_own_verdicts(recommended: object) -> None:
    pytest.importorskip("magpylib", reason="the [hardware] extra")
    from companion.hardware.builds import Recommended

    assert isinstance(recommended, Recommended)
    fresh = verdict_table(recommended)
    assert _block(recommended.key) == fresh, "update hardware/README.md:\n" + fresh
    assert f"| {recommended.depth_mm:g} (this build) |" in fresh and "| pass |" in fresh
    assert "operate margin +" in fresh and "release margin +" in fresh
    assert f"`{recommended.command()}`" in README


def test_the_bom_orders_the_band_and_the_variant_and_where_each_part_sits() -> None:
    bom = README[README.index("## Bill of materials") : README.index("## Reed or Hall")]
    for recommended in RECOMMENDED:
        assert f"**{recommended.order_code}**" in bom
        assert f"{recommended.depth_mm:g} mm below the magnet's underside" in bom
    assert f"its face {HALL.face_depth_mm:g} mm" in bom
    assert "100 nF ceramic capacitors, one at every Hall switch" in bom
    assert f"**{STACK.figure_floor_mm:g} mm above the figure base's underside**" in bom
    # A generic part is named only as what fails.
    assert "10-20 AT" not in README and "DRV5032FC Hall switches" not in bom
    magnets = README[README.index("## Magnets") : README.index("## Power budget")]
    assert f"{REED.below_carrier_top_mm:g} mm (reed)" in magnets
    assert f"{HALL.below_carrier_top_mm:g} mm (DRV5032AJ" in magnets


@pytest.mark.parametrize("name", ["reference-1", "reference-2"])
def test_the_wiring_sheets_and_configs_name_the_builds_that_fit(name: str) -> None:
    config = reference_config(name)
    fits = sensor_builds(config)
    assert (HALL in fits) == (name == "reference-1")  # no Hall switch in a passive matrix
    sheet, toml = SHEETS[name], example_config_text(CONFIGS[name])
    for recommended in RECOMMENDED:
        quoted = f"`{recommended.order_code}`" in sheet
        assert quoted == (recommended in fits)
        assert (recommended.order_code in toml) == (recommended in fits)
    sensors = next(s for s in wiring_page(config) if s.title == "Sensors and magnets")
    assert {row[1] for row in sensors.tables[0].rows} == {f"`{b.order_code}`" for b in fits}
    for recommended in fits:  # verified at the config's own pitch
        pytest.importorskip("magpylib", reason="the [hardware] extra")
        from companion.hardware.magnets import analyse

        assert analyse(recommended.build(config.cell_pitch_mm)).passed


def test_one_led_power_instruction_everywhere() -> None:
    texts = {
        path: path.read_text(encoding="utf-8")
        for path in [
            *(ROOT / "hardware").glob("*.md"),
            *(ROOT / "hardware").glob("wiring-diagram-*.svg"),
            ROOT / "firmware" / "README.md",
        ]
    }
    for path, text in texts.items():
        assert "both ends" not in text and "far end)" not in text, path
    feed = led_feed(reference_config("reference-1"))
    assert feed.drop_every_row < 0.5 < 5.0 - 3.5 < feed.drop_one_end  # why every row
    power = FLAT[FLAT.index("## Power budget") :]
    assert "Feed 5 V and GND into the first pixel of every row" in power
    assert f"at most {feed.drop_every_row:.2f} V less" in power
    assert f"up to {feed.drop_one_end:.2f} V, to {feed.lowest_one_end:.2f} V" in power
    for name, sheet in SHEETS.items():
        assert f"at most {feed.drop_every_row:.2f} V less than the supply" in sheet, name
        diagram = texts[ROOT / "hardware" / f"wiring-diagram-{name}.svg"]
        assert "every row&apos;s first pixel" in diagram or "every row's first pixel" in diagram
        assert f"all {feed.runs}" in diagram


def test_a_bigger_limit_or_more_pixels_sag_more() -> None:
    config = reference_config("reference-1")
    text = example_config_text("reference-1-pi").replace(
        "max_milliamps = 4000", "max_milliamps = 8000"
    )
    from companion.board.config import parse_config

    doubled = led_feed(parse_config(text, "big.toml"))
    assert doubled.drop_one_end > led_feed(config).drop_one_end
    assert doubled.drop_every_row > led_feed(config).drop_every_row


def test_the_timing_docs_follow_the_sampling_period() -> None:
    assert HALL_PERIOD_MAX_MS == 75 and settle_needed_ms(HALL) == 155
    assert settle_needed_ms(REED) <= reference_config("reference-2").sensors.settle_ms
    assert "up to 75 ms" in FLAT and "13.3 to 37 Hz" in FLAT
    assert f"must cover **{settle_needed_ms(HALL)} ms**" in FLAT
    assert "50 ms before a change" not in FLAT and "20 Hz sampling" not in FLAT
    board = " ".join((ROOT / "docs" / "board-config.md").read_text(encoding="utf-8").split())
    assert f"must cover **{settle_needed_ms(HALL)} ms**" in board
    assert "Hall switches: 155" in example_config_text("reference-1-pi")
    assert "0.65 mm below the SOT-23's face and 1.03 mm below the TO-92's" in FLAT


def test_the_guide_says_how_many_magnets_each_build_stands() -> None:
    pytest.importorskip("magpylib", reason="the [hardware] extra")
    from dataclasses import replace

    from companion.hardware.magnets import analyse

    claim = "Both builds pass with 5 magnets; the reed build still with 6, the Hall build with 7"
    assert claim in FLAT
    assert analyse(replace(HALL.build(), figures=7)).passed
    assert not analyse(replace(HALL.build(), figures=8)).passed
    assert analyse(replace(REED.build(), figures=6)).passed
    assert not analyse(replace(REED.build(), figures=7)).passed
    assert REED.build().figures == HALL.build().figures == 5  # the crypt's worst case


def test_the_guide_lists_the_hall_variants_with_their_windows() -> None:
    pytest.importorskip("magpylib", reason="the [hardware] extra")
    from companion.hardware.builds import hall_variants

    match = re.search(r"<!-- variants: hall [^>]*-->\n(.*?)\n<!-- end -->", README, re.S)
    assert match and match.group(1) == hall_variants(), "update hardware/README.md"
    rows = {line.split(" | ")[0].strip("| "): line for line in match.group(1).splitlines()[2:]}
    assert set(rows) >= {"DRV5032FA", "DRV5032FB", "DRV5032FC", "DRV5032AJ"}
    assert rows["DRV5032FC"].endswith("| none |") and "| 4 to 9.5 | 3 to 7.5 |" in rows["DRV5032AJ"]


def _generated(name: str) -> str:
    match = re.search(rf"<!-- {name} [^>]*-->\n(.*?)\n<!-- end -->", README, re.S)
    assert match, f"hardware/README.md has no block {name}"
    return match.group(1)


def test_the_substitution_table_is_the_tools_and_each_line_confirms_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every row's `companion hardware magnets` line exits 0 exactly when the row says
    pass; the table is the generator's."""
    pytest.importorskip("magpylib", reason="the [hardware] extra")
    from companion.cli import main
    from companion.hardware.builds import substitutes, substitution_table

    assert _generated("substitutions") == substitution_table(), "update hardware/README.md"
    rows = substitutes()
    assert {r.kind for r in rows} == {"reed band", "magnet", "Hall variant"}
    for row in rows:
        passed = row.verdict().passed
        assert main(row.command.split()[1:]) == (0 if passed else 1), row.name
        out = capsys.readouterr().out
        assert (f"PASS at {row.into.depth_mm:g} mm" in out) == passed, row.name
    # The old recommendation, the MDSR-7-20-25 under 8 x 3 mm, and the 8 x 3 mm magnet
    # with the new reed both fail; another grade of the same magnet passes.
    names = {(r.kind, r.name, r.into.key): r.verdict().passed for r in rows}
    assert not names[("reed band", "MDSR-7-20-25", "reed")]
    assert not names[("magnet", "8 x 3 mm N35", "reed")]
    assert names[("magnet", "6 x 3 mm N42", "reed")]


def test_the_guide_names_the_fuses_and_a_gauge_for_every_current() -> None:
    from companion.hardware.wires import (
        ROW_FUSE,
        SUPPLY_FUSE,
        WIRES,
        power_problems,
        power_table,
        row_amps,
    )

    config = reference_config("reference-1")
    assert power_problems(config) == []
    assert _generated("power: reference-1") == power_table(config), "update hardware/README.md"
    shared = README[README.index("### Shared by both designs") : README.index("### Design 1")]
    assert SUPPLY_FUSE.name in shared and ROW_FUSE.name in shared
    for wire in WIRES:  # every wire the BOM buys, with its outer diameter
        assert wire.name in shared, wire.key
    assert row_amps(config) == pytest.approx(12 * 0.061)
    assert "a bench supply with a current limit (5 V, 0.3 A)" in shared
    safety = FLAT[FLAT.index("## Power safety") :]
    assert "First power-on on a current-limited supply." in safety
    assert "current limit at 0.3 A" in safety
    # A bigger limit than the fuse holds is named.
    from companion.board.config import parse_config

    big = parse_config(
        example_config_text("reference-1-pi").replace(
            "max_milliamps = 4000", "max_milliamps = 8000"
        ),
        "big.toml",
    )
    assert any("supply fuse" in p for p in power_problems(big))


def test_every_cell_has_a_harness_route_with_a_length() -> None:
    from companion.hardware.harness import harness_markdown, reference_harnesses

    for name in ("reference-1", "reference-2"):
        config = reference_config(name)
        harnesses = reference_harnesses(config)
        wired = [w.position for h in harnesses for w in h.wires]
        assert sorted(wired) == sorted(config.position_name(p) for p in range(config.positions))
        assert all(0 < w.length_mm < 600 for h in harnesses for w in h.wires)
        assert len(harnesses) == config.rows + 2  # a harness per row and per pad group
    ref1 = reference_config("reference-1")
    assert _generated("harness: reference-1") == harness_markdown(reference_harnesses(ref1))


def test_the_guide_says_plainly_what_was_built_and_what_is_computed() -> None:
    notice = FLAT[FLAT.index("## What has been built and what is computed") :]
    assert "none of this board has been built or measured on a real bench by us" in notice
    assert "computed" in notice and "3 x 3 jig" in notice


def test_the_troubleshooting_settle_times_are_the_configs() -> None:
    """Issue 35: the page said 100 / 155 ms; the configs derive 91 / 165 (111 / 185
    behind the Pico)."""
    from companion.board.settle import settle_for

    text = " ".join((ROOT / "hardware" / "troubleshooting.md").read_text().split())
    reed, hall = (
        settle_for("reed", "shift_register", 100),
        settle_for("hall", "shift_register", 100),
    )
    assert (reed, hall) == (91, 165)
    assert reference_config("reference-1").sensors.settle_ms == reed
    assert reference_config("reference-2").sensors.settle_ms == settle_for("reed", "serial", 100)
    assert f"{reed:g} ms for reeds, {hall:g} ms for Hall switches" in text
    pico = settle_for("reed", "serial", 100), settle_for("hall", "serial", 100)
    assert f"{pico[0]:g} and {pico[1]:g} ms behind the Pico" in text
    assert "(100 ms;" not in text and "needs 155 ms" not in text


def test_the_wiring_diagram_says_which_way_the_chain_runs() -> None:
    """QH of each chip goes to SER of the next by number (chip k + 1), as the table says;
    "QH -> SER of the chip before" read backwards by chip number."""
    diagram = (ROOT / "hardware" / "wiring-diagram-reference-1.svg").read_text()
    assert "of the chip before" not in diagram
    assert "the same: QH of chip k" in diagram and "-&gt; SER of chip k + 1" in diagram
    assert "QH (pin 9) of each chip goes to SER (pin 10) of the next" in SHEETS["reference-1"]


def test_the_assembly_sheet_and_page_carry_every_harness() -> None:
    """Item 5 of issue 35: the route in the BOM (README), on the assembly page with its
    lengths, and each harness's base board hole on the assembly sheet."""
    from companion.hardware.harness import harness_markdown, reference_harnesses

    ref1 = reference_config("reference-1")
    harnesses = reference_harnesses(ref1)
    page = (ROOT / "hardware" / "assembly.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- harness: reference-1 [^>]*-->\n(.*?)\n<!-- end -->", page, re.S)
    assert block and block.group(1) == harness_markdown(harnesses)
    sheet = (ROOT / "hardware" / "maze-assembly.svg").read_text(encoding="utf-8")
    for harness in harnesses:
        assert f'data-harness="{harness.name}"' in sheet, harness.name
        assert f"harness: {harness.name}" in sheet
