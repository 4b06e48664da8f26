"""An in-process fake of the Telegram Bot API.

:class:`FakeBotApi` holds the world a bot lives in (its own user, users, private chats,
groups and forum topics, the messages in each chat, pending updates, callback queries) and
answers Bot API calls the way Telegram does where a bot depends on it: message ids, edits and
their "message is not modified" error, 403 for users who never started or blocked the bot,
flood limits with ``retry_after``, callback answers that work only once, parse-mode errors,
long polling with ``offset`` confirmation.

Transports feed it: :class:`bot.sandbox.request.FakeRequest` (python-telegram-bot's
``BaseRequest``, no sockets) and :class:`bot.sandbox.server.FakeBotApiServer` (real HTTP).
Both call :meth:`FakeBotApi.handle`, which returns an HTTP status and Telegram's JSON body.

Tests drive the users' side with the simulation API (``add_user``, ``add_group``,
``send_text``, ``press``...) and wait for the bot to finish reacting with :meth:`settle`;
the browser sandbox (:mod:`bot.sandbox.world`) drives the same API for a person.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import struct
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from .flood import FloodControl, FloodPolicy
from .formatting import EntityParseError, FormattedText, format_text, utf16_len
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
    Upload,
    keyboard_rows,
)

__all__ = [
    "DEFAULT_TOKEN",
    "ChatRef",
    "FakeBotApi",
    "MessageLike",
    "MessageRef",
    "NetworkFault",
    "WebhookConfig",
    "coerce_params",
]

DEFAULT_TOKEN: Final = "123456789:AAFakeTokenForCardroomTests-0123456789"
#: Telegram's shared sender of every anonymous admin's message (GroupAnonymousBot).
ANONYMOUS_ADMIN_ID: Final = 1087968824
"""The default bot token; the part before ``:`` is the bot's user id, as on Telegram."""

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

MAX_TEXT_LENGTH: Final = 4096
MAX_CAPTION_LENGTH: Final = 1024
MAX_CALLBACK_DATA_BYTES: Final = 64
MAX_CALLBACK_ANSWER_LENGTH: Final = 200
MAX_KEYBOARD_BUTTONS: Final = 100

NOT_MODIFIED: Final = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_TOO_OLD: Final = "query is too old and response timeout expired or query ID is invalid"

# Update types Telegram sends when ``allowed_updates`` was never set (or set to []).
_DEFAULT_UPDATE_TYPES: Final = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
_BUTTON_ACTIONS: Final = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
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
_FLOOD_COUNTED: Final = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "editmessagetext",
        "editmessagecaption",
        "editmessagereplymarkup",
    }
)
_COMMAND = re.compile(r"^/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{1,32})?(?=\s|$)")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{4,32}\b")
_BOT_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
_START_PAYLOAD = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
_DEEP_LINK = re.compile(
    r"^(?:(?:https?://)?(?:t\.me|telegram\.me|telegram\.dog)/(?P<bot>[A-Za-z0-9_]+)"
    r"|tg://resolve\?domain=(?P<domain>[A-Za-z0-9_]+))"
    r"(?:[?&]start=(?P<payload>[^&#]*))?(?:[&#].*)?$"
)

JSONValue = Any
Handler = Callable[["FakeBotApi", "_Args"], Awaitable[JSONValue]]
_METHODS: dict[str, tuple[str, Handler]] = {}


def _api_method(name: str) -> Callable[[Handler], Handler]:
    """Register a Bot API method handler under its (case-insensitive) name."""

    def register(handler: Handler) -> Handler:
        _METHODS[name.lower()] = (name, handler)
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


class _Args:
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


@dataclass
class _PendingUpdate:
    update_id: int
    kind: str
    payload: JSONDict


@dataclass
class _Fault:
    method: str
    error: ApiError
    remaining: int
    chat_id: int | str | None


@dataclass
class _NetworkFault:
    method: str
    timeout: bool
    processed: bool
    remaining: int


