"""The computer in the mummy's seat on the running companion: the simulated board, the
real SQLite journal, the LEDs; paced steps, a restart in the middle of its move."""

from __future__ import annotations

import pytest

from companion.games.mummy.commands import Announce, MummyStep, Roll
from companion.games.mummy.computer import ComputerMummy, Level, computer_seed
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.events import MummyMoved, MummyMoveStarted
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.players import SeekerBot
from companion.games.mummy.record import command_from_json, command_to_json, setup_to_json
from companion.games.mummy.simulate import setup_for
from companion.games.mummy.state import MummyMoveKind, Phase
from companion.games.mummy.views import mummy_view, visible_events
from companion.journal import Journal
from companion.mazes import load_maze
from companion.service.autoplay import play_game
from companion.service.loop import ServiceError
from companion.service.mummy_service import Planned
from tests.test_service import FACES, announce, home, moved, start, wait_until


def test_the_computer_mummy_plays_a_whole_game_step_by_step_on_the_leds(tmp_path):
    app = start(tmp_path)
    shown: list[int | None] = []
    app.service.on_publish(lambda: shown.append(app.service.scene().mummy))
    try:
        assert app.computer is not None
        app.computer.configure("normal", aid=False, pace_s=0.0)
        play_game(app, ["red", "blue", "violet"])
        state = app.service.game.current
        assert state.is_over
        steps = [c for c in app.service.game.commands if isinstance(c, MummyStep)]
        assert app.computer.played >= len(steps) > 10
        # Every step was published on its own: the LEDs showed the mummy on each cell.
        cells = [c.to for c in steps]
        it = iter(shown)
        assert all(any(seen == cell for seen in it) for cell in cells)
    finally:
        app.close()


def _mummy_moves(app) -> list[tuple[MummyMoveKind, int, list[int]]]:
    """Each mummy move of the game so far: its kind, its steps, the cells it stepped on."""
    game = app.service.game
    state, _ = new_game(game.setup)
    moves: list[tuple[MummyMoveKind, int, list[int]]] = []
    for command in game.commands:
        state, events = apply(state, command)
        for event in events:
            if isinstance(event, MummyMoveStarted):
                moves.append((event.move, event.steps, []))
            elif isinstance(event, MummyMoved):
                moves[-1][2].append(event.to)
    return moves


def test_forced_resolves_are_played_by_the_computer_step_by_step(tmp_path):
    """Five mummies thrown: the next turn opens with the computer's intermediate move of
    five steps; thrown by the last figure, it follows the normal move (RULES.md)."""
    app = start(tmp_path)
    shown: list[int | None] = []
    app.service.on_publish(lambda: shown.append(app.service.scene().mummy))
    service, board = app.service, app.mock_board
    assert board is not None and app.computer is not None
    try:
        app.computer.configure("hard", aid=False, pace_s=0.0)
        service.new_game(["red", "blue"], mummy_moves_exactly=True)  # every step taken
        board.set_occupied(service.board.expected(service.game.current).values())
        wait_until(lambda: service.published.judgement.matches)
        five = Roll((Face.MUMMY,) * 5)
        service.submit("seeker0", five)  # red loses the turn; blue's opens with a resolve
        wait_until(lambda: not service.game.current.is_mummy_turn, timeout=10)
        assert service.game.current.figure == 1
        service.submit("seeker1", five)  # the last figure: normal move, then the resolve
        wait_until(lambda: not service.game.current.is_mummy_turn, timeout=10)
        kinds = [(kind, steps) for kind, steps, _ in _mummy_moves(app)]
        assert kinds[0] == (MummyMoveKind.RESOLVE, 5)
        assert kinds[1][0] is MummyMoveKind.NORMAL
        assert kinds[2] == (MummyMoveKind.AFTER_NORMAL, 5)
        moves = _mummy_moves(app)
        assert [len(stepped) for _, _, stepped in moves] == [steps for _, steps, _ in moves]
        cells = [cell for _, _, stepped in moves for cell in stepped]
        mummy = sum(1 for owner in service.game.owners if owner == "mummy")
        # The seat counts a command once its submit returned, on its own thread.
        wait_until(lambda: app.computer.played == mummy, timeout=5)
        assert app.computer.played == mummy >= len(cells) >= 10
        it = iter(shown)  # every step was on the LEDs on its own
        assert all(any(seen == cell for seen in it) for cell in cells)
    finally:
        app.close()


