"""Flood limits hold messages, not lookups: asking about a member never queues behind edits."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.telegram.limits import MessageRateLimiter, counts_as_message


def test_what_counts_as_a_message() -> None:
    for method in ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto"):
        assert counts_as_message(method)
    for method in ("getChatMember", "answerCallbackQuery", "getUpdates", "setMyCommands"):
        assert not counts_as_message(method)


async def test_a_lookup_in_a_busy_group_does_not_wait_for_its_message_budget() -> None:
    limiter = MessageRateLimiter(
        overall_max_rate=0, group_max_rate=1, group_time_period=60, max_retries=0
    )
    await limiter.initialize()
    calls: list[str] = []

    async def call(name: str) -> dict[str, Any]:
        calls.append(name)
        return {"ok": True}

    group = {"chat_id": -100123}
    await limiter.process_request(call, ("first",), {}, "sendMessage", group, None)
    # The group's budget is spent: the next message waits its minute...
    waiting = asyncio.create_task(
        limiter.process_request(call, ("second",), {}, "editMessageText", group, None)
    )
    # ...while asking whether a user is an admin there goes through at once.
    await asyncio.wait_for(
        limiter.process_request(
            call, ("member",), {}, "getChatMember", {**group, "user_id": 7}, None
        ),
        timeout=2,
    )
    assert calls == ["first", "member"]
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    await limiter.shutdown()
