"""A companion service in its own process, for the crash test (SIGKILL at any moment).

Reads one JSON command a line on stdin ({"role": ..., "cmd": ...} in the record format,
or {"move": "C4"} to move the figure whose turn it is on the simulated board) and
prints "ack N <digest>" once the command is committed and applied.  At start it prints
"ready N <digest>" with the number of commands it resumed with.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from companion.board.config import default_config_text, parse_config
from companion.games.mummy.commands import Move
from companion.games.mummy.maze import parse_cell_name
from companion.games.mummy.record import command_from_json
from companion.games.mummy.state import Phase, State
from companion.games.mummy.views import table_view
from companion.mazes import load_maze
from companion.service.appliance import build


def digest(state: State) -> str:
    return json.dumps(
        {
            "table": table_view(state),
            "hands": [[t.name for t in hand] for hand in state.hands],
            "rng": state.rng,
        },
        sort_keys=True,
        separators=(",", ":"),
    )


def wait_until(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        time.sleep(0.002)


def main() -> None:
    state_dir = Path(sys.argv[1])
    maze, text = load_maze(None)
    config = parse_config(default_config_text().replace("settle_ms = 91", "settle_ms = 10"))
    app = build(config, maze, text, state_dir=state_dir, mock=True, quiet_s=0.02, fps=10)
    service, board = app.service, app.mock_board
    wait_until(lambda: service.published.judgement.matches)
    print("ready", len(service.game.commands), digest(service.game.current), flush=True)
    for line in sys.stdin:
        data = json.loads(line)
        if "move" in data:
            state = service.game.current
            cell = parse_cell_name(data["move"], maze.width, maze.height)
            home = service.board.position_of(state, state.figure)
            if home == cell:  # out and back: the seeker says it on the phone
                service.submit(f"seeker{state.seeker}", Move(cell))
            else:
                board.lift(home)
                board.place(cell)
                wait_until(lambda: service.game.current.phase is not Phase.SEEKER_MOVING)
        else:
            service.submit(data["role"], command_from_json(data["cmd"], maze))
        board.set_occupied(service.board.expected(service.game.current).values())
        wait_until(lambda: service.published.judgement.matches)
        print("ack", len(service.game.commands), digest(service.game.current), flush=True)


if __name__ == "__main__":
    main()
