"""Start-up with 10,000 active games in the database: how long until every timer is armed.

A few real games are started and played a little through the services; their rows are copied
(:mod:`bench.clone`) until the database holds :data:`GAMES_10K` playing games. Then a new bot
process starts on that database exactly as ``python -m bot`` does after its migrations:
``build_application``, ``initialize`` and ``post_init`` (which arms the deadline poller, then
sets off the redraw of the games whose messages may be behind, in the background) — with the
production rate limiter and publisher intervals. ``resume_s_10k`` is the wall time until the
poller runs; ``catch_up_s_10k`` until the background redraw has published what it had to —
after a clean stop (nothing is behind), and after a crash that left every game behind
(``…_crash``: all 10,000 redrawn).

``--quick`` starts over 2,000 games and scales the crash redraw to 10,000 (it is per game, one
snapshot each); the table says so. ``catch_up=False`` (``python -m bench --quick`` without
``--only``) measures the start-up alone and leaves the background redraw, which takes minutes,
to ``--only resume`` and the full run.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from random import Random

from bench import clone
from bench.report import Figure
from bench.world import KINDS, World, sqlite_url
from bot.sandbox.bot_api import FakeBotApi
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.live import GROUP_INTERVAL, PRIVATE_INTERVAL

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


async def resume(folder: Path, games: int, catch_up: bool = True) -> Resumed:
    """Two starts on ``games`` copied games: after a stop with everything delivered, and
    after a crash that left every game's messages behind (the worst case); ``catch_up``:
    each waits for its background redraw too."""
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
    clean = await _start(url, api, catch_up)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET shown_version = 0")
    crashed = await _start(url, api, catch_up)
    return Resumed(clean, crashed, copied)


@dataclass
class Start:
    #: From build to ``post_init`` done, the deadline poller running.
    armed_s: float
    #: From build until the background redraw has published every game it had to (NaN: not
    #: waited for).
    caught_up_s: float
    redrawn: int


@dataclass
class Resumed:
    clean: Start
    crashed: Start
    copied_s: float


async def _start(url: str, api: FakeBotApi, catch_up: bool) -> Start:
    world = World(
        url,
        api=api,
        group_interval=GROUP_INTERVAL,
        private_interval=PRIVATE_INTERVAL,
        limits=Limits(),
    )
    started = time.perf_counter()
    await world.start(migrate=False, run_jobs=False)
    armed = time.perf_counter() - started
    try:
        room = world.room
        assert room.poller._task is not None, "post_init returned without the deadline poller"
        assert room.catching_up is not None
        if not catch_up:
            return Start(armed, math.nan, 0)
        await room.catching_up
        caught_up = time.perf_counter() - started
        return Start(armed, caught_up, len(world.latest))
    finally:
        await world.abandon_deliveries()
        await world.stop()


def measure(folder: Path, quick: bool, catch_up: bool = True) -> list[Figure]:
    games = QUICK_GAMES if quick else GAMES_10K
    resumed = asyncio.run(resume(folder, games, catch_up))
    scale = GAMES_10K / games
    note = "" if scale == 1 else f" (measured on {games:,}, ×{scale:g})"
    clean, crashed = resumed.clean, resumed.crashed
    armed = Figure(
        "resume_s_10k",
        max(clean.armed_s, crashed.armed_s),
        "s",
        f"start-up to all timers armed, {games:,} playing games (the slower of the two starts)",
    )
    copied = Figure(
        "resume_copy_s", resumed.copied_s, "s", f"copying rows to {games:,} games (bench set-up)"
    )
    if not catch_up:
        return [armed, copied]
    return [
        armed,
        Figure(
            "catch_up_s_10k",
            clean.caught_up_s,
            "s",
            f"start-up to every out-of-date game redrawn after a clean stop: {clean.redrawn:,}"
            " redrawn",
        ),
        Figure(
            "catch_up_s_10k_crash",
            crashed.caught_up_s * scale,
            "s",
            f"the same when every game's messages were behind{note}: {crashed.redrawn:,}"
            " redrawn, in the background",
        ),
        copied,
    ]
