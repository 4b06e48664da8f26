"""The ``/stats`` rating chart, drawn in a worker process and kept per player.

Drawing a chart is matplotlib's work: most of a second of CPU on a small machine (several the
first time, importing matplotlib), much of it in C code that holds the GIL. In a thread it
would still hold up every game's presses, so :class:`ChartPool` draws in one worker process
instead, one chart at a time, and keeps each player's chart until his ratings move (his next
rated game) or the words on it change (another language).

The worker gets plain data (:class:`ChartRequest`: the ratings and the words already
translated) and gives back PNG bytes; it imports nothing of python-telegram-bot, the database or
the services — this module imports only the standard library, and matplotlib when it draws.
It is started with "spawn": a fork would copy this process's threads' locks (the database's,
the logging's) in whatever state they were in. A chart is optional: if the worker dies, hangs
or cannot start, ``/stats`` goes out without one, and the next chart gets a new worker.

The worker ends with its bot, however the bot ends: killed with SIGKILL, the bot cannot stop
it, and the worker, waiting for work on a pipe whose ends it holds itself, would never hear
it is gone — so a thread of its own watches the bot (:func:`_end_with_parent`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Final

logger = logging.getLogger(__name__)

#: How long one chart may take in the worker before it is taken for stuck — the first chart
#: starts a Python and imports matplotlib, which takes seconds on a small, busy machine.
CHART_SECONDS: Final = 30.0
#: Charts kept (the latest of each player and language; 20–40 kB each).
KEPT_CHARTS: Final = 256
#: How long a stopping bot lets the worker finish the chart it is drawing.
STOP_SECONDS: Final = 5.0


@dataclass(frozen=True, slots=True)
class ChartLine:
    """One game's line: its name, and the rating before the first game, then after each."""

    label: str
    ratings: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChartRequest:
    """Everything a chart shows, as plain data: what the worker process is given."""

    lines: tuple[ChartLine, ...]
    x_label: str
    y_label: str


DrawChart = Callable[[ChartRequest], bytes]


def draw_rating_chart(request: ChartRequest) -> bytes:
    """A PNG of each game's rating after every game (Agg, in memory)."""
    # Half a second to import: paid by the first chart, not by every start of the bot.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6.4, 3.6), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    for line in request.lines:
        if len(line.ratings) > 1:
            axes.plot(
                range(len(line.ratings)),
                line.ratings,
                marker="o",
                markersize=3,
                label=line.label,
            )
    axes.set_xlabel(request.x_label)
    axes.set_ylabel(request.y_label)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.grid(alpha=0.3)
    axes.legend(loc="best", fontsize="small")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


#: How much lower the chart worker's CPU priority is than the bot's (``nice``).
WORKER_NICENESS = 10
#: Seconds between two looks at the worker's parent process id, beside its sentinel.
PARENT_CHECK_SECONDS: Final = 1.0


def _start_worker() -> None:
    # Ctrl+C in a terminal reaches the whole process group; the bot stops its worker itself,
    # and a worker dying of it first would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A chart can wait; a press cannot: on a busy machine the event loop gets the CPU first.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    threading.Thread(target=_end_with_parent, name="parent-watch", daemon=True).start()


def _end_with_parent() -> None:
    """End this worker process as soon as its parent, the bot, has ended (in the worker).

    The parent's sentinel is the read end of a pipe whose write end only the parent holds
    (multiprocessing's "spawn" opens it for every child): it becomes readable the moment the
    parent is gone, however it went — already, if it went before this thread started. The
    parent process id is looked at too, in case something the bot forked holds the pipe.
    """
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None:
        return  # not started by multiprocessing: nobody to end with
    while not wait([parent.sentinel], PARENT_CHECK_SECONDS):
        if os.getppid() != parent.pid:
            break
    # At once: a drawing in hand is for nobody now, and exiting cleanly would wait for it.
    os._exit(0)


