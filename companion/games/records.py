"""Reading game records: JSON Lines checked field by field, for all three games.

A record comes from a file, a journal or a phone, so anything may be in it.  This is
the one layer that turns such text into checked values or a ``RecordError`` naming the
line and what is wrong in words a player can read: types are checked, never coerced
(``"false"`` is not false, ``2.9`` is not 2), numbers are finite and short, texts are
valid Unicode (no lone surrogate), nesting is shallow, and a byte-order mark at the start
is accepted.  The API reads request bodies with the same ``parse_json``: one set of
limits, so a command accepted at the door is read back the same from the journal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from enum import Enum
from typing import Any, TypeVar

#: Deeper JSON than this is refused before it is parsed (records nest 3 levels).
MAX_DEPTH = 32
#: Digits a whole number may have (Python refuses more than 4300 with odd advice).
MAX_DIGITS = 30
#: Characters of a name, a cell or a reason in a command (the API's limit too).
MAX_TEXT = 200
#: Characters of a whole maze file kept in a record's line 1 (the default maze: ~3,000).
MAX_MAZE_TEXT = 65536
#: Half of a UTF-16 pair alone: JSON may spell it (``"\ud800"``), but it is no text
#: (it cannot be written as UTF-8, in a log line or anywhere else).
_SURROGATE = re.compile("[\ud800-\udfff]")

E = TypeVar("E", bound=Enum)
T = TypeVar("T")
S = TypeVar("S")
C = TypeVar("C")
G = TypeVar("G")


class RecordError(ValueError):
    """A record (or one of its lines) that cannot be read; ``line`` is 1-based, if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.message = message
        super().__init__(message if line is None else f"line {line}: {message}")

    def at(self, line: int) -> RecordError:
        """The same error, placed on a line of a record."""
        return type(self)(self.message, line)


def _no_constant(name: str) -> Any:
    raise RecordError(f"{name} is not a number a record may hold")


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise RecordError(f"the number {text[:12]}... is far too long")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise RecordError(f"the number {text[:20]} is too large")
    return value


