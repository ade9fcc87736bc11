"""Names in sentences by case, not by string: "auf der gelben Totenmaske", "spielt die
gelbe Totenmaske", "2, die Mumienseite, 3, den Pfeil und 1".

A name that goes into sentences (a treasure, a place, a face of a die) is declared with
``noun()`` where its English id is written.  Its forms live in the catalogs beside it,
one entry per case, with the case as the gettext context: ``msgctxt "dat"`` ``msgid
"yellow death mask"`` ``msgstr "der gelben Totenmaske"`` (the form with its article).
The sentence picks the case it needs in its own translation, with a format spec:
``msgstr "{colour} steht auf {treasure:dat}."``; English sentences need none, and an
English form is the name itself.  A list takes the case of its place: ``joined`` parts
are rendered in it ("würfelt {faces:acc}" reads "2, die Mumienseite und den Pfeil").

Why contexts in the catalogs and not a table in code: the catalogs stay the one source
of every text a player reads (a translator edits one file, ``companion i18n update``
adds the form entries of every declared noun to both catalogs, and ``companion i18n
check`` and ``tests/test_translations.py`` report a missing form like any missing
text); gettext contexts are the standard way to keep several translations of one id.
A name without forms (a cell "D4", a colour "Rot", a custom maze's treasure) is used
as it is in every case.

This module holds the words of it (the cases, what a translation is); a message is
filled in by ``message.py``, which imports this one (never the other way).
"""

from __future__ import annotations

from typing import Protocol

#: The cases a sentence may ask for: nominative, accusative, dative.
CASES = ("nom", "acc", "dat")


class Translate(Protocol):
    """id -> text; with a case: the form of that case, or "" when it has none."""

    def __call__(self, text: str, case: str = "") -> str: ...


def noun(id: str) -> str:
    """Marks a name whose forms by case are in the catalogs (for ``companion i18n
    update``); it is used like ``N_``: the id itself."""
    return id


def english(text: str, case: str = "") -> str:
    """The ids as they are: English has no forms by case."""
    return text
