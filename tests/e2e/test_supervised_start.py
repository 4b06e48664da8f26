"""A start a supervisor can watch over (issue #36): a database server that is not up yet is
waited for, one line a try, and the bot starts once it answers; what cannot pass exits 2 and
what may pass exits 3; SIGTERM stops the start-up at once; ``LOG_FORMAT=json`` makes every
line of stderr one JSON object, the token never in it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.e2e.test_process import ROOT
from tests.e2e.test_start_up import TOKEN, closed_port, last_word, start_up

SECRET_HALF = TOKEN.partition(":")[2]


def needs_postgresql(url: str) -> None:
    pytest.importorskip("asyncpg", reason="PostgreSQL's driver is not installed")
    if not url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL")


@contextlib.asynccontextmanager
async def relay(port: int, host: str, to: int) -> AsyncIterator[None]:
    """Pass the connections made to 127.0.0.1:``port`` on to ``host``:``to`` (a database
    server that comes up on ``port`` once this starts)."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(host, to)
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    server = await asyncio.start_server(connected, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()


def environment(folder: Path, **settings: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "DATABASE_", "WEBHOOK_", "LOG_"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    env.update(
        PYTHONPATH=str(ROOT),
        TELEGRAM_BOT_TOKEN=TOKEN,
        LOG_LEVEL="INFO",
        HEALTH_PORT="0",
        # No Bot API there: once the database is ready, the bot stops as it logs in (3).
        TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{closed_port()}/bot",
        TELEGRAM_WAIT_SECONDS="0",
    )
    env.update(settings)
    return env


@contextlib.asynccontextmanager
async def bot_process(folder: Path, **settings: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``python -m bot`` in ``folder`` with ``settings`` over the ``environment``, its log on
    a pipe; killed at the block's end if it still runs (a test that failed half-way)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=folder,
        env=environment(folder, **settings),
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def lines_until(stream: asyncio.StreamReader, wanted: str, said: list[str]) -> str:
    """Read ``stream`` line by line into ``said`` until a line holds ``wanted``; that line."""
    while True:
        line = (await asyncio.wait_for(stream.readline(), 30)).decode()
        assert line, f"the bot ended before it said {wanted!r}: {''.join(said)}"
        said.append(line)
        if wanted in line:
            return line


async def stopped_by_sigterm(process: asyncio.subprocess.Process, said: list[str]) -> str:
    """SIGTERM to a bot waiting at its start: it stops at once with status 0 and says so,
    no fault logged; what it said after the signal."""
    assert process.stderr is not None
    process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    rest = (await asyncio.wait_for(process.stderr.read(), 10)).decode()
    await process.wait()
    assert time.monotonic() - started < 3
    assert process.returncode == 0, "".join(said) + rest
    assert "Stopped while starting (SIGTERM)" in rest
    assert "Traceback" not in rest and " ERROR " not in rest, rest
    return rest


async def test_a_database_that_comes_up_during_the_wait_is_waited_for_one_line_a_try(
    database_url: str, tmp_path: Path
) -> None:
    needs_postgresql(database_url)
    real = make_url(database_url)
    port = closed_port()
    url = real.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=environment(tmp_path, DATABASE_URL=url, DATABASE_WAIT_SECONDS="30"),
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    # Refused twice (however long the start takes on a busy machine), then the server is up.
    early: list[bytes] = []
    while sum(b" WARNING bot.startup: " in line for line in early) < 2:
        line = await asyncio.wait_for(process.stderr.readline(), 60)
        assert line, b"".join(early).decode()
        early.append(line)
    async with relay(port, real.host or "127.0.0.1", real.port or 5432):
        err = (b"".join(early) + await asyncio.wait_for(process.stderr.read(), 60)).decode()
        await process.wait()
    tries = [line for line in err.splitlines() if " WARNING bot.startup: " in line]
    assert len(tries) >= 2, err
    assert tries[0].endswith(
        "is not up yet (the connection was refused; is the database server running on that "
        "host and port?); trying again in 0.5 s"
    ), tries[0]
    assert tries[1].endswith("; trying again in 1.0 s"), tries[1]
    assert "Database schema is up to date" in err, "the bot went on once it answered"
    assert last_word(err).startswith("cardroom: could not reach the Bot API"), err
    assert process.returncode == 3


async def test_a_refused_role_is_a_setting_to_fix_not_waited_for(
    database_url: str, tmp_path: Path
) -> None:
    needs_postgresql(database_url)
    url = make_url(database_url).set(username="nobody_at_all", password="hunter2")
    started = time.monotonic()
    status, err = await start_up(tmp_path, DATABASE_URL=url.render_as_string(hide_password=False))
    assert time.monotonic() - started < 20, "not waited for: waiting changes nothing"
    assert status == 2, "a supervisor must not start it again (RestartPreventExitStatus=2)"
    line = last_word(err)
    assert line.startswith(
        "cardroom: could not connect to the database postgresql+asyncpg://nobody_at_all:***@"
    ), line
    assert "nobody_at_all" in line and "hunter2" not in err


async def test_sigterm_while_waiting_for_the_database_stops_at_once_with_status_0(
    tmp_path: Path,
) -> None:
    """As PID 1 in a container, a process without a handler of its own ignores SIGTERM: the
    start-up must install one before anything else, or a stop waits for SIGKILL."""
    pytest.importorskip("asyncpg", reason="PostgreSQL's driver is not installed")
    port = closed_port()
    async with bot_process(
        tmp_path,
        DATABASE_URL=f"postgresql+asyncpg://cardroom:hunter2@127.0.0.1:{port}/cardroom",
        DATABASE_WAIT_SECONDS="600",
    ) as process:
        assert process.stderr is not None
        said: list[str] = []
        await lines_until(process.stderr, "is not up yet", said)
        await stopped_by_sigterm(process, said)


async def test_json_logs_are_one_object_a_line_and_never_show_the_token(tmp_path: Path) -> None:
    status, err = await start_up(
        tmp_path,
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
        TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{closed_port()}/bot",
        LOG_FORMAT="json",
        LOG_LEVEL="DEBUG",
    )
    assert status == 3
    assert SECRET_HALF not in err
    records = [json.loads(line) for line in err.splitlines()]
    assert len(records) > 5
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys(), record
        assert record["time"].endswith("+00:00")
    assert {"level": "INFO", "logger": "bot.storage.migrate"} in [
        {"level": r["level"], "logger": r["logger"]} for r in records
    ]
    last = records[-1]
    assert (last["level"], last["logger"]) == ("CRITICAL", "cardroom"), last
    assert last["message"].startswith("could not reach the Bot API at TELEGRAM_API_BASE_URL")


def test_json_logs_redact_the_token_in_messages_exceptions_and_uncaught_tracebacks() -> None:
    program = (
        "import logging\n"
        "from bot.__main__ import configure_logging\n"
        f"token = {TOKEN!r}\n"
        "configure_logging('INFO', {token: '<token>'}, 'json')\n"
        "log = logging.getLogger('bot.test')\n"
        "log.info('Calling %s/getMe', 'https://api.telegram.org/bot' + token)\n"
        "try:\n"
        "    raise ValueError('refused ' + token)\n"
        "except ValueError:\n"
        "    log.warning('Caught', exc_info=True)\n"
        "raise RuntimeError('dying with ' + token)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", program],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert SECRET_HALF not in run.stderr
    info, caught, uncaught = (json.loads(line) for line in run.stderr.splitlines())
    assert info["message"] == "Calling https://api.telegram.org/bot<token>/getMe"
    assert "ValueError: refused <token>" in caught["exception"]
    assert (uncaught["level"], uncaught["message"]) == ("CRITICAL", "Uncaught exception")
    assert "RuntimeError: dying with <token>" in uncaught["exception"]


async def test_a_log_format_that_is_not_one_is_one_line(tmp_path: Path) -> None:
    status, err = await start_up(tmp_path, LOG_FORMAT="xml")
    assert status == 2
    assert err == "cardroom: LOG_FORMAT must be one of text, json (got 'xml')\n"