def test_a_move_replaced_after_the_computer_saw_it_is_followed(tmp_path):
    """Red rests on one cell (a move the computer takes in), then carries on to another:
    the computer follows the replaced move, not the first one."""
    app = start(tmp_path)
    service, board, seat = app.service, app.mock_board, app.computer
    assert board is not None and seat is not None
    try:
        seat.configure("normal", aid=False, pace_s=0.0)
        wait_until(lambda: service.published.judgement.matches)
        announce(app, Face.THREE)
        first, final = legal_destinations(service.game.current, 0, Face.THREE)[::3][:2]
        board.lift(home(app, 0))
        board.place(first)
        wait_until(lambda: moved(app))
        seat.step()  # it looks at the game: not its turn, but it has seen the move
        assert seat.state is not None and seat.state.positions[0] == first
        board.lift(first)
        board.place(final)
        wait_until(lambda: service.game.current.positions[0] == final)
        seat.step()
        assert seat.state == service.game.current
    finally:
        app.close()


def test_a_command_planned_for_a_game_that_moved_on_is_refused(tmp_path):
    """The computer decides, then waits its pace: an undo meanwhile makes its command
    stale, and the service refuses it instead of playing it on the changed game."""
    app = start(tmp_path)
    service = app.service
    try:
        wait_until(lambda: service.published.judgement.matches)
        stale = service.game.key
        service.submit("seeker0", Roll(FACES))
        with pytest.raises(ServiceError, match="moved on"):
            service.submit("seeker0", Planned(Announce(Face.ONE), stale))
        assert [c.kind for c in service.game.commands] == ["roll"]
        service.submit("seeker0", Planned(Announce(Face.ONE), service.game.key))
        assert [c.kind for c in service.game.commands] == ["roll", "announce"]
    finally:
        app.close()


def _reference_game(seed: int, level: Level):
    """A whole game between the seeker bots and the computer mummy, in the engine alone."""
    maze, _ = load_maze(None)
    setup = setup_for(maze, 3, seed)
    state, events = new_game(setup)
    figures = tuple(tuple(c.value for c in figs) for figs in setup.seekers)
    mummy = ComputerMummy(maze, figures, level, seed=computer_seed(seed))
    mummy.observe(visible_events(events, "mummy"))
    seekers = SeekerBot(maze)
    commands, states = [], [state]
    while not state.is_over:
        command = mummy.choose(mummy_view(state)) if state.is_mummy_turn else seekers.choose(state)
        state, events = apply(state, command)
        mummy.observe(visible_events(events, "mummy"))
        commands.append(command)
        states.append(state)
    return setup, commands, states


def test_a_restart_in_the_middle_of_its_move_resumes_with_the_same_steps(tmp_path):
    setup, commands, states = _reference_game(seed=5, level=Level.HARD)
    # The second step of a normal mummy move of two steps or more.
    cut = next(
        i + 1
        for i, c in enumerate(commands)
        if isinstance(c, MummyStep)
        and states[i + 1].phase is Phase.MUMMY_MOVING
        and i > 40
        and isinstance(commands[i + 1], MummyStep)
    )
    maze, text = load_maze(None)
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game = journal.new_game("mummy", setup_to_json(setup, text))
        for command in commands[:cut]:
            journal.append(game, command_to_json(command, maze))
    app = start(tmp_path)  # the companion comes back up in the middle of the move
    try:
        assert app.service.game.current == states[cut]
        assert app.computer is not None
        app.computer.configure("hard", aid=False, pace_s=0.0)
        wait_until(lambda: not app.service.game.current.is_mummy_turn, timeout=10.0)
        stored = app.journal.load(game)
        played = [command_from_json(c, maze) for c in stored.commands]
        rest = len(played) - cut
        assert rest >= 1
        assert played == commands[: cut + rest]
    finally:
        app.close()


def test_the_deduction_aid_is_sent_only_when_the_host_turns_it_on(tmp_path):
    app = start(tmp_path)
    try:
        assert app.computer is not None
        assert app.computer.aid_payload() is None
        app.computer.configure(None, aid=True)
        aid = app.computer.aid_payload()
        assert aid is not None
        colours = [f.value for f in app.service.game.setup.figures]
        assert [f["colour"] for f in aid["figures"]] == colours
        # At the start every figure is on the start field: no grid cell yet.
        assert all(f["count"] == 0 for f in aid["figures"])
    finally:
        app.close()


def test_the_host_page_does_not_wait_for_a_mummy_phone_while_the_computer_plays():
    from companion.table.seats import Table, TableOptions

    table = Table.new(["red", "blue"], TableOptions(computer="hard"))
    table.joined = ["seeker0", "seeker1", "table"]
    assert table.all_joined  # the codes hide once the people's seats are taken
    table.options = TableOptions()
    assert not table.all_joined  # a person plays the mummy: their phone is still awaited
