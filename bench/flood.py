"""Telegram's limits under pressure, on simulated time (:mod:`bench.warp`): issue #17's figures.

The fake Bot API enforces Telegram's limits as strict sliding windows — 20 calls in any 60 s
per group (sends and edits alike), one a second per private chat, 30 a second in all — and
the bot runs with its production budget and pacing. Every press goes through the Application.

- ``flood_429``: the 429s the fake answered over every run here; the target is none.
- ``table_lag_p99_s_spam``: three people play Rank in a group, a press every 2 s, while a
  fourth member spams /help, /rules, /top, the Rules button and the board's buttons as fast as
  a person can (every 0.3 s): the p99 of the seconds from a press to the group's table showing
  it.
- ``games_at_ceiling``: games of the turn-based kinds at a move every 10 s each: the most games
  (in steps of 50) before the p99 of the seconds from a move to the next mover's panel passes
  2 s; ``games_at_ceiling_fifo`` is the same with waiting calls served first come, first
  served in front of the same windows (the baseline); ``next_panel_p99_s`` is that p99 at 100
  games.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from telegram import Update

from bench.report import Figure, percentile
from bench.warp import warped
from bench.world import EPOCH, BenchGame, World, sqlite_url
from bot.telegram.budget import Limits
from bot.telegram.delivery import GROUP_INTERVAL, Publisher, Slot
from bot.telegram.render import Content
from tests.fakes import FakeBotApi, FakeCallback, FakeChat, FakeUser

#: A move every this many seconds in each game of the ceiling runs; the panel's deadline.
MOVE_EVERY, PANEL_WITHIN = 10.0, 2.0
#: Turn-based kinds (a real-time game has no "next mover").
TURN_KINDS = ("rank", "trumps", "advantage", "progression")
#: The spammer's pace and what he does, in turn.
SPAM_EVERY = 0.3
SPAM = ("/help", "/rules", "/top", "rules button", "board button")


@dataclass
class Deliveries:
    """When each table and panel showed which version: (game, seat or None) → [(version, t)]."""

    shown: dict[tuple[int, int | None], list[tuple[int, float]]] = field(default_factory=dict)

    def watch(self, publisher: Publisher) -> None:
        deliver = publisher._deliver
        loop = asyncio.get_running_loop()

        async def recorded(slot: Slot, content: Content) -> None:
            await deliver(slot, content)
            key = (slot.game_id, slot.seat)
            self.shown.setdefault(key, []).append((slot.version, loop.time()))

        publisher._deliver = recorded  # type: ignore[method-assign]

    def lag(self, game_id: int, seat: int | None, version: int, since: float) -> float | None:
        """Seconds from ``since`` until the message first showed ``version`` or newer."""
        for shown, at in self.shown.get((game_id, seat), ()):
            if shown >= version and at >= since:
                return at - since
        return None


def strict_world(folder: Path, name: str, *, prioritised: bool = True) -> World:
    """The bot with its production budget, against a fake with Telegram's strict windows."""
    loop = asyncio.get_running_loop()
    api = FakeBotApi(clock=loop.time, flood_limits=True)
    return World(
        sqlite_url(folder, name),
        clock=lambda: EPOCH + loop.time(),
        group_interval=GROUP_INTERVAL,
        api=api,
        limits=Limits(),
        prioritised=prioritised,
        press_clock=loop.time,
    )


async def feed(world: World, payload: dict[str, Any]) -> None:
    """One update from Telegram into the Application."""
    app = world.application
    await app.process_update(Update.de_json(payload, app.bot))


async def say(world: World, user: FakeUser, chat: FakeChat, text: str) -> None:
    await world.api.send_text(user, chat, text)
    await feed(world, world.api.update_log[-1])


async def press(world: World, user: FakeUser, chat: FakeChat, message_id: int, data: str) -> None:
    await world.api.press_data(user, chat, message_id, data)
    await feed(world, world.api.update_log[-1])


async def play_moves(
    world: World,
    game: BenchGame,
    rng: Random,
    every: float,
    until: float,
    moved: Callable[[BenchGame, int, float], None],
) -> list[FakeCallback]:
    """A legal move of a human who may act, every ``every`` s (± a quarter), until ``until``;
    ``moved(game, version, t)`` after each accepted one."""
    loop = asyncio.get_running_loop()
    callbacks = []
    await asyncio.sleep(rng.uniform(0, every))
    while loop.time() < until:
        made = await world.next_press(game, rng)
        if made is None:
            await asyncio.sleep(1.0)  # a computer's or a timer's turn
            continue
        started = loop.time()
        await world.process(made)
        callbacks.append(made.callback)
        if made.callback.answered and made.callback.text is None:
            moved(game, world.latest[game.game_id].version, started)
        await asyncio.sleep(rng.uniform(0.75 * every, 1.25 * every))
    return callbacks


