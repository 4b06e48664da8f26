"""Several bot processes, one Cardroom (issue #29): ``python -m bench --only workers``.

One fake Bot API with Telegram's strict windows (20 calls in any 60 s per group, one a second
per private chat, 30 a second in all) is served over HTTP; 1, then 2, then 3 processes of
``python -m bot`` in webhook mode (:mod:`bench.workers_fleet`) on one scratch PostgreSQL
database per scene take its updates from a round-robin balancer (:mod:`bench.workers_balancer`)
that posts each to the next process in turn, and to the one after when a process refuses.
In each scene, groups of four scripted people (:mod:`bench.workers_players`) open Rank
(``/new rank``, three Join presses, Start), and each then presses a legal action on his private
panel a reaction time after it shows him a decision — now and then a slow one, who is pinged.
Every scene has the same players with the same seeds and the same deals (each game's seed is
set in the database before Start), so they make the same decisions while the games go alike.

After the 3-process scene's window, play goes on with 3 processes: the leader is killed
(SIGKILL); then the process that answers a press's webhook post with 200 is killed 3 ms after,
and another 20 ms after (each killed process is started again a second later, as a supervisor
would); then the leader is stopped with SIGTERM.

Full: 4 groups, an 80-s window, 1, 2 and 3 processes (about 5 minutes). ``--quick``: 2 groups,
a 25-s window, 1 and 3 processes (under a minute and a half) — too short for the trouble of
processes that each keep their own pings to build up (``workers_moves_ratio``,
``workers_duplicate_live_panels``); the full run shows it.

- ``workers_429``: 429s the fake answered over every scene; the target is none.
- ``workers_duplicate_live_panels``: the most times any player had two live panels of one game
  at once — two messages in his private chat both carrying armed buttons of the game — sampled
  every 0.25 s, counted once they have lasted 3 s (one process shows two for a moment: a ping
  sends the new copy, and the old one is deleted at the chat's next turn, 1.1 s later), in the
  scene where it happened (:class:`~bench.workers_players.PanelWatch`).
- ``workers_moves_ratio``: moves applied with 3 processes over moves applied with 1 in the same
  window. A move applied is a press that changed its game: a row of the database's ``actions``
  table with source ``press`` (one per game version a press made), counted once the players have
  paused at the window's end and what they pressed has had time to be handled.
- ``workers_lost_presses``: presses whose webhook post got a 200 but that were neither answered
  (the fake records the callback's answer) nor applied (no ``actions`` row of that game, the
  pressed version + 1 and the pressed code), after every scene's last presses had time.
- ``failover_s``: from the leader's SIGKILL to the answer of the first press posted after it
  (seen from outside: what a player waits). Which process leads is asked of ``/readyz`` or
  ``/metrics``; where no process says so (a process that does not serve them), process 0 dies.
  With ``/metrics`` the text also gives the time to the first update the new leader handled
  (``cardroom_updates_handled_total`` rising where ``cardroom_leader`` is 1).
- ``sigterm_stop_s``: the longest time from a SIGTERM to the process's exit: one in the middle
  of play, and every process at the end of every scene.

Skipped, in one line, when no PostgreSQL answers (``BENCH_DATABASE_URL``, by default the local
server with trust authentication).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from bench.report import TARGETS as REPORT_TARGETS
from bench.report import Figure, percentile
from bench.workers_balancer import Balancer, Delivery, leader_of, metrics, readiness
from bench.workers_fleet import (
    DEFAULT_DATABASE_URL,
    SECRET,
    Fleet,
    connect,
    scratch_database,
    unreachable,
)
from bench.workers_players import DUPLICATE_GRACE, PanelWatch, Press, ScriptedPlayer, Tempo
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeCallback, FakeChat, FakeUser
from bot.sandbox.server import FakeBotApiServer

#: The figures' targets (issue #29), by SUMMARY key: :data:`bench.report.TARGETS` holds them,
#: so that a run without asyncpg (which cannot import this module) prints the others' alike.
TARGETS = {
    key: REPORT_TARGETS[key]
    for key in (
        "workers_429",
        "workers_duplicate_live_panels",
        "workers_moves_ratio",
        "workers_lost_presses",
        "failover_s",
        "sigterm_stop_s",
    )
}
#: Seeds of the games (one per group) and of the players (ten per group), the same every scene.
GAME_SEED, PLAYER_SEED = 2_900_000, 29_000
#: Seconds given to what was pressed to be handled: at a window's end, and at a scene's end.
SETTLE, LAST_ANSWERS = 2.0, 4.0
#: The longest wait for a lobby's step, and for the first press answered after the leader died.
STEP_WAIT, FAILOVER_WAIT = 30.0, 20.0
#: A killed process is started again this long after it died, as a supervisor would.
RESTART_AFTER = 1.0
#: Kills this long after a 200.
KILL_DELAYS = (0.003, 0.020)


@dataclass(frozen=True)
class Plan:
    """How big and how long: groups of four per scene, the window of each scene, and which
    numbers of processes."""

    groups: int
    seconds: float
    counts: tuple[int, ...]


QUICK = Plan(groups=2, seconds=25.0, counts=(1, 3))
FULL = Plan(groups=4, seconds=80.0, counts=(1, 2, 3))


@dataclass
class Scene:
    """What one scene measured."""

    count: int
    watch: PanelWatch
    moves: int = 0
    presses: int = 0
    too_many: int = 0
    lost: int = 0
    #: The chaos part (3 processes only).
    failover: float | None = None
    failover_metrics: float | None = None
    failover_victim: str = ""
    #: The presses whose process was killed right after their 200: delay → callback id...
    killed: dict[float, str] = field(default_factory=dict)
    #: ... and what became of each press, by delay.
    killed_fates: dict[float, str] = field(default_factory=dict)
    tracebacks: int = 0


class WorkersBench:
    """The scenes, on one fake Bot API."""

    def __init__(self, folder: Path, database_url: str, plan: Plan) -> None:
        self.folder = folder
        self.database_url = database_url
        self.plan = plan
        self.api = FakeBotApi(flood_limits=True)
        self.scenes: list[Scene] = []
        self.stops: list[float] = []
        self.stop_mid_run: float | None = None
        #: The hands dealt at each group's start, over the scenes: one deal each when fair.
        self.deals: dict[int, set[str]] = {}

    async def run(self) -> list[Figure]:
        async with FakeBotApiServer(self.api) as server:
            for count in self.plan.counts:
                chaos = count == max(self.plan.counts)
                self.scenes.append(await self._scene(server.base_url, count, chaos=chaos))
        return self._figures()

    async def _scene(self, base_url: str, count: int, *, chaos: bool) -> Scene:
        scene = Scene(count, PanelWatch(self.api))
        too_many = self.api.stats.too_many_requests
        folder = self.folder / f"{count}-processes"
        folder.mkdir()
        async with scratch_database(self.database_url) as url:
            fleet = Fleet(self.api, base_url, url, folder, count)
            balancer = Balancer(self.api, fleet.ports, SECRET)
            database = await connect(url)
            pumping = asyncio.create_task(balancer.pump())
            tempo = Tempo()
            playing: list[asyncio.Task[None]] = []
            watching: asyncio.Task[None] | None = None
            try:
                await fleet.start_all()
                await self._await_leader(fleet)
                players = [
                    p
                    for table in await asyncio.gather(
                        *(self._open(database, count, g) for g in range(self.plan.groups))
                    )
                    for p in table
                ]
                scene.watch.follow(players)
                watching = asyncio.create_task(scene.watch.run())
                playing = [asyncio.create_task(p.play(tempo)) for p in players]
                await asyncio.sleep(self.plan.seconds)
                tempo.pressing.clear()  # the window ends: what was pressed is handled
                await asyncio.sleep(SETTLE)
                scene.moves = await database.fetchval(
                    "SELECT count(*) FROM actions WHERE source = 'press'"
                )
                scene.presses = sum(len(p.presses) for p in players)
                _say(f"  {count} process(es): {scene.moves} of {scene.presses} presses applied")
                if chaos:
                    tempo.pressing.set()
                    await self._chaos(scene, fleet, balancer, players)
                tempo.over = True
                for task in playing:
                    task.cancel()
                await asyncio.sleep(LAST_ANSWERS)
                presses = {p.callback.id: p for player in players for p in player.presses}
                fates = {key: await fate(database, balancer, p) for key, p in presses.items()}
                scene.lost = sum(1 for f in fates.values() if f == "lost")
                scene.killed_fates = {delay: fates[key] for delay, key in scene.killed.items()}
            finally:
                for task in [*playing, pumping, *([watching] if watching else [])]:
                    task.cancel()
                await balancer.close()
                await database.close()
                await fleet.stop_all()
                self.stops += fleet.stops
                scene.tracebacks = fleet.log_problems()
        scene.too_many = self.api.stats.too_many_requests - too_many
        return scene

    async def _await_leader(self, fleet: Fleet, wait: float = 10.0) -> None:
        """Where processes say their role, wait until one leads."""
        if await readiness(fleet.client, fleet.health_ports[0]) is None:
            return  # no /readyz: nothing to wait for
        for _ in range(round(wait / 0.1)):
            if await leader_of(fleet.client, fleet.health_ports) is not None:
                return
            await asyncio.sleep(0.1)

    async def _open(self, database: asyncpg.Pool, scene: int, group: int) -> list[ScriptedPlayer]:
        """A group of four opens Rank, joins and starts it, dealt from the group's seed."""
        api = self.api
        users = [api.add_user(f"Player {group}.{seat}") for seat in range(4)]
        chat = api.add_group(f"Scene {scene} table {group}", admins=users[:1], members=users[1:])
        await api.send_text(users[0], chat, "/new rank")
        await api.wait_until(lambda: _lobby(api, chat) is not None, timeout=STEP_WAIT)
        lobby = _lobby(api, chat)
        assert lobby is not None
        game_id = lobby[1]
        joined = "SELECT count(*) FROM seats WHERE game_id = $1 AND user_id = $2"
        for user in users[1:]:
            await self._lobby_press(database, chat, user, lobby, "join", joined, user.id)
        await database.execute(
            "UPDATE games SET seed = $1 WHERE id = $2", GAME_SEED + group, game_id
        )
        started = "SELECT count(*) FROM games WHERE id = $1 AND status = 'playing'"
        await self._lobby_press(database, chat, users[0], lobby, "start", started)
        state = json.loads(
            await database.fetchval("SELECT state FROM games WHERE id = $1", game_id)
        )
        self.deals.setdefault(group, set()).add(json.dumps(state["hands"]))
        return [
            ScriptedPlayer(api, user, PLAYER_SEED + 10 * group + seat, game_id)
            for seat, user in enumerate(users)
        ]

    async def _lobby_press(
        self,
        database: asyncpg.Pool,
        chat: FakeChat,
        user: FakeUser,
        lobby: tuple[int, int],
        op: str,
        took: str,
        *args: object,
    ) -> None:
        """Press the lobby's ``op`` until the database shows it took (``took`` counts a row
        for the game and ``args``): another process may refuse a press as out of date."""
        message, game_id = lobby
        for _ in range(3):
            await self._answered(
                await self.api.press_data(user, chat, message, f"L:{game_id}:{op}")
            )
            if await database.fetchval(took, game_id, *args):
                return
            await asyncio.sleep(0.5)
        raise RuntimeError(f"the lobby's {op} did not take in 3 presses")

    async def _answered(self, callback: FakeCallback) -> None:
        await self.api.wait_until(lambda: callback.answered, timeout=STEP_WAIT)

    # -- with 3 processes: kills ------------------------------------------------------------

    async def _chaos(
        self, scene: Scene, fleet: Fleet, balancer: Balancer, players: list[ScriptedPlayer]
    ) -> None:
        """Play goes on through the kills; each killed process is started again a little
        later, as a supervisor would; the SIGTERM comes last."""
        await asyncio.sleep(2.0)
        victim = await self._kill_leader(scene, fleet, players)
        restarts = [asyncio.create_task(self._restart(fleet, victim))]
        for delay in KILL_DELAYS:
            killed = await self._kill_after_200(scene, fleet, balancer, delay)
            if killed is not None:
                restarts.append(asyncio.create_task(self._restart(fleet, killed)))
        await asyncio.gather(*restarts)
        await asyncio.sleep(1.0)
        leader = await leader_of(fleet.client, fleet.health_ports)
        self.stop_mid_run = await fleet.terminate(0 if leader is None else leader)
        _say(f"  SIGTERM mid-run: exited after {self.stop_mid_run:.2f} s")

    @staticmethod
    async def _restart(fleet: Fleet, index: int) -> None:
        await asyncio.sleep(RESTART_AFTER)
        await fleet.start(index)

    async def _kill_leader(self, scene: Scene, fleet: Fleet, players: list[ScriptedPlayer]) -> int:
        """SIGKILL to the leader; the failover's times, and which process died."""
        loop = asyncio.get_running_loop()
        leader = await leader_of(fleet.client, fleet.health_ports)
        victim = 0 if leader is None else leader
        scene.failover_victim = (
            f"process {victim}, the leader by its own word"
            if leader is not None
            else "process 0: no process said it leads"
        )
        survivors = [n for n in range(len(fleet.ports)) if n != victim]
        handled = {n: await _handled(fleet, n) for n in survivors}
        killed_at = fleet.kill_at_once(victim)
        await fleet.reap(victim)
        # With /metrics, both views are awaited; without, the outside one.
        metered = all(v is not None for v in handled.values())
        while loop.time() < killed_at + FAILOVER_WAIT and (
            scene.failover is None or (metered and scene.failover_metrics is None)
        ):
            answered = [
                press.callback.answered_at
                for player in players
                for press in player.presses
                if press.at > killed_at and press.callback.answered_at is not None
            ]
            if answered and scene.failover is None:
                scene.failover = min(answered) - killed_at
            if (
                metered
                and scene.failover_metrics is None
                and await _new_leader_handled(fleet, handled)
            ):
                scene.failover_metrics = loop.time() - killed_at
            await asyncio.sleep(0.05)
        _say(f"  leader killed ({scene.failover_victim}): failover {scene.failover} s")
        return victim

    async def _kill_after_200(
        self, scene: Scene, fleet: Fleet, balancer: Balancer, delay: float
    ) -> int | None:
        """The process that answers the next press's post with 200 is killed ``delay`` s
        after (never the last one up); which one it was (``None``: no press came)."""
        loop = asyncio.get_running_loop()
        armed: asyncio.Future[Delivery] = loop.create_future()

        def after(delivery: Delivery) -> None:
            if delivery.callback_id is None or armed.done() or fleet.up < 2:
                return
            balancer.after_200 = None
            loop.call_later(delay, fleet.kill_at_once, delivery.process)
            armed.set_result(delivery)

        balancer.after_200 = after
        try:
            delivery = await asyncio.wait_for(armed, STEP_WAIT)
        except TimeoutError:
            balancer.after_200 = None
            return None
        await asyncio.sleep(delay)
        await fleet.reap(delivery.process)
        assert delivery.callback_id is not None
        scene.killed[delay] = delivery.callback_id
        return delivery.process

    # -- the figures ------------------------------------------------------------------------

    def _figures(self) -> list[Figure]:
        by_count = {scene.count: scene for scene in self.scenes}
        one, three = by_count.get(1), by_count.get(3)
        ratio = three.moves / one.moves if one and three and one.moves else math.nan
        scenes = ", ".join(f"{s.count}: {s.moves} of {s.presses} presses" for s in self.scenes)
        chaos = three or self.scenes[-1]
        stops = self.stops  # the one mid-run among them
        unlike = sum(1 for hands in self.deals.values() if len(hands) > 1)
        deals = "the same deals" if not unlike else f"deals unlike in {unlike} groups (!)"
        tracebacks = sum(s.tracebacks for s in self.scenes)
        if chaos.failover_metrics is not None:
            handled = f"the new leader's first handled update after {chaos.failover_metrics:.2f} s"
        else:
            handled = "no /metrics showed a leader handling an update"
        return [
            Figure(
                "workers_429",
                sum(s.too_many for s in self.scenes),
                "",
                "429s the strict-window fake answered, by processes: "
                + ", ".join(f"{s.count}: {s.too_many}" for s in self.scenes)
                + f" (the last with its kills); {tracebacks} tracebacks in the processes' logs",
            ),
            Figure(
                "workers_duplicate_live_panels",
                max(s.watch.most for s in self.scenes),
                "",
                "the most times one player had two live panels of his game at once, for "
                f"{DUPLICATE_GRACE:g} s or longer; times in all by processes: "
                + ", ".join(f"{s.count}: {sum(s.watch.episodes.values())}" for s in self.scenes)
                + f" (the longest {max(s.watch.longest for s in self.scenes):.0f} s)",
            ),
            Figure(
                "workers_moves_ratio",
                ratio,
                "",
                f"presses applied (actions rows) with 3 processes / with 1, the same scripted "
                f"players, {deals}, {self.plan.groups} groups of 4, a {self.plan.seconds:g}-s "
                f"window; by processes: {scenes}",
            ),
            Figure(
                "workers_lost_presses",
                sum(s.lost for s in self.scenes),
                "",
                "presses whose webhook post got a 200 but that were neither answered nor "
                "applied; a process killed after its 200 to a press, the press: "
                + (
                    ", ".join(f"{d * 1000:g} ms: {f}" for d, f in chaos.killed_fates.items())
                    or "none killed"
                ),
            ),
            Figure(
                "failover_s",
                chaos.failover if chaos.failover is not None else FAILOVER_WAIT,
                "s",
                f"SIGKILL of the leader ({chaos.failover_victim}) → the first press posted "
                f"after it answered"
                + ("" if chaos.failover is not None else f" (none in {FAILOVER_WAIT:g} s)")
                + f"; {handled}",
            ),
            Figure(
                "sigterm_stop_s",
                max(stops, default=math.nan),
                "s",
                f"SIGTERM → exit, the longest of {len(stops)}: mid-run "
                + ("—" if self.stop_mid_run is None else f"{self.stop_mid_run:.2f} s")
                + f", the rest at the scenes' ends (p50 {percentile(stops, 0.5):.2f} s)",
            ),
        ]


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _lobby(api: FakeBotApi, chat: FakeChat) -> tuple[int, int] | None:
    """The lobby in the group — its message and game id — once the bot has drawn it."""
    for message in reversed(api.bot_messages(chat)):
        for _label, data in (b for row in api.buttons(message) for b in row):
            if data.startswith("L:") and data.endswith(":join"):
                return message.message_id, int(data.split(":")[1])
    return None


