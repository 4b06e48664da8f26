"""Memory per active game in the running bot.

A running bot (its poller and job queue on) creates N games through the services and every
game gets one press; ``mem_kb_per_game`` is the growth of the Python allocations still alive
(``tracemalloc``) divided by N, leaving out those made by the fake Bot API (``bot/sandbox``:
its messages, call log and updates) and by the benchmark itself. That is what the bot keeps
per game: the publisher's slots with their snapshots and last contents, PTB's per-user and
per-chat data, the language cache. (The resident set size is no use here: the process has
run the other measurements before, and its allocator reuses what they freed.)
"""

from __future__ import annotations

import asyncio
import gc
import time
import tracemalloc
from pathlib import Path
from random import Random

from bench.report import Figure
from bench.world import World, sqlite_url

#: Allocations that are not the bot's: made by the fake Bot API or anything it calls (a frame
#: of bot/sandbox anywhere in the traceback: the fake is the bot's transport here, so the
#: bot's own code never runs below it), or by the benchmark itself (its innermost frame).
NOT_THE_BOT = (
    tracemalloc.Filter(False, "*/bot/sandbox/*", all_frames=True),
    tracemalloc.Filter(False, "*/bench/*"),
    tracemalloc.Filter(False, tracemalloc.__file__),
)
#: Frames kept per allocation: deep enough to see the fake under the bot's calls.
FRAMES = 4
WARM_UP_GAMES = 10


def _bot_bytes(snapshot: tracemalloc.Snapshot) -> int:
    return sum(stat.size for stat in snapshot.filter_traces(NOT_THE_BOT).statistics("filename"))


async def _games_and_presses(world: World, count: int, rng: Random) -> None:
    games = await world.create_games(count)
    for game in games:
        press = await world.next_press(game, rng)
        if press is not None:
            await world.process(press)
            await world.delivered(game)


async def run(folder: Path, count: int) -> tuple[float, float]:
    world = World(sqlite_url(folder, "memory.db"))
    await world.start()
    try:
        rng = Random(5)
        # Imports, statement caches, first-use allocations: not per game.
        await _games_and_presses(world, WARM_UP_GAMES, rng)
        world.latest.clear()
        gc.collect()
        tracemalloc.start(FRAMES)
        before = _bot_bytes(tracemalloc.take_snapshot())
        started = time.perf_counter()
        await _games_and_presses(world, count, rng)
        took = time.perf_counter() - started
        # The benchmark's own record of the snapshots would keep finished ones alive.
        world.latest.clear()
        gc.collect()
        after = _bot_bytes(tracemalloc.take_snapshot())
        tracemalloc.stop()
        return (after - before) / count / 1024, took
    finally:
        await world.stop()


def measure(folder: Path, quick: bool) -> list[Figure]:
    count = 50 if quick else 500
    per_game, took = asyncio.run(run(folder, count))
    return [
        Figure(
            "mem_kb_per_game",
            per_game,
            "KiB",
            f"live Python memory the bot keeps per game ({count} games, one press each)",
        ),
        Figure(
            "create_ms_per_game", took / count * 1e3, "ms", "open, join, start, publish, press"
        ),
    ]
