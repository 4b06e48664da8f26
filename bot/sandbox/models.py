"""State objects of the fake Bot API: users, chats, topics, messages, callbacks, files.

These are plain mutable dataclasses owned by :class:`bot.sandbox.bot_api.FakeBotApi`. A test
may keep references to them: the fake updates them in place (an edited message object always
shows its current version, a callback object shows whether it was answered). Each object can
render itself as the JSON dict the Bot API would return for it (``to_dict``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

__all__ = [
    "ApiCall",
    "ApiError",
    "Button",
    "ChatType",
    "FakeCallback",
    "FakeChat",
    "FakeFile",
    "FakeMessage",
    "FakeTopic",
    "FakeUser",
    "MessageVersion",
    "Stats",
    "Upload",
]

JSONDict = dict[str, Any]
ChatType = Literal["private", "group", "supergroup"]
BotStatus = Literal["member", "administrator", "left", "kicked"]


class ApiError(Exception):
    """A Bot API error response: ``{"ok": false, "error_code": ..., "description": ...}``."""

    def __init__(
        self,
        error_code: int,
        description: str,
        parameters: JSONDict | None = None,
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    @classmethod
    def bad_request(cls, detail: str, parameters: JSONDict | None = None) -> ApiError:
        """400 ``Bad Request: <detail>``."""
        return cls(400, f"Bad Request: {detail}", parameters)

    @classmethod
    def forbidden(cls, detail: str) -> ApiError:
        """403 ``Forbidden: <detail>``."""
        return cls(403, f"Forbidden: {detail}")

    @classmethod
    def too_many_requests(cls, retry_after: int) -> ApiError:
        """429 ``Too Many Requests: retry after N`` with ``parameters.retry_after``."""
        return cls(
            429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
        )

    def to_body(self) -> JSONDict:
        """The JSON body Telegram sends with this error."""
        body: JSONDict = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = dict(self.parameters)
        return body


class Upload(NamedTuple):
    """A file uploaded with a request (multipart/form-data part)."""

    filename: str | None
    content: bytes
    mime_type: str | None = None


class ApiCall(NamedTuple):
    """One Bot API call: the canonical method name (as sent, if unknown) and its parameters."""

    method: str
    params: JSONDict


@dataclass
class Stats:
    """Counters kept by the fake; reset with :meth:`FakeBotApi.reset_stats`."""

    by_method: Counter[str] = field(default_factory=Counter)
    """Calls per canonical method name (``sendMessage``), errors included."""
    by_chat: Counter[int] = field(default_factory=Counter)
    """Calls per ``chat_id`` parameter, errors included."""
    by_chat_method: Counter[tuple[int, str]] = field(default_factory=Counter)
    """Calls per (chat_id, method)."""
    errors: Counter[tuple[str, int]] = field(default_factory=Counter)
    """Error responses per (method, error_code)."""
    too_many_requests: int = 0
    """Every 429 answered, whether from the flood limits or injected with ``fail_next``."""
    flood_limited: int = 0
    """The 429s produced by the flood limits alone."""


@dataclass(eq=False)
class FakeUser:
    """A Telegram user (or the bot itself when ``is_bot``)."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False
    is_premium: bool = False
    started: bool = False
    """Whether the user has started the bot, i.e. the bot may send them direct messages."""
    blocked: bool = False
    """Whether the user has blocked the bot (sends then fail with 403)."""
    deactivated: bool = False
    """Whether the account was deleted (sends then fail with 403)."""

    def __repr__(self) -> str:
        flags = "".join(
            f" {name}" for name in ("started", "blocked", "deactivated") if getattr(self, name)
        )
        return f"FakeUser(id={self.id}, {self.full_name!r}{flags})"

    @property
    def full_name(self) -> str:
        """First and last name, as Telegram clients show them."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_dict(self) -> JSONDict:
        """The Bot API ``User`` object."""
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        if self.is_premium:
            data["is_premium"] = True
        return data


@dataclass(eq=False)
class FakeTopic:
    """A forum topic; its ``thread_id`` is the id of the message that created it."""

    thread_id: int
    name: str
    icon_color: int = 0x6FB9F0
    closed: bool = False


@dataclass(eq=False)
class FakeChat:
    """A private chat (one per user, same id as the user) or a (super)group."""

    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    user: FakeUser | None = None
    """The other party of a private chat."""
    member_ids: set[int] = field(default_factory=set)
    """Human members of a group (the creator and administrators included)."""
    creator_id: int | None = None
    admin_ids: set[int] = field(default_factory=set)
    bot_status: BotStatus = "member"
    bot_can_delete_messages: bool = True
    bot_can_pin_messages: bool = True
    migrated_to_chat_id: int | None = None
    topics: dict[int, FakeTopic] = field(default_factory=dict)
    description: str | None = None
    pinned_message_ids: list[int] = field(default_factory=list)
    next_message_id: int = 1

    def __repr__(self) -> str:
        name = self.user.full_name if self.user is not None else self.title
        return f"FakeChat(id={self.id}, {self.type}, {name!r})"

    @property
    def is_private(self) -> bool:
        return self.type == "private"

    @property
    def is_group(self) -> bool:
        """True for groups and supergroups."""
        return self.type != "private"

    @property
    def instance(self) -> str:
        """The opaque id Telegram gives the chat where it tells of a press there or of an app
        opened there (``chat_instance``): the same wherever it is said."""
        return str(abs(self.id) * 7 + 1_234_567)

    @property
    def bot_is_admin(self) -> bool:
        return self.bot_status == "administrator"

    def to_dict(self) -> JSONDict:
        """The short Bot API ``Chat`` object embedded in messages."""
        data: JSONDict = {"id": self.id, "type": self.type}
        if self.is_private and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data


@dataclass(eq=False)
class FakeFile:
    """An uploaded file (its bytes kept, for ``getFile`` and the chat page) or one the bot
    referenced by URL or ``file_id`` (nothing kept but the reference)."""

    file_id: str
    file_unique_id: str
    kind: str
    data: bytes | None = None
    source: str | None = None
    """The upload's file name, or the URL / file_id the bot passed."""
    width: int = 1280
    height: int = 720

    @property
    def file_size(self) -> int | None:
        return len(self.data) if self.data is not None else None

    @property
    def file_path(self) -> str:
        return f"{self.kind}s/{self.file_unique_id}"

    def photo_sizes(self) -> list[JSONDict]:
        """The ``PhotoSize`` list Telegram returns for a photo (a thumbnail and the original)."""
        thumb_w, thumb_h = (90, max(1, round(90 * self.height / max(self.width, 1))))
        small: JSONDict = {
            "file_id": f"{self.file_id}-s",
            "file_unique_id": f"{self.file_unique_id}-s",
            "width": thumb_w,
            "height": thumb_h,
        }
        original: JSONDict = {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "width": self.width,
            "height": self.height,
        }
        if self.file_size is not None:
            original["file_size"] = self.file_size
        return [small, original]


