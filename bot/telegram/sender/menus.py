"""Boards and pickers age: a message of buttons that only shows information lives a while.

A board (``/top``), a history page (``/history``) or a picker (the game picker of a bare
``/new``, the ``/rules`` and ``/language`` pickers) keeps its buttons until a newer one of its
kind replaces it in the chat (or forum topic), or for :data:`MENU_SECONDS` — then its buttons go
(one call, in the chat's informational share). A press on an aged one is answered with a toast
and costs the chat nothing: nobody can keep a group's window busy by pressing old boards.

The newest message of each kind is remembered in memory; after a restart an old message is
still told by its date (Telegram's, not the client's word).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from bot.telegram.sender.notes import Note, Notes, Outcome

#: How long a board or a picker answers its buttons.
MENU_SECONDS: Final = 600.0
#: The kinds of menus; one of each is live per chat (and forum topic).
KINDS: Final = ("top", "history", "new", "rules", "language")


@dataclass(slots=True)
class _Live:
    message_id: int
    timer: asyncio.TimerHandle | None


class Menus:
    """The live menu of each kind in each chat, and the taking away of old menus' buttons."""

    def __init__(self, notes: Notes, clock: Callable[[], float]) -> None:
        self.notes = notes
        #: Wall-clock time, as Telegram dates messages.
        self.clock = clock
        self.seconds = MENU_SECONDS
        self._live: dict[tuple[int, int, str], _Live] = {}
        #: What each redrawn board shows, or is about to: (chat, message) → fingerprint.
        self._showing: dict[tuple[int, int], int] = {}

    def sent(self, chat_id: int, topic: int | None, kind: str, message_id: int) -> None:
        """A menu of ``kind`` went into the chat: the one it replaces loses its buttons."""
        key = (chat_id, topic or 0, kind)
        previous = self._live.get(key)
        if previous is not None and previous.message_id >= message_id:
            return  # an older send's answer came late
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.seconds, self._expire, key, message_id)
        self._live[key] = _Live(message_id, timer)
        if previous is not None:
            if previous.timer is not None:
                previous.timer.cancel()
            self.disarm(chat_id, previous.message_id)
        if len(self._live) > 10_000:
            self._forget()

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
            return False
        if len(self._showing) > 10_000:
            self._showing.clear()  # a rough memory: at worst one redraw too many
        self._showing[key] = fingerprint
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
        """Take an old menu's buttons away (once per message)."""
        self.notes.tidy("editMessageReplyMarkup", chat_id, message_id)

    def _expire(self, key: tuple[int, int, str], message_id: int) -> None:
        live = self._live.get(key)
        if live is None or live.message_id != message_id:
            return
        del self._live[key]
        self.disarm(key[0], message_id)

    def _forget(self) -> None:
        """Too many chats at once: forget the oldest half (their dates still age them)."""
        for key in list(self._live)[: len(self._live) // 2]:
            live = self._live.pop(key)
            if live.timer is not None:
                live.timer.cancel()

    def close(self) -> None:
        for live in self._live.values():
            if live.timer is not None:
                live.timer.cancel()
        self._live.clear()
