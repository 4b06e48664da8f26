"""One-off messages: replies, board pages, rules, results, greetings and tidy calls.

A message the bot keeps up to date (a table, a panel) is a slot of the publisher
(:mod:`bot.telegram.sender.live`); everything else it says or changes in a chat is a *note*.
A handler hands a note over (:meth:`Notes.post`) and returns at once: nothing it does waits for
a chat's budget. Each chat with notes to send has one task that sends them, one at a time, when
the chat's budget (:class:`~bot.telegram.sender.budget.CallBudget`) lets it:

- **Coalesced.** A note with the ``key`` of one still waiting takes its place (a board pressed
  ten times is redrawn once, to the page pressed last).
- **Fair.** Within a priority, the share (a forum topic, a game) served longest ago goes
  first: a topic that asks a lot waits for its own notes, not the others'.
- **Bounded.** A chat holds at most :attr:`Notes.per_chat` notes that may be dropped; past that
  the oldest of them goes, said once in the log.
- **In time, or elsewhere.** Information one person asked for that has not gone into its group
  within :attr:`Notes.divert_after` seconds — or, as the group's window stands, surely will not
  — goes to his private chat instead (text only, with a
  line saying which group it is from) if he has started the bot; what can go nowhere within
  :attr:`Notes.drop_after` seconds is dropped, said once in the log. A note that must not be
  lost (a game's result) is never dropped.

Each note's :attr:`Note.outcome` says, when it is settled, what became of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import orjson
from telegram import Bot
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from bot.services.recent import Recent
from bot.telegram import metrics
from bot.telegram.render.content import Button, Keyboard
from bot.telegram.sender.budget import CallBudget, Priority, Ticket
from bot.telegram.sender.limiter import NotLeading, calling

logger = logging.getLogger(__name__)

#: Seconds within which information asked for in a group goes there, or to the asker's DM.
DIVERT_AFTER = 10.0
#: Seconds within which information goes somewhere, or is dropped.
DROP_AFTER = 30.0
#: Notes that may be dropped, waiting in one chat at most.
PER_CHAT = 12
NO_PREVIEW = '{"is_disabled":true}'
#: Chats whose drops were said in the log lately (one line a chat until it sends again).
TOLD = 10_000


def markup_json(keyboard: Keyboard) -> str | None:
    """An inline keyboard as the Bot API's ``reply_markup`` JSON; ``None`` for no keyboard."""
    if not keyboard:
        return None
    rows = [[_button_json(b) for b in row] for row in keyboard]
    return orjson.dumps({"inline_keyboard": rows}).decode()


def _button_json(button: Button) -> dict[str, Any]:
    if button.web_app is not None:
        return {"text": button.text, "web_app": {"url": button.web_app}}
    if button.url is not None:
        return {"text": button.text, "url": button.url}
    return {"text": button.text, "callback_data": button.data}


def message_call(
    chat_id: int,
    text: str,
    keyboard: Keyboard = (),
    *,
    topic: int | None = None,
    reply_to: int | None = None,
    edit: int | None = None,
) -> Call:
    """A ``sendMessage`` of HTML ``text`` (no link previews) with ``keyboard``, in a forum
    ``topic``, as a reply to the message ``reply_to`` (sent anyway if that is gone) — or, with
    ``edit``, an ``editMessageText`` of that message."""
    data: dict[str, Any] = {
        "chat_id": chat_id,
        "text": text,
        "parse_mode": "HTML",
        "link_preview_options": NO_PREVIEW,
    }
    markup = markup_json(keyboard)
    if markup is not None:
        data["reply_markup"] = markup
    if edit is not None:
        return ("editMessageText", {**data, "message_id": edit})
    if topic:
        data["message_thread_id"] = topic
    if reply_to is not None:
        data["reply_parameters"] = orjson.dumps(
            {"message_id": reply_to, "allow_sending_without_reply": True}
        ).decode()
    return ("sendMessage", data)


def tidy_note(endpoint: str, chat_id: int, message_id: int) -> Note:
    """A tidy call: delete a message, or take its buttons off — as best it can be done (one
    too old or already gone stays as it is); a second one for the message while the first
    waits is the same (its key)."""
    call = (endpoint, {"chat_id": chat_id, "message_id": message_id})
    what = ("deleting" if endpoint == "deleteMessage" else "tidying") + f" message {message_id}"
    return Note(
        chat_id, call, Priority.REPLY, key=("tidy", chat_id, message_id), quiet=True, what=what
    )


