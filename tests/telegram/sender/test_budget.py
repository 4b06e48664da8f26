"""The call budget: strict sliding windows per chat and overall, taken in order of priority."""

from __future__ import annotations

import asyncio

import pytest

from bot.telegram.sender.budget import CallBudget, Limits, Priority, Ticket

GROUP, OTHER_GROUP, PRIVATE, OTHER_PRIVATE = -100, -200, 7, 8


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def granted(budget: CallBudget, chat: int, priority: Priority) -> bool:
    """Whether a call would be let through at once."""
    task = asyncio.create_task(budget.take(chat, priority))
    await asyncio.sleep(0)
    if task.done():
        return True
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return False


async def test_a_group_window_is_strict_not_a_bucket() -> None:
    clock = Clock()
    budget = CallBudget(Limits(group_calls=3, group_window=60.0, reply_calls=3), clock)
    for at in (1000.0, 1010.0, 1020.0):
        clock.now = at
        assert await granted(budget, GROUP, Priority.TABLE)
    # However long after the burst, a fourth inside the minute of the first waits.
    for at in (1021.0, 1040.0, 1059.9):
        clock.now = at
        assert not await granted(budget, GROUP, Priority.TURN)
    clock.now = 1060.0  # the first call leaves the window
    assert await granted(budget, GROUP, Priority.TABLE)
    assert not await granted(budget, GROUP, Priority.TABLE)
    # Another chat has a window of its own.
    assert await granted(budget, OTHER_GROUP, Priority.TABLE)


async def test_a_private_chat_takes_about_one_call_a_second() -> None:
    clock = Clock()
    budget = CallBudget(Limits(private_calls=1, private_window=1.1), clock)
    assert await granted(budget, PRIVATE, Priority.TURN)
    assert await granted(budget, OTHER_PRIVATE, Priority.TURN)
    clock.now += 1.0
    assert not await granted(budget, PRIVATE, Priority.TURN)
    clock.now += 0.1
    assert await granted(budget, PRIVATE, Priority.TURN)


async def test_the_overall_window_holds_every_chat() -> None:
    clock = Clock()
    budget = CallBudget(Limits(overall_calls=2, overall_window=1.0), clock)
    assert await granted(budget, PRIVATE, Priority.TURN)
    assert await granted(budget, GROUP, Priority.TURN)
    assert not await granted(budget, OTHER_PRIVATE, Priority.TURN)
    clock.now += 1.0
    assert await granted(budget, OTHER_PRIVATE, Priority.TURN)


async def test_waiting_calls_go_by_priority_then_in_order() -> None:
    limits = Limits(overall_calls=1, overall_window=0.05)
    budget = CallBudget(limits)
    order: list[str] = []

    async def call(name: str, chat: int, priority: Priority) -> None:
        await budget.take(chat, priority)
        order.append(name)

    await budget.take(GROUP, Priority.TABLE)  # the window is full for a moment
    calls = [
        asyncio.create_task(call("reply", -1, Priority.REPLY)),
        asyncio.create_task(call("table", -2, Priority.TABLE)),
        asyncio.create_task(call("panel", 3, Priority.PANEL)),
        asyncio.create_task(call("turn", 4, Priority.TURN)),
        asyncio.create_task(call("second turn", 5, Priority.TURN)),
    ]
    await asyncio.wait_for(asyncio.gather(*calls), 5)
    assert order == ["turn", "second turn", "panel", "table", "reply"]


async def test_replies_use_only_part_of_a_groups_window_while_it_plays() -> None:
    clock = Clock()
    budget = CallBudget(Limits(group_calls=6, reply_calls=2, reply_reserve=2), clock)
    assert await granted(budget, GROUP, Priority.TABLE)  # a game is played there
    assert await granted(budget, GROUP, Priority.REPLY)
    assert await granted(budget, GROUP, Priority.REPLY)
    assert not await granted(budget, GROUP, Priority.REPLY), "their share is spent"
    for _ in range(3):  # the game keeps the rest
        assert await granted(budget, GROUP, Priority.TABLE)
    assert not await granted(budget, GROUP, Priority.TABLE)


async def test_a_quiet_groups_answers_may_use_its_whole_window_but_the_reserve() -> None:
    """Issue #35: with no game to keep it for, a group's window is its answers'."""
    clock = Clock()
    limits = Limits(group_calls=18, reply_calls=4, reply_reserve=6, quiet_reserve=2)
    budget = CallBudget(limits, clock)
    for n in range(16):
        assert await granted(budget, GROUP, Priority.REPLY), f"answer {n + 1}"
    assert not await granted(budget, GROUP, Priority.REPLY), "the reserve is the game's"
    assert await granted(budget, GROUP, Priority.LOBBY), "a lobby opened now goes at once"
    assert await granted(budget, GROUP, Priority.TABLE)


