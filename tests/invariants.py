"""Invariants every state of a mummy-maze game must keep (used by self-play and fuzz tests)."""

from __future__ import annotations

from companion.games.mummy.state import ANKHS_PER_FIGURE, Phase, State


def check_invariants(state: State) -> None:
    setup = state.setup
    maze = setup.maze
    grid = [p for p in state.positions if maze.is_cell(p)]
    assert len(grid) == len(set(grid)), f"two figures share a cell: {state.positions}"
    assert state.mummy not in grid, "a figure stands on the mummy's cell"
    assert state.mummy != maze.start_node, "the mummy is on the start field"
    for f, p in enumerate(state.positions):
        owner = setup.figure_owner[f]
        if p < 0:
            assert state.ankhs[owner] == 0, "a figure left the game with ankhs"
        else:
            assert maze.is_cell(p) or p in (maze.start_node, maze.sarcophagus_node)
    assert sum(state.ankhs) + state.mummy_ankhs == ANKHS_PER_FIGURE * len(setup.figures)
    for i in range(len(setup.seekers)):
        cards = len(state.hands[i]) + len(state.played[i])
        assert cards == 5 * setup.cards_per_colour, "a card was lost or duplicated"
        assert not set(state.hands[i]) & set(state.played[i])
    assert 0 <= state.dice_out <= 5
    assert state.dice_out < 5 or state.forced_resolve or state.is_mummy_turn or state.is_over
    if state.phase is Phase.SEEKER_MOVING:
        assert state.announced is not None
    if state.phase is Phase.MUMMY_MOVING:
        assert state.steps_left > 0
    if state.winner is not None:
        assert state.phase is Phase.GAME_OVER
        if state.winner.is_mummy:
            assert state.mummy_ankhs >= setup.win_ankhs or all(a == 0 for a in state.ankhs)
        else:
            assert state.winner.seeker is not None
            assert not state.hands[state.winner.seeker]
