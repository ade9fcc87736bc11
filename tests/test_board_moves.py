"""Every move of the board asks first and says what it pauses (issue 37): the host
page's buttons, Loot N Run's "Back to the maze" and the crypt's buttons all carry the
question for the board as it is now, never one for the board as it was."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from companion.i18n.catalog import render
from companion.web.board_moves import move_question

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}


def questions(page: str) -> dict[str, str]:
    """The host page's board buttons: game -> the question it asks."""
    found = re.findall(r'class="give-board" data-game="(\w+)" data-question="([^"]*)"', page)
    return {game: unescape(question) for game, question in found}


def test_the_question_names_the_game_and_what_the_move_pauses() -> None:
    running = move_question("mummy", "crypt", maze_running=True, maze_paused=False)
    assert str(running) == (
        "Pause the maze game and give the board to Into the Crypt? Every page says the "
        "maze game is paused; it goes on when the board comes back."
    )
    onward = move_question("lootnrun", "crypt", maze_running=False, maze_paused=True)
    assert str(onward) == (
        "Give the board to Into the Crypt? Loot N Run's score track leaves the board; its "
        "game goes on on the phones. The maze game stays paused."
    )
    back = move_question("lootnrun", "mummy", maze_running=False, maze_paused=True)
    assert str(back).startswith("Give the board back to the maze? Loot N Run's score track")
    assert render(back, "de").startswith("Das Brett an das Labyrinth zurückgeben?")
    assert render(onward, "de").endswith("Das Labyrinthspiel bleibt pausiert.")


def test_every_board_button_asks_for_the_board_as_it_is_now(table: Any) -> None:
    host = table.host
    table.new_game(["red", "blue"])
    asked = questions(host.get("/host").get_data(as_text=True))
    assert asked["lootnrun"].startswith("Pause the maze game and give the board to Loot N Run?")
    assert asked["crypt"].startswith("Pause the maze game and give the board to Into the Crypt?")
    res = host.post("/api/host/board", json={"game": "lootnrun", "pause": True})
    assert res.status_code == 200, res.get_json()
    # From Loot N Run to the crypt: the maze is paused already, and the page says so.
    asked = questions(host.get("/host").get_data(as_text=True))
    assert "Pause the maze game" not in asked["crypt"]
    assert asked["crypt"].endswith("The maze game stays paused.")
    assert asked["mummy"].startswith("Give the board back to the maze? Loot N Run's score track")
    # Loot N Run's header button ("Back to the maze") asks the same, in the page's language.
    moves = host.get("/lootnrun/api/view", headers=GERMAN).get_json()["board"]["moves"]
    assert moves["mummy"].startswith("Das Brett an das Labyrinth zurückgeben?")
    assert "pausiert" in moves["mummy"] or "Pausieren" in moves["mummy"]
    # The crypt's buttons too.
    crypt = host.get("/crypt/api/state").get_json()["board"]["moves"]
    assert crypt["crypt"] == asked["crypt"] and crypt["mummy"] == asked["mummy"]
