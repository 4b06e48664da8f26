"""Every Bot API call through Telegram's limits: python-telegram-bot's rate limiter, ours.

Only the sender's own tasks make calls that land in a chat (:mod:`bot.telegram.sender`): a
handler answers its press and hands the rest over.

Calls that land in a chat — sending, editing, deleting, pinning a message — wait for their
turn in the chat's budget (:class:`~bot.telegram.sender.budget.CallBudget`), at the priority the
caller set with :func:`calling` (an informational reply unless said otherwise). A 429 that
still arrives pauses the chat for the time Telegram asked, is logged once, and the call is
made again when the pause is over — unless its caller delivers the latest state itself and
asked to be told (the publisher: what it sends after the pause is newer than what was
refused). Other calls (a callback's answer, ``getChatMember``) are not counted against any
chat (``getChatMember`` counts against the bot's overall window, without waiting for it), but
a 429 on one is waited out too, within the call's own deadline.

Each call Telegram answers is counted by method and outcome, and the wait for a chat's budget
is measured (:mod:`bot.telegram.metrics`).

No call leaves a process that does not lead (the fence, :attr:`BudgetRateLimiter.fence`):
right before each call goes out, the leadership is asked whether this process still leads
and knows its lock alive — without a round trip — and a call it may not make fails with
:class:`NotLeading`, said once. (``getUpdates`` alone passes by any rate limiter in
python-telegram-bot: long polling is the first thing a hand-over stops, and what a poll
brings is only stored.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
from collections.abc import Callable, Coroutine, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from telegram.error import NetworkError, RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.telegram import metrics
from bot.telegram.sender.budget import CallBudget, Priority, Ticket

logger = logging.getLogger(__name__)

#: Bot API methods that put a message in a chat, change or remove one start with these.
_CHAT_METHODS = ("send", "edit", "copy", "forward", "delete", "pin", "unpin", "stop")
#: How long a call that is not a message may wait out 429s, by method (others: the default).
LOOKUP_DEADLINES = {"answerCallbackQuery": 10.0, "getChatMember": 5.0}
DEFAULT_LOOKUP_DEADLINE = 10.0
#: How long a message call waits out 429s before its caller hears of it.
MESSAGE_DEADLINE = 180.0
#: Calls any process makes, leading or not, for they change nothing anywhere: who the bot is
#: (each asks as it starts, before it may lead), and whether someone is a member of a group
#: (a standby holding the Mini App socket of someone who opened a group's game to watch).
UNFENCED = frozenset({"getMe", "getChatMember"})


class NotLeading(NetworkError):
    """The call was not made: this process does not lead (any more), and another may. To
    its caller, the work is over here — as at a stop: the next leader delivers from the
    database what was not shown. A ``NetworkError`` (the call never reached Telegram), so that
    code that knows no better treats it as a call lost on the way, not as a bug."""

    def __init__(self, endpoint: str) -> None:
        super().__init__(f"this process does not lead: {endpoint} not sent")
        self.endpoint = endpoint


def lands_in_chat(endpoint: str) -> bool:
    """Whether a Bot API call posts, changes or removes a message in a chat."""
    return endpoint.startswith(_CHAT_METHODS)


@dataclass(frozen=True, slots=True)
class CallKind:
    """How the calls made in a context take their turn."""

    priority: Priority = Priority.REPLY
    #: The caller took the budget's turn already (it renders what it sends after waiting).
    taken: bool = False
    #: A group's game message, which keeps the group's pace (see :class:`Ticket`).
    paced: bool = True


#: How a call is made where nobody said: an informational reply.
REPLY = CallKind()
_kind: ContextVar[CallKind | None] = ContextVar("call_kind", default=None)


@contextlib.contextmanager
def calling(priority: Priority, *, taken: bool = False, paced: bool = True) -> Iterator[None]:
    """Make the Bot API calls inside the block at ``priority``; ``taken``: their turn in
    the budget is taken already, and a 429 is the caller's to handle (raised at once);
    ``paced``: they are game messages, which keep a group's pace."""
    token = _kind.set(CallKind(priority, taken, paced))
    try:
        yield
    finally:
        _kind.reset(token)


