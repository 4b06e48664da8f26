"""Delivering tables and panels inside Telegram's flood limits.

Every message the bot keeps up to date (a group table, a player's DM panel) is a *slot*.
Publishing a snapshot marks slots dirty; each slot is flushed by one task that waits for its
chat's next free moment (about every 3 s in a group, every second in a private chat), then
renders from the latest snapshot — so a burst of changes costs one edit, and what is sent is
always the newest state. Content equal to what was last sent is not sent again.

Edits that fail because the message is gone are re-sent as new messages; "message is not
modified" is success; a user who cannot be messaged (403) is logged and skipped. PTB's
``AIORateLimiter`` below us honours ``RetryAfter``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from bot.i18n import Translator, translator
from bot.services.types import GameSnapshot
from bot.telegram.render import Content, panel_content, table_content

logger = logging.getLogger(__name__)

GROUP_INTERVAL = 3.0
PRIVATE_INTERVAL = 1.0
RETRY_DELAYS = (1.0, 3.0, 10.0)
_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")

Remember = Callable[[int | None], Awaitable[None]]
Render = Callable[[float, str | None], Content]


def to_markup(content: Content) -> InlineKeyboardMarkup | None:
    if not content.keyboard:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(b.text, callback_data=b.data, url=b.url) for b in row]
            for row in content.keyboard
        ]
    )


@dataclass(slots=True)
class Slot:
    """One message kept up to date."""

    game_id: int
    seat: int | None
    chat_id: int
    thread_id: int | None
    private: bool
    remember: Remember
    render: Render
    message_id: int | None = None
    screen: str | None = None
    sent: Content | None = None
    dirty: bool = False
    final: bool = False
    unreachable: bool = False
    task: asyncio.Task[None] | None = None
    failures: int = field(default=0)


class Publisher:
    """Keeps every table and panel in step with the games, within the flood limits."""

    def __init__(
        self,
        bot: Bot,
        remember_table: Callable[[int, int | None], Awaitable[None]],
        remember_panel: Callable[[int, int, int | None], Awaitable[None]],
        *,
        group_interval: float = GROUP_INTERVAL,
        private_interval: float = PRIVATE_INTERVAL,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.bot = bot
        self._remember_table = remember_table
        self._remember_panel = remember_panel
        self.group_interval = group_interval
        self.private_interval = private_interval
        self.wall_clock = wall_clock
        self._slots: dict[tuple[int, int], Slot] = {}
        #: Told when a send finds its group upgraded (set by the composition root).
        self.on_chat_moved: Callable[[int, int], Awaitable[None]] | None = None
        #: Told when a player's panel cannot be delivered (he blocked the bot).
        self.on_unreachable: Callable[[int, int], Awaitable[None]] | None = None
        self._free_at: dict[int, float] = {}

    # -- publishing ---------------------------------------------------------------------

    def publish(self, snapshot: GameSnapshot) -> None:
        """Bring the table and the players' panels of this game up to date (soon)."""
        group_t = translator(snapshot.chat_language)
        table = self._slot(
            (snapshot.game_id, -1),
            snapshot.chat_id,
            snapshot.topic_id or None,
            snapshot.chat_kind == "private",
            snapshot.table_message_id,
            lambda message_id: self._remember_table(snapshot.game_id, message_id),
        )
        table.render = lambda now, _screen: table_content(group_t, snapshot, now)
        self._touch(table, snapshot)
        if snapshot.is_lobby:
            return
        for seat in snapshot.seats:
            if seat.user_id is not None:
                self._publish_panel(
                    snapshot,
                    seat.seat,
                    seat.user_id,
                    seat.dm_message_id,
                    translator(seat.language),
                )

    def _publish_panel(
        self,
        snapshot: GameSnapshot,
        seat: int,
        user_id: int,
        message_id: int | None,
        t: Translator,
    ) -> None:
        async def remember(new_id: int | None) -> None:
            await self._remember_panel(snapshot.game_id, seat, new_id)

        def render(now: float, screen: str | None) -> Content:
            return panel_content(t, snapshot, seat, now, screen)

        panel = self._slot((snapshot.game_id, seat), user_id, None, True, message_id, remember)
        if not snapshot.seats[seat].autopilot:
            # He took his seat back, so he can be messaged again.
            panel.unreachable = False
        panel.screen = None
        panel.render = render
        self._touch(panel, snapshot)

    def chat_moved(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its messages must be posted again under the new id."""
        for slot in self._slots.values():
            if slot.chat_id == old_id:
                slot.chat_id = new_id
                slot.message_id = None
                slot.sent = None

    def show_screen(self, game_id: int, seat: int, screen: str) -> bool:
        """Switch a panel to a sub-screen (e.g. the joker's rank picker); False if unknown."""
        panel = self._slots.get((game_id, seat))
        if panel is None or panel.final:
            return False
        panel.screen = None if screen == "main" else screen
        self._schedule(panel, urgent=True)
        return True

    def _slot(
        self,
        key: tuple[int, int],
        chat_id: int,
        thread_id: int | None,
        private: bool,
        message_id: int | None,
        remember: Remember,
    ) -> Slot:
        slot = self._slots.get(key)
        if slot is None:
            slot = Slot(
                key[0],
                key[1] if key[1] >= 0 else None,
                chat_id,
                thread_id,
                private,
                remember,
                lambda _n, _s: Content(""),
                message_id=message_id,
            )
            self._slots[key] = slot
        elif slot.message_id is None:
            slot.message_id = message_id
        return slot

    def _touch(self, slot: Slot, snapshot: GameSnapshot) -> None:
        slot.final = snapshot.is_over
        self._schedule(slot)

    def _schedule(self, slot: Slot, *, urgent: bool = False) -> None:
        slot.dirty = True
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(slot, urgent=urgent))

    # -- flushing -----------------------------------------------------------------------

    async def _run(self, slot: Slot, *, urgent: bool) -> None:
        while slot.dirty:
            interval = self.private_interval if slot.private else self.group_interval
            loop = asyncio.get_running_loop()
            wait = self._free_at.get(slot.chat_id, 0.0) - loop.time()
            if wait > 0 and not urgent:
                await asyncio.sleep(wait)
            urgent = False
            slot.dirty = False
            content = slot.render(self.wall_clock(), slot.screen)
            if content == slot.sent or slot.unreachable:
                continue
            self._free_at[slot.chat_id] = loop.time() + interval
            try:
                await self._deliver(slot, content)
                slot.failures = 0
            except (NetworkError, RetryAfter) as error:
                if slot.failures >= len(RETRY_DELAYS):
                    logger.warning("Giving up on chat %s for now: %s", slot.chat_id, error)
                    slot.failures = 0
                    continue
                delay = RETRY_DELAYS[slot.failures]
                slot.failures += 1
                logger.warning(
                    "Delivery to chat %s failed (%s); retrying in %.0f s",
                    slot.chat_id,
                    error,
                    delay,
                )
                await asyncio.sleep(delay)
                slot.dirty = True
            except ChatMigrated as moved:
                logger.info("Chat %s is now %s", slot.chat_id, moved.new_chat_id)
                old_id = slot.chat_id
                self.chat_moved(old_id, moved.new_chat_id)
                if self.on_chat_moved is not None:
                    await self.on_chat_moved(old_id, moved.new_chat_id)
                slot.chat_id, slot.message_id = moved.new_chat_id, None
                slot.dirty = True
            except TelegramError as error:
                logger.warning("Delivery to chat %s refused: %s", slot.chat_id, error)
        if slot.final:
            self._forget(slot)

    def _forget(self, slot: Slot) -> None:
        for key, value in list(self._slots.items()):
            if value is slot:
                del self._slots[key]

    async def _deliver(self, slot: Slot, content: Content) -> None:
        """Edit the slot's message, or send it anew; a 403 hands a player's seat over."""
        try:
            await self._edit_or_send(slot, content)
        except Forbidden as error:
            slot.unreachable = True
            logger.warning("Cannot message chat %s: %s", slot.chat_id, error)
            if slot.seat is not None and self.on_unreachable is not None:
                await self.on_unreachable(slot.game_id, slot.seat)

    async def _edit_or_send(self, slot: Slot, content: Content) -> None:
        markup = to_markup(content)
        if slot.message_id is not None:
            try:
                await self.bot.edit_message_text(
                    content.text,
                    chat_id=slot.chat_id,
                    message_id=slot.message_id,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    link_preview_options=LinkPreviewOptions(is_disabled=True),
                )
                slot.sent = content
                return
            except BadRequest as error:
                message = error.message.lower()
                if "not modified" in message:
                    slot.sent = content
                    return
                if not any(gone in message for gone in _GONE):
                    raise
                logger.info(
                    "Message %s in chat %s is gone; sending a new one",
                    slot.message_id,
                    slot.chat_id,
                )
        sent = await self.bot.send_message(
            slot.chat_id,
            content.text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            message_thread_id=slot.thread_id,
            link_preview_options=LinkPreviewOptions(is_disabled=True),
        )
        slot.message_id = sent.message_id
        slot.sent = content
        await slot.remember(sent.message_id)

    # -- lifecycle ----------------------------------------------------------------------

    async def drain(self) -> None:
        """Wait until nothing is left to send (tests, shutdown)."""
        while True:
            tasks = [s.task for s in self._slots.values() if s.task and not s.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        for slot in self._slots.values():
            if slot.task and not slot.task.done():
                slot.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await slot.task

    def __len__(self) -> int:
        return len(self._slots)
