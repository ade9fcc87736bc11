"""companion hardware magnets: worst cases searched over every figure's tolerance circle.

The issue's figures (8 x 3 mm N35, 25 mm pitch, figures up to 5 mm off-centre, 4 magnets
on the board): a Hall switch 11 mm below the magnet sees 13.0 mT centred and 8.9 mT 5 mm
off; the 8 neighbour circles sum to -1.95 mT, four of them to 1.03 mT (0.54 mT at 14 mm);
an upright 14 mm reed gets 6.6 A along its glass from four neighbours at 7 mm, 10.3 A at
5 mm.  The old check (4 neighbours pushed 5 mm straight towards the cell) reported 1.0 A
and 0.59 mT and passed both.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("magpylib", reason="the [hardware] extra: make test installs it")

from companion.cli import main
from companion.hardware.builds import RECOMMENDED
from companion.hardware.magnets import SENSORS, Build, analyse, mounted, reed, window


def build(sensor: str, depth: float, mount: str | None = None, figures: int = 4) -> Build:
    return Build(8.0, 3.0, "N35", depth, 25.0, mounted(SENSORS[sensor], mount), figures=figures)


def test_the_issue_figures_for_a_hall_switch_at_11_mm() -> None:
    v = analyse(build("drv5032fc", 11))
    assert v.own_centred == pytest.approx(13.0, abs=0.05)
    assert v.own_weakest.value == pytest.approx(8.9, abs=0.05)
    assert abs(v.own_weakest.dx) + abs(v.own_weakest.dy) == pytest.approx(5.0)
    assert v.all_eight == pytest.approx(-1.95, abs=0.02)  # every neighbour circle, one sign
    # Four figures around an empty cell: 1.03 mT, twice the FC's 0.5 mT release minimum.
    assert v.release_worst == pytest.approx(1.03, abs=0.01)
    assert len(v.release_figures) == 4 and not v.released and not v.passed
    assert analyse(build("drv5032fc", 14)).release_worst == pytest.approx(0.54, abs=0.01)


def test_no_depth_works_for_the_fc_and_the_aj_has_a_window() -> None:
    """The FC releases at 0.5 mT and needs 4.8 mT: with the 8 x 3 mm magnet the
    neighbours are too strong where a figure 5 mm off is still seen, at every depth."""
    fc = build("drv5032fc", 11)
    assert window(fc) == []
    assert not analyse(fc, 15).seen  # 4.5 mT 5 mm off, below the 4.8 mT maximum
    aj = analyse(build("drv5032aj", 8))
    assert aj.release_worst == pytest.approx(2.3, abs=0.05) and aj.release_margin > 0
    assert aj.own_weakest.value == pytest.approx(15.1, abs=0.1) and aj.passed
    assert window(build("drv5032aj", 8)) == [(7.0, 10.0)]


def test_the_upright_14mm_reed_at_5mm_fails_on_its_neighbours() -> None:
    at_5, at_7 = analyse(build("reed-14mm", 5)), analyse(build("reed-14mm", 7))
    assert at_5.release_worst == pytest.approx(10.3, abs=0.05)  # A along the glass
    assert at_7.release_worst == pytest.approx(6.6, abs=0.05)
    assert not at_5.passed and not at_5.released and at_5.seen
    # In catalogue terms (/ 0.6) that is 17 AT, over the 5 AT a 10 AT reed may drop out at.
    assert at_5.release_seen == pytest.approx(10.3 / 0.6, abs=0.1)


def test_a_flat_14mm_reed_still_fails_and_says_where() -> None:
    v = analyse(build("reed-14mm", 7, "flat"))
    assert v.own_centred == pytest.approx(116, abs=2)
    assert not v.passed and not v.released
    names = {spot.cell for spot in v.release_figures}
    assert "right" in names  # the glass runs under the right-hand neighbour


def test_the_fields_of_several_neighbours_add_up() -> None:
    one, four = (analyse(build("drv5032fc", 11, figures=n)) for n in (1, 4))
    assert four.release_worst == pytest.approx(4 * one.release_worst, rel=0.01)
    # The operate check counts the others too: three pull a figure's field down.
    assert four.operate_worst == pytest.approx(one.operate_worst - 3 * one.release_worst, abs=0.01)


@pytest.mark.parametrize("recommended", RECOMMENDED, ids=lambda r: r.key)
def test_the_recommended_builds_pass_with_both_margins_and_a_millimetre_to_spare(
    recommended: object,
) -> None:
    from companion.hardware.builds import Recommended

    assert isinstance(recommended, Recommended)
    for depth in (recommended.depth_mm - 0.5, recommended.depth_mm, recommended.depth_mm + 0.5):
        v = analyse(recommended.build(), depth)
        assert v.operate_margin > 0 and v.release_margin > 0, depth


def test_the_command_shows_both_margins_and_where_the_worst_case_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["hardware", "magnets", "--magnet", "8x3", "--grade", "N35", "--pitch", "25"]
    assert main([*argv, "--sensor", "drv5032fc", "--depth", "11"]) == 1
    out = capsys.readouterr().out
    assert "FAIL at 11 mm:" in out and "release margin -0.53 mT" in out
    assert "right 0.5 mm off-centre" in out and "(all 8 neighbour circles" in out
    assert main([*argv, "--sensor", "reed-14mm", "--depth", "5"]) == 1
    assert "FAIL at 5 mm:" in capsys.readouterr().out
    for recommended in RECOMMENDED:
        assert main(recommended.command().split()[1:]) == 0
        out = capsys.readouterr().out
        assert f"PASS at {recommended.depth_mm:g} mm:" in out
        assert "- operate margin +" in out and "- release margin +" in out


def test_sweep_prints_the_window_fast(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    assert main(["hardware", "magnets", "--sensor", "drv5032aj", "--sweep"]) == 0
    assert "passes from 7 to 10 mm" in capsys.readouterr().out
    assert main(["hardware", "magnets", "--sensor", "drv5032fc", "--sweep"]) == 1
    assert "no depth from 1 to 30 mm passes" in capsys.readouterr().out
    assert time.monotonic() - start < 20


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--depth", "nan", "must be a number above 0 up to 50 (mm)"),
        ("--tolerance", "inf", "must be a number from 0 to 50 (mm)"),
        ("--at", "25-20", "a pull-in band is LOW-HIGH"),
        ("--at", "nan-20", "a pull-in band is LOW-HIGH"),
        ("--figures", "9", "must be a whole number from 1 to 8"),
        ("--dropout", "-1", "must be a number from 0.1 to 1"),
        ("--magnet", "8xinf", "a magnet is DIAMETERxHEIGHT"),
    ],
)
def test_bad_options_are_refused_in_words(
    option: str, value: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["hardware", "magnets", option, value])
    assert stop.value.code == 2 and words in capsys.readouterr().err


def test_a_tolerance_past_half_the_pitch_and_a_band_on_a_hall_switch_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["hardware", "magnets", "--tolerance", "13"]) == 2
    assert "under half the pitch (12.5 mm)" in capsys.readouterr().out
    assert main(["hardware", "magnets", "--sensor", "drv5032aj", "--at", "20-25"]) == 2
    assert "for reed switches" in capsys.readouterr().out


def test_an_ordered_band_changes_the_reed_limits() -> None:
    banded = Build(8.0, 3.0, "N35", 8.5, 25.0, mounted(reed(12.7, (20.0, 25.0)), None))
    v = analyse(banded)
    assert banded.sensor.operate_max == 25 and banded.sensor.release_min == 10
    assert v.passed and v.operate_seen == pytest.approx(v.operate_worst / 0.75)


@pytest.mark.parametrize(
    ("sensor", "mount", "depth", "grid"),
    [("drv5032fc", None, 11.0, 0.2), ("reed-14mm", "flat", 7.0, 0.5)],
)
def test_the_fast_search_finds_what_a_dense_grid_finds(
    sensor: str, mount: str | None, depth: float, grid: float
) -> None:
    """Every neighbour circle and the own circle sampled on a dense square grid, without
    symmetry or refinement: the search finds the same worst cases (or worse ones)."""
    from companion.hardware.magnets import NEIGHBOURS, fields

    b = build(sensor, depth, mount)
    steps = round(5 / grid)
    disc = [
        (i * grid, j * grid)
        for i in range(-steps, steps + 1)
        for j in range(-steps, steps + 1)
        if (i * i + j * j) * grid * grid <= 25 + 1e-9
    ]
    lows, highs = [], []
    for _, nx, ny in NEIGHBOURS:
        values = fields(b, depth, [(nx * 25 + x, ny * 25 + y) for x, y in disc])
        lows.append(min(values))
        highs.append(max(values))
    dense_release = max(sum(sorted(h for h in highs if h > 0)[-4:]), -sum(sorted(lows)[:4]))
    own = min(abs(v) for v in fields(b, depth, disc))
    v = analyse(b)
    assert v.release_worst >= dense_release * 0.999
    assert v.release_worst <= dense_release * 1.01  # and not an overestimate
    assert abs(v.own_weakest.value) == pytest.approx(own, rel=0.002)
