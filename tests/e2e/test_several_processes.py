"""Several webhook processes on one PostgreSQL: one leads, the others store and stand by.

A press posted to any process is stored before its 200 and handled by the leader; the leader
killed (SIGKILL) just after it answered a press: a standby leads within seconds, applies the
press once, edits the same panels; SIGTERM stops a process within three seconds. Runs when
``TEST_DATABASE_URL`` points at PostgreSQL (``.ci/run`` sets it when a server answers).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from bot.storage.database import Database
from tests.e2e.test_process import ROOT, BotProcess, bot_env
from tests.e2e.test_webhook_processes import (
    Webhooks,
    action_button,
    free_port,
    version_of,
    webhook_env,
)
from tests.fakes import FakeBotApi, FakeBotApiServer, FakeCallback, FakeUser


async def role(port: int) -> str | None:
    try:
        async with httpx.AsyncClient(timeout=2) as client:
            answer = await client.get(f"http://127.0.0.1:{port}/readyz")
    except httpx.HTTPError:
        return None
    return str(answer.json().get("role")) if answer.status_code == 200 else None


async def roles(ports: list[int]) -> list[str | None]:
    return list(await asyncio.gather(*(role(port) for port in ports)))


async def leader_and_standby(ports: list[int]) -> tuple[int, int]:
    """Wait until one of the two processes leads and the other stands by: their indices."""

    async def one_leader() -> bool:
        return sorted(map(str, await roles(ports))) == ["leader", "standby"]

    await wait_for(one_leader, 60)
    leader = (await roles(ports)).index("leader")
    return leader, 1 - leader


async def wait_for(condition: Callable[[], Awaitable[bool]], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await condition():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("condition not met")


def live_panels(api: FakeBotApi, user: FakeUser) -> int:
    """The user's private messages that carry move buttons."""
    return sum(
        1
        for message in api.bot_messages(user)
        if any(data and data.startswith("A:") for row in api.buttons(message) for _, data in row)
    )


