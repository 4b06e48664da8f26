"""``python -m bot``: configure logging, migrate the database, run the bot.

``python -m bot --sandbox [--port 8080]`` runs the same bot against Cardroom's own Bot API
emulator on 127.0.0.1, with a chat page to play in the browser (see :mod:`bot.sandbox`).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

from bot.settings import MissingTokenError, Settings

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
SANDBOX_PORT = 8080


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


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Cardroom, a Telegram bot that hosts card games in group chats. "
        "Settings come from the environment or .env (see .env.example).",
    )
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="try the bot without Telegram: serve a Telegram-compatible Bot API and a chat "
        "page on 127.0.0.1, and play in the browser as several users (no token needed)",
    )
    parser.add_argument(
        "--port",
        type=int,
        help=f"the sandbox's port (default {SANDBOX_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="the sandbox's database (default sqlite+aiosqlite:///./data/sandbox.db; "
        "DATABASE_URL is not used, so a real bot's data stays apart)",
    )
    arguments = parser.parse_args(argv)
    if not arguments.sandbox and (arguments.port is not None or arguments.database_url):
        parser.error("--port and --database-url go with --sandbox")
    if arguments.port is None:
        arguments.port = SANDBOX_PORT
    if not 0 <= arguments.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    return arguments


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    if arguments.sandbox:
        return sandbox(arguments.port, arguments.database_url)
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
    application = build_application(settings, settle_memory=True)
    if settings.webhook_url:
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        application.run_webhook(
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            webhook_url=settings.webhook_url,
            # The path Telegram posts to, as it arrives behind a proxy that keeps it.
            url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
            secret_token=secret,
            allowed_updates=ALLOWED_UPDATES,
        )
    else:
        application.run_polling(allowed_updates=ALLOWED_UPDATES)
    return 0


def sandbox(port: int, database_url: str | None) -> int:
    """The bot against its own Bot API emulator, with the chat page, until Ctrl-C."""
    try:
        from bot.i18n import SUPPORTED_LANGUAGES
        from bot.sandbox.run import SANDBOX_DATABASE_URL, run_sandbox
        from bot.storage.migrate import upgrade

        settings = Settings(database_url=database_url or SANDBOX_DATABASE_URL)
        configure_logging(settings.log_level)
        upgrade(settings.database_url)
        return run_sandbox(settings, port=port, languages=SUPPORTED_LANGUAGES)
    except KeyboardInterrupt:  # Ctrl-C while starting
        return 0


if __name__ == "__main__":
    sys.exit(main())
