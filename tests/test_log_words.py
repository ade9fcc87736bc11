"""The announcements read naturally in English and German: a roll read out as a player
would, an announcement as a sentence, the mummy die's steps with where they come from,
and the sarcophagus by its name."""

from __future__ import annotations

from companion.games.mummy.dice import Face
from companion.games.mummy.engine import make_setup
from companion.games.mummy.events import Announced, DiceRolled, MummyDieRolled, MummyMoveEnded
from companion.i18n.catalog import render
from companion.web.payloads import event_json


def said(event, default_maze, lang="en"):
    setup = make_setup(default_maze, ("red", "blue"))
    return render(event_json(event, setup, "mummy")["text"], lang)


def test_a_roll_reads_numbers_first_then_the_arrow_then_the_mummy_faces(default_maze):
    roll = (Face.MUMMY, Face.ONE, Face.MUMMY, Face.ARROW)
    assert said(DiceRolled(0, roll, 0), default_maze) == (
        "Red rolls 1, the arrow and two mummy faces."
    )
    assert said(DiceRolled(0, (Face.FOUR, Face.TWO, Face.MUMMY), 0), default_maze) == (
        "Red rolls 2, 4 and a mummy face."
    )
    assert said(DiceRolled(0, roll, 0), default_maze, "de") == (
        "Rot würfelt 1, den Pfeil und zwei Mumienseiten."
    )


def test_an_announcement_is_a_sentence(default_maze):
    assert said(Announced(0, Face.ARROW), default_maze) == "Red announces the arrow."
    assert said(Announced(1, Face.THREE), default_maze, "de") == "Blau sagt 3 an."


def test_the_mummy_die_says_where_the_other_steps_come_from(default_maze):
    assert said(MummyDieRolled(1, 4), default_maze) == (
        "The mummy die shows 1, and 3 mummy faces lie out: 4 steps."
    )
    assert said(MummyDieRolled(1, 2), default_maze) == (
        "The mummy die shows 1, and 1 mummy face lies out: 2 steps."
    )
    assert said(MummyDieRolled(3, 3), default_maze) == "The mummy die shows 3: 3 steps."
    assert said(MummyDieRolled(1, 4), default_maze, "de") == (
        "Der Mumienwürfel zeigt 1, und 3 Mumienseiten liegen aus: 4 Schritte."
    )


def test_the_mummy_stays_in_the_sarcophagus(default_maze):
    at = default_maze.sarcophagus_node
    assert said(MummyMoveEnded(at), default_maze) == "The mummy stays in the sarcophagus."
    assert said(MummyMoveEnded(at), default_maze, "de") == "Die Mumie bleibt im Sarkophag."
    assert said(MummyMoveEnded(0), default_maze) == "The mummy stops on A1."
