"""Rights asked of Telegram: remembered a minute (yes or no), asked once for all who need them
at once, asked afresh after a join."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram import ChatMemberAdministrator, ChatMemberMember, User

from bot.telegram.rights import TelegramRights

GROUP = -100
ANNA = User(1, "Anna", is_bot=False)
BORIS = User(2, "Boris", is_bot=False)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Bot:
    """Answers ``getChatMember`` a moment later: Anna is an admin, Boris a member."""

    def __init__(self) -> None:
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.asked += 1
        await asyncio.sleep(0.01)
        if user_id == ANNA.id:
            return ChatMemberAdministrator(ANNA, *[False] * 12)
        return ChatMemberMember(BORIS)


async def test_a_no_is_remembered_a_minute_like_a_yes() -> None:
    bot, clock = Bot(), Clock()
    rights = TelegramRights(bot, clock)  # type: ignore[arg-type]
    for _ in range(5):
        assert not await rights.is_admin(GROUP, BORIS.id)
        assert await rights.is_admin(GROUP, ANNA.id)
    assert bot.asked == 2
    clock.now += 61
    assert not await rights.is_admin(GROUP, BORIS.id)
    assert bot.asked == 3


async def test_presses_at_once_share_one_question() -> None:
    bot = Bot()
    rights = TelegramRights(bot, Clock())  # type: ignore[arg-type]
    answers = await asyncio.gather(*(rights.is_member(GROUP, BORIS.id) for _ in range(20)))
    assert all(answers) and bot.asked == 1


async def test_a_member_who_joins_is_asked_about_afresh() -> None:
    bot = Bot()
    rights = TelegramRights(bot, Clock())  # type: ignore[arg-type]
    await rights.is_admin(GROUP, BORIS.id)
    rights.forget(GROUP, BORIS.id)
    await rights.is_admin(GROUP, BORIS.id)
    assert bot.asked == 2
