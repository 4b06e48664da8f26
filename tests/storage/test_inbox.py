"""The inbox: an update is stored once, and applied once even if its handling is repeated
after a crash (its first write marks it handled in the same transaction)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from bot.services.inbox import AlreadyHandled, InboxService, chat_of, handling
from bot.storage.database import Database
from bot.storage.models import InboxRow, UserRow
from bot.storage.repositories import Users


def press(update_id: int, chat_id: int = -100) -> dict[str, object]:
    return {
        "update_id": update_id,
        "callback_query": {
            "id": str(update_id),
            "from": {"id": 7, "is_bot": False, "first_name": "Ann"},
            "chat_instance": "x",
            "data": "1:1:p",
            "message": {"message_id": 3, "date": 0, "chat": {"id": chat_id, "type": "group"}},
        },
    }


async def handled_at(db: Database, update_id: int) -> float | None:
    async with db.transaction() as session:
        return await session.scalar(
            select(InboxRow.handled_at).where(InboxRow.update_id == update_id)
        )


async def test_an_update_posted_twice_is_stored_once(db: Database) -> None:
    inbox = InboxService(db)
    first = await inbox.take([press(1), press(2)])
    again = await inbox.take([press(2), press(3)])
    assert [u.update_id for u in first] == [1, 2]
    assert [u.update_id for u in again] == [3], "a redelivery stores nothing"
    assert [u.update_id for u in await inbox.pending(10)] == [1, 2, 3]
    assert [u.update_id for u in await inbox.pending(10, after=1)] == [2, 3]
    assert (await inbox.pending(10))[0].chat_id == -100


async def test_the_first_write_of_a_handling_marks_it_and_a_repeat_applies_nothing(
    db: Database,
) -> None:
    inbox = InboxService(db)
    await inbox.take([press(5)])
    with handling(5):
        async with db.transaction() as session:  # a read marks nothing
            await session.scalar(select(UserRow.id))
        assert await handled_at(db, 5) is None
        async with db.transaction() as session:
            await Users(session).upsert(7, "Ann", None, None)
    assert await handled_at(db, 5) is not None, "marked with the write that applied it"
    assert await inbox.pending(10) == []

    # The process died before it could say so; the next leader handles the update again.
    with handling(5), pytest.raises(AlreadyHandled):
        async with db.transaction() as session:
            await Users(session).upsert(7, "Changed", None, None)
    async with db.transaction() as session:
        assert (await session.get(UserRow, 7)).first_name == "Ann", "rolled back"


async def test_tasks_started_by_a_handling_never_mark_it(db: Database) -> None:
    inbox = InboxService(db)
    await inbox.take([press(6)])

    async def delivery() -> None:  # a task of the sender's, started by the handler
        async with db.transaction() as session:
            await Users(session).upsert(8, "Bob", None, None)

    with handling(6):
        await asyncio.create_task(delivery())
    assert await handled_at(db, 6) is None


async def test_the_plain_sqlite_path_marks_too(sqlite_db: Database) -> None:
    inbox = InboxService(sqlite_db)
    async with sqlite_db.transaction() as session:
        await Users(session).upsert(7, "Ann", None, None)
    await inbox.take([press(9)])
    with handling(9):
        async with sqlite_db.sqlite_transaction() as connection:
            connection.execute("UPDATE users SET first_name = 'Cy' WHERE id = 7")
    assert await handled_at(sqlite_db, 9) is not None
    with handling(9), pytest.raises(AlreadyHandled):
        async with sqlite_db.sqlite_transaction() as connection:
            connection.execute("UPDATE users SET first_name = 'Di' WHERE id = 7")
    async with sqlite_db.transaction() as session:
        assert (await session.get(UserRow, 7)).first_name == "Cy"


async def test_handled_updates_are_marked_in_a_batch_and_the_lag_measured(db: Database) -> None:
    clock = [1000.0]
    inbox = InboxService(db, clock=lambda: clock[0])
    await inbox.take([press(1), press(2)])
    clock[0] += 3
    assert await inbox.lag() == pytest.approx(3)
    await inbox.done([1, 2])
    assert await inbox.lag() == 0
    assert await inbox.pending(10) == []


async def test_calls_are_kept_for_the_next_leader(db: Database) -> None:
    def local() -> float:
        return 1000.0

    inbox = InboxService(db)
    await inbox.record_calls([(-1, 800.0), (-1, 990.0), (5, 999.5)], local)
    recent = await inbox.recent_calls(60, local)
    assert [chat for chat, _ in recent] == [-1, 5]
    assert [at for _, at in recent] == pytest.approx([990.0, 999.5], abs=0.5)
    await inbox.tidy()
    assert [chat for chat, _ in await inbox.recent_calls(1000, local)] == [-1, 5]


def test_an_update_is_ordered_by_the_chat_it_comes_from() -> None:
    assert chat_of(press(1, chat_id=-5)) == -5
    assert chat_of({"update_id": 1, "message": {"chat": {"id": 42}}}) == 42
    inline = {"update_id": 1, "callback_query": {"from": {"id": 9}, "id": "q"}}
    assert chat_of(inline) == 9
    assert chat_of({"update_id": 1, "my_chat_member": {"chat": {"id": -3}}}) == -3
    assert chat_of({"update_id": 1}) is None


async def test_a_backlog_is_read_in_pages_each_after_the_last(db: Database) -> None:
    """However long the backlog, a page is asked with one parameter (the last id read): no
    list of ids in hand goes with it (PostgreSQL takes 32,767 parameters at most)."""
    inbox = InboxService(db)
    await inbox.take(
        [press(update_id, chat_id=-(update_id % 7) - 1) for update_id in range(1, 1001)]
    )
    await inbox.done(list(range(1, 1001, 3)))
    read: list[int] = []
    after = None
    while page := await inbox.pending(64, after):
        read += [u.update_id for u in page]
        after = page[-1].update_id
    assert read == [i for i in range(1, 1001) if i % 3 != 1]


async def test_a_take_tells_which_earlier_updates_of_its_chats_wait(db: Database) -> None:
    """Whoever stored them: the leader hands its own update over after those."""
    standby, leader = InboxService(db), InboxService(db)
    await standby.take([press(10, chat_id=-5), press(11, chat_id=-6), press(12, chat_id=-5)])
    await leader.done([12])
    taken = await leader.take_with_earlier([press(13, chat_id=-5), press(14, chat_id=-7)])
    assert [u.update_id for u in taken.new] == [13, 14]
    assert taken.earlier == [(10, -5)], "another chat's, and one handled, do not count"
    again = await leader.take_with_earlier([press(13, chat_id=-5)])
    assert again.new == [] and again.earlier == []
