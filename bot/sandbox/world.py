"""The sandbox's world: one group chat, the simulated users, and what the chat page can do.

:class:`SandboxWorld` wraps a :class:`~bot.sandbox.bot_api.FakeBotApi` for a person instead
of a test: it answers the chat page's questions (:meth:`SandboxWorld.state`, everything a
Telegram client would show, as JSON) and carries out what the person does as one of the
simulated users (send a message, press a button, follow a deep link, open a Mini App, add a
user). The bot on the other side is the real one, talking to the emulator over HTTP; nothing
here knows it.

The emulator, the bot and the page's requests share one event loop, so the state is cheap to
give: each message is turned into JSON once per version (:meth:`SandboxWorld.state_json`) —
drawing a big world again for every change would hold up the bot's own calls (and its calls
arriving late bunch up against Telegram's flood limits).
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .bot_api import FakeBotApi
from .models import FakeChat, FakeFile, FakeMessage, FakeUser
from .webapp import (
    DirectLinkApp,
    direct_link_start,
    launch_url,
    sign_init_data,
    sign_link_init_data,
    web_app_buttons,
)

__all__ = [
    "FILE_ROUTE",
    "SANDBOX_TOKEN",
    "CallbackAnswer",
    "Image",
    "SandboxError",
    "SandboxWorld",
]

JSONDict = dict[str, Any]

SANDBOX_TOKEN: Final = "1000000001:CardroomSandbox-NotASecret-LocalOnly00"
"""The bot's token in the sandbox: fixed and public, it only opens the local emulator."""

DEFAULT_USERS: Final = (("Anna", "en"), ("Boris", "en"))
MAX_MESSAGES_SHOWN: Final = 150
MAX_NAME_LENGTH: Final = 64
MAX_USERS: Final = 30
FILE_ROUTE: Final = "/sandbox/api/files/"
"""Where the page fetches a photo the bot sent: this, then the file's ``file_unique_id``."""
_LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$")
#: The image formats the page is given, by their first bytes: anything else the bot uploads
#: is never served to the browser (it could be HTML or SVG, which would run on the page's origin).
_IMAGE_TYPES: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class SandboxError(Exception):
    """Something the page asked for that cannot be done; the message says why."""


@dataclass(frozen=True, slots=True)
class CallbackAnswer:
    """How the bot answered a button press (``answered`` is False if it did not in time)."""

    answered: bool
    text: str | None = None
    show_alert: bool = False
    url: str | None = None

    def to_dict(self) -> JSONDict:
        return {
            "answered": self.answered,
            "text": self.text,
            "show_alert": self.show_alert,
            "url": self.url,
        }


@dataclass(frozen=True, slots=True)
class Image:
    """A photo the bot sent, as the page may be given it."""

    data: bytes
    mime_type: str


