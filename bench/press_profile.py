"""Where a press's time goes: cProfile over sequential presses, summed by layer.

``python -m bench --profile`` builds the 1,000-game world of :mod:`bench.actions` (quick
set-up), then profiles sequential presses (each delivered before the next, publisher intervals
0) with the main thread's CPU clock, so that waiting is not counted. Self time is summed per
layer (the fake Bot API, PTB, SQLAlchemy, our packages…) and the costliest functions are
listed. The database thread's CPU (SQLite itself) is reported apart.
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from random import Random

from bench.actions import build

#: (layer, a substring of the file path); the first match wins.
LAYERS = (
    ("fake Bot API (bot/sandbox)", "/bot/sandbox/"),
    ("bot.games (engines)", "/bot/games/"),
    ("bot.telegram.render", "/bot/telegram/render/"),
    ("bot.telegram (handlers, delivery)", "/bot/telegram/"),
    ("bot.i18n", "/bot/i18n/"),
    ("bot.services", "/bot/services/"),
    ("bot.storage", "/bot/storage/"),
    ("python-telegram-bot", "/telegram/"),
    ("SQLAlchemy", "/sqlalchemy/"),
    ("aiosqlite (calls into its thread)", "/aiosqlite/"),
    ("aiolimiter", "/aiolimiter/"),
    ("asyncio event loop", "/asyncio/"),
    ("asyncio event loop", "/selectors.py"),
    ("json (stdlib)", "/json/"),
    ("benchmark driver", "/bench/"),
)


def layer_of(filename: str, function: str) -> str:
    for name, part in LAYERS:
        if part in filename:
            return name
    if filename == "~":
        return "built-ins called from the event loop"
    return "other Python"


async def _profile(presses: int) -> tuple[cProfile.Profile, int, float, float]:
    with tempfile.TemporaryDirectory() as folder:
        world = await build(Path(folder), quick=True)
        rng = Random(2)
        games = list(world.games)
        profiler = cProfile.Profile(time.thread_time)
        done = 0
        thread = process = 0.0
        try:
            for _ in range(presses):
                game = rng.choice(games)
                press = await world.next_press(game, rng)
                if press is None:
                    continue
                thread_before, process_before = time.thread_time(), time.process_time()
                profiler.enable()
                await world.process(press)
                await world.delivered(game)
                profiler.disable()
                thread += time.thread_time() - thread_before
                process += time.process_time() - process_before
                done += 1
        finally:
            await world.stop()
        return profiler, done, thread, process


def report(presses: int = 400, top: int = 30) -> str:
    profiler, done, thread, process = asyncio.run(_profile(presses))
    stats = pstats.Stats(profiler)
    by_layer: dict[str, float] = defaultdict(float)
    rows = []
    for (filename, line, function), entry in stats.stats.items():  # type: ignore[attr-defined]
        own, callers = entry[2], entry[4]
        if filename == "~" and callers:
            # A built-in (str.encode, len, a C extension) counts for the layer calling it.
            for (caller_file, _, caller_function), by_caller in callers.items():
                by_layer[layer_of(caller_file, caller_function)] += by_caller[2]
        else:
            by_layer[layer_of(filename, function)] += own
        rows.append((own, entry[3], entry[1], f"{filename}:{line}({function})"))
    total = sum(by_layer.values())
    lines = [
        f"{done} presses; main thread CPU {thread / done * 1e3:.2f} ms per press under the "
        f"profiler, other threads (SQLite) {(process - thread) / done * 1e3:.2f} ms",
        "",
        "self time by layer (main thread)            ms/press   share",
    ]
    for name, own in sorted(by_layer.items(), key=lambda item: -item[1]):
        lines.append(f"  {name:<40} {own / done * 1e3:8.3f}  {own / total:6.1%}")
    lines += [
        "",
        f"top {top} functions by self time      self ms/press  cum ms/press  calls/press",
    ]
    for own, cumulative, calls, where in sorted(rows, reverse=True)[:top]:
        short = where.split("site-packages/")[-1].split("/work/main/")[-1]
        per_press = f"{own / done * 1e3:7.3f}  {cumulative / done * 1e3:8.3f}"
        lines.append(f"  {per_press}  {calls / done:7.1f}  {short}")
    return "\n".join(lines)


class _Clock:
    """Wall time per named part, summed over presses (parts may nest: see ``breakdown``)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, owner: object, attribute: str, part: str) -> None:
        original = getattr(owner, attribute)
        spent = self.spent
        if asyncio.iscoroutinefunction(original):

            async def timed_async(*args: object, **kwargs: object) -> object:
                started = time.perf_counter()
                try:
                    return await original(*args, **kwargs)
                finally:
                    spent[part] += time.perf_counter() - started

            setattr(owner, attribute, timed_async)
        else:

            def timed(*args: object, **kwargs: object) -> object:
                started = time.perf_counter()
                try:
                    return original(*args, **kwargs)
                finally:
                    spent[part] += time.perf_counter() - started

            setattr(owner, attribute, timed)


