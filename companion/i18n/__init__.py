"""Messages in the reader's language: engines say what they mean (``Msg``), the shell
renders it from the gettext catalogs in ``locales/`` (German and English)."""

from .grammar import noun
from .message import N_, MessageError, Msg, counted, in_case, joined, msg, word

__all__ = [
    "N_",
    "MessageError",
    "Msg",
    "counted",
    "in_case",
    "joined",
    "msg",
    "noun",
    "word",
]
