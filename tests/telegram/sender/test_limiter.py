"""The rate limiter: calls into chats take their turn in the budget; a 429 that still comes
is waited out — once logged, never lost — and lookups never queue behind a chat's messages."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from telegram.error import Forbidden, RetryAfter

from bot.telegram.metrics import REGISTRY
from bot.telegram.sender.budget import CallBudget, Limits, Priority
from bot.telegram.sender.limiter import BudgetRateLimiter, calling, lands_in_chat

GROUP = {"chat_id": -100123}
PRIVATE = {"chat_id": 4242}


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


# -- what the limiter tells the metrics ----------------------------------------------------------
# Each test reads its metrics before and after, and calls methods the other tests do not, so
# that calls made elsewhere in the process cannot blur its counts.


def counted(method: str, outcome: str) -> float:
    labels = {"method": method, "outcome": outcome}
    return REGISTRY.get_sample_value("cardroom_telegram_calls_total", labels) or 0.0


def refusals() -> float:
    return REGISTRY.get_sample_value("cardroom_telegram_429_total") or 0.0


async def blocked(name: str) -> dict[str, Any]:
    raise Forbidden("Forbidden: bot was blocked by the user")


async def test_each_call_is_counted_by_method_and_by_how_telegram_answered() -> None:
    limiter = BudgetRateLimiter(CallBudget(Limits()))
    ok, retry, forbidden = (
        counted("sendDice", "ok"),
        counted("sendDice", "retry_after"),
        counted("sendVenue", "forbidden"),
    )
    told_429 = refusals()
    telegram = Telegram(refusals=1, wait=1)
    await asyncio.wait_for(
        limiter.process_request(telegram, ("dice",), {}, "sendDice", GROUP, None), 10
    )
    assert counted("sendDice", "retry_after") == retry + 1
    assert refusals() == told_429 + 1
    assert counted("sendDice", "ok") == ok + 1, "the call made again after the pause went"
    with pytest.raises(Forbidden):
        await limiter.process_request(blocked, ("venue",), {}, "sendVenue", PRIVATE, None)
    assert counted("sendVenue", "forbidden") == forbidden + 1
    assert counted("sendVenue", "ok") == 0


async def test_a_lookup_is_counted_too() -> None:
    limiter = BudgetRateLimiter(CallBudget(Limits()))
    before = counted("getChatMemberCount", "ok")
    await limiter.process_request(Telegram(), ("count",), {}, "getChatMemberCount", GROUP, None)
    assert counted("getChatMemberCount", "ok") == before + 1


async def test_the_wait_for_a_chats_budget_is_recorded() -> None:
    # One call in 0.3 s in a private chat: the second call waits about that long.
    limiter = BudgetRateLimiter(CallBudget(Limits(private_window=0.3)))

    def waits(suffix: str, **labels: str) -> float:
        name = f"cardroom_budget_wait_seconds_{suffix}"
        return REGISTRY.get_sample_value(name, labels) or 0.0

    count, total, at_once = waits("count"), waits("sum"), waits("bucket", le="0.1")
    telegram = Telegram()
    for name in ("first", "second"):
        await limiter.process_request(telegram, (name,), {}, "sendMessage", PRIVATE, None)
    assert waits("count") == count + 2
    assert waits("bucket", le="0.1") == at_once + 1, "the first call did not wait"
    assert 0.25 <= waits("sum") - total < 1
