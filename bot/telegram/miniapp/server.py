"""The Mini App's routes and sockets: the page, its WebSocket, and who watches which game.

A press from a page takes the same way as a button press: it is stored in the inbox (as an
update of the bot's own making, ``cardroom_app``) and handled by the leader through the same
handler chain, the same ``act``, the same transaction and action log
(:func:`bot.telegram.handlers.miniapp.handle_app_press`). The new state then goes to every
socket open on the game at once (:meth:`MiniApp.show`, called with every snapshot the sender
publishes); with several processes, a socket held by a standby hears of it through the
database (:attr:`MiniApp.announce`).

Each socket is an open file of the process, from the moment it opens, signed in or not yet:
they are capped (:class:`SocketCaps`) in all, per remote address while not signed in, and per
player once signed in, so that no flood of sockets can take the files the bot needs to reach
Telegram and its database.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import re
import resource
import secrets
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import orjson
from tornado.httputil import HTTPServerRequest
from tornado.web import RequestHandler, StaticFileHandler
from tornado.websocket import WebSocketClosedError, WebSocketHandler, WebSocketProtocol

from bot.i18n import Translator, pick_language, translator
from bot.services.types import GameSnapshot, ServiceError
from bot.telegram import metrics
from bot.telegram.intake import PressThrottle
from bot.telegram.miniapp.auth import Refused, signed_user
from bot.telegram.miniapp.views import faces, page_view, words
from bot.telegram.tally import LogTally

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
#: The page: one for every game (``?game=<id>``, or the ``startapp`` of a direct link).
PAGE = "table"
#: The address Davay-ka!'s panels opened before every game had the page: it still opens it.
OLD_PAGES = ("davayka",)
#: A direct link's ``startapp``: ``g`` and the game's id (Telegram allows 64 characters of
#: ``A-Za-z0-9_-``; the id is judged as a claim like any other — see :meth:`TableSocket._hello`).
START_PARAM = re.compile(r"g([1-9][0-9]{0,17})")
#: The largest frame a page may send, and the first one's deadline.
MAX_FRAME = 2048
HELLO_SECONDS = 10.0
#: Presses a player may send: a burst, then so many a second (a quick hand makes about 4).
PRESS_BURST, PRESS_RATE = 12, 8.0
#: Errors after which the page should not say hello again (``elsewhere``: the player opened
#: the table in another window, which took this one's place; coming back would take its).
FINAL = frozenset(
    {"forged", "stale", "malformed", "no_game", "not_seated", "bad_link", "elsewhere"}
)
#: Seconds between two pings of a socket (its pong due within as many): a page whose
#: connection died without a word is closed a minute or so later, and its file freed.
PING_SECONDS = 30.0
#: Seconds a socket refused at opening is given to close cleanly before it is dropped: a page
#: does it at once, and a flood that never does must not keep the files it opened.
REFUSED_SECONDS = 1.0
#: With several processes, each says every so many seconds which players have a page open
#: on which game there (the leader paces their panels); a word older than ``PAGING_STALE``
#: seconds — its process died, or its page closed unsaid — no longer counts.
PAGING_EVERY, PAGING_STALE = 30.0, 75.0
#: The caps' defaults (the settings ``WEBAPP_MAX_SOCKETS``, ``WEBAPP_SOCKETS_PER_PLAYER`` and
#: ``WEBAPP_UNSIGNED_SOCKETS_PER_ADDRESS`` say why).
MAX_SOCKETS, SOCKETS_PER_PLAYER, UNSIGNED_SOCKETS_PER_ADDRESS = 2000, 3, 10


@dataclass(frozen=True, slots=True)
class SocketCaps:
    """How many sockets the Mini App keeps open in one process: ``total``, signed in or not;
    per remote address while not signed in yet (``unsigned_per_address``: past it a new one
    is refused); per player once signed in, across games (``per_player``: past it his oldest
    is closed — a player who opens the table again wants the new page, and the old socket
    may be one whose connection died unnoticed)."""

    total: int = MAX_SOCKETS
    per_player: int = SOCKETS_PER_PLAYER
    unsigned_per_address: int = UNSIGNED_SOCKETS_PER_ADDRESS

    def within(self, files: int) -> SocketCaps:
        """These caps, the total at most half of ``files`` (the process' limit of open files,
        negative: none): the other half is for Telegram, the database and the webhook."""
        if files < 0 or self.total <= files // 2:
            return self
        return dataclasses.replace(self, total=max(1, files // 2))


#: Stores a press as an update in the inbox (and hands it to the leader); the composition
#: root sets it.
Take = Callable[[dict[str, Any]], Awaitable[None]]
#: Whether a person is a member of a chat (Telegram asked, the answer remembered a while and
#: counted in the bot's budget: :meth:`~bot.telegram.rights.TelegramRights.is_member`).
Member = Callable[[int, int], Awaitable[bool]]


#: Where the ids of the bot's own updates count up from: the lowest 64-bit integer, so that
#: they stay negative — apart from Telegram's, which are positive — until the year 2255.
APP_ID_FLOOR = -(2**63)
_last_app_id = APP_ID_FLOOR


def app_update_id() -> int:
    """A unique id for an update of the bot's own making (a Mini App press), growing in the
    order the presses come: the inbox is read in ascending order, so a player's later tap is
    handled after his earlier one. Microseconds since the epoch times 1024 and a random tail
    (another process may take a press in the same microsecond), counted up from
    :data:`APP_ID_FLOOR`; within a process each id is above the one before, even if the clock
    steps back. Being negative, a player's presses here sort before any Telegram update of his
    private chat that waits beside them."""
    global _last_app_id
    now = APP_ID_FLOOR + (time.time_ns() // 1000) * 1024 + secrets.randbelow(1024)
    _last_app_id = max(now, _last_app_id + 1)
    return _last_app_id


class MiniApp:
    """The Mini App of one process: its sockets by game, and the way presses go in."""

    def __init__(
        self,
        token: str,
        base_url: str,
        script: str,
        snapshot: Callable[[int], Awaitable[GameSnapshot]],
        clock: Callable[[], float] = time.time,
        caps: SocketCaps = SocketCaps(),
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
        #: Asks whether someone not seated in a game is a member of its chat, and so may
        #: watch it; ``None``: only its players may open a game.
        self.member: Member | None = None
        #: Told when a player's last page on a game closes (user, game): his private panel,
        #: paced while he played on the page, is brought up to date.
        self.left: Callable[[int, int], None] | None = None
        #: The pages other processes hold, as they said (several processes): (user, game) →
        #: process → when it last said so (this process' clock).
        self._remote: dict[tuple[int, int], dict[str, float]] = {}
        self._telling: asyncio.TimerHandle | None = None
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
        files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        self.caps = caps.within(files)
        if self.caps.total < caps.total:
            logger.info(
                "Mini App sockets capped at %d, not WEBAPP_MAX_SOCKETS=%d: half of the %d "
                "open files this process may have",
                self.caps.total,
                caps.total,
                files,
            )
        #: Every socket open here, from the moment it opens, signed in or not.
        self._open: set[TableSocket] = set()
        #: The sockets not signed in yet, with their remote address, and how many each
        #: address has.
        self._unsigned: dict[TableSocket, str] = {}
        self._by_address: dict[str, int] = {}
        #: Each player's signed-in sockets, across games, oldest first.
        self._players: dict[int, list[TableSocket]] = {}
        #: Sockets closed by each cap, said once a minute.
        self._capped: dict[metrics.Cap, LogTally] = {
            "total": LogTally(
                logger,
                logging.WARNING,
                "Refused Mini App sockets (%d in %.0f s): %d open, the most this process "
                "keeps (WEBAPP_MAX_SOCKETS)",
            ),
            "address": LogTally(
                logger,
                logging.WARNING,
                "Refused Mini App sockets not signed in yet (%d in %.0f s): %s had %d such "
                "open (WEBAPP_UNSIGNED_SOCKETS_PER_ADDRESS)",
            ),
            "player": LogTally(
                logger,
                logging.INFO,
                "Closed players' oldest Mini App sockets for their newest (%d in %.0f s): "
                "%d each at most (WEBAPP_SOCKETS_PER_PLAYER)",
            ),
        }

    def url(self, game_id: int) -> str:
        """The page of a game, for the ``web_app`` button."""
        return f"{self.base_url}/app/{PAGE}?game={game_id}"

    def routes(self) -> list[tuple[str, Any, dict[str, Any]]]:
        return [
            *((f"/app/{page}", PageHandler, {"app": self}) for page in (PAGE, *OLD_PAGES)),
            (r"/app/static/(.*)", StaticFileHandler, {"path": str(STATIC)}),
            ("/app/socket", TableSocket, {"app": self}),
        ]

    def paging(self, user_id: int, game_id: int) -> bool:
        """Whether the player has a page open on the game, in his seat: here, or in another
        process that said so lately."""
        if self._paging_here(user_id, game_id):
            return True
        told = self._remote.get((user_id, game_id))
        now = self.clock()
        return told is not None and any(now - at <= PAGING_STALE for at in told.values())

    def _paging_here(self, user_id: int, game_id: int) -> bool:
        return any(
            socket.user_id == user_id and socket.seat is not None
            for socket in self._games.get(game_id, ())
        )

    def seated(self, socket: TableSocket) -> None:
        """A page took its reader's seat (signed in, or he joined the game since): the other
        processes hear of it — the leader paces his panel — and go on hearing of it."""
        if self.announce is None or socket.user_id is None or socket.game_id is None:
            return
        self._tell_paging(socket.user_id, socket.game_id, True)
        if self._telling is None:
            self._telling = asyncio.get_running_loop().call_later(PAGING_EVERY, self._retell)

    def _retell(self) -> None:
        """Say again which pages are open here (a new leader learns them; an old word of a
        page still open does not go stale)."""
        self._telling = None
        open_here = {
            (socket.user_id, game_id)
            for game_id, sockets in self._games.items()
            for socket in sockets
            if socket.seat is not None and socket.user_id is not None
        }
        for user_id, game_id in open_here:
            self._tell_paging(user_id, game_id, True)
        if open_here:
            self._telling = asyncio.get_running_loop().call_later(PAGING_EVERY, self._retell)

    def _tell_paging(self, user_id: int, game_id: int, open_: bool) -> None:
        if self.announce is not None:
            self.announce(
                {
                    "kind": "paging",
                    "user": user_id,
                    "game": game_id,
                    "open": open_,
                    "process": self.process,
                }
            )

    def _heard_paging(self, note: dict[str, Any]) -> None:
        user_id, game_id, process = note.get("user"), note.get("game"), note.get("process")
        if not (
            isinstance(user_id, int) and isinstance(game_id, int) and isinstance(process, str)
        ):
            return
        if process == self.process:
            return  # its own word, heard back
        key = (user_id, game_id)
        if note.get("open") is True:
            if len(self._remote) >= 100_000:
                self._forget_stale()
            self._remote.setdefault(key, {})[process] = self.clock()
            return
        told = self._remote.get(key)
        if told is None:
            return
        told.pop(process, None)
        if not told:
            del self._remote[key]
        if self.left is not None and not self.paging(user_id, game_id):
            self.left(user_id, game_id)

    def _forget_stale(self) -> None:
        now = self.clock()
        for key in list(self._remote):
            told = {p: at for p, at in self._remote[key].items() if now - at <= PAGING_STALE}
            if told:
                self._remote[key] = told
            else:
                del self._remote[key]

    # -- the caps -------------------------------------------------------------------------

    @property
    def open_sockets(self) -> int:
        """The sockets open here, signed in or not."""
        return len(self._open)

    def admit(self, socket: TableSocket, address: str) -> metrics.Cap | None:
        """Count a socket just opened from ``address``, not signed in yet; or, past a cap,
        the cap it meets (it is then not counted, and is to be refused)."""
        cap: metrics.Cap
        unsigned = self._by_address.get(address, 0)
        if len(self._open) >= self.caps.total:
            cap = "total"
            self._capped[cap].add(len(self._open))
        elif unsigned >= self.caps.unsigned_per_address:
            cap = "address"
            self._capped[cap].add(address, unsigned)
        else:
            self._open.add(socket)
            self._unsigned[socket] = address
            self._by_address[address] = unsigned + 1
            metrics.app_sockets(len(self._open))
            return None
        metrics.app_socket_capped(cap)
        return cap

    def signed_in(self, socket: TableSocket, user_id: int) -> None:
        """``socket`` is ``user_id``'s now: it counts for him, no longer for its address; past
        his cap, his oldest socket is closed (told why, and not to come back)."""
        self._forget_unsigned(socket)
        mine = self._players.setdefault(user_id, [])
        mine.append(socket)
        while len(mine) > self.caps.per_player:
            oldest = mine.pop(0)
            metrics.app_socket_capped("player")
            self._capped["player"].add(self.caps.per_player)
            oldest.refuse("elsewhere", close=True)

    def _forget_unsigned(self, socket: TableSocket) -> None:
        address = self._unsigned.pop(socket, None)
        if address is None:
            return
        left = self._by_address.get(address, 1) - 1
        if left > 0:
            self._by_address[address] = left
        else:
            self._by_address.pop(address, None)

    # -- who watches what ----------------------------------------------------------------

    def opened(self, socket: TableSocket, game_id: int) -> str:
        name = f"{self.process}:{next(self._numbers)}"
        self._games.setdefault(game_id, set()).add(socket)
        self._sockets[name] = socket
        return name

    def closed(self, socket: TableSocket) -> None:
        """``socket`` is closed: it counts no more anywhere."""
        if socket in self._open:
            self._open.discard(socket)
            metrics.app_sockets(len(self._open))
        self._forget_unsigned(socket)
        if socket.user_id is not None:
            mine = self._players.get(socket.user_id)
            if mine is not None and socket in mine:
                mine.remove(socket)
                if not mine:
                    del self._players[socket.user_id]
        if socket.game_id is not None:
            watching = self._games.get(socket.game_id)
            if watching is not None:
                watching.discard(socket)
                if not watching:
                    del self._games[socket.game_id]
            user_id = socket.user_id
            if (
                socket.seat is not None
                and user_id is not None
                and not self._paging_here(user_id, socket.game_id)
            ):
                self._tell_paging(user_id, socket.game_id, False)
                if self.left is not None and not self.paging(user_id, socket.game_id):
                    self.left(user_id, socket.game_id)
        if socket.name is not None:
            self._sockets.pop(socket.name, None)

    # -- pushing -------------------------------------------------------------------------

    def show(self, snapshot: GameSnapshot) -> None:
        """A new state of a game (the sender publishes it): to every page open on it, here
        at once, and to the other processes' pages."""
        self.show_here(snapshot)
        if self.announce is not None:
            self.announce({"kind": "state", "game": snapshot.game_id, "version": snapshot.version})

    def show_here(self, snapshot: GameSnapshot) -> None:
        sockets = self._games.get(snapshot.game_id)
        if not sockets:
            return
        now = self.clock()
        # One frame per reader's seat and language: the onlookers of a game share one.
        frames: dict[tuple[int | None, str], str] = {}
        for socket in list(sockets):
            socket.show(snapshot, now, frames)

    async def announced(self, note: dict[str, Any]) -> None:
        """Another process said something (the leader: a new state, an answer; a standby:
        a page it holds opened or closed)."""
        kind = note.get("kind")
        if kind == "paging":
            self._heard_paging(note)
        elif kind == "answer":
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
        page = (STATIC / f"{PAGE}.html").read_text(encoding="utf-8")
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
    """One page's connection: its reader, signed by Telegram — a player in his seat, or an
    onlooker (``seat`` ``None``) — and the player's presses."""

    def initialize(self, app: MiniApp) -> None:
        self.app = app
        self.user_id: int | None = None
        self.game_id: int | None = None
        self.seat: int | None = None
        self.name: str | None = None
        #: The reader's own language (an onlooker's page speaks it; a player's, his seat's).
        self.language = "en"
        self.t: Translator = translator("en")
        self._hello_timer: asyncio.TimerHandle | None = None
        #: When each press still unanswered arrived (``time.perf_counter``), by its ``seq``.
        self._arrived: dict[int, float] = {}
        #: The newest game version the page was sent.
        self._shown = 0
        #: Set once the socket is being closed: what it still hears is ignored.
        self._closing = False

    def check_origin(self, origin: str) -> bool:
        """Only the page itself may open a socket (a browser names the page's origin)."""
        return origin.rstrip("/") == self.app.origin

    @property
    def ping_interval(self) -> float | None:
        return cast("float | None", self.settings.get("websocket_ping_interval", PING_SECONDS))

    def open(self, *args: Any, **kwargs: Any) -> None:
        loop = asyncio.get_running_loop()
        # Until it signs in, the page is answered in its browser's language.
        self.t = translator(pick_language(*browser_languages(self.request)))
        # The address tornado gives: the peer's, or the proxy's X-Real-IP/X-Forwarded-For
        # when the server trusts them (bot.serve makes it with xheaders=True).
        if self.app.admit(self, self.request.remote_ip or "") is not None:
            # Full: one short error, and the page tries again later (waiting longer each time).
            connection = self.ws_connection  # closing forgets it
            self.refuse("busy", close=True)
            if connection is not None:
                loop.call_later(REFUSED_SECONDS, _drop, connection)
            return
        self._hello_timer = loop.call_later(HELLO_SECONDS, self._no_hello)

    def _no_hello(self) -> None:
        if self.user_id is None:
            self.refuse("hello_first", close=True)

    def on_close(self) -> None:
        self._closing = True
        if self._hello_timer is not None:
            self._hello_timer.cancel()
        self.app.closed(self)

    async def on_message(self, message: str | bytes) -> None:
        if self._closing:
            return
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
        init_data = frame.get("init_data")
        try:
            if not isinstance(init_data, str):
                raise Refused("malformed")
            user = signed_user(init_data, self.app.token, self.app.clock())
        except Refused as refused:
            self.refuse(refused.code, close=True)
            return
        self.language = pick_language(user.language_code or "", *browser_languages(self.request))
        self.t = translator(self.language)
        game_id = frame.get("game")
        if game_id is None and user.start_param is not None:
            # Opened from the group's table by its direct link: the game it names.
            named = START_PARAM.fullmatch(user.start_param)
            if named is None:
                self.refuse("bad_link", close=True)
                return
            game_id = int(named.group(1))
        if not isinstance(game_id, int) or isinstance(game_id, bool) or game_id <= 0:
            self.refuse("no_game", close=True)
            return
        try:
            snapshot = await self.app.snapshot(game_id)
        except ServiceError:
            self.refuse("no_game", close=True)
            return
        if self._closing:
            return  # closed while the game was read: nothing to sign in
        info = snapshot.seat_of(user.user_id)
        if info is None:
            may = await self._may_watch(snapshot, user.user_id)
            if self._closing:
                return
            if may is None:
                self.refuse("unavailable", close=True)  # asked again when the page retries
                return
            if not may:
                self.refuse("not_seated", close=True)
                return
        if self._hello_timer is not None:
            self._hello_timer.cancel()
        self.user_id, self.game_id = user.user_id, game_id
        self.app.signed_in(self, user.user_id)
        self.name = self.app.opened(self, game_id)
        self.show(snapshot, self.app.clock())

    async def _may_watch(self, snapshot: GameSnapshot, user_id: int) -> bool | None:
        """Whether someone not seated may watch the game: a member of a group it is played
        in (Telegram asked). A game in a private chat is its player's alone. ``None``:
        Telegram could not be asked (the page tries again a little later)."""
        if snapshot.chat_kind == "private" or self.app.member is None:
            return False
        try:
            return await self.app.member(snapshot.chat_id, user_id)
        except ServiceError:
            return None

    async def _act(self, frame: dict[str, Any]) -> None:
        arrived = time.perf_counter()
        seq, code = frame.get("seq"), frame.get("code")
        if self.user_id is None or self.game_id is None or self.name is None:
            self.refuse("hello_first", seq=seq)
            return
        if self.seat is None:
            self.refuse("watching", seq=seq)
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

    def show(
        self,
        snapshot: GameSnapshot,
        now: float,
        frames: dict[tuple[int | None, str], str] | None = None,
    ) -> None:
        """Send the reader his view of ``snapshot`` (``frames``: those already made for this
        state, by seat and language, which readers alike share)."""
        if self.user_id is None or snapshot.version < self._shown:
            return  # an older state heard late (several processes): the page has newer
        self._shown = snapshot.version
        info = snapshot.seat_of(self.user_id)
        # A reader who took a seat since (a rematch he joined) plays from now on.
        was = self.seat
        self.seat = None if info is None else info.seat
        if self.seat is not None and was is None:
            self.app.seated(self)
        language = self.language if info is None else info.language
        t = translator(language)
        if info is not None:
            self.t = t  # a player's refusals in his seat's language, as his panel's
        key = (self.seat, language)
        frame = None if frames is None else frames.get(key)
        if frame is None:
            frame = orjson.dumps(
                {
                    "t": "state",
                    "view": page_view(snapshot, self.seat, t, now),
                    "labels": words(t, snapshot.game_key),
                    "faces": faces(t),
                }
            ).decode()
            if frames is not None:
                frames[key] = frame
        with contextlib.suppress(WebSocketClosedError):
            self.write_message(frame)

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
            self._closing = True
            # 4001: final (the page must not try again as it is); 4000: it may, later.
            self.close(4001 if code in FINAL else 4000, code)

    def _send(self, frame: dict[str, Any]) -> None:
        with contextlib.suppress(WebSocketClosedError):
            self.write_message(orjson.dumps(frame).decode())


def _drop(connection: WebSocketProtocol) -> None:
    """Close a refused socket's connection, if its page has not closed it yet."""
    if connection.stream is not None and not connection.stream.closed():
        connection.stream.close()  # on_close follows


def browser_languages(request: HTTPServerRequest) -> list[str]:
    """The languages the browser asks for (``Accept-Language``), first choice first."""
    header = request.headers.get("Accept-Language", "")
    return [part.split(";")[0].strip() for part in header.split(",")[:8]]
