"""Which language to speak: a group's choice, a user's choice, or a sensible default.

A group speaks the language it chose with /language; until then, the language of whoever
added the bot or opened its first lobby. A user is answered in his own choice, else in his
Telegram app's language. Unsupported languages fall back to English. Choices are cached in
memory: they change rarely and are read on every update. The cache keeps the chats and users
seen most recently (:data:`REMEMBERED` of each): one forgotten is read from the database again
when it next speaks, so its size changes nothing but how often that happens.
"""

from __future__ import annotations

from typing import Final

from bot.i18n import SUPPORTED_LANGUAGES, pick_language
from bot.services.authority import ChatRights
from bot.services.recent import Recent
from bot.services.types import Actor, ChatRef, ServiceError
from bot.storage.database import Database
from bot.storage.repositories import Chats, Games, Users

#: Choices kept in memory, of users and of chats each (about 100 bytes apiece): far more than
#: speak in any minute, so the active ones are never read again.
REMEMBERED: Final = 50_000


class LanguageService:
    def __init__(self, db: Database, rights: ChatRights, remembered: int = REMEMBERED) -> None:
        self.db = db
        self.rights = rights
        self._users = Recent[int, str | None](remembered)
        self._chats = Recent[int, str | None](remembered)

    async def for_user(self, actor: Actor) -> str:
        """The language to answer this user in (a callback answer, a DM)."""
        if actor.user_id in self._users:
            chosen = self._users[actor.user_id]
        else:
            async with self.db.transaction() as session:
                row = await Users(session).get(actor.user_id)
            chosen = self._users[actor.user_id] = row.language if row else None
        return pick_language(chosen, actor.language_code)

    async def for_chat(self, chat: ChatRef, actor: Actor | None) -> str:
        """The language of messages in this chat (a group's choice, else the speaker's)."""
        if chat.is_private and actor is not None:
            return await self.for_user(actor)
        if chat.chat_id in self._chats:
            chosen = self._chats[chat.chat_id]
        else:
            async with self.db.transaction() as session:
                row = await Chats(session).get(chat.chat_id)
            chosen = self._chats[chat.chat_id] = row.language if row else None
        if chosen is not None:
            return pick_language(chosen)
        return await self.for_user(actor) if actor is not None else pick_language(None)

    async def adopt(self, chat: ChatRef, actor: Actor) -> None:
        """A group without a language takes the one of the person who brought the bot in."""
        if chat.is_private:
            return
        language = await self.for_user(actor)
        async with self.db.transaction() as session:
            row = await Chats(session).upsert(chat.chat_id, chat.kind, chat.title)
            if row.language is None:
                row.language = language
            self._chats[chat.chat_id] = row.language

    def forget_chat(self, chat_id: int) -> None:
        """The chat's language may have been written elsewhere (with a lobby): read it from
        the database when next asked."""
        self._chats.pop(chat_id, None)

    async def choose(self, chat: ChatRef, actor: Actor, language: str) -> str:
        """/language: a user's own choice in a DM; a group's by an admin or a lobby creator."""
        if language not in SUPPORTED_LANGUAGES:
            raise ServiceError("language.unknown")
        if chat.is_private:
            async with self.db.transaction() as session:
                user = await Users(session).upsert(
                    actor.user_id, actor.first_name, actor.username, actor.language_code
                )
                user.language = language
            self._users[actor.user_id] = language
            return language
        async with self.db.transaction() as session:
            game = await Games(session).open_in_topic(chat.chat_id, chat.topic_id)
            creator = game.creator_id if game is not None else None
        # Telegram is asked outside the transaction: nothing waits on it holding the database.
        if creator != actor.user_id and not await self.rights.is_admin(
            chat.chat_id, actor.user_id
        ):
            raise ServiceError("language.admin_only")
        async with self.db.transaction() as session:
            row = await Chats(session).upsert(chat.chat_id, chat.kind, chat.title)
            row.language = language
            self._chats[chat.chat_id] = language
            return language
