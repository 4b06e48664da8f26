"""The fence: no Bot API call leaves a process that does not lead (any more) — asked right
before each call goes out, without a round trip; refused calls are said once, not as errors."""

from __future__ import annotations

import logging

import pytest
from telegram.error import NetworkError

from bot.telegram.sender.budget import CallBudget
from bot.telegram.sender.limiter import BudgetRateLimiter, NotLeading
from tests.telegram.sender.test_limiter import GROUP, PRIVATE, Telegram


async def test_a_process_that_no_longer_leads_makes_no_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    limiter = BudgetRateLimiter(CallBudget())
    leads = [True]
    limiter.fence = lambda: leads[0]
    telegram = Telegram()
    await limiter.process_request(telegram, ("sent",), {}, "sendMessage", GROUP, None)

    leads[0] = False  # its lock's connection died, or it let the lead go
    caplog.set_level(logging.INFO)
    for endpoint, data in (
        ("editMessageText", GROUP),
        ("sendMessage", PRIVATE),
        ("answerCallbackQuery", {}),
        ("setWebhook", {}),
    ):
        with pytest.raises(NotLeading) as refused:
            await limiter.process_request(telegram, (endpoint,), {}, endpoint, data, None)
        assert isinstance(refused.value, NetworkError), "to a caller: lost on the way"
    assert telegram.calls == ["sent"], "nothing left the process"
    said = [r for r in caplog.records if r.name == "bot.telegram.sender.limiter"]
    assert [r.levelno for r in said] == [logging.WARNING], "said once, not as an error"

    # Who the bot is, every process asks as it starts (a standby too); and whether someone
    # is a group's member, a standby asks for the Mini App socket of an onlooker it holds.
    await limiter.process_request(telegram, ("me",), {}, "getMe", {}, None)
    await limiter.process_request(telegram, ("member",), {}, "getChatMember", GROUP, None)
    assert telegram.calls == ["sent", "me", "member"]


async def test_a_call_that_waited_for_its_turn_is_asked_about_as_it_leaves() -> None:
    """The lead may go while a call waits for its chat's budget: the fence is asked when the
    call leaves, not when it was made."""
    limiter = BudgetRateLimiter(CallBudget())
    asked: list[str] = []

    def leads() -> bool:
        asked.append("asked")
        return len(asked) < 2

    limiter.fence = leads
    telegram = Telegram(refusals=1, wait=0)  # a 429: the call goes again after its pause
    with pytest.raises(NotLeading):
        await limiter.process_request(telegram, ("edit",), {}, "editMessageText", GROUP, None)
    assert telegram.calls == ["edit"], "the first try went; the second was refused"


async def test_without_a_fence_every_call_goes() -> None:
    limiter = BudgetRateLimiter(CallBudget())
    telegram = Telegram()
    await limiter.process_request(telegram, ("sent",), {}, "sendMessage", GROUP, None)
    assert telegram.calls == ["sent"]
