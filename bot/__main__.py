"""``python -m bot``: configure logging, migrate the database, run the bot.

Its exit status is for a supervisor (systemd's ``RestartPreventExitStatus=2``): 0 a clean
stop (SIGTERM or SIGINT, at any moment from the first); 1 the lead was lost (a standby takes
over: start again); 2 a setting to fix (a bad or missing setting, a refused token or
password, a database that cannot be opened or written, an address the bot may not listen on):
starting again changes nothing; 3 a fault that may pass (the database not reachable after
``DATABASE_WAIT_SECONDS`` of waiting for it, Telegram after ``TELEGRAM_WAIT_SECONDS``, a port
another process holds): start again.

``python -m bot --sandbox [--port 8080]`` runs the same bot against Cardroom's own Bot API
emulator on 127.0.0.1, with a chat page to play in the browser (see :mod:`bot.sandbox`).
``python -m bot copy-database --from URL --to URL`` copies a Cardroom database into a new,
empty one (:mod:`bot.storage.copy`); ``python -m bot --version`` says the release.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from bot.json_logs import JsonFormatter
from bot.redaction import (
    SecretRedactor,
    redact_logs,
    redact_uncaught_exceptions,
    secrets_to_redact,
)
from bot.settings import MissingTokenError, Settings, describe_errors
from bot.version import version

if TYPE_CHECKING:
    from bot.app import App

logger = logging.getLogger(__name__)

SANDBOX_PORT = 8080
#: Where python-telegram-bot reaches Telegram unless ``TELEGRAM_API_BASE_URL`` says otherwise.
TELEGRAM_API = "https://api.telegram.org"
#: The exit statuses of a start that cannot happen: a setting to fix (a supervisor must not
#: start the bot again), or a fault that may pass (it should).
EXIT_SETTING: Final = 2
EXIT_TRANSIENT: Final = 3


class Stopped(BaseException):
    """SIGTERM or SIGINT came while the bot was starting: stop where it is, exit 0.

    A :class:`BaseException`, like :class:`KeyboardInterrupt`, so that no ``except Exception``
    on the way takes it for a fault."""


def _stop_starting(signum: int, _frame: FrameType | None) -> None:
    raise Stopped(signal.Signals(signum).name)


def honour_stop_signals() -> dict[int, Any]:
    """From now on, SIGTERM and SIGINT stop the start-up wherever it is (:class:`Stopped`),
    until the run installs its own handlers (:meth:`bot.serve.Process.run`); the handlers
    there were before, to put back.

    Without a handler of its own, a process that is PID 1 in a container ignores SIGTERM:
    a stop during the migrations or the wait for the database would wait for SIGKILL.
    """
    if threading.current_thread() is not threading.main_thread():
        return {}  # signals are the main thread's (a test may call main() from another)
    before: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        before[signum] = signal.signal(signum, _stop_starting)
    return before


def configure_logging(
    level: str, secrets: Mapping[str, str] | None = None, log_format: str = "text"
) -> SecretRedactor:
    """Log to stderr at ``level``, as text or one JSON object per line (``log_format``
    ``json``: :class:`~bot.json_logs.JsonFormatter`), with ``secrets`` (each with its
    placeholder) replaced in every log line and in the traceback of an uncaught exception;
    the redactor doing it."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler])
    # httpx logs every request at INFO: noise, one line per Bot API call.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # APScheduler warns when a poll is skipped because the previous one still runs: expected.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    # Alembic names each of its plugins at INFO as it loads them: noise at every start.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    redactor = SecretRedactor(secrets or {})
    redact_logs(redactor)
    redact_uncaught_exceptions(redactor)
    if log_format == "json":
        # A traceback nobody caught is a log record too, one line, through the redactor.
        sys.excepthook = _log_uncaught
        threading.excepthook = _log_uncaught_in_thread
    return redactor


