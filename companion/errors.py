"""Errors that stop a command before it starts, or refuse one that could not be saved,
with a message that says what to do."""

from __future__ import annotations

from companion.i18n import MessageError, Msg


class StartupError(Exception):
    """The companion cannot start (a journal, key, board or address it cannot use);
    the message names the file or setting, what is wrong and how to recover."""


class StorageError(MessageError):
    """A write to the Pi's storage that failed and so changed nothing, on disk or in
    memory; the message says so in player words.

    ``full``: the storage has no room (HTTP 507 Insufficient Storage); otherwise it cannot
    be written just now (read-only, locked, an I/O error: 503)."""

    def __init__(self, message: Msg | str, *, full: bool = False) -> None:
        super().__init__(message)
        self.full = full

    @property
    def status(self) -> int:
        """The HTTP status that refuses the request."""
        return 507 if self.full else 503


class ServiceError(MessageError):
    """A request a game's service refuses; the message is for players (any language)."""


class RetryLater(ServiceError):
    """A refusal that changed nothing and may pass if the same request comes again
    (the journal's storage full or locked): a board placement is tried again."""
