"""Running the bot: long polling or a webhook server, until a signal stops it."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from bot.app import ALLOWED_UPDATES, App
from bot.settings import Settings

logger = logging.getLogger(__name__)


def serve(application: App, settings: Settings) -> None:
    """Take updates (webhook when ``WEBHOOK_URL`` is set, long polling otherwise) until
    SIGINT or SIGTERM."""
    if settings.webhook_url:
        if settings.webhook_secret is None:
            logger.info(
                "WEBHOOK_SECRET is not set: the webhook accepts only posts carrying a "
                "secret derived from the token"
            )
        application.run_webhook(
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            webhook_url=settings.webhook_url,
            # The path Telegram posts to, as it arrives behind a proxy that keeps it.
            url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
            # Tornado answers 403 to a post without it: no update from anyone else.
            secret_token=settings.webhook_secret_token(),
            allowed_updates=list(ALLOWED_UPDATES),
        )
    else:
        application.run_polling(allowed_updates=list(ALLOWED_UPDATES))
