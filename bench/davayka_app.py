"""Two quick players at Davay-ka! through the Mini App's sockets (issue #30), in real time.

The bot is built in-process as ``tests/e2e/test_miniapp.py`` builds it (:class:`Harness` with
``webapp_url``): the Application, the services and SQLite in the bench's folder, against the
fake Bot API with Telegram's strict windows on and the bot's production budget and pacing, so
the group table and both chat panels go on being drawn beside the pages. The Mini App is
served on a loopback port; a game is dealt (seeded) between two people who both open the page
(``initData`` signed with the fake's token) and play through their sockets for a fixed span of
real time — the app is real time, so no simulated clock here. A game that ends early is
followed by a new one.

Each simulated player is quick_play's (:data:`bench.quick_play.REACT`: 0.4–0.6 s from seeing
a state to his tap), on a live screen instead of a chat panel:

- **Network.** Every frame each way is held 0.05–0.15 s (uniform, independent, seeded) — a
  received frame before the player sees it, a press before it is written — and never
  overtakes the frame before it (a WebSocket is one ordered stream): :class:`Link`.
- **Deciding** (:func:`decide`): on the latest state his page shows — Ready or «Давай-ка!»
  when offered, else the leftmost row pile the view's ``plays`` says fits, aimed at the
  (first) centre pile it fits.
- **Tapping** (:func:`tap_code`): after his reaction time, on what his screen shows *then*:
  the pile must still show the card he meant and that card must fit a centre pile on the
  screen (else he does not tap, and decides again). Then he waits for his press's answer, as
  quick_play's player waits for his.

Figures:

- ``davayka_app_accepted_share``: accepted move presses / move presses (target ≥ 0.95).
- ``davayka_app_mistaps``: accepted presses that played another card than the one the player
  meant when he decided (target 0), told by the ``last_move`` of the state pushed with the
  press's answer (the bot writes the new state to the sockets, then the answer).
- ``davayka_app_push_p99_ms`` / ``…_p50_ms``: :attr:`MiniApp.push_ms` over the run — a press's
  arrival on its socket to the new state written to every socket of the game (target ≤ 50).
- ``davayka_app_accepted_share_ceiling``: as quick_play's — every refused move press counted
  as accepted that was decided on centre piles the game had already changed (news still on
  the wire). The other refusals are sorted by what changed the centre between deciding and
  the refusal (:func:`why_refused`): the other player's move (a race the rules decide: "moves
  are applied in the order they reach the server"), a flip, or nothing the bench can see.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import hmac
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any
from urllib.parse import urlencode

import orjson
from sqlalchemy import update
from tornado.httpclient import HTTPRequest
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application
from tornado.websocket import WebSocketClientConnection, websocket_connect

from bench.harness import Harness
from bench.quick_play import REACT
from bench.report import Figure, percentile
from bench.world import sqlite_url
from bot.app import settle
from bot.games.cards import parse_card
from bot.games.davayka import DavaykaView, fits
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeUser
from bot.services.authority import Origin
from bot.services.types import Actor, ChatRef, GameSnapshot
from bot.storage.models import GameRow
from bot.telegram.handlers import Cardroom
from bot.telegram.inbox import OWN_FIELD
from bot.telegram.miniapp.auth import secret_key
from bot.telegram.miniapp.server import MiniApp
from bot.telegram.poller import POLL_SECONDS
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.live import GROUP_INTERVAL

#: Seconds each frame spends on the way, each way.
NETWORK = (0.05, 0.15)
#: Seconds of play: a full run, and ``--quick``.
SPAN, QUICK_SPAN = 90.0, 20.0
#: Seconds a player waits for the answer to his press before he looks again without it.
ANSWER_WAIT = 3.0
#: Seconds a player watching a screen with nothing to do waits for a change before looking again.
WATCH = 1.0
#: A press slower than this (ms) is looked into (the push's target).
SLOW_MS = 50.0
#: A card's label in an answer's text ("Centre: 9♣ · 4♦."), for grouping the answers.
CARD_LABEL = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]\ufe0f?")


# -- the network ------------------------------------------------------------------------------


@dataclass
class Link:
    """One direction of a page's connection: each frame is held ``delay`` seconds (uniform,
    independent, from ``rng``), and never arrives before the frame sent before it."""

    rng: Random
    delay: tuple[float, float] = NETWORK
    #: When the latest frame sent arrives.
    last: float = float("-inf")

    def due(self, sent: float) -> float:
        """When a frame sent at ``sent`` arrives."""
        self.last = max(sent + self.rng.uniform(*self.delay), self.last)
        return self.last


# -- deciding and tapping ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Intent:
    """What a player decided to tap: Ready (``r``), «Давай-ка!» (``f``), or the card ``card``
    of his row pile ``pile`` onto centre pile ``centre`` (``kind`` ``p``)."""

    kind: str
    pile: int | None = None
    card: str | None = None
    centre: int | None = None


def decide(view: dict[str, Any]) -> Intent | None:
    """What a quick player taps, seeing ``view`` (a page's ``state``): ``None`` — nothing."""
    if view.get("status") != "playing" or view.get("finished"):
        return None
    if view.get("can_ready"):
        return Intent("r")
    if view.get("can_flip"):
        return Intent("f")
    if view.get("phase") != "play":
        return None
    plays: dict[str, list[int]] = view.get("plays") or {}
    row = view["rows"][view["seat"]]
    piles = sorted(plays, key=int)
    # A pile the view says fits, the leftmost first; else the leftmost legal one, wherever.
    for pile in [p for p in piles if plays[p]] or piles:
        top = row[int(pile)]["top"]
        if top is not None:
            onto = plays[pile]
            return Intent("p", int(pile), top, onto[0] if onto else None)
    return None


def fitting(card: str, view: dict[str, Any]) -> list[int]:
    """The centre piles ``card`` fits as ``view`` shows them."""
    return [
        index
        for index, centre in enumerate(view.get("centres") or ())
        if centre["top"] is not None and fits(parse_card(card), parse_card(centre["top"]))
    ]


def tap_code(intent: Intent, view: dict[str, Any]) -> str | None:
    """The action code a player taps for ``intent`` when his screen shows ``view`` at the
    moment of the tap; ``None``: the screen no longer offers it, so he does not tap."""
    if view.get("status") != "playing" or view.get("finished"):
        return None
    if intent.kind == "r":
        return "r" if view.get("can_ready") else None
    if intent.kind == "f":
        return "f" if view.get("can_flip") else None
    assert intent.pile is not None and intent.card is not None
    if view.get("phase") != "play":
        return None
    if view["rows"][view["seat"]][intent.pile]["top"] != intent.card:
        return None  # the pile shows another card now
    where = fitting(intent.card, view)
    if not where:
        return None  # the card fits nothing on the screen any more
    centre = intent.centre if intent.centre in where else where[0]
    return f"p{intent.pile}{centre}{view['round']}"


def mistapped(
    intent: Intent, seat: int, result: dict[str, Any] | None, tapped: dict[str, Any] | None
) -> bool | None:
    """Whether an accepted move press played another card than the one meant, by the state
    pushed with its answer (``result``: its ``last_move``), or, when that names no move (the
    move ended the round), by the cards his screen showed at the tap (``tapped``): the meant
    card was his only row card, so it is the one played. ``None``: neither tells."""
    move = None if result is None else result.get("last_move")
    if move is not None and move["seat"] == seat and not move["auto"]:
        return bool(move["pile"] != intent.pile or move["card"] != intent.card)
    if move is None and tapped is not None and result is not None:
        row = tapped["rows"][seat]
        others = [p for i, p in enumerate(row) if i != intent.pile and p["top"] is not None]
        pile = row[intent.pile] if intent.pile is not None else None
        if pile is not None and pile["top"] == intent.card and pile["down"] == 0 and not others:
            return False
    return None


def answer_kind(text: str | None) -> str:
    """A refusal's text with its cards left out: refusals grouped by what they say."""
    return CARD_LABEL.sub("▢", text or "(no text)")


# -- the record -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Published:
    """A state of the game as the bot published it (``at``: loop time)."""

    at: float
    version: int
    centres: tuple[str | None, ...]
    #: Whose row card made it (``None``: a flip, a deal, a Ready, a countdown…), and whether
    #: the autopilot played it.
    mover: int | None
    auto: bool


@dataclass
class Press:
    """One tap of a player's: what he meant, when he decided and on which version."""

    seq: int
    game: int
    intent: Intent
    code: str
    decided_at: float
    decided_version: int
    decided_centres: tuple[str | None, ...]
    #: What his screen showed at the tap.
    tapped: dict[str, Any] | None = None
    tapped_at: float = 0.0
    written_at: float = 0.0
    #: The answer, as it came off the socket (loop time), before the network's hold.
    answered_at: float | None = None
    ok: bool | None = None
    text: str | None = None
    #: The state pushed just before the answer (an accepted press's own).
    result: dict[str, Any] | None = None


def centres_of(view: dict[str, Any]) -> tuple[str | None, ...]:
    return tuple(c["top"] for c in view.get("centres") or ())


def why_refused(press: Press, seat: int, published: Sequence[Published]) -> str:
    """Why a move press was refused, by the game's published states: ``unseen`` — decided
    on centre piles the game had already changed; ``other`` / ``own`` / ``flip`` — the centre
    changed between his decision and the refusal by the other player's move, his own, or
    something else (a flip, an autopilot); ``unexplained`` — nothing changed. The other
    player's move is ``other_before_tap`` when the bot had it before this player tapped (it
    was on its way to his screen), else ``other``."""
    before = [p for p in published if p.at <= press.decided_at]
    if before and max(before, key=lambda p: p.version).centres != press.decided_centres:
        return "unseen"
    end = press.answered_at if press.answered_at is not None else float("inf")
    changed = [
        p
        for p in published
        if press.decided_at < p.at <= end
        and p.version > press.decided_version
        and p.centres != press.decided_centres
    ]
    if not changed:
        return "unexplained"
    first = min(changed, key=lambda p: p.version)
    if first.mover is None or first.auto:
        return "flip"
    if first.mover == seat:
        return "own"
    return "other_before_tap" if first.at <= press.tapped_at else "other"


# -- a player's page --------------------------------------------------------------------------


@dataclass
class Player:
    """A simulated quick player at his page."""

    seat: int
    user: FakeUser
    #: His reaction times are drawn from ``rng``; ``down`` and ``up`` are his connection.
    rng: Random
    down: Link
    up: Link
    react: tuple[float, float] = REACT
    presses: list[Press] = field(default_factory=list)
    #: The state his screen shows now, and when he saw each version.
    screen: dict[str, Any] | None = None
    seen: dict[tuple[int, int], float] = field(default_factory=dict)
    #: Decisions dropped at the tap: his screen no longer offered what he meant.
    second_thoughts: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    _changes: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _answered: dict[int, asyncio.Event] = field(default_factory=dict)
    _by_seq: dict[int, Press] = field(default_factory=dict)
    _last_state: dict[str, Any] | None = None
    _seq: int = 0
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _outbox: asyncio.Queue[tuple[float, str]] = field(default_factory=asyncio.Queue)
    _inbox: asyncio.Queue[tuple[float, dict[str, Any]]] = field(default_factory=asyncio.Queue)
    connection: WebSocketClientConnection | None = None

    async def open(self, base: str, token: str, game_id: int) -> None:
        """Open the page on ``game_id`` and say hello; returns once the first state is seen."""
        self.screen, self._last_state = None, None
        self._inbox, self._outbox = asyncio.Queue(), asyncio.Queue()
        request = HTTPRequest(base.replace("http", "ws") + "/app/socket", headers={"Origin": base})
        self.connection = await websocket_connect(request)
        self._tasks = [
            asyncio.create_task(self._read(self.connection)),
            asyncio.create_task(self._show()),
            asyncio.create_task(self._write(self.connection)),
        ]
        hello = {"t": "hello", "init_data": signed(token, self.user), "game": game_id}
        await self.connection.write_message(orjson.dumps(hello).decode())
        deadline = time.monotonic() + 10.0
        while self.screen is None or self.screen.get("game") != game_id:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the page of game {game_id} showed nothing: {self.errors}")
            await self._change(0.1)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.connection is not None:
            self.connection.close()
        self.connection = None

    async def _read(self, connection: WebSocketClientConnection) -> None:
        loop = asyncio.get_running_loop()
        while True:
            message = await connection.read_message()
            if message is None:
                return
            now = loop.time()
            frame: dict[str, Any] = orjson.loads(message)
            kind = frame.get("t")
            if kind == "state":
                self._last_state = frame["view"]
            elif kind in ("answer", "error") and isinstance(frame.get("seq"), int):
                press = self._by_seq.get(frame["seq"])
                if press is not None and press.answered_at is None:
                    press.answered_at = now
                    press.ok = bool(frame.get("ok"))
                    press.text = frame.get("text") or frame.get("code")
                    press.result = self._last_state if press.ok else None
            self._inbox.put_nowait((self.down.due(now), frame))

    async def _show(self) -> None:
        """Frames reach the screen when the network lets them, in the order sent."""
        loop = asyncio.get_running_loop()
        while True:
            due, frame = await self._inbox.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            kind = frame.get("t")
            if kind == "state":
                pushed = self.screen is not None  # not the page's first state, at hello
                self.screen = frame["view"]
                key = (self.screen["game"], self.screen["version"])
                if pushed:
                    self.seen.setdefault(key, loop.time())
            elif kind == "error":
                self.errors.append(frame)
            seq = frame.get("seq")
            if isinstance(seq, int) and seq in self._answered:
                self._answered[seq].set()
            self._changes += 1
            self._changed.set()

    async def _write(self, connection: WebSocketClientConnection) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due, data = await self._outbox.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            seq = orjson.loads(data)["seq"]
            self._by_seq[seq].written_at = loop.time()
            await connection.write_message(data)

    async def _change(self, seconds: float) -> None:
        """Wait until the screen changes, or ``seconds`` pass."""
        seen = self._changes
        while self._changes == seen:
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), seconds)
            except TimeoutError:
                return

    async def play(self, until: float) -> None:
        """Decide, react, tap, wait for the answer — until ``until`` or the game's end."""
        loop = asyncio.get_running_loop()
        while loop.time() < until:
            view = self.screen
            if view is None or view.get("finished") or view.get("status") != "playing":
                if view is not None and view.get("status") in ("finished", "cancelled"):
                    return
                await self._change(WATCH)
                continue
            intent = decide(view)
            if intent is None:
                await self._change(min(WATCH, max(0.0, until - loop.time())))
                continue
            decided_at = loop.time()
            await asyncio.sleep(self.rng.uniform(*self.react))
            now = self.screen
            code = None if now is None else tap_code(intent, now)
            if code is None:
                self.second_thoughts += 1
                continue
            self._seq += 1
            press = Press(
                self._seq,
                view["game"],
                intent,
                code,
                decided_at,
                view["version"],
                centres_of(view),
                now,
                loop.time(),
            )
            self.presses.append(press)
            self._by_seq[press.seq] = press
            answered = self._answered[press.seq] = asyncio.Event()
            frame = orjson.dumps({"t": "act", "code": code, "seq": press.seq}).decode()
            self._outbox.put_nowait((self.up.due(loop.time()), frame))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(answered.wait(), ANSWER_WAIT)


