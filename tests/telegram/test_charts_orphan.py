"""The chart worker ends with its bot, even a bot killed with SIGKILL (which cannot stop it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A bot-like parent: it starts the chart pool, has one chart drawn (a receipt naming the
#: worker), says the worker's pid, then either idles or has a drawing in hand that never ends.
PARENT = """
import asyncio, sys
from bot.telegram.charts import ChartLine, ChartPool, ChartRequest
from tests.telegram.chart_receipts import drawing_receipt, receipt

async def main() -> None:
    pool = ChartPool(drawing_receipt, seconds=60)
    chart = ChartRequest((ChartLine("Rank", (1000, 1010)),), "Games", "Rating")
    worker, _ = receipt(await pool.chart(1, "en", chart))
    print(worker, flush=True)
    if sys.argv[1] == "drawing":
        stuck = ChartRequest((ChartLine("Rank", (1000, 1010)),), "hang", "Rating")
        await pool.chart(2, "en", stuck)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie nobody has reaped yet has ended too)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


@pytest.fixture
def parent_process() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("worker_is", ["idle", "drawing"])
def test_the_chart_worker_ends_with_a_bot_killed_by_sigkill(
    parent_process: list[subprocess.Popen[str]], worker_is: str
) -> None:
    bot = subprocess.Popen(
        [sys.executable, "-c", PARENT, worker_is],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    parent_process.append(bot)
    assert bot.stdout is not None
    worker = int(bot.stdout.readline())
    assert not gone(worker)
    if worker_is == "drawing":
        time.sleep(0.3)  # the stuck drawing has reached the worker
    bot.send_signal(signal.SIGKILL)
    bot.wait()
    deadline = time.monotonic() + 3.0
    while not gone(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert gone(worker), "the chart worker outlived its bot"
    finally:
        if not gone(worker):
            os.kill(worker, signal.SIGKILL)
