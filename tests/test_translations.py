"""The catalogs: every message id in the code, templates and scripts has a German and an
English text with the same places; no player message escapes the catalogs as an
f-string; messages render in the reader's language."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from companion.i18n import MessageError, msg, word
from companion.i18n.catalog import LANGUAGES, catalog, localize, render, script_catalog
from companion.i18n.sources import check, extract

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
PLACE = re.compile(r"\{(\w+)[^}]*\}")
#: Calls whose first argument is a message id: an f-string there is never translated.
MESSAGE_CALLS = {"msg", "word", "RuleError", "ServiceError", "MessageError", "BoardRefused"}


def test_every_message_has_a_translation_in_both_languages() -> None:
    missing = check()
    assert not missing, {lang: ids[:10] for lang, ids in missing.items()}


def test_no_catalog_entry_is_left_over_from_removed_code() -> None:
    found = set(extract())
    for lang in LANGUAGES:
        stale = {str(e.id) for e in catalog(lang) if e.id} - found
        assert not stale, f"{lang}: run `companion i18n update` ({sorted(stale)[:5]})"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_every_place_of_their_message(lang: str) -> None:
    for entry in catalog(lang):
        if entry.id:
            assert set(PLACE.findall(str(entry.string))) == set(PLACE.findall(str(entry.id))), (
                entry.id,
                entry.string,
            )


def test_no_player_message_is_an_f_string() -> None:
    """An f-string id would never match the catalog: values go in as named places."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in MESSAGE_CALLS and isinstance(node.args[0], ast.JoinedStr):
                bad.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not bad, bad


def test_messages_render_in_the_readers_language() -> None:
    moved = msg("{colour} moved to {cell}.", colour=word("Red"), cell="D11")
    assert render(moved, "de") == "Rot ist nach D11 gezogen."
    assert render(moved, "en") == str(moved) == "Red moved to D11."
    error = MessageError(
        "{colour} may not stop on {place}: {reason}",
        colour=word("Blue"),
        place="E4",
        reason=msg("No figure may move into the sarcophagus."),
    )
    assert render(error, "de") == (
        "Blau darf seinen Zug nicht auf E4 beenden: Keine Figur darf in den Sarkophag ziehen."
    )
    assert localize({"log": [{"text": moved}]}, "de") == {
        "log": [{"text": "Rot ist nach D11 gezogen."}]
    }


def test_the_scripts_get_their_texts_and_the_colour_words() -> None:
    german = script_catalog("de")
    assert german["End the turn"] == "Zug beenden"
    assert german["Red"] == "Rot" and german["red scarab"] == "roter Skarabäus"
    assert "The mummy's turn: it rolls its die." not in german  # server texts stay server-side


def test_the_i18n_check_command_says_what_is_missing(tmp_path, monkeypatch, capsys) -> None:
    from companion.cli import main
    from companion.i18n import catalog as catalog_module

    assert main(["i18n", "check"]) == 0
    german = catalog_module.po_path("de").read_text(encoding="utf-8")
    copy = tmp_path / "de" / "LC_MESSAGES" / "messages.po"
    copy.parent.mkdir(parents=True)
    (tmp_path / "en" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "en" / "LC_MESSAGES" / "messages.po").write_text(
        catalog_module.po_path("en").read_text(encoding="utf-8"), encoding="utf-8"
    )
    copy.write_text(german.replace('msgstr "Zug beenden"', 'msgstr ""'), encoding="utf-8")
    monkeypatch.setattr(catalog_module, "LOCALES", tmp_path)
    catalog_module.catalog.cache_clear()
    try:
        assert main(["i18n", "check"]) == 1
        assert "de: no translation: End the turn" in capsys.readouterr().out
    finally:
        monkeypatch.undo()
        catalog_module.catalog.cache_clear()
