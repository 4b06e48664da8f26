"""Boards and pickers age: a message of buttons that only shows information lives a while.

A board (``/top``), a history page (``/history``) or a picker (the game picker of a bare
``/new``, the ``/rules`` and ``/language`` pickers) keeps its buttons until a newer one of its
kind replaces it in the chat (or forum topic), or for :data:`MENU_SECONDS` — then its buttons go
(one call, in the chat's informational share). A press on an aged one is answered with a toast
and costs the chat nothing: nobody can keep a group's window busy by pressing old boards.

The newest message of each kind is remembered in memory; after a restart an old message is
still told by its date (Telegram's, not the client's word). So is one of a chat forgotten
because :data:`MENUS_REMEMBERED` others were sent since: memory stays bounded.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from bot.telegram.sender.notes import Note, Outcome

#: How long a board or a picker answers its buttons.
MENU_SECONDS: Final = 600.0
#: The kinds of menus; one of each is live per chat (and forum topic).
KINDS: Final = ("top", "history", "new", "rules", "language")
#: Live menus remembered at most, and redrawn menus' contents: past it, the one sent (or
#: redrawn) longest ago is forgotten — its date still ages it; a board forgotten is at
#: worst redrawn once more than needed. Menus live ten minutes: the bound is reached only
#: past 16 new menus a second.
MENUS_REMEMBERED: Final = 10_000


@dataclass(slots=True)
class _Live:
    message_id: int
    timer: asyncio.TimerHandle | None


class Tidier(Protocol):
    """What takes a message's buttons away, once, as best it can."""

    def tidy(self, endpoint: str, chat_id: int, message_id: int) -> None: ...


class Menus:
    """The live menu of each kind in each chat, and the taking away of old menus' buttons."""

    def __init__(self, tidier: Tidier, clock: Callable[[], float]) -> None:
        #: Takes old menus' buttons away (the outbox: :meth:`~.outbox.Outbox.tidy`).
        self.tidier = tidier
        #: Wall-clock time, as Telegram dates messages.
        self.clock = clock
        self.seconds = MENU_SECONDS
        #: The live menu of each kind in each chat and topic, the one sent longest ago first.
        self._live: OrderedDict[tuple[int, int, str], _Live] = OrderedDict()
        #: What each redrawn board shows, or is about to: (chat, message) → fingerprint; the
        #: one redrawn longest ago first.
        self._showing: OrderedDict[tuple[int, int], int] = OrderedDict()

    def sent(self, chat_id: int, topic: int | None, kind: str, message_id: int) -> None:
        """A menu of ``kind`` went into the chat: the one it replaces loses its buttons."""
        key = (chat_id, topic or 0, kind)
        previous = self._live.get(key)
        if previous is not None and previous.message_id >= message_id:
            return  # an older send's answer came late
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.seconds, self._expire, key, message_id)
        self._live[key] = _Live(message_id, timer)
        self._live.move_to_end(key)
        if previous is not None:
            if previous.timer is not None:
                previous.timer.cancel()
            self.disarm(chat_id, previous.message_id)
        while len(self._live) > MENUS_REMEMBERED:
            _, forgotten = self._live.popitem(last=False)
            if forgotten.timer is not None:
                forgotten.timer.cancel()

    def aged(
        self, chat_id: int, topic: int | None, kind: str, message_id: int, dated: float
    ) -> bool:
        """Whether the menu pressed is no longer live: a newer one of its kind is in its chat,
        or it is older than :data:`MENU_SECONDS` (``dated``: Telegram's date of it)."""
        live = self._live.get((chat_id, topic or 0, kind))
        if live is not None and message_id < live.message_id:
            return True
        return self.clock() - dated > self.seconds

    def showing(self, chat_id: int, message_id: int, fingerprint: int) -> bool:
        """Whether redrawing the menu to ``fingerprint`` changes what it shows (or is about
        to show); if it does, that is what it will show."""
        key = (chat_id, message_id)
        if self._showing.get(key) == fingerprint:
            self._showing.move_to_end(key)
            return False
        self._showing[key] = fingerprint
        self._showing.move_to_end(key)
        while len(self._showing) > MENUS_REMEMBERED:
            self._showing.popitem(last=False)
        return True

    def watch(self, chat_id: int, message_id: int, redraw: Note) -> None:
        """A redraw that does not arrive leaves the menu as it was."""
        key = (chat_id, message_id)
        fingerprint = self._showing.get(key)

        def settled(outcome: asyncio.Future[Outcome]) -> None:
            if outcome.result() is not Outcome.SENT and self._showing.get(key) == fingerprint:
                del self._showing[key]

        redraw.outcome.add_done_callback(settled)

    def disarm(self, chat_id: int, message_id: int) -> None:
        """Take an old menu's buttons away (once per message): it is redrawn no more."""
        self._showing.pop((chat_id, message_id), None)
        self.tidier.tidy("editMessageReplyMarkup", chat_id, message_id)

    def _expire(self, key: tuple[int, int, str], message_id: int) -> None:
        live = self._live.get(key)
        if live is None or live.message_id != message_id:
            return
        del self._live[key]
        self.disarm(key[0], message_id)

    def close(self) -> None:
        for live in self._live.values():
            if live.timer is not None:
                live.timer.cancel()
        self._live.clear()
