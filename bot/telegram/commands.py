"""The command menus Telegram shows, for private chats and for groups."""

from __future__ import annotations

import logging

from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)
from telegram.error import TelegramError

from bot.i18n import DEFAULT_LANGUAGE, translator

logger = logging.getLogger(__name__)

PRIVATE_COMMANDS = ("new", "rules", "stats", "top", "language", "help")
GROUP_COMMANDS = ("new", "cancel", "rules", "top", "stats", "language", "help")


async def register_commands(bot: Bot) -> None:
    """Set the command menus (English; other languages come with their catalogs)."""
    t = translator(DEFAULT_LANGUAGE)
    try:
        await bot.set_my_commands(
            [BotCommand(c, t(f"command.{c}")) for c in PRIVATE_COMMANDS],
            scope=BotCommandScopeAllPrivateChats(),
        )
        await bot.set_my_commands(
            [BotCommand(c, t(f"command.{c}")) for c in GROUP_COMMANDS],
            scope=BotCommandScopeAllGroupChats(),
        )
    except TelegramError as error:
        logger.warning("Could not register the command menus: %s", error)
