"""One leader per token: the process that handles the inbox, runs the deadlines and owns the
sender. The others take webhooks into the inbox and stand by.

On PostgreSQL the leader holds an advisory lock on a connection of its own
(:class:`PostgresLeadership`): when the process dies, its connection closes and the lock goes
with it, and the first standby to ask next takes it. The same connection listens for updates
the standbys store (``NOTIFY``). SQLite serves one process (:class:`SqliteLeadership`): it
leads from the start, and a second process on the same file is refused at once
(:class:`AnotherProcess`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import make_url

from bot.storage.database import is_sqlite
from bot.storage.inbox import CHANNEL

logger = logging.getLogger(__name__)

#: Seconds between a standby's asks for the lock (a dead leader's successor leads within it).
ASK_EVERY = 0.5
#: Seconds between the leader's checks that its lock's connection is alive, and how long one
#: check may take.
CHECK_EVERY, CHECK_TIMEOUT = 1.0, 2.0
#: PostgreSQL ends a session it has heard nothing from for this long (its lock goes with it).
SILENT_AFTER = 4.0
#: How long a check vouches for the lock: no standby can take it before PostgreSQL has ended
#: this session, which it does only after :data:`SILENT_AFTER` of silence — and a leader that
#: lives has checked again well before (the next check is due after :data:`CHECK_EVERY`, and
#: fails after :data:`CHECK_TIMEOUT`).
VOUCHES_FOR = CHECK_EVERY + CHECK_TIMEOUT
#: Seconds letting the lead go may take: the check in flight, if any, then closing the
#: connection (a connection that does not close in time is cut).
RELEASE_SECONDS = 0.2


class AnotherProcess(Exception):
    """Another process already serves this SQLite database."""


class Leadership(Protocol):
    #: Set when this process has lost the lead (its lock's connection died).
    lost: asyncio.Event

    async def acquire(self, stopping: asyncio.Event) -> bool:
        """Wait until this process leads (``True``), or until ``stopping`` is set."""
        ...

    def leads(self) -> bool:
        """Whether this process leads and knows its lock alive: asked before every Bot API
        call, so it costs no round trip (the fence: nothing leaves a process that no longer
        leads)."""
        ...

    def on_stored(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` whenever another process stores an update in the inbox."""
        ...

    def listen(self, channel: str, heard: Callable[[str], None]) -> None:
        """Call ``heard`` with every payload another process sends on ``channel``, leader or
        not."""
        ...

    async def release(self) -> None:
        """Stop leading at once (a standby takes over)."""
        ...


