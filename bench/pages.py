"""Every game on the Mini App's page (issue #37): the push, the calls saved, the ceiling.

``python -m bench --only app`` prints, from one run, the figures of players who play on the
page beside those of the same players on the chat panels:

- ``app_push_p99_ms_<game>`` for each of the five games (**real time**, :func:`push_run`): the
  bot is built in-process as the Davay-ka! app bench builds it (:mod:`bench.davayka_app`:
  :class:`~bench.harness.Harness` with ``webapp_url``, the fake Bot API with Telegram's strict
  windows, the production budget and pacing, the garbage collector settled), the Mini App
  served on a loopback port, and one game of each kind dealt at once, every human seat's
  page opened through a real WebSocket (``initData`` signed with the fake's token). Each
  player taps a legal move of the page's ``moves`` 0.2–0.5 s after his page shows he has one,
  and waits for the answer; a game that ends is followed by a new one of its kind.
  :attr:`MiniApp.push_ms` is the figure: a press's arrival on its socket to the new state
  written to every socket of the game (:meth:`TableSocket.answer`), told apart by game.
- ``app_calls_per_move`` beside ``calls_per_move`` (**simulated time**, :func:`count_games`):
  the same seeded games of the five kinds, humans only, a move every 2 ± 0.5 s (the computer's
  choice for the seat, as :mod:`bench.calls` plays them), played once through the chat's
  buttons and once with every player on the page — a stand-in socket per seat
  (:class:`Page`, the real :meth:`TableSocket.show` writing its frames) and each move an update
  of the Mini App's own making handled by the same ``act`` — on the same bot (the Mini App
  configured in both: the panels carry its button). The calls are those that count against
  Telegram's limits (sendMessage, editMessageText, editMessageReplyMarkup, sendPhoto) into
  the games' groups and their players' private chats, from the deal to well after the end,
  per move applied from a press (the action log's ``press`` rows).
- ``games_at_ceiling_app`` beside ``games_at_ceiling`` (**simulated time**): the flood bench's
  ceiling (:func:`bench.flood.ceiling`, a move every 10 s in each game of the four
  turn-based kinds, the most games before the p99 of move → the next mover's view passes
  2 s), run once as it is (chat panels) and once with every player on the page
  (:func:`app_ceiling_run`): there the next mover's view is his page's state frame, written at
  once, unpaced; the calls left are the group tables, the pings (a player's panel sent anew
  when his move has waited for him), and the panels brought up to date at a game's end —
  their lags are told beside the figure, not judged by it. A step counts only with
  :data:`ALIVE` of its games still in play at its end (games over early carry no load).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from types import FrameType
from typing import Any

import orjson
from sqlalchemy import update
from telegram import Update
from tornado.httpclient import HTTPRequest
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application
from tornado.websocket import WebSocketClientConnection, websocket_connect

from bench import calls, flood
from bench.davayka_app import Timings, signed
from bench.davayka_app import _slow as slow_presses
from bench.harness import Harness
from bench.report import Figure, percentile
from bench.warp import warped
from bench.world import EPOCH, BenchGame, World, sqlite_url
from bot.app import settle
from bot.i18n import translator
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeUser
from bot.services.authority import Origin
from bot.services.types import Actor, ChatRef, GameSnapshot
from bot.settings import Settings
from bot.storage.models import GameRow
from bot.telegram.handlers import Cardroom
from bot.telegram.inbox import OWN_FIELD
from bot.telegram.miniapp.server import MiniApp, TableSocket, app_update_id
from bot.telegram.poller import POLL_SECONDS
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.live import GROUP_INTERVAL, PRIVATE_INTERVAL
from bot.telegram.sender.slots import Slot

#: The five games, in the order the figures are printed.
GAMES = ("advantage", "davayka", "progression", "rank", "trumps")
#: Where the bot believes its Mini App is served in the simulated runs (nothing listens: the
#: pages there are in-process stand-ins), and its short name (the tables' direct link).
PAGE_URL, SHORT_NAME = "http://127.0.0.1:9", "table"
#: Seconds from a page showing a player a move to his tap, in the push run.
TAP = (0.2, 0.5)
#: Seconds a player waits for his press's answer before he looks again without it.
ANSWER_WAIT = 3.0
#: The event loop this late (ms) is looked into: where its thread is.
STALL_MS = 40.0
#: The share of a ceiling run's games that must still be in play at its end for it to count.
ALIVE = 0.9
#: The push run's span of real time: a full run, and ``--quick``.
PUSH_SPAN, QUICK_PUSH_SPAN = 60.0, 8.0


# -- a page in the process (simulated time) ---------------------------------------------------


class Page:
    """A page open on a game in its player's seat, without a browser or a socket: the Mini
    App writes to it as to a :class:`TableSocket` — the same :meth:`TableSocket.show` builds
    its frames — and it notes when it was shown each version, and the answers to its
    presses."""

    # The socket's own way of making and writing a reader's frame, on this stand-in.
    show = TableSocket.show

    def __init__(self, user_id: int, game_id: int, seat: int, language: str) -> None:
        self.user_id: int | None = user_id
        self.game_id: int | None = game_id
        self.seat: int | None = seat
        self.language = language
        self.t = translator(language)
        self.name: str | None = None
        self._shown = 0
        #: (version, loop time) of each frame written.
        self.frames: list[tuple[int, float]] = []
        self.answers: dict[int, bool] = {}

    def write_message(self, _frame: str) -> None:
        self.frames.append((self._shown, asyncio.get_running_loop().time()))

    def answer(self, seq: Any, ok: bool, _text: str | None) -> None:
        if isinstance(seq, int):
            self.answers[seq] = ok

    def lag(self, version: int, since: float) -> float | None:
        """Seconds from ``since`` until the page was written ``version`` or newer."""
        for shown, at in self.frames:
            if shown >= version and at >= since:
                return at - since
        return None


@dataclass
class AppWorld(World):
    """The bench's bot (:class:`~bench.world.World`) with its Mini App configured, and pages
    that players open on their games."""

    pages: dict[int, list[Page]] = field(default_factory=dict)
    _seq: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def settings(self, **more: Any) -> Settings:
        return super().settings(webapp_url=PAGE_URL, webapp_short_name=SHORT_NAME, **more)

    @property
    def miniapp(self) -> MiniApp:
        miniapp = self.room.miniapp
        assert miniapp is not None, "the Mini App is not configured"
        return miniapp

    def open_pages(self, game: BenchGame) -> None:
        """Every human of the game opens its page in his seat (he signed in: the socket
        shows him the game at once, as after his hello)."""
        snapshot = self.latest[game.game_id]
        miniapp = self.miniapp
        opened = []
        for info in snapshot.seats:
            if info.user_id is None:
                continue
            page = Page(info.user_id, game.game_id, info.seat, info.language)
            page.name = miniapp.opened(page, game.game_id)  # type: ignore[arg-type]
            page.show(snapshot, miniapp.clock())  # type: ignore[arg-type]
            opened.append(page)
        self.pages[game.game_id] = opened

    def close_pages(self, game: BenchGame) -> None:
        for page in self.pages.pop(game.game_id, []):
            self.miniapp.closed(page)  # type: ignore[arg-type]

    def page_of(self, game: BenchGame, seat: int) -> Page | None:
        return next((p for p in self.pages.get(game.game_id, ()) if p.seat == seat), None)

    async def app_press(self, game: BenchGame, seat: int, code: str) -> bool | None:
        """The seat's player taps the move ``code`` on his page: the update its socket
        stores in the inbox, handed to the Application as the inbox's reader hands it.
        Whether it was accepted (``None``: not answered)."""
        page = self.page_of(game, seat)
        if page is None or page.user_id is None:
            return None
        seq = next(self._seq)
        payload = {
            "update_id": app_update_id(),
            OWN_FIELD: {
                "chat": {"id": page.user_id},
                "user": page.user_id,
                "game": game.game_id,
                "code": code,
                "seq": seq,
                "socket": page.name,
            },
        }
        app = self.application
        await app.process_update(Update.de_json(payload, app.bot))
        return page.answers.pop(seq, None)


def app_world(folder: Path, name: str, api: FakeBotApi) -> AppWorld:
    """The bot with its production budget and pacing, against ``api`` (on the running
    loop's clock), as :func:`bench.flood.strict_world` builds it."""
    loop = asyncio.get_running_loop()
    return AppWorld(
        sqlite_url(folder, name),
        clock=lambda: EPOCH + loop.time(),
        group_interval=GROUP_INTERVAL,
        private_interval=PRIVATE_INTERVAL,
        api=api,
        limits=Limits(),
        press_clock=loop.time,
    )


# -- Bot API calls per move: chat buttons, then pages -----------------------------------------


async def count_games(folder: Path, per_kind: int, *, pages: bool) -> list[calls.GameCount]:
    """``per_kind`` rounds of seeded games, one of each kind at once, played to their ends by
    their humans — through the chat's buttons, or (``pages``) on the page; their calls."""
    loop = asyncio.get_running_loop()
    api = FakeBotApi(clock=loop.time, flood_limits=True)
    log = calls.CallLog(api)
    world = app_world(folder, f"calls-{'pages' if pages else 'chat'}.db", api)
    await world.start(run_jobs=False)
    refused: Counter[int] = Counter()
    counts: list[calls.GameCount] = []

    async def play(key: str, seed: int, rng: Random) -> None:
        await asyncio.sleep(rng.uniform(0, 3 * calls.PACE))
        started = loop.time()
        game = await world.create_game(key, calls.HUMANS[key], seed=seed)
        # He opens the page from his panel's button: once it is there.
        await world.delivered(game)
        if pages:
            world.open_pages(game)
        await _play(world, game, rng, refused, pages=pages)
        await asyncio.sleep(calls.AFTERMATH)
        world.close_pages(game)
        minutes = (loop.time() - started - calls.AFTERMATH) / 60
        counts.append(await calls._count(world, log, game, refused[game.game_id], minutes))

    try:
        for index in range(per_kind):
            seed = 1_000 + index
            await asyncio.gather(
                *(play(key, seed, Random(seed * 7 + n)) for n, key in enumerate(GAMES))
            )
        return counts
    finally:
        await world.stop()


async def _play(
    world: AppWorld, game: BenchGame, rng: Random, refused: Counter[int], *, pages: bool
) -> None:
    """A move every ``PACE`` ± ``JITTER`` s until the game ends (as :mod:`bench.calls`)."""
    while True:
        await asyncio.sleep(rng.uniform(calls.PACE - calls.JITTER, calls.PACE + calls.JITTER))
        snapshot = world.latest.get(game.game_id)
        if snapshot is None or snapshot.is_over:
            return
        chosen = await calls._choose(world, game, rng)
        if chosen is None:
            continue
        if pages:
            seat, _version, code = chosen
            refused[game.game_id] += (await world.app_press(game, seat, code)) is False
            continue
        press = await world.make_press(game, *chosen)
        if press is None:
            continue
        await world.process(press)
        refused[game.game_id] += press.callback.text is not None


@dataclass(frozen=True, slots=True)
class Calls:
    """A mode's calls per move, over all its games, and by kind."""

    per_move: float
    by_kind: dict[str, float]
    group: float
    private: float
    moves: int
    too_many: int


def tally(counts: Sequence[calls.GameCount]) -> Calls:
    moves = sum(c.presses for c in counts)
    group = sum(c.group_calls for c in counts)
    private = sum(c.private_calls for c in counts)
    by_kind = {}
    for key in GAMES:
        mine = [c for c in counts if c.key == key]
        presses = sum(c.presses for c in mine)
        by_kind[key] = sum(c.group_calls + c.private_calls for c in mine) / max(1, presses)
    return Calls(
        (group + private) / max(1, moves),
        by_kind,
        group / max(1, moves),
        private / max(1, moves),
        moves,
        sum(sum(c.too_many) for c in counts),
    )


# -- the ceiling with every player on the page ------------------------------------------------


@dataclass(frozen=True, slots=True)
class AppCeiling:
    """One app ceiling run: the p99 of move → the next mover's page, and beside it what the
    chat's side did (the tables' lag, the pings, Telegram's 429s, the calls a second) and
    the real CPU the whole simulated window took."""

    games: int
    page_p99: float
    table_p99: float
    #: The p99 of a ping's firing → its panel sent anew (0: none fired).
    ping_p99: float
    #: Pings that fired (a move waited for its player on the page), and the new messages
    #: sent into private chats (those pings, and the panels renewed at a game's end).
    pings: int
    private_sends: int
    too_many: int
    calls_per_s: float
    cpu_per_s: float
    turns: int
    moves: int
    #: Games still in play at the window's end (the others ended in it).
    playing: int


async def app_ceiling_run(folder: Path, games: int, seconds: float) -> AppCeiling:
    """:func:`bench.flood.ceiling_run` with every player on the page."""
    loop = asyncio.get_running_loop()
    api = FakeBotApi(clock=loop.time, flood_limits=True)
    world = app_world(folder, f"ceiling-app-{games}.db", api)
    await world.start(run_jobs=False)
    deliveries = flood.Deliveries()
    deliveries.watch(world.room.publisher)
    turns: list[tuple[int, int, int, float]] = []
    moves: list[tuple[int, int, float]] = []
    try:
        made = await world.create_games(games, flood.TURN_KINDS)
        # The starts go out (tables and hands) before the clock runs, as in the flood bench —
        # but no longer than that takes: past 300 games its fixed 120 s, after the starts'
        # own drains, outlasts the first movers' windows twice over, their seats pass to the
        # computer, and most games are over before the first move.
        await world.room.publisher.drain()
        for game in made:
            world.open_pages(game)
        by_id = {game.game_id: game for game in made}
        next_turn = flood.turns_after(world, turns)

        def moved(game: BenchGame, version: int, at: float) -> None:
            moves.append((game.game_id, version, at))
            next_turn(game, version, at)

        publisher = world.room.publisher
        fire = publisher._ping
        pinged: list[tuple[int, int | None, float]] = []

        def ping(panel: Slot, user_id: int, started: float) -> None:
            fire(panel, user_id, started)
            if panel.renew:  # due: his panel comes anew
                pinged.append((panel.game_id, panel.seat, loop.time()))

        publisher._ping = ping  # type: ignore[method-assign]
        sent_before = _limited(api)
        private_sends = api.stats.by_chat_method.copy()
        cpu = time.process_time()
        until = loop.time() + seconds
        await asyncio.gather(
            *(
                _play_pages(world, game, Random(game.game_id), flood.MOVE_EVERY, until, moved)
                for game in made
            )
        )
        cpu = time.process_time() - cpu
        playing = sum(1 for game in made if world.latest[game.game_id].status == "playing")
        calls_per_s = (_limited(api) - sent_before) / seconds
        await asyncio.sleep(30)
        lags = []
        for game_id, seat, version, at in turns:
            page = world.page_of(by_id[game_id], seat)
            lag = None if page is None else page.lag(version, at)
            lags.append(seconds if lag is None else lag)
        tables = [
            lag if (lag := deliveries.lag(game_id, None, version, at)) is not None else seconds
            for game_id, version, at in moves
        ]
        # A ping is the panel of his turn that still comes to a player on the page: from
        # its firing to the new message.
        ping_lags = [
            lag if (lag := _shown_after(deliveries, game_id, seat, at)) is not None else seconds
            for game_id, seat, at in pinged
        ]
        sends = sum(
            n - private_sends.get((chat, method), 0)
            for (chat, method), n in api.stats.by_chat_method.items()
            if chat > 0 and method == "sendMessage"
        )
        return AppCeiling(
            games,
            percentile(lags, 0.99),
            percentile(tables, 0.99),
            percentile(ping_lags, 0.99) if ping_lags else 0.0,
            len(pinged),
            sends,
            api.stats.flood_limited,
            calls_per_s,
            cpu / seconds,
            len(turns),
            len(moves),
            playing,
        )
    finally:
        await world.abandon_deliveries()
        await world.stop()


def _shown_after(
    deliveries: flood.Deliveries, game_id: int, seat: int | None, at: float
) -> float | None:
    """Seconds from ``at`` until the message of ``seat`` next went out, whatever it showed."""
    for _version, shown in deliveries.shown.get((game_id, seat), ()):
        if shown >= at:
            return shown - at
    return None


def _limited(api: FakeBotApi) -> int:
    return sum(
        n for (_chat, method), n in api.stats.by_chat_method.items() if method in calls.LIMITED
    )


async def _play_pages(
    world: AppWorld,
    game: BenchGame,
    rng: Random,
    every: float,
    until: float,
    moved: Callable[[BenchGame, int, float], None],
) -> None:
    """:func:`bench.flood.play_moves` on the page: a legal move of a human who may act,
    every ``every`` s (± a quarter), chosen as there."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(rng.uniform(0, every))
    while loop.time() < until:
        snapshot = world.latest.get(game.game_id)
        choices = (
            []
            if snapshot is None or snapshot.status != "playing"
            else [
                (seat, actions)
                for seat, actions in snapshot.legal.items()
                if snapshot.seats[seat].user_id is not None and actions
            ]
        )
        if not choices:
            await asyncio.sleep(1.0)  # a computer's or a timer's turn
            continue
        seat, actions = rng.choice(choices)
        code = rng.choice(actions)[0]
        started = loop.time()
        if await world.app_press(game, seat, code):
            moved(game, world.latest[game.game_id].version, started)
        await asyncio.sleep(rng.uniform(0.75 * every, 1.25 * every))


async def app_ceiling(
    folder: Path, seconds: float, steps: tuple[int, ...]
) -> tuple[int, dict[int, AppCeiling]]:
    """The most games (of ``steps``) whose next-page p99 stays within the deadline."""
    measured: dict[int, AppCeiling] = {}
    best = 0
    for games in steps:
        run = await app_ceiling_run(folder, games, seconds)
        measured[games] = run
        # Games over before their time carry no load: such a step proves nothing.
        if run.page_p99 > flood.PANEL_WITHIN or run.playing < ALIVE * games:
            break
        best = games
    return best, measured


# -- the push, in real time -------------------------------------------------------------------


@dataclass
class Tapper:
    """A player at his page, through a real WebSocket: he taps a legal move the page offers
    him, and waits for its answer."""

    user: FakeUser
    rng: Random
    view: dict[str, Any] | None = None
    presses: int = 0
    refused: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    connection: WebSocketClientConnection | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _answered: dict[int, asyncio.Event] = field(default_factory=dict)
    _seq: int = 0
    _reading: asyncio.Task[None] | None = None

    async def open(self, base: str, token: str, game_id: int) -> None:
        self.view = None
        request = HTTPRequest(base.replace("http", "ws") + "/app/socket", headers={"Origin": base})
        self.connection = await websocket_connect(request)
        self._reading = asyncio.create_task(self._read(self.connection))
        hello = {"t": "hello", "init_data": signed(token, self.user), "game": game_id}
        await self.connection.write_message(orjson.dumps(hello).decode())
        deadline = time.monotonic() + 10.0
        while self.view is None or self.view.get("game") != game_id:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the page of game {game_id} showed nothing: {self.errors}")
            await self._change(0.1)

    async def close(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            await asyncio.gather(self._reading, return_exceptions=True)
            self._reading = None
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    async def _read(self, connection: WebSocketClientConnection) -> None:
        while True:
            message = await connection.read_message()
            if message is None:
                return
            frame: dict[str, Any] = orjson.loads(message)
            kind = frame.get("t")
            if kind == "state":
                self.view = frame["view"]
            elif kind == "error":
                self.errors.append(frame)
            seq = frame.get("seq")
            if kind in ("answer", "error") and isinstance(seq, int) and seq in self._answered:
                self.refused += not frame.get("ok")
                self._answered.pop(seq).set()
            self._changed.set()

    async def _change(self, seconds: float) -> None:
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), seconds)

    async def play(self, until: float, over: asyncio.Event) -> None:
        """Tap a move the page offers, 0.2–0.5 s after it shows one — until ``until`` or
        the game is ``over`` (the bot published its end). The page's ``moves`` say whether
        he has one: only a game in play offers any."""
        loop = asyncio.get_running_loop()
        while loop.time() < until and self.connection is not None and not over.is_set():
            view = self.view
            if view is None or not view.get("moves"):
                await self._change(min(1.0, max(0.01, until - loop.time())))
                continue
            await asyncio.sleep(self.rng.uniform(*TAP))
            moves = (self.view or {}).get("moves") or []
            if not moves:
                continue
            code = self.rng.choice(moves)["code"]
            self._seq += 1
            answered = self._answered[self._seq] = asyncio.Event()
            frame = {"t": "act", "code": code, "seq": self._seq}
            await self.connection.write_message(orjson.dumps(frame).decode())
            self.presses += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(answered.wait(), ANSWER_WAIT)


class Stalls:
    """Where the event loop's thread is while the loop is late: a watchdog thread looks every
    10 ms, and when the loop has not ticked for :data:`STALL_MS`, notes the thread's innermost
    frame and the innermost of the bot's own (``bot/``) — a blocking call shows there, a
    thread the machine did not run shows waiting in the selector."""

    def __init__(self) -> None:
        self.beat = time.perf_counter()
        #: Samples (10 ms each) by where the loop's thread was.
        self.where: Counter[str] = Counter()
        self._main = threading.get_ident()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stall-watch", daemon=True)

    async def tick(self) -> None:
        self._thread.start()
        try:
            while True:
                self.beat = time.perf_counter()
                await asyncio.sleep(0.005)
        finally:
            self._stop.set()

    def _watch(self) -> None:
        while not self._stop.wait(0.01):
            if (time.perf_counter() - self.beat) * 1000 < STALL_MS:
                continue
            frame = sys._current_frames().get(self._main)
            if frame is not None:
                self.where[_place(frame)] += 1

    def told(self, most: int = 4) -> str:
        total = sum(self.where.values())
        if not total:
            return f"the loop never {STALL_MS:g} ms late at a look"
        top = "; ".join(f"{n} × {where}" for where, n in self.where.most_common(most))
        return (
            f"the loop {STALL_MS:g}+ ms late at {total} looks (10 ms apart), its thread in: {top}"
        )


def _place(frame: FrameType) -> str:
    """The innermost frame, and the innermost of the bot's own, as ``file:line function``."""
    inner = frame
    own = None
    while frame is not None and own is None:
        if f"{os.sep}bot{os.sep}" in frame.f_code.co_filename:
            own = frame
        frame = frame.f_back  # type: ignore[assignment]

    def said(f: FrameType) -> str:
        return f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}"

    return said(inner) + ("" if own is None or own is inner else f" ← {said(own)}")


