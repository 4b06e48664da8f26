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
from urllib.parse import urlsplit, urlunsplit

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
#: Where python-telegram-bot reaches Telegram unless ``TELEGRAM_API_BASE_URL`` says otherwise.
TELEGRAM_API = "https://api.telegram.org"


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
    # Alembic names each of its plugins at INFO as it loads them: noise at every start.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
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
        return report_fault(str(error))
    webhook_secret = settings.webhook_secret_token() if settings.webhook_url else None
    redactor = configure_logging(settings.log_level, secrets_to_redact(token, webhook_secret))

    from telegram.error import BadRequest, InvalidToken, NetworkError

    from bot.app import build_application
    from bot.serve import ServeError, serve
    from bot.startup import (
        StartUpError,
        check_database_url,
        claim_database,
        prepare_database,
        raise_open_file_limit,
    )

    try:
        # Before anything reads the URL: one the bot cannot open is one line, not a traceback.
        check_database_url(settings.database_url)
        leadership = claim_database(settings.database_url, token)
        prepare_database(settings.database_url)
    except StartUpError as error:
        return report_fault(str(error))
    raise_open_file_limit()  # every socket, post and connection is an open file
    application = build_application(settings, settle_memory=True)
    try:
        log_in(application)
        return serve(application, settings, leadership)
    except InvalidToken as error:
        # The exception's own message quotes the token; its cause is Telegram's answer.
        answer = redactor.redact(str(error.__cause__ or error))
        return report_fault(
            f"Telegram refused TELEGRAM_BOT_TOKEN ({answer}): copy the token from @BotFather again"
        )
    except ServeError as error:
        return report_fault(str(error))
    except NetworkError as error:
        if isinstance(error, BadRequest):  # an answer from Telegram, not a network fault
            raise
        return report_fault(redactor.redact(unreachable(settings.telegram_api_base_url, error)))
    return 0


def report_fault(line: str) -> int:
    """``line`` on stderr as the bot's last word; the exit status for a start-up fault."""
    print(f"cardroom: {line}", file=sys.stderr)
    return 2


def unreachable(base_url: str | None, error: Exception) -> str:
    """Why the bot could not reach the Bot API at ``base_url`` (Telegram's when ``None``),
    with what to check; a password in ``base_url`` is hidden."""
    if base_url is None:
        return (
            f"could not reach Telegram at {TELEGRAM_API}: {error}; "
            "check that this machine can reach it (network, firewall, proxy)"
        )
    return (
        f"could not reach the Bot API at TELEGRAM_API_BASE_URL {without_password(base_url)}: "
        f"{error}; check that this server runs and the URL is right"
    )


def without_password(url: str) -> str:
    """``url`` with the password of its ``user:password@`` part, if any, as ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def sandbox(port: int, database_url: str | None) -> int:
    """The bot against its own Bot API emulator, with the chat page, until Ctrl-C."""
    try:
        from bot.i18n import SUPPORTED_LANGUAGES
        from bot.sandbox.run import SANDBOX_DATABASE_URL, run_sandbox
        from bot.sandbox.world import SANDBOX_TOKEN
        from bot.startup import StartUpError, check_database_url, claim_database, prepare_database

        try:
            settings = Settings(database_url=database_url or SANDBOX_DATABASE_URL)
        except ValidationError as error:
            return report_bad_settings(error)
        configure_logging(settings.log_level)
        try:
            check_database_url(settings.database_url, setting="--database-url")
            leadership = claim_database(settings.database_url, SANDBOX_TOKEN)
            prepare_database(settings.database_url, setting="--database-url")
        except StartUpError as error:
            return report_fault(str(error))
        return run_sandbox(
            settings, port=port, languages=SUPPORTED_LANGUAGES, leadership=leadership
        )
    except KeyboardInterrupt:  # Ctrl-C while starting
        return 0


if __name__ == "__main__":
    sys.exit(main())