def _log_uncaught(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    logging.getLogger("bot").critical("Uncaught exception", exc_info=(kind, error, trace))


def _log_uncaught_in_thread(arguments: threading.ExceptHookArgs) -> None:
    if arguments.exc_type is SystemExit or arguments.exc_value is None:
        return
    name = arguments.thread.name if arguments.thread is not None else "?"
    logging.getLogger("bot").critical(
        "Uncaught exception in thread %s",
        name,
        exc_info=(arguments.exc_type, arguments.exc_value, arguments.exc_traceback),
    )


def report_bad_settings(error: ValidationError) -> int:
    """One line per bad setting on stderr; the exit status for a configuration error."""
    for line in describe_errors(error):
        print(f"cardroom: {line}", file=sys.stderr)
    return 2


def log_in(
    application: App,
    seconds: float = 0,
    base_url: str | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Check the token (``getMe``) on the event loop the run will use (:func:`bot.serve.serve`),
    waiting up to ``seconds`` for a Bot API (at ``base_url``, Telegram's when ``None``) that
    cannot be reached yet (:func:`bot.startup.wait_for_telegram`).

    python-telegram-bot checks the token too, but logs a refused one at ERROR with its
    traceback before it raises; checked here first, a refusal is one line from :func:`main`,
    and the bot stays initialized, so the run does not ask again.
    """
    from bot.startup import wait_for_telegram

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        wait_for_telegram(
            lambda: loop.run_until_complete(application.bot.initialize()),
            seconds,
            bot_api_shown(base_url),
            sleep=sleep,
            clock=clock,
        )
    except BaseException:
        close_loop(loop)
        asyncio.set_event_loop(None)
        raise


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what still runs on ``loop`` (a try cut short by SIGTERM: :class:`Stopped`), let
    it end, and close the loop: no task is left to be destroyed while pending."""
    if not loop.is_closed():
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Cardroom, a Telegram bot that hosts card games in group chats. "
        "Settings come from the environment or .env (see .env.example).",
        epilog="Also: python -m bot --version; python -m bot copy-database --from URL --to URL "
        "copies a Cardroom database into a new, empty one, e.g. from SQLite to PostgreSQL "
        "(see its --help).",
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
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:
        print(f"cardroom {version()}")
        return 0
    if words[:1] == ["copy-database"]:
        return copy_database_command(words[1:])
    arguments = parse_arguments(argv)
    if arguments.sandbox:
        return sandbox(arguments.port, arguments.database_url)
    before = honour_stop_signals()  # first: a stop may come at any moment
    try:
        return run(arguments)
    except Stopped as stopped:
        logger.info("Stopped while starting (%s)", stopped)
        return 0
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def run(arguments: argparse.Namespace) -> int:
    """Start the bot and run it until it stops; the exit status."""
    try:
        settings = Settings()
        token = settings.require_token()
    except ValidationError as error:
        return report_bad_settings(error)
    except MissingTokenError as error:
        return report_fault(str(error))
    webhook_secret = settings.webhook_secret_token() if settings.webhook_url else None
    redactor = configure_logging(
        settings.log_level, secrets_to_redact(token, webhook_secret), settings.log_format
    )

    from telegram.error import BadRequest, InvalidToken, NetworkError

    from bot.app import build_application
    from bot.serve import ServeError, serve
    from bot.startup import (
        StartUpError,
        check_database_url,
        claim_database,
        prepare_database,
        raise_open_file_limit,
        wait_for_database,
    )

    try:
        # Before anything reads the URL: one the bot cannot open is one line, not a traceback.
        check_database_url(settings.database_url)
        leadership = claim_database(settings.database_url, token)
        wait_for_database(settings.database_url, settings.database_wait_seconds)
        prepare_database(settings.database_url)
    except StartUpError as error:
        return report_fault(str(error), EXIT_TRANSIENT if error.transient else EXIT_SETTING)
    raise_open_file_limit()  # every socket, post and connection is an open file
    application = build_application(settings, settle_memory=True)
    try:
        log_in(application, settings.telegram_wait_seconds, settings.telegram_api_base_url)
        return serve(application, settings, leadership)
    except InvalidToken as error:
        # The exception's own message quotes the token; its cause is Telegram's answer.
        answer = redactor.redact(str(error.__cause__ or error))
        return report_fault(
            f"Telegram refused TELEGRAM_BOT_TOKEN ({answer}): copy the token from @BotFather again"
        )
    except ServeError as error:
        return report_fault(str(error), EXIT_TRANSIENT if error.transient else EXIT_SETTING)
    except NetworkError as error:
        if isinstance(error, BadRequest):  # an answer from Telegram, not a network fault
            raise
        return report_fault(
            redactor.redact(unreachable(settings.telegram_api_base_url, error)), EXIT_TRANSIENT
        )
    return 0


def report_fault(line: str, status: int = EXIT_SETTING) -> int:
    """``line`` on stderr as the bot's last word; ``status``, the exit status for a start-up
    fault (:data:`EXIT_SETTING` or :data:`EXIT_TRANSIENT`).

    Logged as JSON (level CRITICAL: the process ends) where the logs are JSON, so that every
    line a shipper reads is one; otherwise printed as ``cardroom: <line>``.
    """
    if any(isinstance(h.formatter, JsonFormatter) for h in logging.getLogger().handlers):
        logging.getLogger("cardroom").critical("%s", line)
    else:
        print(f"cardroom: {line}", file=sys.stderr)
    return status


def unreachable(base_url: str | None, error: Exception) -> str:
    """Why the bot could not reach the Bot API at ``base_url`` (Telegram's when ``None``),
    with what to check; a password in ``base_url`` is hidden."""
    if base_url is None:
        return (
            f"could not reach {bot_api_shown(base_url)}: {error}; "
            "check that this machine can reach it (network, firewall, proxy)"
        )
    return (
        f"could not reach {bot_api_shown(base_url)}: {error}; "
        "check that this server runs and the URL is right"
    )


def bot_api_shown(base_url: str | None) -> str:
    """The Bot API at ``base_url`` (Telegram's when ``None``) as a line names it, a password
    in the URL hidden."""
    if base_url is None:
        return f"Telegram at {TELEGRAM_API}"
    return f"the Bot API at TELEGRAM_API_BASE_URL {without_password(base_url)}"


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


def copy_database_command(argv: Sequence[str]) -> int:
    """``python -m bot copy-database --from URL --to URL``: every row of one Cardroom database
    copied into another, empty one (:mod:`bot.storage.copy`); one line per table on stdout.
    Exit status 0 copied, 2 refused (say what to fix), 3 a database not reachable now."""
    parser = argparse.ArgumentParser(
        prog="python -m bot copy-database",
        description="Copy every row of a Cardroom database into a new, empty one: the way "
        "from SQLite on one machine to PostgreSQL for several. Stop the bot first. The source "
        "is only read and must be at this release's newest schema; the target is migrated, "
        "filled in one transaction and checked table by table.",
    )
    parser.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="URL",
        help="the database to copy, e.g. sqlite+aiosqlite:///./data/cardroom.db",
    )
    parser.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="URL",
        help="the empty database to fill, e.g. postgresql+asyncpg://cardroom:…@host/cardroom",
    )
    arguments = parser.parse_args(argv)

    from bot.startup import StartUpError, check_database_url
    from bot.storage.copy import CopyRefused, CopyUnreachable, copy_database
    from bot.storage.migrate import shown_url

    try:
        check_database_url(arguments.source, setting="--from")
        check_database_url(arguments.target, setting="--to")
    except StartUpError as error:
        return report_fault(str(error))
    if arguments.source == arguments.target:
        return report_fault("--from and --to name the same database: copy into another one")
    try:
        copied = copy_database(
            arguments.source,
            arguments.target,
            lambda table: print(f"{table.table}: {rows_said(table.rows)}", flush=True),
        )
    except CopyRefused as error:
        return report_fault(str(error))
    except CopyUnreachable as error:
        return report_fault(str(error), EXIT_TRANSIENT)
    rows = sum(table.rows for table in copied)
    print(
        f"Copied {rows_said(rows)} in {len(copied)} tables from {shown_url(arguments.source)} to "
        f"{shown_url(arguments.target)}; each table's count matches the source's. Start the "
        "bot with DATABASE_URL set to the new database."
    )
    return 0


def rows_said(rows: int) -> str:
    return "1 row" if rows == 1 else f"{rows} rows"


if __name__ == "__main__":
    sys.exit(main())
