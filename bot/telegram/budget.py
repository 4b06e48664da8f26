"""Telegram's flood limits as a strict budget: every call that lands in a chat waits its turn.

Telegram allows a bot about 20 messages in any 60 seconds in one group (sends and edits
alike), about one a second in one private chat, and about 30 a second in all. Those are
sliding windows, not buckets: a burst of 20 followed by one every 3 s puts 40 calls in a
minute, and the 21st is refused with 429. So :class:`CallBudget` keeps, per chat and for the
whole bot, the moments of the calls it let through, and lets a new one through only when the
window — with some headroom, :class:`Limits` — has room. A 429 is then an exception, not the
way the bot learns its limits: when one still comes (another process, Telegram's own
accounting), :meth:`CallBudget.pause` stops that chat for the time Telegram asked.

Waiting calls go in order of :class:`Priority` — the panel of the player whose decision it is
first, then other panels, then group tables and results, informational replies last — first
come, first served within a priority; informational replies may moreover use only part of a
group's window (:attr:`Limits.reply_calls`), so the game keeps the rest.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

logger = logging.getLogger(__name__)


class Priority(IntEnum):
    """Who goes first when calls wait for the same window (lower first)."""

    #: The panel of a player whose decision it is now: he must act, and his clock runs.
    TURN = 0
    #: Any other panel (the mover's cards after his move, a waiting player's hand).
    PANEL = 1
    #: A group's table, a game's start and its result.
    TABLE = 2
    #: Informational replies: /help, /rules, boards, greetings.
    REPLY = 3


@dataclass(frozen=True, slots=True)
class Limits:
    """The windows a :class:`CallBudget` keeps, a little inside Telegram's own."""

    #: Calls in any ``group_window`` seconds in one group (Telegram: 20 a minute).
    group_calls: int = 18
    group_window: float = 60.0
    #: Of those, calls informational replies may use at most; and they go only while this
    #: many more are free for the game's own messages (a reply never takes the place a table
    #: edit due in a moment will need).
    reply_calls: int = 4
    reply_reserve: int = 6
    #: Calls in any ``private_window`` seconds in one private chat (Telegram: about one a
    #: second; a little more than a second apart, since calls do not reach Telegram in
    #: exactly the rhythm they leave).
    private_calls: int = 1
    private_window: float = 1.1
    #: Calls in any ``overall_window`` seconds in all chats (Telegram: about 30 a second; the
    #: window a little longer, since calls let through together do not arrive together).
    overall_calls: int = 28
    overall_window: float = 1.05

    @classmethod
    def unlimited(cls) -> Limits:
        """No limit worth the name: for a Bot API that has none (tests of other things)."""
        many = 10**9
        return cls(many, 1.0, many, 0, many, 1.0, many, 1.0)


@dataclass(slots=True)
class Ticket:
    """A call's place in the queue, whose priority may rise while it waits (a panel whose
    player has just been given the move); see :meth:`CallBudget.reorder`."""

    priority: Priority


@dataclass(slots=True)
class _Waiter:
    seq: int
    ticket: Ticket
    chat_id: int
    future: asyncio.Future[None]


@dataclass(slots=True)
class _Chat:
    """One chat's calls in its window, and Telegram's own pause, if it asked for one."""

    calls: deque[float] = field(default_factory=deque)
    replies: deque[float] = field(default_factory=deque)
    paused_until: float = 0.0


