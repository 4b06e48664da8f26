"""The inbox as the rest of the bot sees it: updates taken (stored before Telegram hears they
arrived), handed to the leader in order, marked handled; and the leader's budget written
behind its calls. See :mod:`bot.storage.inbox`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from bot.storage.database import Database
from bot.storage.inbox import APP_CHANNEL, AlreadyHandled, Calls, Inbox, Stored, handling, notify

__all__ = ["APP_CHANNEL", "AlreadyHandled", "InboxService", "Stored", "chat_of", "handling"]

#: Handled updates are kept this long (Telegram redelivers a webhook post for a day at most).
KEEP_HANDLED = 2 * 86_400.0
#: The calls the next leader needs: the longest of Telegram's windows (a group's minute).
KEEP_CALLS = 120.0

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


class InboxService:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def take(self, payloads: Iterable[Mapping[str, Any]]) -> list[Stored]:
        """Store updates (each must carry an integer ``update_id``); those not stored before,
        committed when this returns."""
        updates = [Stored(p["update_id"], chat_of(p), dict(p)) for p in payloads]
        async with self.db.transaction() as session:
            new = await Inbox(session).take(updates, self.clock())
        return [updates[i] for i in new]

    async def pending(self, limit: int, skip: Sequence[int] = ()) -> list[Stored]:
        async with self.db.transaction() as session:
            return await Inbox(session).pending(limit, skip)

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
            await Calls(session).forget(now - KEEP_CALLS)

    @property
    def shared(self) -> bool:
        """Whether other processes may share the database (and hear :meth:`announce`)."""
        return not self.db.is_sqlite

    async def announce(self, channel: str, payload: str) -> None:
        """Tell the processes listening on ``channel`` (nothing to do on SQLite: one process)."""
        if self.shared:
            async with self.db.transaction() as session:
                await notify(session, channel, payload)

    async def record_calls(self, calls: Sequence[tuple[int, float]]) -> None:
        async with self.db.transaction() as session:
            await Calls(session).record(calls)

    async def recent_calls(self, seconds: float) -> list[tuple[int, float]]:
        """The calls made into chats in the last ``seconds`` (chat id, epoch seconds)."""
        async with self.db.transaction() as session:
            return await Calls(session).since(self.clock() - seconds)
