"""Waiting for a database server that is not up yet (bot/startup.py), and which faults may
pass by themselves (bot/storage/migrate.py)."""

from __future__ import annotations

import logging
import socket

import pytest
from sqlalchemy.exc import DBAPIError

from bot.startup import StartUpError, wait_for_database
from bot.storage.migrate import is_transient


class Clock:
    """A clock that moves only when slept on: the pauses, without waiting for them."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_database_that_never_comes_is_tried_with_backoff_then_given_up_as_transient(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pytest.importorskip("asyncpg", reason="PostgreSQL's driver is not installed")
    url = f"postgresql+asyncpg://cardroom:hunter2@127.0.0.1:{closed_port()}/cardroom"
    clock = Clock()
    caplog.set_level(logging.INFO, "bot.startup")
    with pytest.raises(StartUpError) as raised:
        wait_for_database(url, 20, sleep=clock.sleep, clock=clock)
    assert clock.pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 2.5], "doubling up to 5 s, 20 s in all"
    assert raised.value.transient, "exit status 3: a supervisor starts the bot again"
    assert str(raised.value) == (
        f"could not connect to the database {url.replace('hunter2', '***')} within 20 s "
        "(DATABASE_WAIT_SECONDS): the connection was refused; is the database server running "
        "on that host and port?"
    )
    tries = [r for r in caplog.records if r.name == "bot.startup"]
    assert [r.levelno for r in tries] == [logging.WARNING] * 7, "one line a try"
    assert tries[0].getMessage().endswith("; trying again in 0.5 s")
    assert "hunter2" not in caplog.text


def test_a_sqlite_file_is_not_waited_for() -> None:
    clock = Clock()
    wait_for_database("sqlite+aiosqlite:////nowhere/at/all.db", 60, sleep=clock.sleep, clock=clock)
    assert clock.pauses == []


class AsyncpgLike(Exception):
    """An error of asyncpg's: it carries the server's SQLSTATE."""

    def __init__(self, message: str, sqlstate: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def wrapped(error: Exception) -> DBAPIError:
    """As SQLAlchemy's asyncpg dialect raises it: its own error over the driver's."""
    adapted = AsyncpgLike(str(error), getattr(error, "sqlstate", ""))
    adapted.__cause__ = error
    return DBAPIError("connect", None, adapted)


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (ConnectionRefusedError(111, "Connect call failed"), True),
        (socket.gaierror(-3, "Temporary failure in name resolution"), True),
        (TimeoutError(), True),
        (OSError(113, "No route to host"), True),
        (wrapped(AsyncpgLike("the database system is starting up", "57P03")), True),
        (wrapped(AsyncpgLike("sorry, too many clients already", "53300")), True),
        (wrapped(AsyncpgLike("connection was closed in the middle", "08003")), True),
        (wrapped(AsyncpgLike('password authentication failed for user "x"', "28P01")), False),
        (wrapped(AsyncpgLike('role "x" does not exist', "28000")), False),
        (wrapped(AsyncpgLike('database "x" does not exist', "3D000")), False),
        (wrapped(AsyncpgLike("permission denied for schema public", "42501")), False),
        (OSError(13, "Permission denied"), False),
        (DBAPIError("UPDATE", None, Exception("attempt to write a readonly database")), False),
    ],
)
def test_what_may_pass_is_told_from_what_to_fix(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient
