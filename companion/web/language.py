"""The reader's language: the ``lang`` cookie (the switch on every page), else the
phone's Accept-Language, else English; and rendering messages in it.

Messages (``companion.i18n.Msg``) are rendered where they leave the server: JSON
replies (the app's JSON provider), templates (``_`` and ``finalize``), streams
(``localize`` when the stream opens) and error pages (``message_of``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from flask import Blueprint, Flask, Response, has_request_context, request
from flask.json.provider import DefaultJSONProvider

from companion.i18n import MessageError, Msg
from companion.i18n.catalog import DEFAULT, LANGUAGES, gettext, localize, render, script_catalog

from .assets import immutable, version_of

bp = Blueprint("language", __name__)

COOKIE = "lang"
#: The switch's label of each language, in that language.
NAMES = {"de": "Deutsch", "en": "English"}


def current_language() -> str:
    """The language of this request (English outside a request)."""
    if not has_request_context():
        return DEFAULT
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or DEFAULT


def text_of(message: Msg | str | MessageError) -> str:
    """A message, or a player-facing error, in the reader's language."""
    return render(message, current_language())


def message_of(exc: BaseException) -> str:
    """The player words of a refused request, in the reader's language."""
    if isinstance(exc, MessageError):
        return render(exc.message, current_language())
    return str(exc)


def localized(data: Any) -> Any:
    return localize(data, current_language())


class MessageJSON(DefaultJSONProvider):
    """JSON replies render every message in the reader's language."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return super().dumps(localized(obj), **kwargs)


def _script_body(lang: str) -> str:
    table = script_catalog(lang if lang in LANGUAGES else DEFAULT)
    return f"window.I18N = {json.dumps(table, ensure_ascii=False, sort_keys=True)};\n"


@cache
def script_version(lang: str) -> str:
    """The version of a language's script in its URL (``?v=``): of its content."""
    return version_of(_script_body(lang).encode())


@bp.get("/i18n/<lang>.js")
def script(lang: str) -> Response:
    """The scripts' texts of one language as ``window.I18N``: cached for a year under
    its versioned URL (``_i18n_head.html``), for five minutes otherwise."""
    response = Response(_script_body(lang), mimetype="text/javascript")
    if request.args.get("v") == script_version(lang):
        immutable(response)
    else:
        response.cache_control.max_age = 300
    return response


def init_app(app: Flask) -> None:
    app.json_provider_class = MessageJSON
    app.json = MessageJSON(app)
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda text: gettext(text, current_language()),
        lambda one, many, n: gettext(one if n == 1 else many, current_language()),
        newstyle=False,
    )
    app.jinja_env.finalize = lambda value: text_of(value) if isinstance(value, Msg) else value
    app.jinja_env.globals["msg"] = lambda id, **values: text_of(Msg(id, tuple(values.items())))

    @app.context_processor
    def _language() -> dict[str, Any]:
        lang = current_language()
        return {"lang": lang, "languages": NAMES, "i18n_version": script_version(lang)}

    app.register_blueprint(bp)
