"""The reply gate's memory stays bounded however many people and chats ask, and what it
forgets first is what was asked longest ago."""

from __future__ import annotations

from bot.telegram.sender.replies import REMEMBERED, ReplyGate, Verdict
from tests.telegram.sender.test_replies import Clock

ASKERS = 100_000


def sizes(gate: ReplyGate) -> int:
    return max(len(gate._sent), len(gate._users), len(gate._chats), len(gate._told))


def test_100k_people_asking_at_once_are_held_within_the_bound() -> None:
    """The worst case: all in the same moment, in groups and private chats."""
    gate = ReplyGate(per_user=1, per_chat=2, clock=Clock())
    for n in range(1, ASKERS + 1):
        chat = -n if n % 2 else n
        assert gate.admit(chat, n, "help") is Verdict.SEND
        assert sizes(gate) <= REMEMBERED
    # The latest asked keep their counts: the same reply is merged, a person's share is
    # spent, and a group's.
    last_group = -(ASKERS - 1)
    assert gate.admit(last_group, ASKERS + 1, "help") is Verdict.DUPLICATE
    assert gate.admit(last_group, ASKERS - 1, "rules:rank") is Verdict.TOO_MANY
    assert gate.admit(last_group, ASKERS + 1, "rules:rank") is Verdict.SEND
    assert gate.admit(last_group, ASKERS + 2, "top") is Verdict.GROUP_FULL


def test_100k_people_over_time_leave_only_the_last_minute_in_memory() -> None:
    clock = Clock()
    gate = ReplyGate(clock=clock)
    for n in range(1, ASKERS + 1):
        clock.now += 0.1
        assert gate.admit(-n, n, "help") is Verdict.SEND
        assert gate.allow(-n, n)
    # 60 s of askers at 10 a second: only they are remembered.
    assert sizes(gate) <= 601
    assert gate.admit(-ASKERS, ASKERS + 1, "help") is Verdict.DUPLICATE


def test_people_held_back_are_told_of_in_the_log_once_within_the_bound() -> None:
    clock = Clock()
    gate = ReplyGate(per_user=1, per_chat=1, clock=clock)
    assert gate.admit(-1, 1, "help") is Verdict.SEND
    for n in range(2, ASKERS + 2):
        assert gate.admit(-1, n, f"top:{n}") is Verdict.GROUP_FULL
        assert len(gate._told) <= REMEMBERED
    assert (-1, ASKERS + 1) in gate._told
