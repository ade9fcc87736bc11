"""Issue 37's German list, read by a German speaker against seed 003 and the glossary:
none of the texts it found ("before") is left in the German catalog, a fresh German
game's pages or the sentences the companion composes, and the better wording ("after")
is there instead."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.mummy.dice import Face
from companion.games.mummy.engine import new_game
from companion.games.mummy.events import DiceRolled
from companion.games.mummy.simulate import setup_for
from companion.i18n.catalog import catalog, render
from companion.service.mummy_tracker import BoardMap, judge
from companion.web.payloads import event_json

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}

#: (before, after): the issue's wording and the one a German table says. An empty
#: "after" is a wording that is simply gone (its better form is a sentence of its own).
LIST = [
    ("Stell die Figur in den Sarkophag; nimm", "wurde gefangen. Nimm die Figur von"),
    ("Startfeld-Platz", "Startfeldplatz"),
    ("wieder her: nimm", "wieder her: Nimm die Figur von"),
    ("zurück auf Sarkophagplatz", "in den Sarkophag (Platz"),
    ("noch 0 Lebenspunkte", "keinen Lebenspunkt mehr"),
    ("noch 0 Karten", "keine Karte mehr"),
    ("aus dem Spiel", "ausgeschieden"),
    ("den Pfeil und den Pfeil", "zweimal den Pfeil"),
    ("bleibt draußen", "liegt aus"),
    ("helles Feld", "leuchtende"),
    ("Ziehe ", "Zieh "),
    ("nie endet der Zug auf einer anderen Figur", "beende den Zug nie auf einer anderen Figur"),
    ("nicht auf E4 halten", "darf seinen Zug nicht auf"),
    ("entfernt, entlang offener Gänge", "Über offene Gänge ist"),
    ("Spielleiter", "Box"),
    ("wo das Spiel sie verlassen hat", "wo sie beim Pausieren standen"),
    ("Mit denselben Farben bleiben alle Handys beigetreten", "Bei gleichen Farben bleiben"),
    ("aufgesetzt", "eingerichtet"),
    ("Mumie (der Computer", "Mumie (Computer, {level})"),
    ("Beiseite:", "Beiseitegelegt:"),
    ("Jedes Handy im WLAN", "Öffne auf jedem Handy im WLAN diese Adresse"),
    ("Alle Plätze sind besetzt: Tippen", "besetzt \u2013 tippen, um die Codes zu zeigen"),
    ("Gleite geradeaus", "Zieh geradeaus"),
    ("zieht bis zu so viele Schritte, plus", "so viele Schritte, wie er zeigt, plus einen"),
    ("Jeder Platz darf seine", "Jeder Spieler darf"),
    ("Lila", "Violett"),
    ("hat eine Karte geplündert", "hat geplündert und eine Karte gezogen"),
    ("Wenn ein Feld noch liest", "noch etwas meldet"),
    ("Die Sensoren lesen", "Diese Sensoren melden noch"),
    ("außerhalb der Mitte tote", "Sensoren, die außerhalb der Mitte nicht auslösen"),
    ("hat die letzte Karte gespielt und gewinnt", "spielt die letzte Karte aus"),
    ("Brett wie vom Spiel erwartet", "die Figuren stehen richtig"),
]


def composed(default_maze: Any) -> list[str]:
    """Sentences the companion puts together from several texts, in German."""
    state, _ = new_game(setup_for(default_maze, 3, 3))
    board = BoardMap.for_board(default_maze.cell_count, 4, 4)
    sarcophagus, camp = default_maze.sarcophagus_node, state.positions[1]
    caught = state.evolve(positions=(sarcophagus, camp, sarcophagus), mummy=40)
    occupied = frozenset({40, board.camp[1]})  # Red still on E4; Blue lifted on the way
    knocked = frozenset({board.camp[1], board.camp[2], 41})  # Red knocked onto F4
    roll = event_json(DiceRolled(2, (Face.ARROW, Face.ONE, Face.ARROW), 0), state.setup, "table")
    return [
        render(judge(caught, occupied, board).message, "de"),
        render(roll["text"], "de"),
        render(judge(state, knocked, board).message, "de"),
    ]


@pytest.fixture
def german_texts(table: Any, default_maze: Any) -> str:
    """The German catalog, a fresh German game's pages and composed sentences."""
    texts = [str(e.string) for e in catalog("de") if e.id and e.string]
    table.new_game(["red", "turquoise", "blue"])
    for path in ("/host", "/rules/mummy", "/rules/lootnrun", "/rules/crypt", "/check"):
        res = table.host.get(path, headers=GERMAN)
        assert res.status_code == 200, path
        texts.append(res.get_data(as_text=True))
    return "\n".join(texts + composed(default_maze))


def test_the_issues_german_list_is_gone_and_its_better_words_are_there(german_texts: str):
    left = [before for before, _ in LIST if before in german_texts]
    missing = [after for _, after in LIST if after not in german_texts]
    assert not left, f"still in the German texts: {left}"
    assert not missing, f"not in the German texts: {missing}"


def test_the_composed_sentences_read_as_the_list_says(default_maze: Any) -> None:
    restore, roll, knocked = composed(default_maze)
    assert restore == (
        "Rot wurde gefangen. Nimm die Figur von E4 und stell sie in den Sarkophag. "
        "Stell das Brett wieder her: Stell Blau in den Sarkophag (Platz 3)."
    )
    assert roll == "Blau würfelt 1 und zweimal den Pfeil."
    assert knocked == (
        "Stell das Brett wieder her: Nimm die Figur von F4; stell Rot zurück auf Startfeldplatz 1."
    )
