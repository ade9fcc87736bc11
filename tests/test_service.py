"""The running service on the simulated board: real gpiozero mock pins, the simulated
74HC165 chain, the debouncer, the tracker, the engine and the SQLite journal."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.board.config import default_config_text, parse_config
from companion.games.mummy.commands import (
    Announce,
    EndMummyMove,
    EndTurn,
    Move,
    Roll,
    RollMummyDie,
)
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import apply, new_game
from companion.games.mummy.events import SeekerCaught
from companion.games.mummy.moves import legal_destinations
from companion.games.mummy.players import MummyBot, SeekerBot
from companion.games.mummy.record import command_to_json, replay, setup_to_json
from companion.games.mummy.simulate import setup_for
from companion.games.mummy.state import Phase
from companion.games.mummy.views import visible_events
from companion.journal import Journal
from companion.mazes import load_maze
from companion.service import appliance as appliance_module
from companion.service.appliance import Appliance, build
from companion.service.autoplay import play_game
from companion.service.loop import ServiceError

FACES = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW)
SETTLE_MS = 20


def fast_config():
    text = default_config_text().replace("settle_ms = 91", f"settle_ms = {SETTLE_MS}")
    return parse_config(text)


def start(state_dir: Path) -> Appliance:
    maze, text = load_maze(None)
    return build(fast_config(), maze, text, state_dir=state_dir, mock=True, quiet_s=0.08)


def wait_until(check: Callable[[], object], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.005)


@pytest.fixture
def app(tmp_path) -> Iterator[Appliance]:
    appliance = start(tmp_path)
    wait_until(lambda: appliance.service.published.judgement.matches)
    yield appliance
    appliance.close()


def announce(app: Appliance, face: Face = Face.ONE, faces=FACES) -> None:
    service = app.service
    seeker = f"seeker{service.game.current.seeker}"
    service.submit(seeker, Roll(faces))
    service.submit(seeker, Announce(face))


def home(app: Appliance, figure: int) -> int:
    position = app.service.board.position_of(app.service.game.current, figure)
    assert position is not None
    return position


def moved(app: Appliance) -> bool:
    return app.service.game.current.phase is not Phase.SEEKER_MOVING


def test_a_figure_lifted_and_placed_legally_becomes_the_move(app):
    announce(app)
    entrance = app.service.maze.start[0].cell
    app.mock_board.lift(home(app, 0))
    wait_until(lambda: app.service.published.judgement.lifted == {home(app, 0)})
    app.mock_board.place(entrance)
    wait_until(lambda: moved(app))
    state = app.service.game.current
    assert state.positions[0] == entrance and state.phase is Phase.SEEKER_CARD
    assert app.journal.load(app.service.game.id).commands[-1] == {"cmd": "move", "to": "F12"}


def test_an_illegal_placement_changes_nothing_until_corrected(app):
    announce(app, Face.TWO)
    board = app.mock_board
    board.lift(home(app, 0))
    wrong = app.service.maze.start[0].cell  # one step, but a 2 was announced
    board.place(wrong)
    wait_until(lambda: app.service.published.judgement.errors == {wrong})
    judgement = app.service.published.judgement
    assert "Red may not stop on F12" in str(judgement.message)
    assert judgement.hints  # the legal cells are shown
    time.sleep(0.2)
    assert app.service.game.current.phase is Phase.SEEKER_MOVING
    right = legal_destinations(app.service.game.current, 0, Face.TWO)[0]
    board.lift(wrong)
    board.place(right)
    wait_until(lambda: moved(app))
    assert app.service.game.current.positions[0] == right


def test_a_pause_on_a_legal_cell_then_another_cell_moves_where_the_figure_ends(app):
    """Red rests on one legal cell while deciding, then puts the figure on another:
    the move lands where the figure ends, measured from where the turn began."""
    announce(app, Face.THREE)
    board = app.mock_board
    state = app.service.game.current
    first, final = legal_destinations(state, 0, Face.THREE)[::3][:2]
    board.lift(home(app, 0))
    board.place(first)
    wait_until(lambda: moved(app))  # the pause was long enough to count as a move
    assert app.service.game.current.positions[0] == first
    board.lift(first)
    wait_until(lambda: "Put Red down" in (str(app.service.published.judgement.message) or ""))
    board.place(final)
    wait_until(lambda: app.service.game.current.positions[0] == final)
    judgement = app.service.published.judgement
    assert judgement.matches and not judgement.errors
    commands = app.journal.load(app.service.game.id).commands
    assert [c["cmd"] for c in commands] == ["roll", "announce", "move"]
    assert commands[-1]["to"] == app.service.maze.cell_name(final)


def test_a_move_cannot_be_replaced_once_the_next_player_has_acted(app):
    announce(app, Face.THREE)
    board = app.mock_board
    first, final = legal_destinations(app.service.game.current, 0, Face.THREE)[::3][:2]
    board.lift(home(app, 0))
    board.place(first)
    wait_until(lambda: moved(app))
    if app.service.game.current.phase is Phase.SEEKER_CARD:
        app.service.submit("seeker0", EndTurn())
    board.lift(first)
    board.place(final)
    wait_until(lambda: not app.service.published.judgement.matches)
    time.sleep(0.2)
    assert app.service.game.current.positions[0] == first
    assert "put Red back on" in str(app.service.published.judgement.message)


def test_a_replaced_move_survives_a_restart(tmp_path):
    appliance = start(tmp_path)
    try:
        wait_until(lambda: appliance.service.published.judgement.matches)
        announce(appliance, Face.THREE)
        board = appliance.mock_board
        first, final = legal_destinations(appliance.service.game.current, 0, Face.THREE)[::3][:2]
        board.lift(home(appliance, 0))
        board.place(first)
        wait_until(lambda: moved(appliance))
        board.lift(first)
        board.place(final)
        wait_until(lambda: appliance.service.game.current.positions[0] == final)
    finally:
        appliance.close()
    again = start(tmp_path)
    try:
        assert again.service.game.current.positions[0] == final
    finally:
        again.close()


def test_a_figure_slid_across_cells_counts_only_where_it_stops(app):
    announce(app, Face.ARROW)
    board = app.mock_board
    state = app.service.game.current
    end = legal_destinations(state, 0, Face.ARROW)[0]
    entrance = app.service.maze.start[0].cell
    board.lift(home(app, 0))
    board.place(entrance)  # passes over the entrance ...
    time.sleep(SETTLE_MS / 4000)
    board.lift(entrance)
    board.place(end)  # ... and stops at the end of the slide
    wait_until(lambda: moved(app))
    assert app.service.game.current.positions[0] == end
    commands = app.journal.load(app.service.game.id).commands
    assert [c["cmd"] for c in commands].count("move") == 1


def test_a_bouncing_contact_gives_one_move(app):
    announce(app)
    board = app.mock_board
    entrance = app.service.maze.start[0].cell
    board.lift(home(app, 0))
    for _ in range(5):  # chatter shorter than the settle time
        board.place(entrance)
        time.sleep(0.002)
        board.lift(entrance)
        time.sleep(0.002)
    board.place(entrance)
    wait_until(lambda: moved(app))
    commands = app.journal.load(app.service.game.id).commands
    assert [c["cmd"] for c in commands] == ["roll", "announce", "move"]


def test_a_fast_lift_and_put_back_is_no_move(app):
    announce(app)
    board = app.mock_board
    board.lift(home(app, 0))
    time.sleep(0.003)
    board.place(home(app, 0))
    time.sleep(0.25)
    assert app.service.game.current.phase is Phase.SEEKER_MOVING
    assert app.service.published.judgement.matches


def test_two_hands_at_once_ask_for_a_restore_and_block_the_game(app):
    announce(app)
    board = app.mock_board
    entrance = app.service.maze.start[0].cell
    board.lift(home(app, 0))
    board.lift(home(app, 1))
    board.place(entrance)
    wait_until(lambda: not app.service.published.judgement.matches)
    time.sleep(0.2)
    assert app.service.game.current.phase is Phase.SEEKER_MOVING
    assert "put Turquoise back on camp slot 2" in str(app.service.published.judgement.message)
    board.place(home(app, 1))
    wait_until(lambda: moved(app))


def a_game_just_before_a_catch(seed: int = 1):
    """Commands of a bot game up to the mummy step that catches a seeker, and that step."""
    maze, _ = load_maze(None)
    setup = setup_for(maze, 2, seed)
    state, events = new_game(setup)
    seeker, mummy = SeekerBot(maze), MummyBot(setup)
    mummy.observe(visible_events(events, "mummy"))
    commands = []
    while not state.is_over:
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
        else:
            command = seeker.choose(state)
        after, events = apply(state, command)
        if any(isinstance(e, SeekerCaught) for e in events):
            return setup, commands, command, state
        mummy.observe(visible_events(events, "mummy"))
        commands.append(command)
        state = after
    raise AssertionError("no catch in this game")


def test_a_caught_figure_must_be_carried_to_the_sarcophagus(tmp_path):
    setup, commands, catching_step, before = a_game_just_before_a_catch()
    maze, text = load_maze(None)
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game = journal.new_game("mummy", setup_to_json(setup, text))
        for command in commands:
            journal.append(game, command_to_json(command, maze))
    app = start(tmp_path)
    try:
        service, board = app.service, app.mock_board
        assert service.game.current == before
        wait_until(lambda: service.published.judgement.matches)
        service.submit("mummy", catching_step)
        state = service.game.current
        caught = next(
            f
            for f, p in enumerate(state.positions)
            if p == maze.sarcophagus_node and before.positions[f] == catching_step.to
        )
        wait_until(lambda: not service.published.judgement.matches)
        colour = setup.figures[caught].value.capitalize()
        assert f"{colour} was caught" in str(service.published.judgement.message)
        assert service.scene().unexpected == {catching_step.to}
        with pytest.raises(ServiceError, match="was caught"):
            service.submit(f"seeker{state.seeker}", Roll())
        board.lift(catching_step.to)
        board.place(service.board.sarcophagus[caught])
        wait_until(lambda: service.published.judgement.matches)
        if service.game.current.phase is Phase.SEEKER_TURN:
            service.submit(f"seeker{service.game.current.seeker}", Roll())
    finally:
        app.close()


def test_the_game_resumes_after_a_restart(tmp_path):
    first = start(tmp_path)
    wait_until(lambda: first.service.published.judgement.matches)
    announce(first)
    before = first.service.game.current
    first.close()
    second = start(tmp_path)
    try:
        assert second.service.game.current == before
        assert second.service.game.current.phase is Phase.SEEKER_MOVING
    finally:
        second.close()


def test_undo_takes_back_a_move_and_asks_to_put_the_figure_back(app):
    announce(app)
    entrance = app.service.maze.start[0].cell
    app.mock_board.lift(home(app, 0))
    app.mock_board.place(entrance)
    wait_until(lambda: moved(app))
    assert app.service.undo()
    state = app.service.game.current
    assert state.phase is Phase.SEEKER_MOVING and state.positions[0] != entrance
    judgement = app.service.published.judgement
    assert not judgement.matches and judgement.missing == {home(app, 0)}
    assert "put Red back on camp slot 1" in str(judgement.message)
    time.sleep(0.2)  # the figure left on the entrance is not taken as the move again
    assert app.service.game.current.phase is Phase.SEEKER_MOVING
    assert app.service.undo()  # a second undo takes back the announcement
    assert app.service.game.current.phase is Phase.SEEKER_ROLLED
    app.mock_board.lift(entrance)
    app.mock_board.place(home(app, 0))
    wait_until(lambda: app.service.published.judgement.matches)


def test_the_leds_show_the_mummy_and_the_lifted_cell(app):
    announce(app)
    app.mock_board.lift(home(app, 0))
    wait_until(lambda: app.service.published.judgement.lifted)
    scene = app.service.scene()
    assert scene.lifted == {home(app, 0)}
    wait_until(lambda: any(app.lights.last_frame[home(app, 0)]))
    assert app.pixels.frames_shown > 0


def test_still_leds_are_not_redrawn_but_follow_the_next_change_at_once(app, monkeypatch):
    """At the start the mummy rests in the sarcophagus: nothing moves, nothing is drawn."""
    lights, service = app.lights, app.service
    monkeypatch.setattr(appliance_module, "STILL_RECHECK_S", 60.0)  # only a change wakes them
    wait_until(lambda: lights.still)
    app.hub.changed.set()  # the wait under way started with the old recheck time
    scenes = 0
    scene = app.hub.scene

    def counting() -> object:
        nonlocal scenes
        scenes += 1
        return scene()

    app.hub.scene = counting  # type: ignore[method-assign]
    version = service.published.version
    time.sleep(1.0)
    assert service.published.version == version  # nothing happened ...
    assert scenes <= 1  # ... so nothing was drawn (a frame rate would have drawn 30)
    announce(app)
    lifted_at = time.perf_counter()
    app.mock_board.lift(home(app, 0))
    wait_until(lambda: service.published.judgement.lifted)
    wait_until(lambda: any(lights.last_frame[home(app, 0)]))
    # Settle (20 ms) plus a scan and the tracker: no waiting for a frame tick or a recheck.
    assert lights.last_frame_perf - lifted_at < 1.0
    assert lights.still  # a lifted figure is steady light


def test_a_complete_game_through_the_simulated_board_ends_in_a_win(tmp_path):
    app = start(tmp_path)
    try:
        moves = play_game(app, ["red", "blue"])
        state = app.service.game.current
        assert state.is_over and state.winner is not None
        assert moves > 5
        stored = app.journal.latest("mummy")
        assert stored is not None and stored.ended
        assert replay(app.journal.export(stored.id)).state == state
    finally:
        app.close()


def test_closing_turns_the_leds_off(tmp_path):
    app = start(tmp_path)
    app.mock_board.lift(home(app, 0))  # "put it back" blinks on camp slot 1
    wait_until(lambda: any(any(frame) for frame in app.pixels.frames))
    app.close()
    assert not any(app.pixels.last_frame)


def press(app: Appliance, role: str) -> None:
    pin = app.factory.pin(app.config.buttons[role])
    pin.drive_low()
    time.sleep(0.05)
    pin.drive_high()


def test_the_roll_confirm_and_undo_buttons_drive_the_game(app):
    service = app.service
    press(app, "roll")
    wait_until(lambda: service.game.current.phase is Phase.SEEKER_ROLLED)
    service.submit("seeker0", Announce(next(f for f in service.game.current.roll)))
    state = service.game.current
    target = legal_destinations(state, 0, state.announced)[0]
    app.mock_board.lift(home(app, 0))
    app.mock_board.place(target)
    wait_until(lambda: service.game.current.phase is Phase.SEEKER_CARD)
    press(app, "confirm")  # end the turn
    wait_until(lambda: service.game.current.figure == 1)
    press(app, "undo")
    wait_until(lambda: service.game.current.phase is Phase.SEEKER_CARD)


def test_the_roll_button_is_idle_with_physical_dice(app):
    app.service.physical_dice = True
    press(app, "roll")
    time.sleep(0.2)
    assert app.service.game.current.phase is Phase.SEEKER_TURN


def test_the_buzzer_sounds_an_illegal_placement(app):
    announce(app, Face.TWO)
    app.mock_board.lift(home(app, 0))
    app.mock_board.place(app.service.maze.start[0].cell)  # one step for a two
    wait_until(lambda: "error" in app.buzzer.played)


def test_which_sound_a_change_makes():
    from companion.games.mummy.events import GameWon, SeekerCaught
    from companion.games.mummy.state import Winner
    from companion.service.appliance import sound_for

    caught = SeekerCaught(0, 0, 5, 2)
    won = GameWon(Winner(None, "holds 4 ankhs"))
    assert sound_for([caught, won], frozenset(), frozenset()) == "win"
    assert sound_for([caught], frozenset(), frozenset()) == "catch"
    assert sound_for([], frozenset(), frozenset({3})) == "error"
    assert sound_for([], frozenset({3}), frozenset({3})) is None


def test_a_move_back_to_its_own_cell_is_said_on_the_phone(app):
    service = app.service
    announce(app)
    entrance = service.maze.start[0].cell
    app.mock_board.lift(home(app, 0))
    app.mock_board.place(entrance)
    wait_until(lambda: moved(app))
    service.submit("seeker0", EndTurn())
    for figure in (1, 2, 3):  # the other seekers take their turns
        service.submit(f"seeker{figure}", Roll(FACES))
        state = service.game.current
        face = next(f for f in FACES if legal_destinations(state, figure, f))
        service.submit(f"seeker{figure}", Announce(face))
        target = legal_destinations(service.game.current, figure, face)[0]
        app.mock_board.lift(home(app, figure))
        app.mock_board.place(target)
        wait_until(lambda: moved(app))
        service.submit(f"seeker{figure}", EndTurn())
    service.submit("mummy", RollMummyDie(1))
    service.submit("mummy", EndMummyMove())
    service.submit("seeker0", Roll(FACES))
    service.submit("seeker0", Announce(Face.TWO))
    state = service.game.current
    targets = legal_destinations(state, 0, Face.TWO)
    assert entrance in targets  # out and back again
    elsewhere = next(cell for cell in targets if cell != entrance)
    with pytest.raises(ServiceError, match="Move the figure on the board"):
        service.submit("seeker0", Move(elsewhere))
    service.submit("seeker0", Move(entrance))  # the sensors cannot see this one
    assert service.game.current.phase is Phase.SEEKER_CARD
    assert service.game.current.positions[0] == entrance


def test_a_move_is_shown_as_soon_as_the_figure_settles(app):
    """No quiet wait after the settle time: the move is published while the loop handles
    the scan that saw the figure settle, not at a later timer (it was the settle time
    plus 250 ms; the bench's ``player.part.*`` rows measure how long it takes)."""
    service = app.service
    announce(app)
    entrance = service.maze.start[0].cell
    app.mock_board.lift(home(app, 0))
    wait_until(lambda: service.published.judgement.lifted == {home(app, 0)})
    handling: list[str] = []
    published_in: dict[int, list[str]] = {}
    dispatch = service._dispatch

    def watched(request):  # the loop's thread: what it is handling when it publishes
        handling.append(request.kind)
        try:
            return dispatch(request)
        finally:
            handling.pop()

    service._dispatch = watched
    service.on_publish(lambda: published_in.setdefault(service.published.version, list(handling)))
    before = service.published.version
    app.mock_board.place(entrance)
    wait_until(lambda: moved(app))
    # The pages got the move itself: no version in between showed the figure in hand ...
    assert service.published.version == before + 1
    # ... published while the settled scan was handled.
    assert published_in[before + 1] == ["occupancy"]


def replace_a_move(app: Appliance, first: int, final: int) -> None:
    board = app.mock_board
    board.lift(home(app, 0))
    board.place(first)
    wait_until(lambda: moved(app))
    board.lift(first)
    board.place(final)
    wait_until(lambda: app.service.game.current.positions[0] == final)


def test_a_replaced_move_tells_the_mummy_nothing(app):
    """The mummy's payload (its page and stream) is the same before and after a seeker
    carries the figure on to another cell within the turn: its stream sends only what
    changed, so it sends nothing, and no message's rhythm tells a replacement happened.
    The table's payload follows the figure in place (one move in its log)."""
    from companion.i18n.catalog import localize
    from companion.table.seats import Table, TableOptions
    from companion.web.payloads import mummy_payload, table_payload

    table = Table("t", ["red", "turquoise"], TableOptions(), {})
    announce(app, Face.THREE)
    state = app.service.game.current
    cells = [c for c in legal_destinations(state, 0, Face.THREE) if c != state.mummy]
    first, final = cells[0], cells[-1]

    def seen(make: Callable[..., dict]) -> str:
        return json.dumps(localize(make(app.service.published, table), "en"), sort_keys=True)

    board = app.mock_board
    board.lift(home(app, 0))
    board.place(first)
    wait_until(lambda: moved(app))
    mummy_first, table_first = seen(mummy_payload), seen(table_payload)
    board.lift(first)
    wait_until(lambda: not app.service.published.judgement.matches)
    board.place(final)
    wait_until(lambda: app.service.game.current.positions[0] == final)
    assert seen(mummy_payload) == mummy_first
    assert seen(table_payload) != table_first
    assert app.service.published.state.positions[0] == final
    commands = app.journal.load(app.service.game.id).commands
    assert [c["cmd"] for c in commands] == ["roll", "announce", "move"]


def test_the_leds_show_a_change_at_once_and_animate_at_their_rate(app):
    """While the LEDs animate (a figure missing blinks), a publish wakes the LED thread
    at once instead of after its frame slot (up to 33 ms at 30 frames a second), and
    the animation keeps its rate."""
    lights, service, board = app.lights, app.service, app.mock_board
    other, slot = home(app, 1), home(app, 0)
    board.lift(other)  # Turquoise off its slot: the board blinks until it is back
    wait_until(lambda: not lights.still and other in lights.last_scene.missing)
    published: list[float] = []
    service.on_publish(lambda: published.append(time.perf_counter()))
    took = []
    for _ in range(8):
        lifting = slot in board.occupied
        (board.lift if lifting else board.place)(slot)
        wait_until(lambda was=lifting: (slot in lights.last_scene.missing) == was)
        took.append(lights.last_frame_perf - published[-1])
        time.sleep(0.05)
    rendered = []
    show = lights.show_once
    lights.show_once = lambda t=None: (rendered.append(1), show(t))[1]  # count the frames
    started = time.monotonic()
    time.sleep(1.0)
    rate = len(rendered) / (time.monotonic() - started)
    assert sorted(took)[len(took) // 2] < 0.008, took
    assert 20 < rate < 40, rate  # 30 frames a second, woken or not
