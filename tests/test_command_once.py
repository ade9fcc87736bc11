"""A command sent twice is played once (``web/once.py``): a page far away sends each
command twice with one id, so a piece lost on the way costs nothing; the copy gets the
state, a late copy never plays an old step again, and a refused command is refused alike."""

from __future__ import annotations

import threading

from companion.games.mummy.players import MummyBot
from companion.games.mummy.record import command_to_json
from companion.games.mummy.state import Phase
from companion.games.mummy.views import visible_events
from companion.service.autoplay import play_on
from companion.web.once import KEEP, Played


def _mummy_turn(table):
    """A game at the mummy's normal move, its phone joined."""
    table.new_game(["red", "blue"])
    mummy = table.device("mummy")
    svc = table.service
    play_on(table.appliance, until=lambda: svc.game.current.phase is Phase.MUMMY_ROLL)
    return mummy, svc


def _post(phone, body, answers):
    answers.append(phone.post("/api/mummy/command", json=body).status_code)


def test_two_copies_of_a_roll_roll_once(table):
    mummy, svc = _mummy_turn(table)
    before = len(svc.game.commands)
    body = {"cmd": "roll_mummy_die", "id": "roll-1"}
    answers: list[int] = []
    copies = [threading.Thread(target=_post, args=(mummy, body, answers)) for _ in range(2)]
    for copy in copies:
        copy.start()
    for copy in copies:
        copy.join(10)
    assert answers == [200, 200]
    assert len(svc.game.commands) == before + 1  # one roll, not two
    # Without an id, a second roll is refused in words, as ever.
    again = mummy.post("/api/mummy/command", json={"cmd": "roll_mummy_die"})
    assert again.status_code == 400 and again.json["error"]


def test_a_late_copy_never_plays_an_old_command_again(table):
    mummy, svc = _mummy_turn(table)
    setup = svc.game.setup
    bot = MummyBot(setup)
    bot.observe(visible_events(svc.game.last_events, "mummy"))
    sent = []
    for n in range(2):  # the roll and the first step (or the end of a move of none)
        state = svc.game.current
        command = bot.choose(state.phase, state.mummy, state.steps_left, False)
        body = {**command_to_json(command, setup.maze), "id": f"c{n}"}
        assert mummy.post("/api/mummy/command", json=body).status_code == 200
        bot.observe(visible_events(svc.game.last_events, "mummy"))
        sent.append(body)
    count, now = len(svc.game.commands), svc.game.current
    for late in sent:  # each copy, late: answered with the state, nothing played
        answer = mummy.post("/api/mummy/command", json=late)
        assert answer.status_code == 200 and "state" in answer.json
    assert len(svc.game.commands) == count and svc.game.current == now


def test_a_refused_command_is_refused_for_its_copy_too(table):
    mummy, _ = _mummy_turn(table)
    wrong = {"cmd": "end_mummy_move", "id": "e1"}  # before the roll: not yet
    first = mummy.post("/api/mummy/command", json=wrong)
    second = mummy.post("/api/mummy/command", json=wrong)
    assert first.status_code == second.status_code == 400
    assert first.json["error"] == second.json["error"]


def test_only_the_latest_ids_are_kept():
    from flask import Flask

    played = Played()
    with Flask(__name__).test_request_context():
        for n in range(KEEP + 10):
            played.once("mummy", str(n), lambda: ("ok", 200), lambda: ("again", 200))
        assert len(played.ids) == KEEP and ("mummy", "0") not in played.ids
        answer = played.once("mummy", str(KEEP + 9), lambda: ("ok", 200), lambda: ("again", 200))
        assert answer == ("again", 200)
