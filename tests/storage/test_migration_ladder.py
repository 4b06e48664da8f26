"""The migration ladder: the data of every revision survives every upgrade and downgrade.

Each revision has a seed step (:data:`SEEDS`) that inserts, at that revision's own schema,
rows as the bot of that release wrote them. A database is climbed from empty one revision at a
time, each rung seeded as it is reached, so that at any revision every table it has holds rows.
From each earlier revision it is upgraded to head: every row must still be there with every
value it had (but a column a migration rewrites on purpose, :data:`REWRITTEN`), and on SQLite
no row may point at nothing. From head it steps down one revision at a time, each downgrade
keeping every row its older schema can hold. SQLite always; PostgreSQL with
``TEST_DATABASE_URL``.

**A new migration joins the ladder by adding its seed step to SEEDS**: one small function that
fills the tables it creates and shows what it changes, most often ``played_game(rows, N)``
with its new columns plus a row or two.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, insert, select, text
from sqlalchemy.engine import Connection

from bot.startup import prepare_database
from bot.storage.database import create_engine
from bot.storage.migrate import MigrationError, alembic_config
from bot.storage.models import COMPUTER_PLAYER, GLOBAL_BOARD, Base

T = TypeVar("T")

AT = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
#: The same moment in seconds since the epoch, as the float columns hold time.
EPOCH = AT.timestamp()

#: Rows keyed by table, then by primary key: each row's values by column.
Snapshot = dict[str, dict[tuple[Any, ...], dict[str, Any]]]


class Rows:
    """Inserting rows at one revision, into its tables as they are (reflected once)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.metadata = MetaData()
        self.metadata.reflect(connection)

    def has(self, table: str) -> bool:
        return table in self.metadata.tables

    def add(self, table: str, **values: Any) -> Any:
        """Insert one row; its primary key (the one the database gave it, if not set)."""
        result = self.connection.execute(insert(self.metadata.tables[table]).values(**values))
        return result.inserted_primary_key[0]  # type: ignore[index]


def chat(rung: int) -> int:
    """The group of a seed step's games (each step its own, so that their ids never meet)."""
    return -1000 - rung


def person(rung: int, which: int) -> int:
    """A seed step's people: 1 is Anna, 2 is Boris."""
    return 100 * rung + which


def played_game(
    rows: Rows,
    rung: int,
    *,
    game: dict[str, Any] | None = None,
    people: dict[str, Any] | None = None,
) -> int:
    """A group, two people and a finished game of theirs with a computer seat, as the bot
    writes one: seats, action log, results and, from 0002, the ratings it moved. ``rung``
    keeps the ids apart from other steps'; ``game`` and ``people`` set newer columns."""
    group = rows.add(
        "chats",
        id=chat(rung),
        kind="supergroup",
        title=f"Friday cards {rung}",
        language="en",
        settings={"turn_seconds": 45, "hide_computer": False},
        created_at=AT,
    )
    anna, boris = person(rung, 1), person(rung, 2)
    rows.add(
        "users",
        id=anna,
        first_name="Anna",
        username=f"anna{rung}",
        language_code="en",
        language=None,
        started=True,
        created_at=AT,
        **(people or {}),
    )
    rows.add(
        "users",
        id=boris,
        first_name="Борис",
        username=None,
        language_code="ru",
        language="uk",
        started=False,
        created_at=AT,
        **(people or {}),
    )
    game_id = rows.add(
        "games",
        **{
            "chat_id": group,
            "topic_id": 0,
            "game_key": "rank",
            "status": "finished",
            "options": {"turn_seconds": 45},
            "state": {"hands": [[], [3, 9], [12]], "trick": [], "scores": [10, 4, 1]},
            "recent": [{"kind": "played", "seat": 0, "card": 7}],
            "seed": 2**40 + rung,
            "version": 3,
            "deadline_at": None,
            "table_message_id": 5000 + rung,
            "creator_id": anna,
            "join_token": f"join-{rung}",
            "created_at": AT,
            "started_at": AT,
            "finished_at": AT,
            **(game or {}),
        },
    )
    seated = [(anna, "Anna"), (boris, "Борис"), (None, "Computer")]
    for seat, (user, name) in enumerate(seated):
        rows.add(
            "seats",
            game_id=game_id,
            seat=seat,
            user_id=user,
            name=name,
            dm_message_id=None if user is None else 6000 + 10 * rung + seat,
            timeouts=seat,
        )
        rows.add(
            "actions",
            game_id=game_id,
            version=seat + 1,
            seat=seat,
            source="press" if user is not None else "computer",
            action=f"play:{7 + seat}",
            at=EPOCH + seat,
        )
        rows.add(
            "results",
            game_id=game_id,
            seat=seat,
            user_id=user,
            place=seat + 1,
            score=10.0 - 3 * seat,
            players=len(seated),
            game_key="rank",
            chat_id=group,
            finished_at=AT,
        )
    if rows.has("ratings"):
        for board in (group, GLOBAL_BOARD):
            for seat, (user, _) in enumerate(seated):
                if user is None and board == GLOBAL_BOARD:
                    continue  # one computer rating per board: the steps' would meet here
                player = COMPUTER_PLAYER if user is None else user
                mu = 27.5 - 2.5 * seat
                rows.add(
                    "ratings",
                    chat_id=board,
                    game_key="rank",
                    player_id=player,
                    mu=mu,
                    sigma=7.9,
                    games=1,
                    wins=int(seat == 0),
                    draws=0,
                    losses=int(seat != 0),
                    streak=int(seat == 0),
                    best_streak=int(seat == 0),
                    updated_at=AT,
                )
                rows.add(
                    "rating_changes",
                    game_id=game_id,
                    seat=seat,
                    chat_id=board,
                    game_key="rank",
                    player_id=player,
                    mu_before=25.0,
                    sigma_before=8.333,
                    mu=mu,
                    sigma=7.9,
                    created_at=AT,
                )
    return int(game_id)


