"""The replay of a finished game: its frames (a pure function of the record), what each
seat knew, the doors that refuse a running game in words, old records, and the
statistics across a journal of simulated games."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from companion.games.mummy.engine import make_setup
from companion.games.mummy.events import FigureMoved
from companion.games.mummy.record import setup_to_json
from companion.games.mummy.replay import NotOver, replay, seat_view
from companion.games.mummy.simulate import play_game, setup_for
from companion.games.mummy.state import Phase
from companion.games.mummy.summary import summarize
from companion.games.statistics import GameFacts, by_name, canonical, catches_on, statistics
from companion.journal import Journal
from companion.service.autoplay import play_on
from companion.service.player_names import NameRefused, PlayerNames
from companion.service.replays import ReplayRefused, finished
from companion.service.simulated_journal import write_games
from companion.service.statistics import gather
from tests.seating import join, post_form


def test_the_frames_replay_the_record_and_refuse_a_game_not_over(default_maze):
    for seed in (1, 2):
        setup = setup_for(default_maze, 2, seed)
        game = play_game(setup)
        played = replay(setup, game.commands, aid=True)
        summary = summarize(setup, game.commands)
        assert summary is not None
        assert len(played.frames) == len(game.commands) + 1
        assert played.frames[-1].state == game.state
        assert played.path == summary.path
        assert [c.at for c in played.catches] == [c.at for c in summary.catches]
        # The path drawn up to each moment grows with the mummy's steps only.
        walked = [f.walked for f in played.frames]
        assert walked == sorted(walked) and walked[-1] == len(summary.path)
        with pytest.raises(NotOver):
            replay(setup, game.commands[:-1])


def test_each_seat_sees_what_it_knew_and_the_aid_beside_the_truth(default_maze):
    setup = setup_for(default_maze, 3, 7)
    game = play_game(setup)
    played = replay(setup, game.commands, aid=True)
    moved = 0
    for frame in played.frames:
        mummy = seat_view(frame, "mummy")
        assert mummy["positions"] is None and mummy["hands"] == {}
        assert not any(e.secret_from_mummy for e in mummy["events"])
        red = seat_view(frame, "seeker0")
        assert red["positions"] == list(frame.state.positions)
        assert set(red["hands"]) == {0} and red["aid"] is None
        assert set(seat_view(frame, "truth")["hands"]) == {0, 1, 2}
        moved += sum(isinstance(e, FigureMoved) for e in seat_view(frame, "table")["events"])
        # The aid never rules out where a figure really stands (once an announced move
        # is made: the aid already shows where the figure may end it).
        for f, fig in enumerate(mummy["aid"]):
            node = frame.state.positions[f]
            if default_maze.is_cell(node) and frame.state.phase is not Phase.SEEKER_MOVING:
                assert node in fig["cells"], (frame.index, f)
    assert moved > 0
    # Without the aid nothing of it is computed.
    assert all(f.aid is None for f in replay(setup, game.commands).frames)


def _refused_everywhere(clients, game_id):
    for name, client in clients.items():
        for path in (f"/replay/{game_id}", f"/api/replay/{game_id}", f"/replay/{game_id}/file"):
            res = client.get(path)
            assert res.status_code == 409, (name, path, res.status_code)
            text = res.get_data(as_text=True)
            assert "still being played" in text, (name, path)
            assert '"frames"' not in text and "replay-data" not in text


def test_a_running_game_is_refused_at_every_door_and_opens_at_its_end(table):
    table.new_game(["red", "blue"], aid=True)
    game_id = table.service.published.game_id
    seats = ("seeker0", "seeker1", "table", "watch")
    clients = {seat: table.device(seat) for seat in seats}
    # The owner of the box hosts and plays the mummy on the same phone.
    assert join(table.host, table.codes["mummy"]).status_code == 200
    clients["host+mummy"] = table.host
    _refused_everywhere(clients, game_id)
    # A device with no seat gets nothing, not even whether the game exists.
    stranger = table.app.test_client()
    assert stranger.get(f"/api/replay/{game_id}").status_code == 403
    assert stranger.get("/stats").status_code == 403
    # German words for a German phone.
    de = clients["seeker0"].get(f"/api/replay/{game_id}", headers={"Accept-Language": "de"})
    assert de.status_code == 409 and "noch gespielt" in de.get_json()["error"]

    play_on(table.appliance)
    assert table.service.game.current.is_over
    for name, client in clients.items():
        data = client.get(f"/api/replay/{game_id}").get_json()
        assert (
            data["kind"] == "mummy" and len(data["frames"]) == len(table.service.game.commands) + 1
        )
        assert data["aid"] is True and data["frames"][-1]["aid"] is not None, name
        page = client.get(f"/replay/{game_id}")
        assert page.status_code == 200 and 'id="replay-data"' in page.get_data(as_text=True)
    # No seed and no command in what is sent.
    text = json.dumps(clients["watch"].get(f"/api/replay/{game_id}").get_json())
    assert '"seed"' not in text and '"cmd"' not in text
    # The host's undo of the winning action reopens the game: refused again at once.
    key = table.host.get("/api/host/status").get_json()["game"]["action_key"]
    assert table.host.post("/api/host/undo", json={"action": key}).status_code == 200
    assert not table.service.game.current.is_over
    _refused_everywhere(clients, game_id)


def test_the_export_is_one_file_with_its_viewer_and_no_address(table):
    table.new_game(["red", "blue"])
    game_id = table.service.published.game_id
    play_on(table.appliance)
    seeker = table.device("seeker0")
    res = seeker.get(f"/replay/{game_id}/file?lang=de")
    assert res.status_code == 200 and "attachment" in res.headers["Content-Disposition"]
    html = res.get_data(as_text=True)
    assert '<html lang="de">' in html and "Spiel" in html
    assert "function drawMaze" in html and "replayGo" in html
    # Nothing to load: no src, no href, no url() (the policy forbids it besides).
    assert not re.search(r"\s(src|href)=", html) and not re.search(r"url\((?!#)", html)
    assert "default-src 'none'" in html
    english = seeker.get(f"/replay/{game_id}/file?lang=en").get_data(as_text=True)
    assert '<html lang="en">' in english and "The reveal" in english


def test_an_old_record_replays_or_says_why(tmp_path, default_maze, default_maze_text):
    journal = Journal(tmp_path / "journal.sqlite")
    # Played as the companion played then: the cards off the dice's stream.
    setup = replace(make_setup(default_maze, ("red", "blue"), seed=5), own_deal_stream=False)
    game = play_game(setup)
    from companion.games.mummy.record import command_to_json

    commands = [command_to_json(c, default_maze) for c in game.commands]
    # The first format (the companion before it kept the table's facts and the first
    # game's option): line 1 as it was written then.
    first = {
        "record": "pyramid-companion/mummy",
        "version": 1,
        "seed": 5,
        "seekers": [["red"], ["blue"]],
        "options": {
            "mummy_die_faces": [1, 2, 3, 4, 5, 6],
            "mummy_moves_exactly": False,
            "mummy_sees_treasures": True,
        },
        "maze": default_maze_text,
    }
    old = journal.new_game("mummy", first)
    for c in commands:
        journal.append(old, c)
    journal.end_game(old)
    done = finished(journal, old)
    assert done.computer == "unknown" and done.aid is False
    assert done.replay.frames[-1].state.hands == game.state.hands  # the old deal, as played
    assert len(done.replay.frames) == len(commands) + 1
    # A record of a format this companion does not read says why, never a traceback.
    other = journal.new_game("mummy", {**first, "version": 0})
    for c in commands:
        journal.append(other, c)
    journal.end_game(other)
    with pytest.raises(ReplayRefused) as refused:
        finished(journal, other)
    words = str(refused.value)
    assert f"Game {other} cannot be replayed" in words and "version 0" in words
    # The statistics count the old game and name the other as unreadable.
    found = gather(journal, PlayerNames(None))
    assert [f.id for f in found.facts] == [old]
    assert [str(r) for r in found.unreadable] == [words]
    journal.close()


def test_no_game_short_of_its_end_replays(tmp_path, default_maze, default_maze_text):
    """A property over random games and random moments: the journal holds a game cut
    anywhere before its end (running, or left for a new game): its replay is refused."""
    import random

    from companion.games.mummy.record import command_to_json

    journal = Journal(tmp_path / "journal.sqlite")
    rng = random.Random(39)
    for seed in range(4):
        setup = setup_for(default_maze, rng.choice((1, 2, 3, 4)), seed)
        game = play_game(setup)
        for cut in rng.sample(range(len(game.commands)), 5):
            game_id = journal.new_game("mummy", setup_to_json(setup, default_maze_text))
            for command in game.commands[:cut]:
                journal.append(game_id, command_to_json(command, default_maze))
            left = rng.random() < 0.5
            if left:
                journal.end_game(game_id)  # left for another game: still not over
            with pytest.raises(ReplayRefused) as refused:
                finished(journal, game_id)
            said = "was left before its end" if left else "still being played"
            assert said in str(refused.value)
    journal.close()


def test_names_merge_and_remove():
    games = [
        GameFacts(
            1, "mummy", "mummy", names={"mummy": "Anna", "seeker0": "Ben"}, winning_seats=("mummy",)
        ),
        GameFacts(
            2,
            "mummy",
            "seekers",
            names={"mummy": "Ben", "seeker0": "anna "},
            winning_seats=("seeker0",),
        ),
    ]
    merged = {"anna": "Anna"}
    tallies = {t.name: (t.games, t.wins) for t in by_name(games, merged, [])}
    assert tallies == {"Anna": (2, 2), "Ben": (2, 0)}
    assert {t.name for t in by_name(games, merged, ["Ben"])} == {"Anna"}
    assert canonical("a", {"a": "b", "b": "a"}) == "b"  # a loop ends


def test_the_names_file_keeps_nothing_half_written(tmp_path):
    store = PlayerNames(tmp_path / "players.json")
    store.name_seats(3, {"mummy": "  Anna  ", "seeker0": ""})
    store.merge("Annie", "Anna")
    again = PlayerNames(tmp_path / "players.json")
    assert again.of_game(3) == {"mummy": "Anna"} and again.merged == {"Annie": "Anna"}
    with pytest.raises(NameRefused):
        store.merge("Anna", "Anna")
    with pytest.raises(NameRefused):
        store.name_seats(4, {"mummy": "x" * 41})
    (tmp_path / "players.json").write_text("{not json")
    assert PlayerNames(tmp_path / "players.json").games == {}  # kept aside, not fatal
    assert (tmp_path / "players.json.damaged").exists()


@pytest.fixture(scope="module")
def simulated(tmp_path_factory, default_maze, default_maze_text) -> Path:
    """A journal of 52 simulated games (bots; every seeker count; bot, easy, normal)."""
    path = tmp_path_factory.mktemp("sim") / "journal.sqlite"
    ids = write_games(
        path, default_maze, default_maze_text, games=52, mummies=("bot", "easy", "normal")
    )
    assert len(ids) == 52
    return path


def test_the_statistics_of_fifty_simulated_games(simulated):
    journal = Journal(simulated)
    store = PlayerNames(simulated.parent / "players.json")
    found = gather(journal, store)
    stats = statistics(found.facts, store.merged, store.removed)
    assert stats.games == 52 and found.unreadable == []
    assert stats.by_role.games == 52 and stats.by_role.mummy + stats.by_role.seekers == 52
    assert [t.group for t in stats.by_seekers] == ["1", "2", "3", "4"]
    assert [t.games for t in stats.by_seekers] == [13, 13, 13, 13]
    assert {t.group for t in stats.by_level} == {"person", "easy", "normal"}
    assert sum(t.games for t in stats.by_maze) == 52
    assert stats.mean_rounds > 1 and sum(stats.catches.values()) > 0
    # One winning seat a game: every win of a named seat counts for its name (the
    # computer mummy has no name).
    named = sum(1 for g in found.facts if g.winning_seats[0] in g.names)
    assert sum(t.wins for t in stats.by_name) == named > 0
    journal.close()


def test_the_statistics_page_draws_pictures_and_the_host_merges_names(tmp_path, simulated):
    import shutil

    from tests.test_pages import Table, start

    shutil.copy(simulated, tmp_path / "journal.sqlite3")
    shutil.copy(simulated.parent / "players.json", tmp_path / "players.json")
    appliance = start(tmp_path)
    try:
        t = Table(appliance)
        page = t.host.get("/stats")
        html = page.get_data(as_text=True)
        assert page.status_code == 200
        assert "52 finished maze games" in html
        assert html.count('<svg class="stats-chart') >= 6  # role, seekers, maze, level, heat, names
        assert 'role="img"' in html and '<table class="stats">' in html
        # The heat map: the maze's coordinates around it, and the places caught on most
        # in words (a reader hears them; nobody has to tell reds apart).
        heat = html[html.index('class="stats-chart heat"') :]
        heat = heat[: heat.index("</figure>")]
        assert '"coord">A</text>' in heat and '"coord">L</text>' in heat
        assert '"coord">1</text>' in heat and '"coord">12</text>' in heat
        caught = catches_on(gather(t.service.journal, PlayerNames(None)).facts, t.service.maze.name)
        assert caught, "52 games and not one catch?"
        most = max(caught.values())
        first = min(n for n, k in caught.items() if k == most)
        name = t.service.maze.cell_name(first) if t.service.maze.is_cell(first) else None
        caption = re.search(r"<figcaption[^>]*>Where it caught most: ([^<]*)</figcaption>", heat)
        assert caption is not None
        lines = caption.group(1).split("; ")
        assert len(lines) == min(10, len(caught))
        if name is not None:
            assert lines[0] == f"{name}: {most} catch{'es' if most != 1 else ''}"
        res = post_form(
            t.host, "/stats", "/stats/names", {"do": "merge", "name": "Anna", "into": "Ben"}
        )
        assert res.status_code == 303
        html = t.host.get("/stats").get_data(as_text=True)
        assert "Anna counts as Ben." in html
        german = t.host.get("/stats", headers={"Accept-Language": "de"}).get_data(as_text=True)
        assert "Statistik" in german
        # A replay of one of them opens for the host.
        assert t.host.get("/api/replay/5").get_json()["kind"] == "mummy"
    finally:
        appliance.close()
