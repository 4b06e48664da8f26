"""The press path on SQLite: one game's rows read and written with plain SQL, no ORM.

A press is a read of the game with its chat, seats and users, one UPDATE of the game with the
version check, one INSERT into the action log and a COMMIT. SQLite does that in about 20 µs;
the same through SQLAlchemy's async session took about 700 µs (a connection checked out,
greenlet switches around every DB-API call, ORM objects built, the unit of work's flush).
Here the statements run on the engine's one SQLite connection, when its turn comes like any
transaction's (:meth:`bot.storage.database.Database.sqlite_transaction`), through the
``sqlite3`` module on the event loop's thread (:mod:`bot.storage.inline_sqlite`); the rows
come back as the small records below.

The statements are the ORM path's own (:mod:`bot.storage.repositories`), compiled once, at
import, for the engine's SQLite dialect: the SQL, the order of its positional parameters, and
how the column types encode and decode values (JSON as the engine writes it). A change to the
schema or to a statement changes both paths; the records name the columns they read.

Only the steps that change a playing game and leave it playing come this way; the first and
the last step of a game (the deal, the results and ratings) take the ORM's path, as does
every backend but SQLite. The tests read what one path writes through the other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from operator import itemgetter
from typing import Any, cast

from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from bot.storage.database import create_engine
from bot.storage.models import ChatRow, GameRow, SeatRow, UserRow
from bot.storage.repositories import (
    APPEND_ACTION,
    GAME_WITH_PLAYERS,
    SET_TIMEOUTS,
    save_statement,
)

Codec = Callable[[Any], Any]

#: The dialect of the engine on SQLite, with its JSON serializer (nothing is connected).
_DIALECT = create_engine("sqlite+aiosqlite://").dialect


class PlainStatement:
    """A statement compiled once for SQLite's connection: its SQL, the order of its
    positional parameters, and how its column types encode what is written and decode what
    is read (as the engine would: JSON stays byte for byte what the ORM path writes)."""

    __slots__ = ("_constants", "_encoders", "_order", "decoders", "sql")

    def __init__(self, statement: ClauseElement) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=_DIALECT))
        names = tuple(compiled.positiontup or ())
        self.sql: str = compiled.string
        # Literals in the statement (the 1 of ``version + 1``) are parameters too.
        self._constants = {
            name: compiled.params[name] for name in names if not compiled.binds[name].required
        }
        self._encoders = tuple(
            (name, encode)
            for name in names
            if name not in self._constants
            and (encode := _type_of(compiled.binds[name]).bind_processor(_DIALECT)) is not None
        )
        self._order = _getter(names)
        #: (position, decoder) of the selected columns whose values are decoded.
        self.decoders: tuple[tuple[int, Codec], ...] = tuple(
            (index, decode)
            for index, column in enumerate(getattr(statement, "selected_columns", ()))
            if (decode := _type_of(column).result_processor(_DIALECT, None)) is not None
        )

    def parameters(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """``values`` by the statement's names (the dict is consumed), as its positional
        parameters."""
        for name, encode in self._encoders:
            values[name] = encode(values[name])
        if self._constants:
            values.update(self._constants)
        return self._order(values)


def _type_of(element: Any) -> Any:
    """The SQLite implementation of an element's type (JSON is SQLite's JSON)."""
    return element.type.dialect_impl(_DIALECT)


def _getter(names: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """The values of ``names`` as a tuple (``itemgetter`` of one name gives the bare value)."""
    if len(names) == 1:
        (name,) = names
        return lambda values: (values[name],)
    return itemgetter(*names) if names else lambda _values: ()


@dataclass(slots=True)
class GameRecord:
    """The columns of a ``games`` row that playing reads (each field names its column)."""

    id: int
    chat_id: int
    number: int
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
    pings: bool


@dataclass(slots=True)
class GameRecords:
    """A game as :func:`load` reads it: the row, its chat, its seats in order, their users."""

    game: GameRecord
    chat: ChatRecord | None
    seats: list[SeatRecord]
    users: dict[int, UserRecord]


def _columns(record: type[Any], entity: type[Any]) -> list[Any]:
    """The entity's columns that the record's fields name, in the record's order."""
    return [getattr(entity, field.name) for field in fields(record)]


