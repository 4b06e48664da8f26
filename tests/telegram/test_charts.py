"""The chart worker: charts drawn in another process, kept per player and language, one at a
time per player, and a worker that dies or hangs costs the chart, never the answer."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
import time
from collections.abc import AsyncIterator

import pytest

from bot.i18n import translator
from bot.services.stats import GameStats, PlayerStats
from bot.telegram.charts import (
    WORKER_NICENESS,
    ChartLine,
    ChartPool,
    ChartRequest,
    draw_rating_chart,
)
from bot.telegram.render.boards import chart_request
from tests.telegram.chart_receipts import drawing_receipt, niceness_receipt, receipt

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def request(*ratings: int, x_label: str = "Games") -> ChartRequest:
    return ChartRequest((ChartLine("Rank", ratings),), x_label, "Rating")


@pytest.fixture
async def pool() -> AsyncIterator[ChartPool]:
    charts = ChartPool(drawing_receipt, seconds=10)
    yield charts
    await charts.close()


async def test_a_chart_is_a_png_drawn_in_another_process() -> None:
    stats = PlayerStats(
        1,
        (
            GameStats("rank", 1200, 120, 3, 2, 1, 0, 2, (1000, 1120, 1080, 1200)),
            GameStats("trumps", 950, -50, 1, 0, 0, 1, 0, (1000, 950)),
        ),
    )
    charts = ChartPool(seconds=20)
    try:
        png = await charts.chart(1, "ru", chart_request(translator("ru"), stats))
    finally:
        await charts.close()
    assert png is not None and png.startswith(PNG_SIGNATURE)
    from PIL import Image  # matplotlib's own dependency

    with Image.open(io.BytesIO(png)) as image:
        image.verify()
        assert image.size == (640, 360)
    assert charts.drawn == 1


def test_the_worker_gets_plain_translated_data() -> None:
    stats = PlayerStats(
        1,
        (
            GameStats("rank", 1200, 120, 3, 2, 1, 0, 2, (1000, 1120, 1080, 1200)),
            # A game never finished draws no line.
            GameStats("trumps", 1000, None, 0, 0, 0, 0, 0, (1000,)),
        ),
    )
    english = chart_request(translator("en"), stats)
    assert english.lines == (ChartLine("Rank", (1000, 1120, 1080, 1200)),)
    assert (english.x_label, english.y_label) != ("", "")
    russian = chart_request(translator("ru"), stats)
    assert russian.x_label != english.x_label, "the chart's words are the asker's language"
    assert draw_rating_chart(english).startswith(PNG_SIGNATURE)


async def test_charts_are_kept_until_a_new_rated_game(pool: ChartPool) -> None:
    first = await pool.chart(7, "en", request(1000, 1020, 990))
    pid, number = receipt(first)
    assert pid != os.getpid(), "drawn in the worker process"
    assert await pool.chart(7, "en", request(1000, 1020, 990)) == first, "kept"
    assert pool.drawn == 1

    after_a_game = await pool.chart(7, "en", request(1000, 1020, 990, 1004))
    assert receipt(after_a_game) == (pid, number + 1), "the same worker draws the new one"
    in_russian = await pool.chart(7, "ru", request(1000, 1020, 990, 1004, x_label="Игры"))
    someone_else = await pool.chart(8, "en", request(1000, 1020, 990, 1004))
    assert len({first, after_a_game, in_russian, someone_else}) == 4
    assert pool.drawn == 4
    # Each player's and language's latest chart is kept.
    assert await pool.chart(7, "en", request(1000, 1020, 990, 1004)) == after_a_game
    assert await pool.chart(7, "ru", request(1000, 1020, 990, 1004, x_label="Игры")) == in_russian
    assert pool.drawn == 4


async def test_a_second_stats_while_drawing_waits_for_the_same_chart(pool: ChartPool) -> None:
    slow = request(1000, 1020, 990, x_label="slow")
    charts = await asyncio.gather(*(pool.chart(7, "en", slow) for _ in range(3)))
    assert charts[0] is not None and charts.count(charts[0]) == 3
    assert pool.drawn == 1


async def test_the_least_recently_asked_chart_is_forgotten() -> None:
    pool = ChartPool(drawing_receipt, kept=2)
    try:
        for player in (1, 2, 3):
            await pool.chart(player, "en", request(1000, 1020))
        await pool.chart(3, "en", request(1000, 1020))
        assert pool.drawn == 3
        await pool.chart(1, "en", request(1000, 1020))  # 2 and 3 were asked for since
        assert pool.drawn == 4
    finally:
        await pool.close()


async def test_a_worker_dying_on_a_chart_costs_that_chart_only(
    pool: ChartPool, caplog: pytest.LogCaptureFixture
) -> None:
    before, _ = receipt(await pool.chart(1, "en", request(1000, 1010)))
    caplog.clear()
    assert await pool.chart(2, "en", request(1000, 1010, x_label="die")) is None
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "No rating chart: the worker died; the next chart gets a new worker"
    ]
    after, _ = receipt(await pool.chart(3, "en", request(1000, 1010)))
    assert after not in (before, os.getpid()), "a new worker"


async def test_a_worker_killed_while_idle_is_replaced_before_the_next_chart(
    pool: ChartPool, caplog: pytest.LogCaptureFixture
) -> None:
    before, _ = receipt(await pool.chart(1, "en", request(1000, 1010)))
    os.kill(before, signal.SIGKILL)
    await wait_gone(before)  # the pool reaps it once it has noticed
    caplog.clear()
    after, _ = receipt(await pool.chart(1, "en", request(1000, 1010, 1030)))
    assert after != before
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == ["The chart worker had stopped; starting a new one"]


async def test_a_stuck_worker_is_killed_and_replaced(caplog: pytest.LogCaptureFixture) -> None:
    pool = ChartPool(drawing_receipt, seconds=2)
    try:
        stuck, _ = receipt(await pool.chart(1, "en", request(1000, 1010)))
        caplog.clear()
        assert await pool.chart(2, "en", request(1000, 1010, x_label="hang")) is None
        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert warnings == ["No rating chart: it took too long; the next chart gets a new worker"]
        await wait_gone(stuck)
        after, _ = receipt(await pool.chart(3, "en", request(1000, 1010)))
        assert after != stuck
    finally:
        await pool.close()


async def test_a_drawing_error_costs_that_chart_only(
    pool: ChartPool, caplog: pytest.LogCaptureFixture
) -> None:
    before, _ = receipt(await pool.chart(1, "en", request(1000, 1010)))
    caplog.clear()
    assert await pool.chart(2, "en", request(1000, 1010, x_label="fail")) is None
    (warning,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warning.getMessage() == (
        "No rating chart: drawing it failed (ValueError); the next chart gets a new worker"
    )
    assert warning.exc_info is not None, "an unexpected failure comes with its traceback"
    assert receipt(await pool.chart(3, "en", request(1000, 1010)))[0] != before


async def test_closing_stops_the_worker_for_good() -> None:
    pool = ChartPool(drawing_receipt)
    worker, _ = receipt(await pool.chart(1, "en", request(1000, 1010)))
    await pool.close()
    await wait_gone(worker)
    # A /stats still being handled as the bot stops goes out without a chart.
    assert await pool.chart(2, "en", request(1000, 1010)) is None
    assert pool.drawn == 1


async def wait_gone(pid: int, timeout: float = 10.0) -> None:  # noqa: ASYNC109
    """Wait until process ``pid`` has exited and been reaped."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"process {pid} is still there")


async def test_the_worker_yields_the_cpu_to_the_bot() -> None:
    """A chart can wait, a press cannot: on a busy machine the event loop gets the CPU first."""
    charts = ChartPool(niceness_receipt, seconds=10)
    try:
        drawn = await charts.chart(1, "en", request(1000, 1010, 1020))
    finally:
        await charts.close()
    assert drawn is not None
    assert int(drawn) == min(19, os.nice(0) + WORKER_NICENESS)
