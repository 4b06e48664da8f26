"""One-off messages: handed over at once, coalesced, bounded, fair, and in time or elsewhere."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from telegram.error import Forbidden

from bot.telegram.sender.budget import CallBudget, Limits, Priority
from bot.telegram.sender.notes import Note, Notes, Outcome, message_call

GROUP, ASKER, STRANGER = -100, 7, 8


class Bot:
    """Records the calls the notes make; a chat in ``forbidden`` answers 403."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.forbidden: set[int] = set()

    async def _post(self, endpoint: str, data: dict[str, Any]) -> Any:
        if data["chat_id"] in self.forbidden:
            raise Forbidden("bot was blocked by the user")
        self.calls.append((endpoint, data))
        return {"message_id": len(self.calls), "chat": {"id": data["chat_id"]}}

    def texts(self, chat_id: int) -> list[str]:
        return [data.get("text", "") for _, data in self.calls if data["chat_id"] == chat_id]


def notes_with(limits: Limits, **kwargs: Any) -> tuple[Notes, Bot]:
    bot = Bot()
    notes = Notes(bot, CallBudget(limits), **kwargs)  # type: ignore[arg-type]

    async def started(user_id: int) -> bool:
        return user_id == ASKER

    notes.can_write = started
    return notes, bot


def reply(text: str, *, asker: int = ASKER, topic: int = 0, key: object = None) -> Note:
    return Note(
        GROUP,
        message_call(GROUP, text, topic=topic),
        Priority.REPLY,
        share=("topic", topic),
        key=key,
        asker=asker,
        private_text=f"From the club:\n\n{text}",
    )


#: A group's window that takes one call, then holds for the time given.
def one_call_per(seconds: float) -> Limits:
    return Limits(group_calls=1, group_window=seconds, reply_calls=1, reply_reserve=0)


async def test_posting_never_waits_for_the_chat() -> None:
    notes, bot = notes_with(one_call_per(60.0))
    await notes.budget.take(GROUP, Priority.TABLE)  # the group's window is full
    note = notes.post(reply("/help"))  # not a coroutine: nothing to wait for
    assert not note.outcome.done()
    assert bot.calls == []
    await notes.close()


async def test_what_a_busy_group_cannot_take_in_time_goes_to_the_askers_private_chat() -> None:
    notes, bot = notes_with(one_call_per(60.0), divert_after=0.2, drop_after=0.6)
    await notes.budget.take(GROUP, Priority.TABLE)
    note = notes.post(reply("The rules of Rank"))
    assert await asyncio.wait_for(note.outcome, 5) is Outcome.DIVERTED
    assert bot.texts(GROUP) == [], "the group sees nothing"
    assert bot.texts(ASKER) == ["From the club:\n\nThe rules of Rank"]


async def test_what_can_go_nowhere_in_time_is_dropped_and_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    notes, bot = notes_with(one_call_per(60.0), divert_after=0.1, drop_after=0.3)
    await notes.budget.take(GROUP, Priority.TABLE)
    lost = [notes.post(reply(f"/top {n}", asker=STRANGER)) for n in range(3)]  # never started
    lost.append(notes.post(Note(GROUP, message_call(GROUP, "a tidy call"))))  # nobody's
    outcomes = await asyncio.wait_for(asyncio.gather(*(n.outcome for n in lost)), 5)
    assert set(outcomes) == {Outcome.DROPPED}
    assert bot.calls == []
    said = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.INFO


async def test_a_message_pressed_ten_times_is_redrawn_once_to_the_last_press() -> None:
    notes, bot = notes_with(one_call_per(0.3))
    await notes.budget.take(GROUP, Priority.TABLE)
    pages = [notes.post(reply(f"page {n}", key=("redraw", 5))) for n in range(10)]
    await asyncio.wait_for(notes.drain(), 5)
    assert bot.texts(GROUP) == ["page 9"]
    assert [p.outcome.result() for p in pages] == [Outcome.DROPPED] * 9 + [Outcome.SENT]


async def test_a_chat_holds_few_notes_and_never_drops_a_result() -> None:
    notes, bot = notes_with(one_call_per(0.05), per_chat=3)
    await notes.budget.take(GROUP, Priority.TABLE)
    result = notes.post(Note(GROUP, message_call(GROUP, "🏆 Anna won"), Priority.TABLE, must=True))
    asked = [notes.post(reply(f"/help {n}")) for n in range(10)]
    await asyncio.wait_for(notes.drain(), 5)
    assert result.outcome.result() is Outcome.SENT
    assert [a.outcome.result() for a in asked].count(Outcome.SENT) == 3, "the newest three"
    assert bot.texts(GROUP) == ["🏆 Anna won", "/help 7", "/help 8", "/help 9"]


async def test_a_topic_that_asks_a_lot_waits_for_its_own_notes() -> None:
    notes, bot = notes_with(one_call_per(0.05))
    await notes.budget.take(GROUP, Priority.TABLE)
    for n in range(4):
        notes.post(reply(f"spam {n}", topic=1))
    notes.post(reply("a question", topic=2))
    await asyncio.wait_for(notes.drain(), 5)
    assert bot.texts(GROUP)[:3] == ["spam 0", "a question", "spam 1"]


async def test_a_person_who_blocked_the_bot_is_told_of() -> None:
    notes, bot = notes_with(Limits.unlimited())
    told: list[int] = []

    async def cannot_write(user_id: int) -> None:
        told.append(user_id)

    notes.on_forbidden = cannot_write
    bot.forbidden.add(ASKER)
    note = notes.post(Note(ASKER, message_call(ASKER, "hello")))
    assert await asyncio.wait_for(note.outcome, 5) is Outcome.FORBIDDEN
    assert told == [ASKER]
