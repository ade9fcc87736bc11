"""The German and English catalogs: gettext .po files read once with Babel.

``render`` turns a message into the reader's language; ``localize`` does it for every
message in a JSON payload.  An id missing from a catalog falls back to the id itself
(its English text), and ``tests/test_translations.py`` fails on any such id.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from .grammar import Translate
from .message import MessageError, Msg

LANGUAGES = ("en", "de")
DEFAULT = "en"
LOCALES = Path(__file__).with_name("locales")


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / "messages.po"


@functools.cache
def catalog(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang)


@functools.cache
def translations(lang: str) -> dict[str, str]:
    """id -> text of one language (only translated entries)."""
    if lang not in LANGUAGES:
        lang = DEFAULT
    out = {}
    for entry in catalog(lang):
        if (
            entry.id
            and not entry.context
            and isinstance(entry.id, str)
            and isinstance(entry.string, str)
            and entry.string
        ):
            out[entry.id] = entry.string
    return out


@functools.cache
def forms(lang: str) -> dict[tuple[str, str], str]:
    """(case, id) -> the form of a name in that case (entries with a case as context)."""
    out = {}
    for entry in catalog(lang if lang in LANGUAGES else DEFAULT):
        if entry.context and isinstance(entry.id, str) and entry.string:
            out[(str(entry.context), entry.id)] = str(entry.string)
    return out


def translator(lang: str) -> Translate:
    """The ``translate`` of ``Msg.render`` for ``lang``: texts and forms by case."""
    table = translations(lang)
    cases = forms(lang)

    def translate(text: str, case: str = "") -> str:
        if case:
            return cases.get((case, text), "")
        return table.get(text, text)

    return translate


def gettext(text: str, lang: str) -> str:
    return translations(lang).get(text, text)


def render(message: Msg | str | MessageError, lang: str) -> str:
    """A message (or an error carrying one) in ``lang``."""
    if isinstance(message, MessageError):
        message = message.message
    if isinstance(message, Msg):
        return message.render(translator(lang))
    return gettext(message, lang)


def localize(data: Any, lang: str) -> Any:
    """A JSON-ready copy of ``data`` with every message rendered in ``lang``."""
    if isinstance(data, Msg):
        return render(data, lang)
    if isinstance(data, dict):
        return {k: localize(v, lang) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [localize(v, lang) for v in data]
    return data


def script_catalog(lang: str) -> dict[str, str]:
    """The entries the pages' scripts use (found in .js files, and the words of
    ``words.py`` they show: colours, treasures, with their forms by case under
    ``"<case>\x04<id>"`` as gettext keys them), for ``/i18n/<lang>.js``."""
    out = {}
    for entry in catalog(lang if lang in LANGUAGES else DEFAULT):
        if (
            entry.id
            and entry.string
            and any(f.endswith((".js", "words.py")) for f, _ in entry.locations)
        ):
            key = f"{entry.context}\x04{entry.id}" if entry.context else str(entry.id)
            out[key] = str(entry.string)
    return out