_GAME_COLUMNS = _columns(GameRecord, GameRow)
_CHAT_COLUMNS = _columns(ChatRecord, ChatRow)
_SEAT_COLUMNS = _columns(SeatRecord, SeatRow)
_USER_COLUMNS = _columns(UserRecord, UserRow)
# Where each record's columns start in a row of the SELECT.
_CHAT_AT = len(_GAME_COLUMNS)
_SEAT_AT = _CHAT_AT + len(_CHAT_COLUMNS)
_USER_AT = _SEAT_AT + len(_SEAT_COLUMNS)

#: The ORM path's SELECT of a game with its players, for the records' columns only.
LOAD = PlainStatement(
    GAME_WITH_PLAYERS.with_only_columns(
        *_GAME_COLUMNS, *_CHAT_COLUMNS, *_SEAT_COLUMNS, *_USER_COLUMNS
    )
)
# The game's and the chat's columns are decoded once; a seat's and its user's on each row.
_DECODE_ONCE = tuple((index, decode) for index, decode in LOAD.decoders if index < _SEAT_AT)
_DECODE_EACH = tuple((index, decode) for index, decode in LOAD.decoders if index >= _SEAT_AT)

#: The columns a step writes (:meth:`bot.services.games.GameStore.columns`), sorted as the
#: ORM path asks for its statement.
SAVED_COLUMNS = ("deadline_at", "recent", "state", "status")
SAVE = PlainStatement(save_statement(SAVED_COLUMNS))
APPEND = PlainStatement(APPEND_ACTION)
TIMEOUTS = PlainStatement(SET_TIMEOUTS)


def _decoded(row: Sequence[Any], decoders: Sequence[tuple[int, Codec]]) -> list[Any]:
    values = list(row)
    for index, decode in decoders:
        values[index] = decode(values[index])
    return values


def load(connection: sqlite3.Connection, game_id: int) -> GameRecords | None:
    """The game with its chat, seats and users, in one SELECT; ``None`` if there is none."""
    rows = connection.execute(LOAD.sql, LOAD.parameters({"game_id": game_id})).fetchall()
    if not rows:
        return None
    first = _decoded(rows[0], _DECODE_ONCE)
    game = GameRecord(*first[:_CHAT_AT])
    game.options = game.options or {}
    game.recent = game.recent or []
    # A chat's first column is never NULL: NULL there is the outer join finding no chat.
    chat = ChatRecord(*first[_CHAT_AT:_SEAT_AT]) if first[_CHAT_AT] is not None else None
    seats: list[SeatRecord] = []
    users: dict[int, UserRecord] = {}
    for row in rows:
        if row[_SEAT_AT] is None:  # no seats: the outer join's one row of NULLs
            continue
        values = _decoded(row, _DECODE_EACH) if _DECODE_EACH else row
        seat = SeatRecord(*values[_SEAT_AT:_USER_AT])
        seats.append(seat)
        if seat.user_id is not None:
            users[seat.user_id] = UserRecord(*values[_USER_AT:])
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
    parameters = SAVE.parameters(
        {
            "state": state,
            "status": status,
            "deadline_at": deadline_at,
            "recent": recent,
            "game_id": game_id,
            "expected": expected_version,
        }
    )
    return connection.execute(SAVE.sql, parameters).rowcount == 1


def append_action(
    connection: sqlite3.Connection,
    game_id: int,
    version: int,
    seat: int | None,
    source: str,
    action: str | None,
    at: float,
) -> None:
    parameters = APPEND.parameters(
        {
            "game_id": game_id,
            "version": version,
            "seat": seat,
            "source": source,
            "action": action,
            "at": at,
        }
    )
    connection.execute(APPEND.sql, parameters)


def set_timeouts(connection: sqlite3.Connection, game_id: int, seat: int, timeouts: int) -> None:
    parameters = TIMEOUTS.parameters({"game": game_id, "number": seat, "timeouts": timeouts})
    connection.execute(TIMEOUTS.sql, parameters)
