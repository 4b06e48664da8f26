"""An event loop on simulated time: when it would wait for a timer, the clock jumps there.

Seconds of the bot's life (a player pressing every 2 s, the publisher waiting 3 s before the
next group edit) then pass in no time at all, and what happens in them does not depend on how
loaded the machine is. The one thing the loop really waits for is work on other threads —
aiosqlite's connection thread and executors — which it counts, so that the clock never jumps
while a database call is out.

    with warped() as runner:
        runner.run(main())          # asyncio.sleep(3600) inside returns at once
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import aiosqlite.core

#: The least the clock moves per pass of the loop (a microsecond: as if each pass took one).
MIN_STEP = 1e-6


class _WarpSelector:
    """Wraps the loop's selector: a wait for a timer becomes a jump of the loop's clock."""

    def __init__(self, selector: selectors.BaseSelector, loop: WarpLoop) -> None:
        self._selector = selector
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[Any]:
        # Every pass of the loop moves the clock on by at least MIN_STEP, as real time would:
        # code that re-arms a timer for "now" (aiolimiter's leaky bucket does, from rounding
        # errors) must see time go by, or it spins for ever.
        if timeout is None or timeout <= 0 or self._loop.outside > 0:
            # Nothing scheduled, or a thread is working for us: really wait for it.
            events = self._selector.select(timeout)
            self._loop.advance(0.0)
            return events
        events = self._selector.select(0)
        self._loop.advance(0.0 if events else timeout)
        return events

    def __getattr__(self, name: str) -> Any:
        return getattr(self._selector, name)


class WarpLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is simulated (starts at 0, jumps to timers)."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 0.0
        #: Calls running on other threads whose results the loop is waiting for.
        self.outside = 0
        real: selectors.BaseSelector = self._selector  # type: ignore[has-type]
        self._selector = cast(selectors.BaseSelector, _WarpSelector(real, self))

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += max(seconds, MIN_STEP)

    def run_in_executor(  # type: ignore[override]
        self, executor: Any, func: Callable[..., Any], *args: Any
    ) -> Any:
        future = super().run_in_executor(executor, func, *args)
        self.outside += 1
        future.add_done_callback(self._back)
        return future

    def _back(self, _future: Any) -> None:
        self.outside -= 1


_Connection = aiosqlite.core.Connection
_original_execute: Any = _Connection._execute
_original_connect: Any = _Connection._connect


async def _counted_execute(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
    loop = asyncio.get_running_loop()
    if not isinstance(loop, WarpLoop):
        return await _original_execute(self, fn, *args, **kwargs)
    loop.outside += 1
    try:
        return await _original_execute(self, fn, *args, **kwargs)
    finally:
        loop.outside -= 1


async def _counted_connect(self: Any) -> Any:
    loop = asyncio.get_running_loop()
    if not isinstance(loop, WarpLoop):
        return await _original_connect(self)
    loop.outside += 1
    try:
        return await _original_connect(self)
    finally:
        loop.outside -= 1


@contextmanager
def warped() -> Iterator[asyncio.Runner]:
    """An ``asyncio.Runner`` on a :class:`WarpLoop`, aiosqlite's calls counted meanwhile."""
    _Connection._execute = _counted_execute  # type: ignore[method-assign]
    _Connection._connect = _counted_connect  # type: ignore[method-assign]
    try:
        with asyncio.Runner(loop_factory=WarpLoop) as runner:
            yield runner
    finally:
        _Connection._execute = _original_execute  # type: ignore[method-assign]
        _Connection._connect = _original_connect  # type: ignore[method-assign]
