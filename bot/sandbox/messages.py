"""Messages: what users write, and what the bot sends, edits, deletes and pins.

Users write with the simulation API (``send_text``, ``send_as_group``, ``edit_text``); the bot
hears of it as Telegram's privacy mode decides. The bot's calls (``sendMessage``,
``sendPhoto``, ``editMessage*``, ``deleteMessage(s)``, ``(un)pinChatMessage``...) are checked
as Telegram checks them — parse modes and entities (:mod:`~bot.sandbox.formatting`), lengths,
inline keyboards (a ``web_app`` button only in a private chat, and over HTTPS), replies and
forum topics, "message is not modified" — and sends and edits count against the flood limits
(:mod:`~bot.sandbox.flood`). An edit keeps the message's earlier versions in its ``history``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import urlsplit

from .calls import Args, JSONValue, api_method
from .chats import Chats
from .files import Files
from .flood import COUNTED_METHODS
from .formatting import EntityParseError, FormattedText, format_text, utf16_len
from .models import ApiError, FakeChat, FakeMessage, FakeTopic, FakeUser, JSONDict
from .store import ChatRef

__all__ = ["MAX_CAPTION_LENGTH", "MAX_TEXT_LENGTH", "NOT_MODIFIED", "Messages"]

MAX_TEXT_LENGTH: Final = 4096
MAX_CAPTION_LENGTH: Final = 1024
MAX_CALLBACK_DATA_BYTES: Final = 64
MAX_KEYBOARD_BUTTONS: Final = 100

NOT_MODIFIED: Final = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
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
#: Where the sandbox opens a ``web_app`` over plain HTTP: its own Mini App, on this machine
#: (Telegram opens HTTPS only).
_WEB_APP_HTTP_HOSTS: Final = frozenset({"127.0.0.1", "localhost"})
_COMMAND = re.compile(r"^/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{1,32})?(?=\s|$)")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{4,32}\b")


class Messages(Chats, Files):
    """Messages in chats, from users and from the bot."""

    # ----------------------------------------------------------------------------------------
    # Simulation API: what users write

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

    # ----------------------------------------------------------------------------------------
    # Internals: checking what the bot sends

    def _consume_flood(self, chat: FakeChat, key: str) -> None:
        if key not in COUNTED_METHODS:
            return
        now = self.clock()
        retry_after = self.flood.retry_after(chat.id, chat.is_group, now)
        if retry_after is not None:
            self.stats.flood_limited += 1
            raise ApiError.too_many_requests(retry_after)
        self.flood.record(chat.id, chat.is_group, now)

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

    def _validate_markup(
        self, markup: Any, chat: FakeChat, *, inline_only: bool = False
    ) -> JSONDict | None:
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
                clean_row.append(_validate_button(button, chat))
                count += 1
            if clean_row:
                clean_rows.append(clean_row)
        if count > MAX_KEYBOARD_BUTTONS:
            raise ApiError.bad_request("reply markup is too long")
        if not clean_rows:
            return None
        return {"inline_keyboard": clean_rows}

    def _reply_target(self, chat: FakeChat, args: Args) -> FakeMessage | None:
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
        self, chat: FakeChat, args: Args, reply_to: FakeMessage | None
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

    def _editable(self, chat: FakeChat, args: Args, action: str = "edit") -> FakeMessage:
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

    # ----------------------------------------------------------------------------------------
    # Bot API methods: messages

    @api_method("sendMessage")
    async def _send_message(self, args: Args) -> JSONValue:
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
        args: Args,
        method: str,
        formatted: FormattedText,
        raw_text: str | None,
        parse_mode: Any,
    ) -> FakeMessage:
        """A new bot message in ``chat``: what sendMessage and sendPhoto share."""
        markup = self._validate_markup(args.get("reply_markup"), chat)
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

    @api_method("sendPhoto")
    async def _send_photo(self, args: Args) -> JSONValue:
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

    @api_method("sendChatAction")
    async def _send_chat_action(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        if not args.text("action"):
            raise ApiError.bad_request("wrong parameter action in request")
        return True

    @api_method("editMessageText")
    async def _edit_message_text(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        raw_text = args.text("text")
        parse_mode = args.get("parse_mode")
        formatted = self._format(raw_text, parse_mode, args.get("entities"))
        markup = self._validate_markup(args.get("reply_markup"), chat, inline_only=True)
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

    @api_method("editMessageCaption")
    async def _edit_message_caption(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        raw_caption = args.text("caption")
        parse_mode = args.get("parse_mode")
        formatted = self._format(
            raw_caption, parse_mode, args.get("caption_entities"), caption=True
        )
        markup = self._validate_markup(args.get("reply_markup"), chat, inline_only=True)
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

    @api_method("editMessageReplyMarkup")
    async def _edit_message_reply_markup(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        self._check_writable(chat)
        markup = self._validate_markup(args.get("reply_markup"), chat, inline_only=True)
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

    @api_method("deleteMessage")
    async def _delete_message(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        message_id = args.integer("message_id", required=True)
        if not self._delete_one(chat, message_id):
            raise ApiError.bad_request("message to delete not found")
        return True

    @api_method("deleteMessages")
    async def _delete_messages(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        ids = args.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise ApiError.bad_request("message_ids is empty")
        deleted = [self._delete_one(chat, message_id) for message_id in ids]
        if not any(deleted):
            raise ApiError.bad_request("message to delete not found")
        return True

    @api_method("pinChatMessage")
    async def _pin_chat_message(self, args: Args) -> JSONValue:
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

    @api_method("unpinChatMessage")
    async def _unpin_chat_message(self, args: Args) -> JSONValue:
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

    @api_method("unpinAllChatMessages")
    async def _unpin_all_chat_messages(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_group and not (chat.bot_is_admin and chat.bot_can_pin_messages):
            raise ApiError.bad_request("not enough rights to manage pinned messages in the chat")
        chat.pinned_message_ids.clear()
        return True


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


def _validate_button(button: Any, chat: FakeChat) -> JSONDict:
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
    if "web_app" in button:
        _validate_web_app(button["web_app"], chat)
    return dict(button)


def _validate_web_app(web_app: Any, chat: FakeChat) -> None:
    """A ``web_app`` button opens a Mini App for the one who presses it: Telegram takes it in
    private chats only, and its URL must be HTTPS (the sandbox's own app on this machine,
    ``http://127.0.0.1:<port>`` or ``http://localhost:<port>``, passes too)."""
    if not isinstance(web_app, dict):
        raise ApiError.bad_request(
            'can\'t parse inline keyboard button: Field "web_app" must be of type Object'
        )
    url = web_app.get("url")
    if not isinstance(url, str):
        raise ApiError.bad_request(
            'can\'t parse inline keyboard button: Field "url" must be of type String'
        )
    if not chat.is_private:
        raise ApiError.bad_request("BUTTON_TYPE_INVALID")
    if not _web_app_url_allowed(url):
        raise ApiError.bad_request("BUTTON_URL_INVALID")


def _web_app_url_allowed(url: str) -> bool:
    if not url or any(character.isspace() for character in url):
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is no number, or out of range
        return False
    if parts.scheme == "https":
        return bool(parts.hostname)
    return parts.scheme == "http" and parts.hostname in _WEB_APP_HTTP_HOSTS and bool(port)
