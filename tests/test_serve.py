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

import pytest

from bot.serve import Process
from bot.startup import raise_open_file_limit

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
        # No Bot API there: the bot stops as it logs in, once started up (status 2).
        "TELEGRAM_API_BASE_URL": f"http://127.0.0.1:{port}/bot",
    }
    run = subprocess.run(
        [sys.executable, "-c", start],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2, run.stderr
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
