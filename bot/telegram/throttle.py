"""Per-user press limits: one user hammering buttons does not slow anybody else down."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class PressThrottle:
    """A token bucket per user: ``burst`` presses at once, then ``rate`` per second."""

    def __init__(
        self, burst: int = 8, rate: float = 4.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self._buckets: dict[int, _Bucket] = {}

    def allow(self, user_id: int) -> bool:
        """Take one press from the user's bucket; False when it is empty."""
        now = self.clock()
        bucket = self._buckets.get(user_id)
        if bucket is None:
            bucket = self._buckets[user_id] = _Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if len(self._buckets) > 10_000:
            self._forget_idle(now)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def _forget_idle(self, now: float) -> None:
        full = self.burst / self.rate
        for user_id in [u for u, b in self._buckets.items() if now - b.at > full]:
            del self._buckets[user_id]
