"""The German a table reads, message by message: every example of issue 27 built by the
code that builds it (the log, a seeker's and the table's guidance, the take-back, rule
errors, the pages' script texts, Loot N Run's history, the rules page) and compared
with the German a player would write. Names go in by case ("auf der gelben Totenmaske",
"spielt den roten Granit-Obelisken aus"), lists read naturally, the words are the
original's (Schatzsucher, Mumienseite, Lebenspunkte, Startfeld)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from companion.games.mummy.commands import Announce, PlayCard, Roll
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import RuleError, apply, make_setup, new_game
from companion.games.mummy.events import (
    CardPlayed,
    DiceRolled,
    MummyMoveEnded,
    SeekerCaught,
    SeekerOut,
)
from companion.games.mummy.maze import Maze, Treasure
from companion.games.mummy.state import Phase, State, Winner
from companion.games.mummy.takeback import describe
from companion.games.mummy.words import treasure_word
from companion.i18n import in_case
from companion.i18n.catalog import render, script_catalog
from companion.web.payloads import (
    event_json,
    roll_words,
    said_events,
    seeker_guidance,
    table_guidance,
    winner_text,
)

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
PUBLISHED = SimpleNamespace(
    board_connected=True, judgement=SimpleNamespace(matches=True, message=None)
)


@pytest.fixture
def game(default_maze: Maze) -> State:
    """Red and Blue on the default maze; Red begins."""
    state, _ = new_game(make_setup(default_maze, ("red", "blue")))
    return state


def de(message: Any) -> str:
    return render(message, "de")


def said(event: Any, state: State, role: str = "mummy") -> str:
    return de(event_json(event, state.setup, role)["text"])


def treasure(maze: Maze, title: str) -> Treasure:
    return next(t for t in maze.treasures if t.title == title)


def test_a_roll_names_every_face_and_the_mummy_face_in_its_case(game: State) -> None:
    faces = (Face.TWO, Face.MUMMY, Face.THREE, Face.ARROW, Face.ONE)
    assert said(DiceRolled(1, faces, 0), game) == (
        "Blau würfelt 1, 2, 3, den Pfeil und eine Mumienseite."
    )
    # the dice entered by hand, in the order entered, as the take-back names them
    action = describe(game, Roll(faces=faces))
    assert (
        de(action.label()) == "Rot hat 2, die Mumienseite, 3, den Pfeil und 1 als Wurf eingegeben"
    )
    assert de(action.notice("seeker")) == (
        "Zurückgenommen: Rot hat 2, die Mumienseite, 3, den Pfeil und 1 als Wurf eingegeben"
    )
    assert de(describe(game, Announce(Face.ARROW)).label()) == "Rot hat den Pfeil angesagt"
    rolled, _ = apply(game, Roll(faces=(Face.ONE, Face.ARROW, Face.MUMMY, Face.ONE, Face.TWO)))
    with pytest.raises(RuleError) as refused:
        apply(rolled, Announce(Face.FOUR))
    assert de(refused.value) == "Der Wurf zeigt 1, den Pfeil, 1 und 2, aber nicht 4."


def test_two_arrows_in_a_roll_are_counted_not_repeated(game: State) -> None:
    faces = (Face.ARROW, Face.TWO, Face.ARROW)
    assert said(DiceRolled(1, faces, 0), game) == "Blau würfelt 2 und zweimal den Pfeil."
    assert str(roll_words(faces)) == "2 and the arrow twice"
    assert "den Pfeil und den Pfeil" not in said(DiceRolled(1, (Face.ARROW,) * 3, 0), game)


def test_a_figure_on_a_treasure_and_its_card_read_by_case(game: State) -> None:
    mask = treasure(game.maze, "yellow death mask")
    hands = ((), (mask,))
    state = game.evolve(
        phase=Phase.SEEKER_CARD,
        figure=1,
        hands=hands,
        positions=(game.positions[0], mask.cell),
    )
    assert de(seeker_guidance(state, 1, PUBLISHED)) == (  # type: ignore[arg-type]
        "Blau steht auf der gelben Totenmaske: Spiel die Karte aus oder beende den Zug."
    )
    assert de(table_guidance(state, PUBLISHED)) == (  # type: ignore[arg-type]
        "Blau ist am Zug und spielt eine Karte aus oder beendet den Zug."
    )
    # the button of the seeker's page: its script fills in the name the page sends in
    # the dative (``playable.with``)
    button = script_catalog("de")["Play the card of the {treasure}"]
    assert button.format(treasure=de(in_case(treasure_word(mask), "dat"))) == (
        "Karte mit der gelben Totenmaske ausspielen"
    )
    assert de(describe(state, PlayCard()).label()) == (
        "Blau hat die Karte mit der gelben Totenmaske ausgespielt"
    )


def test_playing_a_card_names_the_treasure_with_its_article(game: State) -> None:
    mask = treasure(game.maze, "yellow death mask")
    obelisk = treasure(game.maze, "red granite obelisk")
    assert (
        said(CardPlayed(1, 1, mask, 4), game)
        == "Blau spielt die gelbe Totenmaske aus (noch 4 Karten)."
    )
    assert said(CardPlayed(0, 0, obelisk, 1), game) == (
        "Rot spielt den roten Granit-Obelisken aus (noch 1 Karte)."
    )
    assert said(CardPlayed(0, 0, obelisk, 0), game) == (
        "Rot spielt den roten Granit-Obelisken aus (keine Karte mehr)."
    )


def test_the_mummy_stops_in_the_sarcophagus_or_on_a_cell(game: State) -> None:
    maze = game.maze
    assert said(MummyMoveEnded(maze.sarcophagus_node), game) == "Die Mumie bleibt im Sarkophag."
    assert said(MummyMoveEnded(0), game) == "Die Mumie bleibt auf A1 stehen."


def test_a_catch_counts_lebenspunkte(game: State) -> None:
    assert said(SeekerCaught(1, 1, 3, 0), game) == (
        "Die Mumie hat Blau auf D1 gefangen! Blau hat keinen Lebenspunkt mehr und scheidet aus."
    )
    assert said(SeekerCaught(1, 1, 3, 2), game) == (
        "Die Mumie hat Blau auf D1 gefangen! Blau hat noch 2 Lebenspunkte."
    )
    assert said(SeekerCaught(1, 1, 3, 1), game) == (
        "Die Mumie hat Blau auf D1 gefangen! Blau hat noch 1 Lebenspunkt."
    )
    # One line in the log: the catch of the last ankh says the seeker is out, so the
    # engine's "out" right after it is not said again; an "out" on its own still is.
    caught, out = SeekerCaught(1, 1, 3, 0), SeekerOut(1)
    assert said_events([caught, out]) == [caught]
    assert said_events([SeekerCaught(1, 1, 3, 1), out]) == [SeekerCaught(1, 1, 3, 1), out]


def test_resolving_names_the_dice_with_the_mummy_face(game: State) -> None:
    one = game.evolve(dice_out=1, may_resolve=True)
    assert de(seeker_guidance(one, 0, PUBLISHED)) == (  # type: ignore[arg-type]
        "Du bist dran. Würfle, oder löse den Würfel mit der Mumienseite auf "
        "(die Mumie zieht dann zuerst 1 Schritt)."
    )
    three = game.evolve(dice_out=3, may_resolve=True)
    assert de(seeker_guidance(three, 0, PUBLISHED)) == (  # type: ignore[arg-type]
        "Du bist dran. Würfle, oder löse die 3 Würfel mit der Mumienseite auf "
        "(die Mumie zieht dann zuerst 3 Schritte)."
    )


def test_the_pages_scripts_say_tippe_auf_and_mumienseite() -> None:
    script = script_catalog("de")
    assert script["Tap a die to announce it:"] == "Tippe auf einen Würfel, um ihn anzusagen:"
    assert script["Mummy faces lying out: {n}"] == "Ausliegende Mumienseiten: {n}"
    # the faces' forms by case, which the scripts fill into "{face:acc} ansagen"
    assert script["announce {face}"] == "{face:acc} ansagen"
    assert script["acc\x04the arrow"] == "den Pfeil"
    assert script["acc\x04mummy"] == "die Mumienseite"
    assert "Achtet" not in " ".join(script.values())


def test_the_mummys_move_reads_without_chained_colons(game: State) -> None:
    moving = game.evolve(phase=Phase.MUMMY_MOVING, steps_left=3, figure=0)
    text = de(seeker_guidance(moving, 0, PUBLISHED))  # type: ignore[arg-type]
    assert text == "Die Mumie zieht, noch 3 Schritte. Die Lichter zeigen ihren Weg."
    assert text.count(":") == 0


def test_loot_n_run_flees_and_gets_points_in_german(table: Any) -> None:
    host = table.host
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    host.post("/lootnrun/api/new", json={"players": players})
    host.post("/lootnrun/api/command", json={"cmd": "loot"})  # Anna
    host.post("/lootnrun/api/command", json={"cmd": "loot"})  # Ben
    ran = {"cmd": "run", "cards": [{"treasures": [2, 0, 0, 0, 1, 0]}]}
    res = host.post("/lootnrun/api/command", json=ran, headers=GERMAN)
    assert res.status_code == 200, res.json
    assert res.json["view"]["history"][-1]["text"] == "Anna ist mit 1 Karte geflüchtet: 3 Punkte."
    host.post("/lootnrun/api/command", json={"cmd": "loot"})  # Ben
    host.post("/lootnrun/api/command", json={"cmd": "loot"})  # Anna
    awaken = {
        "cmd": "awaken",
        "target": 0,
        "cards": [{"treasures": [1, 1, 0, 0, 0, 0], "guardian": "mummy"}],
    }
    res = host.post("/lootnrun/api/command", json=awaken, headers=GERMAN)
    assert res.status_code == 200, res.json
    text = res.json["view"]["history"][-1]["text"]
    assert "Mumie: Ben bekommt 2 Punkte." in text, text
    assert "wertet" not in text and "rannte" not in text


def test_the_pages_use_the_originals_words(table: Any) -> None:
    host = table.host
    rules = host.get("/rules/mummy", headers=GERMAN).get_data(as_text=True)
    assert "Startfeld des Zuges" not in rules
    assert "von dem Feld aus erreicht, auf dem dein Zug begann" in rules
    assert "Schatzsucherwürfeln" in rules and "Verlies" in rules and "Ankh-Symbol" in rules
    page = host.get("/host", headers=GERMAN).get_data(as_text=True)
    assert "Adresse für die Handys" in page and "Handys öffnen" not in page
    assert "Suchhilfe" in page and "Deduktionshilfe" not in page
    assert "Lagerplatz" not in page and "Sucher " not in page
    assert "Companion" not in page


def test_the_end_says_who_won_and_why_in_a_sentence(game: State) -> None:
    setup = game.setup
    assert de(winner_text(setup, Winner(1, "played their last card"))) == (
        "Blau spielt die letzte Karte aus und gewinnt."
    )
    assert de(winner_text(setup, Winner(None, "holds 4 ankhs"))) == (
        "Die Mumie gewinnt mit 4 Lebenspunkten."
    )
    assert de(winner_text(setup, Winner(None, "every seeker is out"))) == (
        "Die Mumie gewinnt, denn alle Schatzsucher sind ausgeschieden."
    )
    assert str(winner_text(setup, Winner(1, "played their last card"))) == (
        "Blue wins: played their last card."
    )