async def test_the_leader_killed_after_a_200_hands_over_and_the_press_counts_once(
    database_url: str, tmp_path: Path
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL (CI does when a server answers)")
    api = FakeBotApi()  # Telegram's strict windows
    ports = [free_port(), free_port()]
    # Each process's own private listener of /readyz (never on its webhook's port).
    health = [free_port(), free_port()]
    processes: list[BotProcess] = []
    async with FakeBotApiServer(api) as server:
        for port, probe in zip(ports, health, strict=True):
            env = webhook_env(
                server.base_url, api.token, tmp_path, database_url, port, HEALTH_PORT=str(probe)
            )
            processes.append(BotProcess({**env, "TURN_SECONDS": "120"}))
        hooks = Webhooks(api, ports)
        anna, boris = api.add_user("Anna"), api.add_user("Boris")
        group = api.add_group("Card club", admins=[anna], members=[boris])
        try:
            for process in processes:
                await process.start()

            leader, standby = await leader_and_standby(health)

            # Everything posted to the standby: stored there, handled by the leader.
            await hooks.act(standby, lambda: api.send_text(anna, group, "/new rank"))
            await api.wait_until(lambda: bool(api.bot_messages(group)), timeout=30)
            table = api.bot_messages(group)[0]
            join = await hooks.act(standby, lambda: api.press(boris, table, "✋ Join"))
            assert isinstance(join, FakeCallback)
            await api.wait_until(lambda: join.answered and "2. Boris" in table.text, timeout=30)
            start = await hooks.act(standby, lambda: api.press(anna, table, "▶️ Start"))
            assert isinstance(start, FakeCallback)
            await api.wait_until(lambda: start.answered and "Round 1" in table.text, timeout=30)
            await api.wait_until(
                lambda: bool(action_button(api, anna) or action_button(api, boris)), timeout=30
            )

            # A press posted to the leader, which dies 3 ms after its 200.
            mover = anna if action_button(api, anna) else boris
            found = action_button(api, mover)
            assert found is not None
            pressed = version_of(api, found)
            await api.press(mover, *found)
            await hooks.deliver(leader)
            await asyncio.sleep(0.003)
            killed_at = time.monotonic()
            await processes[leader].kill()

            async def took_over() -> bool:
                return await role(health[standby]) == "leader"

            await wait_for(took_over, 10)
            assert time.monotonic() - killed_at <= 5, "a standby leads within 5 s"
            await api.wait_until(
                lambda: bool(
                    action_button(api, anna, pressed) or action_button(api, boris, pressed)
                ),
                timeout=30,
            )
            for user in (anna, boris):
                assert live_panels(api, user) <= 1, f"{user.first_name} has two live panels"

            # SIGTERM: gone within three seconds.
            stopped_at = time.monotonic()
            await processes[standby].stop(signal.SIGTERM)
            assert time.monotonic() - stopped_at <= 3
        finally:
            for process in processes:
                await process.stop()
    db = Database.from_url(database_url)
    try:
        async with db.engine.connect() as connection:
            presses = (
                await connection.execute(text("SELECT count(*) FROM actions WHERE source='press'"))
            ).scalar_one()
            unhandled = (
                await connection.execute(
                    text("SELECT count(*) FROM inbox WHERE handled_at IS NULL")
                )
            ).scalar_one()
    finally:
        await db.close()
    assert presses == 1, "the press posted to the dying leader counts once"
    assert unhandled == 0
    assert api.stats.too_many_requests == 0
    for process in processes:
        log = process.log.decode()
        assert "Traceback" not in log and " ERROR " not in log, log


async def test_a_leader_whose_lock_is_taken_steps_down_quietly(
    database_url: str, tmp_path: Path
) -> None:
    """An operator ends the leader's lock session: it knows at once, calls Telegram no more,
    hands over and exits (status 1, for its supervisor); the standby leads. Neither logs an
    error."""
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL (CI does when a server answers)")
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    api = FakeBotApi(flood_limits=False)
    ports = [free_port(), free_port()]
    # Each process's own private listener of /readyz (never on its webhook's port).
    health = [free_port(), free_port()]
    processes: list[BotProcess] = []
    async with FakeBotApiServer(api) as server:
        for port, probe in zip(ports, health, strict=True):
            env = webhook_env(
                server.base_url, api.token, tmp_path, database_url, port, HEALTH_PORT=str(probe)
            )
            processes.append(BotProcess(env))
        try:
            for process in processes:
                await process.start()
            leader, standby = await leader_and_standby(health)
            dsn = make_url(database_url).set(drivername="postgresql")
            operator = await asyncpg.connect(dsn.render_as_string(hide_password=False))
            try:
                # The lock's session in this test's database (others may share the server).
                ended = await operator.fetchval(
                    "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_locks "
                    "WHERE locktype = 'advisory' AND granted AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())) AS ended"
                )
            finally:
                await operator.close()
            assert ended == 1

            async def took_over() -> bool:
                return await role(health[standby]) == "leader"

            await wait_for(took_over, 10)
            stepped_down = processes[leader].process
            assert stepped_down is not None and stepped_down.stdout is not None
            assert await asyncio.wait_for(stepped_down.wait(), 10) == 1
            processes[leader].log += await stepped_down.stdout.read()
        finally:
            for process in processes:
                await process.stop()
    log = processes[leader].log.decode()
    assert "Lost the connection that made this process the leader" in log, log
    for process in processes:
        log = process.log.decode()
        assert "Traceback" not in log and " ERROR " not in log, log


async def test_a_second_process_on_one_sqlite_file_says_so_in_one_line(tmp_path: Path) -> None:
    api = FakeBotApi(flood_limits=False)
    async with FakeBotApiServer(api) as server:
        env = bot_env(server.base_url, api.token, tmp_path)
        first, second = BotProcess(env), BotProcess(env)
        try:
            await first.start()
            await api.wait_until(lambda: bool(api.calls_of("getUpdates")), timeout=60)
            await second.start()
            assert second.process is not None and second.process.stdout is not None
            output = await asyncio.wait_for(second.process.stdout.read(), 60)
            assert await second.process.wait() == 2
        finally:
            await first.stop()
    lines = output.decode().strip().splitlines()
    assert len(lines) == 1 and "another Cardroom process" in lines[0], lines
    assert "PostgreSQL" in lines[0]


async def test_a_mini_app_socket_on_a_standby_plays_through_the_leader(
    database_url: str, tmp_path: Path
) -> None:
    """The page's socket is held by a standby: its presses go into the inbox, the leader
    handles them, and the answers and new states reach the standby's socket by NOTIFY."""
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL (CI does when a server answers)")
    from tests.e2e.test_miniapp import Page, signed

    api = FakeBotApi(flood_limits=False)
    ports = [free_port(), free_port()]
    # Each process's own private listener of /readyz (never on its webhook's port).
    health = [free_port(), free_port()]
    webapp = "https://cards.example.test"
    processes: list[BotProcess] = []
    async with FakeBotApiServer(api) as server:
        for port, probe in zip(ports, health, strict=True):
            env = webhook_env(
                server.base_url, api.token, tmp_path, database_url, port, HEALTH_PORT=str(probe)
            )
            processes.append(BotProcess({**env, "WEBAPP_URL": webapp}))
        hooks = Webhooks(api, ports)
        anna = api.add_user("Anna", started=True)
        boris = api.add_user("Boris", started=True)
        group = api.add_group("Card club", admins=[anna], members=[boris])
        try:
            for process in processes:
                await process.start()

            _, standby = await leader_and_standby(health)
            await hooks.act(standby, lambda: api.send_text(anna, group, "/new davayka"))
            await api.wait_until(lambda: bool(api.bot_messages(group)), timeout=30)
            table = api.bot_messages(group)[0]
            await hooks.act(standby, lambda: api.press(boris, table, "✋ Join"))
            await api.wait_until(lambda: "2. Boris" in table.text, timeout=30)
            await hooks.act(standby, lambda: api.press(anna, table, "▶️ Start"))
            await api.wait_until(
                lambda: "Ready" in str(api.buttons(api.bot_messages(anna)[-1])), timeout=30
            )
            db = Database.from_url(database_url)
            try:
                async with db.engine.connect() as connection:
                    game_id = (
                        await connection.execute(text("SELECT max(id) FROM games"))
                    ).scalar_one()
            finally:
                await db.close()

            from tornado.httpclient import HTTPRequest
            from tornado.websocket import websocket_connect

            request = HTTPRequest(
                f"ws://127.0.0.1:{ports[standby]}/app/socket", headers={"Origin": webapp}
            )
            page = Page(await websocket_connect(request))
            await page.send({"t": "hello", "init_data": signed(api.token, anna), "game": game_id})
            await page.until(lambda: bool(page.of("state")), 10)
            version = page.view["version"]
            await page.send({"t": "act", "code": "r", "seq": 1})
            await page.until(lambda: any(a["seq"] == 1 for a in page.of("answer")), 10)
            assert next(a for a in page.of("answer") if a["seq"] == 1)["ok"] is True
            await page.until(lambda: page.view["version"] > version, 10)
            assert page.view["pressed"][0] is True or page.view["phase"] == "play"
            page.close()
        finally:
            for process in processes:
                await process.stop()
    for process in processes:
        log = process.log.decode()
        assert "Traceback" not in log and " ERROR " not in log, log


async def test_a_second_sandbox_on_one_database_says_so_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'sandbox.db'}"
    command = [sys.executable, "-m", "bot", "--sandbox", "--port", "0", "--database-url", url]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DATABASE_"))}
    first = await asyncio.create_subprocess_exec(
        *command,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert first.stdout is not None
        line = await asyncio.wait_for(first.stdout.readline(), 60)
        assert b"Cardroom sandbox:" in line
        second = await asyncio.create_subprocess_exec(
            *command,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(second.communicate(), 60)
    finally:
        first.terminate()
        await first.wait()
    assert second.returncode == 2
    assert out == b""
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "another Cardroom process" in lines[0], lines
