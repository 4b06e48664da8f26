"""Sight: whether a message the sender keeps is still in view of its chat.

A group's table with :data:`BURIED_AFTER` messages or more after it has scrolled out of sight:
its next change brings it back — sent anew, the old one deleted (two calls of the group's
budget) — at most once in :data:`RETURN_EVERY` seconds, whatever the chat writes. A panel that
``/start`` finds buried comes anew at most that often too. What is known of a chat is the
newest message the bot has heard of there (:meth:`Sight.seen`), for the chats heard of most
recently.
"""

from __future__ import annotations

import asyncio

from bot.services.recent import Recent
from bot.telegram.sender.slots import Slot

#: A group's table with this many messages after it has scrolled out of sight.
BURIED_AFTER = 5
#: A buried message is brought back at most once in this many seconds.
RETURN_EVERY = 60.0
#: Chats (and forum topics) whose newest message is remembered; panels recalled likewise.
CHATS = 10_000


class Sight:
    """The newest message of each chat, and when each game's messages were brought back."""

    def __init__(self) -> None:
        #: The newest message seen in each chat (and forum topic): (chat, topic) → id.
        self._latest: Recent[tuple[int, int], int] = Recent(CHATS)
        #: When each game's table was last brought back into sight (loop time).
        self._returned: dict[int, float] = {}
        #: When each panel was last sent anew for a ``/start`` (loop time): (game, seat).
        self._recalled: Recent[tuple[int, int], float] = Recent(CHATS)

    def seen(self, chat_id: int, thread_id: int | None, message_id: int) -> None:
        """A message appeared in a chat (a command, a reply, anything the bot hears of)."""
        key = (chat_id, thread_id or 0)
        if message_id > self._latest.get(key, 0):
            self._latest[key] = message_id

    def under(self, slot: Slot) -> bool:
        """Whether :data:`BURIED_AFTER` messages or more have come after the slot's."""
        if slot.message_id is None:
            return False
        latest = self._latest.get((slot.chat_id, slot.thread_id or 0), 0)
        return latest - slot.message_id >= BURIED_AFTER

    def buried(self, slot: Slot) -> bool:
        """Whether a group's table has scrolled out of sight under later messages (a pinned
        one never has: it is in the group's pinned bar) and may be brought back now."""
        if slot.private or slot.seat is not None or slot.pinned or not self.under(slot):
            return False
        now = asyncio.get_running_loop().time()
        return now - self._returned.get(slot.game_id, float("-inf")) >= RETURN_EVERY

    def brought_back(self, game_id: int) -> None:
        """The game's table is being sent anew, into sight."""
        self._returned[game_id] = asyncio.get_running_loop().time()

    def recall(self, panel: Slot) -> bool:
        """Whether a panel ``/start`` asks for comes anew: it is buried, and was not brought
        back within :data:`RETURN_EVERY` seconds (counted as brought back if so)."""
        assert panel.seat is not None
        now = asyncio.get_running_loop().time()
        key = (panel.game_id, panel.seat)
        if not self.under(panel) or now - self._recalled.get(key, -RETURN_EVERY) < RETURN_EVERY:
            return False
        self._recalled[key] = now
        return True

    def forget(self, game_id: int) -> None:
        """The game's messages are no longer kept."""
        self._returned.pop(game_id, None)
