"""The call budget's memory stays bounded however many chats it has seen, and keeping it so
costs each call O(1); the windows of the chats called lately are never forgotten."""

from __future__ import annotations

import pytest

from bot.telegram.sender.budget import QUIET_SWEEP, CallBudget, Limits, Priority, Ticket
from tests.telegram.sender.test_budget import Clock, granted

CHATS = 100_000


def distinct_chat(n: int) -> int:
    """Groups and private chats in turn."""
    return -n if n % 2 else n


async def test_100k_chats_over_time_leave_only_the_recent_ones_in_memory() -> None:
    """At Telegram's pace (the bot's own window), chats called a minute ago are forgotten."""
    clock = Clock()
    limits = Limits()
    budget = CallBudget(limits, clock)
    step = limits.overall_window / limits.overall_calls * 1.01
    largest = 0
    for n in range(1, CHATS + 1):
        clock.now += step
        assert await granted(budget, distinct_chat(n), Priority.TABLE)
        largest = max(largest, len(budget._chats), len(budget._served))
    assert largest <= QUIET_SWEEP
    # The chats called lately keep their windows.
    assert not await granted(budget, distinct_chat(CHATS), Priority.TURN), "1 a second"
    latest_group = -(CHATS - 1)
    for _ in range(limits.group_calls - 1):
        clock.now += step
        assert await granted(budget, latest_group, Priority.TABLE)
    clock.now += step
    assert not await granted(budget, latest_group, Priority.TABLE), "the group's minute"


async def test_100k_chats_at_once_are_swept_a_few_times_not_at_every_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """All called in the same moment (no limit but the chats'), none can be forgotten — and
    looking for the quiet ones must not cost every call a pass over all of them."""
    clock = Clock()
    budget = CallBudget(Limits(overall_calls=10**9), clock)
    sweeps = 0
    sweep = budget._forget_quiet

    def counted(now: float) -> None:
        nonlocal sweeps
        sweeps += 1
        sweep(now)

    monkeypatch.setattr(budget, "_forget_quiet", counted)
    for n in range(1, CHATS + 1):
        await budget.take(distinct_chat(n), Ticket(Priority.TABLE, share=n))
        assert sweeps <= 4, f"swept {sweeps} times after {n} chats"
    assert len(budget._chats) == CHATS, "every window is still open"
    assert not await granted(budget, distinct_chat(2), Priority.TURN), "a private chat's second"
    # Once their games have gone quiet, the first sweep forgets them all.
    clock.now += Limits().play_memory + 1
    for n in range(CHATS + 1, 2 * CHATS + 1):
        await budget.take(distinct_chat(n), Ticket(Priority.TABLE, share=n))
    assert len(budget._chats) <= 2 * CHATS
    assert distinct_chat(1) not in budget._chats


async def test_paused_chats_are_forgotten_once_their_pause_is_over() -> None:
    clock = Clock()
    budget = CallBudget(Limits(), clock)
    for n in range(1, CHATS + 1):
        clock.now += 0.01
        budget.pause(distinct_chat(n), 5.0)
        assert len(budget._chats) <= QUIET_SWEEP
    assert budget.paused(distinct_chat(CHATS)) == pytest.approx(5.0)


async def test_lookups_alone_do_not_pile_up() -> None:
    clock = Clock()
    budget = CallBudget(Limits(), clock)
    for _ in range(CHATS):
        clock.now += 0.01
        budget.count_lookup()
    assert len(budget._overall) <= Limits().overall_window / 0.01 + 1
