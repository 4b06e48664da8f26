"""What the fake Bot API holds, and how its parts find things in it.

:class:`ApiStore` is the common base of :class:`~bot.sandbox.bot_api.FakeBotApi`'s parts: the
bot, the users, the chats and their messages, callback queries, files, the update queue and
what the bot has configured (webhook, commands), created from ``FakeBotApi``'s arguments. Its
methods are the ones every part needs: resolving a chat, storing a new message, and a message
as the Bot API's JSON. The simulation API's looking methods (``chat``, ``messages``,
``message``...) are here too.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

from .calls import Args
from .flood import FloodControl, FloodPolicy
from .models import (
    ApiCall,
    ApiError,
    Button,
    FakeCallback,
    FakeChat,
    FakeFile,
    FakeMessage,
    FakeTopic,
    FakeUser,
    JSONDict,
    Stats,
    keyboard_rows,
)

__all__ = [
    "ANONYMOUS_ADMIN_ID",
    "DEFAULT_TOKEN",
    "ApiStore",
    "ChatRef",
    "InjectedError",
    "InjectedNetworkFault",
    "MessageLike",
    "MessageRef",
    "NetworkFault",
    "PendingUpdate",
    "WebhookConfig",
]

DEFAULT_TOKEN: Final = "123456789:AAFakeTokenForCardroomTests-0123456789"
"""The default bot token; the part before ``:`` is the bot's user id, as on Telegram."""
#: Telegram's shared sender of every anonymous admin's message (GroupAnonymousBot).
ANONYMOUS_ADMIN_ID: Final = 1087968824

ChatRef = int | FakeChat | FakeUser
"""A chat given by id, by object, or by a user (meaning that user's private chat)."""


class _HasId(Protocol):
    @property
    def id(self) -> int: ...


class MessageLike(Protocol):
    """Anything naming a message by ``chat.id`` and ``message_id``: a :class:`FakeMessage` or
    a ``telegram.Message`` returned by the bot's own calls."""

    @property
    def message_id(self) -> int: ...

    @property
    def chat(self) -> _HasId: ...


MessageRef = FakeMessage | MessageLike


@dataclass
class PendingUpdate:
    """An update waiting for ``getUpdates`` to fetch (and then confirm) it."""

    update_id: int
    kind: str
    payload: JSONDict


@dataclass
class InjectedError:
    """An error :meth:`~bot.sandbox.bot_api.FakeBotApi.fail_next` set for the next calls."""

    method: str
    error: ApiError
    remaining: int
    chat_id: int | str | None


@dataclass
class InjectedNetworkFault:
    """A network failure :meth:`~bot.sandbox.bot_api.FakeBotApi.network_error_next` set."""

    method: str
    timeout: bool
    processed: bool
    remaining: int


@dataclass(frozen=True)
class NetworkFault:
    """A simulated transport failure handed to a transport by
    :meth:`~bot.sandbox.bot_api.FakeBotApi.take_network_fault`.

    ``timeout`` selects a timeout instead of a generic network error; ``processed`` means the
    request reached the fake (and took effect) but the response was lost.
    """

    timeout: bool
    processed: bool


@dataclass
class WebhookConfig:
    """What ``setWebhook`` recorded."""

    url: str
    secret_token: str | None = None
    max_connections: int = 40
    allowed_updates: list[str] | None = None
    ip_address: str | None = None
    has_custom_certificate: bool = False


@dataclass
class _Clocks:
    """Unix dates derived from the injectable monotonic clock."""

    clock: Callable[[], float]
    wall_origin: float = field(default_factory=time.time)
    clock_origin: float = 0.0

    def __post_init__(self) -> None:
        self.clock_origin = self.clock()

    def unix(self) -> int:
        return int(self.wall_origin + (self.clock() - self.clock_origin))


