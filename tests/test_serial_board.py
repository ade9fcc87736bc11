"""Reference design 2 end to end: the service on the simulated Pico over a pty."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from companion.board.config import example_config_text, parse_config
from companion.games.mummy.commands import Announce, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.state import Phase
from companion.mazes import load_maze
from companion.service.appliance import build
from companion.service.loop import ServiceError

FACES = (Face.ONE, Face.TWO, Face.THREE, Face.FOUR, Face.ARROW)


def wait_until(check: Callable[[], object], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.005)


@pytest.fixture
def app(tmp_path):
    config = parse_config(
        example_config_text("reference-2-pico").replace("settle_ms = 111", "settle_ms = 20")
    )
    maze, text = load_maze(None)
    appliance = build(config, maze, text, state_dir=tmp_path, mock=True, quiet_s=0.05)
    wait_until(lambda: appliance.service.published.judgement.matches)
    yield appliance
    appliance.close()


def test_a_move_on_the_simulated_pico_becomes_the_engines_move(app):
    service = app.service
    service.submit("seeker0", Roll(FACES))
    service.submit("seeker0", Announce(Face.ONE))
    entrance = service.maze.start[0].cell
    app.mock_board.lift(service.board.camp[0])
    app.mock_board.place(entrance)
    wait_until(lambda: service.game.current.phase is Phase.SEEKER_CARD)
    assert service.game.current.positions[0] == entrance


def test_the_led_frames_reach_the_simulated_strip(app):
    slot = app.service.board.camp[0]
    pixel = app.config.leds.indices[slot]
    app.mock_board.lift(slot)  # "put it back here" blinks on the camp slot
    wait_until(lambda: any(app.mock_board.pico.strip.colors()[pixel]))
    assert app.pixels.frames_sent > 0


def test_unplugging_marks_the_board_disconnected_and_the_game_waits(app):
    service = app.service
    app.mock_board.pico.unplug()
    wait_until(lambda: not service.published.board_connected)
    assert "disconnected" in str(service.view("table")["board"]["message"])
    with pytest.raises(ServiceError, match="disconnected"):
        service.submit("seeker0", Roll(FACES))
    before = service.game.current
    app.mock_board.pico.replug()
    wait_until(lambda: service.published.board_connected and service.published.judgement.matches)
    assert service.game.current == before  # nothing was lost
    service.submit("seeker0", Roll(FACES))


def test_a_firmware_reset_mid_game_resynchronises_from_the_snapshot(app):
    service = app.service
    service.submit("seeker0", Roll(FACES))
    service.submit("seeker0", Announce(Face.ONE))
    app.mock_board.pico.reset()
    time.sleep(0.3)
    wait_until(lambda: service.published.judgement.matches)
    entrance = service.maze.start[0].cell
    app.mock_board.lift(service.board.camp[0])
    app.mock_board.place(entrance)
    wait_until(lambda: service.game.current.phase is Phase.SEEKER_CARD)
    stats = app.serial_board.link.stats()
    assert stats["opens"] >= 1


def test_a_closed_play_jumper_is_no_figure(app):
    """The play jumper sits at a spare crossing (settings.PLAY_JUMPER): the Pico reports it
    like any crossing, and the companion, which maps no position there, ignores it."""
    from companion.firmware.settings import PLAY_JUMPER

    assert PLAY_JUMPER not in app.config.sensors.indices
    service = app.service
    app.mock_board.pico.press(PLAY_JUMPER)  # closed for play, reported before the move
    service.submit("seeker0", Roll(FACES))
    service.submit("seeker0", Announce(Face.ONE))
    entrance = service.maze.start[0].cell
    app.mock_board.lift(service.board.camp[0])
    app.mock_board.place(entrance)
    wait_until(lambda: service.game.current.phase is Phase.SEEKER_CARD)
    assert service.game.current.positions[0] == entrance
    assert service.published.judgement.matches
