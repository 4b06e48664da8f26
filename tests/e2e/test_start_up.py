"""A start: timers at once, then a redraw of only the games whose messages may be behind; and
a start that cannot happen ends with one line saying why, and an exit status a supervisor can
act on: 2 for a setting to fix (a database the bot cannot open or write), 3 for a fault that
may pass (a database server or a Bot API that does not answer, after waiting for the
database); a database server that is not up yet is waited for, and SIGTERM stops the wait."""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.app import GC_THRESHOLD, settle
from bot.startup import StartUpError, check_database_url
from bot.storage.database import Database
from bot.storage.migrate import upgrade_async
from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import two_player_game
from tests.e2e.test_process import ROOT
from tests.fakes import FakeBotApi

LIMITED = ("sendMessage", "editMessageText")


def sent(api: FakeBotApi) -> int:
    return sum(len(api.calls_of(method)) for method in LIMITED)


async def test_a_restart_after_everything_was_delivered_sends_nothing(harness: Harness) -> None:
    h = harness
    await two_player_game(h)
    await h.settle()
    before = sent(h.api)
    await h.stop()
    await h.start()
    await h.settle()
    assert sent(h.api) == before, "nothing was behind, so nothing is redrawn"


async def test_a_restart_redraws_a_game_whose_messages_were_behind(harness: Harness) -> None:
    h = harness
    anna, _boris, group = await two_player_game(h)
    await h.settle()
    await h.stop()
    # As if the bot died between committing a move and delivering it: the game is one
    # version ahead of what the chats show.
    db = Database.from_url(h.database_url)
    async with db.transaction() as session:
        await session.execute(text("UPDATE games SET shown_version = version - 1"))
    await db.close()
    before = sent(h.api)
    await h.start()
    await h.settle()
    assert sent(h.api) > before, "the game's table and panels were drawn again"
    assert "Round 1" in h.table(group).text
    assert h.panel(anna) is not None


@pytest.fixture
def restore_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_settling_freezes_what_lives_for_ever_and_makes_collections_rarer(
    restore_gc: None,
) -> None:
    settle()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == GC_THRESHOLD


# -- faults at start-up: one line, exit status 2 (a setting to fix) or 3 (may pass) ----------

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"
#: What each database fault ends with: what the bot can open.
WORKS = (
    "sqlite+aiosqlite:///path/to/cardroom.db or postgresql+asyncpg://user:password@host/database"
)