class SandboxWorld:
    """A group chat with the bot, users to act as, and their private chats with the bot.

    Args:
        api: the emulator the bot talks to.
        group_title: the name of the group every user is in.
        languages: language codes the page suggests for new users (the bot's, first).
        users: the users to begin with, as (name, language); they have started the bot,
            so they get direct messages at once. The first one created the group.
        app: the bot's Mini App as made with @BotFather's ``/newapp``, which its direct
            link (``t.me/<bot>/<short name>``) opens; ``None``: it has none.
    """

    def __init__(
        self,
        api: FakeBotApi,
        *,
        group_title: str = "Card club",
        languages: Sequence[str] = ("en",),
        users: Iterable[tuple[str, str]] = DEFAULT_USERS,
        app: DirectLinkApp | None = None,
    ) -> None:
        self.api = api
        self.languages = list(languages)
        self.app = app
        self.group = api.add_group(group_title)
        #: Each shown message's JSON, as of its version: (chat, message) -> (version, JSON).
        self._drawn: dict[tuple[int, int], tuple[tuple[object, ...], str]] = {}
        for name, language in users:
            self.add_user(name, language, started=True)

    @classmethod
    def create(cls, *, languages: Sequence[str] = ("en",)) -> SandboxWorld:
        """A new world whose bot logs in with :data:`SANDBOX_TOKEN`, under Telegram's limits."""
        api = FakeBotApi(
            token=SANDBOX_TOKEN,
            bot_username="cardroom_bot",
            bot_first_name="Cardroom",
            clock=time.monotonic,
            # Telegram's update ids only grow; the sandbox's database outlives a run (its
            # inbox remembers the ids it handled), so each run starts past the last one.
            first_update_id=int(time.time() * 1000),
        )
        return cls(api, languages=languages)

    # -- what the person does ---------------------------------------------------------------

    def add_user(
        self, name: str, language: str | None, *, started: bool = False, member: bool = True
    ) -> FakeUser:
        """A new user, a member of the group unless ``member`` is false (someone outside it,
        who may follow a link to its table but may not watch); ``started`` if he has already
        opened the bot's DM."""
        name = " ".join(name.split())
        if not name:
            raise SandboxError("A user needs a name.")
        if len(name) > MAX_NAME_LENGTH:
            raise SandboxError(f"A name has at most {MAX_NAME_LENGTH} characters.")
        if len(self.api.users) >= MAX_USERS:
            raise SandboxError(f"The sandbox holds at most {MAX_USERS} users.")
        code = (language or "").strip().lower().replace("_", "-") or None
        if code is not None and not _LANGUAGE_CODE.match(code):
            raise SandboxError(f"{language!r} is not a language code such as en or pt-br.")
        user = self.api.add_user(name, language_code=code, started=started)
        if not member:
            return user
        self.api.join_group(user, self.group)
        if self.group.creator_id is None:
            self.group.creator_id = user.id
            self.group.admin_ids.add(user.id)
        return user

    async def send(self, user_id: int, chat_id: int, text: str) -> FakeMessage:
        """The user writes ``text`` in the group or in his own private chat with the bot."""
        user = self.user(user_id)
        chat = self._chat_of(user, chat_id)
        text = text.strip()
        if not text:
            raise SandboxError("The message is empty.")
        if len(text) > 4096:
            raise SandboxError("A message has at most 4096 characters.")
        return await self.api.send_text(user, chat, text)

    async def press(
        self,
        user_id: int,
        chat_id: int,
        message_id: int,
        data: str,
        *,
        wait: float = 10.0,
    ) -> CallbackAnswer:
        """The user presses a callback button; returns the bot's answer once it comes.

        ``data`` is what the button held when the page drew it: like a Telegram client, the
        page may press a keyboard the bot has replaced meanwhile (the bot then says so).
        """
        user = self.user(user_id)
        chat = self._chat_of(user, chat_id)
        try:
            message = self.api.message(chat, message_id)
        except KeyError:
            raise SandboxError("There is no such message.") from None
        if message.deleted:
            raise SandboxError("That message was deleted.")
        callback = await self.api.press_data(user, chat, message_id, data)
        try:
            await self.api.wait_until(lambda: callback.answered, timeout=wait, interval=0.02)
        except TimeoutError:
            return CallbackAnswer(answered=False)
        return CallbackAnswer(
            answered=True,
            text=callback.text,
            show_alert=callback.show_alert,
            url=callback.url,
        )

    async def open_link(self, user_id: int, url: str) -> FakeMessage:
        """The user follows a ``t.me/<bot>?start=<payload>`` link: ``/start <payload>`` in DM."""
        user = self.user(user_id)
        try:
            return await self.api.open_link(user, url)
        except ValueError:
            raise SandboxError(f"{url} is not a link to @{self.api.bot.username}.") from None

    def open_app(self, user_id: int, url: str, chat_id: int | None = None) -> str:
        """Where the user's Mini App opens, its launch parameters signed for him as Telegram
        signs them: the URL of a ``web_app`` button the bot sent to his private chat (only
        there, as in a Telegram client, where nobody presses another's), or the bot's app
        by its direct link, followed in ``chat_id`` (a plain link anyone may follow: the bot
        judges who may see what)."""
        user = self.user(user_id)
        now = int(time.time())
        start = (
            None
            if self.app is None
            else direct_link_start(url, self.api.bot.username or "", self.app)
        )
        if self.app is not None and start is not None:
            chat = None if chat_id is None else self._chat_of(user, chat_id)
            init_data = sign_link_init_data(
                self.api.token, user, auth_date=now, start_param=start or None, chat=chat
            )
            return launch_url(self.app.url, init_data, start_param=start or None)
        if url not in {button.url for button in web_app_buttons(self.api, user)}:
            raise SandboxError(f"The bot sent {user.full_name} no button that opens {url}.")
        return launch_url(url, sign_init_data(self.api.token, user, auth_date=now))

    # -- what the page shows ----------------------------------------------------------------

    @property
    def revision(self) -> int:
        """Grows whenever what :meth:`state` returns may have changed."""
        return self.api.revision

    async def wait_for_change(self, since: int, timeout: float) -> int:  # noqa: ASYNC109
        """The revision, once it differs from ``since`` or ``timeout`` seconds have passed."""
        with contextlib.suppress(TimeoutError):
            await self.api.wait_until(
                lambda: self.revision != since, timeout=timeout, interval=0.05
            )
        return self.revision

    def state(self) -> JSONDict:
        """Everything the page draws: the bot, the users, and every chat with its messages."""
        return {
            **self._world_dict(),
            "chats": [
                {**self._chat_dict(chat), "messages": [self._message_dict(m) for m in shown]}
                for chat, shown in self._shown_chats()
            ],
        }

    def state_json(self) -> str:
        """:meth:`state` as JSON, each message's part made once per version of the message."""
        drawn: dict[tuple[int, int], tuple[tuple[object, ...], str]] = {}
        chats = []
        for chat, shown in self._shown_chats():
            parts = []
            for message in shown:
                key, version = (chat.id, message.message_id), _version(message)
                known = self._drawn.get(key)
                if known is None or known[0] != version:
                    known = (version, _json(self._message_dict(message)))
                drawn[key] = known
                parts.append(known[1])
            chats.append(_json_with(self._chat_dict(chat), "messages", parts))
        self._drawn = drawn  # what is no longer shown is forgotten
        return _json_with(self._world_dict(), "chats", chats)

    def image(self, file_unique_id: str) -> Image | None:
        """A photo the bot uploaded, if it is an image the page may show (by its bytes)."""
        for file in self.api.files.values():
            if file.file_unique_id == file_unique_id and file.data is not None:
                mime_type = _image_type(file.data)
                return Image(file.data, mime_type) if mime_type is not None else None
        return None

    def user(self, user_id: int) -> FakeUser:
        """A simulated user by id."""
        user = self.api.users.get(user_id)
        if user is None:
            raise SandboxError(f"There is no user {user_id}.")
        return user

    def _chat_of(self, user: FakeUser, chat_id: int) -> FakeChat:
        if chat_id == self.group.id:
            return self.group
        if chat_id == user.id:
            return self.api.private_chat(user)
        raise SandboxError(f"{user.full_name} cannot write in chat {chat_id}.")

    def _user_dict(self, user: FakeUser) -> JSONDict:
        return {
            "id": user.id,
            "name": user.full_name,
            "language": user.language_code,
            "started": user.started,
            "blocked": user.blocked,
            "member": user.id in self.group.member_ids,
            "commands": {
                "private": self._commands("all_private_chats", user.language_code),
                "group": self._commands("all_group_chats", user.language_code),
            },
        }

    def _commands(self, scope: str, language: str | None) -> list[JSONDict]:
        """The command menu a Telegram client shows this user in this kind of chat."""
        for scope_type in (scope, "default"):
            key = json.dumps({"type": scope_type}, sort_keys=True)
            for code in (language or "", ""):
                found = self.api.commands.get((key, code))
                if found:
                    return [dict(command) for command in found]
        return []

    def _world_dict(self) -> JSONDict:
        """The state apart from the chats."""
        users = self._users()
        bot = self.api.bot
        return {
            "revision": self.revision,
            "bot": {"id": bot.id, "name": bot.full_name, "username": bot.username},
            # The direct link's app, which the page opens for a URL button to it.
            "app": None if self.app is None else {"short_name": self.app.short_name},
            "group_id": self.group.id,
            "languages": self.languages,
            "users": [self._user_dict(user) for user in users],
        }

    def _users(self) -> list[FakeUser]:
        return sorted(self.api.users.values(), key=lambda user: user.id)

    def _shown_chats(self) -> list[tuple[FakeChat, list[FakeMessage]]]:
        """The group, then each user's private chat, with the messages the page shows."""
        chats = [self.group, *(self.api.private_chat(user) for user in self._users())]
        return [(chat, self.api.messages(chat)[-MAX_MESSAGES_SHOWN:]) for chat in chats]

    def _chat_dict(self, chat: FakeChat) -> JSONDict:
        """A chat without its messages."""
        return {
            "id": chat.id,
            "type": chat.type,
            "title": chat.title if chat.is_group else self.api.bot.full_name,
            "user_id": chat.user.id if chat.user is not None else None,
            "members": len(chat.member_ids) + 1 if chat.is_group else 2,
        }

    def _message_dict(self, message: FakeMessage) -> JSONDict:
        keyboard = (message.reply_markup or {}).get("inline_keyboard") or []
        return {
            "id": message.message_id,
            "from": {
                "id": message.sender.id,
                "name": message.sender.full_name,
                "is_bot": message.sender.is_bot,
            },
            "date": message.date,
            "edit_date": message.edit_date,
            "text": message.text or "",
            "entities": [dict(entity) for entity in message.entities],
            "photo": _photo_dict(message.photo),
            "service": _service_text(message),
            "reply_to": message.reply_to.message_id if message.reply_to is not None else None,
            "keyboard": [[_button_dict(button) for button in row] for row in keyboard],
        }


