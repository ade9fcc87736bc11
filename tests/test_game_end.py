"""The end of a maze game: the summary (a pure function of the record), shown to every
page only once the game is over, the host's rematch with the same seats, and the past
games kept in the journal."""

from __future__ import annotations

import re

from companion.games.mummy.engine import apply, make_setup, new_game
from companion.games.mummy.events import MummyMoved, SeekerCaught
from companion.games.mummy.players import MummyBot, RandomSeekerBot
from companion.games.mummy.summary import summarize
from companion.games.mummy.views import visible_events
from companion.service.autoplay import play_on


def play_out(maze, seed: int):
    """A whole game by the bots in the engine alone: the setup, commands, final state,
    and what the mummy did on the way (its path and the catches)."""
    setup = make_setup(maze, ("red", "blue"), seed=seed)
    state, events = new_game(setup)
    seekers, mummy = RandomSeekerBot(seed), MummyBot(setup)
    mummy.observe(visible_events(events, "mummy"))
    commands, path, caught = [], [state.mummy], []
    while not state.is_over:
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
        else:
            command = seekers.choose(state)
        state, events = apply(state, command)
        mummy.observe(visible_events(events, "mummy"))
        commands.append(command)
        path += [e.to for e in events if isinstance(e, MummyMoved)]
        caught += [e.at for e in events if isinstance(e, SeekerCaught)]
        assert len(commands) < 5000
    return setup, commands, state, path, caught


def test_the_summary_is_the_record_replayed_and_nothing_before_the_end(default_maze):
    for seed in (1, 2, 3):
        setup, commands, final, path, caught = play_out(default_maze, seed)
        summary = summarize(setup, commands)
        assert summary is not None
        assert summary.winner == final.winner and summary.rounds == final.rounds
        assert summary.played == final.played and summary.hands == final.hands
        assert list(summary.path) == path and [c.at for c in summary.catches] == caught
        assert summary.commands == len(commands)
        # One command short of the end, there is no summary to give away.
        assert summarize(setup, commands[:-1]) is None


def end_of(page):
    return page.get_json()["summary"]


def test_every_page_gets_the_summary_at_the_end_and_the_host_plays_again(table):
    table.new_game(["red", "blue"])
    phones = {s: table.device(s) for s in ("mummy", "seeker0", "seeker1", "table", "watch")}
    paths = {"mummy": "mummy", "seeker0": "seeker", "seeker1": "seeker"}
    paths |= {"table": "table", "watch": "watch"}
    for seat, phone in phones.items():
        assert end_of(phone.get(f"/api/{paths[seat]}/state")) is None, seat
    first = table.service.published.game_id
    play_on(table.appliance)
    state = table.service.game.current
    assert state.is_over
    summaries = [end_of(phone.get(f"/api/{paths[s]}/state")) for s, phone in phones.items()]
    summaries.append(table.host.get("/api/host/status").get_json()["game"]["summary"])
    assert summaries[0] is not None and all(s == summaries[0] for s in summaries)
    summary = summaries[0]
    assert summary["winner"].startswith(("The mummy wins", "Red wins", "Blue wins"))
    # The round counts agree: the end says the round every header shows ("Round {n}").
    assert summary["lines"][0] == f"Played to round {state.rounds + 1}."
    status = table.host.get("/api/host/status").get_json()["game"]
    assert status["round"] == state.rounds + 1
    assert summary["path"][0] == "the sarcophagus"
    mine = [f"{t.colour.value} {t.name}" for t in state.hands[0]]
    assert summary["seekers"][0]["left"] == mine
    # The German table reads it in German.
    german = phones["mummy"].get("/api/mummy/state", headers={"Accept-Language": "de"})
    assert end_of(german)["path"][0] == "der Sarkophag"

    # The past games list it for the host (and only the host).
    games = table.host.get("/api/host/games").get_json()["games"]
    assert [g["id"] for g in games] == [first] and games[0]["winner"] == summary["winner"]
    page = table.host.get("/host/games")
    assert page.status_code == 200 and summary["winner"] in page.get_data(as_text=True)
    # Named by game, date and players, numbered from the table's first game played (the
    # games set up by default at the start, never played, are not counted).
    past = games[0]
    assert first > 1 and past["number"] == 1, (first, past["number"])
    assert past["game"] == "the mummy maze"
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M", past["when"])
    assert past["who"] == "Red, Blue and Mummy"
    text = page.get_data(as_text=True)
    assert "Game 1: the mummy maze" in text and past["when"] in text and past["who"] in text
    german = table.host.get("/host/games", headers={"Accept-Language": "de"})
    assert re.search(
        r"Partie 1: das Mumienlabyrinth</h2>\s*<p class=\"small played\">"
        r"<time>\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}</time> · Rot, Blau und Mumie",
        german.get_data(as_text=True),
    )
    assert phones["seeker0"].get("/host/games").status_code == 403
    assert phones["seeker0"].get("/api/host/games").status_code == 403

    # A stale rematch (another game shown) changes nothing; the right one plays again.
    stale = table.host.post("/api/host/rematch", json={"replaces": first + 99})
    assert stale.status_code == 409 and table.service.published.game_id == first
    again = table.host.post("/api/host/rematch", json={"replaces": first})
    assert again.status_code == 200, again.get_json()
    assert table.service.published.game_id != first
    assert not table.service.game.current.is_over
    assert table.service.game.setup.figures == state.setup.figures
    # Every phone is still joined, on the same seat, and the end screen is gone.
    for seat, phone in phones.items():
        answer = phone.get(f"/api/{paths[seat]}/state")
        assert answer.status_code == 200 and end_of(answer) is None, seat
    seats = again.get_json()["table"]["seats"]
    assert all(s["joined"] for s in seats)


