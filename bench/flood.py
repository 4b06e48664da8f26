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

Nobody waits on anybody (issue #27). In these runs every update is handed over as python-telegram-
bot's update fetcher does with concurrent updates — in a task of its own, through the update
processor (:class:`Fetcher`) — so handlers that wait would pile up as in production. On
simulated time a handler's own work takes no time: what these figures catch is waiting.

- ``handlers_in_flight_max``, ``others_answer_p99_s``, ``others_next_panel_p99_s`` (the board
  storm, :func:`storm_run`): 20 groups play Rank of 3, a move every ~4 s, while one account
  presses 300 board messages in 10 other groups (from the last few minutes, unknown to the
  bot's menus) at 4 a second: the most updates in hand at once, as the bot's
  :class:`~bot.telegram.intake.Intake` counts them; the p99 of the seconds from a player's press
  to its answer; and from a move to the next mover's panel showing it.
- ``topic_table_lag_p99_s`` (:func:`topic_run`): a forum group, Rank of 3 at a press every 2 s
  in one topic; in another, a member who opened a lobby there presses its options and sends
  commands, in turn, every 0.3 s: the p99 from a press to the game's table showing it.
- ``reply_p95_s`` and ``replies_dropped`` (:func:`reply_run`): Rank of 3 at a press every 2 s;
  a fourth member, who has started the bot, sends a command every 5 s, a different one each
  time: the p95 of the seconds from a command to its reply in the group or in his private
  chat, or to its drop; and how many went nowhere.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from telegram import Update

from bench.report import Figure, percentile
from bench.warp import warped
from bench.world import EPOCH, BenchGame, Press, World, sqlite_url
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeCallback, FakeChat, FakeUser
from bot.telegram.intake import Intake
from bot.telegram.render import Content
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.live import GROUP_INTERVAL, Publisher, Slot
from bot.telegram.sender.notes import Note, Outcome

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

        async def recorded(slot: Slot, content: Content) -> bool:
            # What ``_deliver`` says (whether it went out as a new message) is passed on:
            # the publisher spends the move's ping on it.
            sent = await deliver(slot, content)
            key = (slot.game_id, slot.seat)
            self.shown.setdefault(key, []).append((slot.version, loop.time()))
            return sent

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


def turns_after(
    world: World, turns: list[tuple[int, int, int, float]]
) -> Callable[[BenchGame, int, float], None]:
    """A ``moved`` that notes, for each human who must act after the move, whose panel
    should show which version since when."""

    def moved(game: BenchGame, version: int, at: float) -> None:
        snapshot = world.latest[game.game_id]
        for seat in snapshot.acting:
            if snapshot.seats[seat].user_id is not None:
                turns.append((game.game_id, seat, version, at))

    return moved


# -- a spammer beside a game -------------------------------------------------------------------


@dataclass
class SpamRun:
    table_lags: list[float]
    too_many: int
    unanswered: int
    group_calls: int
    minutes: float
    #: The most notes (replies, redraws) waiting for the group at once: held back, merged or
    #: sent elsewhere, never piled up.
    most_waiting: int = 0


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
        most = await _spam(world, spammer, game.group, until)
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
        return SpamRun(
            lags, world.api.stats.flood_limited, unanswered, group_calls, seconds / 60, most
        )
    finally:
        await world.stop()


async def _spam(world: World, spammer: FakeUser, group: FakeChat, until: float) -> int:
    """One member asking for everything there is to ask, as fast as a person can tap; the
    most notes that waited for the group at once."""
    loop = asyncio.get_running_loop()
    step = 0
    most = 0
    while loop.time() < until:
        most = max(most, world.room.notes.waiting_in(group.id))
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
    return most


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
        moved = turns_after(world, turns)
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


# -- updates handled side by side, as PTB's update fetcher hands them over -----------------


@dataclass
class Fetcher:
    """Updates handed to the Application as its update fetcher does with concurrent updates:
    each in a task of its own, through the update processor (the bot's :class:`Intake`), none
    awaited by whoever sent it — so handlers that wait pile up as they would in production."""

    world: World
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def hand(self, payload: dict[str, Any]) -> asyncio.Task[None]:
        app = self.world.application
        update = Update.de_json(payload, app.bot)
        task = asyncio.create_task(
            app.update_processor.process_update(update, app.process_update(update))
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def say(
        self, user: FakeUser, chat: FakeChat | None, text: str, *, topic: int | None = None
    ) -> asyncio.Task[None]:
        """``user`` writes ``text`` (a command) in ``chat`` (``None``: his private chat)."""
        api = self.world.api
        before = len(api.update_log)
        await api.send_text(user, chat, text, thread_id=topic)
        assert len(api.update_log) > before, f"the bot does not see {text!r}"
        return self.hand(api.update_log[-1])

    async def press(
        self, user: FakeUser, chat: FakeChat, message_id: int, data: str
    ) -> tuple[FakeCallback, asyncio.Task[None]]:
        callback = await self.world.api.press_data(user, chat, message_id, data)
        return callback, self.hand(self.world.api.update_log[-1])

    async def settle(self) -> None:
        """Wait until every update handed over has been handled."""
        while self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    def abandon(self) -> None:
        for task in list(self.tasks):
            task.cancel()


async def play_fed(
    fetcher: Fetcher,
    game: BenchGame,
    rng: Random,
    every: float,
    until: float,
    moved: Callable[[BenchGame, int, float], None],
) -> list[FakeCallback]:
    """:func:`play_moves`, each press handed over by ``fetcher`` and not waited for: a legal
    move of a human who may act, every ``every`` s (± a quarter), until ``until``;
    ``moved(game, version, t)`` once an accepted one has been handled. Each callback records
    when it was pressed and answered (``created_at``, ``answered_at``: loop time)."""
    world = fetcher.world
    loop = asyncio.get_running_loop()
    callbacks = []

    def judged(made: Press, started: float) -> Callable[[asyncio.Task[None]], None]:
        def done(_task: asyncio.Task[None]) -> None:
            if made.callback.answered and made.callback.text is None:
                moved(game, world.latest[game.game_id].version, started)

        return done

    await asyncio.sleep(rng.uniform(0, every))
    while loop.time() < until:
        made = await world.next_press(game, rng)
        if made is None:
            await asyncio.sleep(1.0)  # a computer's or a timer's turn
            continue
        fetcher.hand(made.payload).add_done_callback(judged(made, loop.time()))
        callbacks.append(made.callback)
        await asyncio.sleep(rng.uniform(0.75 * every, 1.25 * every))
    return callbacks


def on_loop_time(world: World) -> None:
    """The bot's other per-person clocks on the loop's (simulated) time, as its press limit
    already is (``World.press_clock``): the reply and lobby gates count a minute, the rights
    cache trusts an answer for one — on real time a whole run passes within one of them."""
    loop = asyncio.get_running_loop()
    room = world.room
    room.replies.clock = loop.time
    room.openings.clock = loop.time
    room.rights.clock = loop.time


async def fed_world(folder: Path, name: str) -> tuple[World, Deliveries, Fetcher]:
    """A started :func:`strict_world` on simulated time throughout, what its messages show
    watched, and its updates handed over as PTB's fetcher does."""
    world = strict_world(folder, name)
    await world.start(run_jobs=False)
    on_loop_time(world)
    deliveries = Deliveries()
    deliveries.watch(world.room.publisher)
    return world, deliveries, Fetcher(world)


def answer_seconds(callback: FakeCallback, worst: float) -> float:
    """Seconds from a press to its answer (``worst`` if it was never answered)."""
    if callback.answered_at is None:
        return worst
    return callback.answered_at - callback.created_at


# -- a storm of old board presses beside 20 games -----------------------------------------------

#: Groups playing Rank (3 people each, a move every ~4 s) during the storm.
STORM_GAMES, STORM_MOVE_EVERY = 20, 4.0
#: The attacker's groups, the board messages he finds in each, his presses a second.
BOARD_GROUPS, BOARDS_PER_GROUP, STORM_PRESSES = 10, 30, 4.0
#: What the old boards' buttons send: a game's board, the leaders, the history.
BOARD_DATA = ("B:rank:ch:0", "B:-:ch:0", "Y:-")


@dataclass
class StormRun:
    #: The most updates in hand at once (the bot's :class:`Intake`).
    in_hand: int
    handled: int
    #: The players' presses: seconds from each to its answer; how many had none.
    answers: list[float]
    unanswered: int
    #: Seconds from a move to the next mover's panel showing it.
    panels: list[float]
    too_many: int
    board_presses: int
    #: The attacker's presses answered with a toast (too fast, an aged board).
    toasts: int
    #: Calls into the attacker's groups and his private chat (board redraws, diverted).
    attacker_calls: int


async def storm_run(folder: Path, seconds: float) -> StormRun:
    """20 groups play Rank while one account presses 300 old boards (in 10 other groups) at
    4 presses a second; every update is handled in a task of its own, as in production."""
    loop = asyncio.get_running_loop()
    world, deliveries, fetcher = await fed_world(folder, "storm.db")
    turns: list[tuple[int, int, int, float]] = []
    try:
        games = [await world.create_game("rank", 3, seed=2700 + i) for i in range(STORM_GAMES)]
        await world.room.publisher.drain()  # the starts go out before the clock runs
        attacker = world.api.add_user("Attacker", started=True)
        boards = await _old_boards(world, attacker)
        attacked = {attacker.id} | {group.id for group, _message in boards}
        injected = sum(world.api.stats.by_chat[chat] for chat in attacked)
        until = loop.time() + seconds
        moved = turns_after(world, turns)
        players = [
            asyncio.create_task(
                play_fed(fetcher, game, Random(game.game_id), STORM_MOVE_EVERY, until, moved)
            )
            for game in games
        ]
        pressed = await _press_boards(fetcher, attacker, boards, until)
        callbacks = [c for played in await asyncio.gather(*players) for c in played]
        await fetcher.settle()
        await asyncio.sleep(30)  # the last edits go out
        panels = [
            lag if (lag := deliveries.lag(game_id, seat, version, at)) is not None else seconds
            for game_id, seat, version, at in turns
        ]
        intake = world.application.update_processor
        assert isinstance(intake, Intake)
        return StormRun(
            intake.most_in_hand,
            intake.handled,
            [answer_seconds(c, seconds) for c in callbacks],
            sum(1 for c in callbacks if not c.answered),
            panels,
            world.api.stats.flood_limited,
            len(pressed),
            sum(1 for c in pressed if c.text is not None),
            sum(world.api.stats.by_chat[chat] for chat in attacked) - injected,
        )
    finally:
        fetcher.abandon()
        await world.abandon_deliveries()
        await world.stop()


async def _old_boards(world: World, attacker: FakeUser) -> list[tuple[FakeChat, int]]:
    """Board messages with their buttons in the attacker's groups, from the last few minutes:
    put straight into the fake (as a process before a restart left them), so the bot's menus
    do not know them — only a newer board in the chat, or ten minutes, would age them."""
    api = world.api
    now = EPOCH + asyncio.get_running_loop().time()
    keyboard = json.dumps(
        {
            "inline_keyboard": [
                [
                    {"text": "Rank", "callback_data": BOARD_DATA[0]},
                    {"text": "All games", "callback_data": BOARD_DATA[1]},
                ],
                [{"text": "Last games", "callback_data": BOARD_DATA[2]}],
            ]
        }
    )
    boards = []
    api.flood_limits_enabled = False  # sent long before, not now
    try:
        for index in range(BOARD_GROUPS):
            group = api.add_group(f"Boards {index + 1}", members=[attacker])
            for n in range(BOARDS_PER_GROUP):
                status, body = await api.handle(
                    "sendMessage",
                    {"chat_id": group.id, "text": f"Board {n + 1}", "reply_markup": keyboard},
                )
                assert status == 200, body
                message = api.message(group, body["result"]["message_id"])
                # Telegram's date of it: 5 minutes ago for the first, a moment ago the last.
                message.date = int(now - 300 + 9 * n)
                boards.append((group, message.message_id))
    finally:
        api.flood_limits_enabled = True
    return boards


async def _press_boards(
    fetcher: Fetcher, attacker: FakeUser, boards: list[tuple[FakeChat, int]], until: float
) -> list[FakeCallback]:
    """The attacker presses the boards in turn, round and round, at his pace."""
    loop = asyncio.get_running_loop()
    pressed = []
    step = 0
    while loop.time() < until:
        group, message_id = boards[step % len(boards)]
        data = BOARD_DATA[(step + step // len(boards)) % len(BOARD_DATA)]
        callback, _task = await fetcher.press(attacker, group, message_id, data)
        pressed.append(callback)
        step += 1
        await asyncio.sleep(1 / STORM_PRESSES)
    return pressed


# -- a game in one forum topic, a spammer in another ---------------------------------------------

#: The game's pace in its topic; the spammer's, and what he writes in turn with his presses.
TOPIC_MOVE_EVERY = 2.0
TOPIC_COMMANDS = (
    "/help",
    "/rules",
    "/top",
    "/new rank",
    "/rules trumps",
    "/history",
    "/language",
    "/stats",
)


@dataclass
class TopicRun:
    table_lags: list[float]
    too_many: int
    unanswered: int
    option_presses: int
    commands: int
    group_calls: int
    minutes: float


async def topic_run(folder: Path, seconds: float) -> TopicRun:
    """A forum group: Rank of 3 in topic A at a press every 2 s; in topic B a member who
    opened a lobby there presses its options and sends commands, alternately, every 0.3 s."""
    loop = asyncio.get_running_loop()
    world, deliveries, fetcher = await fed_world(folder, "topic.db")
    api = world.api
    moves: list[tuple[int, int, float]] = []
    try:
        players = [api.add_user(f"Forum player {n + 1}", started=True) for n in range(3)]
        spammer = api.add_user("Topic spammer", started=True)
        forum = api.add_group("Forum", forum=True, members=[*players, spammer])
        game_topic = api.add_topic(forum, "Rank").thread_id
        other_topic = api.add_topic(forum, "Chatter").thread_id
        game = await world.create_game(
            "rank", 3, seed=2727, group=forum, topic=game_topic, players=players
        )
        await world.room.publisher.drain()
        await (await fetcher.say(spammer, forum, "/new trumps", topic=other_topic))
        await world.room.publisher.drain()  # his lobby is drawn
        until = loop.time() + seconds
        played = asyncio.create_task(
            play_fed(
                fetcher,
                game,
                Random(2727),
                TOPIC_MOVE_EVERY,
                until,
                lambda g, version, at: moves.append((g.game_id, version, at)),
            )
        )
        presses, commands = await _spam_topic(fetcher, spammer, forum, other_topic, until)
        callbacks = await played + presses
        await fetcher.settle()
        await asyncio.sleep(60)  # the last edits go out
        lags = [
            lag if (lag := deliveries.lag(game_id, None, version, at)) is not None else seconds
            for game_id, version, at in moves
        ]
        group_calls = sum(
            n for (chat, _method), n in api.stats.by_chat_method.items() if chat == forum.id
        )
        return TopicRun(
            lags,
            api.stats.flood_limited,
            sum(1 for c in callbacks if not c.answered),
            len(presses),
            commands,
            group_calls,
            seconds / 60,
        )
    finally:
        fetcher.abandon()
        await world.abandon_deliveries()
        await world.stop()


async def _spam_topic(
    fetcher: Fetcher, spammer: FakeUser, forum: FakeChat, topic: int, until: float
) -> tuple[list[FakeCallback], int]:
    """Every 0.3 s, in turn: an option of his newest lobby in the topic pressed, a command."""
    loop = asyncio.get_running_loop()
    presses = []
    commands = 0
    step = 0
    while loop.time() < until:
        turn = step // 2
        if step % 2 == 0:
            lobby = _lobby_in(fetcher.world.api, forum, topic)
            if lobby is not None:
                message_id, options = lobby
                data = options[turn % len(options)]
                callback, _task = await fetcher.press(spammer, forum, message_id, data)
                presses.append(callback)
        else:
            command = TOPIC_COMMANDS[turn % len(TOPIC_COMMANDS)]
            await fetcher.say(spammer, forum, command, topic=topic)
            commands += 1
        step += 1
        await asyncio.sleep(SPAM_EVERY)
    return presses, commands


def _lobby_in(api: FakeBotApi, group: FakeChat, topic: int) -> tuple[int, list[str]] | None:
    """The newest lobby message in the topic with option buttons, and their data."""
    for message in reversed(api.bot_messages(group, topic)):
        options = [
            data
            for row in api.buttons(message)
            for _, data in row
            if data.startswith("L:") and ":o." in data
        ]
        if options:
            return message.message_id, options
    return None


# -- a member's commands beside a fast game ---------------------------------------------------

#: The game's pace; how often the member asks, and what, in turn.
REPLY_MOVE_EVERY, ASK_EVERY = 2.0, 5.0
ASKED = (
    "/help",
    "/rules rank",
    "/rules trumps",
    "/top",
    "/stats",
    "/history",
    "/rules advantage",
    "/language",
    "/rules progression",
    "/rules davayka",
    "/top rank",
    "/top global",
)
_NOT_DELIVERED = (Outcome.DROPPED, Outcome.FAILED, Outcome.FORBIDDEN)


@dataclass
class ReplyRun:
    #: Per command: seconds to its reply (in the group or his private chat) or to its drop.
    waits: list[float]
    #: Commands whose reply went nowhere (dropped, failed, or not settled by the end).
    dropped: int
    #: Commands merged by the reply gate with the same reply just sent: no reply, at once.
    merged: int
    diverted: int
    in_group: int
    too_many: int


async def reply_run(folder: Path, seconds: float) -> ReplyRun:
    """Rank of 3 at a press every 2 s; a fourth member, who has started the bot, sends a
    command every 5 s. Each command's replies are the notes its handler posted for him (in
    the group, or in his private chat); a reply is in when its note is sent (or diverted to
    his private chat and sent there), or out when it is dropped."""
    loop = asyncio.get_running_loop()
    world, _deliveries, fetcher = await fed_world(folder, "reply.db")
    try:
        game = await world.create_game("rank", 3, seed=2728)
        member = world.api.add_user("Asker", started=True)
        world.api.join_group(member, game.group)
        await (await fetcher.say(member, None, "/start"))  # the bot knows he can be written to
        await world.room.publisher.drain()
        asked: dict[asyncio.Task[None], int] = {}
        posted: list[list[Note]] = []
        settled: dict[Note, tuple[float, Outcome]] = {}
        _watch_notes(world, member, asked, posted, settled)
        sent_at: list[float] = []
        until = loop.time() + seconds
        played = asyncio.create_task(
            play_fed(fetcher, game, Random(2728), REPLY_MOVE_EVERY, until, _ignore)
        )
        await asyncio.sleep(1.0)
        while loop.time() < until:
            command = ASKED[len(sent_at) % len(ASKED)]
            sent_at.append(loop.time())
            posted.append([])
            asked[await fetcher.say(member, game.group, command)] = len(sent_at) - 1
            await asyncio.sleep(ASK_EVERY)
        await played
        await fetcher.settle()
        await asyncio.sleep(60)  # every note is sent, diverted or dropped by now
        waits, dropped, merged = [], 0, 0
        for at, notes in zip(sent_at, posted, strict=True):
            if not notes:
                merged += 1
                waits.append(0.0)
                continue
            ends = [end for note in notes if (end := settled.get(note)) is not None]
            delivered = [t for t, outcome in ends if outcome not in _NOT_DELIVERED]
            if delivered:
                waits.append(min(delivered) - at)
                continue
            dropped += 1
            # Dropped when its last note was; never settled: as bad as it gets.
            waits.append(max(t for t, _ in ends) - at if len(ends) == len(notes) else seconds)
        outcomes = [outcome for _at, outcome in settled.values()]
        return ReplyRun(
            waits,
            dropped,
            merged,
            outcomes.count(Outcome.DIVERTED),
            outcomes.count(Outcome.SENT),
            world.api.stats.flood_limited,
        )
    finally:
        fetcher.abandon()
        await world.abandon_deliveries()
        await world.stop()


def _watch_notes(
    world: World,
    member: FakeUser,
    asked: dict[asyncio.Task[None], int],
    posted: list[list[Note]],
    settled: dict[Note, tuple[float, Outcome]],
) -> None:
    """Note, for each of the member's commands, the notes its handler (the update's own
    task) posts for him — in the group as their asker, or in his private chat — and when and
    how each is settled."""
    loop = asyncio.get_running_loop()
    notes = world.room.notes
    post, post_private = notes.post, notes.post_private

    def seen(note: Note) -> None:
        task = asyncio.current_task()
        index = asked.get(task) if task is not None else None
        if index is None or member.id not in (note.asker, note.chat_id):
            return
        posted[index].append(note)

        def done(outcome: asyncio.Future[Outcome]) -> None:
            settled[note] = (loop.time(), outcome.result())

        note.outcome.add_done_callback(done)

    def posting(note: Note) -> Note:
        seen(note)
        return post(note)

    def posting_private(note: Note) -> Note:
        seen(note)
        return post_private(note)

    notes.post = posting  # type: ignore[method-assign]
    notes.post_private = posting_private  # type: ignore[method-assign]


def on_simulated_time(run: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    with warped() as runner:
        return runner.run(run())


def measure(folder: Path, quick: bool) -> list[Figure]:
    spam_seconds = 120.0 if quick else 300.0
    ceiling_seconds = 40.0 if quick else 120.0
    steps = (100, 200, 250, 300) if quick else tuple(range(50, 501, 50))
    fifo_steps = (50, 100, 150) if quick else tuple(range(50, 501, 50))
    storm_seconds = 90.0 if quick else 240.0
    topic_seconds = reply_seconds = 120.0 if quick else 300.0
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
    storm = on_simulated_time(lambda: storm_run(folder, storm_seconds))
    topic = on_simulated_time(lambda: topic_run(folder, topic_seconds))
    replies = on_simulated_time(lambda: reply_run(folder, reply_seconds))
    too_many = (
        spam.too_many
        + stop.too_many
        + sum(CEILING_429)
        + storm.too_many
        + topic.too_many
        + replies.too_many
    )
    unanswered = spam.unanswered + storm.unanswered + topic.unanswered
    return [
        Figure(
            "flood_429",
            too_many,
            "",
            "429s from a strict-window fake (20/60 s a group, 1/s a private chat, 30/s in "
            f"all) over every run here (spam {spam.too_many}, a stop and restart of "
            f"{stop.games} busy games {stop.too_many}, {len(CEILING_429)} ceiling runs "
            f"{sum(CEILING_429)}, board storm {storm.too_many}, forum topics "
            f"{topic.too_many}, replies {replies.too_many}); {unanswered} callbacks "
            f"unanswered, {stop.behind} games behind after the restart",
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
        Figure(
            "handlers_in_flight_max",
            storm.in_hand,
            "",
            f"most updates in hand at once (the update processor's count) in the board storm: "
            f"{STORM_GAMES} groups play Rank of 3 (a move every {STORM_MOVE_EVERY:g} s) while "
            f"one account presses {BOARD_GROUPS * BOARDS_PER_GROUP} old boards in "
            f"{BOARD_GROUPS} other groups, {STORM_PRESSES:g} a second ({storm.board_presses} "
            f"presses, {storm.toasts} answered with a toast; {storm.attacker_calls} calls "
            f"into his chats in {storm_seconds:g} s); {storm.handled} updates, each handled "
            "in its own task as PTB's update fetcher does",
        ),
        Figure(
            "others_answer_p99_s",
            percentile(storm.answers, 0.99),
            "s",
            f"the storm's players: press → its callback answered ({len(storm.answers)} "
            f"presses, {storm.unanswered} unanswered)",
        ),
        Figure(
            "others_next_panel_p99_s",
            percentile(storm.panels, 0.99),
            "s",
            f"the storm's players: move → the next mover's panel ({len(storm.panels)} turns)",
        ),
        Figure(
            "topic_table_lag_p99_s",
            percentile(topic.table_lags, 0.99),
            "s",
            f"press → table in a forum topic, Rank of 3 at a press every "
            f"{TOPIC_MOVE_EVERY:g} s, while a member in another topic presses his lobby's "
            f"options and sends commands in turn every {SPAM_EVERY:g} s "
            f"({topic.option_presses} presses, {topic.commands} commands; p50 "
            f"{percentile(topic.table_lags, 0.5):.1f} s); "
            f"{topic.group_calls / topic.minutes:.1f} group calls a minute",
        ),
        Figure(
            "reply_p95_s",
            percentile(replies.waits, 0.95),
            "s",
            f"a member's command every {ASK_EVERY:g} s beside Rank of 3 at a press every "
            f"{REPLY_MOVE_EVERY:g} s: → its reply in the group ({replies.in_group}) or in his "
            f"private chat ({replies.diverted}), or its drop; {replies.merged} merged with "
            f"the same reply just sent count as answered at once ({len(replies.waits)} "
            f"commands, p50 {percentile(replies.waits, 0.5):.1f} s)",
        ),
        Figure(
            "replies_dropped",
            replies.dropped,
            "",
            "the same run's commands whose reply went nowhere (dropped or failed)",
        ),
    ]
