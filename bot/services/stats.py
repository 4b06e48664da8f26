"""Read-only use cases over finished games: a player's record and a chat's board."""

from __future__ import annotations

from bot.games.engine import places_from_ranking
from bot.services.types import BoardEntry, GameRecord
from bot.storage.database import Database
from bot.storage.repositories import Results

BOARD_SIZE = 10


class StatsService:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def records(self, user_id: int) -> list[GameRecord]:
        """Games and wins per game for one user."""
        async with self.db.transaction() as session:
            tallies = await Results(session).tally_for_user(user_id)
        return [GameRecord(t.game_key, t.games, t.wins) for t in tallies]

    async def board(self, chat_id: int, game_key: str | None) -> list[BoardEntry]:
        """This chat's players by wins; equal records share a place."""
        async with self.db.transaction() as session:
            lines = await Results(session).board(chat_id, game_key, BOARD_SIZE)
        places = places_from_ranking([(-line.wins, line.games) for line in lines])
        return [
            BoardEntry(place, line.name, line.games, line.wins)
            for place, line in zip(places, lines, strict=True)
        ]
