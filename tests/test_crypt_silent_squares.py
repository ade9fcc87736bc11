"""Every square answers alike: with the maze paused for the crypt, a touch on a square
where a maze figure stood at the hand-over gets the same answer, at the same step, as a
touch anywhere else (the mummy player playing the crypt learned a seeker's cell from
one ordinary move: the touch there was silently ignored).

A property over random boards: the real hub and the real crypt service (its loop run
step by step on a clock of the test's), the maze's figures on random cells, some lifted
in a random order, then random touches (put down, lifted) on free squares.  Every answer
of the crypt (what its page says, the squares it marks, the game) must be the same as
on a board where the lifted figures had stood off the crypt board."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.board.debounce import OccupancyChange
from companion.board.scene import Scene
from companion.i18n.catalog import render
from companion.journal import Journal
from companion.service.crypt_service import CryptService
from companion.service.crypt_tracker import CryptBoard
from companion.table.hub import GameHub

QUIET_S = 0.25
#: Cells of the top row: off the crypt board (its squares are the central 8x8 cells).
OFF_CRYPT = tuple(range(12))


class Maze:
    """The maze game as the hub sees it: it hides where its figures stand."""

    hides_positions = True

    def occupancy(self, change: OccupancyChange) -> None: ...
    def set_occupied(self, positions: frozenset[int]) -> None: ...
    def scene(self) -> Scene:
        raise NotImplementedError

    def start(self) -> None: ...
    def status(self) -> dict[str, Any]:
        return {}

    def close(self) -> None: ...
    def board_taken(self, by: str) -> None: ...


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answers(figures: list[int], lifted: list[int], touches: list[int]) -> list[Any]:
    """What the crypt answers to each touch, after the maze left ``figures`` and the
    players lifted ``lifted`` of them."""
    clock = Clock()
    crypt = CryptService(
        journal=Journal(":memory:"), board=CryptBoard(12, 12), clock=clock, quiet_s=QUIET_S
    )
    crypt.new_game(seed=7)
    hub = GameHub({"mummy": Maze(), "crypt": crypt})  # type: ignore[dict-item]
    hub.set_occupied(frozenset(figures))
    hub.activate("crypt")

    def step(position: int, occupied: bool) -> None:
        clock.now += 0.05
        hub.occupancy(OccupancyChange(position, occupied, clock.now, clock.now))

    def settle() -> Any:
        clock.now += QUIET_S + 0.01
        crypt._tick()
        p = crypt.published
        j = p.judgement
        said = render(j.message, "en") if j.message is not None else None
        return (said, j.touch, sorted(j.errors), sorted(j.hints), j.matches, p.state)

    for position in lifted:
        step(position, False)
    seen = [settle()]
    for square in touches:
        position = crypt.board.position(square)
        before = crypt.published.version
        step(position, True)
        down = settle()
        answered = crypt.published.version > before
        step(position, False)
        up = settle()
        seen.append((answered, down, up))
    crypt.close()
    return seen


@st.composite
def boards(draw: st.DrawFn) -> tuple[list[int], list[int], list[int]]:
    crypt = CryptBoard(12, 12)
    squares = crypt.cells_by_square
    figures = draw(
        st.lists(st.sampled_from(squares + OFF_CRYPT), min_size=1, max_size=4, unique=True)
    )
    lifted = draw(st.permutations(figures))[: draw(st.integers(1, len(figures)))]
    standing = set(figures) - set(lifted)
    free = [sq for sq in range(64) if crypt.position(sq) not in standing]
    near = [crypt.square(p) for p in lifted if crypt.square(p) is not None]
    touches = draw(st.lists(st.sampled_from(free + near * 4), min_size=1, max_size=5))
    return figures, lifted, [t for t in touches if crypt.position(t) not in standing]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_the_crypt_answers_every_touch_alike_wherever_maze_figures_stood(
    board: tuple[list[int], list[int], list[int]],
) -> None:
    figures, lifted, touches = board
    elsewhere = dict(zip(lifted, (p for p in OFF_CRYPT if p not in figures), strict=False))
    moved = [elsewhere[p] for p in lifted]
    figures_elsewhere = [elsewhere.get(p, p) for p in figures]
    assert answers(figures, lifted, touches) == answers(figures_elsewhere, moved, touches)


def test_a_touch_where_a_seeker_stood_is_answered_like_any_other() -> None:
    """The issue's case: Blue stood on c8 at the hand-over; after the figure is lifted, a
    touch on c8 answers at once, as on any free square."""
    crypt = CryptBoard(12, 12)
    c8 = 7 * 8 + 2
    there = answers([crypt.position(c8)], [crypt.position(c8)], [c8])
    assert there[1][0] is True  # answered
    assert there[1][1][0].startswith("Lift the magnet to put")
    assert there == answers([0], [0], [c8])
