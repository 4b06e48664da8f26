"""How much information a chat gets: informational replies (/help, /rules, boards, refusals)
without spending a group's budget, and lobbies opened and cancelled.

A group's window holds 18 calls a minute. So what is only information is answered with some
care (:class:`ReplyGate`): the same reply is not sent twice into one chat within a minute (the
first one is right above), one person gets a few replies a minute in a group — the others'
questions are not buried under his — and a group no more than its window could carry in all.
What gets through is sent at the lowest priority (:data:`Priority.REPLY`), inside the share of
the group's window that replies may use (:class:`~bot.telegram.sender.budget.Limits`: a part of
it while a game is played there, nearly all of it otherwise). A private chat is its owner's
own: only he is limited there, more loosely, so that nobody queues a backlog.
A reply the gate holds back in a group goes to its asker's private chat instead, if he has
started the bot (:meth:`~bot.telegram.sender.notes.Notes.post_private`), saying why: he asked
a lot (:attr:`Verdict.TOO_MANY`), or the group has had all it can take
(:attr:`Verdict.GROUP_FULL`).

The same counts, without the merging, limit how often a person and a group open and cancel
lobbies (:meth:`ReplyGate.allow`): each lobby is a message in the group.

What the gate remembers — per chat, per person in a chat, per reply — is forgotten once it
has left the window, and past :data:`REMEMBERED` entries of a kind the one touched longest
ago goes: more than the bot could answer in a window anyway (its calls are about 1,600 a
minute in all), so memory stays bounded whatever the number of chats.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, TypeVar

from bot.telegram.sender.budget import Limits

logger = logging.getLogger(__name__)

#: Entries of each kind the gate keeps at most (about 1 kB apiece with their moments).
REMEMBERED: Final = 10_000

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class Verdict(Enum):
    SEND = "send"
    #: The same reply went into the chat a moment ago: it is right above.
    DUPLICATE = "duplicate"
    #: This person has had his share of replies for now (in a group: of its answers).
    TOO_MANY = "too many"
    #: The group has had as many replies as its window can take for now, whoever asked.
    GROUP_FULL = "group full"


@dataclass
class ReplyGate:
    """Decides whether an informational reply goes into a chat now."""

    #: Replies one person may draw in one group in any ``window`` seconds: enough to look
    #: round (help, rules, a board, his stats), not enough to bury the others' questions.
    per_user: int = 5
    #: Replies one group may get in any ``window`` seconds, whoever asks: no more than its
    #: whole window (:attr:`~bot.telegram.sender.budget.Limits.group_calls`) — how many of
    #: them go now is the budget's to say, by whether a game is played there.
    per_chat: int = Limits().group_calls
    #: Replies one person may draw in his own private chat in any ``window`` seconds.
    per_private: int = 20
    window: float = 60.0
    clock: Callable[[], float] = time.monotonic
    #: Entries of each kind kept at most.
    remembered: int = REMEMBERED
    #: When each reply last went into each group; the least recently sent first.
    _sent: OrderedDict[tuple[int, str], float] = field(default_factory=OrderedDict)
    #: The moments counted for each person in each chat, and for each chat; the least
    #: recently counted first.
    _users: OrderedDict[tuple[int, int], deque[float]] = field(default_factory=OrderedDict)
    _chats: OrderedDict[int, deque[float]] = field(default_factory=OrderedDict)
    #: Whom the log was told about being held back (until he is answered again).
    _told: OrderedDict[tuple[int, int], None] = field(default_factory=OrderedDict)

    def admit(self, chat_id: int, user_id: int, key: str) -> Verdict:
        """Whether the reply ``key`` (what it says: ``"help"``, ``"rules:rank"``…) asked for
        by ``user_id`` goes into ``chat_id`` now; counted if it does."""
        now = self.clock()
        self._forget(now)
        last = self._sent.get((chat_id, key))
        if last is not None and now - last < self.window:
            return Verdict.DUPLICATE
        asker = (chat_id, user_id)
        refused = self._refusal(chat_id, user_id, now)
        if refused is not None:
            if asker not in self._told:
                _touch(self._told, asker, None, self.remembered)
                logger.info(
                    "Replies to user %s in chat %s held back for now (%s)",
                    user_id,
                    chat_id,
                    "the group's fill" if refused is Verdict.GROUP_FULL else "his share",
                )
            return refused
        self._told.pop(asker, None)
        if chat_id < 0:  # in a private chat, the same reply twice is what its owner asked
            _touch(self._sent, (chat_id, key), now, self.remembered)
        return Verdict.SEND

    def allow(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` may do one more counted thing in ``chat_id`` now (open or
        cancel a lobby); counted if he may."""
        now = self.clock()
        self._forget(now)
        return self._take(chat_id, user_id, now)

    def _take(self, chat_id: int, user_id: int, now: float) -> bool:
        """Count one for the person and the chat, if both are under their limits."""
        return self._refusal(chat_id, user_id, now) is None

    def _refusal(self, chat_id: int, user_id: int, now: float) -> Verdict | None:
        """Count one for the person and the chat, if both are under their limits; else say
        which is not (:attr:`Verdict.TOO_MANY`: his; :attr:`Verdict.GROUP_FULL`: the
        group's)."""
        mine = self._users.get((chat_id, user_id)) or deque()
        chat = self._chats.get(chat_id) or deque()
        for calls in (mine, chat):
            while calls and calls[0] <= now - self.window:
                calls.popleft()
        private = chat_id > 0
        limit = self.per_private if private else self.per_user
        if len(mine) >= limit:
            return Verdict.TOO_MANY
        if not private and len(chat) >= self.per_chat:
            return Verdict.GROUP_FULL
        mine.append(now)
        chat.append(now)
        _touch(self._users, (chat_id, user_id), mine, self.remembered)
        _touch(self._chats, chat_id, chat, self.remembered)
        return None

    def _forget(self, now: float) -> None:
        """Forget what has left the window, least recently touched first (each entry once:
        O(1) a call)."""
        since = now - self.window
        for moments in (self._users, self._chats):
            while moments:
                calls = next(iter(moments.values()))
                if calls and calls[-1] > since:
                    break
                moments.popitem(last=False)
        while self._sent and next(iter(self._sent.values())) <= since:
            self._sent.popitem(last=False)


def _touch(entries: OrderedDict[Key, Value], key: Key, value: Value, size: int) -> None:
    """Set ``key``, as the most recently touched; past ``size`` entries, forget the least
    recently touched."""
    entries[key] = value
    entries.move_to_end(key)
    while len(entries) > size:
        entries.popitem(last=False)
