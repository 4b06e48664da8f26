"""``python -m bot`` as a real process, talking HTTP to the fake Bot API on 127.0.0.1.

It exercises what in-process tests cannot: settings from the environment, migrations at
start-up, ``TELEGRAM_API_BASE_URL``, and a game that survives ``kill -9``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes import FakeBotApi, FakeBotApiServer, FakeMessage, FakeUser

ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.process: asyncio.subprocess.Process | None = None
        self.log = b""

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=ROOT,
            env=self.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, nothing in memory survives."""
        assert self.process is not None and self.process.stdout is not None
        self.process.send_signal(signal.SIGKILL)
        self.log += await self.process.stdout.read()
        await self.process.wait()

    async def stop(self, signum: int = signal.SIGINT) -> None:
        assert self.process is not None and self.process.stdout is not None
        if self.process.returncode is None:
            self.process.send_signal(signum)
            try:
                self.log += await asyncio.wait_for(self.process.stdout.read(), 20)
            finally:
                await self.process.wait()


@pytest.fixture
async def server() -> AsyncIterator[tuple[FakeBotApi, str]]:
    api = FakeBotApi(flood_limits=False)
    async with FakeBotApiServer(api) as running:
        yield api, running.base_url


def bot_env(base_url: str, token: str, folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DATABASE_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=token,
        TELEGRAM_API_BASE_URL=base_url,
        DATABASE_URL=f"sqlite+aiosqlite:///{folder / 'data' / 'cardroom.db'}",
        TURN_SECONDS="60",
        COMPUTER_DELAY_SECONDS="0.2",
        LOG_LEVEL="INFO",
        HEALTH_PORT="0",
    )
    return env


def panel_button(
    api: FakeBotApi, user: FakeUser, version: int | None = None
) -> tuple[FakeMessage, str] | None:
    """The first action button on the user's panel (``A:<game>:<version>:<code>``); with
    ``version``, only one drawn for that version of the game."""
    for message in reversed(api.bot_messages(user)):
        if "Your hand" in message.text:
            actions = [
                text
                for row in api.buttons(message)
                for text, data in row
                if data
                and data.startswith("A:")
                and (version is None or data.split(":")[2] == str(version))
            ]
            return (message, actions[0]) if actions else None
    return None


def game_version(folder: Path) -> int:
    """The version of the one game in the bot's database, read beside the running bot."""
    with sqlite3.connect(folder / "data" / "cardroom.db") as connection:
        (version,) = connection.execute("SELECT version FROM games").fetchone()
    return int(version)


async def test_without_a_token_it_says_what_to_set_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode != 0
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "TELEGRAM_BOT_TOKEN" in lines[0]
    assert out == b""


async def test_a_game_over_http_survives_kill_9(
    server: tuple[FakeBotApi, str], tmp_path: Path
) -> None:
    api, base_url = server
    bot = BotProcess(bot_env(base_url, api.token, tmp_path))
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    try:
        await bot.start()
        await api.wait_until(lambda: bool(api.calls_of("getUpdates")), timeout=60)
        assert (tmp_path / "data" / "cardroom.db").exists(), "data folder created, migrated"

        await api.send_text(anna, group, "/new rank")
        await api.wait_until(lambda: bool(api.bot_messages(group)), timeout=45)
        table = api.bot_messages(group)[0]
        join = await api.press(boris, table, "✋ Join")
        await api.wait_until(lambda: join.answered and "2. Boris" in table.text, timeout=45)
        start = await api.press(anna, table, "▶️ Start")
        await api.wait_until(lambda: start.answered and "Round 1" in table.text, timeout=45)
        await api.wait_until(
            lambda: bool(panel_button(api, anna) or panel_button(api, boris)), timeout=15
        )
        mover = anna if panel_button(api, anna) else boris
        found = panel_button(api, mover)
        assert found is not None
        played = await api.press(mover, *found)
        await api.wait_until(lambda: played.answered, timeout=45)
        await api.wait_until(lambda: "played" in table.text or "drew" in table.text, timeout=45)
        before = table.text

        await bot.kill()
        await bot.start()
        # The game goes on where it was: the buttons of whoever is to move work. (Not always
        # the other player: in Rank a drawn card that can be played is the drawer's to play.)
        await api.wait_until(lambda: len(api.calls_of("getUpdates")) > 2, timeout=60)
        version = game_version(tmp_path)
        await api.wait_until(
            lambda: any(panel_button(api, p, version) for p in (anna, boris)), timeout=45
        )
        player = anna if panel_button(api, anna, version) else boris
        found = panel_button(api, player, version)
        assert found is not None
        after_restart = await api.press(player, *found)
        await api.wait_until(lambda: after_restart.answered, timeout=45)
        assert after_restart.text in (None, "")
        await api.wait_until(lambda: table.text != before, timeout=45)
        assert "Round" in table.text
    finally:
        await bot.stop()
    log = bot.log.decode()
    assert "Traceback" not in log and " ERROR " not in log, log
    assert api.token not in log, "the token never reaches the log"
