"""Pins: a game's live table is pinned in its group — silently — where the bot may pin, so that
chatter cannot bury it; at the game's end it is unpinned.

Whether the bot may pin is asked of Telegram once a group, when a table there first gets
buried (:attr:`Pins.can_pin`; a group whose tables stay in sight costs no question), then told
by its membership's changes (:meth:`Pins.may_pin`). A pin Telegram refuses says the bot may
not: its tables are brought back into sight instead (:mod:`bot.telegram.sender.sight`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.services.recent import Recent
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, Notes, Outcome
from bot.telegram.sender.slots import Slot

logger = logging.getLogger(__name__)

#: Groups whose pinning right is remembered (the most recent; one forgotten is asked again).
GROUPS = 10_000


class Pins:
    """What the bot may pin in each group, and the pinning of live tables."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes
        #: Asks Telegram whether the bot may pin messages in a group (``None``: never pin).
        self.can_pin: Callable[[int], Awaitable[bool]] | None = None
        #: Told when the bot turns out to be allowed to pin in a group (its live tables are
        #: pinned now, not at their next change).
        self.on_allowed: Callable[[int], None] | None = None
        #: Whether the bot may pin messages in each group (absent: not known yet).
        self._may_pin: Recent[int, bool] = Recent(GROUPS)
        self._asking: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def may_pin(self, chat_id: int, allowed: bool) -> None:
        """Telegram told what the bot may do in a group (its membership changed)."""
        self._may_pin[chat_id] = allowed

    def keep_pinned(self, slot: Slot) -> None:
        """Pin the slot's table if its game is being played (where the bot may), unpin it
        at the end; nothing for a panel, or a table pinned (or not) as it should be."""
        if slot.private or slot.seat is not None or slot.message_id is None:
            return
        playing = slot.ticket.priority is Priority.TABLE and not slot.final
        if playing == slot.pinned:
            return
        if playing and not self.allowed(slot.chat_id, ask=False):
            return
        endpoint = "pinChatMessage" if playing else "unpinChatMessage"
        data: dict[str, Any] = {"chat_id": slot.chat_id, "message_id": slot.message_id}
        if playing:
            data["disable_notification"] = True
        share = ("game", slot.game_id)
        what = f"{'pinning' if playing else 'unpinning'} the table of game {slot.game_id}"
        note = Note(
            slot.chat_id,
            (endpoint, data),
            Priority.TABLE,
            share,
            paced=False,
            quiet=True,
            what=what,
        )
        slot.pinned = playing
        chat_id = slot.chat_id

        def refused(outcome: asyncio.Future[Outcome]) -> None:
            if playing and outcome.result() is not Outcome.SENT:
                self._may_pin[chat_id] = False  # no right to pin here: brought back instead
                slot.pinned = False

        self.notes.post(note).outcome.add_done_callback(refused)

    def allowed(self, chat_id: int, *, ask: bool) -> bool:
        """Whether the bot may pin in the group, as known. Not known yet and ``ask`` (a table
        got buried: pinning is what would keep it in sight), Telegram is asked in the
        background — the delivery does not wait; the group's live tables are pinned when the
        answer is yes."""
        allowed = self._may_pin.get(chat_id)
        if allowed is None and ask and self.can_pin is not None and chat_id not in self._asking:
            self._asking.add(chat_id)
            task = asyncio.create_task(self._ask(chat_id, self.can_pin))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return bool(allowed)

    async def _ask(self, chat_id: int, can_pin: Callable[[int], Awaitable[bool]]) -> None:
        try:
            allowed = await can_pin(chat_id)
        except Exception as error:
            # Telegram cannot say: the table is brought back when buried.
            logger.info("Could not tell whether the bot may pin in %s: %s", chat_id, error)
            allowed = False
        finally:
            self._asking.discard(chat_id)
        self.may_pin(chat_id, allowed)
        if allowed and self.on_allowed is not None:
            self.on_allowed(chat_id)
