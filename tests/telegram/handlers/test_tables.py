"""Waiting for a game's table message: recorded already, posted later, or not in time."""

from __future__ import annotations

import asyncio

from bot.telegram.handlers.tables import TablePosts


async def test_a_message_posted_while_one_waits_is_the_answer() -> None:
    posts = TablePosts()
    looked = asyncio.Event()

    async def nothing_yet() -> int | None:
        looked.set()
        return None

    waiting = asyncio.create_task(posts.wait(7, nothing_yet, 5.0))
    await looked.wait()
    posts.posted(8, 99)  # another game's
    posts.posted(7, 42)
    assert await waiting == 42
    assert len(posts) == 0, "nothing is left behind"


async def test_a_message_recorded_before_the_wait_began_is_not_missed() -> None:
    posts = TablePosts()
    posts.posted(7, 42)  # nobody waited yet: only the record knows

    async def recorded() -> int | None:
        return 42

    assert await posts.wait(7, recorded, 5.0) == 42
    assert len(posts) == 0


async def test_no_message_in_time_is_none() -> None:
    posts = TablePosts()

    async def nothing() -> int | None:
        return None

    assert await posts.wait(7, nothing, 0.01) is None
    assert len(posts) == 0
