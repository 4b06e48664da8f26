"""``python -m bot``: configure logging, migrate the database, run the bot."""

from __future__ import annotations

import logging
import sys

from bot.settings import MissingTokenError, Settings


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # httpx logs every request URL, and the URL holds the bot token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # APScheduler warns when a poll is skipped because the previous one still runs: expected.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)


def main() -> int:
    settings = Settings()
    try:
        settings.require_token()
    except MissingTokenError as error:
        print(f"cardroom: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)

    from bot.app import build_application
    from bot.storage.migrate import upgrade

    upgrade(settings.database_url)
    application = build_application(settings)
    if settings.webhook_url:
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        application.run_webhook(
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            webhook_url=settings.webhook_url,
            secret_token=secret,
            allowed_updates=["message", "callback_query", "my_chat_member"],
        )
    else:
        application.run_polling(allowed_updates=["message", "callback_query", "my_chat_member"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