class BudgetRateLimiter(BaseRateLimiter[None]):
    """python-telegram-bot's rate limiter, on a :class:`CallBudget`."""

    def __init__(self, budget: CallBudget) -> None:
        self.budget = budget
        #: Told of each message the bot sent into a chat: (chat, topic, message id) — what
        #: was there before is further up (the composition root sets the publisher's
        #: :meth:`~bot.telegram.sender.live.Publisher.seen`).
        self.on_sent: Callable[[int, int | None, int], None] | None = None
        #: Chats whose pause was logged (one line per pause, not per refused call).
        self._told: dict[int, float] = {}
        #: Whether this process may call Telegram now (leads and knows its lock alive): asked
        #: before each call; ``None``: always (one process, no leadership — tests, tools).
        self.fence: Callable[[], bool] | None = None
        #: Calls are being refused by the fence (said once, until it lets them through).
        self._fenced = False

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        chat_id = data.get("chat_id")
        answer: bool | dict[str, Any] | list[dict[str, Any]]
        if lands_in_chat(endpoint) and isinstance(chat_id, int):
            answer = await self._in_chat(callback, args, kwargs, endpoint, chat_id)
            if self.on_sent is not None and isinstance(answer, dict):
                self._sent(self.on_sent, chat_id, answer)
        else:
            if endpoint == "getChatMember":
                self.budget.count_lookup()
            answer = await self._lookup(callback, args, kwargs, endpoint)
        return answer

    async def _in_chat(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: Any,
        endpoint: str,
        chat: int,
    ) -> Any:
        kind = _kind.get() or REPLY
        started = time.monotonic()
        while True:
            if not kind.taken:
                asked = self.budget.now()
                await self.budget.take(chat, Ticket(kind.priority, paced=kind.paced))
                metrics.waited(self.budget.now() - asked)
            self._through_fence(endpoint)
            try:
                with metrics.telegram_call(endpoint):
                    answer = await callback(*args, **kwargs)
                self.budget.arrived(chat)
                return answer
            except RetryAfter as refused:
                self._refused(chat, refused)
                if kind.taken or time.monotonic() - started > MESSAGE_DEADLINE:
                    raise

    async def _lookup(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: Any,
        endpoint: str,
    ) -> Any:
        deadline = time.monotonic() + LOOKUP_DEADLINES.get(endpoint, DEFAULT_LOOKUP_DEADLINE)
        while True:
            self._through_fence(endpoint)
            try:
                with metrics.telegram_call(endpoint):
                    return await callback(*args, **kwargs)
            except RetryAfter as refused:
                wait = retry_seconds(refused)
                if time.monotonic() + wait > deadline:
                    raise
                logger.info("%s: Telegram asks to wait %.0f s; waiting", endpoint, wait)
                await asyncio.sleep(wait)

    def _through_fence(self, endpoint: str) -> None:
        """Let the call go only if this process may call Telegram; else :class:`NotLeading`
        (said once, at WARNING, until calls go through again)."""
        fence = self.fence
        if fence is None or endpoint in UNFENCED:
            return
        if fence():
            self._fenced = False
            return
        if not self._fenced:
            self._fenced = True
            logger.warning(
                "This process does not lead: its calls to Telegram are refused (%s first)",
                endpoint,
            )
        raise NotLeading(endpoint)

    @staticmethod
    def _sent(
        on_sent: Callable[[int, int | None, int], None], chat: int, answer: dict[str, Any]
    ) -> None:
        message_id = answer.get("message_id")
        if isinstance(message_id, int) and "chat" in answer:  # a message, not True
            topic = answer.get("message_thread_id") if answer.get("is_topic_message") else None
            on_sent(chat, topic, message_id)

    def _refused(self, chat: int, refused: RetryAfter) -> None:
        wait = retry_seconds(refused)
        self.budget.pause(chat, wait)
        until = self.budget.now() + wait
        if self._told.get(chat, 0.0) < self.budget.now():
            logger.warning("Telegram paused chat %s for %.0f s (429); waiting", chat, wait)
            self._told[chat] = until
            if len(self._told) > 1000:
                now = self.budget.now()
                self._told = {c: t for c, t in self._told.items() if t > now}


def retry_seconds(refused: RetryAfter) -> float:
    """The wait Telegram asked for, in seconds (PTB warns that the number will become a
    ``timedelta`` one day: either is read)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        after: Any = refused.retry_after
    return after.total_seconds() if hasattr(after, "total_seconds") else float(after)
