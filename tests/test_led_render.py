"""The LED renderer, judged on its frames: what each element looks like and how it moves."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board.config import default_config
from companion.board.render import (
    CATCH_CORE,
    CATCH_SECONDS,
    DARK,
    ERROR_COLOUR,
    HINT_COLOUR,
    HINT_PULSES,
    MUMMY_PERIOD,
    RGB,
    Frame,
    Geometry,
    render,
    still,
)
from companion.board.scene import Mode, Scene
from companion.games.mummy.state import FigureColour

GEOMETRY = Geometry.of(default_config())
N = GEOMETRY.positions  # 12 x 12 cells + 4 camp + 4 sarcophagus = 152
COLUMNS = GEOMETRY.columns


def cell(name: str) -> int:
    """The logical position of a cell such as "C4" (column letter, row number)."""
    return (int(name[1:]) - 1) * COLUMNS + ord(name[0]) - ord("A")


def luma(colour: RGB) -> float:
    """Perceived brightness of a colour before gamma (Rec. 709 weights)."""
    r, g, b = colour
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def times(start: float, stop: float, steps: int) -> list[float]:
    return [start + (stop - start) * i / steps for i in range(steps + 1)]


MUMMY = cell("F6")
HINTS = frozenset({cell("F7"), cell("F8"), cell("G6"), cell("E6")})
PLAY = Scene(positions=N, mummy=MUMMY, hints=HINTS, lifted=frozenset({cell("B2")}))


def frame(scene: Scene, t: float) -> Frame:
    return render(scene, t, GEOMETRY)


# -- every frame ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(Mode))
def test_one_colour_per_position_in_every_mode(mode: Mode) -> None:
    scene = Scene(positions=N, mode=mode, mummy=MUMMY, hints=HINTS, winners=frozenset({MUMMY}))
    for t in times(0.0, 3.0, 30):
        colours = frame(scene, t)
        assert len(colours) == N
        assert all(len(c) == 3 and all(0 <= v <= 255 for v in c) for c in colours)


def test_off_is_all_dark_whatever_the_scene_asks_for() -> None:
    scene = Scene(
        positions=N,
        mode=Mode.OFF,
        mummy=MUMMY,
        hints=HINTS,
        errors=frozenset({0}),
        missing=frozenset({1}),
        catch_at=MUMMY,
        catch_time=0.0,
        paint=((5, (255, 255, 255)),),
    )
    for t in (0.0, 0.1, 0.5):
        assert frame(scene, t) == (DARK,) * N


@pytest.mark.parametrize("mode", list(Mode))
def test_the_same_scene_and_time_give_the_same_frame(mode: Mode) -> None:
    scene = Scene(
        positions=N,
        mode=mode,
        mummy=MUMMY,
        hints=HINTS,
        catch_at=MUMMY,
        catch_time=1.0,
        winners=frozenset({cell("A1"), cell("L12")}),
    )
    for t in (0.0, 0.37, 1.2, 12345.678):
        assert frame(scene, t) == frame(scene, t)
        assert frame(scene, t) == render(scene, t, Geometry.of(default_config()))


def test_an_empty_play_scene_is_dark() -> None:
    assert frame(Scene(positions=N), 0.3) == (DARK,) * N


# -- the mummy and the hints ---------------------------------------------------------


def test_the_mummy_is_brighter_than_every_hint_and_lifted_cell_at_every_moment() -> None:
    for t in times(0.0, MUMMY_PERIOD, 100):
        colours = frame(PLAY, t)
        mummy = colours[MUMMY]
        others = [colours[p] for p in (*HINTS, cell("B2"))]
        assert all(luma(mummy) > luma(other) for other in others), t
        assert all(max(mummy) > max(other) for other in others), t


def test_the_mummy_breathes_while_hints_stay_steady() -> None:
    frames = [frame(PLAY, t) for t in times(0.0, MUMMY_PERIOD, 40)]
    mummy = [luma(f[MUMMY]) for f in frames]
    assert max(mummy) >= 1.8 * min(mummy)
    for hint in HINTS:
        assert {f[hint] for f in frames} == {HINT_COLOUR}
    assert {f[cell("B2")] for f in frames} == {frames[0][cell("B2")]}


def test_hints_are_at_least_twice_as_dim_as_the_mummy_at_the_bottom_of_its_breath() -> None:
    bottom = MUMMY_PERIOD / 2
    colours = frame(PLAY, bottom)
    assert luma(colours[MUMMY]) == min(luma(frame(PLAY, t)[MUMMY]) for t in times(0, 1, 200))
    for hint in HINTS:
        assert luma(colours[MUMMY]) >= 2 * luma(colours[hint])
        assert max(colours[MUMMY]) >= 2 * max(colours[hint])


def test_hints_are_dim() -> None:
    assert max(HINT_COLOUR) <= 0.25 * 255


def test_precedence_mummy_over_lifted_over_hints_over_paint() -> None:
    a, b, c = cell("A1"), cell("B1"), cell("C1")
    scene = Scene(
        positions=N,
        mummy=a,
        lifted=frozenset({a, b}),
        hints=frozenset({a, b, c}),
        paint=((a, (9, 9, 9)), (b, (9, 9, 9)), (c, (9, 9, 9)), (cell("D1"), (9, 9, 9))),
    )
    alone = frame(Scene(positions=N, mummy=a), 0.0)
    colours = frame(scene, 0.0)
    assert colours[a] == alone[a]
    assert colours[b] == frame(Scene(positions=N, lifted=frozenset({b})), 0.0)[b]
    assert colours[c] == HINT_COLOUR
    assert colours[cell("D1")] == (9, 9, 9)


def test_the_mummy_on_a_sarcophagus_slot_is_drawn_there() -> None:
    slot = GEOMETRY.cells + GEOMETRY.camp_slots
    assert frame(Scene(positions=N, mummy=slot), 0.0)[slot] != DARK


# -- feedback ------------------------------------------------------------------------


def lit_moments(scene: Scene, position: int, seconds: float = 2.0) -> list[bool]:
    return [frame(scene, t)[position] != DARK for t in times(0.0, seconds, 400)[:-1]]


def changes(states: list[bool]) -> int:
    return sum(1 for a, b in itertools.pairwise(states) if a != b)


def test_an_illegal_placement_blinks_red_four_times_a_second() -> None:
    scene = Scene(positions=N, errors=frozenset({cell("C3")}))
    assert frame(scene, 0.0)[cell("C3")] == ERROR_COLOUR
    assert frame(scene, 0.125)[cell("C3")] == DARK
    states = lit_moments(scene, cell("C3"))
    assert changes(states) in (15, 16)  # 4 Hz over 2 s: 8 on and 8 off
    assert sum(states) == pytest.approx(len(states) / 2, abs=2)


def test_errors_override_the_mummy_and_the_catch() -> None:
    scene = Scene(
        positions=N, mummy=MUMMY, errors=frozenset({MUMMY}), catch_at=MUMMY, catch_time=0.0
    )
    assert frame(scene, 0.0)[MUMMY] == ERROR_COLOUR
    assert frame(scene, 0.13)[MUMMY] == DARK


def test_put_a_figure_here_blinks_slowly() -> None:
    scene = Scene(positions=N, missing=frozenset({cell("A12")}))
    states = lit_moments(scene, cell("A12"))
    assert changes(states) in (3, 4)  # 1 Hz over 2 s
    assert frame(scene, 0.0)[cell("A12")] == frame(scene, 0.4)[cell("A12")] != DARK
    assert frame(scene, 0.6)[cell("A12")] == DARK


def test_take_this_away_flashes_twice_a_second_in_a_colour_of_its_own() -> None:
    scene = Scene(positions=N, unexpected=frozenset({cell("K2")}))
    states = lit_moments(scene, cell("K2"), seconds=1.0)
    assert changes(states) == 3  # on, off, on, off within one second
    colour = frame(scene, 0.0)[cell("K2")]
    assert colour not in (ERROR_COLOUR, DARK)


def test_red_and_green_feedback_differ_in_motion_not_only_in_colour() -> None:
    error = Scene(positions=N, errors=frozenset({0}))
    missing = Scene(positions=N, missing=frozenset({0}))
    assert changes(lit_moments(error, 0)) >= 3 * changes(lit_moments(missing, 0))


# -- the catch -----------------------------------------------------------------------


CATCH = cell("F6")
QUIET = Scene(positions=N, mummy=CATCH, hints=HINTS)
CAUGHT = Scene(positions=N, mummy=CATCH, hints=HINTS, catch_at=CATCH, catch_time=10.0)


def distance(a: int, b: int) -> float:
    return math.hypot(a % COLUMNS - b % COLUMNS, a // COLUMNS - b // COLUMNS)


def test_the_catch_burst_starts_at_the_catch() -> None:
    assert frame(CAUGHT, 9.99) == frame(QUIET, 9.99)
    assert frame(CAUGHT, 10.0)[CATCH] == CATCH_CORE
    assert frame(CAUGHT, 10.0) != frame(QUIET, 10.0)


def test_the_catch_burst_spreads_as_a_ring() -> None:
    colours, quiet = frame(CAUGHT, 10.5), frame(QUIET, 10.5)  # the ring is 4 cells out
    changed = [p for p in range(GEOMETRY.cells) if colours[p] != quiet[p] and p != CATCH]
    assert changed
    assert all(2.5 <= distance(p, CATCH) <= 5.5 for p in changed)


def test_the_catch_burst_fades_out_within_a_second_and_a_half() -> None:
    alone = Scene(positions=N, catch_at=CATCH, catch_time=10.0)
    core = [luma(frame(alone, 10.0 + s)[CATCH]) for s in times(0.0, CATCH_SECONDS, 30)]
    assert core == sorted(core, reverse=True)
    assert core[-1] == 0
    for t in (10.0 + CATCH_SECONDS, 10.0 + CATCH_SECONDS + 0.01, 12.0, 20.0):
        assert frame(CAUGHT, t) == frame(QUIET, t)


def test_a_catch_on_a_pad_flashes_only_that_pad() -> None:
    pad = GEOMETRY.cells
    scene = Scene(positions=N, catch_at=pad, catch_time=0.0)
    colours = frame(scene, 0.2)
    assert colours[pad] != DARK
    assert all(c == DARK for p, c in enumerate(colours) if p != pad)


# -- idle and wins -------------------------------------------------------------------


def test_idle_is_a_calm_animation() -> None:
    idle = Scene(positions=N, mode=Mode.IDLE)
    first, later = frame(idle, 0.0), frame(idle, 2.0)
    assert any(c != DARK for c in first)
    assert first != later
    assert all(max(c) <= 0.3 * 255 + 1 for c in first + later)  # dim: little current
    # calm: nothing jumps between two frames 1/30 s apart
    step = frame(idle, 1 / 30)
    assert all(
        abs(a - b) <= 3 for x, y in zip(first, step, strict=True) for a, b in zip(x, y, strict=True)
    )


def test_idle_shows_paint_and_feedback_but_not_the_game() -> None:
    scene = Scene(
        positions=N,
        mode=Mode.IDLE,
        mummy=5,
        hints=frozenset({6}),
        paint=((7, (1, 2, 3)),),
        errors=frozenset({8}),
    )
    colours, plain = frame(scene, 0.0), frame(Scene(positions=N, mode=Mode.IDLE), 0.0)
    assert colours[5] == plain[5] and colours[6] == plain[6]
    assert colours[7] == (1, 2, 3)
    assert colours[8] == ERROR_COLOUR


def test_the_mummy_win_puts_the_mummy_above_everything_and_moves() -> None:
    scene = Scene(positions=N, mode=Mode.MUMMY_WINS, winners=frozenset({MUMMY}))
    for t in times(0.0, 2.0, 20):
        colours = frame(scene, t)
        assert all(luma(colours[MUMMY]) > luma(c) for p, c in enumerate(colours) if p != MUMMY)
    assert frame(scene, 0.0) != frame(scene, 0.3)


def test_the_seekers_win_sparkles_around_steady_winners() -> None:
    winners = frozenset({cell("A1"), cell("L12"), GEOMETRY.cells})
    scene = Scene(positions=N, mode=Mode.SEEKERS_WIN, winners=winners)
    frames = [frame(scene, t) for t in times(0.0, 2.0, 24)]
    for w in winners:
        assert len({f[w] for f in frames}) == 1
    others = [p for p in range(N) if p not in winners]
    assert len({tuple(f[p] for p in others) for f in frames}) > 10
    lit = [sum(1 for p in others if max(f[p]) > 30) for f in frames]
    assert min(lit) > 0 and max(lit) < len(others) / 2  # sparkles, not a flood


# -- bad scenes ----------------------------------------------------------------------


def test_positions_outside_the_board_are_refused() -> None:
    with pytest.raises(ValueError, match="hints: 152"):
        frame(Scene(positions=N, hints=frozenset({3, 152})), 0.0)
    with pytest.raises(ValueError, match="mummy = -1"):
        frame(Scene(positions=N, mummy=-1), 0.0)
    with pytest.raises(ValueError, match="paint"):
        frame(Scene(positions=N, paint=((0, (256, 0, 0)),)), 0.0)
    with pytest.raises(ValueError, match="151 positions"):
        frame(Scene(positions=N - 1), 0.0)


positions = st.frozensets(st.integers(0, N - 1), max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    mode=st.sampled_from(list(Mode)),
    mummy=st.none() | st.integers(0, N - 1),
    hints=positions,
    lifted=positions,
    errors=positions,
    missing=positions,
    unexpected=positions,
    winners=positions,
    catch_at=st.none() | st.integers(0, N - 1),
    t=st.floats(-1e6, 1e6, allow_nan=False),
)
def test_any_scene_gives_a_valid_frame(
    mode: Mode,
    mummy: int | None,
    hints: frozenset[int],
    lifted: frozenset[int],
    errors: frozenset[int],
    missing: frozenset[int],
    unexpected: frozenset[int],
    winners: frozenset[int],
    catch_at: int | None,
    t: float,
) -> None:
    scene = Scene(
        positions=N,
        mode=mode,
        mummy=mummy,
        hints=hints,
        lifted=lifted,
        errors=errors,
        missing=missing,
        unexpected=unexpected,
        winners=winners,
        catch_at=catch_at,
        catch_time=t - 0.3,
    )
    colours = frame(scene, t)
    assert len(colours) == N
    assert all(type(v) is int and 0 <= v <= 255 for c in colours for v in c)
    assert colours == frame(scene, t)


scenes = st.builds(
    Scene,
    positions=st.just(N),
    mode=st.sampled_from(list(Mode)),
    mummy=st.none() | st.integers(0, N - 1),
    hints=positions,
    lifted=positions,
    errors=st.just(frozenset()) | positions,
    missing=st.just(frozenset()) | positions,
    unexpected=st.just(frozenset()) | positions,
    winners=positions,
    catch_at=st.none() | st.integers(0, N - 1),
    catch_time=st.floats(0, 10),
    paint=st.lists(st.tuples(st.integers(0, N - 1), st.just((9, 8, 7))), max_size=5).map(tuple),
)


@settings(max_examples=300, deadline=None)
@given(scene=scenes, t=st.floats(0, 20), later=st.lists(st.floats(0, 30), min_size=1, max_size=8))
def test_a_still_scene_gives_the_same_frame_from_then_on(
    scene: Scene, t: float, later: list[float]
) -> None:
    """The LEDs stop drawing a still scene: no later frame of it may differ."""
    if still(scene, t):
        assert all(frame(scene, t + dt) == frame(scene, t) for dt in later)


@pytest.mark.parametrize(
    "scene",
    [
        PLAY,
        Scene(positions=N, errors=HINTS),
        Scene(positions=N, missing=HINTS),
        Scene(positions=N, unexpected=HINTS),
        Scene(positions=N, catch_at=MUMMY, catch_time=1.0),
        Scene(positions=N, mode=Mode.IDLE),
        Scene(positions=N, mode=Mode.SEEKERS_WIN, winners=HINTS),
        Scene(positions=N, hints=HINTS, animated=True),
    ],
)
def test_anything_that_moves_is_not_still(scene: Scene) -> None:
    assert not still(scene, 1.2)


def test_hints_lifted_figures_and_a_finished_catch_are_still() -> None:
    scene = Scene(positions=N, hints=HINTS, lifted=frozenset({cell("B2")}), catch_at=MUMMY)
    assert still(scene, 1.0 + CATCH_SECONDS) and still(Scene(positions=N, mode=Mode.OFF), 0.0)


def pulses_seen(scene: Scene, at: int) -> int:
    """How many times the hint at ``at`` rises to full hint level in one cycle."""
    levels = [render(scene, i / 100, GEOMETRY)[at] == HINT_COLOUR for i in range(200)]
    return sum(1 for i in range(200) if levels[i] and not levels[i - 1])


@pytest.mark.parametrize(("colour", "pulses"), sorted(HINT_PULSES.items()))
def test_a_seekers_hints_say_whose_they_are_by_a_count_of_pulses(colour: str, pulses: int) -> None:
    """Colour is never the only sign: one LED per cell cannot carry a letter, so the
    moving seeker's destinations pulse its colour's number of times, dim between,
    never dark (a dark gap would read as the 'put a figure here' blink)."""
    scene = Scene(N, hints=frozenset({cell("C4")}), hint_pulses=pulses)
    assert pulses_seen(scene, cell("C4")) == pulses
    frames = [render(scene, i / 100, GEOMETRY)[cell("C4")] for i in range(200)]
    assert all(0 < luma(f) <= luma(HINT_COLOUR) for f in frames), colour
    assert not still(scene, 0.0)


def test_every_seeker_colour_has_its_own_hint_count() -> None:
    assert sorted(HINT_PULSES) == sorted(c.value for c in FigureColour)
    assert len(set(HINT_PULSES.values())) == len(HINT_PULSES)