def _photo_dict(photo: FakeFile | None) -> JSONDict | None:
    """A photo for the page: its address (``None`` for one the page cannot be given — a URL
    the bot passed, or bytes that are no image) and its size."""
    if photo is None:
        return None
    image = photo.data is not None and _image_type(photo.data) is not None
    return {
        "url": FILE_ROUTE + photo.file_unique_id if image else None,
        "width": photo.width,
        "height": photo.height,
    }


def _image_type(data: bytes) -> str | None:
    return next((mime for magic, mime in _IMAGE_TYPES if data.startswith(magic)), None)


def _version(message: FakeMessage) -> tuple[object, ...]:
    """What changes whenever the page would draw ``message`` differently: every edit keeps
    the old version in its history and dates the new one; the rest catches a message whose
    fields were set by hand."""
    return (
        len(message.history),
        message.edit_date,
        message.text,
        id(message.entities),
        id(message.reply_markup),
        id(message.photo),
        id(message.service),
        id(message.reply_to),
    )


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def _json_with(data: JSONDict, name: str, parts: list[str]) -> str:
    """``data`` as JSON with one more member, a list of values given as JSON already."""
    head = _json(data)
    return f"{head[:-1]}{', ' if data else ''}{_json(name)}: [{', '.join(parts)}]}}"


def _button_dict(button: JSONDict) -> JSONDict:
    """An inline button for the page: its ``kind`` (``callback``, ``url``, ``web_app`` or
    ``other``, which the page cannot press) and ``value`` (the callback data, or the URL the
    link or the Mini App opens)."""
    text = str(button.get("text", ""))
    if "callback_data" in button:
        return {"text": text, "kind": "callback", "value": str(button["callback_data"])}
    if "url" in button:
        return {"text": text, "kind": "url", "value": str(button["url"])}
    web_app = button.get("web_app")
    if isinstance(web_app, dict) and isinstance(web_app.get("url"), str):
        return {"text": text, "kind": "web_app", "value": web_app["url"]}
    return {"text": text, "kind": "other", "value": ""}


def _service_text(message: FakeMessage) -> str | None:
    service = message.service or {}
    if "pinned_message" in service:
        return f"{message.sender.full_name} pinned a message"
    if "forum_topic_created" in service:
        return f"Topic created: {service['forum_topic_created'].get('name', '')}"
    return None