class Outcome(enum.Enum):
    """What became of a note."""

    SENT = "sent"
    #: Sent to the asker's private chat: the group could not take it in time.
    DIVERTED = "diverted"
    #: Telegram will not let the bot write there (403: he never started it, or blocked it).
    FORBIDDEN = "forbidden"
    #: Telegram refused it (a bad request, a message gone).
    FAILED = "failed"
    #: No answer came (the network): it may well have arrived.
    LOST = "lost"
    #: Not sent: replaced by a newer note, crowded out, or out of time.
    DROPPED = "dropped"
    #: Not sent: this process stopped leading before it could (the next leader sends it).
    ABANDONED = "abandoned"


def _capital(what: str) -> str:
    """``what`` to begin a log line with."""
    return what[:1].upper() + what[1:]


#: A Bot API call, made when the note's turn comes: ``(endpoint, data)`` posted as they are.
Call = tuple[str, dict[str, Any]]


@dataclass(slots=True, eq=False)
class Note:
    """One message to send (or change, or delete) in a chat."""

    chat_id: int
    call: Call
    priority: Priority = Priority.REPLY
    #: Whose turn it is within the chat: a forum topic (``("topic", id)``) or a game.
    share: Hashable = None
    #: A newer note with the same key replaces this one while it waits.
    key: Hashable = None
    #: The person who asked for it: a group that cannot take it in time sends it to him.
    asker: int | None = None
    #: What his private chat gets instead (a ``sendMessage``'s text), if anything.
    private_text: str | None = None
    #: Never dropped (a game's result): it waits for its chat however long that takes.
    must: bool = False
    #: A game message that keeps its group's pace (see the budget); pinning one does not.
    paced: bool = True
    #: Done as best it can be (tidying, pinning): Telegram's refusal is no news (INFO).
    quiet: bool = False
    #: Told of Telegram's answer once the note is sent (e.g. a board's message id).
    on_sent: Callable[[Any], None] | None = None
    #: What it is, for the log: "reply to /help", "result of game 12", a notice…
    what: str = "a message"
    created: float = 0.0
    outcome: asyncio.Future[Outcome] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def settle(self, outcome: Outcome) -> None:
        if not self.outcome.done():
            self.outcome.set_result(outcome)


