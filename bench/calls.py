"""Bot API calls per player action over whole games, at a human pace, with the real intervals.

Whole seeded games of every kind, humans only, are played through the Application at one press
every :data:`PACE` seconds per game (the action the computer player would choose for the seat,
so games last as long as real ones). The publisher keeps its production intervals (a group table
at most every 3 s, a private panel at most every second), the production rate limiter its
production limits, and the fake Bot API enforces Telegram's flood limits; the bot's own deadline
poller runs every 0.5 s. All of it runs on simulated time (:mod:`bench.warp`): an hour of play
takes seconds and does not depend on the machine's load.

``calls_per_action_<kind>`` counts the calls that count against Telegram's limits —
sendMessage, editMessageText, editMessageReplyMarkup, sendPhoto — that went through (a 429
refusal does not count; the table says how many there were) in the game's group and its
players' private chats, from the start of the game to well after its end, divided by the
accepted presses. ``calls_per_action`` is the mean over the kinds.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

from bench.report import Figure
from bench.warp import warped
from bench.world import EPOCH, KINDS, BenchGame, World, sqlite_url
from bot.games.registry import get_rules
from bot.sandbox.bot_api import FakeBotApi, coerce_params
from bot.storage.repositories import Actions, Games
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.live import GROUP_INTERVAL, PRIVATE_INTERVAL

#: Seconds between two presses in one game, on average: a person reading his panel and
#: deciding. Each wait is drawn from PACE ± JITTER, and each game starts at its own moment:
#: people in different groups do not press in step.
PACE = 2.0
JITTER = 0.5
LIMITED = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto")
#: Humans per game (Rank: three, its common table).
HUMANS = {"rank": 3, "trumps": 2, "advantage": 2, "progression": 3, "davayka": 2}
#: Simulated seconds after the last game ends for the last edits to go out.
AFTERMATH = 60.0


class CallLog:
    """What the fake Bot API answered, per chat: calls that went through, and 429s."""

    def __init__(self, api: FakeBotApi) -> None:
        self.passed: Counter[tuple[int, str]] = Counter()
        self.refused: Counter[int] = Counter()
        handle = api.handle

        async def logged(
            method: str, params: Any = None, files: Any = None
        ) -> tuple[int, dict[str, Any]]:
            status, body = await handle(method, params, files)
            chat = coerce_params(params or {}).get("chat_id")
            if isinstance(chat, int):
                if status == 200:
                    self.passed[(chat, method)] += 1
                elif status == 429:
                    self.refused[chat] += 1
            return status, body

        api.handle = logged  # type: ignore[method-assign]


@dataclass
class GameCount:
    key: str
    presses: int
    other_steps: int
    group_calls: int
    private_calls: int
    #: 429 refusals (group, private).
    too_many: tuple[int, int]
    refused: int
    minutes: float


async def _choose(world: World, game: BenchGame, rng: Random) -> tuple[int, int, str] | None:
    """(seat, version, action code): what the computer would play for a human who may act."""
    snapshot = world.latest.get(game.game_id)
    if snapshot is None or snapshot.status != "playing":
        return None
    seats = [s for s, actions in snapshot.legal.items() if actions]
    if not seats:
        return None
    seat = rng.choice(seats)
    rules = get_rules(game.key)
    async with world.room.play.db.transaction() as session:
        row = await Games(session).get(game.game_id)
    assert row is not None and row.state is not None
    if row.version != snapshot.version:
        return None
    state = rules.load(row.state)
    try:
        action = rules.choose(state, seat, rng)
    except Exception:
        action = rng.choice(snapshot.legal[seat])[1]
    return seat, row.version, rules.encode_action(action)


async def _play(world: World, game: BenchGame, rng: Random, refused: Counter[int]) -> None:
    while True:
        await asyncio.sleep(rng.uniform(PACE - JITTER, PACE + JITTER))
        snapshot = world.latest.get(game.game_id)
        if snapshot is None or snapshot.is_over:
            return
        chosen = await _choose(world, game, rng)
        if chosen is None:
            continue
        press = await world.make_press(game, *chosen)
        if press is None:
            continue
        await world.process(press)
        refused[game.game_id] += press.callback.text is not None


async def _count(
    world: World, log: CallLog, game: BenchGame, refused: int, minutes: float
) -> GameCount:
    group = sum(log.passed[(game.group.id, method)] for method in LIMITED)
    private = sum(log.passed[(p.id, method)] for p in game.players for method in LIMITED)
    too_many = (log.refused[game.group.id], sum(log.refused[p.id] for p in game.players))
    async with world.room.play.db.transaction() as session:
        steps = await Actions(session).of_game(game.game_id)
    presses = sum(1 for row in steps if row.source == "press")
    others = sum(1 for row in steps if row.source not in ("press", "start"))
    return GameCount(game.key, presses, others, group, private, too_many, refused, minutes)


async def play_games(
    folder: Path, per_kind: int, kinds: tuple[str, ...] = KINDS
) -> list[GameCount]:
    """Play ``per_kind`` rounds of seeded games, one of each kind at once, to their ends.

    Five games at a time keep the bot's calls well below Telegram's 30 per second overall,
    so that what is counted is each game's own traffic, not a crowd's.
    """
    loop = asyncio.get_running_loop()
    api = FakeBotApi(clock=loop.time, flood_limits=True)
    log = CallLog(api)
    world = World(
        sqlite_url(folder, "calls.db"),
        clock=lambda: EPOCH + loop.time(),
        group_interval=GROUP_INTERVAL,
        private_interval=PRIVATE_INTERVAL,
        api=api,
        limits=Limits(),
        press_clock=loop.time,
    )
    # post_init starts the bot's deadline poller: an asyncio task, so on simulated time too.
    await world.start(run_jobs=False)
    refused: Counter[int] = Counter()
    counts = []

    async def play(key: str, seed: int, rng: Random) -> None:
        await asyncio.sleep(rng.uniform(0, 3 * PACE))
        started = loop.time()
        game = await world.create_game(key, HUMANS[key], seed=seed)
        await _play(world, game, rng, refused)
        await asyncio.sleep(AFTERMATH)
        minutes = (loop.time() - started - AFTERMATH) / 60
        counts.append(await _count(world, log, game, refused[game.game_id], minutes))

    try:
        for index in range(per_kind):
            seed = 1_000 + index
            await asyncio.gather(
                *(play(key, seed, Random(seed * 7 + n)) for n, key in enumerate(kinds))
            )
        return counts
    finally:
        await world.stop()


def measure(folder: Path, quick: bool) -> list[Figure]:
    with warped() as runner:
        counts = runner.run(play_games(folder, 1 if quick else 3))
    figures = []
    means = []
    for key in KINDS:
        mine = [c for c in counts if c.key == key]
        presses = sum(c.presses for c in mine)
        group = sum(c.group_calls for c in mine)
        private = sum(c.private_calls for c in mine)
        value = (group + private) / max(1, presses)
        means.append(value)
        minutes = sum(c.minutes for c in mine) / len(mine)
        figures.append(
            Figure(
                f"calls_per_action_{key}",
                value,
                "",
                f"{key}, {HUMANS[key]} humans: {group / max(1, presses):.2f} group + "
                f"{private / max(1, presses):.2f} private per press; {presses} presses, "
                f"{sum(c.other_steps for c in mine)} timer steps, "
                f"429s: {sum(c.too_many[0] for c in mine)} group, "
                f"{sum(c.too_many[1] for c in mine)} private; "
                f"{sum(c.refused for c in mine)} refused, {len(mine)} game(s) of "
                f"~{minutes:.0f} min",
            )
        )
    figures.insert(
        0,
        Figure(
            "calls_per_action",
            sum(means) / len(means),
            "",
            f"limited Bot API calls per player action, mean of the kinds; press every {PACE:g} s",
        ),
    )
    return figures
