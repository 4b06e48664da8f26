"""The outbox: whatever the bot decides to say is written with the decision.

A *letter* is one thing to say in one chat: a Bot API call drawn already (a reply, a notice,
a tidy call: :data:`CALL`), or something drawn when it goes from what the database holds then
(a finished game's result: :data:`RESULT`; a lobby opened, for someone who waited for one:
:data:`OPENED`). A letter is written in the transaction that decides it — a game's result in
the one that finishes the game — and the leader's sender delivers it and marks it delivered.
A stop, a kill or a failover at any moment loses none: the next leader delivers what is not
marked (:meth:`OutboxService.pending`).

While an update is handled, what its handler says is collected (:func:`collecting`,
:meth:`OutboxService.post`) and written when the handler is done, in the transaction that marks
the update handled if nothing else marked it: an update that only asked for a reply is handled
and answered in one write, and a redelivery of it answers nothing twice.
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.storage.database import Database
from bot.storage.outbox import Letters

logger = logging.getLogger(__name__)

#: A Bot API call, drawn when it was decided.
CALL = "call"
#: A finished game's result (places, scores, each seat's rating before and after): drawn as it
#: goes, from the game.
RESULT = "result"
#: A lobby opened, told in his private chat to someone who asked to hear of the next one.
OPENED = "opened"
#: Letters read at once, at most.
PAGE = 500


@dataclass(frozen=True, slots=True)
class Letter:
    """One thing to say in one chat. ``body`` is JSON: what the sender needs to draw and
    send it (its call, its priority, who asked…)."""

    chat_id: int
    body: Mapping[str, Any]
    kind: str = CALL
    game_id: int | None = None


@dataclass(frozen=True, slots=True)
class PendingLetter:
    """A letter the outbox holds, not delivered yet."""

    id: int
    letter: Letter
    #: Seconds since the epoch when it was decided.
    created_at: float


@dataclass(frozen=True, slots=True)
class Settled:
    """What became of a letter: ``said`` is the sender's word for it (``"sent"``,
    ``"dropped"``…), ``message_id`` the message it made, if one."""

    letter_id: int
    said: str
    message_id: int | None = None


@dataclass(slots=True)
class _Collected:
    letters: list[Letter] = field(default_factory=list)


_COLLECTING: contextvars.ContextVar[_Collected | None] = contextvars.ContextVar(
    "cardroom_letters", default=None
)


@contextmanager
def collecting() -> Iterator[list[Letter]]:
    """Collect the letters posted in this context (an update's handling) instead of writing
    each at once; the caller writes them (:meth:`OutboxService.record`) when it is done."""
    collected = _Collected()
    token = _COLLECTING.set(collected)
    try:
        yield collected.letters
    finally:
        _COLLECTING.reset(token)


def rows_of(letters: Sequence[Letter]) -> list[tuple[int, str, int | None, dict[str, Any]]]:
    return [(x.chat_id, x.kind, x.game_id, dict(x.body)) for x in letters]


async def add_letters(session: AsyncSession, letters: Sequence[Letter], now: float) -> None:
    """Write letters with a decision, in its transaction (``session``)."""
    await Letters(session).add(rows_of(letters), now)


class OutboxService:
    """Writes letters and reads them back for the sender."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    def post(self, letter: Letter) -> bool:
        """Collect ``letter`` with the update being handled; ``False`` when none is (the
        caller writes it itself: :meth:`record`)."""
        collected = _COLLECTING.get()
        if collected is None:
            return False
        collected.letters.append(letter)
        return True

    async def record(self, letters: Sequence[Letter]) -> None:
        """Write letters in one transaction (which marks the update being handled, if no
        write has yet)."""
        if letters:
            async with self.db.transaction() as session:
                await add_letters(session, letters, self.clock())

    async def pending(self, after: int = 0, limit: int = PAGE) -> list[PendingLetter]:
        """Letters not delivered yet, oldest first, whose id is above ``after``."""
        async with self.db.transaction() as session:
            rows = await Letters(session).pending(after, limit)
        return [
            PendingLetter(
                row.id, Letter(row.chat_id, row.body, row.kind, row.game_id), row.created_at
            )
            for row in rows
        ]

    async def settle(self, settled: Sequence[Settled]) -> None:
        """Mark letters delivered (or given up on): never delivered again."""
        if settled:
            async with self.db.transaction() as session:
                await Letters(session).settle(
                    [(s.letter_id, s.said, s.message_id) for s in settled], self.clock()
                )

    async def forget_delivered(self, older_than: float) -> None:
        """Drop letters delivered more than ``older_than`` seconds ago."""
        async with self.db.transaction() as session:
            await Letters(session).forget_delivered(self.clock() - older_than)
