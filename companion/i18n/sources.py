"""The catalogs' sources: every message id in the code, templates and scripts.

``companion i18n update`` extracts them with Babel (Python: ``msg``, ``word``, ``N_``
and the player-facing errors; templates: ``_``; scripts: ``_``) and merges them into
both .po files, keeping what is translated; ``companion i18n check`` lists what is
missing.  Ids are sorted by file, without line numbers, so a change reads as a diff.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from .catalog import LANGUAGES, catalog, po_path

#: The catalogs' dates stay fixed, so only a changed text changes a file.
FIXED = datetime(2026, 1, 1, tzinfo=UTC)
PACKAGE = Path(__file__).resolve().parent.parent
#: Python calls whose first argument is a message id.
KEYWORDS = {
    "msg": None,
    "word": None,
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


def update() -> dict[str, list[str]]:
    """Merge the extracted ids into both catalogs; returns the untranslated ids."""
    found = extract()
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
        out = io.BytesIO()
        write_po(out, new, width=0, omit_header=False, no_location=False, include_lineno=False)
        po_path(lang).parent.mkdir(parents=True, exist_ok=True)
        po_path(lang).write_bytes(out.getvalue())
        catalog.cache_clear()
    return missing


def check() -> dict[str, list[str]]:
    """Ids in the code without a translation, per language (nothing written)."""
    found = extract()
    missing: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        have = catalog(lang)
        for text in sorted(found):
            entry = have.get(text)
            if entry is None or not entry.string:
                missing.setdefault(lang, []).append(text)
    return missing