@dataclass
class PushRun:
    #: Milliseconds of each accepted press, by game kind.
    push_ms: dict[str, list[float]]
    games: Counter[str]
    presses: Counter[str]
    refused: Counter[str]
    too_many: int
    seconds: float
    cpu_share: float
    #: The slow presses told by their cause (:func:`bench.davayka_app._slow`).
    slow: str
    #: Where the loop's thread was while the loop was late (:class:`Stalls`).
    stalls: str


async def push_run(folder: Path, seconds: float, seed: int = 37) -> PushRun:
    """One game of each kind at once, every seat on its page, for ``seconds`` of real time."""
    loop = asyncio.get_running_loop()
    sockets = bind_sockets(0, "127.0.0.1")
    base = f"http://127.0.0.1:{sockets[0].getsockname()[1]}"
    api = FakeBotApi(flood_limits=True)
    harness = Harness(api, sqlite_url(folder, "push.db"), limits=Limits(), webapp_url=base)
    app = await harness.start()
    room: Cardroom = app.bot_data["cardroom"]
    # The production pacing: the harness's is a test's (tables at once, deadlines every 20 ms).
    room.publisher.group_interval = GROUP_INTERVAL
    room.poller.interval = POLL_SECONDS
    settle()
    miniapp = room.miniapp
    assert miniapp is not None
    # Where a slow press's time went, and what held the process up meanwhile.
    timings = Timings()
    timings.watch(miniapp)
    server = HTTPServer(Application(miniapp.routes(), websocket_max_message_size=4096))
    server.add_sockets(sockets)
    kinds: dict[int, str] = {}
    push_ms: dict[str, list[float]] = {key: [] for key in GAMES}
    answer = miniapp.answer

    def told(socket: str, seq: Any, ok: bool, text: str | None) -> None:
        # Which game an accepted press's push belongs to (push_ms says nothing of it).
        before = len(miniapp.push_ms)
        answer(socket, seq, ok, text)
        here = miniapp._sockets.get(socket)
        if len(miniapp.push_ms) > before and here is not None and here.game_id in kinds:
            push_ms[kinds[here.game_id]].append(miniapp.push_ms[-1])

    miniapp.answer = told  # type: ignore[method-assign]
    ended: dict[int, asyncio.Event] = {}

    def end(snapshot: GameSnapshot) -> None:
        if snapshot.is_over:
            ended.setdefault(snapshot.game_id, asyncio.Event()).set()

    room.publisher.watchers.append(end)
    games: Counter[str] = Counter()
    presses: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    tappers: list[Tapper] = []
    names = itertools.count(1)
    until = loop.time() + seconds

    async def table(key: str, number: int) -> None:
        people = [
            api.add_user(f"{key.title()}{next(names)}", started=True)
            for _ in range(calls.HUMANS[key])
        ]
        mine = [Tapper(p, Random(seed * 1000 + number * 10 + n)) for n, p in enumerate(people)]
        tappers.extend(mine)
        round_ = 0
        while loop.time() < until - 1.0:
            game_id = await deal(room, api, people, key, seed * 100 + number * 10 + round_)
            kinds[game_id] = key
            games[key] += 1
            round_ += 1
            for tapper in mine:
                await tapper.open(base, api.token, game_id)
            over = ended.setdefault(game_id, asyncio.Event())
            await asyncio.gather(*(tapper.play(until, over) for tapper in mine))
            for tapper in mine:
                await tapper.close()
        presses[key] += sum(t.presses for t in mine)
        refused[key] += sum(t.refused for t in mine)

    api.reset_stats()
    miniapp.push_ms.clear()
    cpu, started = time.process_time(), loop.time()
    sampling = asyncio.create_task(timings.sample_loop())
    stalls = Stalls()
    watching = asyncio.create_task(stalls.tick())
    gc.callbacks.append(timings.collected)
    try:
        await asyncio.gather(*(table(key, n) for n, key in enumerate(GAMES)))
        elapsed = loop.time() - started
        return PushRun(
            push_ms,
            games,
            presses,
            refused,
            api.stats.flood_limited,
            elapsed,
            (time.process_time() - cpu) / elapsed,
            slow_presses(timings),
            stalls.told(),
        )
    finally:
        gc.callbacks.remove(timings.collected)
        sampling.cancel()
        watching.cancel()
        for tapper in tappers:
            await tapper.close()
        server.stop()
        slots = room.publisher._slots
        tasks = [s.task for s in slots.values() if s.task is not None and not s.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await harness.stop()


async def deal(
    room: Cardroom, api: FakeBotApi, people: list[FakeUser], key: str, seed: int
) -> int:
    """A seeded game of ``key`` between ``people`` in a group of its own, started through
    the services as the lobby's buttons start one (:func:`bench.davayka_app.deal`); its id."""
    group = api.add_group(f"Table {key} {seed}", members=people)
    where = ChatRef(group.id, group.type, group.title)
    actors = [Actor(p.id, p.first_name, None, "en") for p in people]
    await room.lobby.record(actors[0], where, started=True)
    lobby = await room.lobby.open(where, actors[0], key)
    async with room.play.db.transaction() as session:
        await session.execute(update(GameRow).where(GameRow.id == lobby.game_id).values(seed=seed))
    table = Origin(group.id, 0)
    for actor in actors[1:]:
        await room.lobby.mark_started(actor)
        await room.lobby.join(lobby.game_id, actor, table)
    room.publisher.publish(await room.lobby.start(lobby.game_id, actors[0], table))
    return lobby.game_id


# -- the figures ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """How long each part runs."""

    push_seconds: float
    per_kind: int
    ceiling_seconds: float
    chat_steps: tuple[int, ...]
    app_steps: tuple[int, ...]


#: The chat's ceiling is searched from 200 games up (the flood bench found 250), the pages'
#: from 1.5 times that: each step is minutes of simulated play, and the search stops at the
#: first step that does not hold. ``--quick`` stays far below both: its figures are only sane.
FULL = Plan(PUSH_SPAN, 2, 120.0, (200, 250, 300, 350, 400), (375, 500))
QUICK = Plan(QUICK_PUSH_SPAN, 1, 20.0, (50, 100), (100, 150))


@dataclass
class Measured:
    push: PushRun
    chat: Calls
    pages: Calls
    chat_ceiling: tuple[int, dict[int, float]]
    app_ceiling: tuple[int, dict[int, AppCeiling]]
    plan: Plan


def run_all(folder: Path, plan: Plan) -> Measured:
    folder.mkdir(parents=True, exist_ok=True)
    push = asyncio.run(push_run(folder, plan.push_seconds))
    with warped() as runner:
        chat = tally(runner.run(count_games(folder, plan.per_kind, pages=False)))
    with warped() as runner:
        pages = tally(runner.run(count_games(folder, plan.per_kind, pages=True)))
    flood.CEILING_429.clear()
    on_chat = flood.on_simulated_time(
        lambda: flood.ceiling(folder, plan.ceiling_seconds, plan.chat_steps, prioritised=True)
    )
    on_pages = flood.on_simulated_time(
        lambda: app_ceiling(folder, plan.ceiling_seconds, plan.app_steps)
    )
    return Measured(push, chat, pages, on_chat, on_pages, plan)


def figures(measured: Measured) -> list[Figure]:
    push = measured.push
    out = []
    for key in GAMES:
        samples = push.push_ms[key]
        out.append(
            Figure(
                f"app_push_p99_ms_{key}",
                percentile(samples, 0.99),
                "ms",
                f"{key} on the page, {calls.HUMANS[key]} players: a press's arrival on its "
                f"socket → the new state written to every socket of the game (p50 "
                f"{percentile(samples, 0.5):.1f}, max "
                f"{max(samples) if samples else float('nan'):.1f} ms; {len(samples)} accepted "
                f"of {push.presses[key]} presses, {push.games[key]} game(s))",
            )
        )
    out.append(
        Figure(
            "app_push_run",
            push.seconds,
            "s",
            f"the push run: the five games at once in real time, the chats drawn beside "
            f"(429s: {push.too_many}); the process used {push.cpu_share:.2f} of a core; "
            f"presses {push.slow}; {push.stalls}",
        )
    )
    chat, pages = measured.chat, measured.pages
    by_kind = ", ".join(
        f"{key} {pages.by_kind[key]:.2f} / {chat.by_kind[key]:.2f}" for key in GAMES
    )
    out += [
        Figure(
            "calls_per_move",
            chat.per_move,
            "",
            f"limited Bot API calls per applied move through the chat's buttons: "
            f"{chat.group:.2f} group + {chat.private:.2f} private; {chat.moves} moves, the "
            f"five games × {measured.plan.per_kind}, a move every {calls.PACE:g} s; 429s "
            f"{chat.too_many}",
        ),
        Figure(
            "app_calls_per_move",
            pages.per_move,
            "",
            f"the same games with every player on the page: {pages.group:.2f} group + "
            f"{pages.private:.2f} private; {pages.moves} moves; 429s {pages.too_many}; by "
            f"game, page / chat: {by_kind}",
        ),
        Figure(
            "app_calls_ratio",
            pages.per_move / chat.per_move if chat.per_move else float("nan"),
            "×",
            "app_calls_per_move / calls_per_move, same run",
        ),
    ]
    chat_best, chat_measured = measured.chat_ceiling
    app_best, app_measured = measured.app_ceiling
    last = app_measured[max(app_measured)] if app_measured else None
    tried = max(measured.plan.app_steps)
    out += [
        Figure(
            "games_at_ceiling_chat",
            chat_best,
            "",
            f"games_at_ceiling re-measured in this run (chat panels): games at a move every "
            f"{flood.MOVE_EVERY:g} s before the next "
            f"mover's panel p99 passes {flood.PANEL_WITHIN:g} s (p99 by games: "
            + ", ".join(f"{n}: {v:.2f}" for n, v in chat_measured.items())
            + f"; 429s {sum(flood.CEILING_429)})",
        ),
        Figure(
            "games_at_ceiling_app",
            app_best,
            "",
            "every player on the page: the same, the next mover's page (a step counts with "
            f"{ALIVE:.0%} of its games still in play at its end; "
            + ("the most tried; " if app_best == tried else "")
            + "by games: "
            + "; ".join(
                f"{n}: page p99 {r.page_p99:.2f} s, ping p99 {r.ping_p99:.2f} s, {r.moves} "
                f"moves, {r.playing} games in "
                f"play at the end, table p99 "
                f"{r.table_p99:.1f} s, "
                f"{r.calls_per_s:.1f} calls/s, {r.pings} pings, {r.private_sends} private "
                f"sends, 429s {r.too_many}, "
                f"CPU {r.cpu_per_s:.2f} s/s"
                for n, r in app_measured.items()
            )
            + ")",
        ),
        Figure(
            "games_at_ceiling_ratio",
            app_best / chat_best if chat_best else float("nan"),
            "×",
            "games_at_ceiling_app / games_at_ceiling_chat, same run"
            + (
                f" (a lower bound: {tried} games, the most tried, held)"
                if last is not None and app_best == tried
                else ""
            ),
        ),
    ]
    return out


def measure(folder: Path, quick: bool) -> list[Figure]:
    return figures(run_all(folder, QUICK if quick else FULL))
