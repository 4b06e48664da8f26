"""The database checks ``python -m bot`` makes before it starts the bot, the wait for
Telegram, and the one limit of the process it raises (:func:`raise_open_file_limit`).

Each fault is raised as :class:`StartUpError`, whose message is one line for the person
starting the bot: the URL no driver can open, the server that does not answer, the file that
cannot be written. A password in the URL is never part of it. A fault that may pass by itself
(:attr:`StartUpError.transient`: a server not up yet) is told apart from one to fix, so that a
supervisor restarts on the first and not on the second; a database server that is not up yet
is waited for first (:func:`wait_for_database`), and so is Telegram not reachable yet, with
the same pauses (:func:`wait_for_telegram`: its faults are Telegram's own errors).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import Callable
from typing import Final

from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InvalidRequestError, NoSuchModuleError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from bot.storage.database import create_engine
from bot.storage.leadership import (
    AnotherProcess,
    Leadership,
    SqliteLeadership,
    leadership_for,
)
from bot.storage.migrate import MigrationError, failure_of, is_transient, shown_url, upgrade

logger = logging.getLogger(__name__)

#: The database URLs the bot is made for, as the messages suggest them.
DATABASES_THE_BOT_OPENS = (
    "sqlite+aiosqlite:///path/to/cardroom.db or postgresql+asyncpg://user:password@host/database"
)
#: What installs the driver of each scheme the bot is made for.
DRIVER_INSTALLS = {
    "sqlite+aiosqlite": 'pip install aiosqlite (or reinstall the bot: pip install ".")',
    "postgresql+asyncpg": 'pip install ".[postgres]"',
}


#: The pause after a first refusal (of the database, of Telegram), doubled after each until
#: :data:`LONGEST_PAUSE`.
FIRST_PAUSE: Final = 0.5
LONGEST_PAUSE: Final = 5.0
#: How long one try to connect may take: a server whose packets are dropped never refuses.
TRY_SECONDS: Final = 10.0


class Backoff:
    """The pauses between the tries of something not up yet: :data:`FIRST_PAUSE`, doubled
    after each until :data:`LONGEST_PAUSE`, within ``seconds`` of the first try (the last
    pause cut short to end there): a server coming up is found soon after it does, and one
    that never comes is given up on at a bound a supervisor can count on."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._started = clock()
        self._pause = FIRST_PAUSE

    def next_pause(self) -> float | None:
        """The pause before the next try; ``None`` once ``seconds`` have passed: give up."""
        left = self.seconds - (self._clock() - self._started)
        if left <= 0:
            return None
        pause = min(self._pause, left)
        self._pause = min(self._pause * 2, LONGEST_PAUSE)
        return pause


class StartUpError(Exception):
    """A fault that keeps the bot from starting; the message is the one line to print.

    ``transient``: the fault may pass by itself (the database or Telegram not reachable, or
    not up yet), so starting again later may work; otherwise it is a setting or a file to fix.
    """

    def __init__(self, line: str, *, transient: bool = False) -> None:
        super().__init__(line)
        self.transient = transient


def raise_open_file_limit() -> tuple[int, int]:
    """Raise this process' soft limit of open files to its hard limit; the soft limit before
    and after, said in the log at INFO.

    Every connection is an open file — each Mini App socket, each webhook post, each call to
    Telegram, each database connection — and the soft limit is often 1,024 while the hard one,
    which a process may go up to by itself, is far higher. A limit that cannot be raised is
    said and kept.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        logger.info("Open files: at most %s (the hard limit)", _shown_limit(soft))
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as error:
        # macOS refuses an infinite soft limit (its kernel caps it lower): keep the soft one.
        logger.info(
            "Open files: at most %s; could not raise it to the hard limit %s (%s)",
            _shown_limit(soft),
            _shown_limit(hard),
            error,
        )
        return soft, soft
    logger.info(
        "Open files: at most %s, raised from %s to the hard limit",
        _shown_limit(hard),
        _shown_limit(soft),
    )
    return soft, hard


def _shown_limit(limit: int) -> str:
    return "unlimited" if limit == resource.RLIM_INFINITY else str(limit)


def prepare_database(url: str, setting: str = "DATABASE_URL") -> None:
    """Check that the bot can open the database at ``url`` (named ``setting`` where it came
    from), bring it to the newest schema, and check that the bot may write it.

    Must not run inside an event loop. Raises :class:`StartUpError`.
    """
    check_database_url(url, setting)
    try:
        upgrade(url)
    except MigrationError as error:
        raise StartUpError(str(error), transient=error.transient) from error
    try:
        asyncio.run(_write_nothing(url))
    except (DBAPIError, OSError) as error:
        logger.debug("The database refused a write: %s: %s", type(error).__name__, error)
        raise StartUpError(
            f"could not write to the database {shown_url(url)}: {failure_of(error)}",
            transient=is_transient(error),
        ) from error


def wait_for_database(
    url: str,
    seconds: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Wait up to ``seconds`` for the database server at ``url`` to take a connection.

    A server that is not up yet — it refuses connections, its host name does not resolve yet,
    it is starting up (:func:`~bot.storage.migrate.is_transient`) — is tried again after
    0.5 s, 1 s, 2 s… at most :data:`LONGEST_PAUSE` apart, each refusal said in one line at
    WARNING with the pause before the next try; still not up after ``seconds``, it is
    :class:`StartUpError` (transient). A fault to fix (a refused password, no such database)
    is :class:`StartUpError` at once. A SQLite file has no server to wait for: nothing is
    tried. Must not run inside an event loop.
    """
    if make_url(url).get_backend_name() == "sqlite":
        return
    shown = shown_url(url)
    backoff = Backoff(seconds, clock)
    tries = 0
    while True:
        tries += 1
        try:
            asyncio.run(_connect(url))
        except (DBAPIError, OSError) as error:  # OSError: TimeoutError and socket.gaierror too
            fault: DBAPIError | OSError = error
        else:
            if tries > 1:
                logger.info("The database %s answers (try %d)", shown, tries)
            return
        if not is_transient(fault):
            raise StartUpError(
                f"could not connect to the database {shown}: {failure_of(fault)}"
            ) from fault
        wait = backoff.next_pause()
        if wait is None:
            raise StartUpError(
                f"could not connect to the database {shown} within {seconds:g} s "
                f"(DATABASE_WAIT_SECONDS): {failure_of(fault)}",
                transient=True,
            ) from fault
        logger.warning(
            "The database %s is not up yet (%s); trying again in %.1f s",
            shown,
            failure_of(fault),
            wait,
        )
        sleep(wait)


