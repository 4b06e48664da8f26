"""Many updates about people and chats never seen before, at once, as the handlers send them.

On PostgreSQL (``TEST_DATABASE_URL``) the transactions run side by side: creating the same
user or chat twice at once must not fail. On SQLite they take turns.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from bot.services.languages import LanguageService
from bot.services.types import Actor, ChatRef, GameSnapshot, JoinResult, ServiceError
from bot.storage.database import Database
from bot.storage.models import ChatRow, UserRow
from tests.services.helpers import at_table, make_services, person

NEW_GROUP = ChatRef(-100777, "supergroup", "New club")


async def count_chats(db: Database) -> int:
    async with db.transaction() as session:
        return int(await session.scalar(select(func.count()).select_from(ChatRow)) or 0)


async def test_twenty_new_in_a_new_group_at_once_open_one_lobby(db: Database) -> None:
    """``/new`` twenty times at once in a group the bot has never seen, by ten people it has
    never seen, each twice: the group adopts a language, one lobby opens, every other
    ``/new`` is told that a lobby is open."""
    services = make_services(db)
    languages = LanguageService(db, services.rights)

    async def new(user_id: int) -> GameSnapshot:
        actor = person(user_id, f"Player {user_id}")
        await languages.adopt(NEW_GROUP, actor)  # as the /new handler does first
        return await services.lobby.open(NEW_GROUP, actor, "rank")

    outcomes = await asyncio.gather(*(new(1 + n % 10) for n in range(20)), return_exceptions=True)
    opened = [o for o in outcomes if isinstance(o, GameSnapshot)]
    refused = [o for o in outcomes if isinstance(o, ServiceError)]
    assert len(opened) == 1, outcomes
    assert [r.code for r in refused] == ["lobby.exists"] * 19, outcomes
    assert await count_chats(db) == 1
    assert await languages.for_chat(NEW_GROUP, None) == "en"


async def test_two_new_people_double_tapping_join_are_seated_once_each(db: Database) -> None:
    """Two people the bot has never seen press Join twice each. As the handler runs it:
    each press is refused (the bot cannot write to them yet); the bot greets each in
    private (here it can) and notes that he started it — all four at once, a greeting being
    a round trip; then the presses join again."""
    services = make_services(db)
    host = person(1, "Host")
    await services.lobby.record(host, started=True)
    lobby = await services.lobby.open(NEW_GROUP, host, "rank")
    taps = [person(user_id, f"Player {user_id}") for user_id in (2, 3, 2, 3)]

    async def join(actor: Actor) -> JoinResult:
        return await services.lobby.join(lobby.game_id, actor, at_table(lobby))

    refused = await asyncio.gather(*(join(actor) for actor in taps), return_exceptions=True)
    assert [getattr(r, "code", r) for r in refused] == ["lobby.need_start"] * 4
    await asyncio.gather(*(services.lobby.mark_started(actor) for actor in taps))
    results = await asyncio.gather(*(join(actor) for actor in taps))

    assert sorted(r.joined for r in results) == [False, False, True, True]
    snapshot = await services.play.snapshot(lobby.game_id)
    assert sorted(s.user_id or 0 for s in snapshot.seats) == [1, 2, 3]
    async with db.transaction() as session:
        users = {u.id: u.started for u in await session.scalars(select(UserRow))}
    assert users == {1: True, 2: True, 3: True}
