"""A condition that may repeat thousands of times a second, said in the log at most once a minute.

A flood of refused sockets, or a process out of open files that fails every accept, would
otherwise write a line (or a traceback) per attempt: hundreds of megabytes in minutes, and the
one line an operator needs buried in them. A :class:`LogTally` says the first occurrence at
once, counts the next ones, and says how many there were a minute after it last spoke — also
when the condition has stopped meanwhile, so the last count is never lost.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final

#: Seconds between two lines of one tally.
LOG_EVERY: Final = 60.0


class LogTally:
    """Counts one condition and logs ``message`` at ``level`` at most every ``every`` seconds.

    ``message`` is %-formatted with the count, the seconds the count covers (from the first
    occurrence counted to the last), then the arguments of the latest :meth:`add` — e.g.
    ``"Refused %d sockets in %.0f s: %d open"``.
    """

    def __init__(
        self,
        logger: logging.Logger,
        level: int,
        message: str,
        *,
        every: float = LOG_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.level = level
        self.message = message
        self.every = every
        self.clock = clock
        #: Occurrences since the last line, and in all.
        self.count = 0
        self.total = 0
        self._first = 0.0
        self._last = 0.0
        self._args: tuple[object, ...] = ()
        self._said_at: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def add(self, *args: object) -> None:
        """One more occurrence; ``args`` (the latest figures) go into the next line."""
        now = self.clock()
        if self.count == 0:
            self._first = now
        self.count += 1
        self.total += 1
        self._last = now
        self._args = args
        if self._said_at is None or now - self._said_at >= self.every:
            self.flush()
        elif self._timer is None:
            # The rest of the minute's count is said when the minute is up, even if nothing
            # happens after it (without a running loop, at the next occurrence after it).
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._timer = loop.call_later(self._said_at + self.every - now, self.flush)

    def flush(self) -> None:
        """Say what was counted since the last line, if anything."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.count == 0:
            return
        self.logger.log(
            self.level, self.message, self.count, self._last - self._first, *self._args
        )
        self.count = 0
        self._said_at = self.clock()
