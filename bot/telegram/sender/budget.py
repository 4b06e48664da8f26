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
first, then other panels, then group tables and results, lobbies, informational replies last;
within a priority, by *fair shares*: each call says whose it is (a game, a forum topic), and the
share served longest ago in its chat goes first — so a topic or a game that asks a lot waits
for its own calls, not the others'. While a game is played in a group, informational replies
may use only part of its window (:attr:`Limits.reply_calls`), so the game keeps the rest; a
group where no game message has gone for :attr:`Limits.play_memory` seconds has no game to
keep it for, and its answers may use the whole window but the few calls a new game's first
messages need at once (:attr:`Limits.quiet_reserve`).

A group's game messages — tables, lobbies, results — are moreover *paced*: at most one in
any :attr:`CallBudget.pace` seconds in a group, so that a table moves steadily rather than in
bursts that fill the window, and the game that needs the next one gets it (by priority, then
fair shares) — never two games' tables waking at the same moment and both going.

Nobody waits here but the sender's own tasks (:mod:`bot.telegram.sender`): a handler never
awaits :meth:`CallBudget.take`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

logger = logging.getLogger(__name__)

#: Chats (and shares of chats) remembered before those gone quiet are forgotten — a chat
#: whose calls have all left its windows, and which Telegram has not paused, is as good as
#: one never seen. What is left is at most the chats called within a minute (the bot's own
#: window lets about 1,600 calls through in a minute), and the next sweep waits until there
#: are twice as many again: memory stays bounded, and sweeping costs each call O(1).
QUIET_SWEEP: Final = 10_000


class Priority(IntEnum):
    """Who goes first when calls wait for the same window (lower first)."""

    #: The panel of a player whose decision it is now: he must act, and his clock runs.
    TURN = 0
    #: Any other panel (the mover's cards after his move, a waiting player's hand).
    PANEL = 1
    #: A group's table, a game's start and its result.
    TABLE = 2
    #: A lobby's message: who has joined, the options (each press is answered by a toast
    #: at once, so the message may follow the game tables of its group).
    LOBBY = 3
    #: Informational replies: /help, /rules, boards, greetings.
    REPLY = 4


@dataclass(frozen=True, slots=True)
class Limits:
    """The windows a :class:`CallBudget` keeps, a little inside Telegram's own."""

    #: Calls in any ``group_window`` seconds in one group (Telegram: 20 a minute).
    group_calls: int = 18
    group_window: float = 60.0
    #: Of those, calls informational replies may use at most while a game is played in the
    #: group; and they go only while this many more are free for the game's own messages (a
    #: reply never takes the place a table edit due in a moment will need).
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
    #: Seconds a group counts as playing after its last game message (a table, a lobby, a
    #: result) went: twice a window, longer than a turn waits by default, so a live table
    #: whose players think is never taken for a quiet group.
    play_memory: float = 120.0
    #: In a group that is not playing, calls its answers leave free: a lobby opened right
    #: after them, and its first change, go at once.
    quiet_reserve: int = 2

    @classmethod
    def unlimited(cls) -> Limits:
        """No limit worth the name: for a Bot API that has none (tests of other things)."""
        many = 10**9
        return cls(many, 1.0, many, 0, many, 1.0, many, 1.0)

    def playing(self, last_game_call: float, now: float) -> bool:
        """Whether a group whose last game message went at ``last_game_call`` is playing."""
        return now - last_game_call < self.play_memory


