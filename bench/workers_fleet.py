"""The bot processes of a multi-process run, and the scratch PostgreSQL database they share.

A :class:`Fleet` is ``count`` processes of ``python -m bot`` in webhook mode against the fake Bot
API served over HTTP, each on its own port, all on one database; each process's output goes to
a log file of its own (``bot-<n>.log``). It starts them, kills one (SIGKILL: nothing runs on
the way out), stops one with SIGTERM and says how long it took to exit, and starts one again
on its own port, as a supervisor would. The first process migrates the database at its start;
the others start once it serves.

The processes run the bot of this checkout, or of ``BENCH_BOT_ROOT`` — a folder holding
another commit's ``bot`` and ``migrations`` packages (``git archive <commit> bot migrations``),
to measure it with this bench: the baseline beside a change.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import httpx

from bench.chaos import ROOT, BotProcess, free_port
from bench.workers_balancer import answers
from bot.sandbox.bot_api import FakeBotApi

#: The PostgreSQL server the run asks for a scratch database (``BENCH_DATABASE_URL`` to change).
DEFAULT_DATABASE_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
#: What every process is told to expect in ``X-Telegram-Bot-Api-Secret-Token``.
SECRET = "cardroom-bench-webhook-secret"
#: The webhook's public address; the processes serve its path (``/hook``) on 127.0.0.1.
WEBHOOK_URL = "https://cards.example.test/hook"
#: A turn's window: a slow player (12–15 s) is pinged (at a third of it) but not timed out.
TURN_SECONDS = 30
#: The longest wait for a process to serve after its start, and to exit after SIGTERM (then it
#: is killed, and its stop counts as this long).
START_WAIT, STOP_WAIT = 60.0, 30.0


def _dsn(url: str) -> str:
    """asyncpg's spelling of a SQLAlchemy URL."""
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


async def unreachable(url: str) -> str | None:
    """Why no PostgreSQL can be had at ``url`` (one line), or ``None`` when one answers."""
    if not url.startswith("postgresql"):
        return f"{url.split(':', 1)[0]} is not PostgreSQL"
    try:
        connection = await asyncio.wait_for(asyncpg.connect(_dsn(url)), 5)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        return f"no PostgreSQL at {url}: {error or type(error).__name__}"
    await connection.close()
    return None


@contextlib.asynccontextmanager
async def scratch_database(url: str) -> AsyncIterator[str]:
    """A new, empty database on the server of ``url`` (its URL), dropped afterwards."""
    name = f"cardroom_bench_{secrets.token_hex(6)}"
    connection = await asyncpg.connect(_dsn(url))
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    try:
        yield url.rsplit("/", 1)[0] + "/" + name
    finally:
        connection = await asyncpg.connect(_dsn(url))
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()


async def connect(url: str) -> asyncpg.Pool:
    """A few connections to the database, to read what the processes wrote."""
    return await asyncpg.create_pool(_dsn(url), min_size=1, max_size=4)


class Fleet:
    """``count`` bot processes in webhook mode on one database."""

    def __init__(
        self, api: FakeBotApi, base_url: str, database_url: str, folder: Path, count: int
    ) -> None:
        root = os.environ.get("BENCH_BOT_ROOT") or str(ROOT)
        self.ports = [free_port() for _ in range(count)]
        #: Each process' /healthz, /readyz and /metrics: a private listener, never the webhook's.
        self.health_ports = [free_port() for _ in range(count)]
        self.processes = [BotProcess(folder / f"bot-{n}.log", api) for n in range(count)]
        for process, port, health in zip(
            self.processes, self.ports, self.health_ports, strict=True
        ):
            env = {
                k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DATABASE_"))
            }
            env.update(
                TELEGRAM_BOT_TOKEN=api.token,
                TELEGRAM_API_BASE_URL=base_url,
                HEALTH_PORT=str(health),
                PYTHONPATH=os.pathsep.join(filter(None, (root, env.get("PYTHONPATH")))),
                DATABASE_URL=database_url,
                WEBHOOK_URL=WEBHOOK_URL,
                WEBHOOK_SECRET=SECRET,
                WEBHOOK_LISTEN="127.0.0.1",
                WEBHOOK_PORT=str(port),
                TURN_SECONDS=str(TURN_SECONDS),
                COMPUTER_DELAY_SECONDS="0.5",
                LOG_LEVEL="INFO",
            )
            process.env = env
        self.client = httpx.AsyncClient()
        #: Seconds from SIGTERM to exit, of every process stopped so far.
        self.stops: list[float] = []
        #: The processes killed or stopped and not started again.
        self.down: set[int] = set()

    @property
    def up(self) -> int:
        """How many processes run (or are starting)."""
        return len(self.processes) - len(self.down)

    async def start(self, index: int) -> None:
        """Start one process and wait until it serves HTTP on its port."""
        process = self.processes[index]
        self.down.discard(index)
        await process.start()
        deadline = time.monotonic() + START_WAIT
        while not await answers(self.client, self.ports[index]):
            if not process.alive:
                said = process.log.read_text(errors="replace").strip().splitlines()[-1:]
                raise RuntimeError(f"bot process {index} exited at start: {' '.join(said)}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"bot process {index} did not serve in {START_WAIT:.0f} s")
            await asyncio.sleep(0.1)

    async def start_all(self) -> None:
        """The first process (which migrates the database), then the others side by side."""
        await self.start(0)
        await asyncio.gather(*(self.start(n) for n in range(1, len(self.processes))))

    def kill_at_once(self, index: int) -> float:
        """SIGKILL, sent now (no await: a timer may call it); when it was sent."""
        process = self.processes[index].process
        assert process is not None
        self.down.add(index)
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGKILL)
        return asyncio.get_running_loop().time()

    async def reap(self, index: int) -> None:
        """Wait for a killed process to be gone."""
        process = self.processes[index].process
        assert process is not None
        await process.wait()

    async def terminate(self, index: int) -> float:
        """SIGTERM, and the seconds until the process exited (:data:`STOP_WAIT` and a kill
        when it does not)."""
        process = self.processes[index].process
        if process is None or process.returncode is not None:
            return 0.0
        started = time.monotonic()
        self.down.add(index)
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), STOP_WAIT)
        except TimeoutError:
            self.kill_at_once(index)
            await process.wait()
        took = time.monotonic() - started
        self.stops.append(took)
        return took

    async def stop_all(self) -> None:
        await asyncio.gather(*(self.terminate(n) for n in range(len(self.processes))))
        await self.client.aclose()

    def log_problems(self) -> int:
        """Tracebacks in the processes' logs."""
        return sum(
            process.log.read_text(errors="replace").count("Traceback")
            for process in self.processes
            if process.log.exists()
        )
