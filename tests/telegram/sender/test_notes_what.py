"""What a note is travels with it, so that the log can say what was dropped or diverted
(issue #35, item 12): "Reply to /rules rank for chat … was dropped", not "A message"."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, message_call, tidy_note
from bot.telegram.sender.outbox import letter_of, note_of
from tests.telegram.sender.test_notes import GROUP, notes_with, one_call_per


async def test_what_a_note_is_survives_the_outbox() -> None:
    note = Note(GROUP, message_call(GROUP, "Rules"), Priority.REPLY, what="reply to /rules")
    assert note_of(letter_of(note)).what == "reply to /rules"
    assert note_of(letter_of(tidy_note("deleteMessage", GROUP, 5))).what == "deleting message 5"


async def test_a_dropped_note_is_named_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    notes, _bot = notes_with(one_call_per(60.0), drop_after=0.1)
    for n in range(2):
        notes.post(Note(GROUP, message_call(GROUP, f"{n}"), what=f"reply to /top {n}"))
    await asyncio.wait_for(notes.drain(), 5)
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert dropped == [f"Reply to /top 1 for chat {GROUP} was dropped (out of time)"]
