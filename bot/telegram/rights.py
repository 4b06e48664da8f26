"""What Telegram says of a person in a chat: admin, member — the services' ``ChatRights``.

Every answer is about the chat the services name (the game's own chat), never about the chat
a button was pressed in. A "yes" is remembered for a minute: lobby buttons are pressed in
bursts, and an admin's or member's standing a minute old is as good as fresh; a "no" is not
remembered, so a person who has just joined the group can join the game at once. When
Telegram cannot be asked, the person hears "try again" — never "you are not an admin".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import Bot, ChatMember, ChatMemberRestricted
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, TelegramError

from bot.services.types import ServiceError

logger = logging.getLogger(__name__)

#: Seconds a "yes" is trusted without asking Telegram again.
REMEMBER_SECONDS = 60.0
_ADMINS = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
_MEMBERS = (*_ADMINS, ChatMemberStatus.MEMBER)


class TelegramRights:
    """:class:`bot.services.authority.ChatRights` from ``getChatMember``."""

    def __init__(self, bot: Bot, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        self.clock = clock
        self._admins: dict[tuple[int, int], float] = {}
        self._members: dict[tuple[int, int], float] = {}

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return False
        if self._remembered(self._admins, chat_id, user_id):
            return True
        member = await self._member(chat_id, user_id)
        admin = member is not None and member.status in _ADMINS
        if admin:
            self._admins[chat_id, user_id] = self.clock()
        return admin

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return chat_id == user_id
        if self._remembered(self._members, chat_id, user_id):
            return True
        member = await self._member(chat_id, user_id)
        present = member is not None and (
            member.status in _MEMBERS
            or (isinstance(member, ChatMemberRestricted) and member.is_member)
        )
        if present:
            self._members[chat_id, user_id] = self.clock()
        return present

    def forget(self, chat_id: int, user_id: int) -> None:
        """The person left the chat (or was demoted): ask Telegram next time."""
        self._admins.pop((chat_id, user_id), None)
        self._members.pop((chat_id, user_id), None)

    def _remembered(self, known: dict[tuple[int, int], float], chat_id: int, user_id: int) -> bool:
        at = known.get((chat_id, user_id))
        if at is None:
            return False
        if self.clock() - at > REMEMBER_SECONDS:
            del known[chat_id, user_id]
            return False
        return True

    async def _member(self, chat_id: int, user_id: int) -> ChatMember | None:
        """The person's membership; ``None`` when Telegram knows no such member."""
        try:
            return await self.bot.get_chat_member(chat_id, user_id)
        except BadRequest as error:
            if "not found" in error.message.lower() or "participant" in error.message.lower():
                return None  # Telegram knows no such member: not one
            logger.warning("Could not ask chat %s about user %s: %s", chat_id, user_id, error)
            raise ServiceError("rights.unknown") from None
        except TelegramError as error:
            logger.warning("Could not ask chat %s about user %s: %s", chat_id, user_id, error)
            raise ServiceError("rights.unknown") from None
