"""How much information a chat gets: informational replies (/help, /rules, boards, refusals)
without spending a group's budget, and lobbies opened and cancelled.

A group's window holds 18 calls a minute, and its games need them. So what is only information
is answered sparingly (:class:`ReplyGate`): the same reply is not sent twice into one chat
within a minute (the first one is right above), one person gets a few replies a minute in a
chat and a group a few in all; anything past that is dropped, and said once in the log.
What gets through is sent at the lowest priority (:data:`Priority.REPLY`), inside the share of
the group's window that replies may use (:class:`~bot.telegram.sender.budget.Limits`). A
private chat is its owner's own: only he is limited there, more loosely, so that nobody queues
a backlog.
A reply the gate holds back in a group goes to its asker's private chat instead, if he has
started the bot (:meth:`~bot.telegram.sender.notes.Notes.post_private`).

The same counts, without the merging, limit how often a person and a group open and cancel
lobbies (:meth:`ReplyGate.allow`): each lobby is a message in the group.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

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
    #: budget lets replies have: :attr:`~bot.telegram.sender.budget.Limits.reply_calls`).
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
        last = self._sent.get((chat_id, key))
        if chat_id < 0 and last is not None and now - last < self.window:
            return Verdict.DUPLICATE
        if not self._take(chat_id, user_id, now):
            if (chat_id, user_id) not in self._told:
                self._told.add((chat_id, user_id))
                logger.info("Replies to user %s in chat %s held back for now", user_id, chat_id)
            return Verdict.TOO_MANY
        self._told.discard((chat_id, user_id))
        self._sent[chat_id, key] = now
        return Verdict.SEND

    def allow(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` may do one more counted thing in ``chat_id`` now (open or
        cancel a lobby); counted if he may."""
        return self._take(chat_id, user_id, self.clock())

    def _take(self, chat_id: int, user_id: int, now: float) -> bool:
        """Count one for the person and the chat, if both are under their limits."""
        if len(self._sent) > 10_000 or len(self._users) > 10_000:
            self._forget(now)
        mine = self._users.setdefault((chat_id, user_id), deque())
        chat = self._chats.setdefault(chat_id, deque())
        for calls in (mine, chat):
            while calls and calls[0] <= now - self.window:
                calls.popleft()
        private = chat_id > 0
        limit = self.per_private if private else self.per_user
        if len(mine) >= limit or (not private and len(chat) >= self.per_chat):
            return False
        mine.append(now)
        chat.append(now)
        return True

    def _forget(self, now: float) -> None:
        self._sent = {k: t for k, t in self._sent.items() if now - t < self.window}
        self._users = {k: q for k, q in self._users.items() if q and now - q[-1] < self.window}
        self._chats = {k: q for k, q in self._chats.items() if q and now - q[-1] < self.window}
        self._told.clear()
