"""When the database refuses to write: a full disk, a read-only file, a lost permission.

Such a refusal is not a bug of the bot, and nothing can be done about it but wait: so it is
raised as :class:`StorageRefused` (the callers answer people in words, and change nothing —
the transaction is rolled back), and :class:`Outage` logs it once when it begins and once
when a write goes through again, with how long it lasted — not once per refused write.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

#: What SQLite says when it cannot write (lower case, as found in its messages).
_SQLITE_REFUSALS = (
    "database or disk is full",
    "readonly database",
    "disk i/o error",
    "unable to open database file",
)
#: PostgreSQL's SQLSTATEs for the same: disk full, insufficient resources, a read-only
#: transaction (a standby, or default_transaction_read_only), no privilege to write.
_POSTGRES_REFUSALS = {
    "53100": "disk full",
    "53000": "insufficient resources",
    "25006": "read-only",
    "42501": "no privilege to write",
}


class StorageRefused(Exception):
    """The database refused to write (see :func:`refusal`); nothing was saved."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def refusal(error: BaseException) -> str | None:
    """Why the database refused to write, if ``error`` says it did (else ``None``)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sqlite3.OperationalError):
            message = str(current).lower()
            if any(words in message for words in _SQLITE_REFUSALS):
                return str(current)
        state = getattr(current, "sqlstate", None) or getattr(current, "pgcode", None)
        if isinstance(state, str) and state in _POSTGRES_REFUSALS:
            return f"{_POSTGRES_REFUSALS[state]}: {current}"
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return None


class Outage:
    """Whether the database refuses writes now, since when; logged at its start and end."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.since: float | None = None
        self.reason = ""
        self.refused = 0

    @property
    def active(self) -> bool:
        return self.since is not None

    def refuse(self, reason: str) -> None:
        """A write was refused."""
        self.refused += 1
        if self.since is None:
            self.since, self.reason = self.clock(), reason
            logger.warning(
                "The database refuses to write (%s) since %s: nothing can be saved, and "
                "every change is refused in words until it writes again",
                reason,
                time.strftime("%H:%M:%S", time.localtime(self.since)),
            )

    def wrote(self) -> None:
        """A write went through."""
        if self.since is None:
            return
        lasted = self.clock() - self.since
        logger.info(
            "The database writes again, since %s after %.0f s (%d write(s) refused meanwhile)",
            time.strftime("%H:%M:%S", time.localtime(self.clock())),
            lasted,
            self.refused,
        )
        self.since, self.reason, self.refused = None, "", 0
