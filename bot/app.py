"""The composition root: settings in, a ready python-telegram-bot Application out.

Only this module wires concrete classes together: the database, the services, the publisher,
the handlers and the deadline poller.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from telegram.ext import AIORateLimiter, Application, ApplicationBuilder, BaseRateLimiter
from telegram.request import BaseRequest

from bot.services.games import GameStore
from bot.services.languages import LanguageService
from bot.services.lobby import LobbyService
from bot.services.locks import GameLocks
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.settings import Settings
from bot.storage.database import Database
from bot.telegram import handlers
from bot.telegram.commands import register_commands
from bot.telegram.delivery import GROUP_INTERVAL, PRIVATE_INTERVAL, Publisher
from bot.telegram.handlers import Cardroom
from bot.telegram.poller import POLL_SECONDS, DeadlinePoller

logger = logging.getLogger(__name__)

App = Application[Any, Any, Any, Any, Any, Any]


def file_url_for(base_url: str) -> str:
    """The file URL that goes with a Bot API base URL (``…/bot`` → ``…/file/bot``)."""
    root, _, tail = base_url.rstrip("/").rpartition("/")
    return f"{root}/file/{tail}" if root else base_url


def build_application(
    settings: Settings,
    *,
    request: BaseRequest | None = None,
    get_updates_request: BaseRequest | None = None,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    group_interval: float = GROUP_INTERVAL,
    private_interval: float = PRIVATE_INTERVAL,
    poll_seconds: float = POLL_SECONDS,
    clock: Callable[[], float] = time.time,
) -> App:
    """The bot, ready to ``run_polling`` (or to be driven by tests)."""
    db = Database.from_url(settings.database_url)
    store = GameStore(settings.computer_delay_seconds, clock)
    locks = GameLocks()
    play = PlayService(db, store, locks)
    builder = ApplicationBuilder().token(settings.require_token())
    limiter: Any = rate_limiter or AIORateLimiter(max_retries=3)
    builder = builder.rate_limiter(limiter)
    if settings.telegram_api_base_url:
        builder = builder.base_url(settings.telegram_api_base_url).base_file_url(
            file_url_for(settings.telegram_api_base_url)
        )
    if request is not None:
        builder = builder.request(request)
    if get_updates_request is not None:
        builder = builder.get_updates_request(get_updates_request)

    async def post_init(application: App) -> None:
        await register_commands(application.bot)
        # Redraw what may have changed while the bot was down (not modified = no-op).
        for snapshot in await play.open_snapshots():
            room.publisher.publish(snapshot)
        room.poller.start()
        logger.info("Cardroom is up as @%s", application.bot.username)

    async def post_stop(application: App) -> None:
        await room.poller.stop()

    async def post_shutdown(application: App) -> None:
        await room.poller.stop()
        await room.publisher.close()
        await db.close()

    application = (
        builder.post_init(post_init).post_stop(post_stop).post_shutdown(post_shutdown).build()
    )
    publisher = Publisher(
        application.bot,
        play.remember_table,
        play.remember_panel,
        group_interval=group_interval,
        private_interval=private_interval,
        wall_clock=clock,
    )
    room = Cardroom(
        lobby=LobbyService(db, store, locks, settings.turn_seconds),
        play=play,
        stats=StatsService(db),
        publisher=publisher,
        languages=LanguageService(db),
        poller=DeadlinePoller(play, publisher, poll_seconds),
    )
    application.bot_data["cardroom"] = room
    publisher.on_chat_moved = room.move_chat
    publisher.on_unreachable = room.seat_unreachable
    handlers.register(application)
    return application
