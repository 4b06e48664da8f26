"""``python -m bench [--quick] [--only NAME…] [--profile] [--markdown]``: measure Cardroom.

Runs every measurement (engines, actions with the floor, calls, resume, memory, the flood
limits under pressure, storing updates in the inbox, Davay-ka! on chat panels and in its Mini
App, every game on the Mini App's page beside the chat, and several bot processes on
PostgreSQL), prints a table with the targets of issues #10, #17, #19, #27, #29 and #37 beside
the figures, and, last, one line ``SUMMARY {json}`` with every figure by key. ``--profile``
prints where a press's time goes instead (see :mod:`bench.press_profile`).

``--quick`` runs the quick measurements, shorter, in under a minute on a two-core machine: the
long ones (the flood runs, the start-up's background redraw, the Mini Apps in real time, the
processes on PostgreSQL) are left to ``--only NAME…`` (with ``--quick``: shorter) and to the
full run, and said so in one line each.

It stands on the package alone (the Bot API emulator of :mod:`bot.sandbox`), so an install
without the test extras runs it: ``pip install -e .``; the PostgreSQL part also needs
``pip install -e '.[postgres]'`` and says so in one line where asyncpg is missing.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import (
    actions,
    calls,
    davayka_app,
    engines,
    flood,
    inbox_store,
    memory,
    pages,
    quick_play,
    resume,
)
from bench.report import Figure, markdown, summary_line, table

MEASUREMENTS = (
    "engines",
    "actions",
    "calls",
    "resume",
    "memory",
    "flood",
    "inbox",
    "davayka",
    "app",
    "workers",
)


class _Problems(logging.Handler):
    """Counts the bot's warnings and errors during the run: a clean run has none."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.first: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("bot", "telegram")):
            self.count += 1
            if len(self.first) < 5:
                self.first.append(f"{record.levelname} {record.name}: {record.getMessage()}")


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the quick measurements, shorter (under a minute); the long ones only with --only",
    )
    parser.add_argument(
        "--only", nargs="+", choices=MEASUREMENTS, help="run only these measurements"
    )
    parser.add_argument("--profile", action="store_true", help="profile a press by layer")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    return parser.parse_args(argv)


def _workers(folder: Path, quick: bool) -> list[Figure]:
    """Several processes on PostgreSQL: they need asyncpg, which only the ``postgres`` extra
    installs."""
    try:
        from bench import workers
    except ModuleNotFoundError as error:
        if error.name != "asyncpg":
            raise
        print("workers: skipped — needs the postgres extra: pip install -e '.[postgres]'")
        return []
    return workers.measure(folder, quick)


def _left_out(name: str, what: str) -> list[Figure]:
    print(f"{name}: {what} left out of --quick (--only {name}, or the full run, measures it)")
    return []


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _arguments(argv)
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    problems = _Problems()
    logging.getLogger().addHandler(problems)
    logging.getLogger("bot").setLevel(logging.WARNING)
    if arguments.profile:
        from bench.press_profile import breakdown, report

        print(breakdown())
        print()
        print(report())
        return 0
    chosen = arguments.only or MEASUREMENTS
    quick = arguments.quick
    # A quick run of everything leaves out what takes minutes; one asked for by name runs.
    whole = not quick or bool(arguments.only)
    figures: list[Figure] = []
    started = time.perf_counter()
    cpu_started = time.process_time()
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="cardroom-bench-") as scratch:
        folder = Path(scratch)
        steps: dict[str, Callable[[], list[Figure]]] = {
            "engines": lambda: engines.measure(quick),
            "actions": lambda: actions.measure(folder / "actions", quick),
            "calls": lambda: calls.measure(folder / "calls", quick),
            "resume": lambda: [
                *resume.measure(folder / "resume", quick, catch_up=whole),
                *([] if whole else _left_out("resume", "the redraw after the start-up")),
            ],
            "memory": lambda: memory.measure(folder / "memory", quick),
            "flood": lambda: (
                flood.measure(folder / "flood", quick)
                if whole
                else _left_out("flood", "the flood limits' runs (minutes of simulated play)")
            ),
            "inbox": lambda: inbox_store.measure(folder / "inbox", quick),
            # The chat panels' figures, then the same players on the Mini App's sockets.
            "davayka": lambda: (
                davayka_app.measure(
                    folder / "davayka", quick, quick_play.measure(folder / "davayka", quick)
                )
                if whole
                else [
                    *quick_play.measure(folder / "davayka", quick),
                    *_left_out("davayka", "the Mini App's run in real time"),
                ]
            ),
            # Every game on the Mini App's page beside the same games in chat (issue #37).
            "app": lambda: (
                pages.measure(folder / "app", quick)
                if whole
                else _left_out("app", "every game on the page (real time, then simulated play)")
            ),
            "workers": lambda: (
                _workers(folder / "workers", quick)
                if whole
                else _left_out("workers", "several processes on PostgreSQL")
            ),
        }
        for name in chosen:
            step_started = time.perf_counter()
            print(f"{name}…", file=sys.stderr, flush=True)
            (folder / name).mkdir()
            figures += steps[name]()
            print(f"  {time.perf_counter() - step_started:.1f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - started
    context: dict[str, object] = {
        "quick": quick,
        "wall_s": round(wall, 1),
        # Below 1 the machine was busy with other work and every time here is inflated.
        "cpu_share": round((time.process_time() - cpu_started) / wall, 2),
        "load_avg_1m": round(max(load_before, _load()), 2),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "log_problems": problems.count,
    }
    print(table(figures))
    if arguments.markdown:
        print()
        print(markdown(figures))
    for line in problems.first:
        print(f"log: {line}")
    print(summary_line(figures, context))
    return 0


if __name__ == "__main__":
    sys.exit(main())
