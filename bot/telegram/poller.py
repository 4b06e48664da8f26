"""The deadline poller: a loop that moves on games whose window has closed, and lobbies
whose time ran out.

Timers are rows (``games.deadline_at``), not jobs: the poller only asks the database what is
due, so a restarted bot simply catches up. It is a plain asyncio task rather than a JobQueue
job so that stopping the bot lets the current pass finish instead of cancelling it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from bot.services.lobby import LobbyService
from bot.services.play import PlayService
from bot.services.types import StorageRefused
from bot.telegram.sender.live import Publisher

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.5
#: The longest pause between two passes while the database refuses to write.
MAX_PAUSE = 15.0


class DeadlinePoller:
    """Every ``interval`` seconds: claim due games, apply their timeouts or computer moves;
    close idle lobbies and let a rematch's unanswered invitations lapse."""

    def __init__(
        self,
        play: PlayService,
        lobby: LobbyService,
        publisher: Publisher,
        interval: float = POLL_SECONDS,
    ) -> None:
        self.play = play
        self.lobby = lobby
        self.publisher = publisher
        self.interval = interval
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def run_once(self) -> None:
        """One pass: every due game and lobby moved on and published."""
        for snapshot in await self.play.run_due():
            self.publisher.publish(snapshot)
        for snapshot in await self.lobby.run_due():
            self.publisher.publish(snapshot)

    def start(self) -> None:
        if self._task is None:
            self._stopping.clear()
            self._task = asyncio.create_task(self._loop(), name="deadline-poller")

    async def stop(self) -> None:
        """Let the current pass finish, then stop."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping.set()
        await task

    async def _loop(self) -> None:
        pause = self.interval
        while not self._stopping.is_set():
            try:
                await self.run_once()
                pause = self.interval
            except StorageRefused:
                # The database refuses to write (logged once, as an outage): ask less often
                # until it writes again; the deadlines wait in their rows meanwhile.
                pause = min(MAX_PAUSE, pause * 2)
            except Exception:
                logger.exception("Deadline pass failed; the next one retries")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), pause)


async def poll_deadlines(context: Any) -> None:
    """One pass of the application's poller, for a callback context (tests, benchmarks)."""
    poller: DeadlinePoller = context.bot_data["cardroom"].poller
    await poller.run_once()
