"""Builders for service tests: a clock, the services over a test database, people."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from bot.services.authority import Origin
from bot.services.games import GameStore
from bot.services.lobby import LobbyService
from bot.services.locks import GameLocks
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.types import Actor, ChatRef, GameSnapshot
from bot.storage.database import Database

GROUP = ChatRef(-100123, "supergroup", "Card club")


class FakeClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FakeRights:
    """What Telegram would say: everyone is in every group unless he left it; nobody is an
    admin unless named. ``gate``, when set, holds every answer until it is set."""

    admins: set[tuple[int, int]] = field(default_factory=set)
    gone: set[tuple[int, int]] = field(default_factory=set)
    gate: asyncio.Event | None = None
    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        await self._wait()
        return chat_id < 0 and (chat_id, user_id) in self.admins

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        await self._wait()
        return chat_id == user_id if chat_id > 0 else (chat_id, user_id) not in self.gone

    async def _wait(self) -> None:
        self.asked.set()
        if self.gate is not None:
            await self.gate.wait()


@dataclass
class Services:
    lobby: LobbyService
    play: PlayService
    stats: StatsService
    clock: FakeClock
    rights: FakeRights


def make_services(
    db: Database, *, turn_seconds: int = 60, computer_delay: float = 1.0
) -> Services:
    clock = FakeClock()
    store = GameStore(computer_delay, clock)
    locks = GameLocks()
    rights = FakeRights()
    return Services(
        LobbyService(db, store, locks, turn_seconds, rights),
        PlayService(db, store, locks, rights),
        StatsService(db),
        clock,
        rights,
    )


def person(user_id: int, name: str) -> Actor:
    return Actor(user_id, name, None, "en")


def at_table(game: GameSnapshot | ChatRef) -> Origin:
    """A press on the game's table (in service tests no message id is recorded yet: the
    chat is what is checked)."""
    message_id = game.table_message_id if isinstance(game, GameSnapshot) else None
    return Origin(game.chat_id, message_id or 1)


def on_panel(user_id: int, game: GameSnapshot | None = None) -> Origin:
    """A press on the player's own panel, in his private chat."""
    seat = game.seat_of(user_id) if game is not None else None
    return Origin(user_id, (seat.dm_message_id if seat is not None else None) or 1)
