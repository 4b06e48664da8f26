"""The command menus Telegram shows: each kind of chat is offered what works there."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from telegram import Bot, Update
from telegram.ext import ApplicationBuilder, CommandHandler

from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, translator
from bot.telegram import handlers
from bot.telegram.commands import GROUP_COMMANDS, PRIVATE_COMMANDS, register_commands
from tests.fakes import FakeBotApi, FakeRequest

GROUP = {"id": -1001000000001, "type": "supergroup", "title": "Card club"}
PRIVATE = {"id": 100000001, "type": "private", "first_name": "Anna"}


@pytest.fixture
async def bot() -> AsyncIterator[tuple[FakeBotApi, Bot]]:
    api = FakeBotApi(flood_limits=False)
    async with Bot(api.token, request=FakeRequest(api)) as bot:
        yield api, bot


def menu(api: FakeBotApi, scope: str, language: str) -> dict[str, str]:
    """The menu the bot set for a kind of chat and a language: command -> description."""
    code = "" if language == DEFAULT_LANGUAGE else language
    key = (json.dumps({"type": scope}, sort_keys=True), code)
    return {command["command"]: command["description"] for command in api.commands[key]}


def command(bot: Bot, chat: dict[str, object], name: str) -> Update:
    """``/name`` written by Anna in ``chat``."""
    text = f"/{name}"
    message = {
        "message_id": 1,
        "date": 0,
        "chat": chat,
        "from": {"id": 100000001, "is_bot": False, "first_name": "Anna"},
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(text)}],
    }
    return Update.de_json({"update_id": 1, "message": message}, bot)


async def test_the_group_menu_offers_pings_in_every_language(
    bot: tuple[FakeBotApi, Bot],
) -> None:
    api, telegram_bot = bot
    await register_commands(telegram_bot)
    for language in SUPPORTED_LANGUAGES:
        group = menu(api, "all_group_chats", language)
        assert group.get("pings") == translator(language)("command.pings"), language
        assert "pings" in menu(api, "all_private_chats", language), language


async def test_each_menu_offers_only_what_works_there_and_a_group_all_of_it(
    bot: tuple[FakeBotApi, Bot],
) -> None:
    _api, telegram_bot = bot
    application = ApplicationBuilder().bot(telegram_bot).updater(None).build()
    handlers.register(application)
    commands = [
        handler
        for group in application.handlers.values()
        for handler in group
        if isinstance(handler, CommandHandler)
    ]

    def answered(chat: dict[str, object]) -> set[str]:
        return {
            name
            for handler in commands
            for name in handler.commands
            if handler.check_update(command(telegram_bot, chat, name))
        }

    in_groups, in_private = answered(GROUP), answered(PRIVATE)
    assert set(GROUP_COMMANDS) == in_groups, "a group's menu: every command a group may use"
    assert set(PRIVATE_COMMANDS) <= in_private, "nothing in a menu that is not answered"
