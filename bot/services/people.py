"""A person's own settings (whether his turns ping him), and whether he can be written to."""

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

    async def can_write(self, user_id: int) -> bool:
        """Whether the bot may write to the person in his private chat: he started it (and
        has not blocked it since, as far as the bot knows)."""
        async with self.db.transaction() as session:
            user = await Users(session).get(user_id)
            return user is not None and user.started

    async def cannot_write(self, user_id: int) -> None:
        """Telegram refused a message to the person's private chat (403): until he starts
        the bot again, he is sent links to it instead."""
        async with self.db.transaction() as session:
            user = await Users(session).get(user_id)
            if user is not None:
                user.started = False
