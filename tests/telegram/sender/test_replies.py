"""Informational replies: repeated ones merged, each person and group held to a few a minute."""

from __future__ import annotations

from bot.telegram.sender.replies import ReplyGate, Verdict

GROUP, OTHER_GROUP = -100, -200
ANNA, BORIS = 1, 2


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_same_reply_is_not_sent_twice_into_a_group_within_the_window() -> None:
    clock = Clock()
    gate = ReplyGate(clock=clock)
    assert gate.admit(GROUP, ANNA, "help") is Verdict.SEND
    clock.now = 30
    assert gate.admit(GROUP, BORIS, "help") is Verdict.DUPLICATE, "it is right above"
    assert gate.admit(GROUP, BORIS, "rules:rank") is Verdict.SEND
    assert gate.admit(OTHER_GROUP, BORIS, "help") is Verdict.SEND
    clock.now = 60
    assert gate.admit(GROUP, BORIS, "help") is Verdict.SEND


def test_one_person_gets_a_few_replies_a_minute_in_a_group() -> None:
    clock = Clock()
    gate = ReplyGate(per_user=3, per_chat=6, clock=clock)
    for n in range(3):
        clock.now = n
        assert gate.admit(GROUP, ANNA, f"top:{n}") is Verdict.SEND
    assert gate.admit(GROUP, ANNA, "top:9") is Verdict.TOO_MANY
    assert gate.admit(GROUP, BORIS, "top:9") is Verdict.SEND, "the others are not held"
    clock.now = 60.5
    assert gate.admit(GROUP, ANNA, "top:10") is Verdict.SEND


def test_a_group_gets_no_more_replies_than_its_window_whoever_asks() -> None:
    clock = Clock()
    gate = ReplyGate(per_user=3, per_chat=4, clock=clock)
    answered = [gate.admit(GROUP, user, f"stats:{user}") for user in range(1, 7)]
    assert answered.count(Verdict.SEND) == 4
    assert answered[4:] == [Verdict.GROUP_FULL, Verdict.GROUP_FULL], "the group's, not theirs"


def test_a_quiet_groups_answers_are_not_held_to_a_few_a_minute() -> None:
    """Issue #35: six commands from two members in half a minute are all for the group."""
    clock = Clock()
    gate = ReplyGate(clock=clock)
    asked = [(1, "help"), (2, "top"), (1, "rules:rank"), (2, "nextgame:2"), (1, "pings.on")]
    asked.append((2, "new:unknown"))
    for n, (user, key) in enumerate(asked):
        clock.now = 5 * n
        assert gate.admit(GROUP, user, key) is Verdict.SEND, key


def test_a_private_chat_limits_only_its_owner_and_more_loosely() -> None:
    clock = Clock()
    gate = ReplyGate(per_private=5, clock=clock)
    verdicts = [gate.admit(ANNA, ANNA, "help") for _ in range(6)]
    assert verdicts[:5] == [Verdict.SEND] * 5, "asking again in private gets the answer again"
    assert verdicts[5] is Verdict.TOO_MANY


def test_lobbies_opened_and_cancelled_are_counted_per_person_and_per_group() -> None:
    clock = Clock()
    gate = ReplyGate(per_user=2, per_chat=3, clock=clock)
    assert gate.allow(-1, 10) and gate.allow(-1, 10)
    assert not gate.allow(-1, 10), "his share for the minute"
    assert gate.allow(-1, 11)
    assert not gate.allow(-1, 12), "the group's share for the minute"
    assert gate.allow(-2, 10), "another group counts apart"
    clock.now += 60
    assert gate.allow(-1, 10)
