"""The mummy's move in one gesture: a destination is its steps, nothing else.

``mummy_routes`` gives each cell the mummy may end on with the steps that take it
there, from the maze and the mummy alone; played as ``MummyStep`` commands they are
legal, end where they should (or at the first seeker on the way, caught), and reach
exactly the cells a plain search over every walk reaches.  ``Service.walk`` plays
them one by one like taps, each in the journal."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from companion.games.mummy.commands import MummyStep, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import apply
from companion.games.mummy.events import MummyMoved, SeekerCaught
from companion.games.mummy.maze import Maze
from companion.games.mummy.moves import mummy_routes
from companion.games.mummy.state import MummyMoveKind, Phase, State
from companion.mazes import load_maze
from tests.test_mummy_properties import SETTINGS, random_position
from tests.test_service import start, wait_until

MAZE = load_maze(None)[0]


def plain_ends(maze: Maze, node: int, steps: int, exactly: bool) -> set[int]:
    """The specification: every walk of 1..steps single steps (or exactly ``steps``)."""

    def around(n: int) -> set[int]:
        if maze.is_cell(n):
            return set(maze.adjacent[n])
        return {o.cell for o in maze.openings(n)}

    ends: set[int] = set()
    here = {node}
    for k in range(1, steps + 1):
        here = set().union(*(around(n) for n in here))
        if not exactly or k == steps:
            ends |= here
    return ends - {node}


def moving(state: State, mummy: int, steps: int, exactly: bool) -> State:
    """``state`` turned into the mummy's normal move of ``steps`` from ``mummy``."""
    options = replace(state.setup.options, mummy_moves_exactly=exactly)
    positions = tuple(-1 if p == mummy else p for p in state.positions)
    return state.evolve(
        setup=replace(state.setup, options=options),
        phase=Phase.MUMMY_MOVING,
        mummy_move=MummyMoveKind.NORMAL,
        steps_left=steps,
        mummy=mummy,
        positions=positions,
    )


@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    plays=st.integers(0, 120),
    seekers=st.integers(1, 4),
    mummy=st.integers(0, MAZE.cell_count),  # cell_count + 1 is the sarcophagus
    steps=st.integers(1, 12),
    exactly=st.booleans(),
    pick=st.integers(0, 10_000),
)
def test_a_destination_move_is_its_steps(
    seed: int, plays: int, seekers: int, mummy: int, steps: int, exactly: bool, pick: int
) -> None:
    base, _ = random_position(MAZE, seekers, seed, plays)
    if base.is_over:
        return
    node = mummy if mummy < MAZE.cell_count else MAZE.sarcophagus_node
    state = moving(base, node, steps, exactly)
    routes = mummy_routes(state)
    # Exactly the cells some walk of legal steps ends on (never the seekers' business).
    assert set(routes) == plain_ends(MAZE, node, steps, exactly)
    blind = mummy_routes(state.evolve(positions=tuple(-1 for _ in state.positions)))
    assert blind == routes  # the seekers change nothing the mummy's page is sent
    if not routes:
        return
    # Half the time a way past a seeker, when there is one (a catch on the way).
    crossing = [c for c, r in routes.items() if any(state.figure_at(x) is not None for x in r)]
    choice = crossing if crossing and pick % 2 else sorted(routes)
    to = choice[pick // 2 % len(choice)]
    route = routes[to]
    assert route[-1] == to
    assert len(route) == steps if exactly else len(route) <= steps
    # Played as single steps, one by one, as the page's taps would be.
    on_the_way = [c for c in route if state.figure_at(c) is not None]
    played = state
    taken: list[int] = []
    for cell in route:
        played, events = apply(played, MummyStep(cell))  # each one legal: no RuleError
        taken += [e.to for e in events if isinstance(e, MummyMoved)]
        if played.phase is not Phase.MUMMY_MOVING or played.mummy_move is not state.mummy_move:
            break
    if on_the_way:
        first = on_the_way[0]
        assert taken == route[: route.index(first) + 1]  # the first seeker ends the move
        assert played.mummy == first
        assert played.mummy_ankhs == state.mummy_ankhs + 1
    else:
        assert taken == route and played.mummy == to
        if exactly or len(route) == steps:
            # The move ended on arrival (an intermediate move may follow it: a new one).
            ended = played.phase is not Phase.MUMMY_MOVING
            assert ended or played.mummy_move is not state.mummy_move
        else:
            assert played.steps_left == steps - len(route)


def test_the_service_walks_a_destination_step_by_step(tmp_path: Path) -> None:
    """The service plays the route as the taps would: a journal row, a log entry and a
    published version per step, a short pause between them, and the same state."""
    app = start(tmp_path)
    try:
        wait_until(lambda: app.service.published.judgement.matches)
        service = app.service
        service.submit("seeker0", Roll(faces=(Face.MUMMY,) * 5))  # the intermediate move of 5
        state = service.game.current
        assert state.phase is Phase.MUMMY_MOVING and state.steps_left == 5
        routes = mummy_routes(state)
        to = max(routes, key=lambda c: (len(routes[c]), c))
        route = routes[to]
        expected = state
        for cell in route:
            expected, _ = apply(expected, MummyStep(cell))
        commands, version = len(service.game.commands), service.published.version
        pauses: list[float] = []
        events = service.walk(to, sleep=pauses.append)
        assert [e.to for e in events if isinstance(e, MummyMoved)] == route
        assert service.game.current == expected
        assert service.game.commands[commands:] == [MummyStep(c) for c in route]
        assert service.published.version >= version + len(route)
        assert pauses == [service.walk_pace_s] * (len(route) - 1)
        assert not any(isinstance(e, SeekerCaught) for e in events)
    finally:
        app.close()
