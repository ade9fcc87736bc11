"""Into the Crypt on the simulated board: the real appliance in mock mode (gpiozero mock
pins, the simulated 74HC165 chain, the debouncer, the hub, the crypt tracker, the
engine, the computer opponent and the SQLite journal), driven by MockBoard.lift/place
as hands would move the magnetic meeples."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.board.config import default_config_text, parse_config
from companion.games.crypt.ai import choose_command
from companion.games.crypt.board import maze_cell, parse_square, square_name
from companion.games.crypt.commands import EnterChamber, Move, Pass, PlaceCube, PlaceMeeple
from companion.games.crypt.engine import apply as apply_command
from companion.games.crypt.engine import make_setup, new_game
from companion.games.crypt.moves import destinations
from companion.games.crypt.narration import without_result
from companion.games.crypt.record import command_from_json, setup_to_json
from companion.games.crypt.state import Phase, State
from companion.journal import Journal
from companion.mazes import load_maze
from companion.service.appliance import Appliance, build
from companion.service.crypt_service import CryptService
from companion.service.loop import ServiceError

SETTLE_MS = 10
QUIET_S = 0.03
HUMAN, COMPUTER = 0, 1


def fast_config():
    text = default_config_text().replace("settle_ms = 91", f"settle_ms = {SETTLE_MS}")
    return parse_config(text)


def start(state_dir: Path) -> Appliance:
    maze, text = load_maze(None)
    app = build(fast_config(), maze, text, state_dir=state_dir, mock=True, quiet_s=QUIET_S)
    crypt(app).computer_delay_s = 0.0
    return app


def crypt(app: Appliance) -> CryptService:
    service = app.hub.service("crypt")
    assert isinstance(service, CryptService)
    return service


def wait_until(check: Callable[[], object], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.003)


def at(name: str) -> int:
    return maze_cell(parse_square(name))


def ply(app: Appliance) -> int:
    return crypt(app).published.state.ply


def give_board_to_crypt(app: Appliance) -> None:
    """Switch the board to the crypt and clear off the maze game's figures: the crypt
    never learns where they stood, nor when they are lifted (only how many the maze
    left, a number that does not change)."""
    figures = app.mock_board.occupied
    assert figures  # the maze game's seekers stand on the camp pads
    version = crypt(app).published.version
    app.hub.activate("crypt")
    version = crypt(app).wait_for_change(version, 3.0).version  # it has seen its board
    assert crypt(app).published.judgement.matches
    assert app.hub.off_board() == 0 and app.hub.left_behind() == len(figures)
    for position in sorted(figures):
        app.mock_board.lift(position)
    wait_until(lambda: not set(app.hub._occupied) & figures)
    assert app.hub.off_board() == 0 and app.hub.left_behind() == len(figures)
    assert crypt(app).published.version == version  # not even a new version


@pytest.fixture
def app(tmp_path) -> Iterator[Appliance]:
    appliance = start(tmp_path)
    yield appliance
    appliance.close()


def touch(app: Appliance, name: str) -> None:
    """Touch a square with a magnet and lift it again: a cube is placed there."""
    before = ply(app)
    app.mock_board.place(at(name))
    wait_until(lambda: crypt(app).published.judgement.touch == parse_square(name))
    app.mock_board.lift(at(name))
    wait_until(lambda: ply(app) > before)


def carry_out(app: Appliance) -> None:
    """Do what the board asks: take figures away, put meeples where they belong."""
    judgement = crypt(app).published.judgement
    for position in sorted(judgement.unexpected):
        app.mock_board.lift(position)
    for position in sorted(judgement.missing):
        app.mock_board.place(position)
    wait_until(lambda: crypt(app).published.judgement.matches)


# -- a whole game ------------------------------------------------------------------------


def test_a_full_game_against_the_computer_through_the_simulated_board(app):
    """Red (a person, played here by the computer's own strategy) against the computer:
    cubes by phone taps and magnet touches, meeples put down and moved by hand, the
    computer's meeple carried by hand, until the game is over."""
    service = crypt(app)
    service.new_game(players=2, computer=COMPUTER, first_player=HUMAN, seed=3)
    give_board_to_crypt(app)
    counts = play_to_the_end(app)
    assert counts["tap"] and counts["touch"] and counts["meeple"] == 1
    assert counts["move"] > 5 and counts["carried"] > 3
    computer_moves = [e for e in service.game.history if e.computer]
    assert len(computer_moves) > 10
    state = service.published.state
    # Over: the end screen tells the last move and the result, once; not the computer's notice.
    assert service.view()["last_computer"] is None
    assert re.search(r"Game over: \w+ wins \d+ to \d+\.$", str(computer_moves[-1].text))
    assert service.view()["history"][-1]["text"] == without_result(computer_moves[-1].text)
    assert "Game over" not in str(service.view()["history"][-1]["text"])
    stored = app.journal.latest("crypt")
    assert stored is not None and stored.ended
    replayed = new_game(2, first_player=HUMAN, seed=3)[0]
    for data in stored.commands:
        replayed, _ = apply_command(replayed, command_from_json(data))
    assert replayed == state


def play_to_the_end(app: Appliance) -> dict[str, int]:
    """Play the crypt game on the board to its end (the person's turns by the computer's
    strategy, on the simulated board); how often each way of playing was used."""
    service = crypt(app)
    counts = {"tap": 0, "touch": 0, "meeple": 0, "move": 0, "carried": 0, "phone": 0}
    for _ in range(400):
        published = service.published
        state, judgement = published.state, published.judgement
        if state.is_over:
            break
        if not judgement.matches:
            # Only the computer's meeple, put down or moved, is waited for here.
            assert str(judgement.message) is not None
            assert str(judgement.message).startswith(("Move Blue's meeple", "Put the board right"))
            assert service.scene().missing == judgement.missing
            carry_out(app)
            counts["carried"] += 1
            continue
        if state.to_move == COMPUTER:
            wait_until(lambda s=state: ply(app) > s.ply)
            continue
        play_human_turn(app, state, counts)
    state = service.published.state
    assert state.is_over and state.winners
    return counts


def play_human_turn(app: Appliance, state: State, counts: dict[str, int]) -> None:
    service = crypt(app)
    command = choose_command(state, seed=11)
    before = state.ply
    if isinstance(command, PlaceCube):
        if state.ply % 4 == 0:  # every other cube of Red's by phone, the rest by touch
            service.submit(command)
            counts["tap"] += 1
        else:
            touch(app, square_name(command.square))
            counts["touch"] += 1
    elif isinstance(command, PlaceMeeple):
        app.mock_board.place(maze_cell(command.corner))
        counts["meeple"] += 1
    elif isinstance(command, Move):
        app.mock_board.lift(maze_cell(state.meeples[HUMAN]))
        app.mock_board.place(maze_cell(command.to))
        counts["move"] += 1
    else:
        assert isinstance(command, EnterChamber | Pass)
        service.submit(command)
        counts["phone"] += 1
    wait_until(lambda: ply(app) > before)
    assert service.published.state.ply > before


# -- pieces of play ----------------------------------------------------------------------


def test_a_touch_lights_the_cube_to_be_and_places_it_when_lifted(app):
    service = crypt(app)
    service.new_game(players=2, computer=None, seed=1)
    give_board_to_crypt(app)
    app.mock_board.place(at("c3"))
    wait_until(lambda: service.published.judgement.touch == parse_square("c3"))
    assert dict(service.scene().paint)[at("c3")] != (0, 0, 0)
    time.sleep(0.1)  # resting on the square places nothing yet
    assert ply(app) == 0
    with pytest.raises(ServiceError, match="lift it first"):
        service.submit(PlaceCube(parse_square("f6")))
    app.mock_board.lift(at("c3"))
    wait_until(lambda: ply(app) == 1)
    assert service.published.state.cube_owner_at(parse_square("c3")) == 1
    wait_until(lambda: any(app.lights.last_frame[at("c3")]))


def test_sliding_a_magnet_over_the_board_places_only_where_it_rested_last(app):
    service = crypt(app)
    service.new_game(players=2, seed=1)
    give_board_to_crypt(app)
    board = app.mock_board
    board.place(at("c3"))
    wait_until(lambda: service.published.judgement.touch == parse_square("c3"))
    board.lift(at("c3"))
    board.place(at("c4"))  # moved on before the quiet period was over
    wait_until(lambda: service.published.judgement.touch == parse_square("c4"))
    board.lift(at("c4"))
    wait_until(lambda: ply(app) == 1)
    time.sleep(0.1)
    state = service.published.state
    assert state.ply == 1 and state.cube_owner_at(parse_square("c4")) == 1
    assert state.cube_owner_at(parse_square("c3")) is None


def test_a_touch_where_no_cube_may_go_is_shown_and_places_nothing(app):
    service = crypt(app)
    service.new_game(players=2, seed=1)
    give_board_to_crypt(app)
    app.mock_board.place(at("b1"))
    wait_until(lambda: service.published.judgement.errors == {at("b1")})
    assert "green corner tile" in str(service.published.judgement.message or "")
    assert service.scene().errors == {at("b1")}
    app.mock_board.lift(at("b1"))
    wait_until(lambda: service.published.judgement.matches)
    time.sleep(0.1)
    assert ply(app) == 0


def test_undo_takes_back_the_persons_move_and_the_computers_reply(app):
    service = crypt(app)
    service.new_game(players=2, computer=COMPUTER, seed=5)
    give_board_to_crypt(app)
    service.submit(PlaceCube(parse_square("c3")))
    wait_until(lambda: ply(app) == 2)  # the computer answered
    assert service.published.history[-1].computer
    assert service.undo()
    state = service.published.state
    assert state.ply == 0 and state.to_move == HUMAN and not state.all_cubes_mask
    assert not service.published.undoable
    assert not service.undo()
    time.sleep(0.1)
    assert ply(app) == 0  # the computer waits for the person


def test_page_commands_are_refused_while_the_board_disagrees(app):
    service = crypt(app)
    service.new_game(players=2, seed=1)
    app.hub.activate("crypt")  # the maze game's figures are off the crypt's board
    app.mock_board.place(at("a1"))
    app.mock_board.place(at("h8"))
    wait_until(lambda: not service.published.judgement.matches)
    assert str(service.published.judgement.message) == (
        "Put the board right: take the figures off h8 and a1."
    )
    with pytest.raises(ServiceError, match="take the figures off h8"):
        service.submit(PlaceCube(parse_square("c3")))
    with pytest.raises(ServiceError, match="on the board"):
        service.submit(Move(parse_square("c3")))


# -- a game in the moving phase, from the journal ------------------------------------------


def journal_game_in_moving_phase(state_dir: Path, computer: int | None = None) -> State:
    """A crypt game written to the journal up to the first move: Red to move."""
    setup = make_setup(2, 0, seed=2)
    state = new_game(2, first_player=0, seed=2)[0]
    with Journal(state_dir / "journal.sqlite3") as journal:
        game = journal.new_game("crypt", {**setup_to_json(setup), "computer": computer})
        while state.phase is not Phase.MOVING:
            command = choose_command(state, seed=2)
            state, _ = apply_command(state, command)
            journal.append(game, command.to_json())
    return state


def test_an_illegal_placement_waits_until_corrected(tmp_path):
    before = journal_game_in_moving_phase(tmp_path)
    app = start(tmp_path)
    try:
        service, board = crypt(app), app.mock_board
        assert service.published.state == before
        app.hub.activate("crypt")
        board.set_occupied(maze_cell(m) for m in before.meeples)
        wait_until(lambda: service.published.judgement.matches)
        home = maze_cell(before.meeples[0])
        legal = {service.board.position(d) for d in destinations(before)}
        wrong = next(
            maze_cell(s)
            for s in range(64)
            if maze_cell(s) not in legal and maze_cell(s) != home and before.meeple_at(s) is None
        )
        board.lift(home)
        wait_until(lambda: service.published.judgement.lifted == {home})
        assert service.published.judgement.hints == legal
        assert service.scene().lifted == {home}
        board.place(wrong)
        wait_until(lambda: service.published.judgement.errors == {wrong})
        assert str(service.published.judgement.message).startswith("Red may not stop on")
        time.sleep(0.15)
        assert service.published.state == before
        right = sorted(legal)[0]
        board.lift(wrong)
        board.place(right)
        wait_until(lambda: ply(app) == before.ply + 1)
        assert service.published.state.meeples[0] == service.board.square(right)
    finally:
        app.close()


def test_the_game_resumes_after_a_restart_and_the_computer_plays_on(tmp_path):
    first = start(tmp_path)
    service = crypt(first)
    service.new_game(players=2, computer=COMPUTER, seed=9, colours=["violet", "orange"])
    give_board_to_crypt(first)
    service.submit(PlaceCube(parse_square("c3")))
    wait_until(lambda: ply(first) == 2)
    before = service.published.state
    first.close()
    second = start(tmp_path)
    try:
        resumed = crypt(second)
        assert resumed.published.state == before
        assert resumed.game.computer == COMPUTER
        first_move = str(resumed.game.history[0].text)
        assert first_move == "Violet put one of Orange's cubes on c3."
        assert resumed.view()["last_computer"] is not None
    finally:
        second.close()


def test_a_resumed_game_on_the_computers_turn_is_played_by_it(tmp_path):
    setup = make_setup(2, 0, seed=4)
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game = journal.new_game("crypt", {**setup_to_json(setup), "computer": 1})
        journal.append(game, PlaceCube(parse_square("c3")).to_json())
    app = start(tmp_path)
    try:
        wait_until(lambda: ply(app) == 2)
        assert crypt(app).published.history[-1].computer
    finally:
        app.close()


def test_a_restart_after_a_finished_game_adds_no_game_to_the_journal(tmp_path):
    first = start(tmp_path)
    game_id = crypt(first).game.id
    first.journal.end_game(game_id)
    first.close()
    second = start(tmp_path)
    try:
        assert crypt(second).game.id == game_id  # its final board, no new game
        kinds = second.journal.db.execute("SELECT COUNT(*) FROM games WHERE kind = 'crypt'")
        assert kinds.fetchone()[0] == 1
    finally:
        second.close()


def test_a_square_a_maze_figure_stood_on_is_unseen_until_lifted_then_like_any_other(app):
    """A seeker stood on C10 (the crypt's a1) when the maze gave the board away.  The
    crypt never sees that magnet while it stands there (the cubes are placed around it,
    the board matches); once lifted, the square is free like any other: put down again
    it is Red's meeple on a free corner, answered as on any corner (issue 34: silence
    there named the cell a seeker stood on)."""
    service = crypt(app)
    service.new_game(players=2, computer=None, seed=2)
    corner = at("a1")
    app.mock_board.place(corner)  # while the maze holds the board
    wait_until(lambda: corner in app.hub._occupied)
    version = service.published.version
    app.hub.activate("crypt")
    service.wait_for_change(version, 3.0)
    for position in sorted(app.mock_board.occupied - {corner}):  # the camp pads cleared
        app.mock_board.lift(position)
    while service.published.state.phase is Phase.PLACING_CUBES:
        service.submit(choose_command(service.published.state, seed=5))
    assert service.published.state.phase is Phase.PLACING_MEEPLES
    wait_until(lambda: service.published.judgement.matches)  # the magnet is unseen
    version, ply_before = service.published.version, ply(app)
    app.mock_board.lift(corner)
    wait_until(lambda: corner not in app.hub._occupied)
    time.sleep(0.1)
    assert service.published.version == version  # the lift itself is unheard
    app.mock_board.place(corner)  # a magnet put down on a free corner: the meeple
    wait_until(lambda: ply(app) == ply_before + 1)
    assert service.published.state.meeples[0] == parse_square("a1")
    assert app.hub.off_board() == 0


# -- a meeple counts when it settles; the hand may carry it on ------------------------------


def moving_table(tmp_path: Path) -> tuple[Appliance, State, int, list[int]]:
    """Red to move on the board, with a cube quiet period no meeple may wait for: the
    appliance, the state, Red's meeple's position and its legal destinations."""
    before = journal_game_in_moving_phase(tmp_path)
    app = start(tmp_path)
    service = crypt(app)
    service.quiet_s = 30.0  # a meeple that waited for it would never count in this test
    app.hub.activate("crypt")
    app.mock_board.set_occupied(maze_cell(m) for m in before.meeples)
    wait_until(lambda: service.published.judgement.matches)
    home = maze_cell(before.meeples[0])
    legal = sorted(service.board.position(d) for d in destinations(before))
    assert len(legal) >= 2
    return app, before, home, legal


def carry(app: Appliance, start: int, to: int, ply_after: int) -> None:
    """A meeple lifted from ``start`` and put down on ``to``: counted, the game at ``ply_after``."""
    app.mock_board.lift(start)
    app.mock_board.place(to)
    wait_until(lambda: ply(app) == ply_after)


def test_a_meeple_counts_when_it_settles_and_a_hand_carrying_it_on_replaces_the_move(tmp_path):
    app, before, home, legal = moving_table(tmp_path)
    try:
        service, board = crypt(app), app.mock_board
        first, other = legal[0], legal[-1]
        board.lift(home)
        wait_until(lambda: service.published.judgement.lifted == {home})
        version = service.published.version
        board.place(first)
        wait_until(lambda: ply(app) == before.ply + 1)
        assert service.published.state.meeples[0] == service.board.square(first)
        # The pages got the move itself: no version in between showed the meeple in hand.
        assert service.published.version == version + 1
        # The hand carries on: the meeple is in hand again, its square's choices lit ...
        board.lift(first)
        wait_until(lambda: service.published.judgement.lifted == {home})
        assert service.published.judgement.matches
        assert service.published.judgement.hints == frozenset(legal)
        assert ply(app) == before.ply + 1
        # ... and where it settles next replaces the move: still one move, now to there.
        board.place(other)
        wait_until(lambda: service.published.state.meeples[0] == service.board.square(other))
        assert ply(app) == before.ply + 1 and service.published.judgement.matches
        assert square_name(service.board.square(other)) in str(service.game.history[-1].text)
        stored = service.journal.load(service.game.id)
        assert len(stored.commands) == len(service.game.commands)
        assert command_from_json(stored.commands[-1]) == Move(service.board.square(other))
    finally:
        app.close()
    again = start(tmp_path)  # the journal holds the replaced move
    try:
        assert crypt(again).published.state.meeples[0] == again.hub.service("crypt").board.square(
            other
        )
    finally:
        again.close()


def test_once_the_next_player_has_moved_the_last_move_stands(tmp_path):
    app, before, home, legal = moving_table(tmp_path)
    try:
        service, board = crypt(app), app.mock_board
        carry(app, home, legal[0], before.ply + 1)
        red_moved = service.game.commands[-1]
        state = service.published.state
        assert state.phase is Phase.MOVING and state.to_move == 1
        blue_to = service.board.position(sorted(destinations(state))[0])
        carry(app, maze_cell(state.meeples[1]), blue_to, before.ply + 2)
        # Red's meeple lifted and put down again is Red's next move, not a new square
        # for the first one: that one stands in the game and the journal.
        state = service.published.state
        board.lift(legal[0])
        wait_until(lambda: service.published.judgement.lifted == {legal[0]})
        to = service.board.position(sorted(destinations(state))[0])
        board.place(to)
        wait_until(lambda: ply(app) == before.ply + 3)
        assert service.game.commands[-3] == red_moved
        stored = service.journal.load(service.game.id)
        assert command_from_json(stored.commands[-3]) == red_moved
        assert service.published.state.meeples[0] == service.board.square(to)
    finally:
        app.close()


def test_a_meeple_carried_on_to_a_square_it_could_not_reach_changes_nothing(tmp_path):
    app, before, home, legal = moving_table(tmp_path)
    try:
        service, board = crypt(app), app.mock_board
        carry(app, home, legal[0], before.ply + 1)
        moved = service.published.state
        wrong = next(
            maze_cell(s)
            for s in range(64)
            if maze_cell(s) not in legal and maze_cell(s) != home and moved.meeple_at(s) is None
        )
        board.lift(legal[0])
        board.place(wrong)
        wait_until(lambda: wrong in service.published.judgement.unexpected)
        judgement = service.published.judgement
        assert not judgement.matches and judgement.missing == {legal[0]}
        time.sleep(0.1)
        assert service.published.state == moved  # the move stands until put right
        board.lift(wrong)
        board.place(legal[0])
        wait_until(lambda: service.published.judgement.matches)
        assert service.published.state == moved
    finally:
        app.close()
