"""A bot process's own chores (bot/serve.py)."""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from bot.app import build_application
from bot.serve import Process
from bot.settings import Settings
from bot.startup import raise_open_file_limit
from bot.storage.leadership import SqliteLeadership

ROOT = Path(__file__).resolve().parents[1]


async def test_what_runs_beside_the_updates_is_forgotten_once_done() -> None:
    """A standby hears of every Davay-ka! state by NOTIFY and pushes it in a task of its
    own: a long-running process must not keep them all."""
    process = object.__new__(Process)  # its chores only: no bot, no database
    process._tasks = set()
    for _ in range(100):
        process._spawn(asyncio.sleep(0), "app-note")
    await asyncio.sleep(0.01)
    assert process._tasks == set()
    process._spawn(asyncio.sleep(60), "journal")
    assert len(process._tasks) == 1
    for task in process._tasks:
        task.cancel()


def test_python_m_bot_raises_its_limit_of_open_files_to_the_hard_one_at_start(
    tmp_path: Path,
) -> None:
    """Every Mini App socket, webhook post and connection is an open file: a soft limit of
    1,024 where the hard one allows far more is raised before anything starts, and said."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip(f"the hard limit of open files is {hard}: nothing to raise")
    start = (
        "import resource, sys\n"
        "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "from bot.__main__ import main\n"
        "sys.exit(main([]))\n"
    )
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "TELEGRAM_BOT_TOKEN": "123456789:" + "A" * 35,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
        # No Bot API there: the bot stops as it logs in, once started up (status 3).
        "TELEGRAM_API_BASE_URL": f"http://127.0.0.1:{port}/bot",
        "TELEGRAM_WAIT_SECONDS": "0",
    }
    run = subprocess.run(
        [sys.executable, "-c", start],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 3, run.stderr
    shown = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    assert f"INFO bot.startup: Open files: at most {shown}, raised from 256 to the hard limit" in (
        run.stderr
    )


def test_a_soft_limit_already_at_the_hard_one_is_said_and_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    caplog.set_level(logging.INFO, "bot.startup")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        assert raise_open_file_limit() == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    shown = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    assert [r.getMessage() for r in caplog.records] == [
        f"Open files: at most {shown} (the hard limit)"
    ]


# -- health and metrics on a listener of their own -------------------------------------------

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    "mode",
    [
        {"webhook_url": "https://cards.example.test/hook"},
        {"webapp_url": "https://cards.example.test"},  # polling, with the Mini App
    ],
    ids=["webhook", "polling-with-mini-app"],
)
async def test_health_and_metrics_are_served_on_their_own_listener_never_the_public_one(
    tmp_path: Path, mode: dict[str, str]
) -> None:
    """A catch-all proxy rule in front of the public port must not publish /metrics."""
    public, private = free_port(), free_port()
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=TOKEN,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
        webhook_port=public,
        health_port=private,
        **mode,
    )
    assert settings.health_host == "127.0.0.1", "private unless told otherwise"
    process = Process(
        build_application(settings), settings, SqliteLeadership(settings.database_url)
    )
    process.listen()
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            for path in ("/metrics", "/healthz", "/readyz"):
                answer = await client.get(f"http://127.0.0.1:{public}{path}")
                assert answer.status_code == 404, path
            metrics = await client.get(f"http://127.0.0.1:{private}/metrics")
            assert metrics.status_code == 200
            assert "cardroom_leader" in metrics.text
            health = await client.get(f"http://127.0.0.1:{private}/healthz")
            assert (health.status_code, health.text) == (200, "ok")
            # The public routes stay public: nothing of them on the private port.
            if "webhook_url" in mode:
                hook = await client.post(f"http://127.0.0.1:{public}/hook", content=b"{}")
                assert hook.status_code == 403, "the webhook is there (and wants its secret)"
                assert (await client.post(f"http://127.0.0.1:{private}/hook")).status_code == 404
            else:
                page = await client.get(f"http://127.0.0.1:{public}/app/davayka")
                assert page.status_code == 200
                assert (
                    await client.get(f"http://127.0.0.1:{private}/app/davayka")
                ).status_code == 404
    finally:
        for server in (process._server, process._health_server):
            if server is not None:
                server.stop()
                await server.close_all_connections()


async def test_health_listens_on_health_host(tmp_path: Path) -> None:
    private = free_port()
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=TOKEN,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
        health_host="127.0.0.2",
        health_port=private,
    )
    process = Process(
        build_application(settings), settings, SqliteLeadership(settings.database_url)
    )
    process.listen()
    try:
        assert process._server is None, "polling without the Mini App: nothing public"
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.get(f"http://127.0.0.2:{private}/healthz")
            assert answer.status_code == 200
            with pytest.raises(httpx.ConnectError):
                await client.get(f"http://127.0.0.1:{private}/healthz")
    finally:
        assert process._health_server is not None
        process._health_server.stop()
        await process._health_server.close_all_connections()
