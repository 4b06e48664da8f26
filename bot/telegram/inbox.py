"""Updates in, durably: a webhook post or a long poll is stored in the inbox before Telegram
hears it arrived (:class:`WebhookHandler`, :func:`poll`), and the leader hands what is stored
to the handlers (:class:`InboxReader`): one chat's updates one after another, in Telegram's
order, chats side by side. Any process may take updates; only the leader reads them.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import hmac
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from telegram import Bot, Update
from telegram.error import NetworkError, RetryAfter, TimedOut
from tornado.web import RequestHandler

from bot.services.inbox import InboxService, Stored
from bot.telegram import metrics
from bot.telegram.intake import Intake
from bot.telegram.sender.limiter import retry_seconds

logger = logging.getLogger(__name__)

#: Updates read from the inbox in one page (a look reads page after page, each after the
#: last id of the one before).
PAGE = 200
#: Updates held at most (handed over, waiting for their chat, or handled and not yet
#: marked): a backlog is read in slices of this many, in order, never whole.
MAX_HELD = 2000
#: Seconds between two looks at the inbox when nothing announces an update (a standby's
#: announcement can be lost with a connection; a look is one indexed read).
LOOK_EVERY = 1.0
#: Seconds the handled updates gather before they are marked in one statement.
DONE_EVERY = 0.05
#: Seconds a long poll waits at Telegram for an update.
POLL_TIMEOUT = 10
#: The largest webhook post taken (Telegram's updates are a few kilobytes).
MAX_POST_BYTES = 1 << 20
#: The field of an update of the bot's own making (a Mini App press): never from Telegram.
OWN_FIELD = "cardroom_app"


class InboxReader:
    """Stores updates, and — while this process leads — hands them to the application.

    ``Update`` objects go to python-telegram-bot's update queue; its processor
    (:class:`~bot.telegram.intake.Intake`) says when each has been handled, and only then is
    the next update of the same chat handed over: one chat's updates one after another, in
    ``update_id`` order, whichever process stored them.

    The leader hands over what it takes itself at once, without reading it back — unless an
    earlier update of the same chat, stored by another process, has not been read here yet
    (the take asks, in its own transaction). Such a chat is *held*: its updates wait until a
    look at the inbox that started after the hold has read past them, and then go in order.
    """

    def __init__(self, inbox: InboxService, bot: Bot, queue: asyncio.Queue[object]) -> None:
        self.inbox = inbox
        self.bot = bot
        self.queue = queue
        self.intake: Intake | None = None
        self.leading = False
        #: Updates known here and not yet marked handled (handed over, waiting for their
        #: chat, or held): id → chat.
        self._in_hand: dict[int, int | None] = {}
        #: Each chat's updates waiting for it, lowest id first (a heap).
        self._waiting: dict[int, list[tuple[int, Stored]]] = {}
        #: Chats with an update handed over and not handled yet.
        self._busy: set[int] = set()
        #: Held chats: how many looks had started when the chat was held, and its highest
        #: update id held.
        self._held: dict[int, tuple[int, int]] = {}
        #: Looks started so far.
        self._looks = 0
        #: The last look stopped at :data:`MAX_HELD` (the next one comes once half is done).
        self._capped = False
        #: One process on the database (SQLite), and its last look read every update stored:
        #: whatever is stored now, this process stored while leading, and knows.
        self._read_all = False
        self._done: list[int] = []
        self._flushing: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def attach(self, intake: Intake) -> None:
        self.intake = intake
        intake.on_handled = self._handled

    async def take(self, payloads: Sequence[Mapping[str, Any]], via: metrics.Via) -> None:
        """Store updates (committed when this returns); the leader hands the new ones over at
        once, in order after any earlier update of their chats not yet read here."""
        leading = self.leading
        if leading and (self.inbox.shared or not self._read_all):
            taken = await self.inbox.take_with_earlier(payloads)
            new, earlier = taken.new, taken.earlier
        else:
            # A standby; or the one process, which knows every update it has not handled.
            new, earlier = await self.inbox.take(payloads), []
        for _ in new:
            metrics.update_taken(via)
        if not self.leading:
            return
        if not leading:
            # Taken before this process led: a look reads them, in order.
            self._read_all = False
            self.wake()
            return
        self._admit(new, earlier)

    def wake(self) -> None:
        """Another process stored updates: look at the inbox now."""
        self._wake.set()

    # -- leading --------------------------------------------------------------------------

    def start(self) -> None:
        self.leading = True
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._read(), name="inbox")

    def halt(self) -> None:
        """Hand over nothing more, from now on: what waits for its chat stays in the inbox,
        for the next leader; what was handed over may finish (and is marked by :meth:`stop`)."""
        self.leading = False
        self._read_all = False
        self.wake()  # the reading ends after the look in hand (a query is not cut short)
        for waiting in self._waiting.values():
            for update_id, _ in waiting:
                self._in_hand.pop(update_id, None)
        self._waiting.clear()
        self._held.clear()

    async def stop(self) -> None:
        """:meth:`halt`, and mark what was handled."""
        self.halt()
        task, self._task = self._task, None
        if task is not None:
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                task.cancel()  # stopping was cut short: the reading goes too
                raise
        if self._flushing is not None:
            with contextlib.suppress(Exception):
                await self._flushing
        await self._mark_done()

    async def _read(self) -> None:
        while self.leading:
            self._wake.clear()  # what is announced from now on, the next look reads
            try:
                await self._look()
                if self.leading:
                    metrics.inbox_waiting(await self.inbox.oldest() if self._in_hand else None)
            except Exception as error:
                logger.warning("Could not read the inbox (%s); looking again soon", error)
            if not self._wake.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), LOOK_EVERY)

    async def _look(self) -> None:
        """Read what waits in the inbox, page after page in ``update_id`` order (at most
        :data:`MAX_HELD` held here), and hand over what was not known here; then free the
        held chats this look has read past."""
        self._looks += 1
        look = self._looks
        after: int | None = None
        read_to = -math.inf
        capped = False
        while not capped and self.leading:
            page = await self.inbox.pending(PAGE, after)
            for update in page:
                if update.update_id not in self._in_hand and len(self._in_hand) >= MAX_HELD:
                    capped = True
                    break
                self._hand_over(update)
                read_to = update.update_id
            if len(page) < PAGE:
                break
            after = page[-1].update_id
        if not capped:
            read_to = math.inf
        self._capped = capped
        self._read_all = not capped and not self.inbox.shared and self.leading
        for chat, (held_at, highest) in list(self._held.items()):
            if held_at < look and highest <= read_to:
                del self._held[chat]
                if chat not in self._busy:
                    self._start_next(chat)

    def _admit(self, new: Sequence[Stored], earlier: Sequence[tuple[int, int]] | None) -> None:
        """Hand over what this process has just taken, in order — or hold its chat, if an
        earlier update of the chat is not known here yet (``earlier`` lists those stored
        before; ``None``: too many to list), and look at the inbox at once."""
        unread: dict[int, list[int]] = {}
        for update_id, of in earlier or ():
            unread.setdefault(of, []).append(update_id)
        held = False
        for update in sorted(new, key=lambda u: u.update_id):
            chat = update.chat_id
            if chat is not None and (
                earlier is None
                or chat in self._held
                or any(
                    other < update.update_id and other not in self._in_hand
                    for other in unread.get(chat, ())
                )
            ):
                self._hold(update, chat)
                held = True
            else:
                self._hand_over(update)
        if held:
            self.wake()

    def _hold(self, update: Stored, chat: int) -> None:
        if update.update_id in self._in_hand:
            return
        self._in_hand[update.update_id] = chat
        heapq.heappush(self._waiting.setdefault(chat, []), (update.update_id, update))
        _, highest = self._held.get(chat, (0, update.update_id))
        self._held[chat] = (self._looks, max(highest, update.update_id))

    def _hand_over(self, update: Stored) -> None:
        if update.update_id in self._in_hand or not self.leading:
            return
        chat = update.chat_id
        self._in_hand[update.update_id] = chat
        if chat is None:
            self._enqueue(update)
            return
        if chat in self._busy or chat in self._held:
            heapq.heappush(self._waiting.setdefault(chat, []), (update.update_id, update))
            return
        if self._enqueue(update):
            self._busy.add(chat)

    def _enqueue(self, stored: Stored) -> bool:
        """Put the update in the application's queue; ``False``: it cannot be read (it is
        dropped, marked handled)."""
        try:
            update = Update.de_json(stored.payload, self.bot)
        except Exception as error:
            logger.warning("Update %s cannot be read (%s); dropped", stored.update_id, error)
            self._finished(stored.update_id)
            return False
        if self.intake is not None:
            self.intake.from_inbox(stored.update_id)
        self.queue.put_nowait(update)
        return True

    def _handled(self, update_id: int) -> None:
        """An update was handled: marked soon; its chat's next one is handed over."""
        self._finished(update_id)
        chat = self._in_hand.get(update_id)
        if chat is not None:
            self._start_next(chat)

    def _start_next(self, chat: int) -> None:
        """The chat has no update in hand: hand over its next one, if one waits and may go."""
        self._busy.discard(chat)
        waiting = self._waiting.get(chat)
        while waiting and self.leading and chat not in self._held:
            _, following = heapq.heappop(waiting)
            if self._enqueue(following):
                self._busy.add(chat)
                break
        if not waiting:
            self._waiting.pop(chat, None)

    def _finished(self, update_id: int) -> None:
        metrics.update_handled()
        self._done.append(update_id)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(DONE_EVERY)
        await self._mark_done()

    async def _mark_done(self) -> None:
        done, self._done = self._done, []
        if not done:
            return
        try:
            await self.inbox.done(done)
        except Exception as error:
            # Still in hand: not read again; marked with the next batch.
            logger.warning("Could not mark %d updates handled (%s)", len(done), error)
            self._done.extend(done)
            return
        for update_id in done:
            self._in_hand.pop(update_id, None)
        if self._capped and len(self._in_hand) <= MAX_HELD // 2:
            self._capped = False
            self.wake()  # the rest of the backlog, the next slice