def signed(token: str, user: FakeUser) -> str:
    """``initData`` as Telegram signs it for ``user`` (see :mod:`bot.telegram.miniapp.auth`)."""
    fields = {
        "query_id": f"bench{user.id}",
        "user": json.dumps({"id": user.id, "first_name": user.first_name}),
        "auth_date": str(int(time.time())),
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    fields["hash"] = hmac.new(secret_key(token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


# -- the run ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stage:
    """An accepted press in the bot (``time.perf_counter`` seconds): taken off its socket
    (``started``), stored in the inbox (``stored``), answered (``answered``: after the new
    state was written to every socket of the game)."""

    started: float
    stored: float
    answered: float

    @property
    def ms(self) -> float:
        return (self.answered - self.started) * 1000


@dataclass
class Timings:
    """Where an accepted press's time went in the bot, and what held the process up
    meanwhile — to tell a slow push by its cause. Kept by wrapping the Mini App's ``take``
    (the press stored in the inbox) and ``answer``; the event loop is sampled every 5 ms and
    the garbage collector's passes are noted."""

    stages: list[Stage] = field(default_factory=list)
    #: (when, ms late, ms of CPU): the event loop woke this late from a 5-ms sleep that ended
    #: then, and the CPU time its thread used meanwhile (as much as the wall clock: the loop
    #: was busy with this process's own work; far less: it was waiting for the machine).
    loop_late: list[tuple[float, float, float]] = field(default_factory=list)
    #: (start, end) of each pass of the garbage collector.
    collections: list[tuple[float, float]] = field(default_factory=list)
    _taken: dict[tuple[str, Any], tuple[float, float]] = field(default_factory=dict)
    _collecting: float = 0.0

    def watch(self, miniapp: MiniApp) -> None:
        take, answer = miniapp.take, miniapp.answer
        assert take is not None

        async def timed_take(press: dict[str, Any]) -> None:
            started = time.perf_counter()
            await take(press)
            own = press.get(OWN_FIELD, {})
            self._taken[(own.get("socket"), own.get("seq"))] = (started, time.perf_counter())

        def timed_answer(socket: str, seq: Any, ok: bool, text: str | None) -> None:
            answer(socket, seq, ok, text)
            taken = self._taken.pop((socket, seq), None)
            if ok and taken is not None:
                self.stages.append(Stage(*taken, time.perf_counter()))

        miniapp.take = timed_take
        miniapp.answer = timed_answer  # type: ignore[method-assign]

    def collected(self, phase: str, _info: dict[str, Any]) -> None:
        """A ``gc.callbacks`` entry."""
        if phase == "start":
            self._collecting = time.perf_counter()
        else:
            self.collections.append((self._collecting, time.perf_counter()))

    async def sample_loop(self) -> None:
        while True:
            started, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            used = (time.thread_time() - cpu) * 1000
            self.loop_late.append((now, (now - started - 0.005) * 1000, used))

    def held_up(self, stage: Stage) -> tuple[float, float, float]:
        """Within a press: the most the event loop woke late, the CPU its thread used in
        that sample, and ms of garbage collection."""
        late = [
            (ms, cpu)
            for at, ms, cpu in self.loop_late
            if at >= stage.started and at - (ms + 5) / 1000 <= stage.answered
        ]
        gc_ms = sum(
            (min(end, stage.answered) - max(start, stage.started)) * 1000
            for start, end in self.collections
            if end >= stage.started and start <= stage.answered
        )
        held, cpu = max(late, default=(0.0, 0.0))
        return held, cpu, gc_ms


@dataclass
class Run:
    players: list[Player]
    games: int
    finished: int
    published: dict[int, list[Published]]
    push_ms: list[float]
    timings: Timings
    #: Figures of the chat beside the pages: 429s, and calls into the group and private chats.
    too_many: int
    group_calls: int
    private_calls: int
    seconds: float


async def play(folder: Path, seconds: float, seed: int) -> Run:
    """Two quick players on their pages for ``seconds`` of real time, game after game."""
    loop = asyncio.get_running_loop()
    sockets = bind_sockets(0, "127.0.0.1")
    base = f"http://127.0.0.1:{sockets[0].getsockname()[1]}"
    api = FakeBotApi(flood_limits=True)
    harness = Harness(api, sqlite_url(folder, f"app-{seed}.db"), limits=Limits(), webapp_url=base)
    app = await harness.start()
    room: Cardroom = app.bot_data["cardroom"]
    # The production pacing: the harness's is a test's (tables at once, deadlines every 20 ms).
    room.publisher.group_interval = GROUP_INTERVAL
    room.poller.interval = POLL_SECONDS
    settle()  # the garbage collector tuned as ``python -m bot`` tunes it after start-up
    miniapp = room.miniapp
    assert miniapp is not None
    timings = Timings()
    timings.watch(miniapp)
    server = HTTPServer(Application(miniapp.routes(), websocket_max_message_size=4096))
    server.add_sockets(sockets)
    published: dict[int, list[Published]] = {}

    def record(snapshot: GameSnapshot) -> None:
        view = snapshot.public
        if not isinstance(view, DavaykaView):
            return
        move = view.last_move
        published.setdefault(snapshot.game_id, []).append(
            Published(
                loop.time(),
                snapshot.version,
                tuple(None if c.top is None else c.top.code for c in view.centres),
                None if move is None else move.seat,
                bool(move and move.auto),
            )
        )

    room.publisher.watchers.insert(0, record)
    anna = api.add_user("Anna", started=True)
    boris = api.add_user("Boris", started=True)
    players = [
        Player(
            seat,
            user,
            Random(seed * 100 + seat),
            Link(Random(seed * 100 + 10 + seat)),
            Link(Random(seed * 100 + 20 + seat)),
        )
        for seat, user in enumerate((anna, boris))
    ]
    api.reset_stats()
    miniapp.push_ms.clear()
    games = finished = 0
    started = loop.time()
    until = started + seconds
    sampling = asyncio.create_task(timings.sample_loop())
    gc.callbacks.append(timings.collected)
    try:
        while loop.time() < until - 1.0:
            game_id = await deal(room, api, [anna, boris], seed * 1000 + games)
            games += 1
            for player in players:
                await player.open(base, api.token, game_id)
            await asyncio.gather(*(player.play(until) for player in players))
            for player in players:
                await player.close()
            view = (await room.play.snapshot(game_id)).public
            finished += int(isinstance(view, DavaykaView) and view.finished)
        elapsed = loop.time() - started
        return Run(
            players,
            games,
            finished,
            published,
            list(miniapp.push_ms),
            timings,
            api.stats.flood_limited,
            sum(n for chat, n in api.stats.by_chat.items() if chat < 0),
            sum(n for chat, n in api.stats.by_chat.items() if chat > 0),
            elapsed,
        )
    finally:
        gc.callbacks.remove(timings.collected)
        sampling.cancel()
        for player in players:
            await player.close()
        server.stop()
        slots = room.publisher._slots
        tasks = [s.task for s in slots.values() if s.task is not None and not s.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await harness.stop()


async def deal(room: Cardroom, api: FakeBotApi, people: list[FakeUser], seed: int) -> int:
    """A seeded game of Davay-ka! between ``people``, in a group of its own, started through
    the services as the lobby's buttons start one; its id."""
    group = api.add_group(f"Table {seed}", members=people)
    where = ChatRef(group.id, group.type, group.title)
    actors = [Actor(p.id, p.first_name, None, "en") for p in people]
    await room.lobby.record(actors[0], where, started=True)
    lobby = await room.lobby.open(where, actors[0], "davayka")
    async with room.play.db.transaction() as session:
        await session.execute(update(GameRow).where(GameRow.id == lobby.game_id).values(seed=seed))
    table = Origin(group.id, 0)
    for actor in actors[1:]:
        await room.lobby.mark_started(actor)
        await room.lobby.join(lobby.game_id, actor, table)
    room.publisher.publish(await room.lobby.start(lobby.game_id, actors[0], table))
    return lobby.game_id


# -- the figures ------------------------------------------------------------------------------


def figures(run: Run, beside: Sequence[Figure] = ()) -> list[Figure]:
    """The run's figures; ``beside``: the chat panels' (quick_play's), quoted for comparison."""
    panels = {figure.key: figure.value for figure in beside}
    moves = [(pl, p) for pl in run.players for p in pl.presses if p.intent.kind == "p"]
    calls = [p for pl in run.players for p in pl.presses if p.intent.kind != "p"]
    accepted = [(pl, p) for pl, p in moves if p.ok]
    refused = [(pl, p) for pl, p in moves if not p.ok]
    told = [mistapped(p.intent, pl.seat, p.result, p.tapped) for pl, p in accepted]
    why = Counter(why_refused(p, pl.seat, run.published.get(p.game, [])) for pl, p in refused)
    texts = Counter(answer_kind(p.text) for _, p in refused)
    calls_refused = Counter(answer_kind(p.text) for p in calls if not p.ok)
    share = len(accepted) / len(moves) if moves else float("nan")
    lags = [
        seen - first.at
        for player in run.players
        for (game, version), seen in player.seen.items()
        for first in _first_published(run.published.get(game, []), version)
    ]
    push = run.push_ms
    minutes = run.seconds / 60
    quoted = (
        f"; chat panels, same bench: {panels['davayka_accepted_share']:.2f}"
        if "davayka_accepted_share" in panels
        else ""
    )
    return [
        Figure(
            "davayka_app_accepted_share",
            share,
            "",
            f"Mini App, two quick players through their sockets: accepted move presses / "
            f"move presses ({len(accepted)} / {len(moves)} in {run.seconds:.0f} s of real "
            f"time, {run.games} games, {run.finished} played to the end){quoted}",
        ),
        Figure(
            "davayka_app_accepted_share_ceiling",
            (len(accepted) + why["unseen"]) / len(moves) if moves else float("nan"),
            "",
            f"same presses, were news shown at once: of {len(refused)} refused, "
            f"{why['unseen']} decided on centre piles already changed unseen; "
            f"{why['other'] + why['other_before_tap']} lost a race the rules decide: the "
            "other player's move reached the bot between this one's decision and his press's "
            f"arrival ({why['other_before_tap']} of them before his tap, on its way to his "
            f"screen; {why['other']} after it, while his press was on its way); "
            f"{why['own']} his own move, {why['flip']} a flip or an autopilot, "
            f"{why['unexplained']} unexplained"
            + (
                f"; chat panels: {panels['davayka_accepted_share_ceiling']:.2f}"
                if "davayka_accepted_share_ceiling" in panels
                else ""
            ),
        ),
        Figure(
            "davayka_app_mistaps",
            sum(1 for t in told if t),
            "",
            f"accepted presses that played another card than the one meant when deciding "
            f"(by the state pushed with the answer; {sum(1 for t in told if t is None)} "
            "not told by it)",
        ),
        Figure(
            "davayka_app_push_p99_ms",
            percentile(push, 0.99),
            "ms",
            f"MiniApp.push_ms, {len(push)} accepted presses: arrival on the socket → the new "
            f"state written to both sockets; {_slow(run.timings)}",
        ),
        Figure(
            "davayka_app_push_p50_ms",
            percentile(push, 0.5),
            "ms",
            f"the same, median (max {max(push) if push else float('nan'):.1f} ms)",
        ),
        Figure(
            "davayka_app_seen_p50_s",
            percentile(lags, 0.5),
            "s",
            f"a change of the game → a player's screen showing it, network included (p99 "
            f"{percentile(lags, 0.99):.2f} s)"
            + (
                f"; chat panels: {panels['davayka_panel_lag_p50_s']:.2f} s"
                if "davayka_panel_lag_p50_s" in panels
                else ""
            ),
        ),
        Figure(
            "davayka_app_presses",
            len(moves) + len(calls),
            "",
            f"{len(moves)} move presses ({len(refused)} refused: "
            f"{_grouped(texts)}), {len(calls)} Ready / «Давай-ка!» "
            f"({sum(1 for p in calls if not p.ok)} refused{': ' if calls_refused else ''}"
            f"{_grouped(calls_refused)}); "
            f"{sum(pl.second_thoughts for pl in run.players)} decisions not tapped (the "
            "screen had changed by the tap)",
        ),
        Figure(
            "davayka_app_flood_429",
            run.too_many,
            "",
            f"429s from the strict-window fake while the chats were drawn beside the pages: "
            f"{run.group_calls / minutes:.1f} calls a minute into the groups, "
            f"{run.private_calls / minutes / 2:.1f} into each player's private chat",
        ),
    ]


def _slow(timings: Timings, over: float = SLOW_MS) -> str:
    """Where the slow presses' time went — storing the press in the inbox, or the rest (the
    handler's turn, ``act``, the push) — and what held the process up meanwhile."""
    late = [ms for _, ms, _ in timings.loop_late]
    loop = (
        f"the event loop woke late by p99 {percentile(late, 0.99):.1f} ms, max {max(late):.0f} ms"
        if late
        else "the event loop not sampled"
    )
    slow = sorted((s for s in timings.stages if s.ms > over), key=lambda s: -s.ms)
    if not slow:
        return f"none over {over:g} ms; {loop}"
    told = []
    for stage in slow[:4]:
        held, cpu, gc_ms = timings.held_up(stage)
        told.append(
            f"{stage.ms:.0f} ms = {(stage.stored - stage.started) * 1000:.0f} storing in the "
            f"inbox + {(stage.answered - stage.stored) * 1000:.0f} after (meanwhile the event "
            f"loop woke {held:.0f} ms late, having run {cpu:.0f} ms of its own CPU; garbage "
            f"collection {gc_ms:.0f} ms)"
        )
    return f"{len(slow)} over {over:g} ms: {'; '.join(told)}; over the run {loop}"


def _first_published(published: Sequence[Published], version: int) -> list[Published]:
    first = [p for p in published if p.version == version]
    return first[:1]


def _grouped(counts: Counter[str]) -> str:
    return "; ".join(f"{n} × {text!r}" for text, n in counts.most_common())


def measure(folder: Path, quick: bool, beside: Sequence[Figure] = ()) -> list[Figure]:
    """The app run's figures after ``beside`` (the chat panels' figures of the same bench)."""
    folder.mkdir(parents=True, exist_ok=True)
    run = asyncio.run(play(folder, QUICK_SPAN if quick else SPAN, seed=1))
    return [*beside, *figures(run, beside)]
