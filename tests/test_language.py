"""The reader's language on the pages: German from the phone's Accept-Language, English
otherwise, the switch's remembered cookie over both; JSON, errors and streams follow."""

from __future__ import annotations

import json
from typing import Any

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}


def test_the_start_page_speaks_the_phones_language(table: Any) -> None:
    phone = table.app.test_client()
    german = phone.get("/", headers=GERMAN).get_data(as_text=True)
    assert '<html lang="de">' in german and "Beitreten" in german
    assert 'data-lang="en"' in german and 'data-lang="de"' in german  # the switch
    english = phone.get("/", headers={"Accept-Language": "en-GB"}).get_data(as_text=True)
    assert '<html lang="en">' in english and ">Join<" in english
    assert '<html lang="en">' in phone.get("/").get_data(as_text=True)  # no header: English


def test_the_remembered_switch_wins_over_the_phone(table: Any) -> None:
    phone = table.app.test_client()
    phone.set_cookie("lang", "en")
    page = phone.get("/", headers=GERMAN).get_data(as_text=True)
    assert '<html lang="en">' in page and "Beitreten" not in page
    phone.set_cookie("lang", "de")
    assert "Beitreten" in phone.get("/").get_data(as_text=True)
    phone.set_cookie("lang", "xx")  # not a language of ours: the phone decides
    assert '<html lang="en">' in phone.get("/").get_data(as_text=True)


def test_a_seats_state_and_a_rule_error_come_in_german(table: Any) -> None:
    table.new_game(["red", "blue"], dice="physical")
    red = table.device("seeker0")
    state = red.get("/api/seeker/state", headers=GERMAN).json
    assert state["guidance"] == "Du bist dran: Würfle."
    res = red.post("/api/seeker/command", json={"cmd": "roll", "faces": ["1", "2"]}, headers=GERMAN)
    assert res.status_code == 400
    assert res.json["error"] == "Würfle 5 Würfel; 2 Seiten wurden eingegeben."
    english = red.post("/api/seeker/command", json={"cmd": "end_turn"}).json["error"]
    assert english.startswith("You cannot end the turn now:")
    page = red.get("/seeker", headers=GERMAN).get_data(as_text=True)
    assert "Meine Karten" in page and "Diesen Platz verlassen" in page


def test_the_live_stream_speaks_the_language_it_was_opened_in(table: Any) -> None:
    table.new_game(["red", "blue"])
    mummy = table.device("mummy")
    res = mummy.get("/api/mummy/stream", headers=GERMAN, buffered=False)
    try:
        first = next(c for c in res.response if c.startswith(b"data: "))
    finally:
        res.close()
    data = json.loads(first.decode()[len("data: ") :])
    assert data["guidance"] == "Rot ist am Zug."
    assert any(e["text"] == "Rot ist am Zug." for e in data["log"])


def test_the_scripts_catalog_and_the_icon(table: Any) -> None:
    phone = table.app.test_client()
    script = phone.get("/i18n/de.js")
    assert script.mimetype == "text/javascript"
    assert '"End the turn": "Zug beenden"' in script.get_data(as_text=True)
    assert phone.get("/i18n/xx.js").status_code == 200  # falls back to English
    icon = phone.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert b"<svg" in icon.data
    assert 'rel="icon" href="/favicon.ico"' in phone.get("/").get_data(as_text=True)


def test_each_game_has_its_rules_in_the_pages_language_with_the_hosts_options(
    table: Any,
) -> None:
    phone = table.app.test_client()
    page = phone.get("/rules/mummy").get_data(as_text=True)
    assert "Rules of the mummy maze" in page and "The arrow: slide straight on" in page
    assert "Intermediate move:" in page and "The mummy face:" in page
    assert "No game is set up yet" in page
    table.new_game(["red", "blue"], dice="physical", exact=True)
    page = phone.get("/rules/mummy", headers=GERMAN).get_data(as_text=True)
    assert "Regeln des Mumienlabyrinths" in page
    assert "Würfel: echte Würfel, auf den Handys eingegeben." in page
    assert "Die Mumie muss jeden Schritt nutzen." in page
    assert "Der Mumienwürfel zeigt 1, 2, 3, 4, 5, 6." in page
    assert "Regeln von Loot N Run" in phone.get("/rules/lootnrun", headers=GERMAN).get_data(
        as_text=True
    )
    assert "Rules of Into the Crypt" in phone.get("/rules/crypt").get_data(as_text=True)
    assert phone.get("/rules/chess").status_code == 404
    seat = table.device("seeker0").get("/seeker").get_data(as_text=True)
    assert 'href="/rules/mummy"' in seat


def test_the_crypt_speaks_german_too(table: Any) -> None:
    host = table.host
    page = host.get("/crypt", headers=GERMAN).get_data(as_text=True)
    assert "Kammer betreten" in page and '<html lang="de">' in page
    host.post("/crypt/api/new", json={"players": 2}, headers=GERMAN)
    res = host.post(
        "/crypt/api/command", json={"kind": "place_cube", "square": "a1"}, headers=GERMAN
    )
    assert res.status_code == 409
    assert res.json["error"] == (
        "a1 liegt auf einer grünen Eckplatte: Dort darf kein Würfel liegen."
    )
    assert '"Computer: {move}": "Computer: {move}"' in host.get("/i18n/de.js").get_data(
        as_text=True
    )


def test_loot_n_run_speaks_german_too(table: Any) -> None:
    host = table.host
    page = host.get("/lootnrun", headers=GERMAN).get_data(as_text=True)
    assert "Spieler hinzufügen" in page and '<html lang="de">' in page
    res = host.post(
        "/lootnrun/api/new", json={"players": [{"name": "Anna", "colour": "red"}]}, headers=GERMAN
    )
    assert res.json["error"] == "Loot N Run ist für 2 bis 6 Spieler, nicht 1."
    players = [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
    host.post("/lootnrun/api/new", json={"players": players})
    view = host.post("/lootnrun/api/command", json={"cmd": "loot"}, headers=GERMAN).json["view"]
    looted = "Anna hat geplündert und eine Karte gezogen (1 Karte vor sich)."
    assert view["history"][-1]["text"] == looted
    script = host.get("/i18n/de.js").get_data(as_text=True)
    assert '"Loot": "Plündern"' in script and '"cup": "Kelch"' in script
