"""A stand-in for the chart drawing, for tests of the chart worker: it runs in the worker
process, so this module imports next to nothing (each new worker imports it)."""

from __future__ import annotations

import itertools
import os
import time

from bot.telegram.charts import ChartRequest

_drawings = itertools.count(1)


def drawing_receipt(request: ChartRequest) -> bytes:
    """Instead of a chart: which process drew it and its how-manieth drawing that process
    made — ``b"<pid> <n>"``. The request's x label can ask it to misbehave."""
    match request.x_label:
        case "die":
            os._exit(1)
        case "hang":
            time.sleep(60)
        case "slow":
            time.sleep(0.5)
        case "fail":
            raise ValueError("no chart for you")
    return f"{os.getpid()} {next(_drawings)}".encode()


def receipt(png: bytes | None) -> tuple[int, int]:
    """The worker's pid and the drawing's number in that worker."""
    assert png is not None
    pid, number = png.split()
    return int(pid), int(number)


def drawing_that_kills_its_worker(request: ChartRequest) -> bytes:
    """A chart whose drawing kills the worker process, as an out-of-memory kill would."""
    os._exit(1)


def niceness_receipt(request: ChartRequest) -> bytes:
    """Instead of a chart: the worker's CPU niceness (``os.nice(0)``)."""
    return str(os.nice(0)).encode()
