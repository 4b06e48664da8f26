"""Updates in, durably: a webhook post or a long poll is stored in the inbox before Telegram
hears it arrived (:class:`WebhookHandler`, :func:`poll`), and the leader hands what is stored
to the handlers (:class:`InboxReader`): one chat's updates one after another, in Telegram's
order, chats side by side. Any process may take updates; only the leader reads them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections import deque
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

#: Updates read from the inbox at once.
BATCH = 200
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
    the next update of the same chat handed over.
    """

    def __init__(self, inbox: InboxService, bot: Bot, queue: asyncio.Queue[object]) -> None:
        self.inbox = inbox
        self.bot = bot
        self.queue = queue
        self.intake: Intake | None = None
        self.leading = False
        #: Updates handed over or waiting for their chat, not yet marked handled: id → chat.
        self._in_hand: dict[int, int | None] = {}
        self._waiting: dict[int, deque[Stored]] = {}
        self._busy: set[int] = set()
        self._done: list[int] = []
        self._flushing: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def attach(self, intake: Intake) -> None:
        self.intake = intake
        intake.on_handled = self._handled

    async def take(self, payloads: Sequence[Mapping[str, Any]], via: metrics.Via) -> None:
        """Store updates (committed when this returns); the leader hands the new ones over at
        once, without reading them back."""
        stored = await self.inbox.take(payloads)
        for _ in stored:
            metrics.update_taken(via)
        if self.leading:
            for update in stored:
                self._hand_over(update)

    def wake(self) -> None:
        """Another process stored updates: look at the inbox now."""
        self._wake.set()

    # -- leading --------------------------------------------------------------------------

    def start(self) -> None:
        self.leading = True
        if self._task is None:
            self._task = asyncio.create_task(self._read(), name="inbox")

    async def stop(self) -> None:
        """Hand over nothing more; what was handled is marked."""
        self.leading = False
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._flushing is not None:
            with contextlib.suppress(Exception):
                await self._flushing
        await self._mark_done()

    async def _read(self) -> None:
        while True:
            full = False
            try:
                waiting = await self.inbox.pending(BATCH, list(self._in_hand))
                for update in waiting:
                    self._hand_over(update)
                full = len(waiting) == BATCH
                metrics.inbox_waiting(await self.inbox.oldest() if self._in_hand else None)
            except Exception as error:
                logger.warning("Could not read the inbox (%s); looking again soon", error)
            if not full:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), LOOK_EVERY)
                self._wake.clear()

    def _hand_over(self, update: Stored) -> None:
        if update.update_id in self._in_hand or not self.leading:
            return
        chat = update.chat_id
        self._in_hand[update.update_id] = chat
        if chat is not None:
            if chat in self._busy:
                self._waiting.setdefault(chat, deque()).append(update)
                return
            self._busy.add(chat)
        self._enqueue(update)

    def _enqueue(self, stored: Stored) -> None:
        try:
            update = Update.de_json(stored.payload, self.bot)
        except Exception as error:
            logger.warning("Update %s cannot be read (%s); dropped", stored.update_id, error)
            self._handled(stored.update_id)
            return
        if self.intake is not None:
            self.intake.from_inbox(stored.update_id)
        self.queue.put_nowait(update)

    def _handled(self, update_id: int) -> None:
        """An update was handled: marked soon; its chat's next one is handed over."""
        metrics.update_handled()
        self._done.append(update_id)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush_soon())
        chat = self._in_hand.get(update_id)
        if chat is None:
            return
        waiting = self._waiting.get(chat)
        if waiting:
            following = waiting.popleft()
            if not waiting:
                del self._waiting[chat]
            self._enqueue(following)
        else:
            self._busy.discard(chat)

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
