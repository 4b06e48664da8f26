"""``python -m bot``: configure logging, migrate the database, run the bot.

``python -m bot --sandbox [--port 8080]`` runs the same bot against Cardroom's own Bot API
emulator on 127.0.0.1, with a chat page to play in the browser (see :mod:`bot.sandbox`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import ValidationError

from bot.redaction import (
    SecretRedactor,
    redact_logs,
    redact_uncaught_exceptions,
    secrets_to_redact,
)
from bot.settings import MissingTokenError, Settings, describe_errors

if TYPE_CHECKING:
    from bot.app import App

logger = logging.getLogger(__name__)

SANDBOX_PORT = 8080


def configure_logging(level: str, secrets: Mapping[str, str] | None = None) -> SecretRedactor:
    """Log to stderr at ``level``, with ``secrets`` (each with its placeholder) replaced in
    every log line and in the traceback of an uncaught exception; the redactor doing it."""
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # httpx logs every request at INFO: noise, one line per Bot API call.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # APScheduler warns when a poll is skipped because the previous one still runs: expected.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    redactor = SecretRedactor(secrets or {})
    redact_logs(redactor)
    redact_uncaught_exceptions(redactor)
    return redactor


def report_bad_settings(error: ValidationError) -> int:
    """One line per bad setting on stderr; the exit status for a configuration error."""
    for line in describe_errors(error):
        print(f"cardroom: {line}", file=sys.stderr)
    return 2


def log_in(application: App) -> None:
    """Check the token (``getMe``) on the event loop ``run_polling``/``run_webhook`` will use.

    python-telegram-bot checks it too, but logs a refused token at ERROR with its traceback
    before it raises; checked here first, a refusal is one line from :func:`main`, and the
    bot stays initialized, so the run does not ask again.
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(application.bot.initialize())
    except BaseException:
        loop.close()
        raise


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
    try:
        settings = Settings()
        token = settings.require_token()
    except ValidationError as error:
        return report_bad_settings(error)
    except MissingTokenError as error:
        print(f"cardroom: {error}", file=sys.stderr)
        return 2
    webhook_secret = settings.webhook_secret_token() if settings.webhook_url else None
    redactor = configure_logging(settings.log_level, secrets_to_redact(token, webhook_secret))

    from telegram.error import InvalidToken

    from bot.app import build_application
    from bot.serve import serve
    from bot.storage.migrate import upgrade

    upgrade(settings.database_url)
    application = build_application(settings, settle_memory=True)
    try:
        log_in(application)
        serve(application, settings)
    except InvalidToken as error:
        # The exception's own message quotes the token; its cause is Telegram's answer.
        answer = redactor.redact(str(error.__cause__ or error))
        print(
            f"cardroom: Telegram refused TELEGRAM_BOT_TOKEN ({answer}): "
            "copy the token from @BotFather again",
            file=sys.stderr,
        )
        return 2
    return 0


def sandbox(port: int, database_url: str | None) -> int:
    """The bot against its own Bot API emulator, with the chat page, until Ctrl-C."""
    try:
        from bot.i18n import SUPPORTED_LANGUAGES
        from bot.sandbox.run import SANDBOX_DATABASE_URL, run_sandbox
        from bot.storage.migrate import upgrade

        try:
            settings = Settings(database_url=database_url or SANDBOX_DATABASE_URL)
        except ValidationError as error:
            return report_bad_settings(error)
        configure_logging(settings.log_level)
        upgrade(settings.database_url)
        return run_sandbox(settings, port=port, languages=SUPPORTED_LANGUAGES)
    except KeyboardInterrupt:  # Ctrl-C while starting
        return 0


if __name__ == "__main__":
    sys.exit(main())
