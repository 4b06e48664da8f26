"""Informational replies (/help, /rules, boards, refusals) without spending a group's budget.

A group's window holds 18 calls a minute, and its games need them. So what is only information
is answered sparingly (:class:`ReplyGate`): the same reply is not sent twice into one chat
within a minute (the first one is right above), one person gets a few replies a minute in a
chat and a group a few in all; anything past that is dropped, and said once in the log.
What gets through is sent at the lowest priority (:data:`Priority.REPLY`), inside the share of
the group's window that replies may use (:class:`~bot.telegram.budget.Limits`). A private chat
is its owner's own: only he is limited there, more loosely, so that nobody queues a backlog.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from telegram import Message
from telegram.constants import ParseMode
from telegram.error import TelegramError

logger = logging.getLogger(__name__)


class Verdict(Enum):
    SEND = "send"
    #: The same reply went into the chat a moment ago: it is right above.
    DUPLICATE = "duplicate"
    #: This person, or this group, has had its share of replies for now.
    TOO_MANY = "too many"


@dataclass
class ReplyGate:
    """Decides whether an informational reply goes into a chat now."""

    #: Replies one person may draw in one group in any ``window`` seconds.
    per_user: int = 3
    #: Replies one group may get in any ``window`` seconds, whoever asks (as many as its
    #: budget lets replies have: :attr:`~bot.telegram.budget.Limits.reply_calls`).
    per_chat: int = 4
    #: Replies one person may draw in his own private chat in any ``window`` seconds.
    per_private: int = 20
    window: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _sent: dict[tuple[int, str], float] = field(default_factory=dict)
    _users: dict[tuple[int, int], deque[float]] = field(default_factory=dict)
    _chats: dict[int, deque[float]] = field(default_factory=dict)
    _told: set[tuple[int, int]] = field(default_factory=set)

    def admit(self, chat_id: int, user_id: int, key: str) -> Verdict:
        """Whether the reply ``key`` (what it says: ``"help"``, ``"rules:rank"``…) asked for
        by ``user_id`` goes into ``chat_id`` now; counted if it does."""
        now = self.clock()
        if len(self._sent) > 10_000:
            self._forget(now)
        private = chat_id > 0
        last = self._sent.get((chat_id, key))
        if not private and last is not None and now - last < self.window:
            return Verdict.DUPLICATE
        mine = self._users.setdefault((chat_id, user_id), deque())
        chat = self._chats.setdefault(chat_id, deque())
        for calls in (mine, chat):
            while calls and calls[0] <= now - self.window:
                calls.popleft()
        limit = self.per_private if private else self.per_user
        if len(mine) >= limit or (not private and len(chat) >= self.per_chat):
            if (chat_id, user_id) not in self._told:
                self._told.add((chat_id, user_id))
                logger.info("Replies to user %s in chat %s held back for now", user_id, chat_id)
            return Verdict.TOO_MANY
        self._told.discard((chat_id, user_id))
        mine.append(now)
        chat.append(now)
        self._sent[chat_id, key] = now
        return Verdict.SEND

    def _forget(self, now: float) -> None:
        self._sent = {k: t for k, t in self._sent.items() if now - t < self.window}
        self._users = {k: q for k, q in self._users.items() if q and now - q[-1] < self.window}
        self._chats = {k: q for k, q in self._chats.items() if q and now - q[-1] < self.window}
        self._told.clear()


async def send_reply(
    gate: ReplyGate, message: Message, key: str, text: str, **kwargs: Any
) -> bool:
    """Answer ``message`` in its chat with ``text`` (HTML) if ``gate`` lets the reply ``key``
    in; whether it went. A reply Telegram refuses (the bot was muted or removed meanwhile) is
    one line in the log."""
    asker = message.from_user.id if message.from_user is not None else 0
    if gate.admit(message.chat.id, asker, key) is not Verdict.SEND:
        return False
    try:
        await message.reply_text(text, parse_mode=ParseMode.HTML, do_quote=False, **kwargs)
    except TelegramError as error:
        logger.warning("Reply in chat %s refused: %s", message.chat.id, error)
        return False
    return True
