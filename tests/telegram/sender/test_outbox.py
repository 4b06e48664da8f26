"""The outbox's postman: letters written are sent once, in order, marked with what became of
them; a letter past its time is dropped and said in the log; a postman that stops leaves what
it has not settled to the next; a follow-up runs before its letter is marked."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import pytest
from sqlalchemy import select

from bot.services.outbox import (
    Letter,
    OutboxService,
    PendingLetter,
    collecting,
)
from bot.services.types import ServiceError
from bot.storage.database import Database
from bot.storage.models import LetterRow
from bot.telegram.sender.budget import CallBudget, Limits, Priority
from bot.telegram.sender.limiter import NotLeading
from bot.telegram.sender.notes import Note, Notes, Outcome, message_call
from bot.telegram.sender.outbox import SETTLE_EVERY, Outbox, letter_of, note_of
from tests.telegram.sender.test_notes import ASKER, GROUP, Bot, reply


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def postman(db: Database, clock: Clock, limits: Limits | None = None) -> tuple[Outbox, Bot]:
    bot = Bot()
    notes = Notes(bot, CallBudget(limits or Limits()))  # type: ignore[arg-type]
    outbox = Outbox(OutboxService(db, clock), notes, clock=clock)
    db.on_letters = outbox.wake
    return outbox, bot


async def outcomes(db: Database) -> list[tuple[str | None, int | None]]:
    async with db.transaction() as session:
        rows = await session.execute(
            select(LetterRow.outcome, LetterRow.message_id).order_by(LetterRow.id)
        )
        return [(outcome, message_id) for outcome, message_id in rows]


async def test_a_note_is_a_letter_and_back_again() -> None:
    note = reply("/help", key=("reply", 0, "help"))
    again = note_of(letter_of(note))
    assert (again.chat_id, again.call, again.priority) == (note.chat_id, note.call, note.priority)
    assert (again.share, again.key, again.asker) == (("topic", 0), ("reply", 0, "help"), ASKER)
    assert again.private_text == note.private_text


async def test_letters_go_in_order_once_and_are_marked_with_their_messages(
    db: Database,
) -> None:
    clock = Clock()
    outbox, bot = postman(db, clock)
    outbox.start()
    for text in ("one", "two", "three"):
        outbox.post(letter_of(reply(text)))
    await asyncio.wait_for(outbox.drain(), 10)
    assert bot.texts(GROUP) == ["one", "two", "three"]
    assert await outcomes(db) == [("sent", 1), ("sent", 2), ("sent", 3)]
    # A sweep finds nothing left to send.
    outbox.sweep_every = 0.0
    outbox.wake()
    await asyncio.sleep(0.1)
    await asyncio.wait_for(outbox.drain(), 10)
    assert bot.texts(GROUP) == ["one", "two", "three"]
    await outbox.close()


async def test_letters_collected_with_an_update_are_written_in_one_go(db: Database) -> None:
    clock = Clock()
    outbox, bot = postman(db, clock)
    with collecting() as letters:
        outbox.post(letter_of(reply("a")))
        outbox.post(letter_of(reply("b")))
    assert await outcomes(db) == [], "nothing written while the handler runs"
    await outbox.service.record(letters)
    assert await outcomes(db) == [(None, None), (None, None)]
    outbox.start()
    await asyncio.wait_for(outbox.drain(), 10)
    assert bot.texts(GROUP) == ["a", "b"]
    await outbox.close()


async def test_a_postman_that_stops_leaves_the_rest_to_the_next(db: Database) -> None:
    clock = Clock()
    # The group takes one call a minute: the second letter waits when the first postman stops.
    limits = Limits(group_calls=1, group_window=60.0, reply_calls=1, reply_reserve=0)
    first, bot = postman(db, clock, limits)
    first.start()
    first.post(letter_of(Note(GROUP, message_call(GROUP, "one"), Priority.TABLE, must=True)))
    first.post(letter_of(Note(GROUP, message_call(GROUP, "two"), Priority.TABLE, must=True)))
    await bot_sent(bot, 1)
    await first.close()
    await first.notes.close()
    assert await outcomes(db) == [("sent", 1), (None, None)]

    second, bot2 = postman(db, clock)
    second.start()
    await asyncio.wait_for(second.drain(), 10)
    assert bot2.texts(GROUP) == ["two"], "only what was not delivered, once"
    assert [said for said, _ in await outcomes(db)] == ["sent", "sent"]
    await second.close()


async def bot_sent(bot: Bot, count: int) -> None:
    for _ in range(500):
        if len(bot.calls) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} calls expected, {len(bot.calls)} made")


async def test_a_letter_past_its_time_is_dropped_and_said_in_the_log(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    outbox, bot = postman(db, clock)
    outbox.post(letter_of(Note(GROUP, message_call(GROUP, "old news"), Priority.REPLY)))
    await asyncio.sleep(0.05)
    clock.now += 120  # read back two minutes later (a long outage)
    with caplog.at_level(logging.INFO):
        outbox.start()
        await asyncio.wait_for(outbox.drain(), 10)
    assert bot.calls == []
    assert await outcomes(db) == [("dropped", None)]
    assert any("was dropped" in r.getMessage() for r in caplog.records)
    assert all(r.levelno < logging.ERROR for r in caplog.records)
    await outbox.close()


async def test_a_follow_up_runs_before_its_letter_is_marked(db: Database) -> None:
    clock = Clock()
    outbox, _ = postman(db, clock)
    heard: list[tuple[Mapping[str, Any], Outcome, list[tuple[str | None, int | None]]]] = []

    async def seat(then: Mapping[str, Any], said: Outcome) -> None:
        heard.append((then, said, await outcomes(db)))

    outbox.follow_ups["seat"] = seat
    hello = Note(ASKER, message_call(ASKER, "Hello"), Priority.PANEL)
    outbox.post(letter_of(hello, then={"do": "seat", "game": 7}))
    outbox.start()
    await asyncio.wait_for(outbox.drain(), 10)
    assert heard == [({"do": "seat", "game": 7}, Outcome.SENT, [(None, None)])]
    assert await outcomes(db) == [("sent", 1)]
    await outbox.close()


async def test_letters_of_a_kind_of_their_own_are_drawn_when_they_go(db: Database) -> None:
    clock = Clock()
    outbox, bot = postman(db, clock)

    async def draw(pending: PendingLetter) -> Note | None:
        return Note(GROUP, message_call(GROUP, f"game {pending.letter.game_id} is over"))

    async def gone(pending: PendingLetter) -> Note | None:
        raise ServiceError("play.no_game")

    outbox.draws["result"] = draw
    outbox.draws["gone"] = gone
    await outbox.service.record(
        [Letter(GROUP, {}, "result", 5), Letter(GROUP, {}, "odd", 6), Letter(GROUP, {}, "gone", 7)]
    )
    outbox.start()
    await asyncio.wait_for(outbox.drain(), 10)
    assert bot.texts(GROUP) == ["game 5 is over"]
    assert await outcomes(db) == [("sent", 1), ("failed", None), ("failed", None)]
    await outbox.close()


async def test_an_old_message_pressed_again_and_again_is_tidied_by_one_letter(
    db: Database,
) -> None:
    clock = Clock()
    outbox, bot = postman(db, clock)
    outbox.start()
    for _ in range(5):
        outbox.tidy("editMessageReplyMarkup", GROUP, 42)
    outbox.tidy("deleteMessage", GROUP, 43)
    await asyncio.wait_for(outbox.drain(), 10)
    assert [(endpoint, data["message_id"]) for endpoint, data in bot.calls] == [
        ("editMessageReplyMarkup", 42),
        ("deleteMessage", 43),
    ]
    assert len(await outcomes(db)) == 2, "one letter each"
    await outbox.close()


async def test_a_letter_a_process_no_longer_leading_could_not_send_is_left_to_the_next(
    db: Database,
) -> None:
    clock = Clock()
    outbox, bot = postman(db, clock)

    async def fenced(endpoint: str, data: dict[str, Any]) -> Any:
        raise NotLeading(endpoint)

    bot._post = fenced  # type: ignore[method-assign]
    outbox.start()
    outbox.post(letter_of(reply("/help")))
    for _ in range(300):
        if not outbox.notes.busy and await outcomes(db):
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(SETTLE_EVERY * 2)
    assert await outcomes(db) == [(None, None)], "not marked: the next leader sends it"
    await outbox.close()

    second, bot2 = postman(db, clock)
    second.start()
    await asyncio.wait_for(second.drain(), 10)
    assert bot2.texts(GROUP) == ["/help"]
    await second.close()
