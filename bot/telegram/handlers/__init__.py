"""The handlers: every update is judged, recorded and answered here — and never waits for a
chat's budget. What a chat should see is handed to the sender (:mod:`bot.telegram.sender`).

- :mod:`~bot.telegram.handlers.room` — the Cardroom (services and sender) and what the
  handlers share: who asks, where, in whose words, and :func:`~.room.say` for a reply;
- :mod:`~bot.telegram.handlers.commands` — ``/start``, ``/help``, ``/rules``, ``/new``,
  ``/cancel``, ``/pings``, ``/language``, and plain text in a private chat;
- :mod:`~bot.telegram.handlers.buttons` — every game and lobby button;
- :mod:`~bot.telegram.handlers.boards` — ``/top``, ``/stats``, ``/history`` and their buttons;
- :mod:`~bot.telegram.handlers.waitlist` — ``/nextgame``, and telling those who asked when a
  lobby opens;
- :mod:`~bot.telegram.handlers.miniapp` — a press made in Davay-ka!'s Mini App;
- :mod:`~bot.telegram.handlers.chat` — membership, a group's upgrade, errors.
"""

from __future__ import annotations

from typing import Any

from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from bot.telegram.handlers import boards, buttons, chat, commands, miniapp, waitlist
from bot.telegram.handlers.chat import handle_error
from bot.telegram.handlers.room import Cardroom, available_games

__all__ = ["Cardroom", "available_games", "handle_error", "register"]

#: Handlers in this group see every update first, and let it go on to the others.
OBSERVERS = -2


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Attach every handler to the application."""
    application.add_handler(MessageHandler(filters.ALL, chat.handle_any_message), OBSERVERS)
    boards.register(application)
    private = filters.ChatType.PRIVATE
    application.add_handler(CommandHandler("start", commands.handle_start, filters=private))
    application.add_handler(CommandHandler("help", commands.handle_help))
    application.add_handler(CommandHandler("rules", commands.handle_rules))
    application.add_handler(CommandHandler("new", commands.handle_new))
    application.add_handler(CommandHandler("cancel", commands.handle_cancel))
    application.add_handler(CommandHandler("language", commands.handle_language))
    application.add_handler(CommandHandler("pings", commands.handle_pings))
    application.add_handler(CommandHandler("nextgame", waitlist.handle_nextgame))
    application.add_handler(
        MessageHandler(private & filters.TEXT & ~filters.COMMAND, commands.handle_private_text)
    )
    application.add_handler(CallbackQueryHandler(buttons.handle_button))
    application.add_handler(miniapp.AppPressHandler())
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chat.handle_migration))
    application.add_handler(
        MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, chat.handle_member_left)
    )
    application.add_handler(
        ChatMemberHandler(chat.handle_my_membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(
        ChatMemberHandler(chat.handle_member_left, ChatMemberHandler.CHAT_MEMBER)
    )
    application.add_error_handler(handle_error)
