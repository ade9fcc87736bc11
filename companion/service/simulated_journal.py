"""A journal of simulated games (``companion simulate --journal``): the automatic players'
complete games written as the companion writes real ones, with the mummy's level and
the players' names, so the replays and the statistics can be tried and tested on a
journal of many games without a table."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from companion.games.mummy.maze import Maze
from companion.games.mummy.record import command_to_json, setup_to_json
from companion.games.mummy.simulate import mummy_player, play_fast, setup_for
from companion.games.mummy.state import Options
from companion.journal import Journal

from .player_names import PlayerNames, names_path

#: The names the simulated players give themselves.
NAMES = ("Anna", "Ben", "Chiara", "Dario", "Emine", "Felix", "Greta", "Hassan", "Ida", "Jonas")
#: The mummies a simulated journal's games are played by, and what the record says of
#: them ("bot": the self-play bot standing in for a person).
TABLE = {"bot": None, "easy": "easy", "normal": "normal", "hard": "hard"}


def write_games(
    path: str | Path,
    maze: Maze,
    maze_text: str,
    *,
    games: int,
    seekers: Sequence[int] = (1, 2, 3, 4),
    mummies: Sequence[str] = ("bot", "easy", "normal"),
    seed: int = 0,
    options: Options | None = None,
) -> list[int]:
    """Play ``games`` games (seekers and mummies taken in turn) and journal each one,
    ended, with its players' names beside the journal; the new games' ids."""
    rng = random.Random(seed)
    ids = []
    with Journal(path) as journal:
        # Simulated games need no protection from a power cut: no wait on every commit.
        journal.db.execute("PRAGMA synchronous=OFF")
        store = PlayerNames(names_path(journal.path))
        for i in range(games):
            count = seekers[i % len(seekers)]
            mummy = mummies[(i // len(seekers)) % len(mummies)]
            setup = setup_for(maze, count, seed + i, options)
            result = play_fast(setup, mummy_player(mummy, setup))
            data = setup_to_json(setup, maze_text)
            data["table"] = {"computer": TABLE.get(mummy), "aid": i % 3 == 0}
            game_id = journal.new_game("mummy", data)
            for command in result.commands:
                journal.append(game_id, command_to_json(command, maze))
            journal.end_game(game_id)
            people = rng.sample(NAMES, len(setup.seekers) + 1)
            seats = {f"seeker{k}": people[k] for k in range(len(setup.seekers))}
            if TABLE.get(mummy) is None:
                seats["mummy"] = people[-1]
            store.name_seats(game_id, seats)
            ids.append(game_id)
    return ids