async def start_up(folder: Path, **settings: str) -> tuple[int, str]:
    """``python -m bot`` in ``folder`` with ``settings`` on top of a well-formed token and
    nothing of the machine's own bot settings or proxies; its exit status and stderr, once
    it ends (stdout must stay empty)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "DATABASE_", "WEBHOOK_"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    # A Bot API not reachable is one try (TELEGRAM_WAIT_SECONDS=0), unless a test waits.
    env.update(
        PYTHONPATH=str(ROOT), TELEGRAM_BOT_TOKEN=TOKEN, LOG_LEVEL="INFO", TELEGRAM_WAIT_SECONDS="0"
    )
    env.update(settings)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=folder,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert out == b""
    assert process.returncode is not None
    return process.returncode, err.decode()


def last_word(err: str) -> str:
    """The one ``cardroom:`` line, which must be the last one, with no traceback before it."""
    said = [line for line in err.splitlines() if line.startswith("cardroom: ")]
    assert len(said) == 1, err
    assert err.endswith(said[0] + "\n"), err
    assert "Traceback" not in err and " ERROR " not in err, err
    return said[0]


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def made_read_only(database: Path) -> None:
    """Make the SQLite file ``database`` read-only, for root too (whom file modes do not
    stop): a header whose write version (byte 18) is newer than SQLite knows lets SQLite
    read the file and never write it."""
    with database.open("r+b") as file:
        file.seek(18)
        file.write(bytes([3]))


@pytest.mark.parametrize(
    ("url", "told"),
    [
        ("nosuchdb://cardroom", "DATABASE_URL nosuchdb://cardroom: the scheme 'nosuchdb' is"),
        (
            "postgresql+nosuchdriver://cardroom:hunter2@db/cardroom",
            "DATABASE_URL postgresql+nosuchdriver://cardroom:***@db/cardroom: the scheme "
            "'postgresql+nosuchdriver' is",
        ),
        ("sqlite:///cardroom.db", "DATABASE_URL sqlite:///cardroom.db: the scheme 'sqlite' is"),
        ("hunter2 is no URL", "DATABASE_URL is not a database URL: use"),
    ],
)
async def test_a_database_url_no_driver_can_open_is_one_line(
    tmp_path: Path, url: str, told: str
) -> None:
    status, err = await start_up(tmp_path, DATABASE_URL=url)
    assert status == 2
    (line,) = err.splitlines()
    assert line.startswith(f"cardroom: {told}"), line
    assert line.endswith(f"use {WORKS}"), line
    assert "hunter2" not in err, "a password in the URL is never printed"
    assert not (tmp_path / "data").exists()


async def test_postgresql_that_does_not_answer_is_one_line_without_the_password(
    tmp_path: Path,
) -> None:
    pytest.importorskip("asyncpg", reason="PostgreSQL's driver is not installed")
    port = closed_port()
    status, err = await start_up(
        tmp_path,
        DATABASE_URL=f"postgresql+asyncpg://cardroom:hunter2@127.0.0.1:{port}/cardroom",
        DATABASE_WAIT_SECONDS="0",
    )
    assert status == 3, "it may pass: a supervisor starts the bot again"
    assert err.splitlines() == [
        f"cardroom: could not connect to the database postgresql+asyncpg://cardroom:***@"
        f"127.0.0.1:{port}/cardroom within 0 s (DATABASE_WAIT_SECONDS): the connection was "
        "refused; is the database server running on that host and port?"
    ]


async def test_a_read_only_sqlite_file_is_one_line_whether_or_not_it_needs_migrating(
    tmp_path: Path,
) -> None:
    # Up to date: the migrations write nothing, so only the check after them can tell.
    migrated = tmp_path / "migrated.db"
    await upgrade_async(f"sqlite+aiosqlite:///{migrated}")
    made_read_only(migrated)
    status, err = await start_up(tmp_path, DATABASE_URL=f"sqlite+aiosqlite:///{migrated}")
    assert status == 2
    assert last_word(err) == (
        f"cardroom: could not write to the database sqlite+aiosqlite:///{migrated}: attempt to "
        "write a readonly database; let the bot's user write it (a SQLite file, and its folder "
        "too)"
    )

    # Behind: the first migration is refused.
    empty = tmp_path / "empty.db"
    with sqlite3.connect(empty) as connection:
        connection.execute("CREATE TABLE other_things (id INTEGER)")
    connection.close()
    made_read_only(empty)
    status, err = await start_up(tmp_path, DATABASE_URL=f"sqlite+aiosqlite:///{empty}")
    assert status == 2
    assert err.splitlines() == [
        f"cardroom: could not bring the database sqlite+aiosqlite:///{empty} up to date: attempt "
        "to write a readonly database; let the bot's user write it (a SQLite file, and its "
        "folder too)"
    ]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
async def test_a_sqlite_file_in_a_folder_nobody_may_write_is_one_line(tmp_path: Path) -> None:
    # /proc takes no new file, from root either: a folder without write permission for all.
    status, err = await start_up(tmp_path, DATABASE_URL="sqlite+aiosqlite:////proc/cardroom.db")
    assert status == 2
    line = last_word(err)
    assert line.startswith("cardroom: could not "), line
    assert "the database sqlite+aiosqlite:////proc/cardroom.db " in line, line


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="file modes do not stop root from writing",
)
async def test_a_sqlite_folder_without_write_permission_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    database = folder / "cardroom.db"
    await upgrade_async(f"sqlite+aiosqlite:///{database}")
    database.chmod(0o444)
    folder.chmod(0o555)
    try:
        status, err = await start_up(tmp_path, DATABASE_URL=f"sqlite+aiosqlite:///{database}")
    finally:
        folder.chmod(0o755)
        database.chmod(0o644)
    assert status == 2
    line = last_word(err)
    assert line.startswith("cardroom: could not "), line
    assert f"the database sqlite+aiosqlite:///{database}" in line, line


async def test_a_bot_api_that_does_not_answer_is_one_line_without_secrets(
    tmp_path: Path,
) -> None:
    port = closed_port()
    status, err = await start_up(
        tmp_path,
        TELEGRAM_API_BASE_URL=f"http://cardroom:hunter2@127.0.0.1:{port}/bot",
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
    )
    assert status == 3
    line = last_word(err)
    assert line.startswith(
        "cardroom: could not reach the Bot API at TELEGRAM_API_BASE_URL "
        f"http://cardroom:***@127.0.0.1:{port}/bot: httpx.ConnectError"
    ), line
    assert line.endswith("; check that this server runs and the URL is right"), line
    assert "hunter2" not in err and TOKEN.partition(":")[2] not in err


async def test_telegram_that_does_not_answer_in_time_is_one_line(tmp_path: Path) -> None:
    # A proxy that takes the connection and never answers: the log-in times out.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        status, err = await start_up(
            tmp_path,
            HTTPS_PROXY=f"http://127.0.0.1:{silent.getsockname()[1]}",
            DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
            LOG_LEVEL="WARNING",
        )
    assert status == 3
    assert err.splitlines() == [
        "cardroom: could not reach Telegram at https://api.telegram.org: Timed out; check that "
        "this machine can reach it (network, firewall, proxy)"
    ]


def test_a_driver_that_is_not_installed_is_named_with_what_installs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "asyncpg", None)  # as if never installed
    with pytest.raises(StartUpError) as raised:
        check_database_url("postgresql+asyncpg://cardroom:hunter2@db/cardroom")
    assert str(raised.value) == (
        "DATABASE_URL postgresql+asyncpg://cardroom:***@db/cardroom needs the driver asyncpg, "
        'which is not installed: pip install ".[postgres]"'
    )
