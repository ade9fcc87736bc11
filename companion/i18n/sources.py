"""The catalogs' sources: every message id in the code, templates and scripts.

``companion i18n update`` extracts them with Babel (Python: ``msg``, ``word``, ``N_``,
``noun`` and the player-facing errors; templates: ``_``; scripts: ``_``) and merges them
into both .po files, keeping what is translated, with one entry per case for each
``noun`` (its forms, ``grammar.py``); ``companion i18n check`` lists what is
missing.  Ids are sorted by file, without line numbers, so a change reads as a diff.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from .catalog import LANGUAGES, catalog, forms, po_path, translations
from .grammar import CASES

#: The catalogs' dates stay fixed, so only a changed text changes a file.
FIXED = datetime(2026, 1, 1, tzinfo=UTC)
PACKAGE = Path(__file__).resolve().parent.parent
#: Python calls whose first argument is a message id.
KEYWORDS = {
    "msg": None,
    "word": None,
    "noun": None,
    "N_": None,
    "counted": (2, 3),
    "_": None,
    "MessageError": None,
    "RuleError": None,
    "ServiceError": None,
    "RetryLater": None,
    "BoardRefused": None,
    "ActionMoved": None,
    "abort": (2,),
}
METHODS = [
    ("**.py", "python"),
    ("web/templates/**.html", "jinja2"),
    ("web/static/**.js", "javascript"),
]
OPTIONS = {"web/templates/**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}


def extract() -> dict[str, set[str]]:
    """Every message id in the package, with the files it is in."""
    found: dict[str, set[str]] = {}
    for filename, _lineno, message, _comments, _context in extract_from_dir(
        str(PACKAGE), METHODS, options_map=OPTIONS, keywords=KEYWORDS
    ):
        for text in message if isinstance(message, tuple) else (message,):
            if text:
                found.setdefault(text, set()).add(filename)
    return found


def nouns() -> set[str]:
    """The ids declared with ``noun()``: names whose forms by case the catalogs hold."""
    return {
        message
        for _f, _l, message, _c, _x in extract_from_dir(
            str(PACKAGE), [("**.py", "python")], keywords={"noun": None}
        )
        if isinstance(message, str) and message
    }


def update() -> dict[str, list[str]]:
    """Merge the extracted ids into both catalogs; returns the untranslated ids."""
    found = extract()
    declined = nouns()
    missing: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        old = catalog(lang) if po_path(lang).exists() else Catalog(locale=lang)
        new = Catalog(
            locale=lang,
            project="pyramid-companion",
            fuzzy=False,
            creation_date=FIXED,
            revision_date=FIXED,
        )
        new.header_comment = f"# The companion's {lang} texts (companion i18n update)."
        for text in sorted(found, key=lambda t: (sorted(found[t])[0], t)):
            before = old.get(text)
            string = before.string if before is not None else ""
            new.add(text, string, locations=[(f, 0) for f in sorted(found[text])])
            if not string:
                missing.setdefault(lang, []).append(text)
            for case in CASES if text in declined else ():
                before = old.get(text, context=case)
                form = before.string if before is not None else ""
                # English has no forms by case: a name is the same in every place.
                form = form or (text if lang == "en" else "")
                new.add(text, form, locations=[(f, 0) for f in sorted(found[text])], context=case)
                if not form:
                    missing.setdefault(lang, []).append(f"{text} ({case})")
        out = io.BytesIO()
        write_po(out, new, width=0, omit_header=False, no_location=False, include_lineno=False)
        po_path(lang).parent.mkdir(parents=True, exist_ok=True)
        po_path(lang).write_bytes(out.getvalue())
        catalog.cache_clear()
        translations.cache_clear()
        forms.cache_clear()
    return missing


def check() -> dict[str, list[str]]:
    """Ids in the code without a translation, per language (nothing written)."""
    found = extract()
    declined = nouns()
    missing: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        have = catalog(lang)
        for text in sorted(found):
            entry = have.get(text)
            if entry is None or not entry.string:
                missing.setdefault(lang, []).append(text)
            for case in CASES if text in declined else ():
                form = have.get(text, context=case)
                if form is None or not form.string:
                    missing.setdefault(lang, []).append(f"{text} ({case})")
    return missing
