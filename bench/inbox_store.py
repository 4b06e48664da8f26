"""Storing an update in the inbox on SQLite: flushed to the disk (``synchronous=FULL``, as the
bot does, so that an update Telegram was told is stored survives a power loss) beside the same
store unflushed (``NORMAL``, the rest of the bot's transactions), in one run.

Each update is stored as a webhook post stores it — one update, one transaction, through
:meth:`~bot.services.inbox.InboxService.take` — in a migrated database file of the run's
scratch folder; the two settings take turns update by update, so the machine's moods fall on
both alike. SQLite runs on the event loop's thread (:mod:`bot.storage.inline_sqlite`): the time
of a store is also how long it holds every other chat up. ``inbox_store_p99_ms`` is the
bot's (FULL); ``…_normal`` the same without the flush.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from bench.report import Figure, percentile
from bench.world import sqlite_url
from bot.services.inbox import InboxService
from bot.storage.database import SQLITE_DURABLE_SYNCHRONOUS, SQLITE_SYNCHRONOUS, Database
from bot.storage.migrate import upgrade_async

#: Updates stored with each setting.
UPDATES, QUICK_UPDATES = 3_000, 600


def press(update_id: int) -> dict[str, Any]:
    """A button press as Telegram posts it (about 700 bytes of JSON)."""
    player = {"id": 10_000 + update_id % 50, "is_bot": False, "first_name": "Player"}
    chat = {"id": -1_000_000 - update_id % 20, "type": "supergroup", "title": "Table"}
    return {
        "update_id": update_id,
        "callback_query": {
            "id": str(4_000_000 + update_id),
            "from": {**player, "language_code": "en", "username": "player"},
            "chat_instance": "-5397286146271390876",
            "data": f"{update_id % 500}:{update_id % 90}:p3",
            "message": {
                "message_id": 100 + update_id % 20,
                "date": 1_700_000_000 + update_id,
                "chat": chat,
                "from": {"id": 1, "is_bot": True, "first_name": "Cardroom"},
                "text": "Rank · round 3 · Anna to move " + "♠ " * 40,
            },
        },
    }


async def _stores(folder: Path, updates: int) -> dict[str, list[float]]:
    url = sqlite_url(folder, "inbox.db")
    await upgrade_async(url)
    db = Database.from_url(url)
    inbox = InboxService(db)
    times: dict[str, list[float]] = {SQLITE_DURABLE_SYNCHRONOUS: [], SQLITE_SYNCHRONOUS: []}
    settings = list(times)
    try:
        await inbox.take([press(0)])  # the connection opened, the pragmas set
        for n in range(1, 2 * updates + 1):
            setting = settings[n % 2]
            db.durable_synchronous = setting
            started = time.perf_counter()
            await inbox.take([press(n)])
            times[setting].append(time.perf_counter() - started)
    finally:
        await db.close()
    return times


def measure(folder: Path, quick: bool) -> list[Figure]:
    updates = QUICK_UPDATES if quick else UPDATES
    times = asyncio.run(_stores(folder, updates))
    full, normal = times[SQLITE_DURABLE_SYNCHRONOUS], times[SQLITE_SYNCHRONOUS]
    return [
        Figure(
            "inbox_store_p99_ms",
            percentile(full, 0.99) * 1000,
            "ms",
            f"an update stored in the inbox, flushed (synchronous=FULL, the bot's): p50 "
            f"{percentile(full, 0.5) * 1000:.2f} ms; {updates} updates, SQLite",
        ),
        Figure(
            "inbox_store_p99_ms_normal",
            percentile(normal, 0.99) * 1000,
            "ms",
            f"the same store unflushed (synchronous=NORMAL, for comparison): p50 "
            f"{percentile(normal, 0.5) * 1000:.2f} ms",
        ),
    ]
