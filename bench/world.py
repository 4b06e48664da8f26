"""The bot under measurement: the real Application, services and SQLite, on the fake Bot API.

A :class:`World` builds the Application exactly as :func:`bot.app.build_application` does for
production, with the in-process fake Bot API (:mod:`bot.sandbox`) as its transport. Games are
created through the services (``open`` → ``join`` → ``start``), and presses go through the
Application the way Telegram's updates do: ``await app.process_update(Update.de_json(...))``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from pydantic import SecretStr
from sqlalchemy import update
from telegram import Update

from bench import clone
from bot.app import App, build_application
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeCallback, FakeChat, FakeUser
from bot.sandbox.request import FakeRequest
from bot.services.authority import Origin
from bot.services.types import Actor, ChatRef, GameSnapshot
from bot.settings import Settings
from bot.storage.migrate import upgrade_async
from bot.storage.models import GameRow
from bot.telegram.handlers import Cardroom
from bot.telegram.intake import PressThrottle
from bot.telegram.sender.budget import CallBudget, Limits
from bot.telegram.sender.limiter import BudgetRateLimiter

#: Seats per game of each kind, humans only (Rank varies 2–4 over its games).
KINDS = ("rank", "trumps", "advantage", "progression", "davayka")
FIXED_SEATS = {"trumps": 2, "advantage": 2, "progression": 3, "davayka": 2}
#: A fixed "now" for the bot: no turn window closes unless a benchmark moves the clock.
EPOCH = 1_800_000_000.0


@dataclass
class BenchClock:
    """The bot's wall clock (``build_application(clock=...)``): moves only when told to."""

    now: float = EPOCH

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class BenchGame:
    game_id: int
    key: str
    group: FakeChat
    players: list[FakeUser]


@dataclass
class Press:
    """A callback-query update ready to feed the Application, and who sends it."""

    game: BenchGame
    user: FakeUser
    data: str
    payload: dict[str, Any]
    #: How the bot answered it (the fake records it): a text means a refusal.
    callback: FakeCallback


def seats_for(key: str, index: int) -> int:
    return FIXED_SEATS.get(key, 2 + index % 3)


def sqlite_url(folder: Path, name: str = "cardroom.db") -> str:
    return f"sqlite+aiosqlite:///{folder / name}"


def unlimited_rate_limiter() -> BudgetRateLimiter:
    """The bot's limiter on the path, but not throttling: the fake has no need to be spared."""
    return BudgetRateLimiter(CallBudget(Limits.unlimited()))