class CallBudget:
    """Lets calls into chats through only inside strict sliding windows, by priority.

    ``by_priority=False`` serves waiting calls first come, first served (a baseline for the
    benchmark: the same windows without the order).
    """

    def __init__(
        self,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
        *,
        by_priority: bool = True,
    ) -> None:
        self.limits = limits or Limits()
        self.by_priority = by_priority
        self._clock = clock
        self._chats: dict[int, _Chat] = {}
        self._overall: deque[float] = deque()
        self._waiting: list[_Waiter] = []  # in arrival order
        self._seq = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        #: Calls let through, and the longest any of them waited (for the bench and logs).
        self.granted = 0
        self.longest_wait = 0.0

    def now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    # -- taking a turn --------------------------------------------------------------------

    async def take(self, chat_id: int, priority: Priority | Ticket) -> None:
        """Wait until a call into ``chat_id`` fits every window, and count it there."""
        ticket = priority if isinstance(priority, Ticket) else Ticket(priority)
        now = self.now()
        if not self._waiting and self._free_at(chat_id, ticket.priority, now) <= now:
            self._count(chat_id, ticket.priority, now)
            return
        future = asyncio.get_running_loop().create_future()
        waiter = _Waiter(next(self._seq), ticket, chat_id, future)
        self._waiting.append(waiter)
        self._dispatch()
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                self.put_back(chat_id)  # granted just as it was cancelled: not used
            self._waiting = [w for w in self._waiting if w is not waiter]
            raise
        wait = self.now() - now
        self.longest_wait = max(self.longest_wait, wait)

    def put_back(self, chat_id: int) -> None:
        """A turn taken but not used (nothing to send after all): its place is free again."""
        chat = self._chats.get(chat_id)
        if chat is not None and chat.calls:
            chat.calls.pop()
        if self._overall:
            self._overall.pop()
        self.granted -= 1
        self._dispatch()

    def pause(self, chat_id: int, seconds: float) -> None:
        """Telegram refused a call (429) and asked to wait: nothing goes to the chat before."""
        chat = self._chats.setdefault(chat_id, _Chat())
        chat.paused_until = max(chat.paused_until, self.now() + seconds)

    def paused(self, chat_id: int) -> float:
        """Seconds the chat is still paused for (0: not paused)."""
        chat = self._chats.get(chat_id)
        return max(0.0, chat.paused_until - self.now()) if chat is not None else 0.0

    def reorder(self) -> None:
        """A waiting call's ticket changed priority: serve the queue in its new order."""
        if self._waiting:
            self._dispatch()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    # -- the windows ----------------------------------------------------------------------

    def _free_at(self, chat_id: int, priority: Priority | int, now: float) -> float:
        """The earliest moment a call of ``priority`` into ``chat_id`` fits every window."""
        limits = self.limits
        at = _window_free(self._overall, limits.overall_calls, limits.overall_window, now)
        chat = self._chats.get(chat_id)
        if chat is None:
            return at
        at = max(at, chat.paused_until)
        if chat_id < 0:
            at = max(at, _window_free(chat.calls, limits.group_calls, limits.group_window, now))
            if priority >= Priority.REPLY:
                share = _window_free(chat.replies, limits.reply_calls, limits.group_window, now)
                room = limits.group_calls - limits.reply_reserve
                spare = _window_free(chat.calls, room, limits.group_window, now)
                at = max(at, share, spare)
        else:
            at = max(
                at, _window_free(chat.calls, limits.private_calls, limits.private_window, now)
            )
        return at

    def _count(self, chat_id: int, priority: Priority | int, now: float) -> None:
        chat = self._chats.setdefault(chat_id, _Chat())
        chat.calls.append(now)
        if chat_id < 0 and priority >= Priority.REPLY:
            chat.replies.append(now)
        self._overall.append(now)
        self.granted += 1
        if len(self._chats) > 10_000:
            self._forget_quiet(now)

    def _dispatch(self) -> None:
        """Let through every waiting call that fits now, in order; wake up when the next
        one will."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._waiting:
            return
        now = self.now()
        soonest = float("inf")
        blocked: set[int] = set()
        kept: list[_Waiter] = []
        queue = sorted(self._waiting, key=self._rank) if self.by_priority else self._waiting
        for waiter in queue:
            if waiter.future.done():
                continue
            priority = waiter.ticket.priority
            if waiter.chat_id in blocked:
                kept.append(waiter)  # one before it in this chat waits: so does it
                continue
            at = self._free_at(waiter.chat_id, priority, now)
            if at <= now:
                self._count(waiter.chat_id, priority, now)
                waiter.future.set_result(None)
                continue
            soonest = min(soonest, at)
            blocked.add(waiter.chat_id)
            kept.append(waiter)
        kept.sort(key=lambda waiter: waiter.seq)
        self._waiting = kept
        if kept:
            loop = asyncio.get_running_loop()
            self._timer_at = soonest
            self._timer = loop.call_at(loop.time() + max(0.0, soonest - now), self._dispatch)

    @staticmethod
    def _rank(waiter: _Waiter) -> tuple[int, int]:
        return int(waiter.ticket.priority), waiter.seq

    def _forget_quiet(self, now: float) -> None:
        quiet = [
            chat_id
            for chat_id, chat in self._chats.items()
            if chat.paused_until <= now
            and (not chat.calls or chat.calls[-1] <= now - self.limits.group_window)
        ]
        for chat_id in quiet:
            del self._chats[chat_id]


def _window_free(calls: deque[float], limit: int, window: float, now: float) -> float:
    """When one more call fits: ``limit`` calls at most in any ``window`` seconds."""
    while calls and calls[0] <= now - window:
        calls.popleft()
    if len(calls) < limit:
        return now
    return calls[len(calls) - limit] + window
