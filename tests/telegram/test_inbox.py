"""Updates in, durably: a webhook post is answered 200 only once stored; the leader hands
stored updates over one chat at a time, in order, and marks them handled."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from telegram import Bot, Update
from tornado.httpserver import HTTPServer
from tornado.web import Application

from bot.services.inbox import InboxService
from bot.storage.database import Database
from bot.telegram.inbox import InboxReader, WebhookHandler
from bot.telegram.intake import Intake
from tests.storage.test_inbox import press

SECRET = "a-secret-for-the-webhook-tests"


def reader_for(db: Database) -> tuple[InboxReader, asyncio.Queue[object], Intake]:
    queue: asyncio.Queue[object] = asyncio.Queue()
    reader = InboxReader(InboxService(db), Bot("123:" + "a" * 35), queue)
    intake = Intake()
    reader.attach(intake)
    return reader, queue, intake


def queued(queue: asyncio.Queue[object]) -> list[int]:
    ids = []
    while not queue.empty():
        update = queue.get_nowait()
        assert isinstance(update, Update)
        ids.append(update.update_id)
    return ids


async def handle(intake: Intake, update_id: int) -> None:
    async def nothing() -> None:
        return None

    await intake.do_process_update(Update(update_id), nothing())


async def test_one_chat_is_handled_in_order_and_chats_side_by_side(db: Database) -> None:
    reader, queue, intake = reader_for(db)
    reader.start()
    try:
        await reader.take(
            [press(1, chat_id=-1), press(2, chat_id=-1), press(3, chat_id=-2)], "webhook"
        )
        assert queued(queue) == [1, 3], "the chat's second update waits for its first"
        await handle(intake, 1)
        assert queued(queue) == [2]
        await handle(intake, 2)
        await handle(intake, 3)
        await asyncio.sleep(0.2)
        assert await reader.inbox.pending(10) == [], "marked handled"
    finally:
        await reader.stop()


async def test_a_standby_stores_and_the_next_leader_handles_what_it_stored(db: Database) -> None:
    standby, standby_queue, _ = reader_for(db)
    await standby.take([press(4), press(5, chat_id=-9)], "webhook")
    assert queued(standby_queue) == [], "a standby hands nothing over"

    leader, queue, intake = reader_for(db)
    leader.start()
    try:
        for _ in range(100):
            if not queue.empty():
                break
            await asyncio.sleep(0.02)
        assert queued(queue) == [4, 5]
        await leader.take([press(4)], "webhook")  # Telegram posts it again: nothing new
        assert queued(queue) == []
        await handle(intake, 4)
        await handle(intake, 5)
    finally:
        await leader.stop()
    assert await leader.inbox.pending(10) == []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def webhook(db: Database) -> AsyncIterator[tuple[str, InboxReader]]:
    reader, _, _ = reader_for(db)
    port = free_port()
    server = HTTPServer(
        Application([("/hook", WebhookHandler, {"secret": SECRET, "reader": reader})])
    )
    server.listen(port, "127.0.0.1")
    yield f"http://127.0.0.1:{port}/hook", reader
    server.stop()


async def post(url: str, body: Any, secret: str = SECRET) -> int:
    async with httpx.AsyncClient() as client:
        content = body if isinstance(body, bytes) else orjson.dumps(body)
        answer = await client.post(
            url, content=content, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
        )
    return answer.status_code


async def test_a_webhook_post_is_stored_before_it_is_answered(
    webhook: tuple[str, InboxReader],
) -> None:
    url, reader = webhook
    assert await post(url, press(10)) == 200
    assert [u.update_id for u in await reader.inbox.pending(10)] == [10]
    assert await post(url, press(10)) == 200, "a redelivery is answered, and stores nothing"
    assert [u.update_id for u in await reader.inbox.pending(10)] == [10]


async def test_a_webhook_post_without_the_secret_or_an_update_is_refused(
    webhook: tuple[str, InboxReader],
) -> None:
    url, reader = webhook
    assert await post(url, press(11), secret="wrong-secret-of-the-same-size") == 403
    assert await post(url, b"not json") == 400
    assert await post(url, {"update_id": "1"}) == 400
    assert await post(url, [1, 2]) == 400
    assert await reader.inbox.pending(10) == []


async def test_a_post_that_cannot_be_stored_is_not_acknowledged(
    webhook: tuple[str, InboxReader],
) -> None:
    url, reader = webhook

    async def refuse(*_: object) -> None:
        raise ConnectionError("database down")  # Telegram must post the update again

    reader.inbox.take = refuse  # type: ignore[method-assign]
    assert await post(url, press(12)) == 503


async def test_a_webhook_post_cannot_pass_for_a_mini_app_press(
    webhook: tuple[str, InboxReader],
) -> None:
    url, reader = webhook
    forged = {"update_id": 77, "cardroom_app": {"user": 1, "game": 1, "code": "r"}}
    assert await post(url, forged) == 400
    assert await post(url, {**press(78), "update_id": -78}) == 400
    assert await reader.inbox.pending(10) == []


async def test_long_polling_acknowledges_only_what_is_stored() -> None:
    """The next ``getUpdates`` (whose offset tells Telegram the updates arrived) waits until
    the batch is stored; a batch that cannot be stored is asked for again, not skipped."""
    from bot.telegram.inbox import poll

    class Bot:
        def __init__(self) -> None:
            self.offsets: list[int | None] = []

        async def get_updates(self, offset: int | None, **_: object) -> list[Update]:
            self.offsets.append(offset)
            await asyncio.sleep(0)
            return [Update(41), Update(42)] if offset is None else []

    class Reader:
        def __init__(self) -> None:
            self.taken: list[list[int]] = []
            self.failures = 1

        async def take(self, payloads: list[dict[str, Any]], via: str) -> None:
            if self.failures:
                self.failures -= 1
                raise ConnectionError("database away")
            self.taken.append([p["update_id"] for p in payloads])

    bot, reader = Bot(), Reader()
    polling = asyncio.create_task(poll(bot, reader, ()))  # type: ignore[arg-type]
    for _ in range(300):
        if len(bot.offsets) >= 2:
            break
        await asyncio.sleep(0.01)
    polling.cancel()
    assert reader.taken == [[41, 42]], "stored after one failure"
    assert bot.offsets[:2] == [None, 43], "acknowledged only once stored"
