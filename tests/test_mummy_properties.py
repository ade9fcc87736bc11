"""Rule invariants as hypothesis properties, checked against plain reference code."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.mummy.commands import (
    Announce,
    Command,
    EndMummyMove,
    EndTurn,
    Move,
    MummyStep,
    PlayCard,
    Resolve,
    Roll,
    RollMummyDie,
)
from companion.games.mummy.dice import NUMBER_FACES, Face
from companion.games.mummy.engine import RuleError, apply, new_game
from companion.games.mummy.maze import DIRECTIONS, Maze
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.players import MummyBot, RandomSeekerBot
from companion.games.mummy.record import replay, write_record
from companion.games.mummy.simulate import setup_for
from companion.games.mummy.state import State
from companion.games.mummy.views import mummy_view, visible_events
from tests.invariants import check_invariants

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def random_position(maze: Maze, seekers: int, seed: int, steps: int) -> tuple[State, list[Command]]:
    """A state reached by random seekers and the public-information mummy."""
    state, events = new_game(setup_for(maze, seekers, seed))
    seeker = RandomSeekerBot(seed)
    mummy = MummyBot(state.setup)
    mummy.observe(visible_events(events, "mummy"))
    commands: list[Command] = []
    for _ in range(steps):
        if state.is_over:
            break
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
        else:
            command = seeker.choose(state)
        state, events = apply(state, command)
        mummy.observe(visible_events(events, "mummy"))
        commands.append(command)
    return state, commands


def reference_number_ends(maze: Maze, state: State, figure: int, n: int) -> set[int]:
    """Plain search over every walk of n steps (the specification, not the fast code)."""
    others = {p for f, p in enumerate(state.positions) if f != figure and maze.is_cell(p)}
    start = state.positions[figure]
    if maze.is_cell(start):
        frontier = {start}
    else:
        frontier = {o.cell for o in maze.openings(start) if o.cell != state.mummy}
        n -= 1
    for _ in range(n):
        nxt = set()
        for cell in frontier:
            for d in DIRECTIONS:
                c = maze.neighbour(cell, d)
                if c is not None and c != state.mummy:
                    nxt.add(c)
        frontier = nxt
    return {c for c in frontier if c not in others}


def reference_arrow_ends(maze: Maze, state: State, figure: int) -> set[int]:
    blocked = {p for f, p in enumerate(state.positions) if f != figure and maze.is_cell(p)}
    blocked.add(state.mummy)
    start = state.positions[figure]
    starts = (
        [(start, d) for d in DIRECTIONS]
        if maze.is_cell(start)
        else [(o.cell, o.side.opposite) for o in maze.openings(start) if o.cell not in blocked]
    )
    ends = set()
    for cell, d in starts:
        while (nxt := maze.neighbour(cell, d)) is not None and nxt not in blocked:
            cell = nxt
        if cell != start:
            ends.add(cell)
    return ends


seeds = st.integers(min_value=0, max_value=2**32)


@SETTINGS
@given(seed=seeds, seekers=st.integers(1, 4), steps=st.integers(0, 400))
def test_number_moves_end_exactly_n_steps_away(default_maze, seed, seekers, steps):
    state, _ = random_position(default_maze, seekers, seed, steps)
    for figure in range(len(state.positions)):
        if state.positions[figure] < 0:
            continue
        for face in NUMBER_FACES:
            got = set(legal_destinations(state, figure, face))
            want = reference_number_ends(default_maze, state, figure, int(face))
            assert got == want, (figure, face)


@SETTINGS
@given(seed=seeds, steps=st.integers(0, 200), mummy=st.integers(0, 143))
def test_number_moves_agree_wherever_the_mummy_stands(default_maze, seed, steps, mummy):
    """Near a figure the mummy blocks walks (the step-by-step path), far away it cannot
    (the table path): both give what the plain search gives."""
    state, _ = random_position(default_maze, 4, seed, steps)
    if mummy in state.positions:
        return
    state = state.evolve(mummy=mummy)
    for figure in range(len(state.positions)):
        if state.positions[figure] >= 0:
            for face in NUMBER_FACES:
                got = set(legal_destinations(state, figure, face))
                assert got == reference_number_ends(default_maze, state, figure, int(face))


@SETTINGS
@given(seed=seeds, seekers=st.integers(1, 4), steps=st.integers(0, 400))
def test_arrow_slides_stop_before_the_next_obstacle(default_maze, seed, seekers, steps):
    state, _ = random_position(default_maze, seekers, seed, steps)
    for figure in range(len(state.positions)):
        if state.positions[figure] >= 0:
            got = set(legal_destinations(state, figure, Face.ARROW))
            assert got == reference_arrow_ends(default_maze, state, figure)


@SETTINGS
@given(seed=seeds, seekers=st.integers(1, 4), steps=st.integers(0, 300))
def test_replaying_a_record_gives_the_same_state(
    default_maze, default_maze_text, seed, seekers, steps
):
    state, commands = random_position(default_maze, seekers, seed, steps)
    text = write_record(state.setup, default_maze_text, commands)
    replayed = replay(text)
    assert replayed.state == state
    assert list(replayed.commands) == commands


def command_strategy(maze: Maze) -> st.SearchStrategy[Command]:
    nodes = st.integers(-2, maze.cell_count + 2)
    faces = st.sampled_from(list(Face))
    return st.one_of(
        st.just(Resolve()),
        st.just(Roll()),
        st.builds(Roll, st.lists(faces, min_size=0, max_size=6).map(tuple)),
        st.builds(Announce, faces),
        st.builds(Move, nodes),
        st.just(PlayCard()),
        st.just(EndTurn()),
        st.builds(RollMummyDie, st.one_of(st.none(), st.integers(-1, 8))),
        st.builds(MummyStep, nodes),
        st.just(EndMummyMove()),
    )


@SETTINGS
@given(data=st.data(), seed=seeds, seekers=st.integers(1, 4))
def test_any_command_is_applied_cleanly_or_refused_without_change(
    default_maze, data, seed, seekers
):
    state, _ = new_game(setup_for(default_maze, seekers, seed))
    commands = data.draw(st.lists(command_strategy(default_maze), max_size=120))
    for command in commands:
        before = json.dumps(mummy_view(state), sort_keys=True)
        try:
            new, _ = apply(state, command)
        except RuleError as exc:
            assert str(exc)[0].isupper() and str(exc).endswith(".")
            assert json.dumps(mummy_view(state), sort_keys=True) == before
            continue
        check_invariants(new)
        state = new


@SETTINGS
@given(seed=seeds, seekers=st.integers(1, 4), steps=st.integers(0, 500), other=seeds)
def test_the_mummy_view_does_not_depend_on_seeker_positions_or_cards(
    default_maze, seed, seekers, steps, other
):
    """Moving the seekers or swapping their secret cards never changes the mummy's view."""
    state, _ = random_position(default_maze, seekers, seed, steps)
    maze = default_maze
    free = [c for c in range(maze.cell_count) if c != state.mummy]
    shift = other % len(free)
    moved = tuple(
        free[(free.index(p) + shift + 7 * f) % len(free)] if maze.is_cell(p) else p
        for f, p in enumerate(state.positions)
    )
    if len(set(moved)) == len(moved):
        twin = state.evolve(positions=moved)
        assert mummy_view(twin) == mummy_view(state)
    hands = list(state.hands)
    by_colour = {}
    for t in maze.treasures:
        by_colour.setdefault(t.colour, []).append(t)
    swapped = tuple(
        tuple(
            sorted(by_colour[t.colour], key=lambda x: (x.name, x.cell))[
                (other + i) % len(by_colour[t.colour])
            ]
            for t in hand
        )
        for i, hand in enumerate(hands)
    )
    twin = state.evolve(hands=swapped)
    assert mummy_view(twin) == mummy_view(state)
