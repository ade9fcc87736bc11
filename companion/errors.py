"""Errors that stop a command before it starts, with a message that says what to do."""

from __future__ import annotations


class StartupError(Exception):
    """The companion cannot start (a journal, key, board or address it cannot use);
    the message names the file or setting, what is wrong and how to recover."""
