"""The waiting list (``/nextgame``): a member of a group asks for a private message when the
next game opens there — in that forum topic, if he asked in one. The next lobby opened there
uses every request up: each person is told once, and asks again for the one after."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.i18n import pick_language
from bot.services.authority import is_person
from bot.services.outbox import OPENED, Letter, add_letters
from bot.services.types import Actor, ChatRef, ServiceError
from bot.storage.database import Database
from bot.storage.models import LOBBY
from bot.storage.repositories import Chats, Games, Users, Waitlist


@dataclass(frozen=True, slots=True)
class Waiting:
    """A request taken: whether it is new (not asked before), and whether the bot can write
    to him (he started it) — if not, he has to, or no message can reach him."""

    new: bool
    reachable: bool


@dataclass(frozen=True, slots=True)
class Waiter:
    """A person to tell that a game opened, in his language."""

    user_id: int
    language: str


class WaitlistService:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def ask(self, actor: Actor, chat: ChatRef) -> Waiting:
        """Put ``actor`` on the list of the chat topic he wrote in.

        Refused in a private chat (its games are dealt at once), on behalf of a chat (nobody
        to write to), and while a lobby is open in the topic: he can join that one now
        (``message_id``: its message, if posted).
        """
        if chat.is_private:
            raise ServiceError("waitlist.group_only")
        if not is_person(actor):
            raise ServiceError("waitlist.not_a_person")
        async with self.db.transaction() as session:
            user = await Users(session).upsert(
                actor.user_id, actor.first_name, actor.username, actor.language_code
            )
            await Chats(session).upsert(chat.chat_id, chat.kind, chat.title)
            open_game = await Games(session).open_in_topic(chat.chat_id, chat.topic_id)
            if open_game is not None and open_game.status == LOBBY:
                raise ServiceError("waitlist.lobby_open", message_id=open_game.table_message_id)
            new = await Waitlist(session).add(chat.chat_id, chat.topic_id, actor.user_id)
            return Waiting(new=new, reachable=user.started)

    async def claim(self, chat_id: int, topic_id: int, opener: int | None) -> list[Waiter]:
        """A lobby opened in this chat topic: every request there is used up. Returns whom to
        tell — not its ``opener`` (he knows), nor anyone the bot cannot write to. (A lobby
        opened by the bot claims its waiters itself, in its own transaction:
        :func:`claim_waiting`.)"""
        async with self.db.transaction() as session:
            return await claim_waiting(session, chat_id, topic_id, opener)


async def claim_waiting(
    session: AsyncSession,
    chat_id: int,
    topic_id: int,
    opener: int | None,
    *,
    game_id: int | None = None,
    title: str = "",
    now: float = 0.0,
) -> list[Waiter]:
    """:meth:`WaitlistService.claim` in a transaction of the caller's — the lobby's own. With
    the lobby's ``game_id``, each person to tell is written a letter (:data:`OPENED`) in it:
    nobody's request is used up without his message, and no lobby opens without them."""
    users = await Waitlist(session).take(chat_id, topic_id)
    waiters = [
        Waiter(user.id, pick_language(user.language, user.language_code))
        for user in users
        if user.started and user.id != opener
    ]
    if game_id is not None and waiters:
        letters = [
            Letter(w.user_id, {"language": w.language, "title": title}, OPENED, game_id)
            for w in waiters
        ]
        await add_letters(session, letters, now)
    return waiters
