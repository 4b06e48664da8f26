"""The press path on SQLite: one game's rows read and written with plain SQL, no ORM.

A press is a read of the game with its chat, seats and users, one UPDATE of the game with the
version check, one INSERT into the action log and a COMMIT. SQLite does that in about 20 µs;
the same through SQLAlchemy's async session took about 700 µs (a connection checked out,
greenlet switches around every DB-API call, ORM objects built, the unit of work's flush).
Here the statements run on the engine's one SQLite connection, when its turn comes like any
transaction's (:meth:`bot.storage.database.Database.sqlite_transaction`), through the
``sqlite3`` module on the event loop's thread (:mod:`bot.storage.inline_sqlite`); the rows
come back as the small records below.

Only the steps that change a playing game and leave it playing come this way; the first and
the last step of a game (the deal, the results and ratings) take the ORM's path, as does
every backend but SQLite. The schema is :mod:`bot.storage.models`'s; the tests read what one
path writes through the other.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import orjson

_LOAD = """
SELECT g.id, g.chat_id, g.topic_id, g.game_key, g.status, g.options, g.state, g.recent,
       g.seed, g.version, g.deadline_at, g.table_message_id, g.creator_id, g.join_token,
       c.kind, c.language,
       s.seat, s.user_id, s.name, s.dm_message_id, s.timeouts,
       u.language, u.language_code
FROM games AS g
LEFT OUTER JOIN chats AS c ON c.id = g.chat_id
LEFT OUTER JOIN seats AS s ON s.game_id = g.id
LEFT OUTER JOIN users AS u ON u.id = s.user_id
WHERE g.id = ?
ORDER BY s.seat
"""

_SAVE = """
UPDATE games SET state = ?, status = ?, deadline_at = ?, recent = ?, version = version + 1
WHERE id = ? AND version = ?
"""

_APPEND_ACTION = """
INSERT INTO actions (game_id, version, seat, source, action, at) VALUES (?, ?, ?, ?, ?, ?)
"""

_SET_TIMEOUTS = "UPDATE seats SET timeouts = ? WHERE game_id = ? AND seat = ?"


def _json(text: str | None) -> Any:
    """A JSON column as SQLAlchemy's ``JSON`` type wrote it (text; ``None`` for NULL)."""
    return None if text is None else orjson.loads(text)


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()


@dataclass(slots=True)
class GameRecord:
    """The columns of a ``games`` row that playing reads."""

    id: int
    chat_id: int
    topic_id: int
    game_key: str
    status: str
    options: dict[str, Any]
    state: dict[str, Any] | None
    recent: list[Any]
    seed: int
    version: int
    deadline_at: float | None
    table_message_id: int | None
    creator_id: int | None
    join_token: str


@dataclass(slots=True)
class ChatRecord:
    kind: str
    language: str | None


@dataclass(slots=True)
class SeatRecord:
    seat: int
    user_id: int | None
    name: str
    dm_message_id: int | None
    timeouts: int


@dataclass(slots=True)
class UserRecord:
    language: str | None
    language_code: str | None


@dataclass(slots=True)
class GameRecords:
    """A game as :func:`load` reads it: the row, its chat, its seats in order, their users."""

    game: GameRecord
    chat: ChatRecord | None
    seats: list[SeatRecord]
    users: dict[int, UserRecord]


def load(connection: sqlite3.Connection, game_id: int) -> GameRecords | None:
    """The game with its chat, seats and users, in one SELECT; ``None`` if there is none."""
    rows = connection.execute(_LOAD, (game_id,)).fetchall()
    if not rows:
        return None
    first = rows[0]
    game = GameRecord(
        id=first[0],
        chat_id=first[1],
        topic_id=first[2],
        game_key=first[3],
        status=first[4],
        options=_json(first[5]) or {},
        state=_json(first[6]),
        recent=_json(first[7]) or [],
        seed=first[8],
        version=first[9],
        deadline_at=first[10],
        table_message_id=first[11],
        creator_id=first[12],
        join_token=first[13],
    )
    chat = ChatRecord(first[14], first[15]) if first[14] is not None else None
    seats: list[SeatRecord] = []
    users: dict[int, UserRecord] = {}
    for row in rows:
        if row[16] is None:  # no seats: the outer join's one row of NULLs
            continue
        seat = SeatRecord(*row[16:21])
        seats.append(seat)
        if seat.user_id is not None:
            users[seat.user_id] = UserRecord(row[21], row[22])
    return GameRecords(game, chat, seats, users)


def save_if_version(
    connection: sqlite3.Connection,
    game_id: int,
    expected_version: int,
    *,
    state: Any,
    status: str,
    deadline_at: float | None,
    recent: list[Any],
) -> bool:
    """Write a step's columns and bump the version only if nobody else did since the read."""
    cursor = connection.execute(
        _SAVE, (_text(state), status, deadline_at, _text(recent), game_id, expected_version)
    )
    return cursor.rowcount == 1


def append_action(
    connection: sqlite3.Connection,
    game_id: int,
    version: int,
    seat: int | None,
    source: str,
    action: str | None,
    at: float,
) -> None:
    connection.execute(_APPEND_ACTION, (game_id, version, seat, source, action, at))


def set_timeouts(connection: sqlite3.Connection, game_id: int, seat: int, timeouts: int) -> None:
    connection.execute(_SET_TIMEOUTS, (timeouts, game_id, seat))