def _depth(text: str) -> int:
    """How deeply the brackets of a JSON text nest (outside strings)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json(text: str) -> Any:
    """One JSON value, checked: RecordError (without a line) if it is not usable JSON."""
    text = text.lstrip("\ufeff")  # a byte-order mark (or a few, from joined files)
    if _depth(text) > MAX_DEPTH:
        raise RecordError(f"the JSON is nested more than {MAX_DEPTH} levels deep")
    if (lone := _SURROGATE.search(text)) is not None:  # from a file read with surrogates
        raise RecordError(_not_text(lone.group()))
    try:
        value = json.loads(text, parse_int=_whole, parse_float=_float, parse_constant=_no_constant)
    except RecordError:
        raise
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    except (ValueError, RecursionError) as exc:  # a defensive net: never a traceback
        raise RecordError(f"not valid JSON ({exc})") from exc
    _check_text(value)
    return value


def _not_text(char: str) -> str:
    return f"a text holds \\u{ord(char):04x} alone, which is not valid text"


def _check_text(value: Any) -> None:
    """Every text (keys too) of a parsed value is valid Unicode: no lone surrogate."""
    if isinstance(value, str):
        if (lone := _SURROGATE.search(value)) is not None:
            raise RecordError(_not_text(lone.group()))
    elif isinstance(value, list):
        for item in value:
            _check_text(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            _check_text(item)


def _check_lengths(value: Any, key: str) -> None:
    """No text of a record line is longer than its limit (``MAX_TEXT``; a whole maze
    file ``MAX_MAZE_TEXT``): RecordError naming the key."""
    if isinstance(value, str):
        limit = MAX_MAZE_TEXT if key == "maze" else MAX_TEXT
        if len(value) > limit:
            raise RecordError(
                f'"{key or "the line"}" holds {len(value)} characters; at most {limit} are read'
            )
    elif isinstance(value, list):
        for item in value:
            _check_lengths(item, key)
    elif isinstance(value, dict):
        for name, item in value.items():
            if len(name) > MAX_TEXT:
                raise RecordError(
                    f"a key holds {len(name)} characters; at most {MAX_TEXT} are read"
                )
            _check_lengths(item, name)


def record_lines(text: str) -> list[tuple[int, Any]]:
    """The non-blank lines of a JSON Lines record, parsed, with their 1-based numbers."""
    text = text.removeprefix("\ufeff")
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = parse_json(line)
            _check_lengths(value, "")
        except RecordError as exc:
            raise exc.at(number) from exc
        out.append((number, value))
    if not out:
        raise RecordError("the record is empty", 1)
    return out


def replay_record(
    text: str,
    read_setup: Callable[[Fields], S],
    read_command: Callable[[S, Any], C],
    start: Callable[[S], G],
    step: Callable[[G, C], G],
) -> tuple[S, list[C], G]:
    """Read a record and replay it: its setup, its commands and the state they lead to.

    ``read_setup`` gets line 1 as ``Fields``, ``read_command`` the setup and each further
    line's value; ``start`` makes the first state and ``step`` applies a command.  Any
    ValueError on the way (a wrong field, a rule error) becomes a RecordError on its line.
    """
    (first, setup_data), *rest = record_lines(text)
    with _on_line(first):
        setup = read_setup(Fields(setup_data, "the setup"))
        state = start(setup)
    commands: list[C] = []
    for number, data in rest:
        with _on_line(number):
            command = read_command(setup, data)
            state = step(state, command)
        commands.append(command)
    return setup, commands, state


@contextmanager
def _on_line(number: int) -> Iterator[None]:
    try:
        yield
    except ValueError as exc:
        message = exc.message if isinstance(exc, RecordError) else str(exc)
        raise RecordError(message, number) from exc


def check_kind(fields: Fields, kind: str, version: int | tuple[int, ...], game: str) -> None:
    """Line 1 names the game and the version of its record format (one this companion
    reads: ``version``, or any of several)."""
    if fields.data.get("record") != kind:
        raise RecordError(f'not {game} record: line 1 needs "record": "{kind}"')
    versions = version if isinstance(version, tuple) else (version,)
    found = fields.data.get("version")
    if isinstance(found, bool) or found not in versions:
        readable = " or ".join(str(v) for v in versions)
        raise RecordError(f"this companion reads {game} records of version {readable}")


_MISSING: Any = object()


class Fields:
    """A JSON object whose fields are read with their types checked.

    ``what`` names the object in messages ("the setup", "a move command").  Every getter
    raises RecordError with a message for players; ``default`` is used for a missing key
    (never for a wrong value).
    """

    def __init__(self, data: Any, what: str, keys: Iterable[str] | None = None) -> None:
        if not isinstance(data, dict):
            raise RecordError(f"{what} must be a JSON object {{...}}, not {describe(data)}")
        self.data: dict[str, Any] = data
        self.what = what
        if keys is not None:
            unknown = sorted(set(data) - set(keys))
            if unknown:
                raise RecordError(f'{what} has an unknown key "{unknown[0]}"')

    def _get(self, key: str, default: Any) -> Any:
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise RecordError(f'{self.what} needs "{key}"')
        return default

    def _wrong(self, key: str, wanted: str, value: Any) -> RecordError:
        return RecordError(f'"{key}" in {self.what} must be {wanted}, not {describe(value)}')

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        return self._get(key, default)

    def boolean(self, key: str, default: Any = _MISSING) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self._wrong(key, "true or false", value)
        return value

    def integer(
        self, key: str, default: Any = _MISSING, *, low: int | None = None, high: int | None = None
    ) -> int:
        value = self._get(key, default)
        return whole(value, f'"{key}" in {self.what}', low=low, high=high)

    def optional_integer(
        self, key: str, *, low: int | None = None, high: int | None = None
    ) -> int | None:
        value = self._get(key, None)
        return None if value is None else self.integer(key, low=low, high=high)

    def text(self, key: str, default: Any = _MISSING) -> str:
        value = self._get(key, default)
        if not isinstance(value, str):
            raise self._wrong(key, "text", value)
        return value

    def array(self, key: str, default: Any = _MISSING) -> list[Any]:
        value = self._get(key, default)
        if not isinstance(value, list):
            raise self._wrong(key, "a list [...]", value)
        return list(value)

    def optional_array(self, key: str) -> list[Any] | None:
        value = self._get(key, None)
        return None if value is None else self.array(key)

    def obj(self, key: str, keys: Iterable[str] | None = None, default: Any = _MISSING) -> Fields:
        value = self._get(key, default)
        return Fields(value, f'"{key}" of {self.what}', keys)

    def choice(self, key: str, enum: type[E], default: Any = _MISSING) -> E:
        return choice(self._get(key, default), enum, f'"{key}" in {self.what}')


def whole(value: Any, what: str, *, low: int | None = None, high: int | None = None) -> int:
    """A whole number (true, false and 2.0 are not), within ``low``..``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{what} must be a whole number, not {describe(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = (
            f"from {low} to {high}"
            if low is not None and high is not None
            else (f"at least {low}" if low is not None else f"at most {high}")
        )
        raise RecordError(f"{what} must be {span}, not {value}")
    return value


def choice(value: Any, enum: type[E], what: str) -> E:
    """One of an enum's names (its string values), e.g. a figure colour."""
    names = [str(member.value) for member in enum]
    if isinstance(value, str):
        for member in enum:
            if member.value == value:
                return member
    raise RecordError(f"{what} must be one of {', '.join(names)}, not {describe(value)}")


def each(values: list[Any], read: Callable[[Any], T]) -> tuple[T, ...]:
    return tuple(read(v) for v in values)


def describe(value: Any) -> str:
    """A JSON value in a few words, for messages ("the text "r"", "a list", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(value)
        return text if len(text) <= 12 else f"{text[:8]}..."
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        short = value if len(value) <= 24 else value[:21] + "..."
        return json.dumps(short, ensure_ascii=False)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