@dataclass(slots=True)
class Ticket:
    """A call's place in the queue, whose priority may rise while it waits (a panel whose
    player has just been given the move); see :meth:`CallBudget.reorder`.

    ``share`` says whose call it is within its chat (a game, a forum topic): at the same
    priority, the share of the chat served longest ago goes first.
    """

    priority: Priority
    share: Hashable = None
    #: A game message in a group (a table, a lobby, a result) keeps the group's pace; a call
    #: that is no such message (deleting a table's old copy) does not.
    paced: bool = True


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
    #: When the last paced call (a game message) went, the one before it, and whether the
    #: last call counted was paced (to give its moment back with :meth:`CallBudget.put_back`).
    paced_at: float = float("-inf")
    paced_before: float = float("-inf")
    last_paced: bool = False
    #: Whether the last call counted took information's share.
    last_reply: bool = False
    #: When the last game message (a table, a lobby, a result, a pin) went, and the one
    #: before it (to give the moment back with :meth:`CallBudget.put_back`).
    game_at: float = float("-inf")
    game_before: float = float("-inf")
    last_game: bool = False


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
        pace: float = 0.0,
    ) -> None:
        self.limits = limits or Limits()
        self.by_priority = by_priority
        #: Seconds between two game messages (tables, lobbies, results) in one group.
        self.pace = pace
        self._clock = clock
        self._chats: dict[int, _Chat] = {}
        self._overall: deque[float] = deque()
        #: When each (chat, share) last had a call let through.
        self._served: dict[tuple[int, Hashable], float] = {}
        #: How many chats or shares may be remembered before the quiet ones are forgotten.
        self._sweep_at = QUIET_SWEEP
        self._waiting: list[_Waiter] = []  # in arrival order
        self._seq = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        #: Calls let through, and the longest any of them waited (for the bench and logs).
        self.granted = 0
        self.longest_wait = 0.0
        #: Nothing goes anywhere before this moment (a new leader's first second).
        self._held_until = float("-inf")
        #: When not ``None``: every call counted, as (chat id, when by :meth:`now`), for the
        #: leader to write behind (the next one starts from the same windows). Written by
        #: the database's clock: the next leader's machine may keep another time.
        self.journal: list[tuple[int, float]] | None = None

    def now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    # -- taking a turn --------------------------------------------------------------------

    async def take(self, chat_id: int, priority: Priority | Ticket) -> None:
        """Wait until a call into ``chat_id`` fits every window, and count it there."""
        ticket = priority if isinstance(priority, Ticket) else Ticket(priority)
        now = self.now()
        if not self._waiting and self._free_at(chat_id, ticket, now) <= now:
            self._count(chat_id, ticket, now)
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

    def arrived(self, chat_id: int) -> None:
        """A call let into ``chat_id`` has been answered: it counts from now, not from when
        its turn came — a stall between the two (a busy event loop, the network) must not eat
        the window's headroom, or the next call could reach Telegram too soon."""
        chat = self._chats.get(chat_id)
        if chat is not None and chat.calls:
            chat.calls[-1] = max(chat.calls[-1], self.now())

    def count_lookup(self) -> None:
        """A call that lands in no chat (``getChatMember``) was made: it counts against the
        bot's overall window, without waiting for it (its answer is awaited by a press)."""
        now = self.now()
        # Counted here, not only where calls wait: lookups alone must not pile up moments.
        while self._overall and self._overall[0] <= now - self.limits.overall_window:
            self._overall.popleft()
        self._overall.append(now)

    def put_back(self, chat_id: int) -> None:
        """A turn taken but not used (nothing to send after all): its place is free again."""
        chat = self._chats.get(chat_id)
        if chat is not None and chat.calls:
            chat.calls.pop()
            if chat.last_paced:
                chat.paced_at, chat.last_paced = chat.paced_before, False
            if chat.last_reply and chat.replies:
                chat.replies.pop()
                chat.last_reply = False
            if chat.last_game:
                chat.game_at, chat.last_game = chat.game_before, False
        if self._overall:
            self._overall.pop()
        self.granted -= 1
        self._dispatch()

    def restore(self, calls: list[tuple[int, float]]) -> None:
        """Count the calls a previous leader made (chat id, when by :meth:`now`, told from
        the database's clock) as if made here: a new leader keeps the same windows."""
        now = self.now()
        for chat_id, at in calls:
            moment = min(now, at)
            chat = self._chat(chat_id)
            chat.calls.append(moment)
            self._overall.append(moment)
        for chat in self._chats.values():
            chat.calls = deque(sorted(chat.calls))
        self._overall = deque(sorted(self._overall))
        self._keep_small(now)

    def hold(self, seconds: float) -> None:
        """Let nothing through for ``seconds``: the calls a previous leader made in its last
        moments may not be known (written behind them), and a private chat's window is a
        second."""
        self._held_until = max(self._held_until, self.now() + seconds)
        self._dispatch()

    def pause(self, chat_id: int, seconds: float) -> None:
        """Telegram refused a call (429) and asked to wait: nothing goes to the chat before."""
        now = self.now()
        chat = self._chat(chat_id)
        chat.paused_until = max(chat.paused_until, now + seconds)
        self._keep_small(now)

    def paused(self, chat_id: int) -> float:
        """Seconds the chat is still paused for (0: not paused)."""
        chat = self._chats.get(chat_id)
        return max(0.0, chat.paused_until - self.now()) if chat is not None else 0.0

    def served_at(self, chat_id: int, share: Hashable) -> float:
        """When ``share`` last had a call into ``chat_id`` let through (-inf: not lately)."""
        return self._served.get((chat_id, share), float("-inf"))

    def reorder(self) -> None:
        """A waiting call's ticket changed priority: serve the queue in its new order."""
        if self._waiting:
            self._dispatch()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    # -- the windows ----------------------------------------------------------------------

    def free_at(self, chat_id: int, priority: Priority) -> float:
        """The earliest moment a call of ``priority`` into ``chat_id`` could go, were nothing
        else waiting: past it, a call that must go sooner will not."""
        return self._free_at(chat_id, Ticket(priority), self.now())

    def _paced(self, chat_id: int, ticket: Ticket) -> bool:
        return (
            chat_id < 0
            and ticket.paced
            and ticket.priority in (Priority.TABLE, Priority.LOBBY)
            and self.pace > 0
        )

    def _free_at(self, chat_id: int, ticket: Ticket, now: float, *, paced: bool = True) -> float:
        """The earliest moment a call of ``priority`` into ``chat_id`` fits every window
        (and its pace, unless ``paced`` is false).

        In a group, a table goes on the game's pace; information in its share of the window;
        a lobby either way — so that while a game's table waits for its pace, a lobby of
        another topic takes information's share, never the table's moment.
        """
        limits = self.limits
        priority = ticket.priority
        at = _window_free(self._overall, limits.overall_calls, limits.overall_window, now)
        at = max(at, self._held_until)
        chat = self._chats.get(chat_id)
        if chat is None:
            return at
        at = max(at, chat.paused_until)
        if chat_id > 0:
            window = _window_free(chat.calls, limits.private_calls, limits.private_window, now)
            return max(at, window)
        at = max(at, _window_free(chat.calls, limits.group_calls, limits.group_window, now))
        if priority < Priority.LOBBY:
            return (
                max(at, chat.paced_at + self.pace)
                if paced and self._paced(chat_id, ticket)
                else at
            )
        if limits.playing(chat.game_at, now):
            share = _window_free(chat.replies, limits.reply_calls, limits.group_window, now)
            reserve = limits.reply_reserve
        else:
            # No game to keep the window for: its answers may have it all but the reserve.
            share, reserve = now, min(limits.quiet_reserve, limits.reply_reserve)
        spare = _window_free(chat.calls, limits.group_calls - reserve, limits.group_window, now)
        information = max(at, share, spare)
        if priority >= Priority.REPLY:
            return information
        # A lobby keeps the game's pace only in a group whose game messages have been quiet
        # for two paces: never the moment a busy table is about to need.
        game = (
            max(at, chat.paced_at + 2 * self.pace)
            if paced and self._paced(chat_id, ticket)
            else at
        )
        return min(game, information)

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat()
        return chat

    def _count(self, chat_id: int, ticket: Ticket, now: float) -> None:
        chat = self._chat(chat_id)
        # A lobby takes information's share when it has room, and keeps the game's pace.
        informational = chat_id < 0 and (
            ticket.priority >= Priority.REPLY
            or (
                ticket.priority == Priority.LOBBY
                and self._free_at(chat_id, _INFORMATION, now) <= now
            )
        )
        chat.calls.append(now)
        chat.last_reply = informational
        if informational:
            chat.replies.append(now)
        chat.last_paced = not informational and self._paced(chat_id, ticket)
        if chat.last_paced:
            chat.paced_before, chat.paced_at = chat.paced_at, now
        chat.last_game = chat_id < 0 and ticket.priority < Priority.REPLY
        if chat.last_game:
            chat.game_before, chat.game_at = chat.game_at, now
        self._served[chat_id, ticket.share] = now
        if self.journal is not None:
            self.journal.append((chat_id, now))
        self._overall.append(now)
        self.granted += 1
        self._keep_small(now)

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
        #: Chats whose next game message waits for its pace: other calls may go meanwhile.
        pacing: set[int] = set()
        kept: list[_Waiter] = []
        queue = self._in_turn() if self.by_priority else self._waiting
        for waiter in queue:
            if waiter.future.done():
                continue
            priority = waiter.ticket.priority
            paced = self._paced(waiter.chat_id, waiter.ticket)
            if waiter.chat_id in blocked:
                kept.append(waiter)  # one before it in this chat waits: so does it
                continue
            if paced and waiter.chat_id in pacing:
                # A table before it waits for the game's pace: a lobby may take
                # information's share meanwhile, a table waits its turn.
                if priority == Priority.LOBBY:
                    at = self._free_at(waiter.chat_id, _INFORMATION, now)
                    if at <= now:
                        self._count(waiter.chat_id, waiter.ticket, now)
                        waiter.future.set_result(None)
                        continue
                    soonest = min(soonest, at)
                kept.append(waiter)
                continue
            at = self._free_at(waiter.chat_id, waiter.ticket, now)
            if at <= now:
                self._count(waiter.chat_id, waiter.ticket, now)
                waiter.future.set_result(None)
                continue
            soonest = min(soonest, at)
            if paced and self._free_at(waiter.chat_id, waiter.ticket, now, paced=False) <= now:
                pacing.add(waiter.chat_id)
            else:
                blocked.add(waiter.chat_id)
            kept.append(waiter)
        kept.sort(key=lambda waiter: waiter.seq)
        self._waiting = kept
        if kept:
            loop = asyncio.get_running_loop()
            self._timer_at = soonest
            self._timer = loop.call_at(loop.time() + max(0.0, soonest - now), self._dispatch)

    def _in_turn(self) -> list[_Waiter]:
        """The waiting calls in the order they are served: by priority, then as they came —
        except that within a chat and a priority the turns go to the shares served longest
        ago (a game, a topic), whichever of them asked first."""
        places = sorted(self._waiting, key=lambda w: (int(w.ticket.priority), w.seq))
        fair: dict[tuple[int, int], deque[_Waiter]] = {}
        for waiter in sorted(self._waiting, key=self._fair_rank):
            fair.setdefault((waiter.chat_id, int(waiter.ticket.priority)), deque()).append(waiter)
        return [fair[w.chat_id, int(w.ticket.priority)].popleft() for w in places]

    def _fair_rank(self, waiter: _Waiter) -> tuple[int, float, int]:
        """Within a chat and a priority: the share served longest ago, then arrival."""
        served = self._served.get((waiter.chat_id, waiter.ticket.share), float("-inf"))
        return int(waiter.ticket.priority), served, waiter.seq

    def _keep_small(self, now: float) -> None:
        if max(len(self._chats), len(self._served)) > self._sweep_at:
            self._forget_quiet(now)

    def _forget_quiet(self, now: float) -> None:
        """Forget the chats whose calls have left every window (and their pace) and that are
        not playing, and the shares not served within a group's window (which then rank as
        never served: behind none that was, as before)."""
        limits = self.limits
        quiet_since = now - max(limits.group_window, limits.private_window, 2 * self.pace)
        self._chats = {
            chat_id: chat
            for chat_id, chat in self._chats.items()
            if chat.paused_until > now
            or (chat.calls and chat.calls[-1] > quiet_since)
            or limits.playing(chat.game_at, now)
        }
        self._served = {
            key: at for key, at in self._served.items() if at > now - limits.group_window
        }
        self._sweep_at = max(QUIET_SWEEP, 2 * max(len(self._chats), len(self._served)))


#: A call in information's share of a group's window.
_INFORMATION = Ticket(Priority.REPLY)


def _window_free(calls: deque[float], limit: int, window: float, now: float) -> float:
    """When one more call fits: ``limit`` calls at most in any ``window`` seconds."""
    while calls and calls[0] <= now - window:
        calls.popleft()
    if limit <= 0:
        return float("inf")
    if len(calls) < limit:
        return now
    return calls[len(calls) - limit] + window