@dataclass(frozen=True)
class NetworkFault:
    """A simulated transport failure handed to a transport by :meth:`take_network_fault`.

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


class FakeBotApi:
    """State and behaviour of a fake Telegram Bot API for one bot.

    Args:
        token: the bot token transports must present; its numeric prefix is the bot's id.
        bot_username: the bot's @username (without ``@``).
        bot_first_name: the bot's display name.
        clock: monotonic seconds used for flood limits, callback ages and message dates;
            inject a controllable clock to advance time in tests.
        flood_limits: whether Telegram's flood limits apply (see :class:`FloodPolicy`).
        flood_policy: custom limits (defaults to Telegram's).
        privacy_mode: Telegram's group privacy mode: in groups where the bot is not an
            administrator it only receives commands, replies to it and mentions of it.
        callback_answer_timeout: if set, answering a callback query later than this many
            clock seconds after the press fails like an expired query.
        latency: real seconds each call (except getUpdates) takes.
    """

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
        self._updates: list[_PendingUpdate] = []
        self._next_update_id = 700_000_001
        self._last_enqueued_id = 0
        self._delivered_id = 0
        self._poll_generation = 0
        self._condition: asyncio.Condition | None = None
        self._condition_loop: asyncio.AbstractEventLoop | None = None
        self._faults: list[_Fault] = []
        self._network_faults: list[_NetworkFault] = []
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
    # Transport entry point

    async def handle(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Upload] | None = None,
    ) -> tuple[int, JSONDict]:
        """Answer one Bot API call: ``(http_status, json_body)``.

        ``method`` is case-insensitive. ``params`` may hold JSON values or strings as sent in
        form fields (see :func:`coerce_params`); ``files`` are multipart uploads by part name.
        """
        decoded = coerce_params(params or {})
        key = method.lower()
        entry = _METHODS.get(key)
        name = entry[0] if entry is not None else method
        self._record_call(method, name, decoded)
        polling = key == "getupdates"
        if not polling:
            self._in_flight += 1
        self._last_activity = time.monotonic()
        try:
            if self.latency > 0 and not polling:
                await asyncio.sleep(self.latency)
            try:
                fault = self._take_fault(key, decoded)
                if fault is not None:
                    raise fault
                if entry is None:
                    raise ApiError(404, "Not Found: method not found")
                result = await entry[1](self, _Args(decoded, files or {}))
            except ApiError as error:
                self.stats.errors[(name, error.error_code)] += 1
                if error.error_code == 429:
                    self.stats.too_many_requests += 1
                return error.error_code, error.to_body()
            return 200, {"ok": True, "result": result}
        finally:
            if not polling:
                self._in_flight -= 1
                self.revision += 1
            self._last_activity = time.monotonic()

    def _record_call(self, method: str, name: str, params: JSONDict) -> None:
        self.calls.append(ApiCall(name, dict(params)))
        self.stats.by_method[name] += 1
        chat_id = params.get("chat_id")
        if isinstance(chat_id, int):
            self.stats.by_chat[chat_id] += 1
            self.stats.by_chat_method[(chat_id, name)] += 1

    # ----------------------------------------------------------------------------------------
    # Fault injection

    def fail_next(
        self,
        method: str,
        error_code: int,
        description: str,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: ChatRef | str | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (optionally only to ``chat_id``) fail.

        The call is recorded but has no effect. With ``retry_after`` the error carries
        ``parameters.retry_after`` (python-telegram-bot raises ``RetryAfter``).
        """
        parameters = {"retry_after": retry_after} if retry_after is not None else None
        if isinstance(chat_id, FakeChat | FakeUser):
            chat_id = self.chat(chat_id).id
        self._faults.append(
            _Fault(method.lower(), ApiError(error_code, description, parameters), times, chat_id)
        )

    def network_error_next(
        self,
        method: str,
        *,
        timeout: bool = False,
        processed: bool = False,
        times: int = 1,
    ) -> None:
        """Make the transport fail the next ``times`` calls of ``method`` at network level.

        :class:`~bot.sandbox.request.FakeRequest` raises ``telegram.error.TimedOut`` when
        ``timeout`` else ``telegram.error.NetworkError``; the HTTP server drops the connection.
        With ``processed`` the call takes effect before its response is lost.
        """
        self._network_faults.append(_NetworkFault(method.lower(), timeout, processed, times))

    def take_network_fault(self, method: str) -> NetworkFault | None:
        """For transports: consume and return a pending network fault for ``method``."""
        key = method.lower()
        for fault in self._network_faults:
            if fault.method == key:
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self._network_faults.remove(fault)
                return NetworkFault(timeout=fault.timeout, processed=fault.processed)
        return None

    def _take_fault(self, key: str, params: JSONDict) -> ApiError | None:
        for fault in self._faults:
            if fault.method != key:
                continue
            if fault.chat_id is not None and params.get("chat_id") != fault.chat_id:
                continue
            fault.remaining -= 1
            if fault.remaining <= 0:
                self._faults.remove(fault)
            error = fault.error
            return ApiError(error.error_code, error.description, error.parameters)
        return None

    # ----------------------------------------------------------------------------------------
    # Flood limits and statistics

    @property
    def flood_limits_enabled(self) -> bool:
        return self.flood.policy.enabled

    @flood_limits_enabled.setter
    def flood_limits_enabled(self, enabled: bool) -> None:
        self.flood.policy.enabled = enabled

    def reset_stats(self) -> None:
        """Forget recorded calls and counters (state such as messages is kept)."""
        self.calls.clear()
        self.stats = Stats()

    def calls_of(self, method: str) -> list[JSONDict]:
        """The parameters of every recorded call of ``method`` (case-insensitive), in order.

        Recorded method names are canonical (``sendMessage``) for the methods the fake knows.
        """
        key = method.lower()
        return [call.params for call in self.calls if call.method.lower() == key]

    def _consume_flood(self, chat: FakeChat, key: str) -> None:
        if key not in _FLOOD_COUNTED:
            return
        now = self.clock()
        retry_after = self.flood.retry_after(chat.id, chat.is_group, now)
        if retry_after is not None:
            self.stats.flood_limited += 1
            raise ApiError.too_many_requests(retry_after)
        self.flood.record(chat.id, chat.is_group, now)

    # ----------------------------------------------------------------------------------------
    # Simulation API: the world

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        started: bool = True,
        is_premium: bool = False,
        user_id: int | None = None,
    ) -> FakeUser:
        """Create a user; ``started`` users have started the bot and may receive DMs."""
        user = FakeUser(
            id=user_id if user_id is not None else next(self._user_ids),
            first_name=first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
            is_premium=is_premium,
            started=started,
        )
        if user.id in self.users or user.id in self.chats:
            raise ValueError(f"id {user.id} is already taken")
        self.users[user.id] = user
        self.revision += 1
        return user

    def add_group(
        self,
        title: str,
        *,
        supergroup: bool = True,
        forum: bool = False,
        admins: Iterable[FakeUser] = (),
        members: Iterable[FakeUser] = (),
        bot_admin: bool = False,
        username: str | None = None,
        chat_id: int | None = None,
    ) -> FakeChat:
        """Create a group the bot is in; the first of ``admins`` is its creator."""
        if forum and not supergroup:
            raise ValueError("only supergroups can be forums")
        if chat_id is None:
            number = next(self._group_ids)
            chat_id = -1_001_000_000_000 - number if supergroup else -400_000_000 - number
        if chat_id in self.chats:
            raise ValueError(f"chat {chat_id} already exists")
        admin_list = list(admins)
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
            creator_id=admin_list[0].id if admin_list else None,
            admin_ids={user.id for user in admin_list},
            member_ids={user.id for user in itertools.chain(admin_list, members)},
            bot_status="administrator" if bot_admin else "member",
        )
        self.chats[chat.id] = chat
        self._messages[chat.id] = {}
        self.revision += 1
        return chat

    def add_topic(self, chat: ChatRef, name: str, *, creator: FakeUser | None = None) -> FakeTopic:
        """Create a forum topic (no update is sent); its thread id is returned in the topic."""
        group = self.chat(chat)
        if not group.is_forum:
            raise ValueError(f"chat {group.id} is not a forum")
        sender = creator or (self.users.get(group.creator_id or 0)) or self.bot
        message = self._new_message(group, sender)
        topic = FakeTopic(thread_id=message.message_id, name=name)
        message.message_thread_id = topic.thread_id
        message.is_topic_message = True
        message.service = {"forum_topic_created": {"name": name, "icon_color": topic.icon_color}}
        group.topics[topic.thread_id] = topic
        return topic

    def join_group(self, user: FakeUser, chat: ChatRef) -> None:
        """Make ``user`` a member of a group (no update is sent)."""
        self.chat(chat).member_ids.add(user.id)

    async def leave_group(self, user: FakeUser, chat: ChatRef) -> None:
        """``user`` leaves a group: the bot sees a ``left_chat_member`` service message."""
        group = self.chat(chat)
        group.member_ids.discard(user.id)
        group.admin_ids.discard(user.id)
        message = self._new_message(group, user)
        message.service = {"left_chat_member": user.to_dict()}
        if group.bot_status not in ("left", "kicked"):
            await self._enqueue("message", {"message": self._message_dict(message)})

    def start_bot(self, user: FakeUser) -> None:
        """Mark ``user`` as having started (and not blocked) the bot; enqueues nothing."""
        user.started = True
        user.blocked = False

    async def block_bot(self, user: FakeUser) -> None:
        """``user`` blocks the bot: DMs now fail with 403; a my_chat_member update is sent."""
        user.blocked = True
        await self._enqueue(
            "my_chat_member",
            self._chat_member_updated(self.private_chat(user), user, "member", "kicked"),
        )

    async def kick_bot(self, chat: ChatRef, *, by: FakeUser | None = None) -> None:
        """Remove the bot from a group: sends now fail with 403; a my_chat_member is sent."""
        group = self.chat(chat)
        old = "administrator" if group.bot_is_admin else "member"
        group.bot_status = "kicked"
        actor = by or self.users.get(group.creator_id or 0) or self.bot
        await self._enqueue(
            "my_chat_member", self._chat_member_updated(group, actor, old, "kicked")
        )

    def migrate_group(self, chat: ChatRef) -> FakeChat:
        """Upgrade a basic group to a supergroup; sends to the old id then fail with 400."""
        group = self.chat(chat)
        if group.type != "group":
            raise ValueError("only basic groups can be migrated")
        supergroup = self.add_group(group.title or "", supergroup=True)
        supergroup.member_ids = set(group.member_ids)
        supergroup.admin_ids = set(group.admin_ids)
        supergroup.creator_id = group.creator_id
        supergroup.bot_status = group.bot_status
        group.migrated_to_chat_id = supergroup.id
        return supergroup

    # ----------------------------------------------------------------------------------------
    # Simulation API: what users do

    async def send_text(
        self,
        user: FakeUser,
        chat: ChatRef | None,
        text: str,
        *,
        thread_id: int | FakeTopic | None = None,
        reply_to: FakeMessage | None = None,
    ) -> FakeMessage:
        """``user`` sends ``text`` to ``chat`` (``None`` or the user: their private chat).

        Commands get a ``bot_command`` entity at offset 0 (also ``/cmd@botname``). Any message
        in a private chat means the user has started (and not blocked) the bot, which is how
        Telegram clients work. In groups the sender joins if needed, and privacy mode decides
        whether the bot gets an update.
        """
        target = self._private_chat(user) if chat is None else self.chat(chat)
        if target.is_private:
            if target.user is not user:
                raise ValueError(f"{user.first_name} cannot write in another user's DM")
            was_blocked = user.blocked
            self.start_bot(user)
            if was_blocked:  # Telegram reports the unblock before the message
                await self._enqueue(
                    "my_chat_member", self._chat_member_updated(target, user, "kicked", "member")
                )
        else:
            target.member_ids.add(user.id)
        topic_id = thread_id.thread_id if isinstance(thread_id, FakeTopic) else thread_id
        if topic_id is None and reply_to is not None:
            topic_id = reply_to.message_thread_id
        if topic_id is not None and topic_id not in target.topics:
            raise ValueError(f"chat {target.id} has no topic {topic_id}")
        message = self._new_message(target, user)
        message.text = text
        message.raw_text = text
        message.entities = _user_entities(text)
        message.reply_to = reply_to
        if topic_id is not None:
            message.message_thread_id = topic_id
            message.is_topic_message = True
        if self._bot_receives(message):
            await self._enqueue("message", {"message": self._message_dict(message)})
        return message

    async def send_as_group(self, admin: FakeUser, chat: ChatRef, text: str) -> FakeMessage:
        """An anonymous admin writes ``text`` in a group: the message comes from Telegram's
        shared GroupAnonymousBot, on behalf of the group itself."""
        group = self.chat(chat)
        if admin.id not in group.admin_ids:
            raise ValueError(f"{admin.first_name} is not an admin of chat {group.id}")
        message = self._new_message(group, self.anonymous_admin)
        message.sender_chat = group
        message.text = message.raw_text = text
        message.entities = _user_entities(text)
        if self._bot_receives(message):
            await self._enqueue("message", {"message": self._message_dict(message)})
        return message

    async def edit_text(self, user: FakeUser, message: FakeMessage, text: str) -> FakeMessage:
        """``user`` edits their own message; sends an ``edited_message`` update."""
        if message.sender is not user:
            raise ValueError("users can only edit their own messages")
        message.history.append(message.snapshot())
        message.text = message.raw_text = text
        message.entities = _user_entities(text)
        message.edit_date = self._clocks.unix()
        self.revision += 1
        if self._bot_receives(message):
            await self._enqueue("edited_message", {"edited_message": self._message_dict(message)})
        return message

    async def press(self, user: FakeUser, message: MessageRef, button: str) -> FakeCallback:
        """``user`` presses the inline button whose text or callback_data is ``button``.

        The button is looked up on the message's current version. Returns the callback,
        which shows later whether and how the bot answered it.
        """
        current = self._current(message)
        rows = current.reply_markup.get("inline_keyboard", []) if current.reply_markup else []
        candidates = [b for row in rows for b in row if b.get("text") == button]
        candidates += [b for row in rows for b in row if b.get("callback_data") == button]
        if not candidates:
            raise LookupError(
                f"no button {button!r} on message {current.message_id} in chat "
                f"{current.chat_id}; buttons: {current.keyboard()}"
            )
        chosen = candidates[0]
        if "callback_data" not in chosen:
            raise ValueError(
                f"button {chosen.get('text')!r} is not a callback button: {chosen}; "
                "use open_link() for URL buttons"
            )
        return await self._callback(user, current, str(chosen["callback_data"]))

    async def press_data(
        self, user: FakeUser, chat_id: ChatRef, message_id: int, data: str
    ) -> FakeCallback:
        """Send a callback query with arbitrary (possibly forged) ``data`` for a message."""
        return await self._callback(user, self.message(chat_id, message_id), data)

    async def open_link(self, user: FakeUser, url: str) -> FakeMessage:
        """``user`` opens a ``t.me/<bot>?start=<payload>`` link and presses Start.

        Sends ``/start <payload>`` in the user's private chat, like Telegram clients do (an
        invalid payload is dropped, leaving a bare ``/start``).
        """
        match = _DEEP_LINK.match(url.strip())
        target = (match["bot"] or match["domain"]) if match else None
        if target is None or target.lower() != (self.bot.username or "").lower():
            raise ValueError(f"{url!r} is not a link to @{self.bot.username}")
        payload = match["payload"] if match else None
        text = f"/start {payload}" if payload and _START_PAYLOAD.match(payload) else "/start"
        return await self.send_text(user, None, text)

    async def _callback(self, user: FakeUser, message: FakeMessage, data: str) -> FakeCallback:
        if message.chat.is_private and message.chat.user is not user:
            raise ValueError(f"{user.first_name} cannot see another user's DM")
        if message.chat.is_group and message.chat.username is None:
            # Only members see a private group's messages; a public group's are for anyone.
            message.chat.member_ids.add(user.id)
        callback = FakeCallback(
            id=str(4_100_000_000_000_000_000 + next(self._callback_ids) * 1_000 + user.id % 1000),
            user=user,
            message=message,
            data=data,
            created_at=self.clock(),
        )
        self.callbacks[callback.id] = callback
        payload: JSONDict = {
            "id": callback.id,
            "from": user.to_dict(),
            "message": self._message_dict(message),
            "chat_instance": str(abs(message.chat_id) * 7 + 1_234_567),
            "data": data,
        }
        await self._enqueue("callback_query", {"callback_query": payload})
        return callback

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

    def unanswered_callbacks(self) -> list[FakeCallback]:
        """Callback queries the bot has not answered (yet), oldest first."""
        return [callback for callback in self.callbacks.values() if not callback.answered]

    @property
    def pending_updates(self) -> int:
        """Updates enqueued but not yet fetched by getUpdates."""
        return sum(1 for update in self._updates if update.update_id > self._delivered_id)

    # ----------------------------------------------------------------------------------------
    # Waiting

    async def settle(
        self,
        *,
        quiet: float = 0.05,
        timeout: float = 10.0,  # noqa: ASYNC109 - a deadline is this helper's whole API
    ) -> None:
        """Wait until the bot has fetched every update and made no call for ``quiet`` seconds.

        Real time is used (not the injectable clock). Raises ``TimeoutError`` after
        ``timeout`` seconds. A bot that pauses longer than ``quiet`` between calls (e.g.
        ``asyncio.sleep`` before a computer move) needs a larger ``quiet``.
        """
        deadline = time.monotonic() + timeout
        step = max(0.002, min(quiet / 5, 0.02))
        while True:
            now = time.monotonic()
            fetched = self._delivered_id >= self._last_enqueued_id
            idle = self._in_flight == 0 and now - self._last_activity >= quiet
            if fetched and idle:
                return
            if now >= deadline:
                raise TimeoutError(
                    f"the fake Bot API did not settle within {timeout}s: "
                    f"{self.pending_updates} update(s) not fetched, "
                    f"{self._in_flight} call(s) in flight"
                )
            await asyncio.sleep(step)

    async def wait_until(
        self,
        predicate: Callable[[], bool],
        *,
        timeout: float = 10.0,  # noqa: ASYNC109 - a deadline is this helper's whole API
        interval: float = 0.01,
    ) -> None:
        """Poll ``predicate`` until it is true; raise ``TimeoutError`` after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                raise TimeoutError(f"condition not met within {timeout}s")
            await asyncio.sleep(interval)

    # ----------------------------------------------------------------------------------------
    # Updates

    def _cond(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._condition is None or self._condition_loop is not loop:
            self._condition = asyncio.Condition()
            self._condition_loop = loop
        return self._condition

    def _update_allowed(self, kind: str) -> bool:
        allowed = self.webhook.allowed_updates if self.webhook else self.allowed_updates
        return kind in allowed if allowed else kind in _DEFAULT_UPDATE_TYPES

    async def _enqueue(self, kind: str, body: JSONDict) -> None:
        if not self._update_allowed(kind):
            return
        update_id = self._next_update_id
        self._next_update_id += 1
        payload = {"update_id": update_id, **body}
        self._updates.append(_PendingUpdate(update_id, kind, payload))
        self.update_log.append(payload)
        self._last_enqueued_id = update_id
        self.revision += 1
        condition = self._cond()
        async with condition:
            condition.notify_all()

    def _confirm(self, offset: int | None) -> None:
        if offset is None or offset == 0:
            return
        if offset > 0:
            self._updates = [u for u in self._updates if u.update_id >= offset]
        else:
            self._updates = self._updates[offset:]
        if self._updates:
            first = self._updates[0].update_id
            self._delivered_id = max(self._delivered_id, first - 1)
        else:
            self._delivered_id = max(self._delivered_id, self._last_enqueued_id)

    def _drop_pending_updates(self) -> None:
        self._updates.clear()
        self._delivered_id = self._last_enqueued_id

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

    def _bot_receives(self, message: FakeMessage) -> bool:
        chat = message.chat
        if chat.is_private:
            return True
        if chat.bot_status in ("left", "kicked"):
            return False
        text = message.text or ""
        command = _COMMAND.match(text)
        username = (self.bot.username or "").lower()
        if command and "@" in command.group(0):
            addressee = command.group(0).split("@", 1)[1].lower()
            if addressee != username:
                return not self.privacy_mode or chat.bot_is_admin
        if not self.privacy_mode or chat.bot_is_admin or command:
            return True
        if message.reply_to is not None and message.reply_to.from_bot:
            return True
        return f"@{username}" in text.lower()

    def _chat_member_updated(
        self, chat: FakeChat, actor: FakeUser, old: str, new: str
    ) -> JSONDict:
        def member(status: str) -> JSONDict:
            data: JSONDict = {"status": status, "user": self._bot_user_dict()}
            if status == "kicked":
                data["until_date"] = 0
            if status == "administrator":
                data.update(_admin_rights(chat))
            return data

        return {
            "my_chat_member": {
                "chat": chat.to_dict(),
                "from": actor.to_dict(),
                "date": self._clocks.unix(),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            }
        }

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

    def _chat_param(self, args: _Args) -> FakeChat:
        raw = args.get("chat_id")
        if raw is None or raw == "":
            raise ApiError.bad_request("chat_id is empty")
        if not isinstance(raw, int | str) or isinstance(raw, bool):
            raise ApiError.bad_request("chat not found")
        chat = self._lookup_chat(raw)
        if chat is None:
            raise ApiError.bad_request("chat not found")
        return chat

    def _check_writable(self, chat: FakeChat) -> None:
        if chat.is_private:
            user = chat.user
            assert user is not None
            if user.deactivated:
                raise ApiError.forbidden("user is deactivated")
            if user.blocked:
                raise ApiError.forbidden("bot was blocked by the user")
            if not user.started:
                raise ApiError.forbidden("bot can't initiate conversation with a user")
            return
        if chat.migrated_to_chat_id is not None:
            raise ApiError.bad_request(
                "group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to_chat_id},
            )
        kind = "supergroup" if chat.type == "supergroup" else "group"
        if chat.bot_status == "kicked":
            raise ApiError.forbidden(f"bot was kicked from the {kind} chat")
        if chat.bot_status == "left":
            raise ApiError.forbidden(f"bot is not a member of the {kind} chat")

    def _format(
        self,
        text: str | None,
        parse_mode: Any,
        entities: Any,
        *,
        caption: bool = False,
    ) -> FormattedText:
        if text is None:
            if caption:
                return FormattedText("")
            raise ApiError.bad_request("message text is empty")
        if entities is not None and not _valid_entities(entities):
            raise ApiError.bad_request("can't parse entities JSON object")
        if parse_mode is not None and not isinstance(parse_mode, str):
            raise ApiError.bad_request("unsupported parse_mode")
        try:
            formatted = format_text(text, parse_mode, entities)
        except EntityParseError as error:
            raise ApiError.bad_request(f"can't parse entities: {error}") from None
        except ValueError:
            raise ApiError.bad_request("unsupported parse_mode") from None
        formatted = FormattedText(formatted.text, tuple(self._resolve_mentions(formatted)))
        if caption:
            if len(formatted.text) > MAX_CAPTION_LENGTH:
                raise ApiError.bad_request("message caption is too long")
        elif not formatted.text:
            raise ApiError.bad_request("message text is empty")
        elif len(formatted.text) > MAX_TEXT_LENGTH:
            raise ApiError.bad_request("message is too long")
        return formatted

    def _resolve_mentions(self, formatted: FormattedText) -> Iterable[JSONDict]:
        for entity in formatted.entities:
            if entity["type"] == "text_mention":
                user = self.users.get(int(entity.get("user", {}).get("id", 0)))
                if user is None:
                    continue
                entity = {**entity, "user": user.to_dict()}
            yield entity

    def _validate_markup(self, markup: Any, *, inline_only: bool = False) -> JSONDict | None:
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise ApiError.bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            if inline_only:
                raise ApiError.bad_request("inline keyboard expected")
            if not any(k in markup for k in ("keyboard", "remove_keyboard", "force_reply")):
                raise ApiError.bad_request("can't parse reply keyboard markup JSON object")
            return dict(markup)
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise ApiError.bad_request("can't parse inline keyboard button: field is not an array")
        clean_rows: list[list[JSONDict]] = []
        count = 0
        for row in rows:
            clean_row: list[JSONDict] = []
            for button in row:
                clean_row.append(_validate_button(button))
                count += 1
            if clean_row:
                clean_rows.append(clean_row)
        if count > MAX_KEYBOARD_BUTTONS:
            raise ApiError.bad_request("reply markup is too long")
        if not clean_rows:
            return None
        return {"inline_keyboard": clean_rows}

    def _reply_target(self, chat: FakeChat, args: _Args) -> FakeMessage | None:
        reply = args.get("reply_parameters")
        message_id: Any = None
        allow_missing = args.flag("allow_sending_without_reply")
        target_chat = chat
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
            if reply.get("chat_id") not in (None, chat.id):
                target_chat = self._lookup_chat(reply["chat_id"]) or chat
        elif reply is not None:
            raise ApiError.bad_request("can't parse reply parameters JSON object")
        else:
            message_id = args.get("reply_to_message_id")
        if message_id is None:
            return None
        found = (
            self._messages.get(target_chat.id, {}).get(message_id)
            if isinstance(message_id, int)
            else None
        )
        if found is None or found.deleted:
            if allow_missing:
                return None
            raise ApiError.bad_request("message to be replied not found")
        return found

    def _thread_for_send(
        self, chat: FakeChat, args: _Args, reply_to: FakeMessage | None
    ) -> tuple[int | None, bool]:
        thread_id = args.integer("message_thread_id")
        if thread_id is None and reply_to is not None and reply_to.chat is chat:
            thread_id = reply_to.message_thread_id
        if thread_id is None:
            return None, False
        if chat.is_private:
            raise ApiError.bad_request("message thread not found")
        if chat.is_forum:
            topic = chat.topics.get(thread_id)
            if topic is None:
                raise ApiError.bad_request("message thread not found")
            if topic.closed and not chat.bot_is_admin:
                raise ApiError.bad_request("TOPIC_CLOSED")
            return thread_id, True
        if thread_id not in self._messages.get(chat.id, {}):
            raise ApiError.bad_request("message thread not found")
        return thread_id, False

    def _editable(self, chat: FakeChat, args: _Args, action: str = "edit") -> FakeMessage:
        if args.get("inline_message_id"):
            raise ApiError.bad_request("MESSAGE_ID_INVALID")
        message_id = args.integer("message_id", required=True)
        message = self._messages.get(chat.id, {}).get(message_id or 0)
        if message is None or message.deleted:
            raise ApiError.bad_request(f"message to {action} not found")
        if not message.from_bot:
            raise ApiError.bad_request("message can't be edited")
        return message

    def _apply_edit(
        self,
        message: FakeMessage,
        formatted: FormattedText | None,
        raw_text: str | None,
        parse_mode: str | None,
        markup: JSONDict | None,
    ) -> None:
        message.history.append(message.snapshot())
        if formatted is not None:
            message.text = formatted.text
            message.entities = formatted.entity_list()
            message.raw_text = raw_text
            message.parse_mode = parse_mode
        message.reply_markup = markup
        message.edit_date = self._clocks.unix()

    def _store_upload(self, kind: str, upload: Upload) -> FakeFile:
        if not upload.content:
            raise ApiError.bad_request("file must be non-empty")
        number = next(self._file_ids)
        width, height = _image_size(upload.content)
        fake = FakeFile(
            file_id=f"AgAC{kind[:2].upper()}{number:06d}FakeFileId",
            file_unique_id=f"AQAD{number:06d}",
            kind=kind,
            data=upload.content,
            source=upload.filename,
            width=width,
            height=height,
        )
        self.files[fake.file_id] = fake
        return fake

    def _input_file(self, args: _Args, name: str) -> FakeFile:
        value = args.get(name)
        if value is None:
            upload = args.files.get(name)
            if upload is None:
                raise ApiError.bad_request(f"there is no {name} in the request")
            return self._store_upload(name, upload)
        if not isinstance(value, str):
            raise ApiError.bad_request("wrong file identifier/HTTP URL specified")
        if value.startswith("attach://"):
            upload = args.files.get(value[len("attach://") :])
            if upload is None:
                raise ApiError.bad_request("wrong file identifier/HTTP URL specified")
            return self._store_upload(name, upload)
        if value in self.files:
            return self.files[value]
        if re.match(r"^https?://\S+$", value):
            number = next(self._file_ids)
            fake = FakeFile(
                file_id=f"AgAC{name[:2].upper()}{number:06d}FakeFileId",
                file_unique_id=f"AQAD{number:06d}",
                kind=name,
                source=value,
            )
            self.files[fake.file_id] = fake
            return fake
        raise ApiError.bad_request("wrong file identifier/HTTP URL specified")

    # ----------------------------------------------------------------------------------------
    # Bot API methods: bot, updates, webhook

    @_api_method("getMe")
    async def _get_me(self, args: _Args) -> JSONValue:
        return {
            **self.bot.to_dict(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    @_api_method("logOut")
    async def _log_out(self, args: _Args) -> JSONValue:
        self.logged_out = True
        return True

    @_api_method("close")
    async def _close(self, args: _Args) -> JSONValue:
        self.closed = True
        return True

    @_api_method("getUpdates")
    async def _get_updates(self, args: _Args) -> JSONValue:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = args.integer("offset")
        limit = min(max(args.integer("limit") or 100, 1), 100)
        timeout = max(args.integer("timeout") or 0, 0)
        allowed = args.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed_updates = [str(kind) for kind in allowed] or None
        self._confirm(offset)
        self._poll_generation += 1
        generation = self._poll_generation
        deadline = time.monotonic() + timeout
        condition = self._cond()
        async with condition:
            condition.notify_all()  # an older poll learns that it was superseded
            while True:
                if generation != self._poll_generation:
                    raise ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make sure that "
                        "only one bot instance is running",
                    )
                batch = self._updates[:limit]
                remaining = deadline - time.monotonic()
                if batch or remaining <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(condition.wait(), remaining)
        if batch:
            self._delivered_id = max(self._delivered_id, batch[-1].update_id)
        return [json.loads(json.dumps(update.payload)) for update in batch]

    @_api_method("setWebhook")
    async def _set_webhook(self, args: _Args) -> JSONValue:
        url = args.text("url") or ""
        if args.flag("drop_pending_updates"):
            self._drop_pending_updates()
        if not url:
            self.webhook = None
            return True
        match = re.match(r"^https://[^/:?#]+(?::(?P<port>[0-9]+))?(?:[/?#].*)?$", url)
        if match is None:
            raise ApiError.bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if match["port"] is not None and int(match["port"]) not in (80, 88, 443, 8443):
            raise ApiError.bad_request(
                "bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
            )
        secret = args.text("secret_token")
        if secret is not None and not _SECRET_TOKEN.match(secret):
            raise ApiError.bad_request("bad webhook: secret token contains unallowed characters")
        allowed = args.get("allowed_updates")
        self.webhook = WebhookConfig(
            url=url,
            secret_token=secret,
            max_connections=args.integer("max_connections") or 40,
            allowed_updates=[str(k) for k in allowed] if isinstance(allowed, list) else None,
            ip_address=args.text("ip_address"),
            has_custom_certificate=args.get("certificate") is not None
            or "certificate" in args.files,
        )
        return True

    @_api_method("deleteWebhook")
    async def _delete_webhook(self, args: _Args) -> JSONValue:
        self.webhook = None
        if args.flag("drop_pending_updates"):
            self._drop_pending_updates()
        return True

    @_api_method("getWebhookInfo")
    async def _get_webhook_info(self, args: _Args) -> JSONValue:
        info: JSONDict = {
            "url": self.webhook.url if self.webhook else "",
            "has_custom_certificate": bool(self.webhook and self.webhook.has_custom_certificate),
            "pending_update_count": len(self._updates),
        }
        if self.webhook is not None:
            info["max_connections"] = self.webhook.max_connections
            if self.webhook.allowed_updates is not None:
                info["allowed_updates"] = list(self.webhook.allowed_updates)
            if self.webhook.ip_address:
                info["ip_address"] = self.webhook.ip_address
        return info

    # ----------------------------------------------------------------------------------------
    # Bot API methods: commands and bot profile

    @staticmethod
    def _scope_key(args: _Args) -> str:
        scope = args.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or "type" not in scope:
            raise ApiError.bad_request("can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True)

    @_api_method("setMyCommands")
    async def _set_my_commands(self, args: _Args) -> JSONValue:
        commands = args.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError.bad_request("can't parse commands JSON object")
        clean: list[JSONDict] = []
        for command in commands:
            if not isinstance(command, dict):
                raise ApiError.bad_request("can't parse BotCommand JSON object")
            name = str(command.get("command", "")).lstrip("/")
            description = str(command.get("description", ""))
            if not _BOT_COMMAND_NAME.match(name):
                raise ApiError.bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                raise ApiError.bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            clean.append({"command": name, "description": description})
        key = (self._scope_key(args), args.text("language_code") or "")
        if clean:
            self.commands[key] = clean
        else:
            self.commands.pop(key, None)
        return True

    @_api_method("getMyCommands")
    async def _get_my_commands(self, args: _Args) -> JSONValue:
        key = (self._scope_key(args), args.text("language_code") or "")
        return [dict(command) for command in self.commands.get(key, [])]

    @_api_method("deleteMyCommands")
    async def _delete_my_commands(self, args: _Args) -> JSONValue:
        self.commands.pop((self._scope_key(args), args.text("language_code") or ""), None)
        return True

    def _set_bot_text(self, args: _Args, field_name: str, limit: int) -> JSONValue:
        value = args.text(field_name) or ""
        if len(value) > limit:
            raise ApiError.bad_request(f"{field_name} is too long")
        key = (field_name, args.text("language_code") or "")
        if value:
            self.bot_texts[key] = value
        else:
            self.bot_texts.pop(key, None)
        return True

    def _get_bot_text(self, args: _Args, field_name: str, default: str = "") -> JSONValue:
        language = args.text("language_code") or ""
        value = self.bot_texts.get((field_name, language)) or self.bot_texts.get((field_name, ""))
        return {field_name: value if value is not None else default}

    @_api_method("setMyName")
    async def _set_my_name(self, args: _Args) -> JSONValue:
        return self._set_bot_text(args, "name", 64)

    @_api_method("getMyName")
    async def _get_my_name(self, args: _Args) -> JSONValue:
        return self._get_bot_text(args, "name", self.bot.first_name)

    @_api_method("setMyDescription")
    async def _set_my_description(self, args: _Args) -> JSONValue:
        return self._set_bot_text(args, "description", 512)

    @_api_method("getMyDescription")
    async def _get_my_description(self, args: _Args) -> JSONValue:
        return self._get_bot_text(args, "description")

    @_api_method("setMyShortDescription")
    async def _set_my_short_description(self, args: _Args) -> JSONValue:
        return self._set_bot_text(args, "short_description", 120)

    @_api_method("getMyShortDescription")
    async def _get_my_short_description(self, args: _Args) -> JSONValue:
        return self._get_bot_text(args, "short_description")

    @_api_method("setChatMenuButton")
    async def _set_chat_menu_button(self, args: _Args) -> JSONValue:
        button = args.get("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or "type" not in button:
            raise ApiError.bad_request("can't parse menu button JSON object")
        self.menu_buttons[args.integer("chat_id")] = dict(button)
        return True

    @_api_method("getChatMenuButton")
    async def _get_chat_menu_button(self, args: _Args) -> JSONValue:
        chat_id = args.integer("chat_id")
        return dict(
            self.menu_buttons.get(chat_id) or self.menu_buttons.get(None) or {"type": "commands"}
        )

    # ----------------------------------------------------------------------------------------
    # Bot API methods: messages

    @_api_method("sendMessage")
    async def _send_message(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        raw_text = args.text("text")
        parse_mode = args.get("parse_mode")
        formatted = self._format(raw_text, parse_mode, args.get("entities"))
        message = self._post(chat, args, "sendmessage", formatted, raw_text, parse_mode)
        return self._message_dict(message)

    def _post(
        self,
        chat: FakeChat,
        args: _Args,
        method: str,
        formatted: FormattedText,
        raw_text: str | None,
        parse_mode: Any,
    ) -> FakeMessage:
        """A new bot message in ``chat``: what sendMessage and sendPhoto share."""
        markup = self._validate_markup(args.get("reply_markup"))
        reply_to = self._reply_target(chat, args)
        thread_id, is_topic = self._thread_for_send(chat, args, reply_to)
        self._consume_flood(chat, method)
        message = self._new_message(chat, self.bot)
        message.text = formatted.text
        message.entities = formatted.entity_list()
        message.raw_text = raw_text
        message.parse_mode = parse_mode
        message.reply_markup = markup
        message.reply_to = reply_to
        message.message_thread_id = thread_id
        message.is_topic_message = is_topic
        message.protect_content = args.flag("protect_content")
        return message

    @_api_method("sendPhoto")
    async def _send_photo(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        photo = self._input_file(args, "photo")
        raw_caption = args.text("caption")
        parse_mode = args.get("parse_mode")
        formatted = self._format(
            raw_caption, parse_mode, args.get("caption_entities"), caption=True
        )
        message = self._post(chat, args, "sendphoto", formatted, raw_caption, parse_mode)
        message.photo = photo
        message.text = formatted.text or None
        return self._message_dict(message)

    @_api_method("sendChatAction")
    async def _send_chat_action(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        if not args.text("action"):
            raise ApiError.bad_request("wrong parameter action in request")
        return True

    @_api_method("editMessageText")
    async def _edit_message_text(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        raw_text = args.text("text")
        parse_mode = args.get("parse_mode")
        formatted = self._format(raw_text, parse_mode, args.get("entities"))
        markup = self._validate_markup(args.get("reply_markup"), inline_only=True)
        message = self._editable(chat, args)
        if message.photo is not None or message.text is None:
            raise ApiError.bad_request("there is no text in the message to edit")
        if (
            formatted.text == message.text
            and formatted.entity_list() == message.entities
            and markup == message.reply_markup
        ):
            raise ApiError.bad_request(NOT_MODIFIED)
        self._consume_flood(chat, "editmessagetext")
        self._apply_edit(message, formatted, raw_text, parse_mode, markup)
        return self._message_dict(message)

    @_api_method("editMessageCaption")
    async def _edit_message_caption(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        raw_caption = args.text("caption")
        parse_mode = args.get("parse_mode")
        formatted = self._format(
            raw_caption, parse_mode, args.get("caption_entities"), caption=True
        )
        markup = self._validate_markup(args.get("reply_markup"), inline_only=True)
        message = self._editable(chat, args)
        if message.photo is None:
            raise ApiError.bad_request("there is no caption in the message to edit")
        if (
            (formatted.text or None) == message.text
            and formatted.entity_list() == message.entities
            and markup == message.reply_markup
        ):
            raise ApiError.bad_request(NOT_MODIFIED)
        self._consume_flood(chat, "editmessagecaption")
        self._apply_edit(message, formatted, raw_caption, parse_mode, markup)
        message.text = formatted.text or None
        return self._message_dict(message)

    @_api_method("editMessageReplyMarkup")
    async def _edit_message_reply_markup(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        markup = self._validate_markup(args.get("reply_markup"), inline_only=True)
        message = self._editable(chat, args)
        if markup == message.reply_markup:
            raise ApiError.bad_request(NOT_MODIFIED)
        self._consume_flood(chat, "editmessagereplymarkup")
        self._apply_edit(message, None, None, None, markup)
        return self._message_dict(message)

    def _delete_one(self, chat: FakeChat, message_id: Any) -> bool:
        message = (
            self._messages.get(chat.id, {}).get(message_id)
            if isinstance(message_id, int)
            else None
        )
        if message is None or message.deleted:
            return False
        rights = chat.bot_is_admin and chat.bot_can_delete_messages
        if chat.is_group and not message.from_bot and not rights:
            raise ApiError.bad_request("message can't be deleted")
        if message.service is not None and "forum_topic_created" in message.service:
            raise ApiError.bad_request("message can't be deleted")
        message.deleted = True
        if message.message_id in chat.pinned_message_ids:
            chat.pinned_message_ids.remove(message.message_id)
        return True

    @_api_method("deleteMessage")
    async def _delete_message(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        message_id = args.integer("message_id", required=True)
        if not self._delete_one(chat, message_id):
            raise ApiError.bad_request("message to delete not found")
        return True

    @_api_method("deleteMessages")
    async def _delete_messages(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        ids = args.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise ApiError.bad_request("message_ids is empty")
        deleted = [self._delete_one(chat, message_id) for message_id in ids]
        if not any(deleted):
            raise ApiError.bad_request("message to delete not found")
        return True

    @_api_method("pinChatMessage")
    async def _pin_chat_message(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        if chat.is_group and not (chat.bot_is_admin and chat.bot_can_pin_messages):
            raise ApiError.bad_request("not enough rights to manage pinned messages in the chat")
        message_id = args.integer("message_id", required=True)
        message = self._messages.get(chat.id, {}).get(message_id or 0)
        if message is None or message.deleted:
            raise ApiError.bad_request("message to pin not found")
        if message_id in chat.pinned_message_ids:
            chat.pinned_message_ids.remove(message.message_id)
        chat.pinned_message_ids.append(message.message_id)
        if chat.is_group:
            service = self._new_message(chat, self.bot)
            service.service = {"pinned_message": self._message_dict(message, nested=True)}
            service.message_thread_id = message.message_thread_id
            service.is_topic_message = message.is_topic_message
        return True

    @_api_method("unpinChatMessage")
    async def _unpin_chat_message(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_group and not (chat.bot_is_admin and chat.bot_can_pin_messages):
            raise ApiError.bad_request("not enough rights to manage pinned messages in the chat")
        message_id = args.integer("message_id")
        if message_id is None:
            if chat.pinned_message_ids:
                chat.pinned_message_ids.pop()
        elif message_id in chat.pinned_message_ids:
            chat.pinned_message_ids.remove(message_id)
        else:
            raise ApiError.bad_request("message to unpin not found")
        return True

    @_api_method("unpinAllChatMessages")
    async def _unpin_all_chat_messages(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_group and not (chat.bot_is_admin and chat.bot_can_pin_messages):
            raise ApiError.bad_request("not enough rights to manage pinned messages in the chat")
        chat.pinned_message_ids.clear()
        return True

    @_api_method("answerCallbackQuery")
    async def _answer_callback_query(self, args: _Args) -> JSONValue:
        query_id = args.text("callback_query_id")
        callback = self.callbacks.get(query_id or "")
        if callback is not None:
            callback.answer_attempts += 1
        text = args.text("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER_LENGTH:
            raise ApiError.bad_request("MESSAGE_TOO_LONG")
        url = args.text("url")
        if url and not self._is_own_start_link(url):
            raise ApiError.bad_request("URL_INVALID")
        expired = (
            callback is not None
            and self.callback_answer_timeout is not None
            and self.clock() - callback.created_at > self.callback_answer_timeout
        )
        if callback is None or callback.answered or expired:
            raise ApiError.bad_request(QUERY_TOO_OLD)
        callback.answered = True
        callback.text = text or None
        callback.show_alert = args.flag("show_alert")
        callback.url = url or None
        callback.cache_time = args.integer("cache_time")
        callback.answered_at = self.clock()
        return True

    def _is_own_start_link(self, url: str) -> bool:
        match = _DEEP_LINK.match(url.strip())
        if match is None:
            return False
        target = match["bot"] or match["domain"]
        return target.lower() == (self.bot.username or "").lower()

    # ----------------------------------------------------------------------------------------
    # Bot API methods: chats, members, files

    @_api_method("getChat")
    async def _get_chat(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        if (
            chat.is_private
            and chat.user is not None
            and not (chat.user.started or self._messages.get(chat.id))
        ):
            raise ApiError.bad_request("chat not found")
        if chat.is_group and chat.bot_status == "kicked":
            kind = "supergroup" if chat.type == "supergroup" else "group"
            raise ApiError.forbidden(f"bot was kicked from the {kind} chat")
        info: JSONDict = {
            **chat.to_dict(),
            "accent_color_id": chat.id % 7,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
        if chat.description:
            info["description"] = chat.description
        if chat.pinned_message_ids:
            pinned = self._messages[chat.id][chat.pinned_message_ids[-1]]
            info["pinned_message"] = self._message_dict(pinned, nested=True)
        if chat.is_group:
            info["permissions"] = {
                "can_send_messages": True,
                "can_send_other_messages": True,
                "can_add_web_page_previews": True,
                "can_invite_users": True,
            }
        return info

    def _member_dict(self, chat: FakeChat, user: FakeUser) -> JSONDict:
        if user is self.bot or user.id == self.bot.id:
            status: str = chat.bot_status if chat.is_group else "member"
        elif chat.is_private:
            status = "member"
        elif user.id == chat.creator_id:
            status = "creator"
        elif user.id in chat.admin_ids:
            status = "administrator"
        elif user.id in chat.member_ids:
            status = "member"
        else:
            status = "left"
        data: JSONDict = {"status": status, "user": user.to_dict()}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(_admin_rights(chat))
            if user is self.bot:
                data["can_delete_messages"] = chat.bot_can_delete_messages
                data["can_pin_messages"] = chat.bot_can_pin_messages
        elif status == "kicked":
            data["until_date"] = 0
        return data

    @_api_method("getChatMember")
    async def _get_chat_member(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        user_id = args.integer("user_id", required=True)
        user = self.bot if user_id == self.bot.id else self.users.get(user_id or 0)
        if user is None:
            raise ApiError.bad_request("user not found")
        if chat.is_private and user is not chat.user and user is not self.bot:
            raise ApiError.bad_request("user not found")
        return self._member_dict(chat, user)

    @_api_method("getChatAdministrators")
    async def _get_chat_administrators(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_private:
            raise ApiError.bad_request("there are no administrators in the private chat")
        admins: list[FakeUser] = []
        if chat.creator_id in self.users:
            admins.append(self.users[chat.creator_id or 0])
        admins += [
            self.users[uid]
            for uid in sorted(chat.admin_ids)
            if uid in self.users and uid != chat.creator_id
        ]
        if chat.bot_is_admin:
            admins.append(self.bot)
        return [self._member_dict(chat, user) for user in admins]

    @_api_method("getChatMemberCount")
    async def _get_chat_member_count(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_private:
            return 2
        bot_in = chat.bot_status in ("member", "administrator")
        return len(chat.member_ids) + (1 if bot_in else 0)

    @_api_method("leaveChat")
    async def _leave_chat(self, args: _Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_private:
            raise ApiError.bad_request("chat member status can't be changed in private chats")
        chat.bot_status = "left"
        return True

    @_api_method("getFile")
    async def _get_file(self, args: _Args) -> JSONValue:
        fake = self.files.get(args.text("file_id") or "")
        if fake is None:
            raise ApiError.bad_request("invalid file_id")
        data: JSONDict = {
            "file_id": fake.file_id,
            "file_unique_id": fake.file_unique_id,
            "file_path": fake.file_path,
        }
        if fake.file_size is not None:
            data["file_size"] = fake.file_size
        return data

    def file_content(self, file_path: str) -> bytes | None:
        """For transports: the bytes behind a ``getFile`` path, if the file was uploaded."""
        for fake in self.files.values():
            if fake.file_path == file_path:
                return fake.data
        return None

    @classmethod
    def supported_methods(cls) -> list[str]:
        """The Bot API methods this fake implements (canonical spelling)."""
        return sorted(name for name, _ in _METHODS.values())


def _user_entities(text: str) -> list[JSONDict]:
    entities: list[JSONDict] = []
    command = _COMMAND.match(text)
    if command:
        entities.append({"type": "bot_command", "offset": 0, "length": utf16_len(command[0])})
    for mention in _MENTION.finditer(text):
        entities.append(
            {
                "type": "mention",
                "offset": utf16_len(text[: mention.start()]),
                "length": utf16_len(mention[0]),
            }
        )
    return entities


def _valid_entities(entities: Any) -> bool:
    return isinstance(entities, list) and all(
        isinstance(e, dict)
        and isinstance(e.get("type"), str)
        and isinstance(e.get("offset"), int)
        and isinstance(e.get("length"), int)
        for e in entities
    )


def _validate_button(button: Any) -> JSONDict:
    if not isinstance(button, dict):
        raise ApiError.bad_request("can't parse inline keyboard button: object expected")
    if not isinstance(button.get("text"), str):
        raise ApiError.bad_request(
            'can\'t parse inline keyboard button: Field "text" must be of type String'
        )
    actions = [name for name in _BUTTON_ACTIONS if name in button]
    if not actions:
        raise ApiError.bad_request("text buttons are unallowed in the inline keyboard")
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA_BYTES:
            raise ApiError.bad_request("BUTTON_DATA_INVALID")
    if "url" in button:
        url = button["url"]
        if not isinstance(url, str) or not re.match(
            r"^(?:(?:https?|tg)://)?[^\s/$.?#][^\s]*$", url
        ):
            raise ApiError.bad_request("BUTTON_URL_INVALID")
    return dict(button)


def _admin_rights(chat: FakeChat) -> JSONDict:
    return {
        "can_be_edited": False,
        "is_anonymous": False,
        "can_manage_chat": True,
        "can_delete_messages": True,
        "can_manage_video_chats": True,
        "can_restrict_members": True,
        "can_promote_members": False,
        "can_change_info": True,
        "can_invite_users": True,
        "can_post_stories": False,
        "can_edit_stories": False,
        "can_delete_stories": False,
        "can_pin_messages": True,
        "can_manage_topics": chat.is_forum,
    }


def _image_size(content: bytes) -> tuple[int, int]:
    """Width and height of a PNG (other formats get a plausible default)."""
    if content[:8] == b"\x89PNG\r\n\x1a\n" and len(content) >= 24:
        width, height = struct.unpack(">II", content[16:24])
        return int(width), int(height)
    return 1280, 720
