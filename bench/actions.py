"""The full path of a press, with 1,000 active games of mixed kinds, and the floor beside it.

One press is timed from the raw update to the last Bot API call it causes: ``Update.de_json``,
``Application.process_update`` (handler, load, rules, commit, the callback answer), then the
publisher's table and panel edits through PTB and the fake Bot API (its intervals are 0 here, so
every press is delivered at once and nothing is coalesced away). Each press is a legal action of
a human seat that may act, chosen at random from what the bot last published.

* **sequential**: one press at a time; ``actions_per_s`` is 1 / mean press time. Each press is
  followed by one floor sample of each part (:mod:`bench.floor`), so the two see the same
  machine, and ``floor_ratio`` is the press median over ``floor_us``; then by a press on a
  third game with nothing delivered (:meth:`World.quietly`): ``handler_ratio`` is its median
  over ``floor_us``, the handler's cost beside the floor's.
* **50 in flight**: 50 players press at once, each on his own games; ``actions_per_s_50`` is
  presses over wall time.

``…_bot`` figures leave out the time spent inside the fake Bot API itself (parsing HTML,
keeping messages): on Telegram that is Telegram's time, not ours.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from bench import clone
from bench.floor import FloorBot, FloorDatabase
from bench.report import Figure, percentile
from bench.world import KINDS, BenchGame, Press, World, sqlite_url
from bot.sandbox.bot_api import FakeBotApi
from bot.telegram.intake import PressThrottle

ACTIVE_GAMES = 1_000
IN_FLIGHT = 50
#: Methods that count against Telegram's flood limits.
LIMITED = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto")


class FakeTime:
    """Seconds spent inside the fake Bot API's ``handle`` (its own work, not the bot's)."""

    def __init__(self, api: FakeBotApi) -> None:
        self.total = 0.0
        handle = api.handle

        async def timed(
            method: str, params: Any = None, files: Any = None
        ) -> tuple[int, dict[str, Any]]:
            started = time.perf_counter()
            try:
                return await handle(method, params, files)
            finally:
                self.total += time.perf_counter() - started

        api.handle = timed  # type: ignore[method-assign]


class GcPauses:
    """Time in Python's cyclic garbage collector while watching (gc.callbacks)."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *_exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._started)


@dataclass
class Samples:
    latency: list[float] = field(default_factory=list)
    bot_only: list[float] = field(default_factory=list)
    refused: int = 0


async def build(folder: Path, quick: bool) -> World:
    """1,000 playing games: through the services, or (quick) 15 of them and copies."""
    world = World(sqlite_url(folder))
    await world.start()
    # The bench presses one game's panel again within milliseconds, as nobody's finger does:
    # the double-tap guard would drop it (its cost stays in every press's path).
    world.room.throttle = PressThrottle(burst=10_000, rate=10_000.0, double_tap=0.0)
    if quick:
        templates = await world.create_games(len(KINDS) * 3)
        await world.add_copies(ACTIVE_GAMES - len(templates), templates)
    else:
        await world.create_games(ACTIVE_GAMES)
    await world.warm_languages()
    world.forget_fake_history()
    gc.collect()
    return world


async def _next(world: World, games: list[BenchGame], rng: Random) -> Press | None:
    """A press on one of ``games``; games nobody can act in any more are dropped."""
    while games:
        game = rng.choice(games)
        press = await world.next_press(game, rng)
        if press is not None:
            return press
        games.remove(game)
    return None


async def _timed_press(world: World, press: Press, fake: FakeTime) -> tuple[float, float]:
    fake_before = fake.total
    started = time.perf_counter()
    await world.process(press)
    await world.delivered(press.game)
    elapsed = time.perf_counter() - started
    return elapsed, elapsed - (fake.total - fake_before)


def refused(world: World, press: Press, version: int) -> bool:
    """Whether the bot refused the press: its game did not move. (An accepted press may be
    answered with words too: Davay-ka!'s "Centre: …", "✅ Done — waiting for …".)"""
    return world.latest[press.game.game_id].version == version


@dataclass
class Sequential:
    presses: Samples
    floor_ptb: Samples
    floor_sql: list[float]
    #: The same kind of press with nothing delivered: the handler alone.
    quiet: list[float]
    cpu_per_press: float
    #: Limited Bot API calls made by the timed presses' deliveries.
    calls: int


async def sequential(
    world: World, count: int, rng: Random, fake: FakeTime, floor_bot: FloorBot, floor_db: Any
) -> Sequential:
    games = list(world.games)
    presses, floor_ptb = Samples(), Samples()
    floor_sql: list[float] = []
    quiet: list[float] = []
    cpu = 0.0
    calls = 0
    for _ in range(count):
        press = await _next(world, games, rng)
        if press is None:
            break
        cpu_before, calls_before = time.process_time(), _calls(world.api)
        version = world.latest[press.game.game_id].version
        elapsed, bot_only = await _timed_press(world, press, fake)
        cpu += time.process_time() - cpu_before
        calls += sum((_calls(world.api) - calls_before).values())
        presses.latency.append(elapsed)
        presses.bot_only.append(bot_only)
        presses.refused += refused(world, press, version)
        # The floor, right after, on the same machine: another game's fresh press...
        other = await _next(world, list(games), rng)
        if other is not None:
            fake_before = fake.total
            took = await floor_bot.press(other)
            floor_ptb.latency.append(took)
            floor_ptb.bot_only.append(took - (fake.total - fake_before))
        # ...and one hand-written row update.
        floor_sql.append(await floor_db.step(rng))
        # Then a third game's press with nothing delivered.
        other = await _next(world, list(games), rng)
        if other is not None:
            quiet.append(await world.quietly(other))
    n = max(1, len(presses.latency))
    return Sequential(presses, floor_ptb, floor_sql, quiet, cpu / n, calls)


async def concurrent(
    world: World, count: int, rng: Random, fake: FakeTime
) -> tuple[Samples, float]:
    """``IN_FLIGHT`` players at once, each on his own share of the games."""
    shares = [world.games[i::IN_FLIGHT] for i in range(IN_FLIGHT)]
    samples = Samples()
    left = [count]

    async def player(games: list[BenchGame], seed: int) -> None:
        mine = Random(seed)
        games = list(games)
        while left[0] > 0:
            left[0] -= 1
            press = await _next(world, games, mine)
            if press is None:
                return
            version = world.latest[press.game.game_id].version
            elapsed, bot_only = await _timed_press(world, press, fake)
            samples.latency.append(elapsed)
            samples.bot_only.append(bot_only)
            samples.refused += refused(world, press, version)

    started = time.perf_counter()
    await asyncio.gather(*(player(share, rng.randrange(1 << 30)) for share in shares))
    return samples, len(samples.latency) / (time.perf_counter() - started)


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def measure(folder: Path, quick: bool) -> list[Figure]:
    return asyncio.run(run(folder, quick))


def _calls(api: FakeBotApi) -> Counter[str]:
    return Counter({m: n for m, n in api.stats.by_method.items() if m in LIMITED})


async def run(folder: Path, quick: bool) -> list[Figure]:
    rng = Random(10)
    started = time.perf_counter()
    world = await build(folder, quick)
    _log(f"  {len(world.games)} games ready in {time.perf_counter() - started:.1f} s")
    fake = FakeTime(world.api)
    floor_bot = FloorBot(world.api)
    floor_db = FloorDatabase(clone.database_file(world.database_url), folder)
    await floor_bot.start()
    await floor_db.start()
    try:
        count = 600 if quick else 3_000
        with GcPauses() as collector:
            seq = await sequential(world, count, rng, fake, floor_bot, floor_db)
        presses, ptb, sql = seq.presses, seq.floor_ptb, seq.floor_sql
        _log(f"  sequential: {len(presses.latency)} presses")
        flight, rate_50 = await concurrent(world, count, rng, fake)
        _log(f"  {IN_FLIGHT} in flight: {len(flight.latency)} presses")
    finally:
        await floor_bot.stop()
        await floor_db.stop()
        await world.stop()

    def ms(samples: list[float], fraction: float) -> float:
        return percentile(samples, fraction) * 1e3

    p50 = ms(presses.latency, 0.5)
    floor_ptb_us = percentile(ptb.latency, 0.5) * 1e6
    floor_sql_us = percentile(sql, 0.5) * 1e6
    floor_us = floor_ptb_us + floor_sql_us
    floor_bot_us = percentile(ptb.bot_only, 0.5) * 1e6 + floor_sql_us
    n = len(presses.latency)
    return [
        Figure("floor_us", floor_us, "µs", "floor: PTB parse+dispatch+answer + SQLite row update"),
        Figure("floor_ptb_us", floor_ptb_us, "µs", "floor part: Update.de_json + bare handler"),
        Figure("floor_sql_us", floor_sql_us, "µs", "floor part: aiosqlite SELECT+UPDATE+COMMIT"),
        Figure("floor_ratio", p50 * 1e3 / floor_us, "×", "sequential press p50 / floor_us"),
        Figure(
            "floor_ratio_bot",
            percentile(presses.bot_only, 0.5) * 1e6 / floor_bot_us,
            "×",
            "the same, the fake Bot API's own time left out of both",
        ),
        Figure(
            "handler_ratio",
            percentile(seq.quiet, 0.5) * 1e6 / floor_us,
            "×",
            "a press with nothing delivered (the handler alone), p50 / floor_us",
        ),
        Figure("action_p50_ms", p50, "ms", f"press, sequential, {len(world.games)} games"),
        Figure("action_p99_ms", ms(presses.latency, 0.99), "ms", "press, sequential"),
        Figure("actions_per_s", n / sum(presses.latency), "/s", "1 / mean press, sequential"),
        Figure(
            "action_cpu_ms", seq.cpu_per_press * 1e3, "ms", "process CPU per press (all threads)"
        ),
        Figure(
            "gc_ms_per_press",
            sum(collector.pauses) / max(1, n) * 1e3,
            "ms",
            f"cyclic GC per press, sequential; longest pause "
            f"{max(collector.pauses, default=0) * 1e3:.0f} ms",
        ),
        Figure(
            "action_p50_ms_bot",
            ms(presses.bot_only, 0.5),
            "ms",
            "press p50 without the fake Bot API's own time",
        ),
        Figure(
            "handler_p50_ms",
            ms(seq.quiet, 0.5),
            "ms",
            "press p50 with nothing delivered: parse, dispatch, load, rules, commit, answer",
        ),
        Figure(
            "calls_per_press_uncoalesced",
            seq.calls / max(1, n),
            "",
            "limited Bot API calls per press with publisher intervals 0",
        ),
        Figure("action_p50_ms_50", ms(flight.latency, 0.5), "ms", f"press, {IN_FLIGHT} in flight"),
        Figure(
            "action_p99_ms_50", ms(flight.latency, 0.99), "ms", f"press, {IN_FLIGHT} in flight"
        ),
        Figure("actions_per_s_50", rate_50, "/s", f"presses / wall time, {IN_FLIGHT} in flight"),
        Figure(
            "action_refused",
            presses.refused + flight.refused,
            "",
            "presses the bot refused (must be 0: every press is legal)",
        ),
    ]