class WebhookHandler(RequestHandler):
    """Telegram's post of an update: answered 200 only once the update is stored (a post
    that could not be stored gets 503, and Telegram posts it again)."""

    SUPPORTED_METHODS = ("POST",)

    def initialize(self, secret: str, reader: InboxReader) -> None:
        self.secret = secret.encode()
        self.reader = reader

    async def post(self) -> None:
        given = self.request.headers.get("X-Telegram-Bot-Api-Secret-Token", "").encode()
        if not hmac.compare_digest(given, self.secret):
            self.send_error(403)
            return
        try:
            payload = orjson.loads(self.request.body)
        except orjson.JSONDecodeError:
            payload = None
        update_id = payload.get("update_id") if isinstance(payload, dict) else None
        if (
            not isinstance(update_id, int)
            or isinstance(update_id, bool)
            or update_id <= 0  # Telegram's are positive; the bot's own (Mini App) are not
            or OWN_FIELD in payload
        ):
            self.send_error(400)
            return
        try:
            await self.reader.take([payload], "webhook")
        except Exception as error:
            logger.warning(
                "Could not store update %s (%s); Telegram posts it again", update_id, error
            )
            self.send_error(503)
            return
        self.set_status(200)
        await self.finish()


async def poll(bot: Bot, reader: InboxReader, allowed_updates: Sequence[str]) -> None:
    """Long polling: each batch of updates is stored before the next ``getUpdates`` (whose
    offset tells Telegram they arrived). Runs until cancelled."""
    offset: int | None = None
    pause = 1.0
    while True:
        try:
            updates = await bot.get_updates(
                offset=offset, timeout=POLL_TIMEOUT, allowed_updates=list(allowed_updates)
            )
        except RetryAfter as error:
            await asyncio.sleep(retry_seconds(error))
            continue
        except TimedOut:
            continue
        except NetworkError as error:
            logger.warning("Polling Telegram failed (%s); trying again in %.0f s", error, pause)
            await asyncio.sleep(pause)
            pause = min(30.0, pause * 2)
            continue
        pause = 1.0
        if not updates:
            continue
        payloads = [update.to_dict() for update in updates]
        while True:
            try:
                await reader.take(payloads, "polling")
                break
            except Exception as error:
                # Not acknowledged: Telegram keeps them until they are stored.
                logger.warning(
                    "Could not store %d updates (%s); trying again", len(payloads), error
                )
                await asyncio.sleep(1.0)
        offset = updates[-1].update_id + 1
