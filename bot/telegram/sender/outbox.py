"""Delivering the outbox: every letter the bot decided to write, from the database.

A handler hands what it says over as a letter (:meth:`Outbox.post`): collected with the update
being handled and written when the handler is done, in one transaction with the update's mark
(:mod:`bot.services.outbox`); a game's result is written by the transaction that ends the game.
Once written, the leader's :class:`Outbox` reads the letters back in order — at once when one
of its own transactions wrote some, and every few seconds anyway (another process, a failover,
a letter a reader skipped) — hands each to the notes (:mod:`bot.telegram.sender.notes`) as a
note, and marks it delivered with what became of it. A letter is read again only if nobody
marked it: a process that stops, is killed or loses the lead leaves its letters to the next
leader. (One that was sent the moment before the process died may then be sent twice; none is
lost.) A letter past its time to live (information nobody waits for any more) is dropped, said
in the log, as any note is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Mapping
from typing import Any

from bot.services.inbox import AlreadyHandled
from bot.services.outbox import CALL, PAGE, Letter, OutboxService, PendingLetter, Settled
from bot.services.recent import Recent
from bot.services.types import ServiceError, StorageRefused
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, Notes, Outcome, tidy_note

logger = logging.getLogger(__name__)

#: Seconds between two full reads of the outbox (letters written by another process, or
#: skipped: a transaction that committed after a later one).
SWEEP_EVERY = 3.0
#: Seconds between two writes of what became of letters.
SETTLE_EVERY = 0.2
#: Seconds to wait before reading again when the database cannot be read.
RETRY_AFTER = 2.0
#: Delivered letters are kept this long (what became of each, for whoever looks), then go...
KEEP_DELIVERED = 24 * 3600.0
#: ... looked for this often (a sweep every few seconds need not delete every time).
FORGET_EVERY = 600.0

#: Messages remembered as tidied (a message tidied long ago is gone anyway).
TIDIED = 10_000
#: Seconds within which a message is tidied once, however often it is asked for; past them
#: it may be asked again (the first call may have been dropped in a busy chat, or failed).
TIDY_AGAIN_AFTER = 60.0
#: Follow-ups waited for at most (:meth:`Outbox.expect`).
EXPECTED_AT_MOST = 10_000

#: Draws a letter of a kind of its own (a game's result…) as a note: ``None``, nothing to say.
Draw = Callable[[PendingLetter], Awaitable[Note | None]]
#: Done once a letter is settled, with what became of it (a greeting that seats its reader);
#: what it returns goes to whoever in this process waits for it (:meth:`Outbox.expect`).
FollowUp = Callable[[Mapping[str, Any], Outcome], Awaitable[Any]]


def letter_of(
    note: Note,
    *,
    menu: tuple[int, str] | None = None,
    private_first: bool = False,
    then: Mapping[str, Any] | None = None,
) -> Letter:
    """A note as a letter to write: its call and everything that says how it goes.

    ``menu``: it is a board or a picker (topic, kind), whose message the menus keep;
    ``private_first``: it goes straight to its asker's private chat (its group has had its
    share); ``then``: a follow-up to do once it is settled (``{"do": name, …}``)."""
    body: dict[str, Any] = {
        "call": list(note.call),
        "priority": int(note.priority),
        "share": note.share,
        "key": note.key,
        "asker": note.asker,
        "private": note.private_text,
        "must": note.must,
        "paced": note.paced,
        "quiet": note.quiet,
        "what": note.what,
    }
    if menu is not None:
        body["menu"] = list(menu)
    if private_first:
        body["private_first"] = True
    if then is not None:
        body["then"] = dict(then)
    return Letter(note.chat_id, body, CALL)


def _hashable(value: Any) -> Hashable:
    """A share or key read back from JSON: its lists as tuples again."""
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    return value  # type: ignore[no-any-return]


def note_of(letter: Letter) -> Note:
    """A call letter (:func:`letter_of`) as the note it was."""
    body = letter.body
    endpoint, data = body["call"]
    return Note(
        letter.chat_id,
        (endpoint, data),
        Priority(body.get("priority", Priority.REPLY)),
        share=_hashable(body.get("share")),
        key=_hashable(body.get("key")),
        asker=body.get("asker"),
        private_text=body.get("private"),
        must=bool(body.get("must", False)),
        paced=bool(body.get("paced", True)),
        quiet=bool(body.get("quiet", False)),
        what=str(body.get("what") or "a message"),
    )


class Outbox:
    """The leader's postman: reads the outbox, hands each letter to the notes, marks it."""

    def __init__(
        self,
        service: OutboxService,
        notes: Notes,
        *,
        clock: Callable[[], float] = time.time,
        sweep_every: float = SWEEP_EVERY,
    ) -> None:
        self.service = service
        self.notes = notes
        self.clock = clock
        self.sweep_every = sweep_every
        #: How letters of a kind of their own are drawn (``kind`` → draw), set by the
        #: composition root.
        self.draws: dict[str, Draw] = {}
        #: Follow-ups by name (``then["do"]``), set by the composition root.
        self.follow_ups: dict[str, FollowUp] = {}
        #: Told of a board's or picker's message once sent: chat, topic, kind, message id.
        self.on_menu: Callable[[int, int, str, int], None] | None = None
        self._in_flight: set[int] = set()
        self._last = 0
        self._wake = asyncio.Event()
        self._sweep_at = 0.0
        #: When delivered letters of old are next dropped (loop time).
        self._forget_at = 0.0
        self._reader: asyncio.Task[None] | None = None
        self._reading = False
        self._settled: list[Settled] = []
        self._settling: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Messages a tidy call was set off for, and when: (chat, message) — those of late.
        self._tidied: Recent[tuple[int, int], float] = Recent(TIDIED)
        #: Who waits for a follow-up's result, by the token in its ``then``.
        self._expected: dict[str, asyncio.Future[Any]] = {}
        #: Letters posted outside any update, to be written (:meth:`_write`).
        self._unwritten: list[Letter] = []
        self._writing: asyncio.Task[None] | None = None
        self._closed = False
        self._told_unreadable = False
        #: Letters delivered (settled) so far.
        self.delivered = 0

    # -- writing ----------------------------------------------------------------------------

    def post(self, letter: Letter) -> None:
        """Say ``letter``: written with the update being handled, when its handler is done —
        or at once, in the background, outside any update (a task of the sender's)."""
        if self.service.post(letter):
            return
        self._unwritten.append(letter)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write())

    def tidy(self, endpoint: str, chat_id: int, message_id: int) -> None:
        """Delete a message, or take its buttons off, once a while — an old message pressed
        again and again before the call lands costs its chat one call, not one a press; one
        pressed after :data:`TIDY_AGAIN_AFTER` asks again, as a call dropped in a busy chat
        would otherwise leave its buttons for good — and as best it can be done: one too old
        or already gone stays as it is."""
        key, now = (chat_id, message_id), self.clock()
        if now - self._tidied.get(key, now - TIDY_AGAIN_AFTER) < TIDY_AGAIN_AFTER:
            return
        self._tidied[key] = now
        self.post(letter_of(tidy_note(endpoint, chat_id, message_id)))

    async def write(self, letter: Letter) -> None:
        """Write ``letter`` now (a handler that waits for what follows it: a greeting)."""
        await self.record([letter])

    async def record(self, letters: list[Letter]) -> None:
        """Write letters in one transaction — an update's, collected while it was handled: the
        one that marks it, if none of its writes did (a redelivery's raises
        :class:`~bot.services.inbox.AlreadyHandled`). If the database refuses them (an
        outage), what can be said is said all the same, from memory (:meth:`_say_unwritten`)."""
        try:
            await self.service.record(letters)
        except AlreadyHandled:
            raise
        except Exception as error:
            self._say_unwritten(letters, error)

    def _say_unwritten(self, letters: list[Letter], error: Exception) -> None:
        """Letters the database would not take: sent from memory, as best they can be — the
        refusal of a press during an outage must still be heard — but kept nowhere."""
        # An outage is said once, where it is noticed; anything else is said here.
        level = logging.DEBUG if isinstance(error, StorageRefused) else logging.WARNING
        logger.log(
            level, "%d messages could not be written (%s); sent unrecorded", len(letters), error
        )
        for letter in letters:
            if letter.kind == CALL and not self._closed:
                note = note_of(letter)
                if letter.body.get("private_first"):
                    self.notes.post_private(note)
                else:
                    self.notes.post(note)

    def expect(self, token: str) -> asyncio.Future[Any]:
        """What the follow-up of the letter whose ``then`` carries ``token`` returns, when it
        runs in this process (a letter another process delivers leaves it waiting)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._expected[token] = future
        if len(self._expected) > EXPECTED_AT_MOST:
            # The oldest waits for a letter that went elsewhere (a failover): nobody still does.
            oldest = next(iter(self._expected))
            self._expected.pop(oldest).cancel()
        return future

    async def _write(self) -> None:
        """Write the letters posted outside any update, in the order they were posted."""
        while self._unwritten:
            batch, self._unwritten = self._unwritten, []
            await self.record(batch)

    # -- reading ----------------------------------------------------------------------------

    def start(self) -> None:
        """Deliver from now on (this process leads): everything not delivered yet first."""
        if self._reader is None and not self._closed:
            self._sweep_at = 0.0
            self._reader = asyncio.create_task(self._read(), name="outbox")

    def wake(self) -> None:
        """Letters were written: read them now."""
        self._wake.set()

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed:
            self._wake.clear()
            self._reading = True
            try:
                await self._read_once(sweep=loop.time() >= self._sweep_at)
                self._told_unreadable = False
            except Exception as error:
                level = logging.DEBUG if self._told_unreadable else logging.WARNING
                logger.log(level, "Could not read the outbox (%s); reading again soon", error)
                self._told_unreadable = True
                self._sweep_at = loop.time() + RETRY_AFTER
            finally:
                self._reading = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, self._sweep_at - loop.time())):
                    await self._wake.wait()

    async def _read_once(self, *, sweep: bool) -> None:
        """Hand over the letters written since the last read — or, in a sweep, every letter
        not delivered that is not on its way already."""
        cursor = 0 if sweep else self._last
        while True:
            page = await self.service.pending(cursor)
            for pending in page:
                if pending.id not in self._in_flight:
                    self._take(pending)
            if page:
                cursor = page[-1].id
                self._last = max(self._last, cursor)
            if len(page) < PAGE:
                break
        if sweep:
            now = asyncio.get_running_loop().time()
            self._sweep_at = now + self.sweep_every
            if now >= self._forget_at:
                self._forget_at = now + FORGET_EVERY
                self._spawn(self._forget_old())

    def _take(self, pending: PendingLetter) -> None:
        self._in_flight.add(pending.id)
        letter = pending.letter
        if letter.kind == CALL:
            self._hand_over(pending, note_of(letter))
            return
        draw = self.draws.get(letter.kind)
        if draw is None:
            logger.warning("A letter of kind %r has nobody to draw it; dropped", letter.kind)
            self._settle(pending, "failed", None)
            return
        self._spawn(self._draw(pending, draw))

    async def _draw(self, pending: PendingLetter, draw: Draw) -> None:
        try:
            note = await draw(pending)
        except ServiceError as error:  # what it speaks of is gone: nothing to say
            logger.info(
                "Letter %s (%s of game %s) has nothing to say (%s); dropped",
                pending.id,
                pending.letter.kind,
                pending.letter.game_id,
                error.code,
            )
            self._settle(pending, "failed", None)
            return
        except Exception as error:  # the database is away: read again at the next sweep
            logger.warning(
                "Letter %s (%s of game %s) could not be drawn (%s); trying again soon",
                pending.id,
                pending.letter.kind,
                pending.letter.game_id,
                error,
            )
            self._in_flight.discard(pending.id)
            return
        if note is None:
            self._settle(pending, "dropped", None)
        else:
            # Drawn now, from what the database holds now: its time to live counts from here.
            self._hand_over(pending, note, drawn=True)

    def _hand_over(self, pending: PendingLetter, note: Note, *, drawn: bool = False) -> None:
        letter = pending.letter
        sent: list[int] = []
        menu = letter.body.get("menu")

        def on_sent(answer: object) -> None:
            if isinstance(answer, dict) and isinstance(answer.get("message_id"), int):
                sent.append(answer["message_id"])
                if menu is not None and self.on_menu is not None:
                    self.on_menu(letter.chat_id, int(menu[0]), str(menu[1]), answer["message_id"])

        note.on_sent = on_sent
        age = 0.0 if drawn else max(0.0, self.clock() - pending.created_at)
        if letter.body.get("private_first"):
            self.notes.post_private(note)
        else:
            self.notes.post(note)
        # Its time to live counts from when it was decided, not from when it was read back.
        note.created = min(note.created, self.notes.budget.now() - age)

        def settled(outcome: asyncio.Future[Outcome]) -> None:
            if self._closed or outcome.cancelled() or outcome.result() is Outcome.ABANDONED:
                return  # stopped, or no longer leading: the next leader delivers it
            said = outcome.result()
            message_id = sent[0] if sent else None
            then = letter.body.get("then")
            if then is not None and then.get("do") in self.follow_ups:
                self._spawn(self._follow_up(pending, then, said, message_id))
            else:
                self._settle(pending, said.value, message_id)

        note.outcome.add_done_callback(settled)

    async def _follow_up(
        self,
        pending: PendingLetter,
        then: Mapping[str, Any],
        said: Outcome,
        message_id: int | None,
    ) -> None:
        """A letter's follow-up, then the letter is marked: one stopped between the two is
        settled by the next leader, the letter sent again and the follow-up done again."""
        waiter = self._expected.pop(str(then.get("token")), None)
        try:
            result = await self.follow_ups[then["do"]](then, said)
        except Exception:
            logger.exception("The follow-up %r of letter %s failed", then.get("do"), pending.id)
            result = None
        if waiter is not None and not waiter.done():
            waiter.set_result(result)
        self._settle(pending, said.value, message_id)

    # -- marking ----------------------------------------------------------------------------

    def _settle(self, pending: PendingLetter, said: str, message_id: int | None) -> None:
        self._settled.append(Settled(pending.id, said, message_id))
        if self._settling is None or self._settling.done():
            self._settling = asyncio.create_task(self._write_settled(SETTLE_EVERY))

    async def _write_settled(self, after: float) -> None:
        if after:
            await asyncio.sleep(after)
        batch, self._settled = self._settled, []
        if not batch:
            return
        try:
            await self.service.settle(batch)
        except Exception as error:
            # Still in flight here: not handed over again; written with the next batch.
            logger.warning("Could not mark %d letters delivered (%s)", len(batch), error)
            self._settled[:0] = batch
            if not self._closed:
                await asyncio.sleep(RETRY_AFTER)
                self._settling = asyncio.create_task(self._write_settled(0))
            return
        self.delivered += len(batch)
        for settled in batch:
            self._in_flight.discard(settled.letter_id)

    async def _forget_old(self) -> None:
        try:
            await self.service.forget_delivered(KEEP_DELIVERED)
        except Exception as error:
            logger.info("Could not drop old delivered letters: %s", error)

    # -- lifecycle --------------------------------------------------------------------------

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def busy(self) -> bool:
        """Whether a letter is still on its way (or about to be read)."""
        return bool(
            self._in_flight
            or self._tasks
            or (self._writing is not None and not self._writing.done())
            or self._reading
            or self._wake.is_set()
            or (self._settling is not None and not self._settling.done())
        )

    async def drain(self) -> None:
        """Wait until every letter written so far is delivered and marked (tests, shutdown)."""
        while self.busy:
            if self._writing is not None and not self._writing.done():
                await asyncio.gather(self._writing, return_exceptions=True)
            elif self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
            elif self._settling is not None and not self._settling.done():
                await asyncio.gather(self._settling, return_exceptions=True)
            elif self._in_flight and not self._reading and not self._wake.is_set():
                await self.notes.drain()
                await asyncio.sleep(0.005)
            else:
                await asyncio.sleep(0.005)
            if self._reader is None:
                return

    async def close(self) -> None:
        """Stop delivering: what was settled is marked; the rest is the next leader's."""
        self._closed = True
        for waiter in self._expected.values():
            waiter.cancel()
        self._expected.clear()
        if self._writing is not None and not self._writing.done():
            # What was posted is written (briefly): the next leader sends it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._writing), 1.0)
        tasks = [t for t in (self._reader, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._settling is not None and not self._settling.done():
            self._settling.cancel()
            await asyncio.gather(self._settling, return_exceptions=True)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await self._write_settled(0)
