"""``companion simulate --mummy``: each mummy plays the seeker bots and its win rate is
reported with a 95 % interval; the levels are as strong as the docs say."""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.cli import main
from companion.games.mummy.simulate import MUMMIES, wilson


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", "--json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("mummy", MUMMIES)
def test_each_mummy_plays_and_its_win_rate_comes_with_a_95_interval(capsys, mummy):
    out = _simulate(capsys, "--games", "12", "--seekers", "2", "--mummy", mummy)
    assert out["mummy"] == mummy and out["games"] == 12 and out["unfinished"] == 0
    rate = out["mummy_win_rate"]
    low, high = out["mummy_win_rate_95"]
    assert rate == round(out["mummy_wins"] / 12, 4)
    assert 0 <= low <= rate <= high <= 1


def test_the_report_names_the_mummy_and_its_interval(capsys):
    assert main(["simulate", "--games", "10", "--seekers", "3", "--mummy", "normal"]) == 0
    text = capsys.readouterr().out
    assert "mummy (normal) won" in text and "95% CI" in text and "games/s" in text


def test_an_unknown_mummy_is_refused_with_the_choices(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--mummy", "expert"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "expert" in err and all(m in err for m in MUMMIES)


def test_the_wilson_interval_of_half_of_a_hundred():
    rate, low, high = wilson(50, 100)
    assert rate == 0.5 and round(low, 4) == 0.4038 and round(high, 4) == 0.5962
    assert wilson(0, 0) == (0.0, 0.0, 1.0)
    assert wilson(10, 10)[2] == 1.0 and wilson(0, 10)[1] == 0.0


def test_hard_beats_the_bot_and_the_all_seeing_mummy_beats_both(capsys):
    """The same 40 four-seeker games (the same seeds, the same seeker bots)."""
    wins = {
        m: _simulate(capsys, "--games", "40", "--seekers", "4", "--mummy", m)["mummy_wins"]
        for m in ("easy", "bot", "hard", "omniscient")
    }
    assert wins["easy"] < wins["bot"]
    assert wins["hard"] >= wins["bot"] + 8  # 20 points
    assert wins["omniscient"] >= wins["hard"]


def test_several_mummies_and_seeker_counts_print_the_table_of_win_rates(capsys):
    assert main(["simulate", "--games", "8", "--seekers", "1", "3", "--mummy", "all"]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert "8 games per cell" in lines[0] and "seeds 0-7" in lines[0]
    head = [c.strip() for c in lines[1].strip("|").split("|")]
    assert head[:6] == [
        "seekers",
        "easy",
        "normal",
        "hard",
        "bot (baseline)",
        "omniscient (reference)",
    ]
    assert head[6] == "hard - bot"
    rows = {line.split("|")[1].strip(): line for line in lines[3:]}
    assert set(rows) == {"1", "3"}
    # each cell is the rate the single run reports, with its interval
    for seekers in ("1", "3"):
        hard = _simulate(capsys, "--games", "8", "--seekers", seekers, "--mummy", "hard")
        bot = _simulate(capsys, "--games", "8", "--seekers", seekers, "--mummy", "bot")
        cells = [c.strip() for c in rows[seekers].strip("|").split("|")]
        low, high = hard["mummy_win_rate_95"]
        assert cells[3] == (
            f"{100 * hard['mummy_win_rate']:.1f} % ({100 * low:.1f}-{100 * high:.1f})"
        )
        gap = 100 * (hard["mummy_win_rate"] - bot["mummy_win_rate"])
        assert cells[6] == f"{gap:+.1f} points"
    assert "3 seeker(s), omniscient" in out.err  # progress, one line per cell


def test_several_runs_in_json_are_one_line_each(capsys):
    assert (
        main(
            [
                "simulate",
                "--json",
                "--games",
                "5",
                "--seekers",
                "2",
                "4",
                "--mummy",
                "bot",
                "easy",
                "bot",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["seekers"], r["mummy"]) for r in rows] == [
        (2, "bot"),
        (2, "easy"),
        (4, "bot"),
        (4, "easy"),
    ]
    assert all(r["games"] == 5 for r in rows)
