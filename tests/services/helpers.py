"""Builders for service tests: a clock, the services over a test database, people."""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.games import GameStore
from bot.services.lobby import LobbyService
from bot.services.locks import GameLocks
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.types import Actor, ChatRef
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
class Services:
    lobby: LobbyService
    play: PlayService
    stats: StatsService
    clock: FakeClock


def make_services(
    db: Database, *, turn_seconds: int = 60, computer_delay: float = 1.0
) -> Services:
    clock = FakeClock()
    store = GameStore(computer_delay, clock)
    locks = GameLocks()
    return Services(
        LobbyService(db, store, locks, turn_seconds),
        PlayService(db, store, locks),
        StatsService(db),
        clock,
    )


def person(user_id: int, name: str) -> Actor:
    return Actor(user_id, name, None, "en")


async def no_admin() -> bool:
    return False


async def is_admin() -> bool:
    return True
