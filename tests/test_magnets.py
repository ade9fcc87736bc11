"""companion hardware magnets: magpylib fields of the real disc against the sensor limits.

The issue's first-order numbers for an 8 x 3 mm N35 magnet 7 mm above a 14 mm reed
(ampere-turns along the glass): flat 116 / 45 / 32 / 75 A, upright 116 A and 1.4 A.
"""

from __future__ import annotations

import pytest

pytest.importorskip("magpylib", reason="the [hardware] extra: make test installs it")

from companion.cli import main
from companion.hardware.magnets import SENSORS, Build, analyse, mounted


def build(sensor: str, mount: str | None = None, depth: float = 7.0) -> Build:
    return Build(8.0, 3.0, "N35", depth, 25.0, mounted(SENSORS[sensor], mount))


def test_a_flat_14mm_reed_cannot_tell_its_cell_from_the_next() -> None:
    r = analyse(build("reed-14mm", "flat"))
    assert r.own_centred == pytest.approx(116, abs=2)
    assert r.own_off == pytest.approx(45, abs=2)
    assert r.neighbour_centred == pytest.approx(-32, abs=1.5)  # opposite in sign
    assert r.neighbour_toward == pytest.approx(-75, abs=2)
    assert r.seen and not r.not_seen and not r.passed


def test_an_upright_14mm_reed_sees_its_own_figure_and_not_the_neighbours() -> None:
    r = analyse(build("reed-14mm"))
    assert r.own_centred == pytest.approx(116, abs=2)
    assert r.neighbour_centred == pytest.approx(-1.4, abs=0.2)
    assert r.seen_within_mm >= 10 and abs(r.four_neighbours) < 10
    assert r.passed


def test_the_hall_switch_table_and_the_opposite_sign_of_four_neighbours() -> None:
    at_7, at_11 = analyse(build("drv5032")), analyse(build("drv5032", depth=11))
    assert at_7.own_centred == pytest.approx(36, abs=1.5)  # mT on the axis at 7 mm
    assert at_7.four_neighbours == pytest.approx(-3.0, abs=0.2)  # the other pole
    assert 8 <= at_7.seen_within_mm <= 9
    # Three millitesla of the other pole can operate an omnipolar switch; 11 mm away the
    # neighbours give a fifth of that and the figure is still seen 8 mm off-centre.
    assert not at_7.passed and at_11.passed and at_11.seen_within_mm >= 7.5


def test_the_command_prints_the_table_and_exits_with_the_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["hardware", "magnets", "--magnet", "8x3", "--grade", "N35", "--depth", "7"]
    assert main([*argv, "--pitch", "25", "--sensor", "reed-14mm", "--mount", "flat"]) == 1
    out = capsys.readouterr().out
    assert "| 7 (this build) | 116.5 |" in out and out.count("FAIL") >= 2
    assert "ampere-turns along the glass" in out and "model:" in out
    assert main([*argv, "--pitch", "25", "--sensor", "reed-14mm"]) == 0
    assert "PASS: own figure seen, neighbours not" in capsys.readouterr().out
