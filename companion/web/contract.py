"""The API contract: one schema per JSON endpoint, used both to check request bodies and
to write ``/api/openapi.json``, so the document cannot drift from what the views accept.

Schemas are plain JSON Schema dicts (the subset below); ``problem`` checks a value
against one without coercing anything (``"false"`` is not a boolean, ``false`` is not a
number: in Python ``bool`` is a subclass of ``int``, so whole numbers exclude it).
A view declares its contract with ``@endpoint(...)`` and reads its body with ``body()``,
which answers 400 ``{"error": message}`` for anything the schema does not describe.
A body is read by the game records' own reader (``records.parse_json``), so a number,
a text or a nesting the journal could not read back after a restart is refused here.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from flask import Blueprint, Flask, abort, current_app, jsonify, make_response, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.errors import StorageError
from companion.games.records import MAX_TEXT, RecordError, parse_json

Schema = dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])

#: The largest JSON body any endpoint accepts (a Loot N Run run of many cards is < 10 kB).
MAX_BODY = 64 * 1024

STRING: Schema = {"type": "string", "maxLength": MAX_TEXT}  # a name, a cell, a reason
TEXT: Schema = {"type": "string"}  # words in an answer
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
ANY_OBJECT: Schema = {"type": "object"}
ERROR: Schema = {
    "type": "object",
    "properties": {"error": TEXT},
    "required": ["error"],
}


def obj(
    required: dict[str, Schema] | None = None,
    optional: dict[str, Schema] | None = None,
    *,
    closed: bool = True,
) -> Schema:
    """An object with these keys (``closed``: no others)."""
    required = required or {}
    schema: Schema = {"type": "object", "properties": {**required, **(optional or {})}}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def array(items: Schema, *, max_items: int = 50) -> Schema:
    return {"type": "array", "items": items, "maxItems": max_items}


def one_of(*values: Any, words: str | None = None) -> Schema:
    """One of ``values``; ``words`` (also the schema's description) say it to a player."""
    schema: Schema = {"enum": list(values)}
    if words is not None:
        schema["description"] = words
    return schema


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


# -- checking ----------------------------------------------------------------------------


def _is_type(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return not isinstance(value, float) or math.isfinite(value)
    if kind == "string":
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    raise ValueError(f"unknown schema type {kind!r}")


_TYPE_WORDS = {
    "null": "null",
    "boolean": "true or false",
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "array": "a list",
    "object": "an object",
}


def problem(schema: Schema, value: Any, where: str = "the request") -> str | None:
    """What is wrong with ``value`` for ``schema``, in words, or None when it fits (a
    schema's ``description``, when it has one, is the words)."""
    found = _problem(schema, value, where)
    return found if found is None else schema.get("description", found)


def _problem(schema: Schema, value: Any, where: str) -> str | None:
    if "anyOf" in schema:
        each = [problem(s, value, where) for s in schema["anyOf"]]
        return None if None in each else each[0]
    if "enum" in schema:
        ok = any(type(value) is type(v) and value == v for v in schema["enum"])
        return None if ok else f"{where} is one of {', '.join(map(json.dumps, schema['enum']))}"
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        return f"{where} is {_TYPE_WORDS[kind]}"
    if kind in ("integer", "number"):
        if value < schema.get("minimum", value):
            return f"{where} is at least {schema['minimum']}"
        if value > schema.get("maximum", value):
            return f"{where} is at most {schema['maximum']}"
    if kind == "string" and len(value) > schema.get("maxLength", len(value)):
        return f"{where} is at most {schema['maxLength']} characters"
    if kind == "array":
        if len(value) > schema.get("maxItems", len(value)):
            return f"{where} has at most {schema['maxItems']} items"
        for i, item in enumerate(value):
            if (found := problem(schema["items"], item, f"{where}[{i}]")) is not None:
                return found
    if kind == "object":
        return _object_problem(schema, value, where)
    return None


def _object_problem(schema: Schema, value: dict[str, Any], where: str) -> str | None:
    properties: dict[str, Schema] = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in value:
            return f'{where} needs "{key}"'
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(value) - set(properties))
        if unknown:
            known = ", ".join(properties) or "nothing"
            return f'{where} has an unknown key "{unknown[0]}" (it takes {known})'
    for key, sub in properties.items():
        if key in value and (found := problem(sub, value[key], f'"{key}"')) is not None:
            return found
    return None


# -- endpoints ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """What one route takes and answers (``body``: None for no request body)."""

    summary: str
    body: Schema | None = None
    answer: Schema | None = None  # None: not JSON (``media``)
    media: str = "application/json"
    errors: tuple[int, ...] = (400, 403)


#: What every live stream may answer besides its own refusals.
STREAM_ERRORS = (429, 503)


def endpoint(
    summary: str,
    *,
    body: Schema | None = None,
    answer: Schema | None = ANY_OBJECT,
    media: str = "application/json",
    errors: tuple[int, ...] = (400, 403),
) -> Callable[[F], F]:
    """Declare a view's contract (read by ``body()`` and by the OpenAPI document).

    A live stream may also be refused for the streams its device or seat holds (429) or
    the companion holds in all (503): ``web/stream.py``."""
    if media == "text/event-stream":
        errors = tuple(sorted({*errors, *STREAM_ERRORS}))
    spec = Endpoint(summary, body, answer, media, errors)

    def mark(view: F) -> F:
        view.__api__ = spec  # type: ignore[attr-defined]
        return view

    return mark


def spec_of(view: Any) -> Endpoint | None:
    found: Endpoint | None = getattr(view, "__api__", None)
    return found


def refuse(message: str, status: int = 400) -> NoReturn:
    abort(make_response(jsonify({"error": message}), status))


def refusal_status(exc: BaseException, status: int) -> int:
    """The status that refuses a request for ``exc``: ``status``, but 507 or 503 for a
    write the storage refused (the request changed nothing and may be sent again)."""
    return exc.status if isinstance(exc, StorageError) else status


def body() -> dict[str, Any]:
    """The request's JSON object, checked against the endpoint's schema (400 otherwise)."""
    spec = spec_of(current_app.view_functions.get(request.endpoint or ""))
    if spec is None or spec.body is None:
        raise LookupError(f"{request.endpoint} declares no request body")
    if not request.is_json:
        refuse("Send the request as JSON (Content-Type: application/json).")
    if request.content_length is not None and request.content_length > MAX_BODY:
        refuse(f"The request is too large (more than {MAX_BODY} bytes).", 413)
    raw = request.get_data()
    if len(raw) > MAX_BODY:  # sent in chunks, without a length
        refuse(f"The request is too large (more than {MAX_BODY} bytes).", 413)
    try:
        text = raw.decode("utf-8")
    except ValueError:
        refuse("The request is not valid JSON.")
    try:  # the journal's reader: what it would refuse on a replay is refused now
        data = parse_json(text)
    except RecordError as exc:  # a number, a text or a nesting no record may hold
        if exc.message.startswith("not valid JSON"):
            refuse("The request is not valid JSON.")
        refuse(exc.message[0].upper() + exc.message[1:] + ".")
    if not isinstance(data, dict):
        refuse("Send a JSON object.")
    found = problem(spec.body, data)
    if found is not None:
        refuse(found[0].upper() + found[1:] + ".")
    return data


# -- the document ------------------------------------------------------------------------

_STATUS_WORDS = {
    400: "a malformed request",
    403: "not this device's seat",
    404: "nothing there",
    409: "refused by the rules or the board",
    413: f"the request is larger than {MAX_BODY} bytes",
    429: "this device or seat has too many live pages open",
    503: "this game is not running here, or the storage cannot be written now",
    507: "the storage is full: nothing changed",
}


def is_api(rule: str) -> bool:
    """Whether a URL rule is part of the JSON API."""
    return "/api/" in rule or rule.endswith("/api")


def openapi(app: Flask) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every API route of ``app``."""
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        spec = spec_of(app.view_functions[rule.endpoint])
        if not is_api(rule.rule) or spec is None:
            continue
        path, parameters = openapi_path(rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            operation = _operation(spec, rule.endpoint)
            if parameters:
                operation["parameters"] = parameters
            paths.setdefault(path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Pyramid companion", "version": "1"},
        "paths": paths,
    }


def openapi_path(rule: str) -> tuple[str, list[dict[str, Any]]]:
    """A Flask rule as an OpenAPI path (``<int:game_id>`` as ``{game_id}``) and its
    path parameters."""
    placeholders = re.findall(r"<(?:(\w+):)?(\w+)>", rule)
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": INTEGER if kind == "int" else STRING,
        }
        for kind, name in placeholders
    ]
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule), parameters


def _operation(spec: Endpoint, name: str) -> dict[str, Any]:
    content = {spec.media: {"schema": spec.answer}} if spec.answer is not None else {spec.media: {}}
    responses: dict[str, Any] = {"200": {"description": "done", "content": content}}
    # Every request with a body may change something, so a failing storage may refuse
    # it; a body over MAX_BODY is refused before it is read (the server's limit too).
    storage = (413, 503, 507) if spec.body is not None else ()
    for status in sorted({*spec.errors, *storage}):
        responses[str(status)] = {
            "description": _STATUS_WORDS.get(status, "refused"),
            "content": {"application/json": {"schema": ERROR}},
        }
    operation: dict[str, Any] = {
        "operationId": name,
        "summary": spec.summary,
        "responses": responses,
    }
    if spec.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": spec.body}},
        }
    return operation


# -- errors under /api/ ------------------------------------------------------------------

bp = Blueprint("contract", __name__)


@bp.get("/api/openapi.json")
@endpoint("This document: every JSON endpoint, what it takes and answers.", errors=())
def document() -> ResponseReturnValue:
    return jsonify(openapi(current_app))


def _api_error(exc: HTTPException) -> ResponseReturnValue:
    """Under an ``/api/`` path every error (404, 405 ...) is ``{"error": ...}``, not HTML."""
    if not is_api(request.path):
        return exc
    return jsonify({"error": exc.description}), exc.code or 500


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.register_error_handler(HTTPException, _api_error)
