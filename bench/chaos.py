"""``python -m bench.chaos``: a long chaos run against the real bot process, killed at random.

The fake Bot API (:mod:`bot.sandbox`) is served over HTTP in this process; ``python -m bot`` runs
as a subprocess against it (``TELEGRAM_API_BASE_URL``) with a scratch database and short turn
windows. A :class:`~bench.crowd.Crowd` of simulated people opens games of every kind and
presses anything it sees; now and then one person goes silent for minutes; the bot is killed
with SIGKILL at random — each process after it has polled for a random while — and started
again (the emulator keeps the updates sent meanwhile). At the end nobody presses any more:
every open game must run out by timeouts, the computer and autopilot, within the time that
takes at most (``--wind-down`` caps the wait: lobbies and what is still open then are
cancelled by /cancel). The bot is stopped with SIGINT, which handles whatever it fetched (and
started once more if a /new it had not got to opened a lobby after all). Then the run checks:

* the bot's log, across every start, has no traceback and no ERROR or CRITICAL line;
* every callback query was answered, also those pressed while the bot was down — but for
  those a process fetched and was killed before it answered them, counted apart as lost in
  flight if it had fetched them at most ``--in-flight`` seconds before the kill (default
  :data:`IN_FLIGHT`, a bound for a quiet machine; ``inf`` where the machine's speed is not
  known, as in the test suite: then whatever a killed process took with it is lost in flight);
* every game ended finished or cancelled, and none sat in "playing" past its deadline while
  the bot had been up for a while;
* a silent person's seat went to the computer (``autopilot_after`` timeouts) within
  :func:`~bench.chaos_checks.handover_bound`, during the run and at its end;
* every dealt game's cards are conserved;
* with ``--flood-limits`` (the emulator then enforces Telegram's limits as strict sliding
  windows), no call was refused with 429 — but in the minute after a start: a process that
  was killed takes with it what it knew of the last minute's calls.

It prints the figures and ``CHAOS OK`` or ``CHAOS FAILED``; the exit status is 1 on failure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import func, select

from bench.chaos_checks import (
    GameRecord,
    conservation_error,
    handover_bound,
    is_realtime,
    last_game_id,
    load_games,
)
from bench.crowd import Crowd
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeCallback, FakeUser, JSONDict, Upload
from bot.sandbox.server import FakeBotApiServer
from bot.storage.database import Database
from bot.storage.migrate import upgrade_async
from bot.storage.models import CANCELLED, FINISHED, LOBBY, PLAYING, LetterRow

ROOT = Path(__file__).resolve().parents[1]
#: A game overdue by more than this, while the bot has been up at least as long, is stuck.
OVERDUE_GRACE = 20.0
#: Pauses of the crowd between two things done, in seconds.
PACE = (0.05, 0.5)
#: A press whose update a process fetched this shortly before it was killed was being handled
#: (python-telegram-bot confirms updates with its next getUpdates, before handling them): it
#: is lost with the process, as with Telegram. Presses held longer waited in a backlog. The
#: default of ``--in-flight``: it holds on a quiet machine, but a loaded one may take longer
#: than this to work through what a process fetched at its start.
IN_FLIGHT = 2.0
#: The longest wait for the bot to do what it must: start polling, stop on SIGINT, answer
#: every press, close every game after /cancel. Deadlines, not pauses: on a loaded machine
#: each takes seconds, not minutes.
DEADLINE = 120.0
#: How many times, at the end, the bot is started once more to /cancel what opened meanwhile.
CLOSING_STARTS = 3
#: How long a person stays silent, and how many may be silent at once.
SILENCE = (150.0, 300.0)
MAX_SILENT = 2
_BAD_LOG_LINE = re.compile(r"Traceback|\b(ERROR|CRITICAL)\b")
_LOG_LEVEL = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) (\S+): (.*)$")


@dataclass(frozen=True)
class Plan:
    """The command line."""

    minutes: float
    seed: int
    database_url: str
    folder: Path
    turn_seconds: int
    kill_every: tuple[float, float]
    people: int
    groups: int
    wind_down: float
    flood_limits: bool = False
    #: ``--in-flight``: a press a killed process had fetched at most this long before the
    #: kill is lost in flight; held longer, it waited in a backlog.
    in_flight: float = IN_FLIGHT
    #: ``--processes``: bot processes on one PostgreSQL database (one leads).
    processes: int = 1


class RecordingBotApi(FakeBotApi):
    """The fake Bot API, noting when getUpdates last handed out each update."""

    def __init__(self, *, flood_limits: bool = False) -> None:
        super().__init__(flood_limits=flood_limits)
        self.fetched_at: dict[int, float] = {}
        #: When each call was refused with 429 (the limits were exceeded).
        self.refused_at: list[float] = []

    async def handle(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Upload] | None = None,
    ) -> tuple[int, JSONDict]:
        status, body = await super().handle(method, params, files)
        if status == 429:
            self.refused_at.append(time.monotonic())
        if method.lower() == "getupdates" and status == 200:
            now = time.monotonic()
            for update in body["result"]:
                self.fetched_at[update["update_id"]] = now
        return status, body


class Polling:
    """Whether the bot polls: it is ready when ``getUpdates`` is called after a start or a
    kill (only the process that leads polls)."""

    api: FakeBotApi
    log: Path
    ready_at: float | None = None
    _watching: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        raise NotImplementedError

    def up_for(self) -> float:
        """Seconds since the bot first polled after its last start or kill (0: not yet)."""
        return 0.0 if self.ready_at is None else time.monotonic() - self.ready_at

    def _watch(self) -> None:
        self.ready_at = None
        polls = self.api.stats.by_method["getUpdates"]
        self._watching = asyncio.create_task(self._notice_ready(polls))

    async def _notice_ready(self, polls: int) -> None:
        watching = self._watching
        while self._watching is watching and self.alive:
            if self.api.stats.by_method["getUpdates"] > polls:
                self.ready_at = time.monotonic()
                return
            await asyncio.sleep(0.1)

    async def wait_ready(self, timeout: float = DEADLINE) -> None:  # noqa: ASYNC109
        deadline = time.monotonic() + timeout
        while self.ready_at is None:
            if not self.alive:
                raise RuntimeError(f"the bot exited at start; see {self.log}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the bot did not start polling in {timeout:.0f} s")
            await asyncio.sleep(0.1)


class BotProcess(Polling):
    """``python -m bot`` against the emulator; its output is appended to one log file."""

    def __init__(self, log: Path, api: FakeBotApi) -> None:
        self.env: dict[str, str] = {}
        self.log = log
        self.api = api
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.started_at: list[float] = []
        self.kills: list[float] = []

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def start(self) -> None:
        self.starts += 1
        self.started_at.append(time.monotonic())
        with self.log.open("a") as log:
            log.write(f"=== chaos: start {self.starts} at {time.strftime('%H:%M:%S')} ===\n")
            log.flush()
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                cwd=self.log.parent,
                env=self.env,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
            )
        self._watch()

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, nothing in memory survives."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        self.kills.append(time.monotonic())
        self.ready_at = None

    async def stop(self) -> None:
        """SIGINT, as Ctrl-C: the bot shuts down cleanly — it handles every update it has
        fetched, then exits (a kill after :data:`DEADLINE` s)."""
        if self.process is None or not self.alive:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self.process.wait(), DEADLINE)
        except TimeoutError:
            await self.kill()


class Fleet(Polling):
    """Several ``python -m bot`` processes on one PostgreSQL database, as one bot: one leads
    (it polls), the others stand by. A kill takes the leader — asked of each process' own
    ``/readyz`` — and the killed process starts again as a standby; the bot is ready again
    when the next leader polls. The interface is :class:`BotProcess`'s."""

    def __init__(self, log: Path, api: FakeBotApi, count: int) -> None:
        self.log = log
        self.api = api
        self.members = [BotProcess(log, api) for _ in range(count)]
        self.ports = [free_port() for _ in range(count)]
        self.env: dict[str, str] = {}
        self.starts = 0
        self.started_at: list[float] = []
        self.kills: list[float] = []

    @property
    def alive(self) -> bool:
        return any(member.alive for member in self.members)

    async def start(self) -> None:
        """Start every member that is not running (the first start: all of them)."""
        for member, port in zip(self.members, self.ports, strict=True):
            if not member.alive:
                member.env = {**self.env, "HEALTH_PORT": str(port)}
                await member.start()
                self.starts += 1
                self.started_at.append(time.monotonic())
        self._watch()

    async def _leader(self) -> BotProcess:
        """The member whose ``/readyz`` says it leads (the first alive one if none says)."""
        for member, port in zip(self.members, self.ports, strict=True):
            if member.alive and await _role(port) == "leader":
                return member
        return next(member for member in self.members if member.alive)

    async def kill(self) -> None:
        """SIGKILL the leader; the others stay up, and one of them takes the lead."""
        leader = await self._leader()
        await leader.kill()
        self.kills.append(time.monotonic())
        self._watch()

    async def stop(self) -> None:
        """SIGINT to the standbys, then to the leader (each hands over what it holds)."""
        leader = await self._leader() if self.alive else None
        for member in self.members:
            if member is not leader:
                await member.stop()
        if leader is not None:
            await leader.stop()
        self.ready_at = None


