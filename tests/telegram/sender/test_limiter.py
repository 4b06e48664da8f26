"""The rate limiter: calls into chats take their turn in the budget; a 429 that still comes
is waited out — once logged, never lost — and lookups never queue behind a chat's messages."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.telegram.sender.budget import CallBudget, Limits, Priority
from bot.telegram.sender.limiter import BudgetRateLimiter, calling, lands_in_chat

GROUP = {"chat_id": -100123}


class Telegram:
    """Answers calls; refuses the first ``refusals`` with 429 (retry after ``wait``)."""

    def __init__(self, refusals: int = 0, wait: int = 1) -> None:
        self.refusals = refusals
        self.wait = wait
        self.calls: list[str] = []

    async def __call__(self, name: str) -> dict[str, Any]:
        self.calls.append(name)
        if self.refusals:
            self.refusals -= 1
            raise RetryAfter(self.wait)
        return {"ok": True, "name": name}


def test_what_lands_in_a_chat() -> None:
    for method in (
        "sendMessage",
        "editMessageText",
        "sendPhoto",
        "deleteMessage",
        "pinChatMessage",
    ):
        assert lands_in_chat(method)
    for method in ("getChatMember", "answerCallbackQuery", "getUpdates", "setMyCommands"):
        assert not lands_in_chat(method)


async def test_a_lookup_in_a_busy_group_does_not_wait_for_its_budget() -> None:
    limiter = BudgetRateLimiter(CallBudget(Limits(group_calls=1, reply_calls=1)))
    telegram = Telegram()
    await limiter.process_request(telegram, ("first",), {}, "sendMessage", GROUP, None)
    waiting = asyncio.create_task(
        limiter.process_request(telegram, ("second",), {}, "editMessageText", GROUP, None)
    )
    member = {**GROUP, "user_id": 7}
    await asyncio.wait_for(
        limiter.process_request(telegram, ("member",), {}, "getChatMember", member, None), 2
    )
    assert telegram.calls == ["first", "member"], "the second message waits its minute"
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)


async def test_a_429_on_a_message_pauses_the_chat_and_the_message_still_goes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    budget = CallBudget(Limits())
    limiter = BudgetRateLimiter(budget)
    telegram = Telegram(refusals=2, wait=1)
    caplog.set_level(logging.INFO)
    answer = await asyncio.wait_for(
        limiter.process_request(telegram, ("reply",), {}, "sendMessage", GROUP, None), 10
    )
    assert answer == {"ok": True, "name": "reply"}
    assert telegram.calls == ["reply"] * 3
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) <= 2 and all(r.exc_info is None for r in warnings)
    assert all("429" in r.getMessage() for r in warnings)


async def test_a_429_on_a_call_whose_caller_redraws_is_the_callers() -> None:
    budget = CallBudget(Limits())
    limiter = BudgetRateLimiter(budget)
    telegram = Telegram(refusals=1, wait=27)
    with calling(Priority.TABLE, taken=True), pytest.raises(RetryAfter):
        await limiter.process_request(telegram, ("edit",), {}, "editMessageText", GROUP, None)
    assert budget.paused(GROUP["chat_id"]) == pytest.approx(27, abs=1)
    assert telegram.calls == ["edit"]


async def test_a_429_on_a_callback_answer_is_waited_out_within_its_deadline() -> None:
    limiter = BudgetRateLimiter(CallBudget(Limits()))
    telegram = Telegram(refusals=1, wait=1)
    answer = await asyncio.wait_for(
        limiter.process_request(telegram, ("answer",), {}, "answerCallbackQuery", {}, None), 10
    )
    assert answer["ok"] and telegram.calls == ["answer", "answer"]
    # A wait past the answer's deadline (Telegram forgets a query after some seconds) is
    # not waited: the caller hears of it at once.
    slow = Telegram(refusals=1, wait=60)
    with pytest.raises(RetryAfter):
        await limiter.process_request(slow, ("answer",), {}, "answerCallbackQuery", {}, None)
