"""The inbox as the rest of the bot sees it: updates taken (stored before Telegram hears they
arrived), handed to the leader in order, marked handled; and the leader's budget written
behind its calls. See :mod:`bot.storage.inbox`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.database import Database
from bot.storage.inbox import APP_CHANNEL, AlreadyHandled, Calls, Inbox, Stored, handling, notify

__all__ = [
    "APP_CHANNEL",
    "AlreadyHandled",
    "InboxService",
    "Stored",
    "Taken",
    "chat_of",
    "handling",
]

#: Handled updates are kept this long (Telegram redelivers a webhook post for a day at most).
KEEP_HANDLED = 2 * 86_400.0
#: The calls the next leader needs: the longest of Telegram's windows (a group's minute).
KEEP_CALLS = 120.0
#: The earlier updates of its chats a take lists at most (more: a backlog, read in order).
EARLIER_LIMIT = 500

#: Fields of an update that carry a message (its chat orders the update).
_MESSAGE_FIELDS = (
    "message",
    "edited_message",
    "channel_post",
    "edited_channel_post",
    "business_message",
    "my_chat_member",
    "chat_member",
    "chat_join_request",
    # A press made in the Mini App (an update of the bot's own making): its player's chat.
    "cardroom_app",
)


def chat_of(payload: Mapping[str, Any]) -> int | None:
    """The chat an update comes from (its updates are handled in order): the chat of its
    message, of the message a button was pressed on, or the presser's own for a button on a
    message the bot cannot see; ``None`` for one from no chat."""
    for field in _MESSAGE_FIELDS:
        part = payload.get(field)
        if isinstance(part, Mapping):
            return _id(part.get("chat"))
    press = payload.get("callback_query")
    if isinstance(press, Mapping):
        message = press.get("message")
        if isinstance(message, Mapping):
            return _id(message.get("chat"))
        return _id(press.get("from"))
    return None


def _id(part: Any) -> int | None:
    value = part.get("id") if isinstance(part, Mapping) else None
    return value if isinstance(value, int) else None


@dataclass(frozen=True, slots=True)
class Taken:
    """Updates just stored (``new``), and the updates of their chats stored before them and
    not handled yet (``earlier``: update id, chat id, lowest first; ``None``: more than
    :data:`EARLIER_LIMIT`)."""

    new: list[Stored]
    earlier: list[tuple[int, int]] | None


class InboxService:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def take(self, payloads: Iterable[Mapping[str, Any]]) -> list[Stored]:
        """Store updates (each must carry an integer ``update_id``); those not stored before,
        committed when this returns."""
        return (await self._take(payloads, earlier=False)).new

    async def take_with_earlier(self, payloads: Iterable[Mapping[str, Any]]) -> Taken:
        """:meth:`take`, and in the same transaction the updates of the new ones' chats stored
        before them (by any process) and not handled yet — the leader hands an update over
        only after those of its chat."""
        return await self._take(payloads, earlier=True)

    async def _take(self, payloads: Iterable[Mapping[str, Any]], *, earlier: bool) -> Taken:
        updates = [Stored(p["update_id"], chat_of(p), dict(p)) for p in payloads]
        before: list[tuple[int, int]] | None = []
        # Durable: Telegram is told next that they arrived, and never sends them again.
        async with self.db.transaction(durable=True) as session:
            inbox = Inbox(session)
            new = [updates[i] for i in await inbox.take(updates, self.clock())]
            chats = sorted({u.chat_id for u in new if u.chat_id is not None})
            if earlier and chats:
                ids = {u.update_id for u in new}
                unhandled = await inbox.unhandled_of(chats, max(ids), EARLIER_LIMIT + len(ids) + 1)
                before = [
                    (update_id, chat) for update_id, chat in unhandled if update_id not in ids
                ]
        if before is not None and len(before) > EARLIER_LIMIT:
            before = None
        return Taken(new, before)

    async def pending(self, limit: int, after: int | None = None) -> list[Stored]:
        """A page of the updates not handled yet, in ``update_id`` order (after ``after``)."""
        async with self.db.transaction() as session:
            return await Inbox(session).pending(limit, after)

    async def done(self, update_ids: Sequence[int]) -> None:
        async with self.db.transaction() as session:
            await Inbox(session).done(update_ids, self.clock())

    async def oldest(self) -> float | None:
        """When the oldest update not handled yet was taken (``None``: none waits)."""
        async with self.db.transaction() as session:
            return await Inbox(session).oldest_waiting()

    async def lag(self) -> float:
        """Seconds the oldest update not handled yet has waited (0: none waits)."""
        oldest = await self.oldest()
        return 0.0 if oldest is None else max(0.0, self.clock() - oldest)

    async def tidy(self) -> None:
        """Forget updates handled long ago and calls older than any window."""
        now = self.clock()
        async with self.db.transaction() as session:
            await Inbox(session).forget_handled(now - KEEP_HANDLED)
            calls = Calls(session)
            await calls.forget(await calls.now() - KEEP_CALLS)

    @property
    def shared(self) -> bool:
        """Whether other processes may share the database (and hear :meth:`announce`)."""
        return not self.db.is_sqlite

    async def announce(self, channel: str, payload: str) -> None:
        """Tell the processes listening on ``channel`` (nothing to do on SQLite: one process)."""
        if self.shared:
            async with self.db.transaction() as session:
                await notify(session, channel, payload)

    async def record_calls(
        self, calls: Sequence[tuple[int, float]], clock: Callable[[], float]
    ) -> None:
        """Write the calls made into chats (chat id, when by ``clock``: this process' own,
        its event loop's) by the database's clock: read once, beside ``clock``, each call is
        as old by the one as by the other. Another machine's clock may be off by seconds."""
        async with self.db.transaction() as session:
            journal = Calls(session)
            offset = await journal.now() - clock()
            await journal.record([(chat, at + offset) for chat, at in calls])

    async def recent_calls(
        self, seconds: float, clock: Callable[[], float]
    ) -> list[tuple[int, float]]:
        """The calls made into chats in the last ``seconds`` by the database's clock, whoever
        made them (chat id, when by ``clock``, this process' own)."""
        async with self.db.transaction() as session:
            journal = Calls(session)
            database_now = await journal.now()
            offset = database_now - clock()
            calls = await journal.since(database_now - seconds)
        return [(chat, at - offset) for chat, at in calls]
