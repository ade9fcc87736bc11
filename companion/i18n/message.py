"""What a message means: an id (its English text with ``{name}`` places) and values.

Pure data, free of any web code: the rules engines and trackers build these, and the
web layer renders them in the reader's language (``catalog.render``).  ``str()`` of a
message is its English text, so logs and tests read as before.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

from .grammar import CASES, Translate, english

Value = Union["Msg", str, int, float]


@dataclass(frozen=True)
class Msg:
    """A message id and its values (values may be messages themselves)."""

    id: str
    values: tuple[tuple[str, Value], ...] = ()

    def __str__(self) -> str:
        return self.render(english)

    def render(self, translate: Translate, case: str = "") -> str:
        """The text with ``translate(id)`` for this message and every nested one; a name
        in ``case`` (``grammar.CASES``) where its place in the sentence asks for one."""
        return render(self, translate, case)

    @property
    def kwargs(self) -> dict[str, Value]:
        return dict(self.values)


def msg(id: str, **values: Value) -> Msg:
    """A message: ``msg("{colour} may not stop on {cell}.", colour=..., cell=...)``."""
    return Msg(id, tuple(values.items()))


def word(id: str) -> Msg:
    """A word to translate on its own (a colour, a treasure, a face of a die)."""
    return Msg(id)


def N_(id: str) -> str:
    """Marks a constant for the catalogs; it is rendered where it is used."""
    return id


def joined(parts: Sequence[Value]) -> Msg:
    """ "A", "A and B", "A, B and C": each part rendered, the "and" translated."""
    if not parts:
        return Msg("")
    if len(parts) == 1:
        return msg("{a}", a=parts[0])
    head = parts[0]
    for part in parts[1:-1]:
        head = msg("{a}, {b}", a=head, b=part)
    return msg("{a} and {b}", a=head, b=parts[-1])


def counted(n: int, one: str, many: str, **values: Value) -> Msg:
    """ "1 step" or "3 steps": both forms are catalog ids with ``{n}``."""
    return msg(one if n == 1 else many, n=n, **values)


class MessageError(ValueError):
    """An error whose message is for players: ``.message`` renders in any language."""

    def __init__(self, message: Msg | str, **values: Value) -> None:
        self.message = message if isinstance(message, Msg) else msg(message, **values)
        super().__init__(str(self.message))

    @classmethod
    def of(cls, message: Msg) -> MessageError:
        """The error for an already-built message."""
        return cls(message)


#: A place whose text begins with a capital (``{what:cap}``), whatever case it is in.
CAPITAL = "cap"


class Sentence(string.Formatter):
    """Fills a translated text: a message value in the case its place asks for
    (``{treasure:dat}``), or else in the case the whole text was asked for."""

    def __init__(self, translate: Translate, case: str = "") -> None:
        self.translate = translate
        self.case = case

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == CAPITAL:  # a sentence after a colon (German: "…her: Nimm …")
            text = self.format_field(value, "")
            return text[:1].upper() + text[1:]
        if isinstance(value, Msg):
            return value.render(self.translate, format_spec or self.case)
        if format_spec in CASES:
            return str(value)
        return str(format(value, format_spec))


def render(message: Msg, translate: Translate, case: str = "") -> str:
    """``message`` as text: a name in ``case`` if it has that form, every value of a
    sentence in the case its place asks for."""
    if case and not message.values:
        form = translate(message.id, case)
        if form:
            return form
    text = translate(message.id)
    if not message.values:
        return text
    return Sentence(translate, case).vformat(text, (), dict(message.values))


def in_case(name: Msg, case: str) -> Msg:
    """A name already in a case, for a script that fills it into its own sentence
    ("Play the card of the {treasure}": ``in_case(treasure, "dat")``)."""
    assert case in CASES
    return Msg("{name:" + case + "}", (("name", name),))
