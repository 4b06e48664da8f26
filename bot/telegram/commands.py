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

from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, translator

logger = logging.getLogger(__name__)

PRIVATE_COMMANDS = ("new", "rules", "stats", "top", "history", "language", "pings", "help")
#: ``/nextgame`` is a group's alone: a private chat's games are dealt at once.
GROUP_COMMANDS = (
    "new",
    "nextgame",
    "cancel",
    "rules",
    "top",
    "stats",
    "history",
    "language",
    "pings",
    "help",
)


async def register_commands(bot: Bot) -> None:
    """Set the command menus for private chats and groups, in every language we speak.

    English is also the default for users whose app language we do not speak.
    """
    try:
        for language in SUPPORTED_LANGUAGES:
            t = translator(language)
            code = None if language == DEFAULT_LANGUAGE else language
            for commands, scope in (
                (PRIVATE_COMMANDS, BotCommandScopeAllPrivateChats()),
                (GROUP_COMMANDS, BotCommandScopeAllGroupChats()),
            ):
                await bot.set_my_commands(
                    [BotCommand(c, t(f"command.{c}")) for c in commands],
                    scope=scope,
                    language_code=code,
                )
    except TelegramError as error:
        logger.warning("Could not register the command menus: %s", error)
