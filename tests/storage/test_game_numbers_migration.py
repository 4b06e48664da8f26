"""Migration 0006 numbers the games already played, chat by chat, and loses nothing."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from alembic import command

from bot.storage.migrate import alembic_config

#: Games by id and chat, as an older bot opened them: two chats taking turns.
GAMES = [(1, -100), (2, -200), (3, -100), (4, -100), (5, -200)]


def _fill(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO users (id, first_name, started, created_at) VALUES (7, 'Anna', 1, '')"
        )
        for chat in {chat for _, chat in GAMES}:
            connection.execute(
                "INSERT INTO chats (id, kind, settings, created_at) "
                "VALUES (?, 'supergroup', '{}', '')",
                (chat,),
            )
        for game, chat in GAMES:
            connection.execute(
                "INSERT INTO games (id, chat_id, topic_id, game_key, status, options, recent,"
                " seed, version, creator_id, join_token, created_at, shown_version)"
                " VALUES (?, ?, 0, 'rank', 'finished', '{}', '[]', 1, 3, 7, ?, '', 3)",
                (game, chat, f"token{game}"),
            )
            connection.execute(
                "INSERT INTO seats (game_id, seat, user_id, name, timeouts)"
                " VALUES (?, 0, 7, '', 0)",
                (game,),
            )


async def test_existing_games_are_numbered_by_chat_in_the_order_they_were_opened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    config = alembic_config(f"sqlite+aiosqlite:///{path}")
    await asyncio.to_thread(command.upgrade, config, "0005")
    _fill(path)
    await asyncio.to_thread(command.upgrade, config, "head")
    with sqlite3.connect(path) as connection:
        numbers = connection.execute("SELECT id, number FROM games ORDER BY id").fetchall()
        seats = connection.execute("SELECT COUNT(*) FROM seats").fetchone()
    assert numbers == [(1, 1), (2, 1), (3, 2), (4, 3), (5, 2)]
    assert seats == (len(GAMES),), "no seat lost with the games table's new column"

    await asyncio.to_thread(command.downgrade, config, "0005")
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(games)")]
        seats = connection.execute("SELECT COUNT(*) FROM seats").fetchone()
    assert "number" not in columns and seats == (len(GAMES),)