async def test_a_group_plays_for_a_while_after_its_last_game_message() -> None:
    clock = Clock()
    limits = Limits(group_calls=18, reply_calls=4, reply_reserve=6, play_memory=120.0)
    budget = CallBudget(limits, clock)
    assert await granted(budget, GROUP, Priority.TABLE)
    clock.now += 100  # a slow turn: still a live table, its window kept for it
    answered = [await granted(budget, GROUP, Priority.REPLY) for _ in range(6)]
    assert answered == [True] * 4 + [False] * 2
    clock.now += 21  # two minutes without a game message: the game is over
    assert await granted(budget, GROUP, Priority.REPLY)
    assert await granted(budget, OTHER_GROUP, Priority.REPLY), "another group never played"


async def test_a_turn_put_back_gives_back_its_game_moment() -> None:
    clock = Clock()
    budget = CallBudget(Limits(group_calls=18, reply_calls=1, reply_reserve=2), clock)
    await budget.take(GROUP, Priority.TABLE)
    budget.put_back(GROUP)  # nothing to send after all: the group never played
    assert [await granted(budget, GROUP, Priority.REPLY) for _ in range(3)] == [True] * 3


async def test_a_reply_never_takes_the_room_the_game_needs_next() -> None:
    clock = Clock()
    budget = CallBudget(Limits(group_calls=6, reply_calls=3, reply_reserve=3), clock)
    for _ in range(3):
        assert await granted(budget, GROUP, Priority.TABLE)
    # Three places are free, but they are the game's reserve: no reply takes one.
    assert not await granted(budget, GROUP, Priority.REPLY)
    assert await granted(budget, GROUP, Priority.TABLE)


async def test_a_waiting_panel_whose_player_gets_the_move_goes_first() -> None:
    budget = CallBudget(Limits(overall_calls=1, overall_window=0.05))
    order: list[str] = []
    later = Ticket(Priority.PANEL)

    async def call(name: str, chat: int, priority: Priority | Ticket) -> None:
        await budget.take(chat, priority)
        order.append(name)

    await budget.take(GROUP, Priority.TABLE)
    calls = [
        asyncio.create_task(call("other turn", 3, Priority.TURN)),
        asyncio.create_task(call("table", -2, Priority.TABLE)),
        asyncio.create_task(call("his panel", 4, later)),
    ]
    await asyncio.sleep(0)
    later.priority = Priority.TURN  # meanwhile, the move came to him
    budget.reorder()
    await asyncio.wait_for(asyncio.gather(*calls), 5)
    assert order == ["other turn", "his panel", "table"]


async def test_a_pause_telegram_asked_for_holds_the_chat_only() -> None:
    clock = Clock()
    budget = CallBudget(Limits(), clock)
    budget.pause(GROUP, 27)
    assert budget.paused(GROUP) == pytest.approx(27)
    assert not await granted(budget, GROUP, Priority.TURN)
    assert await granted(budget, OTHER_GROUP, Priority.TURN)
    clock.now += 27
    assert await granted(budget, GROUP, Priority.TURN)


async def test_a_turn_not_used_is_given_back() -> None:
    clock = Clock()
    budget = CallBudget(Limits(private_calls=1, private_window=1.1), clock)
    await budget.take(PRIVATE, Priority.PANEL)
    budget.put_back(PRIVATE)
    assert await granted(budget, PRIVATE, Priority.PANEL)


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    budget = CallBudget(Limits(private_calls=1, private_window=60.0))
    await budget.take(PRIVATE, Priority.PANEL)
    waiting = asyncio.create_task(budget.take(PRIVATE, Priority.PANEL))
    await asyncio.sleep(0)
    assert budget.waiting == 1
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert budget.waiting == 0


async def test_each_game_of_a_group_gets_its_turn_whoever_asks_more() -> None:
    """Fair shares: at the same priority, the share of the chat served longest ago goes
    first — a game (or a topic) that asks for call after call waits for its own, not the
    others'."""
    limits = Limits(group_calls=1, group_window=0.05, reply_calls=1, reply_reserve=0)
    budget = CallBudget(limits)
    order: list[str] = []

    async def call(name: str, share: str) -> None:
        await budget.take(GROUP, Ticket(Priority.TABLE, share))
        order.append(name)

    await budget.take(GROUP, Ticket(Priority.TABLE, "busy"))  # the busy game was just served
    calls = [asyncio.create_task(call(f"busy {n}", "busy")) for n in range(3)]
    await asyncio.sleep(0)
    calls.append(asyncio.create_task(call("quiet", "quiet")))
    await asyncio.wait_for(asyncio.gather(*calls), 5)
    assert order[0] == "quiet", order


