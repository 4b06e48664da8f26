"""Telegram's flood limits, modelled on the documented bot limits.

* per group or supergroup: at most ``group_limit`` messages (sends and edits) in any rolling
  ``group_window`` seconds (Telegram: 20 per minute);
* per private chat: at most ``private_limit`` messages in any rolling ``private_window``
  seconds (Telegram: about one a second) — a strict window like the others, no burst;
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
from typing import Final

__all__ = ["COUNTED_METHODS", "FloodControl", "FloodPolicy"]

COUNTED_METHODS: Final = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "editmessagetext",
        "editmessagecaption",
        "editmessagereplymarkup",
    }
)
"""The calls the limits count (lower-case method names): sending and editing messages."""


@dataclass
class FloodPolicy:
    """Limits applied by :class:`FloodControl`; set ``enabled=False`` to turn them off."""

    enabled: bool = True
    group_limit: int = 20
    group_window: float = 60.0
    private_limit: int = 1
    private_window: float = 1.0
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


class FloodControl:
    """Tracks sends per chat and overall and says when a new one must wait."""

    def __init__(self, policy: FloodPolicy | None = None) -> None:
        self.policy = policy if policy is not None else FloodPolicy()
        self._global = _RollingWindow()
        self._groups: dict[int, _RollingWindow] = {}
        self._privates: dict[int, _RollingWindow] = {}

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
            window = self._privates.setdefault(chat_id, _RollingWindow())
            wait = max(wait, window.wait_time(now, policy.private_limit, policy.private_window))
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
            self._privates.setdefault(chat_id, _RollingWindow()).record(now)

    def reset(self) -> None:
        """Forget all counted sends."""
        self._global = _RollingWindow()
        self._groups.clear()
        self._privates.clear()
