"""The catalogs speak the glossary's words (docs/glossary.md): no text uses a variant the
glossary rules out ("Sucher", "Anchs", "Lagerplatz", "Mumienwürfel" for the white dice,
"Rennen" for Loot N Run's Run ...), every word the glossary names is used somewhere, and
the German keeps one voice: "Tippe auf ...", one colon per sentence, the log in the
perfect or present tense."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.i18n.catalog import catalog

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"
HEADER = "| English | English, not | Deutsch | Deutsch, nicht |"
#: Names, not words: left out before a text is matched against the forbidden variants.
TITLES = re.compile(r"Loot[ -]N[ -]Run|Into the Crypt")
PLACE = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True)
class Term:
    english: tuple[str, ...]
    english_not: tuple[str, ...]
    german: tuple[str, ...]
    german_not: tuple[str, ...]


def _cell(text: str) -> tuple[str, ...]:
    """The words of a cell: separated by ";", a note in parentheses left out."""
    text = re.sub(r"\([^)]*\)", "", text)
    return tuple(part.strip() for part in text.split(";") if part.strip())


def terms() -> list[Term]:
    """Every row of every glossary table (the tables under ``HEADER``)."""
    out: list[Term] = []
    in_table = False
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.strip() == HEADER:
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        if in_table and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            assert len(cells) == 4, line
            out.append(Term(*(_cell(c) for c in cells)))
    return out


def texts(lang: str) -> list[str]:
    """Every text of a catalog (the forms by case too), without its names' places."""
    return [
        PLACE.sub(" ", str(entry.string)) for entry in catalog(lang) if entry.id and entry.string
    ]


def _whole(word: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")


def test_the_glossary_has_the_originals_words() -> None:
    rows = terms()
    german = {w for t in rows for w in t.german}
    assert len(rows) > 50
    for word in (
        "Schatzsucher",
        "Schatzsucherwürfel",
        "Mumienseite",
        "Mumienwürfel",
        "Startfeld",
        "Sarkophag",
        "Verlies",
        "Ankh-Symbol",
        "Lebenspunkt",
        "Auftragskarte",
        "Zwischenzug",
        "auflösen",
        "Zuschauer",
    ):
        assert word in german, word
    banned = {w for t in rows for w in t.german_not}
    assert {"Sucher", "Lagerplatz", "Anchs", "Zuschauen", "Deduktionshilfe"} <= banned
    assert "Mumienwürfel draußen" in banned and "Companion" in banned


@pytest.mark.parametrize(("lang", "column"), [("de", "german_not"), ("en", "english_not")])
def test_no_text_uses_a_variant_the_glossary_rules_out(lang: str, column: str) -> None:
    banned = [w for t in terms() for w in getattr(t, column)]
    found = [
        (word, text)
        for text in texts(lang)
        for word in banned
        if _whole(word).search(TITLES.sub(" ", text))
    ]
    assert not found, found[:10]


@pytest.mark.parametrize(("lang", "column"), [("de", "german"), ("en", "english")])
def test_every_glossary_word_is_used(lang: str, column: str) -> None:
    everything = "\n".join(texts(lang)).lower()
    unused = [w for t in terms() for w in getattr(t, column) if w.lower() not in everything]
    assert not unused, unused


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", PLACE.sub("X", text))


def test_the_german_keeps_one_voice() -> None:
    """ "Tippe auf ...", never "Tippe X"; no chained colons; never du and ihr in one text,
    never Sie; the log (what has happened) in the perfect, never the simple past."""
    german = texts("de")
    tap = [t for t in german if re.search(r"\bTippe (?!auf\b|an,)(?!beim \w+ auf)", t)]
    assert not tap, tap
    chained = [t for t in german for s in _sentences(t) if s.count(":") > 1]
    assert not chained, chained
    table = re.compile(r"\b(euch|euer|eure\w*|Achtet|Schaut|Tippt|Wartet|Stellt|Nehmt|Gebt)\b")
    player = re.compile(r"\b([Dd]u|[Dd]ein\w*|dich|dir)\b")
    mixed = [t for t in german if table.search(t) and player.search(t)]
    assert not mixed, mixed
    assert not [t for t in german if re.search(r"\bIhnen\b", t)]  # never Sie
    past = re.compile(
        r"\b(zog|rannte|setzte|stellte|betrat|passte|plünderte|weckte|behielt|deckte|entkam"
        r"|sammelte|entfernte|nahm|tat|ging|antwortete)\b"
    )
    assert not [t for t in german if past.search(t)]
