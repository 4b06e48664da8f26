"""Per-user press limits."""

from __future__ import annotations

from bot.telegram.throttle import PressThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate_and_users_do_not_share_a_bucket() -> None:
    clock = Clock()
    throttle = PressThrottle(burst=3, rate=2.0, clock=clock)
    assert [throttle.allow(1) for _ in range(4)] == [True, True, True, False]
    assert throttle.allow(2), "another user is not slowed down"
    clock.now += 0.5
    assert throttle.allow(1) and not throttle.allow(1)
