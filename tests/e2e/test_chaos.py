"""Chaos: simulated people press whatever they can see, forge data, and the bot restarts.

A short, seeded run over all five games in-process (set CHAOS_STEPS for a longer one; the
crowd is :class:`bench.crowd.Crowd`, which ``python -m bench.chaos`` also drives against a
real bot process that it kills). It asserts what must hold whatever people do: no error in
the log (the e2e conftest checks it), every callback answered, every game ends finished or
cancelled, none stuck, and the cards of every dealt game are conserved.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.chaos_checks import GameRecord, conservation_error, load_games
from bench.crowd import Crowd
from bot.storage.database import Database
from tests.e2e.harness import Harness, sqlite_url
from tests.fakes import FakeBotApi

STEPS = int(os.environ.get("CHAOS_STEPS", "240"))


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    api = FakeBotApi(flood_limits=False)
    harness = Harness(api, sqlite_url(tmp_path))
    await harness.start()
    yield harness
    await harness.stop()


async def test_chaos_over_every_game(harness: Harness) -> None:
    h, api = harness, harness.api
    rng = random.Random(20261130)
    crowd = Crowd.gather(api, rng, people=4, groups=2)
    for step in range(STEPS):
        roll = rng.random()
        if roll < 0.06:
            await h.tick(rng.choice((1.5, 4, 11, 61)))
        elif roll < 0.07 and step > 20:
            await h.stop()  # a crash: nothing in memory survives
            await h.start()
        else:
            await crowd.act(rng.choice(crowd.people))
        await h.settle()

    # Wind down: let every open game run out on timeouts and autopilot (40 minutes of bot time
    # at most: an idle lobby closes after 30), or cancel it. Then wait for what must follow —
    # a condition, not a pause: a loaded machine may take longer than a settle's quiet spell.
    db = Database.from_url(h.database_url)
    try:

        async def still_open() -> list[GameRecord]:
            return [g for g in await load_games(db) if g.status in ("lobby", "playing")]

        for _ in range(40):
            if not await still_open():
                break
            await h.tick(61)
        for game in await still_open():
            canceller = crowd.canceller(game.chat_id)
            assert canceller is not None
            await api.send_text(canceller, game.chat_id, "/cancel")
            await h.settle()
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            if not await still_open() and not api.unanswered_callbacks():
                break
            await asyncio.sleep(0.1)
        games = await load_games(db)
    finally:
        await db.close()
    assert {game.status for game in games} <= {"finished", "cancelled"}, games
    dealt = [game for game in games if game.state is not None]
    assert len({game.game_key for game in dealt}) >= 3, f"too few kinds of game dealt: {games}"
    for game in dealt:
        assert game.state is not None
        assert conservation_error(game.game_key, game.state) is None, game
    assert crowd.callbacks, "the run pressed buttons"
    assert all(callback.answered for callback in crowd.callbacks)
    assert api.unanswered_callbacks() == []
