"""Users and chats are created or refreshed in one statement: a race creates one row, no error.

The races matter on PostgreSQL (``TEST_DATABASE_URL``), where transactions run side by side;
on SQLite they take turns, and the same tests check that nothing else changed.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select, update

from bot.storage.database import Database
from bot.storage.models import ChatRow, UserRow
from bot.storage.repositories import Chats, Users

RACERS = 20


async def test_a_new_user_upserted_by_many_at_once_is_one_row(db: Database) -> None:
    """Twenty updates of someone never seen before, at once: each succeeds, one row stays.
    One of them came from his private chat (``started``), some without a language."""

    async def upsert(n: int) -> bool:
        async with db.transaction() as session:
            row = await Users(session).upsert(
                7, "Anna", "anna", "de" if n % 2 else None, started=n == 5
            )
            return row.started

    seen = await asyncio.gather(*(upsert(n) for n in range(RACERS)))
    assert seen.count(True) >= 1
    async with db.transaction() as session:
        rows = list(await session.scalars(select(UserRow)))
    assert [(r.id, r.first_name, r.username, r.language_code, r.started) for r in rows] == [
        (7, "Anna", "anna", "de", True)
    ]
    assert rows[0].language is None and rows[0].created_at is not None


async def test_a_new_chat_upserted_by_many_at_once_is_one_row(db: Database) -> None:
    async def upsert() -> str:
        async with db.transaction() as session:
            row = await Chats(session).upsert(-100, "supergroup", "Card club")
            return row.kind

    assert await asyncio.gather(*(upsert() for _ in range(RACERS))) == ["supergroup"] * RACERS
    async with db.transaction() as session:
        count = await session.scalar(select(func.count()).select_from(ChatRow))
        row = await session.get(ChatRow, -100)
    assert count == 1
    assert row is not None
    assert (row.kind, row.title, row.language, row.settings) == (
        "supergroup",
        "Card club",
        None,
        {},
    )


async def test_an_upsert_refreshes_names_and_keeps_the_rest(db: Database) -> None:
    async with db.transaction() as session:
        user = await Users(session).upsert(7, "Anna", "anna", "de", started=True)
        user.language = "uk"
        chat = await Chats(session).upsert(-100, "group", "Card club")
        chat.language, chat.settings = "hr", {"quiet": True}
    async with db.transaction() as session:
        user = await Users(session).upsert(7, "Ann", None, None)
        chat = await Chats(session).upsert(-100, "supergroup", "Cards")
    assert (user.first_name, user.username, user.language_code) == ("Ann", None, "de")
    assert (user.language, user.started) == ("uk", True), "never unset by an upsert"
    assert (chat.kind, chat.title, chat.language, chat.settings) == (
        "supergroup",
        "Cards",
        "hr",
        {"quiet": True},
    )
    async with db.transaction() as session:
        user = await Users(session).upsert(7, "Ann", None, "ru")
    assert user.language_code == "ru"


async def test_the_row_returned_is_the_sessions_own_and_current(db: Database) -> None:
    """A caller changes the row an upsert returns (``started`` back to false when the user
    blocked the bot, a chosen language): it must be the session's instance, fresh — even if
    the session had read the row before the statement changed it."""
    async with db.transaction() as session:
        await Users(session).upsert(7, "Anna", None, None)
        await Chats(session).upsert(-100, "group", "Card club")
    async with db.transaction() as session:
        held = await Users(session).get(7)
        held_chat = await Chats(session).get(-100)
        assert held is not None and not held.started
        # Someone else's transaction, as far as this session's objects know.
        await session.execute(
            update(UserRow).where(UserRow.id == 7).values(language="hr"),
            execution_options={"synchronize_session": False},
        )
        user = await Users(session).upsert(7, "Anna", None, None, started=True)
        chat = await Chats(session).upsert(-100, "supergroup", "Card club")
        assert user is held and chat is held_chat
        assert (user.started, user.language, chat.kind) == (True, "hr", "supergroup")
        user.started = False
        chat.language = "uk"
    async with db.transaction() as session:
        stored = await Users(session).get(7)
        stored_chat = await Chats(session).get(-100)
    assert stored is not None and stored_chat is not None
    assert (stored.started, stored.language, stored_chat.language) == (False, "hr", "uk")