def seed_0001(rows: Rows) -> None:
    """A finished game, and one being played in a forum topic, its deadline running."""
    played_game(rows, 1)
    game = rows.add(
        "games",
        chat_id=chat(1),
        topic_id=77,
        game_key="trumps",
        status="playing",
        options={},
        state={"turn": 1},
        recent=[],
        seed=99,
        version=1,
        deadline_at=EPOCH + 30,
        table_message_id=None,
        creator_id=person(1, 2),
        join_token="join-1-open",
        created_at=AT,
        started_at=AT,
        finished_at=None,
    )
    rows.add("seats", game_id=game, seat=0, user_id=person(1, 2), name="Борис", timeouts=0)
    rows.add("seats", game_id=game, seat=1, user_id=None, name="Computer", timeouts=0)
    rows.add("actions", game_id=game, version=1, seat=None, source="timeout", at=EPOCH + 1)


def seed_0002(rows: Rows) -> None:
    """Ratings and rating changes (by ``played_game``)."""
    played_game(rows, 2)


def seed_0003(rows: Rows) -> None:
    """A game whose messages were all delivered (``shown_version``)."""
    played_game(rows, 3, game={"shown_version": 3})


def seed_0004(rows: Rows) -> None:
    """A lobby hosted by the chat's admins (no creator), one person in it."""
    played_game(rows, 4, game={"shown_version": 3})
    lobby = rows.add(
        "games",
        chat_id=chat(4),
        topic_id=0,
        game_key="davayka",
        status="lobby",
        options={"computers": 1},
        state=None,
        recent=[],
        seed=4,
        version=0,
        creator_id=None,
        join_token="join-4-admins",
        created_at=AT,
    )
    rows.add("seats", game_id=lobby, seat=0, user_id=person(4, 1), name="Anna", timeouts=0)


def seed_0005(rows: Rows) -> None:
    """People who turned pings off."""
    played_game(rows, 5, game={"shown_version": 3}, people={"pings": False})


def seed_0006(rows: Rows) -> None:
    """A game numbered in its chat."""
    played_game(rows, 6, game={"shown_version": 3, "number": 1})


def seed_0007(rows: Rows) -> None:
    """A /nextgame request (the waitlist)."""
    played_game(rows, 7, game={"shown_version": 3, "number": 1})
    rows.add("waitlist", chat_id=chat(7), topic_id=0, user_id=person(7, 2), created_at=AT)


def seed_0008(rows: Rows) -> None:
    """Updates in the inbox, handled and not, and the calls of the last minute."""
    played_game(rows, 8, game={"shown_version": 3, "number": 1})
    update = {"update_id": 800, "message": {"chat": {"id": chat(8)}, "text": "/top"}}
    rows.add("inbox", update_id=800, chat_id=chat(8), payload=update, taken_at=EPOCH)
    rows.add(
        "inbox",
        update_id=801,
        chat_id=None,
        payload={"update_id": 801, "poll": {"id": "1"}},
        taken_at=EPOCH,
        handled_at=EPOCH + 1,
    )
    rows.add("telegram_calls", chat_id=chat(8), at=EPOCH + 2)


