"""``python -m bot --sandbox`` as a real process, for the tests that talk to it over HTTP."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.sandbox.web import PAGE_HEADER

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"Cardroom sandbox: (http://127\.0\.0\.1:\d+/)")
#: What the page's JavaScript sends with each action, and a test acting as the page must too.
AS_THE_PAGE = {PAGE_HEADER: "1"}


@dataclass
class SandboxProcess:
    """A running sandbox: its page's address, its folder, and what it printed."""

    process: asyncio.subprocess.Process
    url: str
    folder: Path
    stdout: str = ""
    stderr: str = ""

    async def stop(self) -> int:
        """Ctrl-C, as a person would press it; the exit status."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGINT)
        assert self.process.stdout is not None and self.process.stderr is not None
        out, err = await asyncio.wait_for(
            asyncio.gather(self.process.stdout.read(), self.process.stderr.read()), 30
        )
        self.stdout += out.decode()
        self.stderr += err.decode()
        return await self.process.wait()


def sandbox_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "DATABASE_", "WEBHOOK_"))
    }
    env.update(
        PYTHONPATH=str(ROOT),
        COMPUTER_DELAY_SECONDS="0.3",
        LOG_LEVEL="INFO",
        PYTHONUNBUFFERED="1",
    )
    return env


async def start_sandbox(folder: Path, *arguments: str) -> SandboxProcess:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--sandbox",
        "--port",
        "0",
        *arguments,
        cwd=folder,
        env=sandbox_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 60)
    except TimeoutError:
        process.kill()
        raise
    found = URL_LINE.search(line.decode())
    if found is None:
        process.kill()
        assert process.stderr is not None
        raise AssertionError(f"no URL printed: {line!r}\n{(await process.stderr.read())!r}")
    return SandboxProcess(process, found[1], folder, stdout=line.decode())


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[SandboxProcess]:
    """The sandbox on a free port in an empty folder; stopped with Ctrl-C, and it must stop
    cleanly: exit status 0, no traceback, no error in its log."""
    running = await start_sandbox(tmp_path)
    try:
        yield running
    finally:
        status = await running.stop()
    assert status == 0, running.stderr
    assert "Traceback" not in running.stderr, running.stderr
    assert " ERROR " not in running.stderr, running.stderr
