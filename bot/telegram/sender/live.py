"""Live messages: the tables and panels the sender keeps in step with the games.

Every message the bot keeps up to date (a group table, a player's DM panel) is a *slot*.
Publishing a snapshot marks slots dirty; each slot is flushed by one task that waits for its
turn in the chat's budget (:class:`~bot.telegram.sender.budget.CallBudget`: strict sliding windows,
and a group's table at most every :data:`GROUP_INTERVAL` seconds, so that it moves steadily
rather than in bursts), then renders from the latest snapshot — so a burst of changes costs
one edit, and what is sent is always the newest state. Turns are taken by priority: the panel
of the player whose decision it is first, then other panels, then tables. A slot keeps only a
fingerprint of what it last showed, and drops the snapshot once it is flushed: content equal
to what the message already shows — the passing of time aside ("45 s left" counts as its
deadline) — is not sent again.

Edits that fail because the message is gone are re-sent as new messages; "message is not
modified" is success; a user who cannot be messaged (403) is logged and skipped. A 429 that
still comes pauses the chat (the rate limiter, :mod:`bot.telegram.sender.limiter`, records it
and logs it once); the slot stays dirty and the newest state goes out when the pause is over.

A player whose panel reached him late — it waited for its chat, or for the bot's overall
budget — is not the poorer for it: the game's window is extended by the wait
(``on_late``).

When every message of a game shows its newest version, the publisher says so (``on_shown``,
batched about once a second): a restarted bot redraws only the games it had not finished
showing — and takes up the others as they are shown (:meth:`Publisher.adopt`), without a call.

Its parts, each in its own module: the slots themselves (:mod:`~bot.telegram.sender.slots`),
the pings of a player whose move waits for him (:mod:`~bot.telegram.sender.pings`), the
pinning of live tables (:mod:`~bot.telegram.sender.pins`), and whether a message is still in
sight or must be brought back (:mod:`~bot.telegram.sender.sight`). A game's end is also said
in a message of its own, a letter of the outbox (:func:`result_note`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from bot.i18n import Translator, translator
from bot.services.recent import Recent
from bot.services.types import GameSnapshot, StorageRefused
from bot.telegram import metrics
from bot.telegram.render import (
    Content,
    is_pause,
    panel_content,
    result_content,
    solo_content,
    table_content,
)
from bot.telegram.render.content import Button
from bot.telegram.sender.budget import CallBudget, Limits, Priority
from bot.telegram.sender.limiter import NotLeading, calling
from bot.telegram.sender.notes import NO_PREVIEW, Note, Notes, markup_json, message_call
from bot.telegram.sender.outbox import Outbox
from bot.telegram.sender.pings import Pings
from bot.telegram.sender.pins import Pins
from bot.telegram.sender.sight import Sight
from bot.telegram.sender.slots import Slot, fingerprint

logger = logging.getLogger(__name__)

#: Seconds between two edits of one group's messages: what a group's window leaves once
#: informational replies have had their share (18 − 4 calls a minute: one every 4.3 s). A
#: table that spends its share evenly never stalls for a window that bursts filled.
GROUP_INTERVAL = Limits().group_window / (Limits().group_calls - Limits().reply_calls)
#: A private chat is paced by its budget alone (a call a little over a second apart).
PRIVATE_INTERVAL = 0.0
#: A panel that reached its player this much later than the change that gave him the move
#: extends his window by the wait.
LATE_AFTER = 1.0
RETRY_DELAYS = (1.0, 3.0, 10.0)
#: Private chats whose next free moment is remembered (those written to most recently).
PRIVATE_CHATS = 10_000
#: Seconds between two reports of the games whose messages are all up to date.
SHOWN_EVERY = 1.0
_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")


class Publisher:
    """Keeps every table and panel in step with the games, within the flood limits."""

    def __init__(
        self,
        bot: Bot,
        remember_table: Callable[[int, int | None], Awaitable[None]],
        remember_panel: Callable[[int, int, int | None], Awaitable[None]],
        *,
        budget: CallBudget | None = None,
        notes: Notes | None = None,
        group_interval: float = GROUP_INTERVAL,
        private_interval: float = PRIVATE_INTERVAL,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.bot = bot
        self.budget = budget or CallBudget()
        #: One-off messages (a game's result, tidying old messages) go with the notes.
        self.notes = notes or Notes(bot, self.budget)
        #: Who is to be pinged when his move waits for him (:mod:`~.pings`).
        self.pings = Pings(wall_clock)
        #: Which messages are still in view of their chats (:mod:`~.sight`).
        self.sight = Sight()
        #: Live tables pinned where the bot may pin (:mod:`~.pins`).
        self.pins = Pins(self.notes)
        self.pins.on_allowed = self._pin_tables
        self._remember_table = remember_table
        self._remember_panel = remember_panel
        self.budget.pace = group_interval
        self.private_interval = private_interval
        self.wall_clock = wall_clock
        self._slots: dict[tuple[int, int], Slot] = {}
        #: Told when a send finds its group upgraded (set by the composition root).
        self.on_chat_moved: Callable[[int, int], Awaitable[None]] | None = None
        #: Told when a player's panel cannot be delivered (he blocked the bot).
        self.on_unreachable: Callable[[int, int], Awaitable[None]] | None = None
        #: Told which games (id → version) have every message showing that version.
        self.on_shown: Callable[[dict[int, int]], Awaitable[None]] | None = None
        #: Asked, just before an edit, for the game as it is now if it has moved past the
        #: version at hand (several processes: another may have moved it meanwhile).
        self.newer: Callable[[int, int], Awaitable[GameSnapshot | None]] | None = None
        #: Told when a player's panel that gave him the move reached him late: game id, the
        #: version it showed, and the seconds it was late by.
        self.on_late: Callable[[int, int, float], Awaitable[None]] | None = None
        #: When each private chat may next be written to (loop time): its chats of late.
        self._free_at: Recent[int, float] = Recent(PRIVATE_CHATS)
        #: Taking up messages a previous leader delivered (:meth:`adopt`): no call is made.
        self._adopting = False
        self._games: dict[int, list[Slot]] = {}
        self._shown: dict[int, int] = {}
        self._reporting: asyncio.Task[None] | None = None
        self._closed = False
        #: Told every snapshot published, at once (the Mini App's pages show it unpaced).
        self.watchers: list[Callable[[GameSnapshot], None]] = []
        #: The Mini App page of a game, if it has one (a ``web_app`` button on its panels).
        self.app_url: Callable[[GameSnapshot], str | None] | None = None
        #: The direct link that opens a game's page from its group's table (a URL button:
        #: Telegram takes ``web_app`` buttons in private chats only), if the app has one.
        self.table_url: Callable[[GameSnapshot], str | None] | None = None
        #: Whether a player has the game's page open (user, game): his panel is then paced.
        self.paging: Callable[[int, int], bool] | None = None
        #: The letters the bot wrote (replies, results…): drained with the rest.
        self.outbox: Outbox | None = None

    # -- publishing ---------------------------------------------------------------------

    def publish(self, snapshot: GameSnapshot) -> None:
        """Bring the table and the players' panels of this game up to date (soon).

        A game in its player's private chat keeps one message there, the table and his hand
        together, in his language (:func:`~bot.telegram.render.solo_content`) — from its lobby
        on: the message that offered its options becomes the game when he deals it.
        """
        for watcher in self.watchers:
            watcher(snapshot)
        owner = snapshot.seat_of(snapshot.chat_id) if snapshot.chat_kind == "private" else None
        if owner is not None:
            self._publish_panel(
                snapshot,
                owner.seat,
                owner.user_id or snapshot.chat_id,
                owner.dm_message_id,
                translator(owner.language),
                solo=True,
            )
            return
        group_t = translator(snapshot.chat_language)
        table = self._slot(
            (snapshot.game_id, -1),
            snapshot.chat_id,
            snapshot.topic_id or None,
            snapshot.chat_kind == "private",
            snapshot.table_message_id,
        )
        # Its page, from the group: the players in their seats, anyone else watching.
        link = self.table_url(snapshot) if self.table_url is not None else None
        page = None
        if link is not None and snapshot.status == "playing" and snapshot.chat_kind != "private":
            page = Button(group_t("app.open_table"), url=link)
        table.render = lambda now, _screen: below(table_content(group_t, snapshot, now), page)
        # A game's table goes before its group's lobbies; each game gets its turn.
        table.ticket.share = ("game", snapshot.game_id)
        priority = Priority.LOBBY if snapshot.is_lobby else Priority.TABLE
        if priority != table.ticket.priority:
            table.ticket.priority = priority
            self.budget.reorder()
        # An edit notifies nobody: the end of the game is also said in a message of its own,
        # a letter written with the end (:func:`result_note`).
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

    def adopt(self, snapshot: GameSnapshot) -> None:
        """Take up a game whose messages all show this version (delivered before this process
        led): their ids and what they show are known from now on, and whoever's move it is
        will be pinged — all without a call. A game this process has published already is
        left as it is (its newer state may be on its way)."""
        if snapshot.game_id in self._games:
            return
        self._adopting = True
        try:
            self.publish(snapshot)
        finally:
            self._adopting = False

    def _publish_panel(
        self,
        snapshot: GameSnapshot,
        seat: int,
        user_id: int,
        message_id: int | None,
        t: Translator,
        *,
        solo: bool = False,
    ) -> None:
        draw = solo_content if solo else panel_content
        app_url = self.app_url if snapshot.status == "playing" else None

        def render(now: float, screen: str | None) -> Content:
            content = draw(t, snapshot, seat, now, screen)
            page = None if app_url is None or screen is not None else app_url(snapshot)
            # The game at a table of cards: its Mini App, a button under the panel's own.
            return below(content, None if page is None else Button(t("app.open"), web_app=page))

        panel = self._slot((snapshot.game_id, seat), user_id, None, True, message_id)
        if not snapshot.seats[seat].autopilot:
            # He took his seat back, so he can be messaged again.
            panel.unreachable = False
        panel.screen = None
        panel.render = render
        if self._ending(panel, snapshot) and panel.message_id is not None:
            panel.renew = True  # his result, and his rating's change, notify him
        # In a pause (saying one is ready is no move) nobody is pinged.
        turn = (
            seat in snapshot.legal
            and not snapshot.seats[seat].autopilot
            and not is_pause(snapshot)
        )
        pinged = snapshot.seats[seat].pings and not self._closed
        self.pings.follow(panel, snapshot, user_id, turn=turn, fire=self._ping if pinged else None)
        priority = Priority.TURN if turn else Priority.PANEL
        if priority != panel.ticket.priority:
            panel.ticket.priority = priority
            self.budget.reorder()
        if (
            not solo
            and self.paging is not None
            and panel.message_id is not None
            and not snapshot.is_over
            and not snapshot.seats[seat].autopilot
            and self.paging(user_id, snapshot.game_id)
        ):
            # He plays on the page, which shows every change at once: his panel waits (its
            # calls go to others) until the page closes or the game ends; his turn still
            # pings him if it waits for him. Not while the computer plays for him: the panel
            # holds the button that takes his seat back, which the page sends him to.
            panel.held = True
            panel.final, panel.version = False, snapshot.version
            return
        panel.held = False
        self._touch(panel, snapshot)

    def page_closed(self, user_id: int, game_id: int) -> None:
        """The player's last page on the game closed: his panel, left as it was while he
        played there, is brought up to date."""
        for slot in self._games.get(game_id, ()):
            if slot.held and slot.chat_id == user_id:
                slot.held = False
                self._changed(slot)

    # -- what the parts are told ---------------------------------------------------------

    @property
    def ping_after(self) -> float:
        """How long a move waits for its player before his panel comes anew."""
        return self.pings.after

    @ping_after.setter
    def ping_after(self, seconds: float) -> None:
        self.pings.after = seconds

    @property
    def can_pin(self) -> Callable[[int], Awaitable[bool]] | None:
        """Asks Telegram whether the bot may pin messages in a group (``None``: never pin)."""
        return self.pins.can_pin

    @can_pin.setter
    def can_pin(self, ask: Callable[[int], Awaitable[bool]] | None) -> None:
        self.pins.can_pin = ask

    def may_pin(self, chat_id: int, allowed: bool) -> None:
        """Telegram told what the bot may do in a group (its membership changed)."""
        self.pins.may_pin(chat_id, allowed)

    def _pin_tables(self, chat_id: int) -> None:
        """The bot may pin in this group: its live tables are pinned now."""
        for slot in [s for s in self._slots.values() if s.chat_id == chat_id]:
            self.pins.keep_pinned(slot)

    def seen(self, chat_id: int, thread_id: int | None, message_id: int) -> None:
        """A message appeared in a chat (a command, a reply, anything the bot hears of)."""
        self.sight.seen(chat_id, thread_id, message_id)

    def pressed(self, user_id: int) -> None:
        """The person pressed a button: he is at his phone (no ping for a while)."""
        self.pings.pressed(user_id)

    @property
    def group_interval(self) -> float:
        """Seconds between two game messages in one group (the budget's pace)."""
        return self.budget.pace

    @group_interval.setter
    def group_interval(self, seconds: float) -> None:
        self.budget.pace = seconds

    def _ping(self, panel: Slot, user_id: int, started: float) -> None:
        """His move has waited for him since ``started``: if he has not pressed anything
        since, his panel comes anew — it notifies — and the old one goes."""
        panel.ping = None
        if (
            self._closed
            or panel.final
            or panel.unreachable
            or panel.message_id is None
            or self._slots.get((panel.game_id, panel.seat or 0)) is not panel
            or not self.pings.due(panel, user_id, started)
        ):
            return
        panel.renew = True
        self._schedule(panel, urgent=True)

    @staticmethod
    def _ending(slot: Slot, snapshot: GameSnapshot) -> bool:
        """Whether this snapshot is the end of the game the slot has been showing (in this
        process: a finished game published again, or after a restart, is not announced)."""
        return snapshot.status == "finished" and not slot.final and slot.version > 0

    def recall_panel(self, snapshot: GameSnapshot, seat: int) -> None:
        """The player wrote ``/start``: his panel comes anew only if he cannot see it — the
        computer plays for him (he may take his seat back), or it is buried under later
        messages — and then at most once a minute a game; otherwise it is only brought up to
        date (most often: nothing to send)."""
        self.publish(snapshot)
        panel = self._slots.get((snapshot.game_id, seat))
        if panel is None or panel.final:
            return
        if not (panel.unreachable or snapshot.seats[seat].autopilot) and not self.sight.recall(
            panel
        ):
            return
        self.renew_panel(snapshot, seat)

    def renew_panel(self, snapshot: GameSnapshot, seat: int) -> None:
        """Send a player's panel as a new message — he can be messaged again (he unblocked
        the bot) — and retire the old one."""
        self.publish(snapshot)
        panel = self._slots.get((snapshot.game_id, seat))
        if panel is None or panel.final:
            return
        panel.unreachable = False
        panel.renew = True
        self._schedule(panel, urgent=True)

    def retire_stray(self, game_id: int, chat_id: int, message_id: int) -> bool:
        """A button was pressed on a copy of one of this game's messages that is not the
        live one — a send whose answer was lost (Telegram took it; the bot sent it again), or
        an old panel: delete it, so that nobody presses it again. Never the live message
        (its id may not be recorded yet). Whether a deletion was set off."""
        live = {(slot.chat_id, slot.message_id) for slot in self._games.get(game_id, ())}
        if (chat_id, message_id) in live:  # message ids count per chat
            return False
        self._tidy("deleteMessage", chat_id, message_id)
        return True

    def disarm(self, chat_id: int, message_id: int) -> None:
        """Take the buttons off an old message of a game that is over (one was pressed): the
        message stays, as the chat's history, but offers nothing to press any more."""
        self._tidy("editMessageReplyMarkup", chat_id, message_id)

    def _tidy(self, endpoint: str, chat_id: int, message_id: int) -> None:
        """A tidy call a press asked for: a letter, written with the press's update (the
        outbox's), once however often the message is pressed."""
        (self.outbox or self.notes).tidy(endpoint, chat_id, message_id)

    def chat_moved(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its messages must be posted again under the new id."""
        for slot in self._slots.values():
            if slot.chat_id == old_id:
                slot.chat_id = new_id
                slot.message_id = None
                slot.sent = None

    def show_screen(self, game_id: int, seat: int, screen: str) -> bool:
        """Switch a panel to a sub-screen (e.g. the joker's rank picker).

        False when the panel has no snapshot at hand (unknown, over, or delivered and let
        go): publish the game's snapshot, then ask again.
        """
        panel = self._slots.get((game_id, seat))
        if panel is None or panel.final or panel.render is None:
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
    ) -> Slot:
        slot = self._slots.get(key)
        if slot is None:
            seat = key[1] if key[1] >= 0 else None
            slot = Slot(key[0], seat, chat_id, thread_id, private, message_id=message_id)
            self._slots[key] = slot
            self._games.setdefault(key[0], []).append(slot)
        elif slot.message_id is None:
            slot.message_id = message_id
        return slot

    def _touch(self, slot: Slot, snapshot: GameSnapshot) -> None:
        slot.final = snapshot.is_over
        slot.version = snapshot.version
        if self._adopting and slot.message_id is not None and slot.render is not None:
            if slot.sent is None:
                slot.sent = fingerprint(slot.render(self.wall_clock(), slot.screen))
            return
        self._changed(slot)

    def _changed(self, slot: Slot) -> None:
        """The slot's message is behind what it should show: since now, if it was not yet."""
        if slot.changed_at is None:
            slot.changed_at = asyncio.get_running_loop().time()
        self._schedule(slot)

    def _schedule(self, slot: Slot, *, urgent: bool = False) -> None:
        if self._closed:
            return  # handed over: the next leader delivers what is not shown
        slot.dirty = True
        slot.urgent = slot.urgent or urgent
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(slot))

    # -- flushing -----------------------------------------------------------------------

    async def _run(self, slot: Slot) -> None:
        """A slot's flushing task. It never dies unseen: anything unforeseen is logged with
        its context, and the slot is tried again a little later."""
        try:
            await self._flush(slot)
        except Exception:
            logger.exception(
                "Delivery of game %s's %s to chat %s failed; trying again in %.0f s",
                slot.game_id,
                "table" if slot.seat is None else f"panel of seat {slot.seat}",
                slot.chat_id,
                RETRY_DELAYS[-1],
            )
            slot.behind = True
            if slot.turn_taken:
                slot.turn_taken = False
                self.budget.put_back(slot.chat_id)
            asyncio.get_running_loop().call_later(RETRY_DELAYS[-1], self._schedule, slot)

    async def _flush(self, slot: Slot) -> None:
        while slot.dirty:
            if slot.unremembered:
                await self._remember(slot)
            loop = asyncio.get_running_loop()
            wait = self._free_at.get(slot.chat_id, 0.0) - loop.time()
            if wait > 0 and not slot.urgent:
                await asyncio.sleep(wait)
            # Our turn in the chat's budget (a group's game messages are paced there); what
            # is drawn is what is newest then.
            asked = loop.time()
            await self.budget.take(slot.chat_id, slot.ticket)
            metrics.waited(loop.time() - asked)
            slot.turn_taken = True
            slot.urgent = False
            slot.dirty = False
            await self._catch_up_with_others(slot)
            render = slot.render
            slot.behind = False
            content = (
                None
                if render is None or slot.unreachable
                else render(self.wall_clock(), slot.screen)
            )
            shown = None if content is None else fingerprint(content)
            # A change of "time left" alone is no reason to edit.
            if content is None or (shown == slot.sent and not slot.renew):
                slot.turn_taken = False
                slot.turn_since = None  # the message shows it already
                slot.changed_at = None
                self.budget.put_back(slot.chat_id)
                continue
            if self.sight.buried(slot) and not slot.final:
                self.pins.allowed(slot.chat_id, ask=True)  # pinned from now on, if it may
                slot.renew = True  # back into sight: sent anew, the old one deleted
                self.sight.brought_back(slot.game_id)
            if slot.private:
                self._free_at[slot.chat_id] = loop.time() + self.private_interval
            # The move this panel shows waits for its player since then (``None``: no move).
            waiting = slot.turn_started
            try:
                if await self._deliver(slot, content) and waiting is not None:
                    self.pings.notified(slot, waiting)
                slot.sent = shown
                slot.failures = 0
                if slot.changed_at is not None and slot.seat is None:
                    metrics.table_shown(loop.time() - slot.changed_at)
                slot.changed_at = None
                self.pins.keep_pinned(slot)
                await self._after_turn(slot)
            except BadRequest as error:
                # PTB files it under NetworkError, but sending it again changes nothing.
                logger.warning("Delivery to chat %s refused: %s", slot.chat_id, error)
                slot.behind = True
            except RetryAfter:
                # The budget is paused for the chat (the limiter logged it): the newest
                # state goes out when the pause is over.
                slot.dirty = True
            except NotLeading:
                # Another process leads now (the limiter said so once): it draws what the
                # database says is not shown.
                slot.behind = True
                return
            except NetworkError as error:
                if slot.failures >= len(RETRY_DELAYS):
                    logger.warning("Giving up on chat %s for now: %s", slot.chat_id, error)
                    metrics.given_up("behind")
                    slot.failures = 0
                    slot.behind = True
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
                slot.behind = True
        # Delivered: the snapshot is let go (a screen switch asks for it again) — unless a
        # ping may yet send it anew.
        if slot.turn_started is None:
            slot.render = None
        self._settled(slot)
        if slot.final:
            self._forget(slot)

    async def _after_turn(self, slot: Slot) -> None:
        """A panel that gave its player the move reached him: was it late?"""
        since, slot.turn_since = slot.turn_since, None
        if since is None or slot.ticket.priority is not Priority.TURN or self.on_late is None:
            return
        late = asyncio.get_running_loop().time() - since
        if late > LATE_AFTER:
            try:
                await self.on_late(slot.game_id, slot.version, late)
            except StorageRefused:
                pass  # the database refuses writes (logged once): the window stays as it was
            except Exception as error:  # the database is away: the window stays as it was
                logger.warning("Could not extend game %s's window: %s", slot.game_id, error)

    async def _catch_up_with_others(self, slot: Slot) -> None:
        """With several processes, the snapshot at hand may be older than the game: another
        process may have moved it while this edit waited for its chat. Draw the newest."""
        if self.newer is None or slot.render is None:
            return
        try:
            newer = await self.newer(slot.game_id, slot.version)
        except Exception as error:  # the database is away: draw what we have
            logger.warning("Could not check game %s for news: %s", slot.game_id, error)
            return
        if newer is not None:
            self.publish(newer)
            slot.dirty = False  # this very flush draws it

    def _forget(self, slot: Slot) -> None:
        self.pings.cancel(slot)
        for key, value in list(self._slots.items()):
            if value is slot:
                del self._slots[key]
        siblings = self._games.get(slot.game_id, [])
        if slot in siblings:
            siblings.remove(slot)
        if not siblings:
            self._games.pop(slot.game_id, None)
            self.sight.forget(slot.game_id)

    # -- what the chats show ------------------------------------------------------------

    def _settled(self, slot: Slot) -> None:
        """After a slot's flush: if every message of its game shows the game's newest
        version, note it for the next report."""
        current = asyncio.current_task()
        slots = self._games.get(slot.game_id, [slot])
        for other in slots:
            busy = other.task is not None and not other.task.done() and other.task is not current
            if other.dirty or other.behind or busy or other.version != slot.version:
                return
        self._shown[slot.game_id] = max(slot.version, self._shown.get(slot.game_id, 0))
        if self.on_shown is not None and (self._reporting is None or self._reporting.done()):
            self._reporting = asyncio.create_task(self._report_shown(SHOWN_EVERY))

    async def _report_shown(self, after: float) -> None:
        if after:
            await asyncio.sleep(after)
        shown, self._shown = self._shown, {}
        if shown and self.on_shown is not None:
            try:
                await self.on_shown(shown)
            except StorageRefused:
                # The database refuses writes for now (logged once): keep it for next time.
                for game_id, version in shown.items():
                    self._shown[game_id] = max(version, self._shown.get(game_id, 0))
            except Exception:
                logger.exception("Could not record which games are shown")

    async def _deliver(self, slot: Slot, content: Content) -> bool:
        """Edit the slot's message, or send it anew; a 403 hands a player's seat over.
        Whether it went out as a new message (one that notifies)."""
        try:
            return await self._edit_or_send(slot, content)
        except Forbidden as error:
            slot.unreachable = True
            logger.warning("Cannot message chat %s: %s", slot.chat_id, error)
            if slot.seat is not None and self.on_unreachable is not None:
                await self.on_unreachable(slot.game_id, slot.seat)
            return False

    async def _edit_or_send(self, slot: Slot, content: Content) -> bool:
        """Edit the slot's message in place, or send it as a new one (then True)."""
        shown: dict[str, Any] = {
            "chat_id": slot.chat_id,
            "text": content.text,
            "parse_mode": "HTML",
            "link_preview_options": NO_PREVIEW,
        }
        markup = markup_json(content.keyboard)
        if markup is not None:
            shown["reply_markup"] = markup
        retired = slot.message_id if slot.renew else None
        if slot.message_id is not None and not slot.renew:
            try:
                edit = {**shown, "message_id": slot.message_id}
                await self._call(slot, "editMessageText", edit)
                return False
            except BadRequest as error:
                message = error.message.lower()
                if "not modified" in message:
                    return False
                if not any(gone in message for gone in _GONE):
                    raise
                logger.info(
                    "Message %s in chat %s is gone; sending a new one",
                    slot.message_id,
                    slot.chat_id,
                )
        if slot.thread_id is not None:
            shown["message_thread_id"] = slot.thread_id
        sent = await self._call(slot, "sendMessage", shown)
        slot.message_id, slot.renew, slot.pinned = int(sent["message_id"]), False, False
        await self._remember(slot)
        if retired is not None:
            await self._retire(slot, retired)
        return True

    async def _retire(self, slot: Slot, message_id: int) -> None:
        """Delete a message a newer copy replaces (its buttons are refused as outdated
        anyway); one Telegram will not delete (too old) simply stays."""
        chat_id = slot.chat_id
        try:
            # Not on the game's pace: the copy that replaces it took the table's turn.
            data = {"chat_id": chat_id, "message_id": message_id}
            await self._call(slot, "deleteMessage", data, paced=False)
        except TelegramError as error:
            logger.info("Could not delete message %s in chat %s: %s", message_id, chat_id, error)

    async def _call(
        self, slot: Slot, endpoint: str, data: dict[str, Any], *, paced: bool = True
    ) -> Any:
        """One Bot API call with the request built here, not by PTB's method and objects.

        ``Bot._post`` is the step under every ``Bot.send_message``/``edit_message_text``:
        through ``ExtBot``'s rate limiter and PTB's request, which raise ``BadRequest``,
        ``Forbidden``, ``RetryAfter`` and ``ChatMigrated`` as usual — without building
        ``InlineKeyboardMarkup`` objects for the request and a ``Message`` from the answer,
        which took most of an edit's time. (``Bot.do_api_request`` is the public door to
        the same step, but warns on every call to a method PTB knows.)
        """
        taken, slot.turn_taken = slot.turn_taken, False
        with calling(slot.ticket.priority, taken=taken, paced=paced):
            return await self.bot._post(endpoint, data)

    async def _remember(self, slot: Slot) -> None:
        """Record the message's id, which binds its buttons to the game. If the database
        refuses to write now, it is recorded at the slot's next flush (one is due soon)."""
        try:
            if slot.seat is None:
                await self._remember_table(slot.game_id, slot.message_id)
            else:
                await self._remember_panel(slot.game_id, slot.seat, slot.message_id)
        except StorageRefused:
            if not slot.unremembered:
                slot.unremembered = True
                asyncio.get_running_loop().call_later(RETRY_DELAYS[-1], self._schedule, slot)
            return
        slot.unremembered = False

    # -- lifecycle ----------------------------------------------------------------------

    async def drain(self) -> None:
        """Wait until nothing is left to send (tests, shutdown) — the notes it handed over
        too — and report what is shown."""
        outbox = self.outbox
        while True:
            tasks = [s.task for s in self._slots.values() if s.task and not s.task.done()]
            if not tasks and not self.notes.busy and not (outbox is not None and outbox.busy):
                break
            await asyncio.gather(*tasks, return_exceptions=True)
            if outbox is not None:
                await outbox.drain()
            await self.notes.drain()
        if self._reporting is not None and not self._reporting.done():
            self._reporting.cancel()
        await self._report_shown(0)

    async def close(self) -> None:
        """Stop every delivery: all are cancelled at once, then awaited; what was fully
        shown by then is reported."""
        self._closed = True
        for slot in self._slots.values():
            self.pings.cancel(slot)
        tasks = [s.task for s in self._slots.values() if s.task and not s.task.done()]
        if self._reporting is not None and not self._reporting.done():
            tasks.append(self._reporting)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._report_shown(0)

    def __len__(self) -> int:
        return len(self._slots)


def result_note(snapshot: GameSnapshot) -> Note | None:
    """A finished game's result — places, scores, ratings — as a message of its own in its
    group: it notifies, as the table's last edit does not. ``None`` for a game with none."""
    if snapshot.outcome is None:
        return None
    content = result_content(translator(snapshot.chat_language), snapshot)
    call = message_call(snapshot.chat_id, content.text, topic=snapshot.topic_id)
    share = ("game", snapshot.game_id)
    what = f"result of game {snapshot.game_id}"
    return Note(snapshot.chat_id, call, Priority.TABLE, share, must=True, what=what)


def below(content: Content, button: Button | None) -> Content:
    """``content`` with ``button`` (if any) in a row of its own under its keyboard."""
    if button is None:
        return content
    return dataclasses.replace(content, keyboard=(*content.keyboard, (button,)))
