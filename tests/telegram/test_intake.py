"""The intake: updates in hand counted; per-user press limits."""

from __future__ import annotations

import asyncio

from bot.telegram.intake import Intake, PressThrottle


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


def test_a_persons_second_press_on_the_same_thing_within_a_double_tap_counts_once() -> None:
    clock = Clock()
    throttle = PressThrottle(clock=clock)
    panel = (10, 5, "A")
    assert not throttle.repeated(1, panel)
    clock.now += 0.1
    assert throttle.repeated(1, panel), "a double tap — or another pile hit 0.1 s later"
    assert not throttle.repeated(2, panel), "someone else's press"
    assert not throttle.repeated(1, (10, 6, "L:3:start")), "another thing: a decision"
    clock.now += 0.1
    assert throttle.repeated(1, panel), "tapping on does not stretch the window"
    clock.now += 0.2
    assert not throttle.repeated(1, panel), "0.4 s after the press that counted: meant"
    assert not PressThrottle(clock=clock, double_tap=0.0).repeated(1, panel)


async def test_the_intake_counts_the_updates_in_hand() -> None:
    intake = Intake(max_in_hand=8)
    release = asyncio.Event()
    handled = [
        asyncio.create_task(intake.process_update(object(), release.wait())) for _ in range(5)
    ]
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(*handled)
    assert intake.most_in_hand == 5 and intake.handled == 5