#: Each revision's seed step, run at that revision. Add one for every new migration.
def seed_0009(rows: Rows) -> None:
    """A game's result in the outbox, not delivered yet, and a reply that was."""
    game = played_game(rows, 9, game={"shown_version": 3, "number": 1})
    rows.add(
        "outbox",
        chat_id=chat(9),
        kind="result",
        game_id=game,
        body={"ratings": {"0": [1000, 1012]}, "provisional": [0]},
        created_at=EPOCH,
    )
    rows.add(
        "outbox",
        chat_id=chat(9),
        kind="call",
        body={"call": ["sendMessage", {"chat_id": chat(9), "text": "Rules"}], "priority": 5},
        created_at=EPOCH,
        delivered_at=EPOCH + 1,
        outcome="sent",
        message_id=42,
    )


SEEDS: dict[str, Callable[[Rows], None]] = {
    "0001": seed_0001,
    "0002": seed_0002,
    "0003": seed_0003,
    "0004": seed_0004,
    "0005": seed_0005,
    "0006": seed_0006,
    "0007": seed_0007,
    "0008": seed_0008,
    "0009": seed_0009,
}

#: Columns a revision rewrites on purpose (table -> columns): an upgrade or downgrade across
#: it may change their values; every other value must come through as it was.
REWRITTEN: dict[str, dict[str, set[str]]] = {
    # Games over before the outbox count as shown (their final tables are not posted again).
    "0009": {"games": {"shown_version"}},
}

#: What the schema below a revision cannot hold, which that revision's downgrade refuses to
#: drop by itself: the statement the operator would run to let it go on.
CANNOT_HOLD = {
    "0004": "DELETE FROM games WHERE creator_id IS NULL",
}


def _revisions() -> list[str]:
    """Every revision, oldest first."""
    scripts = ScriptDirectory.from_config(alembic_config("sqlite+aiosqlite://"))
    return [script.revision for script in reversed(list(scripts.walk_revisions()))]


REVISIONS = _revisions()
HEAD = REVISIONS[-1]


def _missing_seed(revision: str) -> str:
    return f"add a seed step for revision {revision} to SEEDS in {Path(__file__).name}"