async def _breakdown(presses: int, *, publish: bool) -> tuple[dict[str, float], int]:
    """Per-part wall times; without ``publish`` the publisher sends nothing at all."""
    from telegram import Update

    import bot.services.games
    import bot.telegram.sender.live
    from bench.actions import FakeTime
    from bot.storage import lean

    with tempfile.TemporaryDirectory() as folder:
        world = await build(Path(folder), quick=True)
        clock = _Clock()
        room = world.room
        clock.wrap(room.play, "act", "act")
        clock.wrap(lean, "load", "load")
        clock.wrap(room.play, "_press", "rules")
        clock.wrap(room.play.store, "columns", "columns")
        clock.wrap(lean, "save_if_version", "write")
        clock.wrap(lean, "append_action", "write")
        clock.wrap(bot.services.games, "build_snapshot", "snapshot")
        clock.wrap(bot.telegram.sender.live, "table_content", "render")
        clock.wrap(bot.telegram.sender.live, "panel_content", "render")
        if not publish:
            latest = world.latest
            room.publisher.publish = lambda s: latest.__setitem__(s.game_id, s)  # type: ignore[assignment,method-assign]
        fake = FakeTime(world.api)
        rng = Random(4)
        games = list(world.games)
        done = 0
        total = parse = 0.0
        try:
            for _ in range(presses):
                game = rng.choice(games)
                press = await world.next_press(game, rng)
                if press is None:
                    continue
                app = world.application
                started = time.perf_counter()
                update = Update.de_json(press.payload, app.bot)
                parsed = time.perf_counter()
                await app.process_update(update)
                await world.delivered(game)
                total += time.perf_counter() - started
                parse += parsed - started
                done += 1
        finally:
            await world.stop()
        spent = dict(clock.spent)
        spent["parse"] = parse
        spent["fake"] = fake.total
        spent["total"] = total
        return spent, done


def breakdown(presses: int = 600) -> str:
    """Wall time per part of a press, no profiler.

    The handler's parts run one after another and are timed where they are called, in a run
    where the publisher sends nothing; the publisher's deliveries run as concurrent tasks, so
    their share is the difference to a run where it does. (Garbage collection lands in
    whichever part happens to allocate when it triggers.)
    """
    full, done = asyncio.run(_breakdown(presses, publish=True))
    quiet, done_quiet = asyncio.run(_breakdown(presses, publish=False))

    def ms(spent: dict[str, float], part: str, count: int) -> float:
        return spent.get(part, 0.0) / count * 1e3

    def q(part: str) -> float:
        return ms(quiet, part, done_quiet)

    total = ms(full, "total", done)
    handler = q("total")
    act, load, snapshot = q("act"), q("load"), q("snapshot")
    rules, columns, write = q("rules"), q("columns"), q("write")
    render = ms(full, "render", done)
    fake_out = ms(full, "fake", done) - q("fake")
    handler_parts = [
        ("Update.de_json", q("parse")),
        ("act: SELECT the game, its chat, seats and users; records", load),
        ("act: the rules (the state loaded, the action applied)", rules),
        ("act: the columns (the state dumped, recent events, deadline)", columns),
        ("act: UPDATE games, INSERT INTO actions", write),
        ("act: snapshot (views and legal actions of every seat)", snapshot),
        (
            "act: the rest (game lock, connection, BEGIN, COMMIT)",
            act - load - rules - columns - write - snapshot,
        ),
        ("dispatch, handler, callback answer (fake included)", handler - q("parse") - act),
    ]
    publisher_parts = [
        ("render table and panels", render),
        (
            "PTB: requests built, responses parsed, rate limiter",
            total - handler - render - fake_out,
        ),
        ("the fake Bot API's own work (Telegram's, in production)", fake_out),
    ]
    lines = [f"{done} presses, {total:.2f} ms each (wall, no profiler).", ""]
    lines.append(f"The handler, publisher off: {handler:.2f} ms")
    for name, value in handler_parts:
        lines.append(f"  {name:<62} {value:6.2f} ms  {value / total:6.1%}")
    lines.append(f"What the publisher adds (deliveries): {total - handler:.2f} ms")
    for name, value in publisher_parts:
        lines.append(f"  {name:<62} {value:6.2f} ms  {value / total:6.1%}")
    return "\n".join(lines)