def test_the_past_games_list_loot_n_run_and_the_crypt_with_their_winners(table):
    """Each side game that ended is listed with its winner and every player's points,
    read back from its record in the journal, among the maze's games, newest first."""
    from tests.test_crypt_service import COMPUTER, HUMAN, give_board_to_crypt, play_to_the_end

    host = table.host
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    assert host.post("/lootnrun/api/new", json={"players": players}).status_code == 200
    body = {"cmd": "correction", "player": 1, "points": 35, "reason": "test", "cards": 0}
    assert host.post("/lootnrun/api/command", json=body).status_code == 200
    for player in (0, 1):
        res = host.post("/lootnrun/api/command", json={"cmd": "final_reveal", "player": player})
        assert res.status_code == 200
    crypt = table.appliance.hub.service("crypt")
    crypt.computer_delay_s = 0.0
    crypt.new_game(players=2, computer=COMPUTER, first_player=HUMAN, seed=3)
    give_board_to_crypt(table.appliance)
    play_to_the_end(table.appliance)
    state = crypt.published.state
    games = host.get("/api/host/games").get_json()["games"]
    assert [g["kind"] for g in games] == ["crypt", "lootnrun"]
    crypt_game, loot = games
    assert loot["winner"] == "Ben wins." and loot["lines"][0] == "1 turn played."
    # By rank, each with their place: Ben first, though Anna sat first.
    assert [(p["place"], p["name"], p["details"][0]) for p in loot["players"]] == [
        (1, "Ben", "35 points"),
        (2, "Anna", "0 points"),
    ]
    assert crypt_game["game"] == "Into the Crypt"
    assert crypt_game["number"] == loot["number"] + 1 and loot["who"] == "Ben and Anna"
    best = [c.capitalize() for p, c in enumerate(state.setup.colours[:2]) if p in state.winners]
    assert crypt_game["winner"].startswith(best[0])
    page = host.get("/host/games", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "35 Punkte" in page and "Ben gewinnt." in page


def test_after_the_maze_ends_no_seat_command_is_accepted_but_the_hosts_undo(table):
    """Every seat's commands and take-backs after the end are refused in words (English
    and German) and change nothing; the host's undo, only the host's, reopens the game."""
    table.new_game(["red", "blue"])
    phones = {s: table.device(s) for s in ("mummy", "seeker0", "seeker1", "table")}
    play_on(table.appliance)
    service = table.service
    assert service.game.current.is_over
    commands = list(service.game.commands)
    key = service.published.action_key
    tries = {
        "mummy": [
            ("/api/mummy/command", {"cmd": "roll_mummy_die"}),
            ("/api/mummy/takeback", {"action": key}),
        ],
        "seeker0": [
            ("/api/seeker/command", {"cmd": "roll"}),
            ("/api/seeker/command", {"cmd": "end_turn"}),
            ("/api/seeker/takeback", {"action": key}),
        ],
        "seeker1": [("/api/seeker/command", {"cmd": "roll"})],
    }
    for seat, sent in tries.items():
        for path, body in sent:
            for lang, words in (("en", "The game is over"), ("de", "Das Spiel ist vorbei")):
                res = phones[seat].post(path, json=body, headers={"Accept-Language": lang})
                assert 400 <= res.status_code < 500, (seat, path, res.status_code)
                assert words in res.get_json()["error"], (seat, path, res.get_json())
    for seat, phone in phones.items():  # a seat cannot use the host's undo
        assert phone.post("/api/host/undo", json={"action": key}).status_code == 403, seat
    assert service.game.commands == commands and service.game.current.is_over
    undone = table.host.post("/api/host/undo", json={"action": key})
    assert undone.status_code == 200 and not service.game.current.is_over


def test_past_games_name_a_record_this_companion_cannot_replay_and_why(table):
    """A game whose record does not replay here (a format of another version, a side
    game's broken record) is listed among the past games with the reason, not left
    out without a word; the games around it are listed as before."""
    journal = table.service.journal
    maze = journal.new_game("mummy", {"record": "pyramid-companion/mummy", "version": 0})
    journal.append(maze, {"cmd": "roll"})
    journal.end_game(maze)
    crypt = journal.new_game("crypt", {"players": "two"})
    journal.end_game(crypt)
    games = table.host.get("/api/host/games").get_json()["games"]
    listed = {g["id"]: g for g in games}
    # Named by their numbers at the table (one after the other), the reason too.
    number = listed[maze]["number"]
    assert listed[crypt]["number"] == number + 1
    assert f"Game {number} cannot be replayed" in listed[maze]["unreadable"]
    assert "version 0" in listed[maze]["unreadable"]
    assert listed[crypt]["kind"] == "crypt" and listed[crypt]["game"] == "Into the Crypt"
    assert f"Game {number + 1} cannot be replayed" in listed[crypt]["unreadable"]
    page = table.host.get("/host/games").get_data(as_text=True)
    assert f"Game {number} cannot be replayed" in page
    assert f"Game {number + 1}: Into the Crypt" in page
    assert f'href="/replay/{maze}"' not in page  # no replay offered that would only refuse
    german = table.host.get("/host/games", headers={"Accept-Language": "de"})
    assert f"Spiel {number} kann nicht" in german.get_data(as_text=True)


def test_players_name_themselves_as_they_join_and_the_statistics_follow_the_names(table):
    """Each player types a name on the join page (or leaves it empty); a name the
    statistics cannot keep is refused in words and the phone is not joined; the names
    go into the next game of a rematch; the statistics count wins by those names."""
    from tests.seating import join, post_form

    table.new_game(["red", "blue"])
    mummy, red, blue = (table.app.test_client() for _ in range(3))
    page = mummy.get(f"/join/{table.codes['mummy']}").get_data(as_text=True)
    assert 'id="player-name"' in page and "Your name, for the statistics" in page
    watcher = table.app.test_client().get(f"/join/{table.codes['watch']}")
    assert 'id="player-name"' not in watcher.get_data(as_text=True)  # a spectator plays not
    # A name that turns the text around it, or too long: refused, nothing joined.
    for bad, words in (("Ann\u202eA", "text-direction"), ("x" * 41, "at most 40")):
        refused = join(red, table.codes["seeker0"], name=bad)
        assert refused.status_code == 400 and words in refused.get_data(as_text=True)
        assert red.get("/api/seeker/state").status_code in (401, 403)
    assert join(mummy, table.codes["mummy"], name="  Oma   Inge ").status_code == 200
    assert join(red, table.codes["seeker0"], name="Lena").status_code == 200
    assert join(blue, table.codes["seeker1"], name="").status_code == 200
    first = table.service.published.game_id
    names = table.app.extensions["companion.player_names"]
    assert names.of_game(first) == {"mummy": "Oma Inge", "seeker0": "Lena"}
    # The page remembers the name for the next code this phone opens.
    again = red.get(f"/join/{table.codes['seeker0']}").get_data(as_text=True)
    assert 'value="Lena"' in again

    play_on(table.appliance)
    state = table.service.game.current
    assert state.is_over
    rematch = table.host.post("/api/host/rematch", json={"replaces": first})
    assert rematch.status_code == 200
    second = table.service.published.game_id
    assert names.of_game(second) == {"mummy": "Oma Inge", "seeker0": "Lena"}

    stats = table.host.get("/stats").get_data(as_text=True)
    winner = "Oma Inge" if state.winner.is_mummy else ("Lena" if state.winner.seeker == 0 else None)
    assert "Oma Inge" in stats and "Lena" in stats
    if winner is not None:
        row = re.search(rf"<th scope=\"row\">{winner}</th><td>(\d+)</td><td>(\d+)</td>", stats)
        assert row is not None and row.groups() == ("1", "1"), stats[-3000:]
    # The host still corrects a game's names afterwards (Blue's player forgot).
    form = table.host.get(f"/stats/game/{first}").get_data(as_text=True)
    assert 'value="Oma Inge"' in form and 'value="Lena"' in form  # as the players gave them
    given = {"mummy": "Oma Inge", "seeker0": "Lena", "seeker1": "Max"}
    res = post_form(table.host, f"/stats/game/{first}", f"/stats/game/{first}", given)
    assert res.status_code in (200, 303)
    assert names.of_game(first)["seeker1"] == "Max" and names.of_game(first)["seeker0"] == "Lena"
