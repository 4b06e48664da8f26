"""A Bot API call as the fake reads it, and the register of the methods it answers.

Parameters arrive as JSON values or as strings (form fields, the query string):
:func:`coerce_params` decodes them, and :class:`Args` gives each method typed access that fails
with Telegram's own errors. Each part of :class:`~bot.sandbox.bot_api.FakeBotApi` registers
its methods with :func:`api_method`; :data:`METHODS` maps a lower-case method name to its
canonical spelling and handler.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, TypeVar

from .models import ApiError, JSONDict, Upload

__all__ = ["METHODS", "Args", "JSONValue", "api_method", "coerce_params"]

JSONValue = Any
Handler = Callable[..., Awaitable[JSONValue]]
"""A method of the fake's parts: ``(api, args) -> result``."""
_H = TypeVar("_H", bound=Handler)

METHODS: dict[str, tuple[str, Handler]] = {}
"""Lower-case method name -> (canonical name, handler)."""

_JSON_PARAMS: Final = frozenset(
    {
        "reply_markup",
        "entities",
        "caption_entities",
        "reply_parameters",
        "link_preview_options",
        "allowed_updates",
        "scope",
        "commands",
        "media",
        "menu_button",
        "message_ids",
        "permissions",
    }
)
_INT_PARAMS: Final = frozenset(
    {
        "message_id",
        "message_thread_id",
        "reply_to_message_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "cache_time",
        "max_connections",
        "until_date",
    }
)
_CHAT_PARAMS: Final = frozenset({"chat_id", "from_chat_id"})
_BOOL_PARAMS: Final = frozenset(
    {
        "show_alert",
        "disable_notification",
        "protect_content",
        "drop_pending_updates",
        "disable_web_page_preview",
        "allow_sending_without_reply",
        "has_spoiler",
        "show_caption_above_media",
        "allow_paid_broadcast",
        "revoke_messages",
        "only_if_banned",
    }
)


def api_method(name: str) -> Callable[[_H], _H]:
    """Register a Bot API method handler under its (case-insensitive) name."""

    def register(handler: _H) -> _H:
        METHODS[name.lower()] = (name, handler)
        return handler

    return register


def coerce_params(params: Mapping[str, Any]) -> JSONDict:
    """Decode parameters that arrived as strings (form fields) into their JSON types.

    Values that already have their type pass through, so this is safe for JSON bodies and for
    python-telegram-bot's ``RequestData.parameters`` alike. Unknown parameters are left as
    they are; ``text`` and other string parameters are never touched.
    """
    result: JSONDict = {}
    for name, value in params.items():
        if isinstance(value, str):
            if name in _JSON_PARAMS:
                with contextlib.suppress(ValueError):
                    value = json.loads(value)
            elif name in _INT_PARAMS or (
                name in _CHAT_PARAMS and re.fullmatch(r"-?[0-9]+", value.strip())
            ):
                with contextlib.suppress(ValueError):
                    value = int(value.strip())
            elif name in _BOOL_PARAMS:
                lowered = value.strip().lower()
                if lowered in ("true", "1"):
                    value = True
                elif lowered in ("false", "0", ""):
                    value = False
        result[name] = value
    return result


class Args:
    """Typed access to one call's parameters, raising Telegram's errors for bad values."""

    def __init__(self, params: JSONDict, files: Mapping[str, Upload]) -> None:
        self.params = params
        self.files = files

    def get(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)

    def text(self, name: str) -> str | None:
        value = self.params.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            return str(value) if isinstance(value, int | float) else None
        return value

    def integer(self, name: str, *, required: bool = False) -> int | None:
        value = self.params.get(name)
        if value is None or value == "":
            if required:
                raise ApiError.bad_request(f"{name} is empty")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ApiError.bad_request(f"invalid {name} specified")
        return value

    def flag(self, name: str) -> bool:
        return bool(self.params.get(name, False))
