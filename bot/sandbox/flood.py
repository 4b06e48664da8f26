"""Telegram's flood limits, modelled on the documented bot limits.

* per group or supergroup: at most ``group_limit`` messages (sends and edits) in any rolling
  ``group_window`` seconds (Telegram: 20 per minute);
* per private chat: about one message per second, with a small burst allowed (a token bucket
  of ``private_burst`` tokens refilled at ``private_rate`` per second);
* overall: at most ``global_limit`` messages in any rolling ``global_window`` seconds
  (Telegram: 30 per second).

A request over a limit is refused with ``429 Too Many Requests: retry after N`` where ``N``
is the whole number of seconds until it would pass. Refused requests are not counted. Time
comes from an injectable clock so tests can advance it instead of sleeping.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

__all__ = ["FloodControl", "FloodPolicy"]


@dataclass
class FloodPolicy:
    """Limits applied by :class:`FloodControl`; set ``enabled=False`` to turn them off."""

    enabled: bool = True
    group_limit: int = 20
    group_window: float = 60.0
    private_burst: int = 3
    private_rate: float = 1.0
    global_limit: int = 30
    global_window: float = 1.0


class _RollingWindow:
    """At most ``limit`` events in any ``window`` seconds."""

    def __init__(self) -> None:
        self._events: deque[float] = deque()

    def wait_time(self, now: float, limit: int, window: float) -> float:
        while self._events and self._events[0] <= now - window:
            self._events.popleft()
        if len(self._events) < limit:
            return 0.0
        return self._events[len(self._events) - limit] + window - now

    def record(self, now: float) -> None:
        self._events.append(now)


class _TokenBucket:
    """``burst`` tokens, refilled continuously at ``rate`` per second; one per event."""

    def __init__(self, burst: int, now: float) -> None:
        self._tokens = float(burst)
        self._updated = now

    def _refill(self, now: float, burst: int, rate: float) -> None:
        self._tokens = min(float(burst), self._tokens + (now - self._updated) * rate)
        self._updated = now

    def wait_time(self, now: float, burst: int, rate: float) -> float:
        self._refill(now, burst, rate)
        if self._tokens >= 1.0:
            return 0.0
        return (1.0 - self._tokens) / rate if rate > 0 else math.inf

    def record(self, now: float, burst: int, rate: float) -> None:
        self._refill(now, burst, rate)
        self._tokens -= 1.0


class FloodControl:
    """Tracks sends per chat and overall and says when a new one must wait."""

    def __init__(self, policy: FloodPolicy | None = None) -> None:
        self.policy = policy if policy is not None else FloodPolicy()
        self._global = _RollingWindow()
        self._groups: dict[int, _RollingWindow] = {}
        self._privates: dict[int, _TokenBucket] = {}

    def retry_after(self, chat_id: int, is_group: bool, now: float) -> int | None:
        """Seconds to wait before a send to ``chat_id`` may pass, or None if it may pass now."""
        policy = self.policy
        if not policy.enabled:
            return None
        wait = self._global.wait_time(now, policy.global_limit, policy.global_window)
        if is_group:
            window = self._groups.setdefault(chat_id, _RollingWindow())
            wait = max(wait, window.wait_time(now, policy.group_limit, policy.group_window))
        else:
            bucket = self._privates.setdefault(chat_id, _TokenBucket(policy.private_burst, now))
            wait = max(wait, bucket.wait_time(now, policy.private_burst, policy.private_rate))
        if wait <= 0:
            return None
        return max(1, math.ceil(wait))

    def record(self, chat_id: int, is_group: bool, now: float) -> None:
        """Count one send to ``chat_id`` at ``now`` (call only for sends that passed)."""
        policy = self.policy
        if not policy.enabled:
            return
        self._global.record(now)
        if is_group:
            self._groups.setdefault(chat_id, _RollingWindow()).record(now)
        else:
            bucket = self._privates.setdefault(chat_id, _TokenBucket(policy.private_burst, now))
            bucket.record(now, policy.private_burst, policy.private_rate)

    def reset(self) -> None:
        """Forget all counted sends."""
        self._global = _RollingWindow()
        self._groups.clear()
        self._privates.clear()