# -- a spammer beside a game -------------------------------------------------------------------


@dataclass
class SpamRun:
    table_lags: list[float]
    too_many: int
    unanswered: int
    group_calls: int
    minutes: float


async def spam_run(folder: Path, seconds: float) -> SpamRun:
    loop = asyncio.get_running_loop()
    world = strict_world(folder, "spam.db")
    await world.start(run_jobs=False)
    deliveries = Deliveries()
    deliveries.watch(world.room.publisher)
    moves: list[tuple[int, int, float]] = []
    try:
        game = await world.create_game("rank", 3, seed=17)
        spammer = world.api.add_user("Spammer", started=True)
        world.api.join_group(spammer, game.group)
        until = loop.time() + seconds
        played = asyncio.create_task(
            play_moves(
                world,
                game,
                Random(17),
                2.0,
                until,
                lambda g, version, at: moves.append((g.game_id, version, at)),
            )
        )
        await _spam(world, spammer, game.group, until)
        callbacks = await played
        await asyncio.sleep(60)  # the last edits go out
        lags = [
            lag
            for game_id, version, at in moves
            if (lag := deliveries.lag(game_id, None, version, at)) is not None
        ]
        missing = len(moves) - len(lags)
        lags += [seconds] * missing  # never shown: as bad as it gets
        group_calls = sum(
            n
            for (chat, _method), n in world.api.stats.by_chat_method.items()
            if chat == game.group.id
        )
        unanswered = sum(1 for c in callbacks if not c.answered) + len(
            world.api.unanswered_callbacks()
        )
        return SpamRun(lags, world.api.stats.flood_limited, unanswered, group_calls, seconds / 60)
    finally:
        await world.stop()


async def _spam(world: World, spammer: FakeUser, group: FakeChat, until: float) -> None:
    """One member asking for everything there is to ask, as fast as a person can tap."""
    loop = asyncio.get_running_loop()
    step = 0
    while loop.time() < until:
        what = SPAM[step % len(SPAM)]
        step += 1
        if what.startswith("/"):
            await say(world, spammer, group, what)
        else:
            prefix, data = ("H:", "H:rank") if what == "rules button" else ("B:", "B:rank:ch:0")
            message = _latest_with(world.api, group, prefix)
            if message is not None:
                await press(world, spammer, group, message, data)
        await asyncio.sleep(SPAM_EVERY)


def _latest_with(api: FakeBotApi, group: FakeChat, prefix: str) -> int | None:
    """The newest bot message in the group with a button whose data starts with ``prefix``."""
    for message in reversed(api.bot_messages(group)):
        if any(data.startswith(prefix) for row in api.buttons(message) for _, data in row):
            return message.message_id
    return None


# -- a stop in the middle of it ------------------------------------------------------------------


@dataclass
class StopRun:
    too_many: int
    #: Games whose table, after the restart's catch-up, did not show their last version.
    behind: int
    games: int


async def stop_run(folder: Path, games: int = 30, seconds: float = 20.0) -> StopRun:
    """Busy games at a press every 2 s; the bot stops in the middle of it (its deliveries
    cut short), starts again on the same database and Bot API, and catches up."""
    loop = asyncio.get_running_loop()
    world = strict_world(folder, "stop.db")
    await world.start(run_jobs=False)
    try:
        made = await world.create_games(games, TURN_KINDS)
        until = loop.time() + seconds
        await asyncio.gather(
            *(play_moves(world, game, Random(game.game_id), 2.0, until, _ignore) for game in made)
        )
    finally:
        await world.stop()  # whatever is on its way is cut short, as in a stop
    again = strict_world(folder, "stop.db")
    again.api = world.api
    await again.start(migrate=False, run_jobs=False)
    try:
        room = again.room
        assert room.catching_up is not None
        await room.catching_up
        await room.publisher.drain()
        # Every open game's messages show its newest version again (the bot's own record).
        behind = len(await room.play.unshown_ids())
        return StopRun(world.api.stats.flood_limited, behind, games)
    finally:
        await again.stop()


def _ignore(_game: BenchGame, _version: int, _at: float) -> None:
    """A move no one times."""


# -- many games at a move every 10 s ----------------------------------------------------------


#: 429s the fake answered in the ceiling runs so far (the other runs report their own).
CEILING_429: list[int] = []


