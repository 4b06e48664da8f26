"""The leader hands updates over in ``update_id`` order per chat, whichever process stored
them; a Mini App player's presses in the order he made them; a backlog in slices, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from telegram import Bot

import bot.services.inbox as inbox_service
import bot.telegram.inbox as inbox_reader
from bot.services.inbox import InboxService
from bot.storage.database import Database
from bot.telegram.inbox import InboxReader
from bot.telegram.intake import Intake
from bot.telegram.miniapp.server import APP_ID_FLOOR, app_update_id
from tests.storage.test_inbox import press
from tests.telegram.test_inbox import handle, queued


class SharedInbox(InboxService):
    """The inbox as several processes see it (on SQLite too, which serves one): another
    process may store updates this one has not read."""

    @property
    def shared(self) -> bool:
        return True


def reader_for(
    db: Database, *, shared: bool = False
) -> tuple[InboxReader, asyncio.Queue[object], Intake]:
    queue: asyncio.Queue[object] = asyncio.Queue()
    service = SharedInbox(db) if shared else InboxService(db)
    reader = InboxReader(service, Bot("123:" + "a" * 35), queue)
    intake = Intake()
    reader.attach(intake)
    return reader, queue, intake


async def until(condition: Callable[[], bool], seconds: float = 3.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not within the time")


def app_press(code: str, user: int = 7) -> dict[str, object]:
    return {
        "update_id": app_update_id(),
        "cardroom_app": {"chat": {"id": user}, "user": user, "game": 1, "code": code},
    }


async def test_the_leader_hands_its_own_update_over_after_an_earlier_one_a_standby_stored(
    db: Database,
) -> None:
    """A standby stored update 10 of a chat (its announcement not heard yet); the leader then
    takes 11 of the same chat itself: 10 goes first, 11 after it — and at once, not at the
    next look a second later."""
    standby, _, _ = reader_for(db)
    leader, queue, intake = reader_for(db, shared=True)
    leader.start()
    try:
        await asyncio.sleep(0.05)  # its first look: nothing waits
        await standby.take([press(10, chat_id=-5)], "webhook")
        started = asyncio.get_running_loop().time()
        await leader.take([press(11, chat_id=-5), press(12, chat_id=-6)], "webhook")
        assert queued(queue) == [12], "another chat's goes at once"
        await until(lambda: not queue.empty())
        assert asyncio.get_running_loop().time() - started < 0.5, "no wait for the next look"
        assert queued(queue) == [10], "the earlier update first"
        await handle(intake, 10)
        assert queued(queue) == [11]
        await handle(intake, 11)
        await handle(intake, 12)
    finally:
        await leader.stop()
    assert await leader.inbox.pending(10) == []


async def test_a_leaders_own_update_goes_at_once_when_nothing_earlier_waits(
    db: Database,
) -> None:
    leader, queue, intake = reader_for(db, shared=True)
    leader.start()
    try:
        await leader.take([press(20, chat_id=-5)], "webhook")
        assert queued(queue) == [20], "handed over as the take returns"
        await handle(intake, 20)
        await leader.take([press(21, chat_id=-5)], "webhook")
        assert queued(queue) == [21], "the one before it is handled: nothing to wait for"
        await handle(intake, 21)
    finally:
        await leader.stop()


async def test_too_many_earlier_updates_to_list_are_read_in_order(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox_service, "EARLIER_LIMIT", 2)
    standby, _, _ = reader_for(db)
    await standby.take([press(i, chat_id=-5) for i in (30, 31, 32)], "webhook")
    leader, queue, intake = reader_for(db, shared=True)
    leader.start()
    try:
        await leader.take([press(33, chat_id=-5)], "webhook")
        handled = []
        for _ in range(4):
            await until(lambda: not queue.empty())
            (update_id,) = queued(queue)
            handled.append(update_id)
            await handle(intake, update_id)
    finally:
        await leader.stop()
    assert handled == [30, 31, 32, 33]


def test_mini_app_press_ids_grow_and_stay_apart_from_telegrams() -> None:
    ids = [app_update_id() for _ in range(2000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids), "each above the one before"
    assert ids[0] > APP_ID_FLOOR and ids[-1] < 0, "negative: Telegram's are positive"


async def test_a_players_mini_app_presses_are_handled_in_the_order_he_made_them(
    db: Database,
) -> None:
    """Read back from the inbox (stored by a standby whose socket he used, or before a
    failover): his later tap after his earlier one."""
    standby, _, _ = reader_for(db)
    for code in ("first", "second", "third"):
        await standby.take([app_press(code)], "app")
    leader, queue, intake = reader_for(db)
    leader.start()
    codes = []
    try:
        for _ in range(3):
            await until(lambda: not queue.empty())
            update = queue.get_nowait()
            codes.append(update.api_kwargs["cardroom_app"]["code"])  # type: ignore[attr-defined]
            await handle(intake, update.update_id)  # type: ignore[attr-defined]
    finally:
        await leader.stop()
    assert codes == ["first", "second", "third"]


async def test_a_backlog_is_handed_over_in_slices_in_order(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long outage's backlog: never all of it in memory, each chat in order, every update
    handled in the end."""
    monkeypatch.setattr(inbox_reader, "MAX_HELD", 8)
    monkeypatch.setattr(inbox_reader, "PAGE", 3)
    standby, _, _ = reader_for(db)
    await standby.take([press(i, chat_id=-(i % 3) - 1) for i in range(1, 41)], "webhook")
    leader, queue, intake = reader_for(db)
    leader.start()
    handled: list[int] = []
    most = 0
    try:
        while len(handled) < 40:
            await until(lambda: not queue.empty())
            most = max(most, len(leader._in_hand))
            for update_id in queued(queue):
                handled.append(update_id)
                await handle(intake, update_id)
    finally:
        await leader.stop()
    assert most <= 8
    assert sorted(handled) == list(range(1, 41))
    for chat in (1, 2, 3):
        of_chat = [i for i in handled if i % 3 + 1 == chat]
        assert of_chat == sorted(of_chat), f"chat -{chat} in order"
    assert await leader.inbox.pending(10) == []
