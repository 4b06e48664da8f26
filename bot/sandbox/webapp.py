"""Mini Apps in the sandbox: the signed launch parameters Telegram would hand a ``web_app``.

Telegram opens a ``web_app`` button's URL in a webview, with its launch parameters in the
URL's fragment: ``#tgWebAppData=<initData>&tgWebAppVersion=…&tgWebAppPlatform=…&
tgWebAppThemeParams=<JSON>``. ``initData`` says who opened the app (``user``, as JSON), when
(``auth_date``) and, in ``hash``, proves it: the hex HMAC-SHA256 of every other field
(``key=value``, sorted by key, joined by line feeds), keyed by the HMAC-SHA256 of the bot's
token keyed by ``"WebAppData"``. The sandbox holds the bot's token, so it can sign as
Telegram does (:func:`sign_init_data`), and the bot checks it as it would Telegram's.

Only a button the bot put on a message in the user's own private chat opens an app for him
(:func:`web_app_buttons`), as in a Telegram client, where nobody can press another's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from .bot_api import FakeBotApi
from .models import FakeUser

__all__ = [
    "PLATFORM",
    "THEME_PARAMS",
    "VERSION",
    "WebAppButton",
    "data_check_string",
    "init_data_hash",
    "launch_url",
    "sign_init_data",
    "web_app_buttons",
]

VERSION: Final = "8.0"
"""The Mini App version the sandbox's client says it supports (``tgWebAppVersion``)."""
PLATFORM: Final = "web"
"""The client the sandbox passes for (``tgWebAppPlatform``): Telegram's own web client."""
THEME_PARAMS: Final[Mapping[str, str]] = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "link_color": "#3390ec",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
    "header_bg_color": "#ffffff",
    "accent_text_color": "#3390ec",
    "section_bg_color": "#ffffff",
    "section_header_text_color": "#3390ec",
    "subtitle_text_color": "#707579",
    "destructive_text_color": "#e53935",
}
"""The light theme of Telegram's web client, which the sandbox's page looks like."""


@dataclass(frozen=True, slots=True)
class WebAppButton:
    """A ``web_app`` button on one of the bot's messages: where it is, and what it opens."""

    chat_id: int
    message_id: int
    row: int
    column: int
    url: str


def data_check_string(fields: Iterable[tuple[str, str]]) -> str:
    """What ``hash`` signs: every field but ``hash``, ``key=value`` sorted by key, one a line."""
    return "\n".join(f"{key}={value}" for key, value in sorted(fields) if key != "hash")


def init_data_hash(token: str, fields: Iterable[tuple[str, str]]) -> str:
    """The hex HMAC-SHA256 Telegram puts in ``hash`` for these fields (values decoded)."""
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    check = data_check_string(fields).encode()
    return hmac.new(secret, check, hashlib.sha256).hexdigest()


def sign_init_data(
    token: str, user: FakeUser, *, auth_date: int, query_id: str | None = None
) -> str:
    """``initData`` for ``user`` opening an app at ``auth_date`` (unix seconds), signed with
    the bot's ``token`` as Telegram signs it: a query string ending in ``hash``."""
    person: dict[str, Any] = {"id": user.id, "first_name": user.first_name}
    if user.last_name:
        person["last_name"] = user.last_name
    if user.username:
        person["username"] = user.username
    if user.language_code:
        person["language_code"] = user.language_code
    person["allows_write_to_pm"] = True
    fields = [
        # Telegram's query id lets the bot answer the app (answerWebAppQuery); random here.
        ("query_id", query_id or f"AAH{secrets.token_urlsafe(18)}"),
        ("user", json.dumps(person, ensure_ascii=False, separators=(",", ":"))),
        ("auth_date", str(auth_date)),
    ]
    fields.append(("hash", init_data_hash(token, fields)))
    return "&".join(f"{key}={quote(value, safe='')}" for key, value in fields)


def launch_url(url: str, init_data: str) -> str:
    """``url`` with the launch parameters in its fragment, as Telegram opens a Mini App.

    A fragment the URL already has stays in front, before a ``?`` (Telegram's script reads
    ``#<path>?<parameters>`` too), so an app that routes by its fragment keeps its route.
    """
    parameters = "&".join(
        (
            f"tgWebAppData={quote(init_data, safe='')}",
            f"tgWebAppVersion={VERSION}",
            f"tgWebAppPlatform={PLATFORM}",
            "tgWebAppThemeParams="
            + quote(json.dumps(dict(THEME_PARAMS), separators=(",", ":")), safe=""),
        )
    )
    base, hashmark, fragment = url.partition("#")
    return f"{base}#{fragment}?{parameters}" if hashmark and fragment else f"{base}#{parameters}"


def web_app_buttons(api: FakeBotApi, user: FakeUser) -> list[WebAppButton]:
    """The ``web_app`` buttons of the bot's messages in ``user``'s private chat, as their
    keyboards are now."""
    chat = api.private_chat(user)
    found: list[WebAppButton] = []
    for message in api.messages(chat):
        if not message.from_bot or message.deleted or not message.reply_markup:
            continue
        rows = message.reply_markup.get("inline_keyboard") or []
        for row_index, row in enumerate(rows):
            for column, button in enumerate(row):
                web_app = button.get("web_app") if isinstance(button, dict) else None
                url = web_app.get("url") if isinstance(web_app, dict) else None
                if isinstance(url, str):
                    found.append(WebAppButton(chat.id, message.message_id, row_index, column, url))
    return found