def free_port() -> int:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _role(port: int) -> str | None:
    """The role a member's ``/readyz`` says it has (``None``: it does not answer)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
    except (OSError, TimeoutError):
        return None
    try:
        writer.write(b"GET /readyz HTTP/1.0\r\nHost: localhost\r\n\r\n")
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 2)
    except (OSError, TimeoutError):
        return None
    finally:
        writer.close()
    match = re.search(rb'"role":\s*"([a-z]+)"', answer)
    return match[1].decode() if match else None


@dataclass
class Findings:
    """What the run saw and what went wrong, for the report."""

    failures: list[str] = field(default_factory=list)
    overdue: dict[int, float] = field(default_factory=dict)
    pressed_while_down: list[FakeCallback] = field(default_factory=list)
    #: Presses lost with a killed process that had them for up to ``--in-flight`` s, and how
    #: long it had each.
    in_flight: list[tuple[FakeCallback, float]] = field(default_factory=list)
    #: Other unanswered presses, and how long a process that was killed had held each.
    unanswered: list[tuple[FakeCallback, float | None]] = field(default_factory=list)
    stretches: int = 0
    handovers_checked: int = 0
    wind_down_handovers: int = 0
    cut_short: list[int] = field(default_factory=list)
    wind_down_seconds: float = 0.0

    def fail(self, message: str) -> None:
        self.failures.append(message)


class ChaosRun:
    def __init__(self, plan: Plan, out: TextIO) -> None:
        self.plan = plan
        self.out = out
        self.rng = random.Random(plan.seed)
        self.api = RecordingBotApi(flood_limits=plan.flood_limits)
        self.crowd = Crowd.gather(self.api, self.rng, people=plan.people, groups=plan.groups)
        self.db = Database.from_url(plan.database_url)
        self.log = plan.folder / "bot.log"
        self.bot: BotProcess | Fleet = (
            Fleet(self.log, self.api, plan.processes)
            if plan.processes > 1
            else BotProcess(self.log, self.api)
        )
        self.findings = Findings()
        #: Ids of the people silent now.
        self.silent: set[int] = set()
        self.silences: set[asyncio.Task[None]] = set()
        #: Games the run itself cancelled (/cancel) in the wind-down.
        self.cancelled: set[int] = set()
        self.ending = asyncio.Event()
        self.baseline = 0
        #: Letters of the outbox still undelivered at the end (``replies_lost``).
        self.undelivered = 0
        self.started = 0.0
        self.running = True

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    async def run(self) -> bool:
        plan = self.plan
        await upgrade_async(plan.database_url)
        self.baseline = await last_game_id(self.db)
        server = FakeBotApiServer(self.api)
        bot = self.bot
        bot.env = self._env(await server.start())
        self.say(
            f"Chaos run: {plan.minutes:g} min, seed {plan.seed}, {plan.people} people in "
            f"{plan.groups} group(s), turns of {plan.turn_seconds} s, a kill "
            f"{plan.kill_every[0]:g}–{plan.kill_every[1]:g} s after each start polls; "
            f"folder {plan.folder}"
        )
        try:
            await bot.start()
            await bot.wait_ready()
            self.started = time.monotonic()
            kills = asyncio.create_task(self._kills())
            tasks = [
                asyncio.create_task(self._people()),
                asyncio.create_task(self._silences()),
                asyncio.create_task(self._watch()),
                asyncio.create_task(self._progress()),
            ]
            await asyncio.sleep(plan.minutes * 60)
            self.running = False
            self.ending.set()
            for task in [*tasks, *self.silences]:
                task.cancel()
            await asyncio.gather(*tasks, *self.silences, return_exceptions=True)
            await kills
            await bot.wait_ready()
            await self._wind_down()
            await self._await_answers()
            await self._stop_caught_up()
        finally:
            await bot.stop()
            await server.stop()
        games = await load_games(self.db, after=self.baseline)
        self.undelivered = await undelivered_letters(self.db)
        await self.db.close()
        self._check(games)
        self._report(games)
        return not self.findings.failures

    def _env(self, base_url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DATABASE_"))}
        env.update(
            PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH")))),
            TELEGRAM_BOT_TOKEN=self.api.token,
            TELEGRAM_API_BASE_URL=base_url,
            DATABASE_URL=self.plan.database_url,
            TURN_SECONDS=str(self.plan.turn_seconds),
            COMPUTER_DELAY_SECONDS="0.5",
            LOG_LEVEL="INFO",
        )
        for name in ("WEBHOOK_URL", "WEBHOOK_SECRET", "WEBHOOK_LISTEN", "WEBHOOK_PORT"):
            env.pop(name, None)
        return env

    # -- the run ------------------------------------------------------------------------

    async def _people(self) -> None:
        crowd = self.crowd
        while self.running:
            active = [p for p in crowd.people if p.id not in self.silent]
            pressed = len(crowd.callbacks)
            await crowd.act(self.rng.choice(active))
            if self.bot.ready_at is None:  # killed, or not polling yet
                self.findings.pressed_while_down += crowd.callbacks[pressed:]
            await asyncio.sleep(self.rng.uniform(*PACE))

    async def _kills(self) -> None:
        """Kill and restart the bot at random until the chaos ends (never halfway through).

        A process is killed ``--kill-every`` seconds after it first polled, not after its
        start: on a loaded machine a start can take longer than a short interval, and a
        process killed before it polls, or just after it fetched what piled up meanwhile,
        would leave nothing of what a restart must do to check.
        """
        while True:
            await self.bot.wait_ready()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ending.wait(), self.rng.uniform(*self.plan.kill_every))
                return
            await self.bot.kill()
            await asyncio.sleep(self.rng.uniform(0.0, 3.0))  # presses pile up meanwhile
            await self.bot.start()

    async def _silences(self) -> None:
        while True:
            await asyncio.sleep(self.rng.uniform(15.0, 45.0))
            candidates = [p for p in self.crowd.people if p.started and p.id not in self.silent]
            if len(self.silent) >= MAX_SILENT or len(candidates) < 2:
                continue
            task = asyncio.create_task(self._keep_silent(self.rng.choice(candidates)))
            self.silences.add(task)
            task.add_done_callback(self.silences.discard)

    async def _keep_silent(self, user: FakeUser) -> None:
        """He presses nothing for a while; his games must go on without him meanwhile."""
        games = await load_games(self.db, after=self.baseline)
        playing = [g for g in games if g.status == PLAYING and g.seat_of(user.id)]
        began, length = time.monotonic(), self.rng.uniform(*SILENCE)
        self.silent.add(user.id)
        self.findings.stretches += 1
        bounds = sorted((handover_bound(g, self.plan.turn_seconds), g.id) for g in playing)
        for bound, game_id in bounds:
            if bound > length:
                break
            await asyncio.sleep(began + bound - time.monotonic())
            await self._check_handover(user, game_id, bound)
        await asyncio.sleep(began + length - time.monotonic())
        self.silent.discard(user.id)

    async def _check_handover(self, user: FakeUser, game_id: int, silent_for: float) -> None:
        """A game still playing this long after he fell silent must not be waiting for him."""
        game = (await load_games(self.db, [game_id]))[0]
        seat = game.seat_of(user.id)
        if game.status != PLAYING or seat is None:
            return
        self.findings.handovers_checked += 1
        if is_realtime(game.game_key):
            self.findings.fail(
                f"game {game.id} ({game.game_key}) still playing {silent_for:.0f} s after "
                f"{user.first_name} fell silent: he has not forfeited"
            )
        elif not game.on_autopilot(seat):
            self.findings.fail(
                f"game {game.id} ({game.game_key}): {user.first_name} silent for "
                f"{silent_for:.0f} s, seat {seat.seat} has {seat.timeouts} timeout(s), not on "
                f"autopilot (after {game.autopilot_after})"
            )

    async def _watch(self) -> None:
        """Every few seconds: a game past its deadline while the bot is up is stuck."""
        while True:
            await asyncio.sleep(5.0)
            await self._look_for_overdue()

    async def _look_for_overdue(self) -> None:
        if self.bot.up_for() < OVERDUE_GRACE + 5.0:
            return
        now = time.time()
        for game in await load_games(self.db, after=self.baseline):
            late = now - (game.deadline_at or now)
            if game.status == PLAYING and late > OVERDUE_GRACE:
                self.findings.overdue[game.id] = max(late, self.findings.overdue.get(game.id, 0))

    async def _progress(self) -> None:
        while True:
            await asyncio.sleep(60.0)
            games = await load_games(self.db, after=self.baseline)
            over = sum(g.status in (FINISHED, CANCELLED) for g in games)
            self.say(
                f"  {self._clock()} presses {self.crowd.done['press']}, "
                f"kills {len(self.bot.kills)}, games {len(games)} ({over} over), "
                f"silent now {len(self.silent)}"
            )

    def _clock(self) -> str:
        seconds = int(time.monotonic() - self.started)
        return f"[{seconds // 60}:{seconds % 60:02d}]"

    # -- the end ------------------------------------------------------------------------

    async def _wind_down(self) -> None:
        """Nobody presses. Lobbies are cancelled; each game must run out within its handover
        bound from when it is first seen playing (presses the bot had not got to yet may still
        open games). ``--wind-down`` caps the wait; what is open then is cancelled."""
        began = time.monotonic()
        self.say(f"  {self._clock()} wind-down: nobody presses any more")
        seen: dict[int, tuple[float, float]] = {}  # game id → (first seen playing, bound)
        calls, quiet_since = self._calls(), began
        while True:
            now = time.monotonic()
            if self._calls() != calls:
                calls, quiet_since = self._calls(), now
            open_games = await self._open_games()
            await self._cancel(g for g in open_games if g.status == LOBBY)
            playing = [g for g in open_games if g.status == PLAYING]
            for game in playing:
                seen.setdefault(game.id, (now, handover_bound(game, self.plan.turn_seconds)))
            settled = self.api.pending_updates == 0 and now - quiet_since >= 5.0
            overdue = all(now - seen[g.id][0] >= seen[g.id][1] for g in playing)
            if settled and (not open_games or (playing and overdue)):
                break
            if now - began >= self.plan.wind_down:
                break
            await asyncio.sleep(0.5)
            await self._look_for_overdue()
        self.findings.wind_down_seconds = time.monotonic() - began
        for game in playing:
            first_seen, bound = seen[game.id]
            if now - first_seen >= bound:
                self.findings.fail(
                    f"game {game.id} ({game.game_key}) still playing {now - first_seen:.0f} s "
                    f"into the wind-down (bound {bound:.0f} s)"
                )
            else:
                self.findings.cut_short.append(game.id)
        for game in await load_games(self.db, seen):
            by_nobody = not (
                game.id in self.cancelled or game.everyone_away or self._asked_to_cancel(game)
            )
            if game.status == CANCELLED and by_nobody:
                self.findings.fail(f"game {game.id} ({game.game_key}) cancelled by nobody")
            if not game.everyone_away:
                continue
            self.findings.wind_down_handovers += 1
            awake = [s for s in game.persons if not game.on_autopilot(s)]
            if awake:
                self.findings.fail(
                    f"game {game.id} ({game.game_key}) ended for everyone away with "
                    f"seat(s) {[s.seat for s in awake]} not on autopilot"
                )
        await self._cancel(await self._open_games())
        await self._until(self._all_closed, DEADLINE)

    def _asked_to_cancel(self, game: GameRecord) -> bool:
        """Whether someone asked the last process to end this game — a /cancel in its chat or
        its Cancel button, sent while the bot was down: it may be handled only in the
        wind-down, after the game was seen playing (on a loaded machine, seconds after)."""
        since = self.bot.started_at[-1]
        for update in self.api.update_log:
            if self.api.fetched_at.get(update["update_id"], since) < since:
                continue  # handled, or lost, by a process before
            message = update.get("message") or {}
            if message.get("chat", {}).get("id") == game.chat_id and str(
                message.get("text", "")
            ).startswith("/cancel"):
                return True
            if (update.get("callback_query") or {}).get("data") == f"L:{game.id}:cancel":
                return True
        return False

    async def _stop_caught_up(self) -> None:
        """Stop the bot with SIGINT, which handles every update it has fetched before it
        exits. A /new it had not got to may open a lobby after the last /cancel (on a loaded
        machine, many seconds after it was fetched): then the bot is started once more, what
        is open is cancelled, and it stops again. A letter written but not delivered yet when
        it stopped (its outbox closes at a stop: the next leader delivers it) is given one
        more start too, so that ``replies_lost`` counts only letters a leader never delivers."""
        for _ in range(CLOSING_STARTS):
            await self.bot.stop()
            left = await self._open_games()
            waiting = await undelivered_letters(self.db)
            if not left and not waiting:
                return
            self.say(
                f"  {self._clock()} opened after the last /cancel: "
                + (", ".join(f"game {g.id} ({g.game_key}, {g.status})" for g in left) or "none")
                + f"; {waiting} letter(s) not delivered at the stop; one more start"
            )
            await self.bot.start()
            await self.bot.wait_ready()
            await self._cancel(left)
            await self._until(self._all_closed, DEADLINE)
            await self._until(self._all_delivered, DEADLINE)
            await self._await_answers()

    async def _all_delivered(self) -> bool:
        return await undelivered_letters(self.db) == 0

    def _calls(self) -> int:
        """Bot API calls the bot has made so far, long polls left out."""
        return sum(n for method, n in self.api.stats.by_method.items() if method != "getUpdates")

    async def _open_games(self) -> list[GameRecord]:
        games = await load_games(self.db, after=self.baseline)
        return [g for g in games if g.status in (LOBBY, PLAYING)]

    async def _all_closed(self) -> bool:
        return not await self._open_games()

    async def _cancel(self, games: Iterable[GameRecord]) -> None:
        """/cancel, once per game, by whoever may: the group's admin, or the chat's owner."""
        for game in games:
            user = self.crowd.canceller(game.chat_id)
            if user is not None and game.id not in self.cancelled:
                await self.api.send_text(user, game.chat_id, "/cancel")
                self.cancelled.add(game.id)

    async def _until(self, done: Callable[[], Awaitable[bool]], timeout: float) -> None:  # noqa: ASYNC109
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if await done():
                return
            await asyncio.sleep(0.5)

    async def _await_answers(self) -> None:
        """Until every press the running bot could still answer is answered."""

        async def answered() -> bool:
            return self.api.pending_updates == 0 and all(
                self._held_until_killed(c) is not None for c in self.api.unanswered_callbacks()
            )

        await self._until(answered, DEADLINE)

    # -- checks and report --------------------------------------------------------------

    def _check(self, games: list[GameRecord]) -> None:
        findings = self.findings
        bad_lines = [
            line.rstrip()
            for line in self.log.read_text(errors="replace").splitlines()
            if _BAD_LOG_LINE.search(line)
        ]
        if bad_lines:
            findings.fail(f"{len(bad_lines)} bad log line(s), first: {bad_lines[0]}")
        for callback in self.api.unanswered_callbacks():
            held = self._held_until_killed(callback)
            if held is not None and held <= self.plan.in_flight:
                findings.in_flight.append((callback, held))
            else:
                findings.unanswered.append((callback, held))
        if findings.unanswered:
            callback, held = findings.unanswered[0]
            backlog = [h for _, h in findings.unanswered if h is not None]
            findings.fail(
                f"{len(findings.unanswered)} callback(s) unanswered: {len(backlog)} held "
                f"{min(backlog, default=0):.0f}–{max(backlog, default=0):.0f} s by a bot "
                f"process that was then killed, {len(findings.unanswered) - len(backlog)} "
                f"never fetched or never answered; first: {callback}"
            )
        for game in games:
            if game.status not in (FINISHED, CANCELLED):
                findings.fail(f"game {game.id} ({game.game_key}) ended {game.status}")
        for game_id, late in sorted(findings.overdue.items()):
            findings.fail(f"game {game_id} was {late:.0f} s past its deadline with the bot up")
        for game in games:
            if game.state is not None:
                error = conservation_error(game.game_key, game.state)
                if error:
                    findings.fail(f"game {game.id} ({game.game_key}) cards: {error}")
        unshown = self._ends_unshown(games)
        if unshown:
            findings.fail(f"{unshown} finished game(s) without their result in their group")
        if self.undelivered:
            findings.fail(f"{self.undelivered} message(s) decided and never delivered")
        unexplained = self._unexplained_429s()
        if unexplained:
            findings.fail(
                f"{unexplained} call(s) refused with 429 more than a minute after a start"
            )

    def _results_in(self, chat_id: int) -> int:
        return sum((m.text or "").startswith(RESULT_MARK) for m in self.api.bot_messages(chat_id))

    def _ends_unshown(self, games: list[GameRecord]) -> int:
        """Finished games of a group whose result message never came there (a game's end
        that a killed process took with it): per group, the finished games past its results."""
        finished = Counter(g.chat_id for g in games if g.status == FINISHED and g.chat_id < 0)
        return sum(max(0, n - self._results_in(chat)) for chat, n in finished.items())

    def _ends_twice(self, games: list[GameRecord]) -> int:
        finished = Counter(g.chat_id for g in games if g.status == FINISHED and g.chat_id < 0)
        return sum(max(0, self._results_in(chat) - n) for chat, n in finished.items())

    def _unexplained_429s(self) -> int:
        """429s that came when the running process had known its calls for a whole minute."""
        return sum(
            1
            for at in self.api.refused_at
            if at - max((s for s in self.bot.started_at if s <= at), default=0.0) > 60.0
        )

    def _held_until_killed(self, callback: FakeCallback) -> float | None:
        """How long the process that fetched this press had it before it was killed."""
        update_id = next(
            u["update_id"]
            for u in self.api.update_log
            if u.get("callback_query", {}).get("id") == callback.id
        )
        fetched = self.api.fetched_at.get(update_id)
        if fetched is None:
            return None
        return next((kill - fetched for kill in self.bot.kills if kill >= fetched), None)

    def _report(self, games: list[GameRecord]) -> None:
        findings, crowd, plan, bot = self.findings, self.crowd, self.plan, self.bot
        callbacks = self.api.callbacks.values()
        down = findings.pressed_while_down
        waits = [c.answered_at - c.created_at for c in callbacks if c.answered_at is not None]
        held = [h for _, h in findings.in_flight]
        lost = (
            f"fetched ≤ {plan.in_flight:g} s before the kill"
            if math.isfinite(plan.in_flight)
            else "fetched by it, not answered before the kill"
        )
        kinds: dict[str, Counter[str]] = {}
        for game in games:
            tally = kinds.setdefault(game.game_key, Counter())
            tally["opened"] += 1
            tally["dealt"] += game.state is not None
            tally[game.status] += 1
        autopilots = sum(
            g.on_autopilot(s) for g in games for s in g.persons if g.state is not None
        )
        warnings = Counter(
            f"{m[2]}: {re.sub(r'-?[0-9]+', 'N', m[3])[:70]}"
            for line in self.log.read_text(errors="replace").splitlines()
            if (m := _LOG_LEVEL.match(line)) and m[1] == "WARNING"
        )
        lines = [
            "",
            f"Chaos run, seed {plan.seed}: {plan.minutes:g} min of chaos, then "
            f"{findings.wind_down_seconds:.0f} s of wind-down",
            f"  bot: {bot.starts} start(s), {len(bot.kills)} SIGKILL(s); log {self.log}",
            "  people: "
            + ", ".join(f"{kind} {count}" for kind, count in sorted(crowd.done.items())),
            f"  callbacks: {sum(c.answered for c in callbacks)} of {len(callbacks)} answered; "
            f"{sum(c.answered for c in down)} of {len(down)} pressed while the bot was down; "
            f"{sum(c.answer_attempts > 1 for c in callbacks)} answered twice",
            f"  lost in flight with a killed process ({lost}): {len(findings.in_flight)}"
            + (f", held {min(held):.1f}–{max(held):.1f} s" if held else ""),
            "  answer delay (s): " + _spread(waits),
            "  Bot API calls: "
            + ", ".join(
                f"{method} {n}"
                for method, n in self.api.stats.by_method.most_common(7)
                if method != "getUpdates"
            ),
            "  games:",
            *(
                f"    {key:<12} " + ", ".join(f"{n} {what}" for what, n in tally.items())
                for key, tally in sorted(kinds.items())
            ),
            f"  silent people: {findings.stretches} silence(s); {findings.handovers_checked} "
            "seat(s) still playing at their handover bound checked",
            f"  wind-down: {findings.wind_down_handovers} game(s) ended with everyone away, "
            f"{len(findings.cut_short)} cut short by --wind-down",
            f"  seats on autopilot at the end: {autopilots}; games ended with everyone "
            f"away: {sum(g.everyone_away for g in games)}",
            f"  cards conserved in {sum(g.state is not None for g in games)} dealt game(s)",
            f"  flood limits {'on' if plan.flood_limits else 'off'}: "
            f"{len(self.api.refused_at)} call(s) refused with 429, "
            f"{self._unexplained_429s()} of them over a minute after a start",
            f"  ends_unshown {self._ends_unshown(games)} (results said twice: "
            f"{self._ends_twice(games)}); replies_lost {self.undelivered} (letters of the "
            "outbox never delivered)",
            f"  warnings in the log: {sum(warnings.values())}",
            *(f"    {n:>4} × {text}" for text, n in warnings.most_common(8)),
        ]
        if findings.failures:
            lines += ["FAILURES:", *(f"  - {failure}" for failure in findings.failures)]
        lines.append("CHAOS FAILED" if findings.failures else "CHAOS OK")
        self.say("\n".join(lines))


#: How every result message begins, in every language.
RESULT_MARK = "🏁"


async def undelivered_letters(db: Database) -> int:
    """Letters of the outbox (replies, results, notices) never delivered."""
    async with db.transaction() as session:
        count = await session.scalar(
            select(func.count()).select_from(LetterRow).where(LetterRow.delivered_at.is_(None))
        )
    return int(count or 0)


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    return f"median {at(0.5):.2f}, p95 {at(0.95):.2f}, max {ordered[-1]:.2f}"


def parse_arguments(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(
        prog="python -m bench.chaos",
        description="Chaos run: simulated people against the real bot process, which is "
        "killed (SIGKILL) and restarted at random; checks what must hold at the end.",
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="chaos time (default 10)")
    parser.add_argument(
        "--seed",
        type=int,
        help="seeds what people do and when the bot is killed (timing still varies)",
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="the bot's database (default: a new SQLite file in the run's folder); games "
        "there before the run are left out of the checks",
    )
    parser.add_argument("--folder", type=Path, help="for the log and SQLite (default: new)")
    parser.add_argument("--turn-seconds", type=int, default=10, help="TURN_SECONDS (≥ 10)")
    parser.add_argument(
        "--kill-every",
        nargs=2,
        type=float,
        default=(20.0, 60.0),
        metavar=("MIN", "MAX"),
        help="seconds from a start's first poll to its kill, drawn between MIN and MAX "
        "(default 20 60)",
    )
    parser.add_argument(
        "--flood-limits",
        action="store_true",
        help="the emulator enforces Telegram's limits (strict sliding windows); a 429 more "
        "than a minute after a start fails the run",
    )
    parser.add_argument("--people", type=int, default=6, help="people who started the bot")
    parser.add_argument("--groups", type=int, default=3, help="groups they are all in")
    parser.add_argument(
        "--wind-down",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="at most this long for open games to run out at the end (default 600)",
    )
    parser.add_argument(
        "--in-flight",
        type=float,
        default=IN_FLIGHT,
        metavar="SECONDS",
        help="a press a killed process had fetched at most this long before the kill is lost "
        "in flight; one it held longer waited in a backlog and fails the run (default "
        f"{IN_FLIGHT:g}, for a quiet machine; 'inf' where its speed is not known: whatever a "
        "killed process took with it is lost in flight)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="bot processes on one PostgreSQL database (--database-url); a kill takes the "
        "leader, and a standby takes over (default 1)",
    )
    arguments = parser.parse_args(argv)
    if arguments.processes < 1:
        parser.error("--processes must be at least 1")
    if arguments.processes > 1 and not (arguments.database_url or "").startswith("postgresql"):
        parser.error("--processes above 1 needs a PostgreSQL --database-url")
    if arguments.turn_seconds < 10:
        parser.error("--turn-seconds must be at least 10 (the bot's own minimum)")
    low, high = arguments.kill_every
    if not 0 < low <= high:
        parser.error("--kill-every needs 0 < MIN <= MAX")
    if not arguments.in_flight > 0:
        parser.error("--in-flight must be above 0")
    folder = arguments.folder or Path(tempfile.mkdtemp(prefix="cardroom-chaos-"))
    folder.mkdir(parents=True, exist_ok=True)
    return Plan(
        minutes=arguments.minutes,
        seed=arguments.seed if arguments.seed is not None else random.randrange(10**6),
        database_url=arguments.database_url or f"sqlite+aiosqlite:///{folder / 'chaos.db'}",
        folder=folder,
        turn_seconds=arguments.turn_seconds,
        kill_every=(low, high),
        people=arguments.people,
        groups=arguments.groups,
        wind_down=arguments.wind_down,
        flood_limits=arguments.flood_limits,
        in_flight=arguments.in_flight,
        processes=arguments.processes,
    )


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_arguments(argv)
    with contextlib.suppress(KeyboardInterrupt):
        return 0 if asyncio.run(ChaosRun(plan, sys.stdout).run()) else 1
    return 130


if __name__ == "__main__":
    sys.exit(main())
