"""Many active games fast: copies of a few real started games, inserted straight into SQLite.

Games made through the services cost tens of milliseconds each; ten thousand of them would
take minutes. A copy takes the rows of a real started game (``games``, its ``seats``, their
``users`` and the ``chats`` row) and writes them again under new ids, in one transaction with
the standard library's ``sqlite3``. Columns are copied by name, so the copies follow the schema
whatever migrations add. Each copy gets its own seed, so copies of one deal part ways at their
first random step.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

#: Where copies' ids start: far from what the services and the fake hand out.
FIRST_GAME_ID = 1_000_000
FIRST_USER_ID = 5_000_000_001
FIRST_CHAT_ID = -1_009_000_000_000


@dataclass(frozen=True, slots=True)
class Template:
    """The rows of one real game."""

    game: dict[str, Any]
    seats: list[dict[str, Any]]
    users: dict[int, dict[str, Any]]
    chat: dict[str, Any]

    @property
    def humans(self) -> int:
        return sum(1 for seat in self.seats if seat["user_id"] is not None)


@dataclass(frozen=True, slots=True)
class Copy:
    """Where one copy of a template goes: its ids and its messages' ids (or None)."""

    template: int
    game_id: int
    chat_id: int
    user_ids: tuple[int | None, ...]
    table_message_id: int | None = None
    dm_message_ids: tuple[int | None, ...] = ()


def database_file(url: str) -> Path:
    """The file of a ``sqlite+aiosqlite:///…`` URL."""
    return Path(url.split(":///", 1)[1])


def _rows(db: sqlite3.Connection, sql: str, args: Sequence[Any]) -> list[dict[str, Any]]:
    cursor = db.execute(sql, args)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def read_templates(path: Path, game_ids: Sequence[int]) -> list[Template]:
    db = sqlite3.connect(path)
    try:
        templates = []
        for game_id in game_ids:
            (game,) = _rows(db, "SELECT * FROM games WHERE id = ?", (game_id,))
            seats = _rows(db, "SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (game_id,))
            users = {
                seat["user_id"]: _rows(db, "SELECT * FROM users WHERE id = ?", (seat["user_id"],))[
                    0
                ]
                for seat in seats
                if seat["user_id"] is not None
            }
            (chat,) = _rows(db, "SELECT * FROM chats WHERE id = ?", (game["chat_id"],))
            templates.append(Template(game, seats, users, chat))
        return templates
    finally:
        db.close()


def plan(templates: Sequence[Template], count: int) -> list[Copy]:
    """Ids for ``count`` copies, the templates in turn."""
    copies = []
    user_id = FIRST_USER_ID
    for index in range(count):
        number = index % len(templates)
        template = templates[number]
        user_ids: list[int | None] = []
        for seat in template.seats:
            if seat["user_id"] is None:
                user_ids.append(None)
            else:
                user_ids.append(user_id)
                user_id += 1
        copies.append(Copy(number, FIRST_GAME_ID + index, FIRST_CHAT_ID - index, tuple(user_ids)))
    return copies


def _insert(db: sqlite3.Connection, table: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    names = list(rows[0])
    sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
    db.executemany(sql, [[row[name] for name in names] for row in rows])


def insert(path: Path, templates: Sequence[Template], copies: Sequence[Copy]) -> None:
    """Write the copies' rows in one transaction."""
    games, seats, users, chats = [], [], [], []
    seat_id = FIRST_GAME_ID * 10
    for copy in copies:
        template = templates[copy.template]
        first_user = next(u for u in copy.user_ids if u is not None)
        chats.append({**template.chat, "id": copy.chat_id, "title": f"Table {copy.game_id}"})
        games.append(
            {
                **template.game,
                "id": copy.game_id,
                "chat_id": copy.chat_id,
                "creator_id": first_user,
                "seed": Random(copy.game_id).getrandbits(62),
                "join_token": f"bench{copy.game_id}",
                "table_message_id": copy.table_message_id,
            }
        )
        dm_ids = copy.dm_message_ids or (None,) * len(copy.user_ids)
        for seat, user_id, dm_id in zip(template.seats, copy.user_ids, dm_ids, strict=True):
            seat_id += 1
            seats.append(
                {**seat, "id": seat_id, "game_id": copy.game_id, "user_id": user_id}
                | {"dm_message_id": dm_id}
            )
            if user_id is not None:
                users.append(
                    {
                        **template.users[seat["user_id"]],
                        "id": user_id,
                        "first_name": f"Player{user_id % 1_000_000}",
                    }
                )
    db = sqlite3.connect(path, timeout=30)
    try:
        with db:
            _insert(db, "users", users)
            _insert(db, "chats", chats)
            _insert(db, "games", games)
            _insert(db, "seats", seats)
    finally:
        db.close()
