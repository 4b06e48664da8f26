"""Two bot processes in webhook mode share one PostgreSQL database.

Updates for one game are spread across both processes; deadlines fall due while both poll.
Every action and every timeout must be applied exactly once — the version check in the
``UPDATE`` and ``FOR UPDATE SKIP LOCKED`` on due games are what guarantee it. Runs when
``TEST_DATABASE_URL`` points at PostgreSQL (``.ci/run`` sets it when a server answers).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from bot.storage.database import Database
from tests.e2e.test_process import BotProcess, bot_env
from tests.fakes import FakeBotApi, FakeBotApiServer, FakeCallback, FakeMessage, FakeUser

SECRET = "webhook-secret-for-tests"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def listening(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    await writer.wait_closed()
    return True


def webhook_env(
    base_url: str, token: str, folder: Path, database_url: str, port: int, **more: str
) -> dict[str, str]:
    """A bot process's environment in webhook mode on ``port``, on ``database_url``."""
    env = bot_env(base_url, token, folder)
    env.update(
        DATABASE_URL=database_url,
        WEBHOOK_URL="https://cards.example.test/hook",
        WEBHOOK_SECRET=SECRET,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        **more,
    )
    return env


class Webhooks:
    """Posts the fake's updates to the bot processes, as Telegram would post to a webhook."""

    def __init__(self, api: FakeBotApi, ports: list[int]) -> None:
        self.api = api
        self.ports = ports
        self.sent = 0
        self.client = httpx.AsyncClient(timeout=30)

    async def deliver(self, to: int) -> None:
        """Post every update not posted yet to process ``to``."""
        while self.sent < len(self.api.update_log):
            update = self.api.update_log[self.sent]
            self.sent += 1
            response = await self.client.post(
                f"http://127.0.0.1:{self.ports[to]}/hook",
                content=json.dumps(update),
                headers={
                    "Content-Type": "application/json",
                    "X-Telegram-Bot-Api-Secret-Token": SECRET,
                },
            )
            assert response.status_code == 200, response.text

    async def act(self, to: int, action: Callable[[], Awaitable[object]]) -> object:
        result = await action()
        await self.deliver(to)
        return result


def action_button(
    api: FakeBotApi, user: FakeUser, newer_than: int = -1
) -> tuple[FakeMessage, str] | None:
    """An action button on the user's panel, drawn for a game version past ``newer_than``
    (an edit on its way must not be mistaken for the next move)."""
    for message in reversed(api.bot_messages(user)):
        if "Your hand" in message.text:
            for row in api.buttons(message):
                for label, data in row:
                    if data and data.startswith("A:") and int(data.split(":")[2]) > newer_than:
                        return message, label
            return None
    return None


def version_of(api: FakeBotApi, found: tuple[FakeMessage, str]) -> int:
    message, label = found
    data = next(d for row in api.buttons(message) for text, d in row if text == label)
    assert data is not None
    return int(data.split(":")[2])


async def test_two_webhook_processes_apply_each_action_and_timeout_once(
    database_url: str, tmp_path: Path
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL (CI does when a server answers)")
    api = FakeBotApi(flood_limits=False)
    ports = [free_port(), free_port()]
    processes: list[BotProcess] = []
    async with FakeBotApiServer(api) as server:
        for port in ports:
            env = webhook_env(server.base_url, api.token, tmp_path, database_url, port)
            processes.append(BotProcess({**env, "TURN_SECONDS": "10"}))
        hooks = Webhooks(api, ports)
        anna, boris = api.add_user("Anna"), api.add_user("Boris")
        group = api.add_group("Card club", admins=[anna], members=[boris])
        try:
            for process in processes:
                await process.start()
            for port in ports:
                for _ in range(300):
                    if await listening(port):
                        break
                    await asyncio.sleep(0.1)
            await hooks.act(0, lambda: api.send_text(anna, group, "/new rank"))
            await api.wait_until(lambda: bool(api.bot_messages(group)), timeout=30)
            table = api.bot_messages(group)[0]
            join = await hooks.act(1, lambda: api.press(boris, table, "✋ Join"))
            assert isinstance(join, FakeCallback)
            await api.wait_until(lambda: join.answered and "2. Boris" in table.text, timeout=30)
            start = await hooks.act(0, lambda: api.press(anna, table, "▶️ Start"))
            assert isinstance(start, FakeCallback)
            await api.wait_until(lambda: start.answered and "Round 1" in table.text, timeout=30)

            # The same button pressed twice, once to each process: applied once.
            pressed = -1
            for turn in range(4):
                await api.wait_until(
                    lambda past=pressed: bool(
                        action_button(api, anna, past) or action_button(api, boris, past)
                    ),
                    timeout=30,
                )
                mover = anna if action_button(api, anna, pressed) else boris
                found = action_button(api, mover, pressed)
                assert found is not None
                pressed = version_of(api, found)
                first = await api.press(mover, *found)
                second = await api.press(mover, *found)
                await asyncio.gather(hooks.deliver(turn % 2), hooks.deliver(1 - turn % 2))
                pair = (first, second)
                await api.wait_until(lambda p=pair: all(c.answered for c in p), timeout=30)
                refused = [c for c in (first, second) if c.text]
                assert len(refused) == 1, (first.text, second.text)
                await asyncio.sleep(0.5)

            # Nobody moves: the 10 s window closes while both processes poll.
            await asyncio.sleep(13)
        finally:
            for process in processes:
                await process.stop()
    db = Database.from_url(database_url)
    try:
        async with db.engine.connect() as connection:
            actions = (
                await connection.execute(
                    text("SELECT source, count(*) FROM actions GROUP BY source")
                )
            ).all()
            versions = (
                await connection.execute(
                    text(
                        "SELECT count(*), count(DISTINCT version), "
                        "max(version) - min(version) + 1 FROM actions"
                    )
                )
            ).one()
    finally:
        await db.close()
    counts = dict(actions)
    assert counts.get("press") == 4, counts
    assert counts.get("timeout") == 1, counts
    total, distinct, span = versions
    assert total == distinct == span == 6, "the deal, 4 presses, 1 timeout: one per version"
    for process in processes:
        log = process.log.decode()
        assert "Traceback" not in log and " ERROR " not in log, log
