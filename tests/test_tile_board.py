"""The tile build's board config on the running companion: a whole game on the simulated
chain of ten tiles (160 sensor bits through gpiozero's SPI on SPI1's pins, 160 LEDs), and
``companion run --mock --config`` starting on it."""

from __future__ import annotations

from pathlib import Path

from companion.board.config import parse_config
from companion.mazes import load_maze
from companion.service.appliance import build
from companion.service.autoplay import play_game
from tests.test_cli_inputs import run_cli
from tests.test_service import SETTLE_MS

TILES = Path(__file__).parents[1] / "companion/board/data/reference-3-tiles.toml"


def tile_config():
    text = TILES.read_text("utf-8").replace(
        'kind = "hall" ', f'settle_ms = {SETTLE_MS}\nkind = "hall" '
    )
    return parse_config(text, str(TILES))


def test_a_whole_game_plays_on_the_tile_config(tmp_path):
    config = tile_config()
    assert (config.sensors.chips, config.sensors.count, config.leds.count) == (20, 160, 160)
    maze, text = load_maze(None)
    app = build(config, maze, text, state_dir=tmp_path, mock=True, quiet_s=0.08)
    lit: set[int] = set()
    try:
        app.service.on_publish(lambda: lit.add(app.service.scene().mummy or -1))
        moves = play_game(app, ["red", "blue"])
        state = app.service.game.current
        assert state.is_over and moves > 5
        # each move was read back through the tiles' chain: the game waits for the board
        # to match before it takes the next (play_game), so it could not end otherwise
        assert len(lit - {-1}) > 3  # the mummy was shown on the LEDs as it walked
    finally:
        app.close()


def test_companion_run_mock_starts_on_the_tile_config(tmp_path):
    state = tmp_path / "state"
    argv = ["run", "--mock", "--port=0", f"--state-dir={state}", f"--config={TILES}"]
    outcome = run_cli(argv, tmp_path, serve=True)
    assert outcome.code == 0, outcome.err
    assert "ready on" in outcome.out