class Notes:
    """Sends every note, chat by chat, inside the budget; never makes its poster wait."""

    def __init__(
        self,
        bot: Bot,
        budget: CallBudget,
        *,
        divert_after: float = DIVERT_AFTER,
        drop_after: float = DROP_AFTER,
        per_chat: int = PER_CHAT,
    ) -> None:
        self.bot = bot
        self.budget = budget
        self.divert_after = divert_after
        self.drop_after = drop_after
        self.per_chat = per_chat
        #: Asked whether a person can be written to in his private chat (he started the bot).
        self.can_write: Callable[[int], Awaitable[bool]] | None = None
        #: Told that a person cannot be written to (403 in his private chat).
        self.on_forbidden: Callable[[int], Awaitable[None]] | None = None
        self._queues: dict[int, list[Note]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._diverting: set[asyncio.Task[None]] = set()
        #: Chats whose drops were logged (one line per chat until it sends again).
        self._told: Recent[int, None] = Recent(TOLD)
        self._closed = False
        #: Notes dropped, diverted and sent so far (the benchmark's and the logs' figures).
        self.dropped = 0
        self.diverted = 0
        self.sent = 0

    # -- posting ----------------------------------------------------------------------------

    def post(self, note: Note) -> Note:
        """Queue ``note`` for its chat; returns at once (``note.outcome`` tells the rest)."""
        if self._closed:
            note.settle(Outcome.DROPPED)
            return note
        note.created = self.budget.now()
        queue = self._queues.setdefault(note.chat_id, [])
        if note.key is not None:
            for index, waiting in enumerate(queue):
                if waiting.key == note.key:
                    # It takes the waiting note's place, and its time: a board pressed again
                    # and again is not put off for ever.
                    note.created = waiting.created
                    queue[index] = note
                    waiting.settle(Outcome.DROPPED)
                    return note
        queue.append(note)
        droppable = [n for n in queue if not n.must]
        if len(droppable) > self.per_chat:
            self._drop(droppable[0], "crowded out")
        worker = self._workers.get(note.chat_id)
        if worker is None or worker.done():
            self._workers[note.chat_id] = asyncio.create_task(
                self._run(note.chat_id), name=f"notes-{note.chat_id}"
            )
        return note

    def post_private(self, note: Note) -> Note:
        """Send ``note`` to its asker's private chat at once (its group has had its share of
        information for now); dropped if he cannot be written to."""
        note.created = self.budget.now()
        if self._closed or note.asker is None or note.private_text is None:
            self._drop(note, "its group has had its share")
            return note
        self._start_divert(note)
        return note

    def tidy(self, endpoint: str, chat_id: int, message_id: int) -> None:
        """Delete a message, or take its buttons off, once — in memory only (a sender with
        no outbox: :meth:`~bot.telegram.sender.outbox.Outbox.tidy` writes it)."""
        self.post(tidy_note(endpoint, chat_id, message_id))

    @property
    def waiting(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    def waiting_in(self, chat_id: int) -> int:
        """Notes waiting for one chat."""
        return len(self._queues.get(chat_id, ()))

    @property
    def busy(self) -> bool:
        """Whether any note is still on its way."""
        return bool(self._workers or self._diverting)

    # -- sending ----------------------------------------------------------------------------

    async def _run(self, chat_id: int) -> None:
        try:
            await self._send_all(chat_id)
        except Exception:
            logger.exception("Sending notes to chat %s failed", chat_id)
            for note in self._queues.pop(chat_id, []):
                note.settle(Outcome.FAILED)
        finally:
            if self._workers.get(chat_id) is asyncio.current_task():
                del self._workers[chat_id]

    async def _send_all(self, chat_id: int) -> None:
        queue = self._queues.get(chat_id)
        while queue:
            self._expire(chat_id, queue)
            if not queue:
                break
            note = self._next(chat_id, queue)
            ticket = Ticket(note.priority, note.share, note.paced)
            timeout = self._time_left(queue)
            try:
                async with asyncio.timeout(timeout):
                    await self.budget.take(chat_id, ticket)
            except TimeoutError:
                continue  # something is due elsewhere, or out of time: see again
            # The turn is taken: a note of a higher priority may have come meanwhile (never
            # one of a lower: a reply needs a reply's share of a group's window), or the note
            # may have been replaced by a newer one of its key, which then goes.
            best = self._next(chat_id, queue)
            if best.priority < note.priority:
                note = best
            elif note not in queue:
                newer = [n for n in queue if note.key is not None and n.key == note.key]
                if not newer:
                    self.budget.put_back(chat_id)
                    continue
                note = newer[0]
            queue.remove(note)
            await self._send(note, ticket)
        if queue is not None and not queue:
            self._queues.pop(chat_id, None)

    def _next(self, chat_id: int, queue: list[Note]) -> Note:
        """The note to send next: the highest priority, then the share served longest ago,
        then the oldest."""
        served = self.budget.served_at
        return min(
            queue,
            key=lambda n: (int(n.priority), served(chat_id, n.share), n.created),
        )

    def _time_left(self, queue: list[Note]) -> float | None:
        """Seconds until the next note of the chat must go elsewhere or be dropped."""
        now = self.budget.now()
        deadlines = [d for note in queue if (d := self._deadline(note)) is not None]
        return max(0.0, min(deadlines) - now) if deadlines else None

    @staticmethod
    def _divertable(note: Note) -> bool:
        """Information one person asked for in a group, which his private chat may take."""
        return note.chat_id < 0 and note.asker is not None and note.private_text is not None

    def _deadline(self, note: Note) -> float | None:
        if note.must:
            return None
        if self._divertable(note):
            return note.created + self.divert_after
        return note.created + self.drop_after

    def _expire(self, chat_id: int, queue: list[Note]) -> None:
        """Send to the askers' private chats what a group cannot take in time — overdue, or
        sure to be, as the group's window stands — and drop what nowhere can."""
        now = self.budget.now()
        for note in list(queue):
            deadline = self._deadline(note)
            if deadline is None:
                continue
            divertable = self._divertable(note)
            if deadline > now and not (
                divertable and self.budget.free_at(chat_id, note.priority) > deadline
            ):
                continue
            queue.remove(note)
            if divertable:
                self._start_divert(note)
            else:
                self._drop(note, "out of time")

    def _start_divert(self, note: Note) -> None:
        task = asyncio.create_task(self._divert(note))
        self._diverting.add(task)
        task.add_done_callback(self._diverting.discard)

    async def _divert(self, note: Note) -> None:
        """The group could not take it in time: its asker's private chat does, if it can."""
        assert note.asker is not None and note.private_text is not None
        try:
            reachable = self.can_write is not None and await self.can_write(note.asker)
        except Exception as error:  # the database is away: nowhere to go
            logger.warning(
                "Could not tell whether user %s can be written to: %s", note.asker, error
            )
            reachable = False
        if not reachable:
            self._drop(note, "out of time; its asker has not started the bot")
            return
        private = Note(
            note.asker,
            message_call(note.asker, note.private_text),
            Priority.REPLY,
            key=("diverted", note.key) if note.key is not None else None,
            what=f"{note.what}, diverted from chat {note.chat_id}",
        )
        logger.info(
            "%s for chat %s goes to user %s's private chat instead",
            _capital(note.what),
            note.chat_id,
            note.asker,
        )
        self.post(private)
        private.created = note.created  # dropped if it cannot go within drop_after either
        self.diverted += 1
        outcome = await private.outcome
        note.settle(Outcome.DIVERTED if outcome is Outcome.SENT else outcome)

    def _drop(self, note: Note, why: str) -> None:
        queue = self._queues.get(note.chat_id)
        if queue is not None and note in queue:
            queue.remove(note)
        self.dropped += 1
        metrics.given_up("dropped")
        note.settle(Outcome.DROPPED)
        if note.chat_id not in self._told:
            self._told[note.chat_id] = None
            logger.info("%s for chat %s was dropped (%s)", _capital(note.what), note.chat_id, why)

    async def _send(self, note: Note, ticket: Ticket) -> None:
        endpoint, data = note.call
        try:
            with calling(ticket.priority, taken=True):
                answer = await self.bot._post(endpoint, data)
        except RetryAfter:
            # The chat is paused (the limiter logged it): the note waits for the pause.
            self._queues.setdefault(note.chat_id, []).insert(0, note)
            return
        except NotLeading:
            # Another process leads now (the limiter said so once): what is written in the
            # outbox is its to send.
            note.settle(Outcome.ABANDONED)
            return
        except Forbidden as error:
            logger.info("Cannot write to chat %s: %s", note.chat_id, error)
            note.settle(Outcome.FORBIDDEN)
            if note.chat_id > 0 and self.on_forbidden is not None:
                with contextlib.suppress(Exception):
                    await self.on_forbidden(note.chat_id)
            return
        except BadRequest as error:
            if "not modified" in error.message.lower():
                note.settle(Outcome.SENT)
                return
            level = logging.INFO if note.quiet else logging.WARNING
            logger.log(
                level, "%s (%s) in chat %s refused: %s", endpoint, note.what, note.chat_id, error
            )
            note.settle(Outcome.FAILED)
            return
        except NetworkError as error:
            logger.warning("%s in chat %s got no answer: %s", endpoint, note.chat_id, error)
            note.settle(Outcome.LOST)
            return
        except TelegramError as error:
            logger.warning("%s in chat %s failed: %s", endpoint, note.chat_id, error)
            note.settle(Outcome.FAILED)
            return
        self.sent += 1
        self._told.pop(note.chat_id, None)
        if note.on_sent is not None:
            try:
                note.on_sent(answer)
            except Exception:
                logger.exception("Recording a sent message failed")
        note.settle(Outcome.SENT)

    # -- lifecycle --------------------------------------------------------------------------

    async def drain(self) -> None:
        """Wait until every note is settled (tests, shutdown)."""
        while self._workers or self._diverting:
            tasks = [*self._workers.values(), *self._diverting]
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop sending: whatever waits is dropped."""
        self._closed = True
        tasks = [*self._workers.values(), *self._diverting]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for queue in self._queues.values():
            for note in queue:
                note.settle(Outcome.DROPPED)
        self._queues.clear()
