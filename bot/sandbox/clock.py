"""A controllable monotonic clock for the fake's time-dependent behaviour.

Pass ``clock=ManualClock()`` to :class:`~bot.sandbox.bot_api.FakeBotApi` and call
:meth:`ManualClock.advance` to move flood-limit windows, callback ages and message dates
forward without sleeping. (Long polling and :meth:`FakeBotApi.settle` wait in real time.)
"""

from __future__ import annotations

__all__ = ["ManualClock"]


class ManualClock:
    """A callable returning the current fake time in seconds; only moves when told to."""

    def __init__(self, start: float = 1_000.0) -> None:
        self._now = start

    def __call__(self) -> float:
        return self._now

    @property
    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` (must not be negative); returns the new time."""
        if seconds < 0:
            raise ValueError("a monotonic clock cannot go back")
        self._now += seconds
        return self._now