async def _on(url: str, work: Callable[[Connection], T]) -> T:
    """``work`` on a connection of the bot's own (foreign keys on), in one transaction."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            return await connection.run_sync(work)
    finally:
        await engine.dispose()


def _snapshot(connection: Connection) -> Snapshot:
    metadata = MetaData()
    metadata.reflect(connection)
    snapshot: Snapshot = {}
    for name, table in metadata.tables.items():
        if name == "alembic_version":
            continue
        key = [column.name for column in table.primary_key.columns]
        snapshot[name] = {
            tuple(row[column] for column in key): dict(row)
            for row in connection.execute(select(table)).mappings()
        }
    return snapshot


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def _orphans(connection: Connection) -> list[Any]:
    if connection.dialect.name != "sqlite":
        return []  # PostgreSQL enforces foreign keys in every statement
    return list(connection.exec_driver_sql("PRAGMA foreign_key_check").all())


async def _migrate(url: str, revision: str, *, down: bool = False) -> None:
    move = command.downgrade if down else command.upgrade
    await asyncio.to_thread(move, alembic_config(url), revision)


async def climb(url: str, top: str) -> None:
    """From an empty database up to revision ``top``, seeding each revision as it is
    reached."""
    for revision in REVISIONS[: REVISIONS.index(top) + 1]:
        seed = SEEDS.get(revision)
        if seed is None:
            pytest.fail(_missing_seed(revision), pytrace=False)
        await _migrate(url, revision)
        await _on(url, lambda connection, seed=seed: seed(Rows(connection)))


def _crossed(start: str, end: str) -> list[str]:
    """The revisions a migration from ``start`` to ``end`` applies or undoes."""
    low, high = sorted((REVISIONS.index(start), REVISIONS.index(end)))
    return REVISIONS[low + 1 : high + 1]


def _lost(before: Snapshot, after: Snapshot, crossed: list[str]) -> list[str]:
    """What of ``before`` is not in ``after``, in the tables both have: rows by primary key,
    and values of the columns both have (but those a crossed revision rewrites)."""
    rewritten: dict[str, set[str]] = {}
    for revision in crossed:
        for table, columns in REWRITTEN.get(revision, {}).items():
            rewritten.setdefault(table, set()).update(columns)
    lost = []
    for table in sorted(before.keys() & after.keys()):
        for key, row in before[table].items():
            kept = after[table].get(key)
            if kept is None:
                lost.append(f"{table} {key}: gone")
                continue
            for column in (row.keys() & kept.keys()) - rewritten.get(table, set()):
                if row[column] != kept[column]:
                    lost.append(f"{table} {key}.{column}: {row[column]!r} -> {kept[column]!r}")
    return lost


def _assert_filled(snapshot: Snapshot, revision: str) -> None:
    empty = sorted(table for table, rows in snapshot.items() if not rows)
    assert empty == [], (
        f"no rows at {revision} in {', '.join(empty)}: the seed step of the revision that "
        "made each must add some"
    )


def test_every_revision_has_a_seed_step() -> None:
    missing = [revision for revision in REVISIONS if revision not in SEEDS]
    assert not missing, _missing_seed(missing[0])
    assert set(SEEDS) <= set(REVISIONS), "a seed step for a revision that does not exist"


@pytest.mark.parametrize("start", REVISIONS[:-1])
async def test_an_upgrade_to_head_keeps_every_row(empty_url: str, start: str) -> None:
    await climb(empty_url, start)
    before = await _on(empty_url, _snapshot)
    _assert_filled(before, start)

    await _migrate(empty_url, "head")

    after = await _on(empty_url, _snapshot)
    assert await _on(empty_url, _revision) == HEAD
    assert _lost(before, after, _crossed(start, HEAD)) == []
    assert sorted(before.keys() - after.keys()) == [], "tables gone"
    assert await _on(empty_url, _orphans) == []


async def test_each_downgrade_keeps_what_the_older_schema_can_hold(empty_url: str) -> None:
    await climb(empty_url, HEAD)
    _assert_filled(await _on(empty_url, _snapshot), HEAD)
    for revision in reversed(REVISIONS):
        below = REVISIONS[REVISIONS.index(revision) - 1] if revision != REVISIONS[0] else None
        before = await _on(empty_url, _snapshot)
        if revision in CANNOT_HOLD:
            with pytest.raises(MigrationError, match=f"revision {below} cannot hold"):
                await _migrate(empty_url, "-1", down=True)
            assert await _on(empty_url, _revision) == revision
            assert await _on(empty_url, _snapshot) == before, "a refused downgrade changed rows"
            remove = text(CANNOT_HOLD[revision])
            await _on(empty_url, lambda connection, remove=remove: connection.execute(remove))
            before = await _on(empty_url, _snapshot)

        await _migrate(empty_url, "-1", down=True)

        assert await _on(empty_url, _revision) == below
        after = await _on(empty_url, _snapshot)
        step = f"{revision} -> {below}"
        assert _lost(before, after, [revision]) == [], f"the downgrade {step} lost rows"
        assert await _on(empty_url, _orphans) == [], f"the downgrade {step} left orphans"
    assert await _on(empty_url, _snapshot) == {}


#: The copy of ``users`` that 0005's failed rebuild left behind before issue 34 was fixed,
#: as SQLite kept it (read from a database the old upgrade had stopped).
LEFTOVER_USERS = """CREATE TABLE _alembic_tmp_users (
	id BIGINT NOT NULL,
	first_name VARCHAR(256) NOT NULL,
	username VARCHAR(64),
	language_code VARCHAR(16),
	language VARCHAR(8),
	started BOOLEAN DEFAULT 0 NOT NULL,
	created_at DATETIME NOT NULL,
	pings BOOLEAN DEFAULT 1 NOT NULL,
	CONSTRAINT pk_users PRIMARY KEY (id)
)"""


def _schema_diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_a_database_the_old_upgrade_left_at_0004_upgrades_and_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "stuck.db"
    url = f"sqlite+aiosqlite:///{path}"
    await climb(url, "0004")
    # What the upgrade did before the fix: 0004's rebuild of games, foreign keys on, deleted
    # its children; 0005's rebuild of users then failed (games point at users), leaving its
    # empty copy behind, and every later start failed on that copy.
    with sqlite3.connect(path) as connection:
        for table in ("seats", "actions", "results", "rating_changes"):
            connection.execute(f"DELETE FROM {table}")
        connection.execute(LEFTOVER_USERS)
    before = await _on(url, _snapshot)
    caplog.set_level(logging.WARNING)

    await asyncio.to_thread(prepare_database, url)
    await asyncio.to_thread(prepare_database, url)  # and the next start says nothing more

    said = [record for record in caplog.records if "issue 34" in record.getMessage()]
    assert [record.levelno for record in said] == [logging.WARNING]
    assert "rows are gone" in said[0].getMessage()
    assert await _on(url, _revision) == HEAD
    after = await _on(url, _snapshot)
    assert "_alembic_tmp_users" not in after
    assert _lost(before, after, _crossed("0004", HEAD)) == []
    assert len(after["games"]) == len(before["games"]) > 0
    assert await _on(url, _schema_diff) == []
