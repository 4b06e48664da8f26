"""The Mini App's routes and sockets: the page, its WebSocket, and who watches which game.

A press from a page takes the same way as a button press: it is stored in the inbox (as an
update of the bot's own making, ``cardroom_app``) and handled by the leader through the same
handler chain, the same ``act``, the same transaction and action log
(:func:`bot.telegram.handlers.miniapp.handle_app_press`). The new state then goes to every
socket open on the game at once (:meth:`MiniApp.show`, called with every snapshot the sender
publishes); with several processes, a socket held by a standby hears of it through the
database (:attr:`MiniApp.announce`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
from tornado.web import RequestHandler, StaticFileHandler
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from bot.i18n import Translator, translator
from bot.services.types import GameSnapshot, ServiceError
from bot.telegram.intake import PressThrottle
from bot.telegram.miniapp.auth import Refused, signed_user
from bot.telegram.miniapp.views import labels, view_json

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
GAME_KEY = "davayka"
#: The largest frame a page may send, and the first one's deadline.
MAX_FRAME = 2048
HELLO_SECONDS = 10.0
#: Presses a player may send: a burst, then so many a second (a quick hand makes about 4).
PRESS_BURST, PRESS_RATE = 12, 8.0
#: Errors after which the page should not say hello again.
FINAL = frozenset({"forged", "stale", "malformed", "no_game", "not_seated", "not_davayka"})

#: Stores a press as an update in the inbox (and hands it to the leader); the composition
#: root sets it.
Take = Callable[[dict[str, Any]], Awaitable[None]]


def app_update_id() -> int:
    """A unique id for an update of the bot's own making: negative (Telegram's are not),
    and growing with time, so that the inbox keeps presses in the order they came."""
    return -((time.time_ns() // 1000) * 1024 + secrets.randbelow(1024))


class MiniApp:
    """The Mini App of one process: its sockets by game, and the way presses go in."""

    def __init__(
        self,
        token: str,
        base_url: str,
        script: str,
        snapshot: Callable[[int], Awaitable[GameSnapshot]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.token = token
        self.base_url = base_url
        parts = urlsplit(base_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.script = script
        self.snapshot = snapshot
        self.clock = clock
        #: Stores a press in the inbox; set by the composition root.
        self.take: Take | None = None
        #: Tells the other processes (``None``: there are none) of a new state of a game, or
        #: of the answer to a press made on one of their sockets.
        self.announce: Callable[[dict[str, Any]], None] | None = None
        self.process = uuid.uuid4().hex[:12]
        #: Presses per player, whatever socket they come by (one player, many pages).
        self.throttle = PressThrottle(burst=PRESS_BURST, rate=PRESS_RATE, double_tap=0.0)
        self._numbers = itertools.count(1)
        self._games: dict[int, set[TableSocket]] = {}
        self._sockets: dict[str, TableSocket] = {}
        #: Milliseconds from an accepted press's arrival on its socket to the new state
        #: written to every socket on its game (the latest few thousand presses here).
        self.push_ms: deque[float] = deque(maxlen=5000)

    def url(self, game_id: int) -> str:
        """The page of a game, for the ``web_app`` button."""
        return f"{self.base_url}/app/{GAME_KEY}?game={game_id}"

    def routes(self) -> list[tuple[str, Any, dict[str, Any]]]:
        return [
            (f"/app/{GAME_KEY}", PageHandler, {"app": self}),
            (r"/app/static/(.*)", StaticFileHandler, {"path": str(STATIC)}),
            ("/app/socket", TableSocket, {"app": self}),
        ]

    # -- who watches what ----------------------------------------------------------------

    def opened(self, socket: TableSocket, game_id: int) -> str:
        name = f"{self.process}:{next(self._numbers)}"
        self._games.setdefault(game_id, set()).add(socket)
        self._sockets[name] = socket
        return name

    def closed(self, socket: TableSocket) -> None:
        if socket.game_id is not None:
            watching = self._games.get(socket.game_id)
            if watching is not None:
                watching.discard(socket)
                if not watching:
                    del self._games[socket.game_id]
        if socket.name is not None:
            self._sockets.pop(socket.name, None)

    # -- pushing -------------------------------------------------------------------------

    def show(self, snapshot: GameSnapshot) -> None:
        """A new state of a game (the sender publishes it): to every page open on it, here
        at once, and to the other processes' pages."""
        if snapshot.game_key != GAME_KEY:
            return
        self.show_here(snapshot)
        if self.announce is not None:
            self.announce({"kind": "state", "game": snapshot.game_id, "version": snapshot.version})

    def show_here(self, snapshot: GameSnapshot) -> None:
        now = self.clock()
        for socket in list(self._games.get(snapshot.game_id, ())):
            socket.show(snapshot, now)

    async def announced(self, note: dict[str, Any]) -> None:
        """Another process said something (the leader: a new state, an answer)."""
        kind = note.get("kind")
        if kind == "answer":
            socket = self._sockets.get(str(note.get("socket")))
            if socket is not None:
                socket.answer(note.get("seq"), bool(note.get("ok")), note.get("text"))
        elif kind == "state":
            game_id = note.get("game")
            if isinstance(game_id, int) and game_id in self._games:
                try:
                    snapshot = await self.snapshot(game_id)
                except ServiceError:
                    return
                self.show_here(snapshot)

    def answer(self, socket: str, seq: Any, ok: bool, text: str | None) -> None:
        """The answer to a press made on ``socket`` (here or in another process)."""
        here = self._sockets.get(socket)
        if here is not None:
            here.answer(seq, ok, text)
        elif self.announce is not None and not socket.startswith(f"{self.process}:"):
            self.announce({"kind": "answer", "socket": socket, "seq": seq, "ok": ok, "text": text})