@dataclass
class World:
    """One bot process on the fake Bot API, with the games it hosts."""

    database_url: str
    clock: Callable[[], float] = field(default_factory=BenchClock)
    group_interval: float = 0.0
    private_interval: float = 0.0
    api: FakeBotApi = field(default_factory=lambda: FakeBotApi(flood_limits=False))
    games: list[BenchGame] = field(default_factory=list)
    app: App | None = None
    #: The bot's flood budget (``None``: none worth the name — the fake has no limits).
    limits: Limits | None = None
    #: Waiting calls by priority (the bot's way), or first come, first served (a baseline).
    prioritised: bool = True
    #: The clock of the per-user press limit (real monotonic time unless given).
    press_clock: Callable[[], float] | None = None
    latest: dict[int, GameSnapshot] = field(default_factory=dict)
    #: While set, what the bot publishes is only recorded, not delivered (see ``quietly``).
    held: list[GameSnapshot] | None = None
    _names: int = 0

    @property
    def application(self) -> App:
        assert self.app is not None, "the world is not started"
        return self.app

    @property
    def room(self) -> Cardroom:
        room: Cardroom = self.application.bot_data["cardroom"]
        return room

    async def start(self, *, migrate: bool = True, run_jobs: bool = True) -> App:
        """Build the Application, initialise it and run ``post_init`` (which starts the
        deadline poller); ``run_jobs`` also starts the Application (its job queue)."""
        if migrate:
            await upgrade_async(self.database_url)
        self.app = self.build()
        self.watch_snapshots()
        if self.press_clock is not None:
            self.room.throttle = PressThrottle(clock=self.press_clock)
        await self.app.initialize()
        assert self.app.post_init is not None
        await self.app.post_init(self.app)
        if run_jobs:
            await self.app.start()
        return self.app

    def settings(self, **more: Any) -> Settings:
        """The bot's settings here (``more``: a world's own, e.g. its Mini App's)."""
        return Settings(
            telegram_bot_token=SecretStr(self.api.token),
            database_url=self.database_url,
            turn_seconds=60,
            computer_delay_seconds=1.5,
            _env_file=None,  # type: ignore[call-arg]
            **more,
        )

    def build(self) -> App:
        return build_application(
            self.settings(),
            request=FakeRequest(self.api),
            get_updates_request=FakeRequest(self.api),
            limits=self.limits or Limits.unlimited(),
            prioritised=self.prioritised,
            group_interval=self.group_interval,
            private_interval=self.private_interval,
            clock=self.clock,
            settle_memory=True,  # as ``python -m bot`` does
        )

    async def abandon_deliveries(self) -> None:
        """Cancel every pending table and panel delivery at once (before :meth:`stop`).

        ``Publisher.close`` cancels and awaits them one after another, and a delivery waiting
        for the database keeps it waiting while the others go on sending: with thousands
        pending (a start-up redraw under the rate limiter) that takes minutes.
        """
        slots = self.room.publisher._slots
        tasks = [s.task for s in slots.values() if s.task is not None and not s.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def stop(self) -> None:
        """Stop as the harness and ``run_polling`` do: stop, post_stop, post_shutdown."""
        app, self.app = self.app, None
        if app is None:
            return
        if app.running:
            await app.stop()
        if app.post_stop is not None:
            await app.post_stop(app)
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
        await app.shutdown()

    # -- games -----------------------------------------------------------------------------

    def _person(self) -> FakeUser:
        self._names += 1
        return self.api.add_user(f"Player{self._names}", started=True)

    async def create_game(
        self,
        key: str,
        humans: int,
        *,
        seed: int | None = None,
        group: FakeChat | None = None,
        topic: int = 0,
        players: list[FakeUser] | None = None,
    ) -> BenchGame:
        """Open a lobby, seat ``humans`` people (or ``players``), start: through the services,
        as presses do — in a group of its own, or in ``group`` (its forum ``topic``)."""
        room = self.room
        players = players or [self._person() for _ in range(humans)]
        if group is None:
            group = self.api.add_group(f"Table {len(self.games) + 1}", members=players)
        where = ChatRef(group.id, group.type, group.title, topic)
        actors = [Actor(p.id, p.first_name, None, "en") for p in players]
        await room.lobby.record(actors[0], where, started=True)
        snapshot = await room.lobby.open(where, actors[0], key)
        if seed is not None:
            await self.reseed(snapshot.game_id, seed)
        # Pressed on the lobby, which is not drawn yet: the chat is what is checked.
        table = Origin(group.id, 0)
        for actor in actors[1:]:
            await room.lobby.mark_started(actor)
            await room.lobby.join(snapshot.game_id, actor, table)
        room.publisher.publish(await room.lobby.start(snapshot.game_id, actors[0], table))
        game = BenchGame(snapshot.game_id, key, group, players)
        self.games.append(game)
        return game

    async def reseed(self, game_id: int, seed: int) -> None:
        """Fix a lobby's seed (the services draw it from ``secrets``): a replayable deal."""
        async with self.room.play.db.transaction() as session:
            await session.execute(update(GameRow).where(GameRow.id == game_id).values(seed=seed))

    async def create_games(self, count: int, kinds: Iterable[str] = KINDS) -> list[BenchGame]:
        """``count`` games, the kinds in turn; waits until every table and panel is out."""
        order = list(kinds)
        made = []
        for index in range(count):
            key = order[index % len(order)]
            made.append(await self.create_game(key, seats_for(key, index // len(order))))
            if index % 50 == 49:
                await self.room.publisher.drain()
        await self.room.publisher.drain()
        return made

    async def add_copies(self, count: int, templates: list[BenchGame]) -> list[BenchGame]:
        """``count`` more games: copies of ``templates`` (see :mod:`bench.clone`).

        Each copy gets its own group and players in the fake, with a table and a panel
        message already there, as a running bot would have them.
        """
        path = clone.database_file(self.database_url)
        rows = clone.read_templates(path, [game.game_id for game in templates])
        planned = clone.plan(rows, count)
        copies = []
        made = []
        for copy in planned:
            template = templates[copy.template]
            players = [
                self.api.add_user(f"Player{uid % 1_000_000}", user_id=uid, started=True)
                for uid in copy.user_ids
                if uid is not None
            ]
            group = self.api.add_group(
                f"Table {copy.game_id}", chat_id=copy.chat_id, members=players
            )
            table_id = await self._bot_message(group.id)
            panel_ids = [await self._bot_message(player.id) for player in players]
            copies.append(
                dataclasses.replace(
                    copy, table_message_id=table_id, dm_message_ids=tuple(panel_ids)
                )
            )
            game = BenchGame(copy.game_id, template.key, group, players)
            made.append(game)
            shown = self.latest[template.game_id]
            seats = tuple(
                dataclasses.replace(info, user_id=player.id, name=player.first_name)
                for info, player in zip(shown.seats, players, strict=True)
            )
            self.latest[copy.game_id] = dataclasses.replace(
                shown, game_id=copy.game_id, chat_id=group.id, seats=seats
            )
        clone.insert(path, rows, copies)
        self.games.extend(made)
        return made

    async def _bot_message(self, chat_id: int) -> int:
        """A message from the bot in the chat, straight into the fake (no Bot API round)."""
        status, body = await self.api.handle("sendMessage", {"chat_id": chat_id, "text": "…"})
        assert status == 200, body
        message_id: int = body["result"]["message_id"]
        return message_id

    async def warm_languages(self) -> None:
        """Every player's language, read once, as a bot that has been running knows them."""
        languages = self.room.languages
        for game in self.games:
            for player in game.players:
                await languages.for_user(Actor(player.id, player.first_name, None, "en"))

    def forget_fake_history(self) -> None:
        """Drop what the fake Bot API recorded so far (its call log, the updates it sent, old
        versions of edited messages): set-up history that is not the bot's memory, and that
        the garbage collector would otherwise walk through during the measurements."""
        api = self.api
        api.reset_stats()
        api.update_log.clear()
        for chat in list(api.chats):
            for message in api.messages(chat):
                message.history.clear()

    # -- presses ---------------------------------------------------------------------------

    def watch_snapshots(self) -> None:
        """Keep the newest snapshot the bot publishes per game: what each player may do now.

        The benchmark reads the legal actions from here instead of asking the database, so
        choosing the next press costs the bot nothing.
        """
        publisher = self.room.publisher
        publish = publisher.publish
        latest = self.latest

        def recording(snapshot: GameSnapshot) -> None:
            latest[snapshot.game_id] = snapshot
            if self.held is not None:
                self.held.append(snapshot)
            else:
                publish(snapshot)

        publisher.publish = recording  # type: ignore[method-assign]

    async def quietly(self, press: Press) -> float:
        """Seconds the bot takes for ``press`` with nothing delivered: the handler alone
        (parse, dispatch, load, rules, commit, snapshot, the callback's answer). What it
        published is delivered afterwards, untimed."""
        self.held = []
        try:
            started = time.perf_counter()
            await self.process(press)
            elapsed = time.perf_counter() - started
        finally:
            held, self.held = self.held, None
        for snapshot in held:
            self.room.publisher.publish(snapshot)
        await self.delivered(press.game)
        return elapsed

    async def next_press(self, game: BenchGame, rng: Random) -> Press | None:
        """A legal action of one of the game's humans who may act now, as an update.

        The data is what the player's buttons send: ``A:<game>:<version>:<code>``; the
        message is his panel, as Telegram would attach it.
        """
        snapshot = self.latest.get(game.game_id)
        if snapshot is None or snapshot.status != "playing":
            return None
        choices = [
            (seat, actions)
            for seat, actions in snapshot.legal.items()
            if snapshot.seats[seat].user_id is not None and actions
        ]
        if not choices:
            return None
        seat, actions = rng.choice(choices)
        return await self.make_press(game, seat, snapshot.version, rng.choice(actions)[0])

    async def make_press(
        self, game: BenchGame, seat: int, version: int, code: str
    ) -> Press | None:
        """The update of ``seat`` pressing the button of action ``code`` on his panel."""
        user = game.players[seat]
        panel = self.api.last_message(user)
        if panel is None:
            return None
        data = f"A:{game.game_id}:{version}:{code}"
        callback = await self.api.press_data(user, user, panel.message_id, data)
        return Press(game, user, data, self.api.update_log[-1], callback)

    async def process(self, press: Press) -> None:
        """What the Application does with one update from Telegram."""
        app = self.application
        await app.process_update(Update.de_json(press.payload, app.bot))

    async def delivered(self, game: BenchGame) -> None:
        """Wait until everything the publisher owes this game's chats has been sent."""
        # The publisher keeps one flushing task per message it maintains, in ``_slots`` by
        # (game, seat), the table under seat -1: look those up, not through every game's.
        slots = self.room.publisher._slots
        keys = [(game.game_id, seat) for seat in range(-1, len(game.players))]
        while True:
            pending = [
                slot.task
                for slot in (slots.get(key) for key in keys)
                if slot is not None and slot.task is not None and not slot.task.done()
            ]
            if not pending:
                # What the game's moves wrote to the outbox (its result) goes too.
                await self.room.outbox.drain()
                return
            await asyncio.gather(*pending, return_exceptions=True)
