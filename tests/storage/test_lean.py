"""The plain press path (:mod:`bot.storage.lean`) and the ORM's run the same statements.

What lean sends to SQLite is checked against what the repositories send for the same step,
and what one path writes is read back, byte for byte, through the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from typing import Any

from sqlalchemy import event

from bot.storage import lean
from bot.storage.database import Database
from bot.storage.models import ChatRow, GameRow, SeatRow, UserRow
from bot.storage.repositories import Actions, Games, Seats

STATE = {"hands": [[1, 2], []], "name": "Ærøskøbing ♠", "score": 0.1, "nothing": None}
RECENT = [{"code": "rank.played", "seat": 0, "cards": [12]}, {"code": "rank.passed"}]


async def add_game(db: Database, game_id: int, *, seated: bool = True) -> None:
    """A playing game of a group with a language, a person and a computer seated."""
    async with db.transaction() as session:
        if await session.get(ChatRow, -100) is None:
            session.add(ChatRow(id=-100, kind="supergroup", title="Club", language="uk"))
            session.add(UserRow(id=7, first_name="Anna", language="hr", language_code="de"))
            await session.flush()
        session.add(
            GameRow(
                id=game_id,
                chat_id=-100,
                topic_id=game_id,
                game_key="rank",
                status="playing",
                options={"turn_seconds": 60},
                state={"start": True},
                recent=[],
                seed=12345,
                version=4,
                deadline_at=1_800_000_060.5,
                table_message_id=99,
                creator_id=7,
                join_token=f"token{game_id}",
            )
        )
        await session.flush()
        if seated:
            session.add(SeatRow(game_id=game_id, seat=0, user_id=7, name="Anna", timeouts=1))
            session.add(SeatRow(game_id=game_id, seat=1, user_id=None, name="", dm_message_id=5))


@contextmanager
def statements_sent(db: Database) -> Iterator[list[str]]:
    """The SQL the engine sends while the block runs."""
    sent: list[str] = []

    def record(*args: Any) -> None:
        sent.append(args[2])

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)


def from_clause(sql: str) -> str:
    return sql[sql.index("\nFROM ") :]


def selected(sql: str) -> set[str]:
    """The columns a SELECT reads (without their labels)."""
    columns = sql[: sql.index("\nFROM ")].removeprefix("SELECT ").split(",")
    return {column.split(" AS ")[0].strip() for column in columns}


async def test_the_plain_path_sends_the_orm_paths_statements(sqlite_db: Database) -> None:
    await add_game(sqlite_db, 1)
    async with sqlite_db.transaction() as session:
        with statements_sent(sqlite_db) as sent:
            await Games(session).with_players(1)
            await Games(session).save_if_version(
                1, 4, state=STATE, status="playing", deadline_at=None, recent=RECENT
            )
            await Actions(session).append(1, 5, 0, "press", "p:12", 1_800_000_001.0)
            await Seats(session).set_timeouts(1, 0, 0)
    select_sql, save_sql, append_sql, timeouts_sql = sent
    assert from_clause(lean.LOAD.sql) == from_clause(select_sql)
    assert (lean.SAVE.sql, lean.APPEND.sql, lean.TIMEOUTS.sql) == (
        save_sql,
        append_sql,
        timeouts_sql,
    )
    # The plain SELECT reads some of the columns the ORM's does, and nothing else.
    assert "games.state" in selected(lean.LOAD.sql) < selected(select_sql)


async def test_each_path_stores_the_same_bytes(sqlite_db: Database) -> None:
    await add_game(sqlite_db, 1)
    await add_game(sqlite_db, 2)
    step = {"state": STATE, "status": "playing", "deadline_at": 1_800_000_090.25}
    async with sqlite_db.transaction() as session:
        assert await Games(session).save_if_version(1, 4, recent=RECENT, **step)
        await Actions(session).append(1, 5, 0, "press", "p:12", 1_800_000_001.0)
        await Seats(session).set_timeouts(1, 1, 2)
    async with sqlite_db.sqlite_transaction() as connection:
        assert lean.save_if_version(connection, 2, 4, recent=RECENT, **step)
        assert not lean.save_if_version(connection, 2, 4, recent=RECENT, **step), "stale"
        lean.append_action(connection, 2, 5, 0, "press", "p:12", 1_800_000_001.0)
        lean.set_timeouts(connection, 2, 1, 2)
        games = connection.execute(
            "SELECT state, recent, deadline_at, version, status FROM games ORDER BY id"
        ).fetchall()
        actions = connection.execute(
            "SELECT version, seat, source, action, at FROM actions ORDER BY game_id"
        ).fetchall()
        seats = connection.execute(
            "SELECT seat, timeouts FROM seats ORDER BY game_id, seat"
        ).fetchall()
    assert games[0] == games[1]
    assert games[0][3] == 5
    assert '"Ærøskøbing ♠"' in games[0][0], "as the engine's serializer writes it"
    assert actions[0] == actions[1]
    assert seats[:2] == seats[2:] == [(0, 1), (1, 2)]


def as_record(row: object, record: Any) -> Any:
    """The ORM's row as a plain record of the columns the record names."""
    return record(**{field.name: getattr(row, field.name) for field in fields(record)})


async def test_the_plain_read_is_the_orms(sqlite_db: Database) -> None:
    await add_game(sqlite_db, 1)
    await add_game(sqlite_db, 2, seated=False)
    async with sqlite_db.sqlite_transaction() as connection:
        lean.save_if_version(
            connection, 1, 4, state=STATE, status="playing", deadline_at=None, recent=RECENT
        )
        plain = {game_id: lean.load(connection, game_id) for game_id in (1, 2, 3)}
    assert plain[3] is None
    for game_id in (1, 2):
        records = plain[game_id]
        assert records is not None
        async with sqlite_db.transaction() as session:
            found = await Games(session).with_players(game_id)
        assert found is not None
        game, chat, seated = found
        assert records.game == as_record(game, lean.GameRecord)
        assert records.chat == as_record(chat, lean.ChatRecord)
        assert records.seats == [as_record(seat, lean.SeatRecord) for seat, _ in seated]
        assert records.users == {
            user.id: as_record(user, lean.UserRecord) for _, user in seated if user is not None
        }
    assert plain[1] is not None and plain[1].game.state == STATE
    assert plain[1].game.recent == RECENT
    assert [s.user_id for s in plain[1].seats] == [7, None]
    assert plain[2] is not None and plain[2].seats == [] and plain[2].users == {}
