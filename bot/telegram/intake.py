"""The intake: updates in. They are handled side by side (:class:`Intake`, python-telegram-bot's
update processor, which counts how many are in hand), and each person's presses are limited
(:class:`PressThrottle`): one user hammering buttons does not slow anybody else down, and a
finger's double tap is one press.

No handler waits for a chat's budget (the sender does), so an update is in hand only as long as
its decision takes: a storm of presses keeps few of them in hand at once.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

from telegram.ext import BaseUpdateProcessor

from bot.services.inbox import AlreadyHandled, handling
from bot.services.outbox import Letter, collecting

logger = logging.getLogger(__name__)

#: Updates handled at once at most (python-telegram-bot's default for concurrent updates).
MAX_IN_HAND = 256


class Intake(BaseUpdateProcessor):
    """Handles updates side by side, up to :data:`MAX_IN_HAND` at once, counting them.

    An update from the inbox (:meth:`from_inbox`) is handled as such: its first write marks
    it handled in the same transaction, and :attr:`on_handled` hears when it is done (the
    inbox's reader then hands over the next update of its chat: one chat's updates are
    handled one after another, and one waiting for its chat holds no place here).
    """

    def __init__(self, max_in_hand: int = MAX_IN_HAND) -> None:
        super().__init__(max_in_hand)
        #: The most updates that were in hand at once, and how many were handled in all.
        self.most_in_hand = 0
        self.handled = 0
        self._stored: set[int] = set()
        #: Told the id of each update from the inbox once it has been handled.
        self.on_handled: Callable[[int], None] | None = None
        #: Writes what an update's handler said (its letters), when the handler is done.
        self.record: Callable[[list[Letter]], Awaitable[None]] | None = None

    def from_inbox(self, update_id: int) -> None:
        """The update with this id comes from the inbox (it is marked handled as it goes)."""
        self._stored.add(update_id)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        self.most_in_hand = max(self.most_in_hand, self.current_concurrent_updates)
        update_id = getattr(update, "update_id", None)
        stored = update_id if isinstance(update_id, int) and update_id in self._stored else None
        try:
            with contextlib.nullcontext() if stored is None else handling(stored):
                with collecting() as letters:
                    await coroutine
                await self._record(letters)
        finally:
            self.handled += 1
            if stored is not None:
                self._stored.discard(stored)
                if self.on_handled is not None:
                    self.on_handled(stored)

    async def _record(self, letters: list[Letter]) -> None:
        """Write what the handler said, in one transaction — the one that marks the update
        handled, if none of the handler's writes did (a reply to a redelivered update it
        marked before is written no second time). The writer says what it cannot write
        anyway (:meth:`~bot.telegram.sender.outbox.Outbox.record`)."""
        if not letters or self.record is None:
            return
        try:
            await self.record(letters)
        except AlreadyHandled as handled:
            # A redelivery of an update handled before: its answers went then.
            logger.info("Update %s was answered before", handled.update_id)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


#: A person's press this soon after his previous one is the same tap twice (a double tap, or
#: a tap the client repeated) — or a second button hit before the first one's answer could be
#: read: nobody reads an answer and aims again as fast.
DOUBLE_TAP_SECONDS = 0.35


class PressThrottle:
    """A token bucket per user: ``burst`` presses at once, then ``rate`` per second; and a
    person's presses on the same thing within ``double_tap`` seconds of the one that counted
    count once (:meth:`repeated`)."""

    def __init__(
        self,
        burst: int = 8,
        rate: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
        double_tap: float = DOUBLE_TAP_SECONDS,
    ) -> None:
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self.double_tap = double_tap
        self._buckets: dict[int, _Bucket] = {}
        #: When each person's last press that counted came, by what he pressed.
        self._last: dict[tuple[int, Hashable], float] = {}

    def repeated(self, user_id: int, what: Hashable) -> bool:
        """Whether this press comes within ``double_tap`` seconds of the person's last one
        that counted on ``what`` (it is then answered and dropped): ``what`` is a game's
        panel for any of its moves — in Davay-ka! a second tap, on the same pile or another,
        would play a card the player has not seen — or one button for anything else. The
        window runs from the press that counted: tapping on does not stretch it."""
        now = self.clock()
        key = (user_id, what)
        last = self._last.get(key)
        if last is not None and now - last < self.double_tap:
            return True
        self._last[key] = now
        if len(self._last) > 10_000:
            self._last = {k: at for k, at in self._last.items() if now - at < self.double_tap}
        return False

    def allow(self, user_id: int) -> bool:
        """Take one press from the user's bucket; False when it is empty."""
        now = self.clock()
        bucket = self._buckets.get(user_id)
        if bucket is None:
            bucket = self._buckets[user_id] = _Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if len(self._buckets) > 10_000:
            self._forget_idle(now)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def _forget_idle(self, now: float) -> None:
        full = self.burst / self.rate
        for user_id in [u for u, b in self._buckets.items() if now - b.at > full]:
            del self._buckets[user_id]
