"""When a game's table message is posted: a task that needs the message (a link to a new
lobby) waits for it here, told by the publisher's record of the message id, rather than asking
the database again and again."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable


class TablePosts:
    """Futures of table message ids, per game, for whoever waits for one."""

    def __init__(self) -> None:
        self._waiting: dict[int, list[asyncio.Future[int]]] = {}

    def posted(self, game_id: int, message_id: int) -> None:
        """A game's table message was sent (and its id recorded)."""
        for future in self._waiting.pop(game_id, ()):
            if not future.done():
                future.set_result(message_id)

    async def wait(
        self, game_id: int, known: Callable[[], Awaitable[int | None]], within: float
    ) -> int | None:
        """The game's table message id: ``known`` (the one recorded so far, asked once the
        wait has begun — so a message posted meanwhile is not missed), or the next one
        posted within ``within`` seconds; ``None`` if none is."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(game_id, []).append(future)
        try:
            found = await known()
            if found is not None:
                return found
            async with asyncio.timeout(within):
                return await future
        except TimeoutError:
            return None
        finally:
            waiting = self._waiting.get(game_id)
            if waiting is not None:
                with contextlib.suppress(ValueError):
                    waiting.remove(future)
                if not waiting:
                    del self._waiting[game_id]

    def __len__(self) -> int:
        """Games waited for (tests: nothing is left behind)."""
        return len(self._waiting)
