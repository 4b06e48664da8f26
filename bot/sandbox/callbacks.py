"""Callbacks: users pressing inline buttons and following links, and the bot's answers.

A press (``press``, ``press_data``) becomes a ``callback_query`` update; the bot answers it
once with ``answerCallbackQuery`` (a second answer, or one after
``callback_answer_timeout``, fails as Telegram's "query is too old"), and the
:class:`~bot.sandbox.models.FakeCallback` shows how. ``open_link`` follows a
``t.me/<bot>?start=<payload>`` link as a Telegram client does.
"""

from __future__ import annotations

import re
from typing import Final

from .calls import Args, JSONValue, api_method
from .messages import Messages
from .models import ApiError, FakeCallback, FakeMessage, FakeUser, JSONDict
from .store import ChatRef, MessageRef

__all__ = ["QUERY_TOO_OLD", "Callbacks"]

MAX_CALLBACK_ANSWER_LENGTH: Final = 200
QUERY_TOO_OLD: Final = "query is too old and response timeout expired or query ID is invalid"
_START_PAYLOAD = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_DEEP_LINK = re.compile(
    r"^(?:(?:https?://)?(?:t\.me|telegram\.me|telegram\.dog)/(?P<bot>[A-Za-z0-9_]+)"
    r"|tg://resolve\?domain=(?P<domain>[A-Za-z0-9_]+))"
    r"(?:[?&]start=(?P<payload>[^&#]*))?(?:[&#].*)?$"
)


class Callbacks(Messages):
    """Button presses, deep links, and the bot's answers to presses."""

    # ----------------------------------------------------------------------------------------
    # Simulation API: what users press

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
            "chat_instance": message.chat.instance,
            "data": data,
        }
        await self._enqueue("callback_query", {"callback_query": payload})
        return callback

    def unanswered_callbacks(self) -> list[FakeCallback]:
        """Callback queries the bot has not answered (yet), oldest first."""
        return [callback for callback in self.callbacks.values() if not callback.answered]

    # ----------------------------------------------------------------------------------------
    # Bot API methods: callback queries

    @api_method("answerCallbackQuery")
    async def _answer_callback_query(self, args: Args) -> JSONValue:
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
