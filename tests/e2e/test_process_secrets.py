"""``python -m bot`` as a real process keeps its secrets: the webhook refuses posts without
the secret (derived from the token when ``WEBHOOK_SECRET`` is not set), and neither the token
nor the webhook secret reaches its output, even at ``LOG_LEVEL=DEBUG`` or when Telegram
refuses the token."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import httpx

from tests.e2e.test_process import ROOT, BotProcess, bot_env
from tests.e2e.test_webhook_processes import free_port, listening
from tests.fakes import FakeBotApi, FakeBotApiServer

WEBHOOK_URL = "https://cards.example.test/hook"


def without_webhook_settings(env: dict[str, str]) -> dict[str, str]:
    """``env`` without any ``WEBHOOK_*`` of the machine running the tests."""
    return {k: v for k, v in env.items() if not k.startswith("WEBHOOK_")}


def assert_keeps_secrets(log: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in log, f"a secret in the output:\n{log}"
    assert " ERROR " not in log, log


async def wait_listening(port: int) -> None:
    for _ in range(300):
        if await listening(port):
            return
        await asyncio.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port}")


async def test_a_webhook_without_webhook_secret_takes_only_posts_with_the_derived_secret(
    tmp_path: Path,
) -> None:
    api = FakeBotApi(flood_limits=False)
    port = free_port()
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    async with FakeBotApiServer(api) as server, httpx.AsyncClient(timeout=10) as client:
        env = without_webhook_settings(bot_env(server.base_url, api.token, tmp_path))
        # WEBHOOK_LISTEN is left to its default: loopback is where a local proxy forwards.
        env.update(WEBHOOK_URL=WEBHOOK_URL, WEBHOOK_PORT=str(port), LOG_LEVEL="DEBUG")
        bot = BotProcess(env)

        async def post(command: str, secret: str | None) -> int:
            await api.send_text(anna, group, command)
            headers = {"Content-Type": "application/json"}
            if secret is not None:
                headers["X-Telegram-Bot-Api-Secret-Token"] = secret
            response = await client.post(
                f"http://127.0.0.1:{port}/hook",
                content=json.dumps(api.update_log[-1]),
                headers=headers,
            )
            return response.status_code

        try:
            await bot.start()
            await api.wait_until(lambda: api.webhook is not None, timeout=30)
            assert api.webhook is not None
            secret = api.webhook.secret_token
            assert secret and re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret), secret
            await wait_listening(port)

            assert await post("/new rank", None) == 403
            assert await post("/new rank", "not-the-secret") == 403
            await asyncio.sleep(1)
            assert api.bot_messages(group) == [], "a refused post changed nothing"

            assert await post("/new rank", secret) == 200
            await api.wait_until(lambda: bool(api.bot_messages(group)), timeout=30)
            table = api.bot_messages(group)[0]
            assert "Join" in str(api.buttons(table))
        finally:
            await bot.stop()
    log = bot.log.decode()
    assert_keeps_secrets(log, api.token, api.token.partition(":")[2], secret)
    # The lines that carried them are there, redacted: the check above had something to find.
    assert "<token>" in log and "<webhook-secret>" in log, log
    assert "WEBHOOK_SECRET is not set" in log
    # Each refusal is one line, at DEBUG as at every level: no traceback.
    assert "Traceback" not in log, log
    assert log.count("answered 403") == 2, log


async def test_at_debug_level_a_polling_bot_never_prints_its_token(tmp_path: Path) -> None:
    api = FakeBotApi(flood_limits=False)
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    async with FakeBotApiServer(api) as server:
        env = without_webhook_settings(bot_env(server.base_url, api.token, tmp_path))
        env.update(LOG_LEVEL="DEBUG")
        bot = BotProcess(env)
        try:
            await bot.start()
            await api.wait_until(lambda: bool(api.calls_of("getUpdates")), timeout=30)
            await api.send_text(anna, group, "/new rank")
            await api.wait_until(lambda: bool(api.bot_messages(group)), timeout=30)
        finally:
            await bot.stop()
    log = bot.log.decode()
    assert_keeps_secrets(log, api.token, api.token.partition(":")[2])
    assert "<token>" in log and "Traceback" not in log, log


async def test_a_token_telegram_refuses_is_one_line_without_the_token(tmp_path: Path) -> None:
    refused = "123456789:AAThisTokenWasRevokedByBotFather-0123456"
    api = FakeBotApi(flood_limits=False)
    assert api.token != refused
    async with FakeBotApiServer(api) as server:
        env = without_webhook_settings(bot_env(server.base_url, refused, tmp_path))
        env.update(LOG_LEVEL="DEBUG")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    output = out.decode() + err.decode()
    assert_keeps_secrets(output, refused, refused.partition(":")[2])
    assert "Traceback" not in output, output
    said = [line for line in err.decode().splitlines() if line.startswith("cardroom:")]
    assert len(said) == 1 and "Telegram refused TELEGRAM_BOT_TOKEN" in said[0], output
    assert err.decode().rstrip().endswith(said[0]), "the last word, nothing after it"