async def _handled(fleet: Fleet, index: int) -> float | None:
    measured = await metrics(fleet.client, fleet.health_ports[index])
    return None if measured is None else measured.get("cardroom_updates_handled_total", 0.0)


async def _new_leader_handled(fleet: Fleet, before: dict[int, float | None]) -> bool:
    """Whether a survivor that says it leads has handled an update since the kill."""
    for index, handled in before.items():
        if handled is None:
            continue
        measured = await metrics(fleet.client, fleet.health_ports[index])
        if (
            measured is not None
            and measured.get("cardroom_leader") == 1
            and measured.get("cardroom_updates_handled_total", 0.0) > handled
        ):
            return True
    return False


async def fate(database: asyncpg.Pool, balancer: Balancer, press: Press) -> str:
    """What became of a press: ``unposted`` (no 200 yet), ``answered``, ``applied`` (its
    move is in the ``actions`` table, though nobody answered it) or ``lost``."""
    if balancer.delivery_of(press.callback.id) is None:
        return "unposted"
    if press.callback.answered:
        return "answered"
    applied = press.code is not None and await database.fetchval(
        "SELECT count(*) FROM actions WHERE game_id = $1 AND version = $2 "
        "AND source = 'press' AND action = $3",
        press.game_id,
        press.version + 1,
        press.code,
    )
    return "applied" if applied else "lost"


def measure(folder: Path, quick: bool) -> list[Figure]:
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    reason = asyncio.run(unreachable(url))
    if reason is not None:
        print(f"workers: skipped — {reason}")
        return []
    return asyncio.run(WorkersBench(folder, url, QUICK if quick else FULL).run())
