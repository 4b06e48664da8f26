"""A 429 that still reaches the bot — on a reply, a table's edit, a callback's answer, an
admin check — is waited out: the message goes, the button is answered, nothing is lost, and
the log has one line, no traceback."""

from __future__ import annotations

import logging

import pytest

from tests.e2e.harness import Harness
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press

TOO_MANY = "Too Many Requests: retry after 1"


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
    assert noisy == [], [r.getMessage() for r in noisy]


async def test_a_reply_refused_with_429_still_goes(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    api.fail_next("sendMessage", 429, TOO_MANY, retry_after=1, chat_id=group)
    assert "/rules" in await say(h, anna, group, "/help")
    assert api.stats.errors[("sendMessage", 429)] == 1
    paused = [r for r in caplog.records if "429" in r.getMessage()]
    assert len(paused) == 1 and paused[0].levelno == logging.WARNING
    no_tracebacks(caplog)


async def test_a_tables_edit_refused_with_429_shows_the_newest_state_later(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    anna, boris, vera = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Vera")
    group = api.add_group("Card club", admins=[anna], members=[boris, vera])
    await say(h, anna, group, "/new rank")
    api.fail_next("editMessageText", 429, TOO_MANY, retry_after=1, chat_id=group)
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, vera, h.table(group), "✋ Join")  # meanwhile, the lobby changed again
    await api.wait_until(lambda: "3. Vera" in h.table(group).text, timeout=10)
    assert "2. Boris" in h.table(group).text
    no_tracebacks(caplog)


async def test_a_callback_answer_refused_with_429_is_answered_later(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    api.fail_next("answerCallbackQuery", 429, TOO_MANY, retry_after=1)
    answer = await press(h, boris, h.table(group), "✋ Join")
    assert (
        answer.answered and answer.text == "You are in! Your cards will come in a private message."
    )
    assert api.unanswered_callbacks() == []
    no_tracebacks(caplog)


async def test_an_admin_check_refused_with_429_is_asked_again_not_refused(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    anna, vera = api.add_user("Anna"), api.add_user("Vera")
    group = api.add_group("Card club", admins=[anna, vera])
    await say(h, anna, group, "/new rank")
    await press(h, anna, h.table(group), "🤖 Add computer")
    api.fail_next("getChatMember", 429, TOO_MANY, retry_after=1)
    answer = await press(h, vera, h.table(group), "▶️ Start")
    assert answer.text == "The game is on!", "a real admin is never refused as 'not an admin'"
    assert "a new game" not in h.table(group).text
    no_tracebacks(caplog)