class ApiStore:
    """The state of a :class:`~bot.sandbox.bot_api.FakeBotApi` (see its arguments), and the
    lookups its parts share."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "cardroom_bot",
        bot_first_name: str = "Cardroom",
        clock: Callable[[], float] = time.monotonic,
        flood_limits: bool = True,
        flood_policy: FloodPolicy | None = None,
        privacy_mode: bool = True,
        callback_answer_timeout: float | None = None,
        latency: float = 0.0,
        first_update_id: int = 700_000_001,
    ) -> None:
        prefix = token.split(":", 1)[0]
        self.token = token
        self.bot = FakeUser(
            id=int(prefix) if prefix.isdigit() else 123456789,
            first_name=bot_first_name,
            username=bot_username,
            language_code=None,
            is_bot=True,
        )
        self.clock = clock
        self.privacy_mode = privacy_mode
        self.callback_answer_timeout = callback_answer_timeout
        self.latency = latency
        self.flood = FloodControl(flood_policy or FloodPolicy())
        self.flood.policy.enabled = flood_limits

        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.callbacks: dict[str, FakeCallback] = {}
        self.files: dict[str, FakeFile] = {}
        self.webhook: WebhookConfig | None = None
        self.allowed_updates: list[str] | None = None
        self.commands: dict[tuple[str, str], list[JSONDict]] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}
        self.menu_buttons: dict[int | None, JSONDict] = {}
        self.closed = False
        self.logged_out = False

        self.calls: list[ApiCall] = []
        self.stats = Stats()
        self.update_log: list[JSONDict] = []
        self.revision = 0
        """Grows whenever the world may have changed (a call other than getUpdates, a new
        user, chat, message or update): a cheap way for a viewer to know when to look again."""

        self._clocks = _Clocks(clock)
        self._messages: dict[int, dict[int, FakeMessage]] = {}
        self._updates: list[PendingUpdate] = []
        self._next_update_id = first_update_id
        self._last_enqueued_id = 0
        self._delivered_id = 0
        self._poll_generation = 0
        self._condition: asyncio.Condition | None = None
        self._condition_loop: asyncio.AbstractEventLoop | None = None
        self._faults: list[InjectedError] = []
        self._network_faults: list[InjectedNetworkFault] = []
        self._in_flight = 0
        self._last_activity = float("-inf")
        self.anonymous_admin = FakeUser(
            id=ANONYMOUS_ADMIN_ID,
            first_name="Group",
            username="GroupAnonymousBot",
            language_code=None,
            is_bot=True,
        )
        self._user_ids = itertools.count(100_000_001)
        self._group_ids = itertools.count(1)
        self._callback_ids = itertools.count(1)
        self._file_ids = itertools.count(1)

    # ----------------------------------------------------------------------------------------
    # Simulation API: looking at the world

    def chat(self, chat: ChatRef) -> FakeChat:
        """Resolve a chat reference (id, object, or a user for their private chat)."""
        if isinstance(chat, FakeChat):
            return chat
        if isinstance(chat, FakeUser):
            return self._private_chat(chat)
        found = self._lookup_chat(chat)
        if found is None:
            raise KeyError(f"no chat {chat}")
        return found

    def private_chat(self, user: FakeUser) -> FakeChat:
        """The private chat between ``user`` and the bot."""
        return self._private_chat(user)

    def private_chat_id(self, user: FakeUser) -> int:
        """The id of ``user``'s private chat with the bot (equal to the user id)."""
        return self._private_chat(user).id

    def messages(
        self,
        chat: ChatRef,
        thread_id: int | FakeTopic | None = None,
        *,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        """The chat's messages in order (one topic's only, if ``thread_id`` is given)."""
        group = self.chat(chat)
        topic_id = thread_id.thread_id if isinstance(thread_id, FakeTopic) else thread_id
        return [
            message
            for message in self._messages.get(group.id, {}).values()
            if (include_deleted or not message.deleted)
            and (topic_id is None or message.message_thread_id == topic_id)
        ]

    def bot_messages(
        self, chat: ChatRef, thread_id: int | FakeTopic | None = None
    ) -> list[FakeMessage]:
        """The messages the bot sent to the chat that still exist."""
        return [message for message in self.messages(chat, thread_id) if message.from_bot]

    def last_message(
        self, chat: ChatRef, thread_id: int | FakeTopic | None = None
    ) -> FakeMessage | None:
        """The newest existing message in the chat (or topic), or None."""
        found = self.messages(chat, thread_id)
        return found[-1] if found else None

    def message(self, chat: ChatRef, message_id: int) -> FakeMessage:
        """A message by id (deleted ones included); raises ``KeyError`` if it never existed."""
        group = self.chat(chat)
        try:
            return self._messages[group.id][message_id]
        except KeyError:
            raise KeyError(f"no message {message_id} in chat {group.id}") from None

    def buttons(self, message: MessageRef) -> list[list[Button]]:
        """The current inline keyboard of ``message`` as rows of (text, data or url)."""
        return keyboard_rows(self._current(message).reply_markup)

    # ----------------------------------------------------------------------------------------
    # Internals: chats and messages

    def _private_chat(self, user: FakeUser) -> FakeChat:
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(id=user.id, type="private", user=user)
            self.chats[user.id] = chat
            self._messages[user.id] = {}
        return chat

    def _lookup_chat(self, chat_id: int | str) -> FakeChat | None:
        if isinstance(chat_id, str):
            name = chat_id.lstrip("@").lower()
            return next(
                (c for c in self.chats.values() if c.username and c.username.lower() == name),
                None,
            )
        if chat_id in self.chats:
            return self.chats[chat_id]
        user = self.users.get(chat_id)
        return self._private_chat(user) if user is not None else None

    def _chat_param(self, args: Args) -> FakeChat:
        raw = args.get("chat_id")
        if raw is None or raw == "":
            raise ApiError.bad_request("chat_id is empty")
        if not isinstance(raw, int | str) or isinstance(raw, bool):
            raise ApiError.bad_request("chat not found")
        chat = self._lookup_chat(raw)
        if chat is None:
            raise ApiError.bad_request("chat not found")
        return chat

    def _current(self, message: MessageRef) -> FakeMessage:
        """The stored (current) version of a message; raises if it is missing or deleted."""
        current = self._messages.get(message.chat.id, {}).get(message.message_id)
        if current is None:
            raise KeyError(f"no message {message.message_id} in chat {message.chat.id}")
        if current.deleted:
            raise ValueError(f"message {message.message_id} was deleted")
        return current

    def _new_message(self, chat: FakeChat, sender: FakeUser) -> FakeMessage:
        message = FakeMessage(
            chat=chat,
            message_id=chat.next_message_id,
            sender=sender,
            date=self._clocks.unix(),
        )
        chat.next_message_id += 1
        self._messages.setdefault(chat.id, {})[message.message_id] = message
        self.revision += 1
        return message

    def _bot_user_dict(self) -> JSONDict:
        return self.bot.to_dict()

    def _message_dict(self, message: FakeMessage, *, nested: bool = False) -> JSONDict:
        data: JSONDict = {
            "message_id": message.message_id,
            "from": message.sender.to_dict(),
            "chat": message.chat.to_dict(),
            "date": message.date,
        }
        if message.sender_chat is not None:
            data["sender_chat"] = message.sender_chat.to_dict()
        if message.message_thread_id is not None:
            data["message_thread_id"] = message.message_thread_id
        if message.is_topic_message:
            data["is_topic_message"] = True
        if not nested:
            reply_to = message.reply_to
            if reply_to is None and message.is_topic_message and message.service is None:
                reply_to = self._messages[message.chat_id].get(message.message_thread_id or 0)
            if reply_to is not None and not reply_to.deleted:
                data["reply_to_message"] = self._message_dict(reply_to, nested=True)
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.protect_content:
            data["has_protected_content"] = True
        if message.photo is not None:
            data["photo"] = message.photo.photo_sizes()
            if message.text:
                data["caption"] = message.text
                if message.entities:
                    data["caption_entities"] = [dict(e) for e in message.entities]
        elif message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = [dict(e) for e in message.entities]
        if message.service is not None:
            data.update(message.service)
        if message.reply_markup is not None and "inline_keyboard" in message.reply_markup:
            data["reply_markup"] = json.loads(json.dumps(message.reply_markup))
        return data
