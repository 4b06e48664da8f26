"""The publisher: coalesced edits, nothing re-sent unchanged, Telegram's errors handled."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from telegram.error import BadRequest, Forbidden

from bot.telegram.delivery import Publisher
from tests.telegram.test_render import seats, snapshot


class StubBot:
    """Records sends and edits; raises what a test queues."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.errors: list[Exception] = []
        self.next_id = 100

    def _maybe_fail(self) -> None:
        if self.errors:
            raise self.errors.pop(0)

    async def send_message(self, chat_id: int, text: str, **_: Any) -> SimpleNamespace:
        self._maybe_fail()
        self.calls.append(("send", chat_id, text))
        self.next_id += 1
        return SimpleNamespace(message_id=self.next_id)

    async def edit_message_text(
        self, text: str, *, chat_id: int, message_id: int, **_: Any
    ) -> None:
        self._maybe_fail()
        self.calls.append(("edit", chat_id, text))


class Remembered:
    def __init__(self) -> None:
        self.tables: list[tuple[int, int | None]] = []

    async def table(self, game_id: int, message_id: int | None) -> None:
        self.tables.append((game_id, message_id))

    async def panel(self, game_id: int, seat: int, message_id: int | None) -> None:
        return None


def publisher(bot: StubBot, remembered: Remembered, interval: float = 0.0) -> Publisher:
    return Publisher(
        bot,
        remembered.table,
        remembered.panel,  # type: ignore[arg-type]
        group_interval=interval,
        private_interval=interval,
    )


def lobby(*names: str) -> Any:
    return snapshot(names=names, status="lobby")


async def test_first_publish_sends_and_remembers_the_message() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    pub.publish(lobby("Anna"))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send"]
    assert remembered.tables == [(7, 101)]


async def test_a_burst_of_changes_costs_one_edit_of_the_latest_state() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered, interval=0.2)
    pub.publish(lobby("Anna"))
    await asyncio.sleep(0.01)
    for names in (("Anna", "Boris"), ("Anna", "Boris", "Clara"), ("Anna", "Boris", "Dora")):
        pub.publish(lobby(*names))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send", "edit"]
    assert "Dora" in bot.calls[-1][2] and "Clara" not in bot.calls[-1][2]


async def test_unchanged_content_is_not_sent_again() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    pub.publish(lobby("Anna"))
    await pub.drain()
    pub.publish(lobby("Anna"))
    await pub.drain()
    assert len(bot.calls) == 1


async def test_not_modified_is_success_and_a_vanished_message_is_sent_anew() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    known = replace(lobby("Anna"), table_message_id=55)
    bot.errors.append(BadRequest("Message is not modified: specified new message content"))
    pub.publish(known)
    await pub.drain()
    assert bot.calls == [] and remembered.tables == []
    bot.errors.append(BadRequest("Message to edit not found"))
    pub.publish(replace(known, seats=seats("Anna", "Boris")))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send"]
    assert remembered.tables == [(7, 101)]


async def test_a_user_who_cannot_be_messaged_is_skipped_quietly(caplog: Any) -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    bot.errors.append(Forbidden("Forbidden: bot can't initiate conversation with a user"))
    pub.publish(lobby("Anna"))
    await pub.drain()
    pub.publish(lobby("Anna", "Boris"))
    await pub.drain()
    assert bot.calls == [], "an unreachable chat is not retried on every change"
    assert all(r.levelname in ("WARNING", "INFO", "DEBUG") for r in caplog.records)