class ChartPool:
    """Rating charts drawn in one worker process (started on the first chart), and kept.

    One chart is drawn at a time; the others wait here, in the event loop, so that
    :data:`CHART_SECONDS` measures a drawing and not a queue. A player's second ``/stats``
    while his chart is being drawn waits for that drawing and gets the same chart.
    """

    def __init__(
        self,
        draw: DrawChart = draw_rating_chart,
        *,
        seconds: float = CHART_SECONDS,
        kept: int = KEPT_CHARTS,
    ) -> None:
        #: Runs in the worker: a module-level function, since it is sent there by name.
        self._draw = draw
        self._seconds = seconds
        self._kept = kept
        self._pool: ProcessPoolExecutor | None = None
        self._charts: OrderedDict[tuple[int, str], tuple[ChartRequest, bytes]] = OrderedDict()
        self._turns: dict[int, asyncio.Lock] = {}
        self._askers: Counter[int] = Counter()
        self._worker = asyncio.Lock()
        self._closed = False
        #: Charts the worker drew (not found kept), since the start.
        self.drawn = 0

    async def chart(self, player_id: int, language: str, request: ChartRequest) -> bytes | None:
        """The PNG of ``request``, the chart of ``player_id`` in ``language``: the kept one if
        it shows the same, else a new drawing; ``None`` if it could not be drawn (logged)."""
        key = (player_id, language)
        turn = self._turns.setdefault(player_id, asyncio.Lock())
        self._askers[player_id] += 1
        try:
            async with turn:
                kept = self._charts.get(key)
                if kept is not None and kept[0] == request:
                    self._charts.move_to_end(key)
                    return kept[1]
                png = await self._drawn(request)
                if png is not None:
                    self._charts[key] = (request, png)
                    self._charts.move_to_end(key)
                    while len(self._charts) > self._kept:
                        self._charts.popitem(last=False)
                return png
        finally:
            self._askers[player_id] -= 1
            if not self._askers[player_id]:
                del self._askers[player_id], self._turns[player_id]

    async def close(self) -> None:
        """Stop the worker (the bot is stopping): the chart it is drawing may finish for a
        few seconds, then it is killed; charts still waiting are given up, and none is drawn
        from now on."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(_stop, pool, STOP_SECONDS)

    async def _drawn(self, request: ChartRequest) -> bytes | None:
        async with self._worker:
            if self._closed:
                return None
            try:
                png = await asyncio.wait_for(self._submitted(request), self._seconds)
            except Exception as error:
                # Whatever it was (the worker died or hung, could not start, or the drawing
                # failed), this chart is given up and the next one gets a fresh worker.
                known = isinstance(error, TimeoutError | BrokenProcessPool)
                logger.warning(
                    "No rating chart: %s; the next chart gets a new worker",
                    _failure(error),
                    exc_info=not known,
                )
                self._drop_pool()
                return None
            self.drawn += 1
            return png

    async def _submitted(self, request: ChartRequest) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            drawing = loop.run_in_executor(self._running_pool(), self._draw, request)
        except BrokenProcessPool:
            # The worker died while idle (killed for memory, say): not this chart's doing.
            logger.warning("The chart worker had stopped; starting a new one")
            self._drop_pool()
            drawing = loop.run_in_executor(self._running_pool(), self._draw, request)
        return await drawing

    def _running_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
            )
        return self._pool

    def _drop_pool(self) -> None:
        """Give the pool up at once, killing its worker: the next chart starts a new one."""
        pool, self._pool = self._pool, None
        if pool is not None:
            _discard(pool)


def _failure(error: Exception) -> str:
    if isinstance(error, TimeoutError):
        return "it took too long"
    if isinstance(error, BrokenProcessPool):
        return "the worker died"
    return f"drawing it failed ({type(error).__name__})"


def _discard(pool: ProcessPoolExecutor) -> None:
    """Give ``pool`` up at once, killing its worker."""
    workers = _workers(pool)
    pool.shutdown(wait=False, cancel_futures=True)
    # A stuck worker would keep the pool's thread, and so the bot's exit, waiting forever.
    for worker in workers:
        worker.kill()


def _workers(pool: ProcessPoolExecutor) -> list[BaseProcess]:
    # The executor has no public handle on its processes before Python 3.14
    # (``terminate_workers``); its ``_processes`` is None once it has shut down.
    return list((pool._processes or {}).values())


def _stop(pool: ProcessPoolExecutor, patience: float) -> None:
    """Shut ``pool`` down, killing a worker that has not exited within ``patience`` seconds
    (blocks: run it in a thread)."""
    workers = _workers(pool)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + patience
    for worker in workers:
        # Its sentinel, not ``join``: the pool's own thread reaps the workers meanwhile.
        if not wait([worker.sentinel], max(0.0, deadline - time.monotonic())):
            worker.kill()