class PageHandler(RequestHandler):
    """The page (``?game=<id>``): the same for every game; the socket says the rest."""

    def initialize(self, app: MiniApp) -> None:
        self.app = app

    def get(self) -> None:
        page = (STATIC / f"{GAME_KEY}.html").read_text(encoding="utf-8")
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")
        # Scripts from here and Telegram's own, a socket back here, nothing else.
        script = urlsplit(self.app.script)
        scripts = "'self'" + (f" {script.scheme}://{script.netloc}" if script.netloc else "")
        self.set_header(
            "Content-Security-Policy",
            f"default-src 'self'; script-src {scripts}; connect-src 'self'; "
            "img-src 'self' data:; base-uri 'none'; form-action 'none'",
        )
        self.write(page.replace("{{telegram_script}}", self.app.script))


class TableSocket(WebSocketHandler):
    """One page's connection: its player, signed by Telegram, and his presses."""

    def initialize(self, app: MiniApp) -> None:
        self.app = app
        self.user_id: int | None = None
        self.game_id: int | None = None
        self.seat: int | None = None
        self.name: str | None = None
        self.t: Translator = translator("en")
        self._hello_timer: asyncio.TimerHandle | None = None
        #: When each press still unanswered arrived (``time.perf_counter``), by its ``seq``.
        self._arrived: dict[int, float] = {}
        #: The newest game version the page was sent.
        self._shown = 0

    def check_origin(self, origin: str) -> bool:
        """Only the page itself may open a socket (a browser names the page's origin)."""
        return origin.rstrip("/") == self.app.origin

    def open(self, *args: Any, **kwargs: Any) -> None:
        loop = asyncio.get_running_loop()
        self._hello_timer = loop.call_later(HELLO_SECONDS, self._no_hello)

    def _no_hello(self) -> None:
        if self.user_id is None:
            self.refuse("hello_first", close=True)

    def on_close(self) -> None:
        if self._hello_timer is not None:
            self._hello_timer.cancel()
        self.app.closed(self)

    async def on_message(self, message: str | bytes) -> None:
        if isinstance(message, bytes) or len(message) > MAX_FRAME:
            self.refuse("malformed")
            return
        try:
            frame = orjson.loads(message)
        except orjson.JSONDecodeError:
            frame = None
        kind = frame.get("t") if isinstance(frame, dict) else None
        if kind == "hello" and isinstance(frame, dict):
            await self._hello(frame)
        elif kind == "act" and isinstance(frame, dict):
            await self._act(frame)
        else:
            self.refuse("malformed")

    async def _hello(self, frame: dict[str, Any]) -> None:
        if self.user_id is not None:
            self.refuse("hello_again")
            return
        game_id, init_data = frame.get("game"), frame.get("init_data")
        try:
            if not isinstance(init_data, str):
                raise Refused("malformed")
            user = signed_user(init_data, self.app.token, self.app.clock())
        except Refused as refused:
            self.refuse(refused.code, close=True)
            return
        if not isinstance(game_id, int) or isinstance(game_id, bool):
            self.refuse("no_game", close=True)
            return
        try:
            snapshot = await self.app.snapshot(game_id)
        except ServiceError:
            self.refuse("no_game", close=True)
            return
        info = snapshot.seat_of(user.user_id)
        if snapshot.game_key != GAME_KEY:
            self.refuse("not_davayka", close=True)
            return
        if info is None:
            self.refuse("not_seated", close=True)
            return
        if self._hello_timer is not None:
            self._hello_timer.cancel()
        self.user_id, self.game_id, self.seat = user.user_id, game_id, info.seat
        self.t = translator(info.language)
        self.name = self.app.opened(self, game_id)
        self.show(snapshot, self.app.clock())

    async def _act(self, frame: dict[str, Any]) -> None:
        arrived = time.perf_counter()
        seq, code = frame.get("seq"), frame.get("code")
        if self.user_id is None or self.game_id is None or self.name is None:
            self.refuse("hello_first", seq=seq)
            return
        if not isinstance(code, str) or not 0 < len(code) <= 16:
            self.refuse("malformed", seq=seq)
            return
        if not self.app.throttle.allow(self.user_id):
            self.refuse("too_fast", seq=seq)
            return
        number = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        press = {
            "update_id": app_update_id(),
            "cardroom_app": {
                "chat": {"id": self.user_id},
                "user": self.user_id,
                "game": self.game_id,
                "code": code,
                "seq": number,
                "socket": self.name,
            },
        }
        if self.app.take is None:
            self.refuse("unavailable", seq=seq)
            return
        if number is not None and len(self._arrived) < 64:
            self._arrived[number] = arrived
        try:
            await self.app.take(press)
        except Exception as error:
            logger.warning("Could not take a Mini App press (%s)", error)
            self.refuse("unavailable", seq=seq)

    # -- frames out ----------------------------------------------------------------------

    def show(self, snapshot: GameSnapshot, now: float) -> None:
        if self.seat is None or snapshot.version < self._shown:
            return  # an older state heard late (several processes): the page has newer
        self._shown = snapshot.version
        self._send(
            {"t": "state", "view": view_json(snapshot, self.seat, now), "labels": labels(self.t)}
        )

    def answer(self, seq: Any, ok: bool, text: str | None) -> None:
        arrived = self._arrived.pop(seq, None) if isinstance(seq, int) else None
        if ok and arrived is not None:
            # Answered after the new state went to every socket on the game (see
            # handle_app_press): the press's way through the bot, as its pages saw it.
            self.app.push_ms.append((time.perf_counter() - arrived) * 1000)
        frame: dict[str, Any] = {"t": "answer", "seq": seq, "ok": ok}
        if text:
            frame["text"] = text
        self._send(frame)

    def refuse(self, code: str, *, seq: Any = None, close: bool = False) -> None:
        frame: dict[str, Any] = {"t": "error", "code": code, "text": self.t(f"app.error.{code}")}
        if seq is not None:
            frame["seq"] = seq
        self._send(frame)
        if close:
            # 4001: said at sign-in, final (the page must not try again as it is).
            self.close(4001 if code in FINAL else 4000, code)

    def _send(self, frame: dict[str, Any]) -> None:
        with contextlib.suppress(WebSocketClosedError):
            self.write_message(orjson.dumps(frame).decode())