Button = tuple[str, str]
"""An inline button as (text, callback_data or url or other action value)."""


@dataclass(frozen=True)
class MessageVersion:
    """A snapshot of a message's editable content, kept in :attr:`FakeMessage.history`."""

    text: str | None
    entities: tuple[JSONDict, ...]
    raw_text: str | None
    parse_mode: str | None
    reply_markup: JSONDict | None
    edit_date: int | None


@dataclass(eq=False)
class FakeMessage:
    """A message in a chat. Edits update it in place; earlier versions go to ``history``.

    ``text`` is what users read (plain text after the parse mode, like the Bot API returns it);
    ``raw_text`` and ``parse_mode`` are exactly what the sender passed. For a photo the text
    fields hold the caption.
    """

    chat: FakeChat
    message_id: int
    sender: FakeUser
    date: int
    sender_chat: FakeChat | None = None
    """The chat a message was sent on behalf of (an anonymous admin writes as the group)."""
    text: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    raw_text: str | None = None
    parse_mode: str | None = None
    reply_markup: JSONDict | None = None
    message_thread_id: int | None = None
    is_topic_message: bool = False
    reply_to: FakeMessage | None = None
    photo: FakeFile | None = None
    service: JSONDict | None = None
    """Service content such as ``{"forum_topic_created": {...}}``."""
    protect_content: bool = False
    edit_date: int | None = None
    history: list[MessageVersion] = field(default_factory=list)
    deleted: bool = False

    def __repr__(self) -> str:
        flags = " edited" if self.edited else ""
        flags += " deleted" if self.deleted else ""
        thread = f", thread={self.message_thread_id}" if self.message_thread_id else ""
        return (
            f"FakeMessage(chat={self.chat.id}, id={self.message_id}{thread}, "
            f"from={self.sender.full_name!r}, text={self.text!r}, "
            f"buttons={self.keyboard()}{flags})"
        )

    @property
    def chat_id(self) -> int:
        return self.chat.id

    @property
    def from_bot(self) -> bool:
        return self.sender.is_bot

    @property
    def edited(self) -> bool:
        return self.edit_date is not None

    @property
    def is_caption(self) -> bool:
        """Whether the text fields hold a media caption rather than message text."""
        return self.photo is not None

    def snapshot(self) -> MessageVersion:
        """The current editable content as an immutable version."""
        return MessageVersion(
            text=self.text,
            entities=tuple(dict(e) for e in self.entities),
            raw_text=self.raw_text,
            parse_mode=self.parse_mode,
            reply_markup=self.reply_markup,
            edit_date=self.edit_date,
        )

    def keyboard(self) -> list[list[Button]]:
        """The inline keyboard as rows of (text, callback_data | url | other action)."""
        return keyboard_rows(self.reply_markup)


def keyboard_rows(reply_markup: JSONDict | None) -> list[list[Button]]:
    """Rows of (text, action value) of an inline keyboard markup dict ([] for none)."""
    if not reply_markup:
        return []
    rows: list[list[Button]] = []
    for row in reply_markup.get("inline_keyboard") or []:
        buttons: list[Button] = []
        for button in row:
            value = next(
                (str(v) for k, v in button.items() if k != "text" and isinstance(v, str)), ""
            )
            buttons.append((str(button.get("text", "")), value))
        rows.append(buttons)
    return rows


@dataclass(eq=False)
class FakeCallback:
    """A button press delivered as a ``callback_query`` update, and how the bot answered it."""

    id: str
    user: FakeUser
    message: FakeMessage
    data: str
    created_at: float
    answered: bool = False
    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None
    answered_at: float | None = None
    answer_attempts: int = 0
    """How many times the bot called answerCallbackQuery for it (only the first succeeds)."""

    def __repr__(self) -> str:
        answer = (
            f"answered text={self.text!r} show_alert={self.show_alert} url={self.url!r}"
            if self.answered
            else "unanswered"
        )
        return (
            f"FakeCallback(id={self.id!r}, user={self.user.full_name!r}, data={self.data!r}, "
            f"message={self.message.chat.id}/{self.message.message_id}, {answer})"
        )
