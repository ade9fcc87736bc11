"""Automatic play on the simulated board: the bots' commands go through the service,
their figure moves through the simulated sensors (benchmarks, demos, tests)."""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.games.mummy.commands import Move
from companion.games.mummy.players import MummyBot, SeekerBot
from companion.games.mummy.state import Phase
from companion.games.mummy.views import visible_events

from .appliance import Appliance


def wait_until(check: Callable[[], object], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the simulated board did not settle in time")
        time.sleep(0.002)


def put_board_right(app: Appliance) -> None:
    """Do what the restore guidance asks: carry caught figures, take out eliminated ones."""
    assert app.mock_board is not None
    judgement = app.service.published.judgement
    for position in sorted(judgement.unexpected):
        app.mock_board.lift(position)
    for position in sorted(judgement.missing):
        app.mock_board.place(position)
    wait_until(lambda: app.service.published.judgement.matches)


def play_game(
    app: Appliance,
    colours: list[str],
    max_commands: int = 5000,
    pace: Callable[[], None] | None = None,
) -> int:
    """Play one complete game on the simulated board; returns the figure moves made.
    ``pace`` is called after every command (a soak plays one a second)."""
    service, board = app.service, app.mock_board
    assert board is not None
    service.new_game(colours)
    board.set_occupied(service.board.expected(service.game.current).values())
    wait_until(lambda: service.published.judgement.matches)
    return play_on(app, max_commands, pace)


def play_on(
    app: Appliance,
    max_commands: int = 5000,
    pace: Callable[[], None] | None = None,
    until: Callable[[], bool] | None = None,
) -> int:
    """Play the game now on the board to its end, or until ``until()`` holds (the bots in
    every seat, the figures moved on the simulated board); returns the figure moves made."""
    service, board = app.service, app.mock_board
    assert board is not None
    setup = service.game.setup
    seeker_bot, mummy_bot = SeekerBot(setup.maze), MummyBot(setup)
    mummy_bot.observe(visible_events(service.game.last_events, "mummy"))
    moves = 0
    for _ in range(max_commands):
        state = service.game.current
        if state.is_over or (until is not None and until()):
            return moves
        if not service.published.judgement.matches:
            put_board_right(app)
            continue
        if state.is_mummy_turn and app.computer is not None and app.computer.level is not None:
            # The computer plays the mummy's seat: wait for its move.
            version = service.published.version
            service.wait_for_change(version, 1.0)
            continue
        if state.is_mummy_turn:
            command = mummy_bot.choose(state.phase, state.mummy, state.steps_left, False)
            events = service.submit("mummy", command)
        else:
            command = seeker_bot.choose(state)
            home = service.board.position_of(state, state.figure)
            if isinstance(command, Move) and command.to == home:
                # Out and back to the same cell: nothing to see, the seeker says it.
                events = service.submit(f"seeker{state.seeker}", command)
            elif isinstance(command, Move):  # the figure is moved by hand on the board
                assert home is not None
                board.lift(home)
                board.place(command.to)
                wait_until(lambda: service.game.current.phase is not Phase.SEEKER_MOVING)
                moves += 1
                events = list(service.published.events)
            else:
                events = service.submit(f"seeker{state.seeker}", command)
        mummy_bot.observe(visible_events(events, "mummy"))
        if pace is not None:
            pace()
    raise TimeoutError("the game did not end")
