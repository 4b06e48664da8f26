"""A Recent map keeps the entries used most recently, and no more."""

from __future__ import annotations

import pytest

from bot.services.recent import Recent


def test_it_keeps_its_size_forgetting_the_entry_used_longest_ago() -> None:
    seen = Recent[int, str](3)
    for key in range(3):
        seen[key] = f"chat {key}"
    assert seen[0] == "chat 0"  # read: now the newest
    seen[3] = "chat 3"
    assert list(seen) == [2, 0, 3]
    assert 1 not in seen, "the one used longest ago went"
    assert len(seen) == 3


def test_a_hundred_thousand_chats_leave_it_at_its_size() -> None:
    seen = Recent[int, float](1_000)
    for chat in range(100_000):
        seen[-chat] = float(chat)
        if chat % 10 == 0:
            assert seen.get(-chat) == float(chat)
    assert len(seen) == 1_000
    assert seen.get(-99_999) == 99_999.0 and -5 not in seen


def test_it_refuses_to_keep_nothing() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Recent[int, int](0)
