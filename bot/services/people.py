"""A person's own settings: whether his turns ping him."""

from __future__ import annotations

from bot.services.authority import is_person
from bot.services.types import Actor, ServiceError
from bot.storage.database import Database
from bot.storage.repositories import Users


class PeopleService:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def toggle_pings(self, actor: Actor) -> bool:
        """Turn the pings of his turns off if they were on, on if off; whether they are on."""
        if not is_person(actor):
            raise ServiceError("lobby.not_a_person")
        async with self.db.transaction() as session:
            user = await Users(session).upsert(
                actor.user_id, actor.first_name, actor.username, actor.language_code
            )
            user.pings = not user.pings
            return user.pings
