"""Start-up with 10,000 active games in the database: how long until every timer is armed.

A few real games are started and played a little through the services; their rows are copied
(:mod:`bench.clone`) until the database holds :data:`GAMES_10K` playing games. Then a new bot
process starts on that database exactly as ``python -m bot`` does after its migrations:
``build_application``, ``initialize`` and ``post_init`` (which redraws every open game and arms
the deadline poller) — with the production rate limiter and publisher intervals.
``resume_s_10k`` is the wall time of that start.

``--quick`` starts over 2,000 games and scales the time to 10,000 (the start-up work is per
game, one snapshot each); the table says so.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from random import Random

from telegram.ext import AIORateLimiter

from bench import clone
from bench.report import Figure
from bench.world import KINDS, World, sqlite_url
from bot.telegram.delivery import GROUP_INTERVAL, PRIVATE_INTERVAL
from tests.fakes import FakeBotApi

GAMES_10K = 10_000
QUICK_GAMES = 2_000
#: Presses played in each template game before it is copied: mid-game states.
TEMPLATE_PRESSES = 6


async def _templates(url: str) -> list[int]:
    world = World(url)
    await world.start(run_jobs=False)
    try:
        games = await world.create_games(len(KINDS) * 2)
        rng = Random(3)
        for _ in range(TEMPLATE_PRESSES):
            for game in games:
                press = await world.next_press(game, rng)
                if press is not None:
                    await world.process(press)
        await world.room.publisher.drain()
        return [game.game_id for game in games]
    finally:
        await world.stop()


async def resume(folder: Path, games: int) -> tuple[float, int, float]:
    """(seconds to start, games resumed, seconds to copy the rows) on ``games`` games."""
    url = sqlite_url(folder, "resume.db")
    path = clone.database_file(url)
    template_ids = await _templates(url)
    started = time.perf_counter()
    templates = clone.read_templates(path, template_ids)
    copies = clone.plan(templates, games - len(templates))
    clone.insert(path, templates, copies)
    copied = time.perf_counter() - started
    # A new process: a fresh fake that knows the copies' people and groups, so that the
    # redraws that get out during the start find their chats.
    api = FakeBotApi(flood_limits=False)
    for template in templates:
        members = [
            api.add_user(user["first_name"], user_id=user_id, started=True)
            for user_id, user in template.users.items()
        ]
        api.add_group("Table", chat_id=template.chat["id"], members=members)
    for copy in copies:
        members = [
            api.add_user(f"Player{uid % 1_000_000}", user_id=uid, started=True)
            for uid in copy.user_ids
            if uid is not None
        ]
        api.add_group(f"Table {copy.game_id}", chat_id=copy.chat_id, members=members)
    world = World(
        url,
        api=api,
        group_interval=GROUP_INTERVAL,
        private_interval=PRIVATE_INTERVAL,
        rate_limiter=AIORateLimiter(max_retries=3),
    )
    started = time.perf_counter()
    await world.start(migrate=False, run_jobs=False)
    took = time.perf_counter() - started
    try:
        poller = world.room.poller
        armed = getattr(poller, "_task", None)  # the poller's loop, started by post_init
        assert armed is not None, "post_init returned without starting the deadline poller"
        return took, len(world.latest), copied
    finally:
        await world.abandon_deliveries()
        await world.stop()


def measure(folder: Path, quick: bool) -> list[Figure]:
    games = QUICK_GAMES if quick else GAMES_10K
    took, resumed, copied = asyncio.run(resume(folder, games))
    scale = GAMES_10K / games
    note = "" if scale == 1 else f" (measured on {games:,}, ×{scale:g})"
    return [
        Figure(
            "resume_s_10k",
            took * scale,
            "s",
            f"start-up to all timers armed, 10,000 playing games{note}",
        ),
        Figure(
            "resume_ms_per_game",
            took / games * 1e3,
            "ms",
            f"start-up per game; {resumed:,} redrawn",
        ),
        Figure("resume_copy_s", copied, "s", f"copying rows to {games:,} games (bench set-up)"),
    ]