def wait_for_telegram(
    log_in: Callable[[], None],
    seconds: float,
    shown: str,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Log in to the Bot API (``log_in``: one ``getMe``; ``shown``: where, as a line names
    it), waiting up to ``seconds`` for it to be reachable.

    A Bot API not reachable — a :class:`~telegram.error.NetworkError`: refused, timed out, a
    name not resolving, a proxy's 5xx; the network or a proxy still coming up — is tried again
    after 0.5 s, 1 s, 2 s… at most :data:`LONGEST_PAUSE` apart (:class:`Backoff`), each try
    said in one line at WARNING with the pause before the next; still not reachable after
    ``seconds``, the last error is raised. A refused token
    (:class:`~telegram.error.InvalidToken`) and any answer of Telegram's
    (:class:`~telegram.error.BadRequest`) are raised at once: asking again changes nothing.
    """
    from telegram.error import BadRequest, NetworkError

    backoff = Backoff(seconds, clock)
    tries = 0
    while True:
        tries += 1
        try:
            log_in()
        except NetworkError as error:
            if isinstance(error, BadRequest):  # an answer from Telegram, not a network fault
                raise
            pause = backoff.next_pause()
            if pause is None:
                raise
            logger.warning("Could not reach %s (%s); trying again in %.1f s", shown, error, pause)
            sleep(pause)
        else:
            if tries > 1:
                logger.info("Reached %s (try %d)", shown, tries)
            return


async def _connect(url: str) -> None:
    """Connect to the database at ``url`` and ask it one thing, within :data:`TRY_SECONDS`."""
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with asyncio.timeout(TRY_SECONDS):
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
    finally:
        await engine.dispose()


def check_database_url(url: str, setting: str = "DATABASE_URL") -> None:
    """:class:`StartUpError` unless ``url`` is a database URL whose scheme (dialect and
    driver) SQLAlchemy can open asynchronously here. Nothing is connected to."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        # Not echoed: whatever it is, it may hold a password.
        raise StartUpError(
            f"{setting} is not a database URL: use {DATABASES_THE_BOT_OPENS}"
        ) from None
    problem = _driver_problem(parsed)
    if problem is None:
        return
    shown = parsed.render_as_string(hide_password=True)
    install = DRIVER_INSTALLS.get(parsed.drivername)
    if install is not None and isinstance(problem, ImportError):
        raise StartUpError(
            f"{setting} {shown} needs the driver {problem.name or parsed.get_driver_name()}, "
            f"which is not installed: {install}"
        )
    raise StartUpError(
        f"{setting} {shown}: the scheme {parsed.drivername!r} is not one the bot can open; "
        f"use {DATABASES_THE_BOT_OPENS}"
    )


def claim_database(url: str, token: str) -> Leadership:
    """How this process will lead (:mod:`bot.storage.leadership`); a SQLite database is
    claimed at once, before anything else touches it: a second process on the same file is
    :class:`StartUpError`, as is a folder where no lock can be made."""
    leadership = leadership_for(url, token)
    if isinstance(leadership, SqliteLeadership):
        try:
            leadership.claim()
        except AnotherProcess as error:
            raise StartUpError(str(error)) from None
        except OSError as error:  # a folder the bot may not write: no lock file
            raise StartUpError(lock_failure(url, error)) from None
    return leadership


def lock_failure(url: str, error: OSError) -> str:
    """The line for a SQLite database at ``url`` whose lock file could not be made (one
    process per file takes it, beside the database)."""
    return (
        f"could not lock the database {shown_url(url)} for this process: {failure_of(error)}; "
        "let the bot's user write the database's folder"
    )


def _driver_problem(url: URL) -> Exception | None:
    """Why SQLAlchemy cannot make an async engine for ``url``, or ``None`` if it can.

    Making the engine loads the dialect and imports its driver, but connects to nothing.
    """
    try:
        create_async_engine(url)
    except (NoSuchModuleError, InvalidRequestError, ImportError, ArgumentError) as error:
        # NoSuchModuleError: no such dialect or driver; InvalidRequestError: a driver that is
        # not async; ImportError: a driver that is not installed.
        return error
    return None


async def _write_nothing(url: str) -> None:
    """Rewrite the schema's version as it is and take it back: the migrations may have had
    nothing to write, and a database that can only be read still answers every read."""
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("UPDATE alembic_version SET version_num = version_num"))
            await connection.rollback()
    finally:
        await engine.dispose()