async def ceiling_run(folder: Path, games: int, seconds: float, *, prioritised: bool) -> float:
    """The p99 seconds from a move to the next mover's panel, with ``games`` games."""
    loop = asyncio.get_running_loop()
    world = strict_world(folder, f"ceiling-{games}-{prioritised}.db", prioritised=prioritised)
    await world.start(run_jobs=False)
    deliveries = Deliveries()
    deliveries.watch(world.room.publisher)
    turns: list[tuple[int, int, int, float]] = []
    try:
        made = await world.create_games(games, TURN_KINDS)
        await asyncio.sleep(120)  # the starts go out (tables and hands) before the clock runs

        def moved(game: BenchGame, version: int, at: float) -> None:
            snapshot = world.latest[game.game_id]
            for seat in snapshot.acting:
                if snapshot.seats[seat].user_id is not None:
                    turns.append((game.game_id, seat, version, at))

        until = loop.time() + seconds
        await asyncio.gather(
            *(
                play_moves(world, game, Random(game.game_id), MOVE_EVERY, until, moved)
                for game in made
            )
        )
        await asyncio.sleep(30)
        lags = [
            lag if (lag := deliveries.lag(game_id, seat, version, at)) is not None else seconds
            for game_id, seat, version, at in turns
        ]
        return percentile(lags, 0.99)
    finally:
        CEILING_429.append(world.api.stats.flood_limited)
        await world.abandon_deliveries()
        await world.stop()


async def ceiling(
    folder: Path, seconds: float, steps: tuple[int, ...], *, prioritised: bool
) -> tuple[int, dict[int, float]]:
    """The most games (of ``steps``) whose next-panel p99 stays within the deadline."""
    measured: dict[int, float] = {}
    best = 0
    for games in steps:
        p99 = await ceiling_run(folder, games, seconds, prioritised=prioritised)
        measured[games] = p99
        if p99 > PANEL_WITHIN:
            break
        best = games
    return best, measured


def on_simulated_time(run: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    with warped() as runner:
        return runner.run(run())


def measure(folder: Path, quick: bool) -> list[Figure]:
    spam_seconds = 120.0 if quick else 300.0
    ceiling_seconds = 40.0 if quick else 120.0
    steps = (100, 200, 250, 300) if quick else tuple(range(50, 501, 50))
    fifo_steps = (50, 100, 150) if quick else tuple(range(50, 501, 50))
    CEILING_429.clear()
    spam = on_simulated_time(lambda: spam_run(folder, spam_seconds))
    stop = on_simulated_time(lambda: stop_run(folder))
    best, measured = on_simulated_time(
        lambda: ceiling(folder, ceiling_seconds, steps, prioritised=True)
    )
    fifo, fifo_measured = on_simulated_time(
        lambda: ceiling(folder, ceiling_seconds, fifo_steps, prioritised=False)
    )
    at_100 = measured.get(100)
    if at_100 is None:
        at_100 = on_simulated_time(
            lambda: ceiling_run(folder, 100, ceiling_seconds, prioritised=True)
        )
    too_many = spam.too_many + stop.too_many + sum(CEILING_429)
    return [
        Figure(
            "flood_429",
            too_many,
            "",
            "429s from a strict-window fake (20/60 s a group, 1/s a private chat, 30/s in "
            f"all) over every run here (spam {spam.too_many}, a stop and restart of "
            f"{stop.games} busy games {stop.too_many}, {len(CEILING_429)} ceiling runs "
            f"{sum(CEILING_429)}); {spam.unanswered} callbacks unanswered, {stop.behind} "
            "games behind after the restart",
        ),
        Figure(
            "table_lag_p99_s_spam",
            percentile(spam.table_lags, 0.99),
            "s",
            f"press → group table, Rank of 3 at a press every 2 s, one member spamming every "
            f"{SPAM_EVERY:g} s; {spam.group_calls / spam.minutes:.1f} group calls a minute",
        ),
        Figure(
            "games_at_ceiling",
            best,
            "",
            f"games at a move every {MOVE_EVERY:g} s before the next mover's panel p99 passes "
            f"{PANEL_WITHIN:g} s (p99 by games: "
            + ", ".join(f"{n}: {v:.2f}" for n, v in measured.items())
            + ")",
        ),
        Figure(
            "games_at_ceiling_fifo",
            fifo,
            "",
            "the same, first come first served (baseline; p99 by games: "
            + ", ".join(f"{n}: {v:.2f}" for n, v in fifo_measured.items())
            + ")",
        ),
        Figure("next_panel_p99_s", at_100, "s", "move → next mover's panel, 100 games"),
    ]
