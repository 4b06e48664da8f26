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

A Mini App made with @BotFather's ``/newapp`` also opens by its direct link,
``https://t.me/<bot>/<short name>?startapp=<parameter>`` — a plain URL, which a group may carry
where it may not carry a ``web_app`` button. Anyone who follows it gets the app's own URL (the
one given to BotFather, :class:`DirectLinkApp`) with ``initData`` signed as Telegram signs it
for a direct link (:func:`sign_link_init_data`): ``start_param`` the link's parameter, the
chat it was followed in as ``chat_type`` and ``chat_instance``, and no ``query_id`` (there is
no button to answer). The parameter comes in the address too, as ``tgWebAppStartParam``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qsl, quote

from .bot_api import FakeBotApi
from .models import FakeChat, FakeUser

__all__ = [
    "PLATFORM",
    "THEME_PARAMS",
    "VERSION",
    "DirectLinkApp",
    "WebAppButton",
    "data_check_string",
    "direct_link_start",
    "init_data_hash",
    "launch_url",
    "sign_init_data",
    "sign_link_init_data",
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
_DIRECT_LINK: Final = re.compile(
    r"^(?:https?://)?(?:t\.me|telegram\.me|telegram\.dog)/(?P<bot>[A-Za-z0-9_]+)"
    r"/(?P<app>[A-Za-z0-9_]+)/?(?:\?(?P<query>[^#]*))?(?:#.*)?$"
)
#: What Telegram takes as a ``startapp`` parameter; another is dropped, as a client drops it.
_START_PARAM: Final = re.compile(r"^[A-Za-z0-9_-]{1,512}$")


@dataclass(frozen=True, slots=True)
class DirectLinkApp:
    """A Mini App as @BotFather's ``/newapp`` made it: its short name (``t.me/<bot>/<short
    name>``) and the URL its direct link opens."""

    short_name: str
    url: str


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
    return _signed(
        token,
        [
            # Telegram's query id lets the bot answer the app (answerWebAppQuery); random here.
            ("query_id", query_id or f"AAH{secrets.token_urlsafe(18)}"),
            ("user", _person(user)),
            ("auth_date", str(auth_date)),
        ],
    )


def sign_link_init_data(
    token: str,
    user: FakeUser,
    *,
    auth_date: int,
    start_param: str | None = None,
    chat: FakeChat | None = None,
) -> str:
    """``initData`` for ``user`` opening an app by its direct link, as Telegram signs it:
    ``start_param`` the link's ``startapp`` (if it had one); ``chat`` the chat the link was
    followed in, if known (``chat_type`` and ``chat_instance``); no ``query_id``."""
    fields = [("user", _person(user))]
    if chat is not None:
        fields += [("chat_instance", chat.instance), ("chat_type", chat.type)]
    if start_param:
        fields.append(("start_param", start_param))
    fields.append(("auth_date", str(auth_date)))
    return _signed(token, fields)


def _person(user: FakeUser) -> str:
    """``user`` as ``initData`` has him: compact JSON."""
    person: dict[str, Any] = {"id": user.id, "first_name": user.first_name}
    if user.last_name:
        person["last_name"] = user.last_name
    if user.username:
        person["username"] = user.username
    if user.language_code:
        person["language_code"] = user.language_code
    person["allows_write_to_pm"] = True
    return json.dumps(person, ensure_ascii=False, separators=(",", ":"))


def _signed(token: str, fields: list[tuple[str, str]]) -> str:
    """``fields`` and their ``hash``, as a query string."""
    fields = [*fields, ("hash", init_data_hash(token, fields))]
    return "&".join(f"{key}={quote(value, safe='')}" for key, value in fields)


def direct_link_start(url: str, bot_username: str, app: DirectLinkApp) -> str | None:
    """The ``startapp`` parameter of ``url`` if it is the direct link of ``app`` (``""``:
    none, or one Telegram would not take); ``None`` if it is no link to ``app`` at all."""
    match = _DIRECT_LINK.match(url.strip())
    if match is None:
        return None
    if match["bot"].lower() != bot_username.lower():
        return None
    if match["app"].lower() != app.short_name.lower():
        return None
    query = dict(parse_qsl(match["query"] or "", keep_blank_values=True))
    start = query.get("startapp", "")
    return start if _START_PARAM.match(start) else ""


def launch_url(url: str, init_data: str, *, start_param: str | None = None) -> str:
    """``url`` with the launch parameters in its fragment, as Telegram opens a Mini App.

    A fragment the URL already has stays in front, before a ``?`` (Telegram's script reads
    ``#<path>?<parameters>`` too), so an app that routes by its fragment keeps its route.
    Opened by a direct link with a ``startapp``, the app is told it as
    ``tgWebAppStartParam``, in the fragment and, as Telegram documents it, as a GET parameter
    (so a server can route before any script runs).
    """
    launch = [
        f"tgWebAppData={quote(init_data, safe='')}",
        f"tgWebAppVersion={VERSION}",
        f"tgWebAppPlatform={PLATFORM}",
        "tgWebAppThemeParams="
        + quote(json.dumps(dict(THEME_PARAMS), separators=(",", ":")), safe=""),
    ]
    base, hashmark, fragment = url.partition("#")
    if start_param:
        given = f"tgWebAppStartParam={quote(start_param, safe='')}"
        launch.append(given)
        base += ("&" if "?" in base else "?") + given
    parameters = "&".join(launch)
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
