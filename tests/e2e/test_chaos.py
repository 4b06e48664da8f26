"""Chaos: simulated people press whatever they can see, forge data, and the bot restarts.

A short, seeded run over all five games (``bench``-style longer runs: set CHAOS_STEPS). It
asserts what must hold whatever people do: no error in the log (the e2e conftest checks it),
every callback answered, and every game ends finished or cancelled, none stuck.
"""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.storage.database import Database
from tests.e2e.harness import Harness, sqlite_url
from tests.fakes import FakeBotApi, FakeChat, FakeMessage, FakeUser

GAMES = ("rank", "trumps", "advantage", "progression", "davayka")
STEPS = int(os.environ.get("CHAOS_STEPS", "240"))
FORGERIES = (
    "A:1:1:d",
    "A:999:0:x",
    "L:1:start",
    "U:1:0:joker",
    "R:1",
    "garbage",
    "N:chess",
    "L:1:o.round_limit",
    "A:1:1:" + "p" * 30,
    "B:rank:cb:0",
    "Y:1",
    "G:xx",
)


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    api = FakeBotApi(flood_limits=False)
    harness = Harness(api, sqlite_url(tmp_path))
    await harness.start()
    yield harness
    await harness.stop()


def visible(h: Harness, user: FakeUser, groups: list[FakeChat]) -> list[FakeMessage]:
    """Bot messages with buttons this user can see: in the groups and in his own DM."""
    seen: list[FakeMessage] = []
    for chat in [*groups, user]:
        seen += [m for m in h.api.bot_messages(chat)[-6:] if h.api.buttons(m)]
    return seen


async def test_chaos_over_every_game(harness: Harness) -> None:
    h, api = harness, harness.api
    rng = random.Random(20261130)
    people = [api.add_user(name) for name in ("Anna", "Boris", "Clara", "Denis")]
    people.append(api.add_user("Ezra", started=False))
    groups = [
        api.add_group("Card club", admins=[people[0]], members=people[1:]),
        api.add_group("Night owls", admins=[people[1]], members=people),
    ]
    callbacks = []
    for step in range(STEPS):
        user = rng.choice(people)
        roll = rng.random()
        if roll < 0.08:
            await api.send_text(user, rng.choice(groups), f"/new {rng.choice(GAMES)}")
        elif roll < 0.10:
            await api.send_text(user, rng.choice(groups), rng.choice(("/cancel", "/top", "/help")))
        elif roll < 0.16:
            await h.tick(rng.choice((1.5, 4, 11, 61)))
        elif roll < 0.20:
            messages = visible(h, user, groups)
            if messages:
                target = rng.choice(messages)
                callbacks.append(
                    await api.press_data(
                        user, target.chat, target.message_id, rng.choice(FORGERIES)
                    )
                )
        elif roll < 0.21 and step > 20:
            await h.stop()  # a crash: nothing in memory survives
            await h.start()
        else:
            messages = visible(h, user, groups)
            if messages:
                message = rng.choice(messages)
                label = rng.choice([text for row in api.buttons(message) for text, _ in row])
                if label.startswith("http"):
                    continue
                try:
                    callbacks.append(await api.press(user, message, label))
                except ValueError:
                    continue  # a URL button: nothing to press
        await h.settle()

    # Wind down: let every open game run out on timeouts and autopilot, or cancel it.
    room = h.app.bot_data["cardroom"]  # type: ignore[union-attr]
    for _ in range(40):
        await h.tick(61)
    for group in groups:
        for topic in (0,):
            open_game = await room.play.snapshot_in_topic(group.id, topic)
            if open_game is not None:
                await api.send_text(
                    people[0] if group is groups[0] else people[1], group, "/cancel"
                )
                await h.settle()
                assert await room.play.snapshot_in_topic(group.id, topic) is None
    await h.settle()
    db = Database.from_url(h.database_url)
    try:
        async with db.engine.connect() as connection:
            rows = (
                await connection.execute(
                    text("SELECT game_key, status, state IS NOT NULL FROM games")
                )
            ).all()
    finally:
        await db.close()
    assert {status for _, status, _ in rows} <= {"finished", "cancelled"}, rows
    dealt = {key for key, _, has_state in rows if has_state}
    assert len(dealt) >= 3, f"the run dealt too few kinds of game: {rows}"
    assert callbacks, "the run pressed buttons"
    assert all(callback.answered for callback in callbacks)
    assert api.unanswered_callbacks() == []