async def test_a_lobby_waits_for_its_groups_game_tables() -> None:
    limits = Limits(group_calls=1, group_window=0.05, reply_calls=1, reply_reserve=0)
    budget = CallBudget(limits)
    order: list[str] = []

    async def call(name: str, priority: Priority) -> None:
        await budget.take(GROUP, Ticket(priority, name))
        order.append(name)

    await budget.take(GROUP, Priority.TABLE)
    calls = [
        asyncio.create_task(call("reply", Priority.REPLY)),
        asyncio.create_task(call("lobby", Priority.LOBBY)),
        asyncio.create_task(call("table", Priority.TABLE)),
    ]
    await asyncio.wait_for(asyncio.gather(*calls), 5)
    assert order == ["table", "lobby", "reply"]


async def test_a_lookup_counts_against_the_overall_window_without_waiting() -> None:
    clock = Clock()
    budget = CallBudget(Limits(overall_calls=2, overall_window=1.0), clock)
    budget.count_lookup()
    budget.count_lookup()
    budget.count_lookup()  # never refused: the person's press waits for its answer
    assert not await granted(budget, GROUP, Priority.TURN), "the window is full"
    clock.now += 1.0
    assert await granted(budget, GROUP, Priority.TURN)


async def test_a_call_counts_from_its_answer_not_from_its_turn() -> None:
    """A stall between a call's turn and its arrival (a busy event loop, the network) must not
    eat the window's headroom: the next call into the chat waits from the answer."""
    clock = Clock()
    budget = CallBudget(Limits(private_calls=1, private_window=1.1), clock)
    assert await granted(budget, PRIVATE, Priority.TURN)
    clock.now += 0.3  # the call reaches Telegram, and is answered, this much later
    budget.arrived(PRIVATE)
    clock.now += 1.0
    assert not await granted(budget, PRIVATE, Priority.TURN), "1.0 s after it arrived"
    clock.now += 0.1
    assert await granted(budget, PRIVATE, Priority.TURN)


async def test_a_new_leader_keeps_the_windows_of_the_one_before() -> None:
    """The calls a previous leader made (written behind them, told in this budget's clock)
    count here: a group whose window it filled gets nothing more until its oldest call
    leaves it."""
    clock = Clock()
    budget = CallBudget(Limits(group_calls=3, group_window=60.0, reply_calls=3), clock)
    now = clock.now
    budget.restore([(GROUP, now - 50), (GROUP, now - 20), (GROUP, now - 5)])
    assert not await granted(budget, GROUP, Priority.TURN)
    assert await granted(budget, OTHER_GROUP, Priority.TURN)
    clock.now += 10.0  # the call 50 s old leaves the minute
    assert await granted(budget, GROUP, Priority.TURN)


async def test_a_new_leader_holds_every_call_for_a_moment() -> None:
    """The previous leader's last calls may not be written yet: nothing goes for a while."""
    clock = Clock()
    budget = CallBudget(Limits(private_calls=1, private_window=1.1), clock)
    budget.hold(1.2)
    assert not await granted(budget, PRIVATE, Priority.TURN)
    clock.now += 1.2
    assert await granted(budget, PRIVATE, Priority.TURN)


async def test_the_leader_journals_each_call_it_lets_through() -> None:
    budget = CallBudget(Limits(), Clock())
    budget.journal = []
    assert await granted(budget, GROUP, Priority.TABLE)
    assert await granted(budget, PRIVATE, Priority.TURN)
    assert [chat for chat, _ in budget.journal] == [GROUP, PRIVATE]


async def test_the_journal_keeps_the_budgets_own_clock() -> None:
    """Each call is journaled when the budget's clock says (never this machine's calendar,
    which another leader's machine does not share)."""
    clock = Clock()
    budget = CallBudget(Limits(), clock)
    budget.journal = []
    assert await granted(budget, GROUP, Priority.TABLE)
    clock.now += 2.5
    assert await granted(budget, PRIVATE, Priority.TURN)
    assert budget.journal == [(GROUP, 1000.0), (PRIVATE, 1002.5)]


async def test_a_call_the_previous_leader_dated_ahead_counts_as_just_made() -> None:
    clock = Clock()
    budget = CallBudget(Limits(private_calls=1, private_window=1.1), clock)
    budget.restore([(PRIVATE, clock.now + 30)])
    assert not await granted(budget, PRIVATE, Priority.TURN)
    clock.now += 1.1
    assert await granted(budget, PRIVATE, Priority.TURN)
