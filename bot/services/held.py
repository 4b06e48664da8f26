"""Several games changed by one update, in one transaction.

A person leaving a group, blocking the bot, the bot removed from a group, a group upgraded to
a supergroup: each is one update that changes every game it touches. Its whole effect is
written in one transaction — the one that marks the update handled (see
:mod:`bot.storage.inbox`) — so that a process killed half-way leaves nothing of it applied, and
the next leader applies it whole.

The games' in-process locks are taken before the transaction, as every use case takes its
game's: a transaction never waits for a lock (on SQLite it holds the one connection every chat
needs). They are taken in the order of the games' ids, so that two such updates never wait
for each other's.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.locks import GameLocks
from bot.storage.database import Database

logger = logging.getLogger(__name__)

#: Times the games are looked for again when another one came along while their locks were
#: being taken.
ATTEMPTS = 5

Finder = Callable[[AsyncSession], Awaitable[Iterable[int]]]


@asynccontextmanager
async def hold_each(locks: GameLocks, game_ids: Iterable[int]) -> AsyncIterator[None]:
    """The in-process locks of these games, taken in the order of their ids."""
    async with contextlib.AsyncExitStack() as stack:
        for game_id in sorted(set(game_ids)):
            await stack.enter_async_context(locks.hold(game_id))
        yield


@asynccontextmanager
async def held_games(
    db: Database, locks: GameLocks, find: Finder
) -> AsyncIterator[tuple[AsyncSession, list[int]]]:
    """One transaction, with the locks of the games ``find`` lists held: the session, and
    those games (in the order of their ids).

    The games are looked for once to take their locks, then again inside the transaction; if
    another one came along in between (a lobby opened), its lock is taken too, afresh."""
    async with db.transaction() as session:  # a read: it marks no update handled
        wanted = set(await find(session))
    for _ in range(ATTEMPTS):
        async with hold_each(locks, wanted), db.transaction() as session:
            found = set(await find(session))
            if found <= wanted:
                yield session, sorted(found)
                return
        logger.info("Games %s came along as their locks were taken; again", found - wanted)
        wanted |= found
    raise RuntimeError(f"the games kept changing under {ATTEMPTS} attempts")
