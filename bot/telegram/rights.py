"""What Telegram says of a person in a chat: admin, member — the services' ``ChatRights``.

Every answer is about the chat the services name (the game's own chat), never about the chat
a button was pressed in. An answer, yes or no, is remembered for a minute: lobby buttons are
pressed in bursts, and a standing a minute old is as good as fresh — a person who joins a
group is asked about afresh at once (the bot hears of the join), one who leaves is forgotten.
Presses that need the same answer at once share one question. Each question counts against
the bot's overall budget (:meth:`~bot.telegram.sender.budget.CallBudget.count_lookup`, through
the rate limiter). When Telegram cannot be asked, the person hears "try again" — never "you
are not an admin".
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from telegram import Bot, ChatMember, ChatMemberAdministrator, ChatMemberRestricted
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, TelegramError

from bot.services.types import ServiceError

logger = logging.getLogger(__name__)

#: Seconds an answer is trusted without asking Telegram again.
REMEMBER_SECONDS = 60.0
_ADMINS = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
_MEMBERS = (*_ADMINS, ChatMemberStatus.MEMBER)


class TelegramRights:
    """:class:`bot.services.authority.ChatRights` from ``getChatMember``."""

    def __init__(self, bot: Bot, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        self.clock = clock
        #: (chat, user) → (when asked, the membership; ``None``: Telegram knows no such member).
        self._known: dict[tuple[int, int], tuple[float, ChatMember | None]] = {}
        self._asking: dict[tuple[int, int], asyncio.Future[ChatMember | None]] = {}
        #: Questions put to Telegram (tests, figures).
        self.asked = 0

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return False
        member = await self._member(chat_id, user_id)
        return member is not None and member.status in _ADMINS

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return chat_id == user_id
        member = await self._member(chat_id, user_id)
        return member is not None and (
            member.status in _MEMBERS
            or (isinstance(member, ChatMemberRestricted) and member.is_member)
        )

    async def bot_may_pin(self, chat_id: int) -> bool:
        """Whether the bot itself may pin messages in a group (an admin with that right)."""
        if chat_id > 0:
            return False
        member = await self._member(chat_id, self.bot.id)
        return isinstance(member, ChatMemberAdministrator) and bool(member.can_pin_messages)

    def forget(self, chat_id: int, user_id: int) -> None:
        """The person joined or left the chat (or was promoted, demoted): ask next time."""
        self._known.pop((chat_id, user_id), None)

    async def _member(self, chat_id: int, user_id: int) -> ChatMember | None:
        """The person's membership, remembered or asked (once for all who need it now)."""
        key = (chat_id, user_id)
        known = self._known.get(key)
        now = self.clock()
        if known is not None and now - known[0] <= REMEMBER_SECONDS:
            return known[1]
        asking = self._asking.get(key)
        if asking is not None:
            return await asyncio.shield(asking)
        future: asyncio.Future[ChatMember | None] = asyncio.get_running_loop().create_future()
        self._asking[key] = future
        try:
            member = await self._ask(chat_id, user_id)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved: those who wait on it raise it themselves
            raise
        finally:
            del self._asking[key]
        future.set_result(member)
        if len(self._known) > 10_000:
            self._known = {k: v for k, v in self._known.items() if now - v[0] <= REMEMBER_SECONDS}
        self._known[key] = (self.clock(), member)
        return member

    async def _ask(self, chat_id: int, user_id: int) -> ChatMember | None:
        """The person's membership; ``None`` when Telegram knows no such member."""
        self.asked += 1
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
