"""Answers stay where they were asked (issue #35): a group with no live table has its whole
window for them; an answer goes to its asker's private chat only when the group truly cannot
take it soon — in the asker's own language, saying truthfully why, with the group's name
isolated from the line around it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.telegram.sender.budget import Limits, Priority
from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.fakes import FakeBotApi, FakeChat, FakeUser

#: A name that would turn the rest of its line around (U+202E, right-to-left override).
EVIL = "\u202eanna"


@pytest.fixture
async def strict(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with its production budget and reply limits against Telegram's strict
    windows."""
    harness = Harness(
        FakeBotApi(flood_limits=True), sqlite_url(tmp_path), limits=Limits(), limit_replies=True
    )
    await harness.start()
    yield harness
    await harness.stop()


async def ask(h: Harness, user: FakeUser, group: FakeChat, command: str) -> None:
    await h.api.send_text(user, group, command)
    await h.api.settle(quiet=0.05, timeout=5)


async def test_six_commands_in_a_quiet_group_are_all_answered_there(strict: Harness) -> None:
    h, api = strict, strict.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    for user in (anna, boris):
        await say(h, user, None, "/start")
    private = {user.id: len(api.bot_messages(user)) for user in (anna, boris)}
    commands = [
        (anna, "/help"),
        (boris, "/top"),
        (anna, "/rules rank"),
        (boris, "/nextgame"),
        (anna, "/pings"),
        (boris, "/new chess"),
    ]
    for user, command in commands:
        await ask(h, user, group, command)
    await api.wait_until(lambda: len(api.bot_messages(group)) >= len(commands), timeout=15)
    await h.settle()
    answers = [m.text for m in api.bot_messages(group)]
    assert len(answers) == len(commands), answers
    assert "do not know" in answers[-1] or "chess" not in answers[-1]
    for user in (anna, boris):
        assert len(api.bot_messages(user)) == private[user.id], "nothing went private"


async def english_group(
    h: Harness, admin: FakeUser, title: str, members: list[FakeUser]
) -> FakeChat:
    """A group whose admin chose English for it."""
    group = h.api.add_group(title, admins=[admin], members=members)
    await say(h, admin, group, "/language")
    chosen = await press(h, admin, h.api.bot_messages(group)[-1], "English")
    assert chosen.text == "I speak English here."
    return group


async def test_a_member_who_asks_a_lot_is_told_so_in_his_own_language(strict: Harness) -> None:
    h, api = strict, strict.api
    anna, ivo = api.add_user("Anna"), api.add_user("Ivo", language_code="hr")
    group = await english_group(h, anna, "Card club", [ivo])
    await say(h, ivo, None, "/start")
    before = len(api.bot_messages(ivo))
    room = h.app.bot_data["cardroom"] if h.app else None
    assert room is not None
    many = [f"/rules {game}" for game in GAMES] + ["/help", "/top"]
    for command in many[: room.replies.per_user]:
        await ask(h, ivo, group, command)
    assert len(api.bot_messages(ivo)) == before, "his share of the group's answers"
    await ask(h, ivo, group, "/new chess")
    await api.wait_until(lambda: len(api.bot_messages(ivo)) > before, timeout=10)
    diverted = api.bot_messages(ivo)[-1].text
    assert "Card club" in diverted
    assert "zauzeta" not in diverted, "the group was not busy: he asked a lot"
    assert "Ne znam tu igru" in diverted, "Croatian, heading and body"
    assert "I do not know" not in api.bot_messages(group)[-1].text


GAMES = ["rank", "trumps", "davayka", "progression", "advantage"]


async def test_a_busy_group_sends_the_answer_privately_saying_why_in_the_askers_words(
    strict: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)  # the handler's level too (the conftest leaves WARNING)
    h, api = strict, strict.api
    assert h.app is not None
    room = h.app.bot_data["cardroom"]
    room.notes.divert_after, room.notes.drop_after = 0.3, 1.0
    anna = api.add_user("Anna")
    olga = api.add_user("Olga", language_code="ru")
    boris = api.add_user("Boris", started=False)
    group = await english_group(h, anna, "\u202eCard club", [olga, boris])
    await say(h, olga, None, "/start")
    budget = room.publisher.budget
    while budget.free_at(group.id, Priority.TABLE) <= budget.now():
        await budget.take(group.id, Priority.TABLE)  # the group's window is full: its games
    await api.send_text(olga, group, "/help")
    await api.send_text(boris, group, "/rules rank")  # Boris never started the bot
    await api.wait_until(lambda: "Card club" in api.bot_messages(olga)[-1].text)
    diverted = api.bot_messages(olga)[-1].text
    assert "\u202e" not in diverted, "the group's title is isolated, its override gone"
    assert "занята" in diverted or "много сообщений" in diverted, diverted
    assert "What I can do" not in diverted and "I host" not in diverted, "all of it Russian"
    await asyncio.sleep(1.5)
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert any("/rules" in line for line in dropped), dropped
    assert all(r.levelno <= logging.INFO for r in caplog.records if "dropped" in r.getMessage())


async def test_names_with_bidi_controls_are_isolated_everywhere(harness: Harness) -> None:
    """The greeting, /nextgame's answer, and the notice of a new game in a group whose title
    holds an override: no override reaches a message (issue #35, item 10)."""
    h, api = harness, harness.api
    anna, mallory = api.add_user("Anna"), api.add_user(EVIL)
    group = api.add_group("\u202ebulc draC", admins=[anna], members=[mallory])
    greeting = await say(h, mallory, None, "/start")
    assert greeting.startswith("Hi, anna!"), greeting
    await say(h, anna, None, "/start")
    answer = await say(h, mallory, group, "/nextgame")
    assert "\u202e" not in answer and "anna, I will write" in answer
    await say(h, anna, group, "/new rank")
    await api.wait_until(lambda: "A new game" in api.bot_messages(mallory)[-1].text)
    notice = api.bot_messages(mallory)[-1].text
    assert "\u202e" not in notice and "«bulc draC»" in notice, notice
    for chat in (group, mallory, anna):
        for message in api.bot_messages(chat):
            assert "\u202e" not in (message.text or ""), message.text


async def test_a_cancel_diverted_from_a_busy_group_is_all_in_the_askers_language(
    strict: Harness,
) -> None:
    h, api = strict, strict.api
    assert h.app is not None
    room = h.app.bot_data["cardroom"]
    room.notes.divert_after = 0.3
    anna, olga = api.add_user("Anna"), api.add_user("Olga", language_code="ru")
    group = await english_group(h, anna, "Card club", [olga])
    await say(h, olga, None, "/start")
    await say(h, olga, group, "/new trumps")
    budget = room.publisher.budget
    while budget.free_at(group.id, Priority.TABLE) <= budget.now():
        await budget.take(group.id, Priority.TABLE)  # the group's window is full: its game
    await api.send_text(olga, group, "/cancel")

    def diverted() -> list[str]:
        return [m.text for m in api.bot_messages(olga) if (m.text or "").startswith("💬")]

    await api.wait_until(lambda: bool(diverted()), timeout=10)
    (cancelled,) = diverted()
    assert cancelled.startswith("💬 Из «Card club»"), cancelled
    assert "cancelled" not in cancelled and "отменена" in cancelled, cancelled