def lock_key(token: str) -> int:
    """The advisory lock's key for a bot: one leader per token, whatever else shares the
    database. Derived from the bot's id (the token's digits), never from its secret part."""
    bot_id = token.partition(":")[0]
    digest = hashlib.blake2b(f"cardroom:{bot_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def leadership_for(database_url: str, token: str) -> Leadership:
    if is_sqlite(database_url):
        return SqliteLeadership(database_url)
    return PostgresLeadership(database_url, lock_key(token))


class SqliteLeadership:
    """SQLite: the one process leads; a second one on the same file is refused (an exclusive
    ``flock`` on ``<database>.lock``, released by the kernel when the process ends)."""

    def __init__(self, database_url: str) -> None:
        self.lost = asyncio.Event()
        database = make_url(database_url).database
        self.path = (
            None if database in (None, "", ":memory:") else Path(f"{database}.lock").expanduser()
        )
        self._fd: int | None = None

    def claim(self) -> None:
        """Take the file's lock, or :class:`AnotherProcess`."""
        if self.path is None or self._fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AnotherProcess(
                f"another Cardroom process already uses the SQLite database "
                f"{self.path.with_suffix('')}: SQLite serves one process (for several, use "
                "PostgreSQL: DATABASE_URL=postgresql+asyncpg://…)"
            ) from None
        self._fd = fd

    async def acquire(self, stopping: asyncio.Event) -> bool:
        self.claim()
        return True

    def leads(self) -> bool:
        """The one process leads (from its claim until it lets the file go)."""
        return self.path is None or self._fd is not None

    def on_stored(self, wake: Callable[[], None]) -> None:
        """One process: it stores and handles its own updates."""

    def listen(self, channel: str, heard: Callable[[str], None]) -> None:
        """One process: nobody else speaks."""

    async def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file releases the lock
            self._fd = None


class PostgresLeadership:
    """An advisory lock held on a connection of its own (``pg_try_advisory_lock``).

    While it leads, the connection is checked every :data:`CHECK_EVERY`; :meth:`leads` says
    yes only while the last check that succeeded is recent enough to vouch for the lock
    (:data:`VOUCHES_FOR`) and the connection has not closed (asyncpg says so at once).
    Letting go stops the checks without cancelling one in flight — a query cancelled makes
    asyncpg send a cancel request on a connection of its own, which must not be left
    half-open as the connection closes — and closes the connection (the lock goes with it).
    """

    def __init__(self, database_url: str, key: int) -> None:
        self.lost = asyncio.Event()
        url = make_url(database_url).set(drivername="postgresql")
        self.dsn = url.render_as_string(hide_password=False)
        self.key = key
        self._connection: Any = None
        self._watch: asyncio.Task[None] | None = None
        self._stop_watch = asyncio.Event()
        self._wakes: list[Callable[[], None]] = []
        self._channels: dict[str, Callable[[str], None]] = {}
        self._unreachable_said = False
        #: Whether this process holds the lock, and when (``time.monotonic``) the last check
        #: that vouches for it was sent.
        self._leading = False
        self._checked_at = -math.inf

    async def acquire(self, stopping: asyncio.Event) -> bool:
        import asyncpg  # type: ignore[import-untyped]

        while not stopping.is_set():
            try:
                if self._connection is None or self._connection.is_closed():
                    self._connection = await asyncpg.connect(self.dsn, timeout=CHECK_TIMEOUT)
                    await self._end_when_silent(self._connection)
                    for channel, heard in self._channels.items():
                        await self._connection.add_listener(channel, _payload_to(heard))
                asked = time.monotonic()
                if await self._connection.fetchval("SELECT pg_try_advisory_lock($1)", self.key):
                    self._checked_at, self._leading = asked, True
                    self._connection.add_termination_listener(self._closed)
                    await self._connection.add_listener(CHANNEL, self._notified)
                    self._stop_watch.clear()
                    self._watch = asyncio.create_task(self._watch_lock(), name="leadership")
                    return True
            except (OSError, asyncpg.PostgresError, TimeoutError) as error:
                if not self._unreachable_said:
                    logger.warning("Cannot ask PostgreSQL for the lead (%s); asking again", error)
                    self._unreachable_said = True
                await self._drop_connection()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), ASK_EVERY)
        return False

    def leads(self) -> bool:
        connection = self._connection
        return (
            self._leading
            and time.monotonic() - self._checked_at < VOUCHES_FOR
            and connection is not None
            and not connection.is_closed()
        )

    def on_stored(self, wake: Callable[[], None]) -> None:
        self._wakes.append(wake)

    def listen(self, channel: str, heard: Callable[[str], None]) -> None:
        self._channels[channel] = heard

    @staticmethod
    async def _end_when_silent(connection: Any) -> None:
        """Have PostgreSQL end this session (and free the lock) once it has heard nothing
        from it for :data:`SILENT_AFTER` seconds: a leader whose machine died, or was cut off,
        sends nothing — its socket may never say so — and a leader that lives checks in every
        :data:`CHECK_EVERY`. (``idle_session_timeout``: PostgreSQL 14 and newer; an older
        server frees the lock when it notices the connection gone.)"""
        try:
            await connection.execute(f"SET idle_session_timeout = {int(SILENT_AFTER * 1000)}")
        except Exception as error:
            logger.info("PostgreSQL cannot end a silent leader's session: %s", error)

    def _notified(self, *_: object) -> None:
        for wake in self._wakes:
            wake()

    async def _watch_lock(self) -> None:
        """The lock lives as long as its connection: if the connection stops answering, this
        process no longer leads (another may already)."""
        connection = self._connection
        while not self._stop_watch.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop_watch.wait(), CHECK_EVERY)
            if self._stop_watch.is_set():
                return
            asked = time.monotonic()
            try:
                await connection.fetchval("SELECT 1", timeout=CHECK_TIMEOUT)
            except Exception as error:
                if not self._stop_watch.is_set():
                    self._lose(str(error) or type(error).__name__)
                return
            self._checked_at = asked

    def _closed(self, _connection: object) -> None:
        """asyncpg: the lock's connection closed (the server ended it, or it broke)."""
        self._lose("the connection closed")

    def _lose(self, why: str) -> None:
        if self._leading:
            self._leading = False
            logger.warning("Lost the connection that made this process the leader: %s", why)
            self.lost.set()

    async def release(self) -> None:
        """Let the lead go, within :data:`RELEASE_SECONDS`."""
        self._leading = False  # from now on, nothing leaves (see leads)
        self._stop_watch.set()
        step = RELEASE_SECONDS / 3
        watch, self._watch = self._watch, None
        if watch is not None:
            # A check in flight is let finish (it is one round trip), not cancelled.
            await asyncio.wait({watch}, timeout=step)
            if not watch.done():
                # Still no answer: the connection is cut under it (closing it would first
                # ask the server, on a connection of its own, to cancel the check), and the
                # check ends at once, quietly.
                connection, self._connection = self._connection, None
                if connection is not None:
                    connection.terminate()
                await asyncio.wait({watch}, timeout=step)
        await self._drop_connection(step)

    async def _drop_connection(self, seconds: float = CHECK_TIMEOUT) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and not connection.is_closed():
            # Closing the session releases the lock; asyncpg cuts a connection that does not
            # close in time.
            try:
                await connection.close(timeout=seconds)
            except Exception as error:
                logger.info("The lock's connection was cut, not closed: %s", error)
                connection.terminate()


def _payload_to(heard: Callable[[str], None]) -> Callable[..., None]:
    """An asyncpg listener (connection, pid, channel, payload) that hands on the payload."""

    def listener(_connection: object, _pid: int, _channel: str, payload: str) -> None:
        heard(payload)

    return listener
