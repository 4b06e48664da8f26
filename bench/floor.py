"""The floor of one action: what no implementation of a press can avoid.

Two parts, measured in the same run and on the same machine as the real presses:

* **PTB**: ``Update.de_json`` of the very callback-query update a press sends, and dispatching
  it through a bare python-telegram-bot ``Application`` (same token, request, rate limiter) to
  a handler that only answers it — the answer goes through the fake Bot API in-process;
* **SQLite**: a hand-written aiosqlite load + update + commit of one game row (the state JSON
  as stored, the version bumped) on a copy of the bot's database, in WAL with
  ``synchronous=NORMAL``.

``floor_us`` is the sum of the two medians.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from random import Random
from typing import Any

import aiosqlite
from telegram import Update
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, ContextTypes

from bench.world import Press, unlimited_rate_limiter
from bot.app import App
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.request import FakeRequest


async def _answer(update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
    """The least a button handler does: answer the query."""
    assert update.callback_query is not None
    await update.callback_query.answer()


class FloorBot:
    """A bare Application on the same fake Bot API: parse, dispatch, answer."""

    def __init__(self, api: FakeBotApi) -> None:
        self.app: App = (
            ApplicationBuilder()
            .token(api.token)
            .request(FakeRequest(api))
            .get_updates_request(FakeRequest(api))
            .rate_limiter(unlimited_rate_limiter())
            .build()
        )
        self.app.add_handler(CallbackQueryHandler(_answer))

    async def start(self) -> None:
        await self.app.initialize()

    async def stop(self) -> None:
        await self.app.shutdown()

    async def press(self, press: Press) -> float:
        """Seconds to parse and dispatch ``press`` (whose callback is fresh in the fake)."""
        started = time.perf_counter()
        await self.app.process_update(Update.de_json(press.payload, self.app.bot))
        return time.perf_counter() - started


class FloorDatabase:
    """Load + update + commit of one game row, by hand, on a copy of the bot's database."""

    def __init__(self, source: Path, folder: Path) -> None:
        self.path = folder / "floor.db"
        # The online backup API copies a WAL database consistently while the bot runs.
        with sqlite3.connect(source) as src, sqlite3.connect(self.path) as dst:
            src.backup(dst)
        self.game_ids: list[int] = []
        self.db: aiosqlite.Connection | None = None

    async def start(self) -> None:
        self.db = await aiosqlite.connect(self.path)
        await self.db.execute("PRAGMA journal_mode=WAL")
        await self.db.execute("PRAGMA synchronous=NORMAL")
        rows = await self.db.execute_fetchall("SELECT id FROM games WHERE status = 'playing'")
        self.game_ids = [row[0] for row in rows]

    async def stop(self) -> None:
        if self.db is not None:
            await self.db.close()

    async def step(self, rng: Random) -> float:
        """Seconds to read one game's state and version, write them back bumped, commit."""
        db = self.db
        assert db is not None
        game_id = rng.choice(self.game_ids)
        started = time.perf_counter()
        rows: Any = await db.execute_fetchall(
            "SELECT state, version FROM games WHERE id = ?", (game_id,)
        )
        state, version = rows[0]
        await db.execute(
            "UPDATE games SET state = ?, version = ? WHERE id = ? AND version = ?",
            (state, version + 1, game_id, version),
        )
        await db.commit()
        return time.perf_counter() - started
