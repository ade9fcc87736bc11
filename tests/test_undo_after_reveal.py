"""The host's undo after the end (issue 34, item 2): the end shows every seeker's unplayed
mission cards, so an undo of it leaves them known to the whole table.  The undo stays
(it corrects a misread figure or a mistap), but every page then says the cards are
known, and the host may deal the unplayed cards again from the deal's own secret
stream: recorded like every command, the same after a replay and after a restart, and
shown to each seeker's own page only."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from companion.games.mummy.commands import Redeal, Reveal
from companion.games.mummy.engine import RuleError, apply, new_game, redealt
from companion.games.mummy.fast import FastGame
from companion.games.mummy.record import replay, write_record
from companion.games.mummy.state import State
from companion.service.autoplay import play_on
from tests.seating import host_undo
from tests.test_game_end import play_out
from tests.test_hidden_information import assert_no_secret, check_no_seeker_sees_anothers_cards

REVEALED = (
    "The end showed every seeker's unplayed mission cards, and the host undid it: "
    "those cards are known to the whole table. The host may deal them again."
)
DEALT_AGAIN = (
    "After the end had shown them, the unplayed mission cards were dealt again: "
    "each seeker's cards are secret once more."
)
PAGES = {"mummy": "mummy", "seeker0": "seeker", "seeker1": "seeker", "table": "table"}
PAGES |= {"watch": "watch"}


def colours_of(state: State) -> list[Counter[str]]:
    return [Counter(t.colour.value for t in hand) for hand in state.hands]


def test_a_redeal_gives_as_many_cards_of_each_colour_from_the_deals_stream(
    default_maze, default_maze_text
):
    setup, commands, _, _, _ = play_out(default_maze, 4)
    undone = [*commands[:-1], Reveal()]
    state, _ = new_game(setup)
    for command in undone:
        state, _ = apply(state, command)
    assert state.cards_known and not state.is_over
    again, events = apply(state, Redeal())
    assert [e.kind for e in events] == ["cards_dealt_again"]
    assert not again.cards_known and again.redeals == 1
    assert colours_of(again) == colours_of(state)  # as many of each colour as before
    played = {t for cards in again.played for t in cards}
    dealt = [t for hand in again.hands for t in hand]
    assert len(set(dealt)) == len(dealt) and not played & set(dealt)
    assert again.hands != state.hands  # not the hands the end showed
    assert again.positions == state.positions and again.rng == state.rng  # the dice untouched
    # The record replays to the same hands; the fast engine plays it the same way.
    text = write_record(setup, default_maze_text, [*undone, Redeal()])
    assert '{"cmd": "reveal"}' in text and '{"cmd": "redeal"}' in text
    assert replay(text).state == again
    fast = FastGame(state)
    assert fast.apply(Redeal()) == events and fast.freeze() == again
    # Dealt again, the cards are secret: a second redeal is refused in words.
    with pytest.raises(RuleError, match="The mission cards are secret"):
        apply(again, Redeal())


def test_a_redeal_is_refused_while_the_cards_are_secret_or_were_dealt_by_hand(default_maze):
    setup, _, _, _, _ = play_out(default_maze, 5)
    state, _ = new_game(setup)
    with pytest.raises(RuleError, match="only after the end has shown them"):
        apply(state, Redeal())
    by_hand = replace(setup, hands=state.hands)  # the cards the seekers entered
    state, _ = new_game(by_hand)
    state, _ = apply(state, Reveal())
    with pytest.raises(RuleError, match="dealt by hand"):
        apply(state, Redeal())


def pages(table: Any, phones: dict[str, Any]) -> dict[str, dict[str, Any]]:
    answers = {seat: phone.get(f"/api/{PAGES[seat]}/state") for seat, phone in phones.items()}
    assert all(a.status_code == 200 for a in answers.values())
    return {seat: a.get_json() for seat, a in answers.items()}


def test_an_undo_after_the_reveal_warns_every_page_and_a_redeal_makes_the_cards_secret(
    table, tmp_path
):
    table.new_game(["red", "blue"])
    phones = {seat: table.device(seat) for seat in PAGES}
    assert all(p["cards"] is None for p in pages(table, phones).values())
    play_on(table.appliance)
    service = table.service
    assert service.game.current.is_over
    # The reveal is still shown at the end, to every page.
    shown = service.game.current.hands
    ended = pages(table, phones)
    left = [s["left"] for s in ended["mummy"]["summary"]["seekers"]]
    assert left == [[f"{t.colour.value} {t.name}" for t in hand] for hand in shown]
    status = table.host.get("/api/host/status").get_json()["game"]
    assert "stay known to the whole table" in status["undo_warning"]
    assert status["cards"] is None and not status["may_redeal"]
    # A redeal before any undo: the game is over, refused in words.
    refused = table.host.post("/api/host/redeal", json={})
    assert refused.status_code == 400 and "The game is over" in refused.get_json()["error"]

    undone = host_undo(table.host)
    assert undone.status_code == 200 and undone.get_json()["undone"]
    status = undone.get_json()["game"]
    assert "they stay known to the whole table" in status["notice"]["text"]
    assert status["cards"] == REVEALED and status["may_redeal"] and status["undo_warning"] is None
    revealed = service.game.current
    assert not revealed.is_over and revealed.cards_known
    for seat, page in pages(table, phones).items():
        assert page["summary"] is None and page["cards"] == REVEALED, seat
        assert "they stay known to the whole table" in page["notice"]["text"], seat
        said = [entry["text"] for entry in page["log"] if entry["kind"] == "cards_revealed"]
        assert said and "known to the whole table" in said[-1], seat

    german = phones["seeker1"].get("/api/seeker/state", headers={"Accept-Language": "de"})
    assert "Auftragskarten aller Schatzsucher" in german.get_json()["cards"]

    # Only the host deals again: a seat's phone is refused, and nothing changes.
    for seat in ("mummy", "seeker0", "table"):
        assert phones[seat].post("/api/host/redeal", json={}).status_code == 403, seat
    assert service.game.current is revealed
    dealt = table.host.post("/api/host/redeal", json={})
    assert dealt.status_code == 200, dealt.get_json()
    assert dealt.get_json()["game"]["cards"] == DEALT_AGAIN
    assert not dealt.get_json()["game"]["may_redeal"]
    state = service.game.current
    assert not state.cards_known and state.redeals == 1
    after = pages(table, phones)
    for seat, page in after.items():
        assert page["cards"] == DEALT_AGAIN, seat
        said = [entry["text"] for entry in page["log"] if entry["kind"] == "cards_dealt_again"]
        assert said, seat
    # Each seeker holds as many cards as before, dealt from the deal's stream (a fresh deal:
    # by chance a hand may be the one the end showed, as likely as any other), on their page.
    assert [len(h) for h in state.hands] == [len(h) for h in revealed.hands]
    assert (state.hands, state.deal) == redealt(revealed)
    for seeker in (0, 1):
        hand = after[f"seeker{seeker}"]["view"]["hand"]
        assert [t["cell"] for t in hand] == [t.cell for t in state.hands[seeker]]
    for seat in ("mummy", "watch"):
        assert_no_secret(json.dumps(after[seat]))  # no card, no cell
    assert '"hand"' not in json.dumps(after["table"])  # the board, but nobody's cards
    assert_no_secret(json.dumps(table.host.get("/api/host/status").get_json()))
    seekers = [phones["seeker0"], phones["seeker1"]]
    game = SimpleNamespace(service=service, seekers=seekers, table=table_of(table))
    check_no_seeker_sees_anothers_cards(game, 3)  # type: ignore[arg-type]
    # A second redeal: the cards are secret, refused in words.
    again = table.host.post("/api/host/redeal", json={})
    assert again.status_code == 400 and "The mission cards are secret" in again.get_json()["error"]

    # The host may undo the redeal: the cards the end showed are back, known, and said so;
    # dealt again, they are the same new hands (the deal's stream, not a fresh draw).
    label = table.host.get("/api/host/status").get_json()["game"]["last_action"]
    assert label == "The host dealt the unplayed mission cards again"
    undone = host_undo(table.host)
    assert undone.status_code == 200
    said = undone.get_json()["game"]["notice"]["text"]
    assert said == "The host took back: dealt the unplayed mission cards again"
    assert service.game.current.hands == revealed.hands
    assert all(p["cards"] == REVEALED for p in pages(table, phones).values())
    assert table.host.post("/api/host/redeal", json={}).status_code == 200
    assert service.game.current.hands == state.hands

    # The record replays to the same hands, and a restart resumes them from the journal.
    record = write_record(service.game.setup, service.game.maze_text, service.game.commands)
    assert replay(record).state.hands == state.hands
    from tests.test_pages import start

    table.appliance.close()
    restarted = start(tmp_path)
    try:
        again = restarted.service
        resumed = again.game.current
        assert resumed.hands == state.hands and resumed.redeals == 1 and not resumed.cards_known
        # An undo or a take-back reaches past the record of the reveal and keeps it.
        assert again.undo() and again.game.current.cards_known  # the redeal undone
        action = again.published.action
        assert action is not None and action.seat != "host"
        if again.published.may_take_back:  # not a roll of the companion's dice
            count = len(again.game.commands)
            assert again.take_back(action.seat) == action
            assert len(again.game.commands) == count - 1
        assert isinstance(again.game.commands[-1], Reveal) and again.game.current.cards_known
    finally:
        restarted.close()


def table_of(table: Any) -> Any:
    return table.app.extensions["companion.seats"].table


def test_the_hard_computer_mummy_guesses_new_cards_after_a_redeal(default_maze):
    """Its guesses keep each figure's place and card colours, and draw new cards."""
    from companion.games.mummy.events import CardsDealtAgain
    from companion.games.mummy.particles import Guesses

    guesses = Guesses(default_maze, (0, 1), seed=9)
    before = [dict(g) for g in guesses.guesses]
    guesses.observe([CardsDealtAgain((5, 5))])
    for old, new in zip(before, guesses.guesses, strict=True):
        assert {node for node, _ in new} == {node for node, _ in old}
        assert all(len(hand) == 5 for _, hand in new)
        assert abs(sum(new.values()) - 1.0) < 1e-9
    assert [set(g) for g in guesses.guesses] != [set(g) for g in before]
