"""The outbox: what the bot decided to say, written in the transaction that decides it.

A row is added beside the decision (:meth:`Letters.add`, with the decision's session), read
back by the leader's sender in the order it was written (:meth:`Letters.pending`), and marked
delivered with what became of it (:meth:`Letters.settle`). The transaction that adds one says
so in its session's ``info`` (:data:`WRITTEN`): once it commits, the database wakes whoever
delivers (:attr:`bot.storage.database.Database.on_letters`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.storage.models import LetterRow

#: The session ``info`` key a transaction that added letters sets.
WRITTEN = "cardroom_letters"

_OUTBOX: Table = LetterRow.__table__  # type: ignore[assignment]
# On the table, not the mapped class: an ORM UPDATE with a WHERE of its own cannot take many
# rows' parameters at once.
_SETTLE = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("letter_id"), _OUTBOX.c.delivered_at.is_(None))
    .values(
        delivered_at=bindparam("at"),
        outcome=bindparam("said"),
        message_id=bindparam("message"),
    )
)


@dataclass(frozen=True, slots=True)
class StoredLetter:
    """A row of the outbox not delivered yet."""

    id: int
    chat_id: int
    kind: str
    game_id: int | None
    body: dict[str, Any]
    created_at: float


class Letters:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(
        self,
        rows: Sequence[tuple[int, str, int | None, dict[str, Any]]],
        now: float,
    ) -> None:
        """Add letters (chat, kind, game, body), decided at ``now``."""
        if not rows:
            return
        await self.session.execute(
            insert(LetterRow),
            [
                {"chat_id": chat, "kind": kind, "game_id": game, "body": body, "created_at": now}
                for chat, kind, game, body in rows
            ],
        )
        self.session.info[WRITTEN] = True

    async def pending(self, after: int, limit: int) -> list[StoredLetter]:
        """The oldest letters not delivered yet whose id is above ``after``, in order."""
        rows = await self.session.execute(
            select(
                LetterRow.id,
                LetterRow.chat_id,
                LetterRow.kind,
                LetterRow.game_id,
                LetterRow.body,
                LetterRow.created_at,
            )
            .where(LetterRow.delivered_at.is_(None), LetterRow.id > after)
            .order_by(LetterRow.id)
            .limit(limit)
        )
        return [StoredLetter(*row) for row in rows]

    async def settle(self, outcomes: Sequence[tuple[int, str, int | None]], now: float) -> None:
        """Mark letters delivered: (id, what became of it, the message it made)."""
        if outcomes:
            await self.session.execute(
                _SETTLE,
                [
                    {"letter_id": i, "at": now, "said": said, "message": message}
                    for i, said, message in outcomes
                ],
            )

    async def forget_delivered(self, before: float) -> None:
        """Drop letters delivered before ``before``."""
        await self.session.execute(
            delete(LetterRow).where(
                LetterRow.delivered_at.is_not(None), LetterRow.delivered_at < before
            )
        )
