"""Running the bot as one of several processes, or alone, until a signal stops it.

Every process serves its web routes at once, on two listeners: the public one
(``WEBHOOK_LISTEN:WEBHOOK_PORT``, behind the TLS proxy) carries the webhook (updates stored in
the inbox before Telegram hears 200) and the Mini App; a private one of its own
(``HEALTH_HOST:HEALTH_PORT``, loopback by default) carries ``/healthz``, ``/readyz`` and
``/metrics``, never published by a catch-all proxy rule. Then it asks for the lead
(:mod:`bot.storage.leadership`). The leader alone handles the inbox, runs the deadlines,
computer moves and pings, and owns the sender; in polling mode it alone polls. Taking the lead,
it starts from the previous leader's flood windows (written behind its calls) and delivers
what was changed but not shown, editing the same messages.

SIGTERM (or SIGINT) hands over at once: no more work is taken, deliveries are dropped (the next
leader makes them from the database), what is in hand finishes within a bounded time and is
marked handled, the calls made are written — and only then is the lock released: the next
leader answers no update this one had in hand. The process is gone in well under three
seconds. No Bot API call leaves a process that no longer leads (the fence, asked before each
call: :attr:`~bot.telegram.sender.limiter.BudgetRateLimiter.fence`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import orjson
from telegram.error import TelegramError
from tornado.httpserver import HTTPServer
from tornado.web import Application as WebApplication

from bot.app import ALLOWED_UPDATES, App
from bot.services.inbox import APP_CHANNEL, KEEP_CALLS
from bot.settings import Settings
from bot.storage.leadership import Leadership, leadership_for
from bot.telegram import metrics
from bot.telegram.handlers import Cardroom
from bot.telegram.inbox import MAX_POST_BYTES, InboxReader, WebhookHandler, poll
from bot.telegram.miniapp.server import MAX_FRAME
from bot.telegram.sender.budget import CallBudget
from bot.telegram.sender.limiter import BudgetRateLimiter
from bot.telegram.webserver import WebServer

logger = logging.getLogger(__name__)

#: A new leader sends nothing for this long: its predecessor's last calls may not have been
#: written yet, and a private chat's window is about a second.
HOLD_SECONDS = 1.2
#: Seconds between two writes of the leader's calls, and between two tidies of the inbox.
JOURNAL_EVERY, TIDY_EVERY = 0.25, 600.0
#: Seconds between two counts of the live games (for ``/metrics``).
COUNT_EVERY = 10.0
#: Bounds on handing over: what is in hand finishes within ``FINISH_SECONDS``, and each
#: other step of the shutdown within ``STEP_SECONDS`` (2.3 s in all at most).
FINISH_SECONDS, STEP_SECONDS = 0.8, 0.25


class ServeError(Exception):
    """The bot cannot serve (it cannot listen on its address): said in one line.

    ``transient``: the port is taken (``EADDRINUSE``), which may pass — the process it
    replaces may still hold it while it stops — so a supervisor should start the bot again
    (exit status 3); anything else (an address not of this machine, a port it may not use)
    is a setting to fix (2)."""

    def __init__(self, line: str, *, transient: bool = False) -> None:
        super().__init__(line)
        self.transient = transient


def taken(error: OSError, host: str, port: int, serves: str, setting: str) -> ServeError:
    """The :class:`ServeError` for ``host``:``port`` (``setting``), taken by another process,
    that would serve ``serves``."""
    return ServeError(
        f"cannot listen for {serves} on {host}:{port} ({error.strerror or error}): another "
        f"process holds it (the one this replaces, still stopping?); free it or set {setting} "
        "to a free port",
        transient=True,
    )


class Process:
    """One bot process: its web server, its role, and the work it does while it leads."""

    def __init__(
        self, application: App, settings: Settings, leadership: Leadership | None = None
    ) -> None:
        if leadership is None:
            leadership = leadership_for(settings.database_url, settings.require_token())
        self.application = application
        self.settings = settings
        self.leadership = leadership
        self.room: Cardroom = application.bot_data["cardroom"]
        self.reader: InboxReader = application.bot_data["inbox"]
        self.role: metrics.Role = "standby"
        self.stopping = asyncio.Event()
        #: Set once this process leads and is taking updates.
        self.leading = asyncio.Event()
        self._server: HTTPServer | None = None
        self._health_server: HTTPServer | None = None
        #: What runs beside the updates (the journal, the tidying, the Mini App's news): each
        #: forgotten once done, all cancelled at the hand-over.
        self._tasks: set[asyncio.Future[Any]] = set()
        self._polling: asyncio.Task[None] | None = None
        self._started = False
        limiter = application.bot.rate_limiter
        if isinstance(limiter, BudgetRateLimiter):
            # Before each call: does this process still lead, and know its lock alive?
            limiter.fence = leadership.leads

    # -- the web routes ---------------------------------------------------------------

    def routes(self) -> list[tuple[str, Any, dict[str, Any]]]:
        """The public routes: the webhook (in webhook mode) and the Mini App (with
        ``WEBAPP_URL``); never health or metrics (:meth:`health_routes`)."""
        routes: list[tuple[str, Any, dict[str, Any]]] = []
        if self.room.miniapp is not None:
            routes += self.room.miniapp.routes()
        if self.settings.webhook_url:
            path = urlsplit(self.settings.webhook_url).path or "/"
            routes.append(
                (
                    path,
                    WebhookHandler,
                    {"secret": self.settings.webhook_secret_token(), "reader": self.reader},
                )
            )
        return routes

    def health_routes(self) -> list[tuple[str, Any, dict[str, Any]]]:
        """The private routes: ``/healthz``, ``/readyz`` and ``/metrics``."""
        return list(metrics.routes(self.readiness))

    async def readiness(self) -> metrics.Readiness:
        try:
            await self.reader.inbox.lag()
        except Exception:
            return metrics.Readiness(database=False, role=self.role)
        return metrics.Readiness(database=True, role=self.role)

    def listen(self) -> None:
        """Serve the public routes on ``WEBHOOK_LISTEN:WEBHOOK_PORT`` when there are any (the
        webhook, the Mini App), and health and metrics on ``HEALTH_HOST:HEALTH_PORT``
        (``HEALTH_PORT=0``: not at all). A port that is taken, public or health, is
        :class:`ServeError` (transient: its holder may be stopping); a public port that cannot
        listen for another reason is one too; the health port is not: it is said, and the bot
        runs on."""
        webhook = bool(self.settings.webhook_url)
        if webhook and self.settings.webhook_secret is None:
            logger.info(
                "WEBHOOK_SECRET is not set: the webhook accepts only posts carrying a "
                "secret derived from the token"
            )
        if webhook or self.room.miniapp is not None:
            self._server = self._listen_public(webhook)
        try:
            self._health_server = self._listen_health()
        except ServeError:
            if self._server is not None:
                self._server.stop()
            raise

    def _listen_public(self, webhook: bool) -> HTTPServer:
        web = WebApplication(
            self.routes(), log_function=_log_request, websocket_max_message_size=MAX_FRAME
        )
        # xheaders: behind the TLS proxy, the client's address is the one the proxy says.
        server = WebServer(web, max_body_size=MAX_POST_BYTES, xheaders=True)
        port, host = self.settings.webhook_port, self.settings.webhook_listen
        try:
            server.listen(port, host)
        except OSError as error:
            serves = "the webhook" if webhook else "the Mini App (WEBAPP_URL)"
            if error.errno == errno.EADDRINUSE:
                raise taken(error, host, port, serves, "WEBHOOK_PORT") from None
            raise ServeError(
                f"cannot listen for {serves} on {host}:{port} ({error.strerror or error}): "
                "set WEBHOOK_PORT to a free port"
            ) from None
        return server

    def _listen_health(self) -> HTTPServer | None:
        port, host = self.settings.health_port, self.settings.health_host
        if not port:
            return None
        web = WebApplication(self.health_routes(), log_function=_log_request)
        server = WebServer(web)
        try:
            server.listen(port, host)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                serves = "/healthz, /readyz and /metrics"
                raise taken(error, host, port, serves, "HEALTH_PORT") from None
            logger.warning(
                "Cannot serve /healthz, /readyz and /metrics on %s:%s (%s): set HEALTH_PORT "
                "to a free port, or 0",
                host,
                port,
                error.strerror or error,
            )
            return None
        return server

    # -- the run ------------------------------------------------------------------------

    async def run(self, *, signals: bool = True) -> int:
        """Serve until :attr:`stopping` is set (by SIGINT or SIGTERM, with ``signals``) or
        the lead is lost; the exit status."""
        if signals:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, self.stopping.set)
        self.listen()
        await self.application.initialize()
        self.leadership.on_stored(self.reader.wake)
        miniapp = self.room.miniapp
        if miniapp is not None:
            # The leader's word to this process' Mini App sockets (several processes).
            self.leadership.listen(APP_CHANNEL, self._heard_for_app)
        status = 0
        try:
            if await self.leadership.acquire(self.stopping):
                await self.lead()
                lost = asyncio.create_task(self.leadership.lost.wait())
                stopping = asyncio.create_task(self.stopping.wait())
                await asyncio.wait((lost, stopping), return_when=asyncio.FIRST_COMPLETED)
                for task in (lost, stopping):
                    task.cancel()
                if self.leadership.lost.is_set() and not self.stopping.is_set():
                    logger.warning("No longer the leader: stopping (a standby takes over)")
                    status = 1
        finally:
            await self.hand_over()
        return status

    async def lead(self) -> None:
        """Take the lead: the same flood windows as the previous leader, what it had not
        shown delivered, the inbox handled, the deadlines run."""
        self.role = "leader"
        metrics.leading(True)
        logger.info("This process leads")
        budget = self.room.publisher.budget
        inbox = self.reader.inbox
        budget.restore(await inbox.recent_calls(KEEP_CALLS, budget.now))
        budget.hold(HOLD_SECONDS)
        budget.journal = []
        self._spawn(_write_calls(budget, inbox.record_calls), "journal")
        self._spawn(_every(TIDY_EVERY, inbox.tidy, "tidying the inbox"), "inbox-tidy")
        self._spawn(_every(COUNT_EVERY, self._count_games, "counting the games"), "games")
        await self.application.start()
        self._started = True
        self.reader.start()  # first: a press waits for nothing below
        post_init = self.application.post_init
        if post_init is not None:
            await post_init(self.application)
        bot = self.application.bot
        if self.settings.webhook_url:
            await _try(
                "set the webhook",
                bot.set_webhook(
                    url=self.settings.webhook_url,
                    secret_token=self.settings.webhook_secret_token(),
                    allowed_updates=list(ALLOWED_UPDATES),
                ),
            )
        else:
            await _try("remove a webhook", bot.delete_webhook())
            self._polling = asyncio.create_task(
                poll(bot, self.reader, ALLOWED_UPDATES), name="polling"
            )
        self.leading.set()

    async def hand_over(self) -> None:
        """Stop at once, in this order: take nothing more (no webhook, no poll, no update
        handed over, no deadline); drop the deliveries (the next leader makes them from the
        database); let what is in hand finish, within :data:`FINISH_SECONDS`, and mark it
        handled; write the calls made — and only then let the lead go: the next leader never
        answers an update this process is still answering, and starts from every call it
        made."""
        was_leader = self.role == "leader"
        self.role = "stopping"
        metrics.leading(False)
        if self._server is not None:
            self._server.stop()
        polling, self._polling = self._polling, None
        if polling is not None:
            polling.cancel()  # what it took is stored; what it did not, Telegram keeps
            await asyncio.gather(polling, return_exceptions=True)
        self.reader.halt()
        room = self.room
        # The outbox first: what the notes drop as they close is then not marked — it is the
        # next leader's to send.
        await _bounded(room.outbox.close(), "closing the outbox")
        await _bounded(
            asyncio.gather(room.publisher.close(), room.notes.close()), "closing the deliveries"
        )
        application = self.application
        if self._started and application.running:
            await _bounded(
                asyncio.gather(application.stop(), room.poller.stop()),
                "finishing the updates in hand",
                FINISH_SECONDS,
            )
        # What finished is marked before the next leader reads the inbox.
        await _bounded(self.reader.stop(), "marking the updates handled")
        running = list(self._tasks)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        budget = room.publisher.budget
        if budget.journal:
            await _bounded(
                self.reader.inbox.record_calls(budget.journal, budget.now), "writing the calls"
            )
        await _bounded(self.leadership.release(), "letting the lead go")
        if was_leader and not self.leadership.lost.is_set():
            logger.info("Handed the lead over")
        if application.post_shutdown is not None:
            await _bounded(application.post_shutdown(application), "shutting down")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(application.shutdown(), STEP_SECONDS)
        # Last: until now /readyz has said "stopping" to whoever asked.
        if self._health_server is not None:
            self._health_server.stop()

    def _heard_for_app(self, payload: str) -> None:
        miniapp = self.room.miniapp
        if miniapp is None:
            return
        try:
            note = orjson.loads(payload)
        except orjson.JSONDecodeError:
            return
        if not isinstance(note, dict):
            return
        # The leader hears which pages the others hold (it paces those players' panels); its
        # own sockets were told of states and answers at once.
        if (note.get("kind") == "paging") != (self.role == "leader"):
            return
        self._spawn(miniapp.announced(note), "app-note")

    async def _count_games(self) -> None:
        metrics.live_games(await self.room.play.live_count())

    def _spawn(self, work: Awaitable[Any], name: str) -> None:
        task = asyncio.ensure_future(work)
        if isinstance(task, asyncio.Task):
            task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _write_calls(
    budget: CallBudget,
    record: Callable[[list[tuple[int, float]], Callable[[], float]], Awaitable[None]],
) -> None:
    """Write the calls the leader made, a few times a second (when by the budget's clock:
    they are written by the database's)."""
    while True:
        await asyncio.sleep(JOURNAL_EVERY)
        calls, budget.journal = budget.journal or [], []
        if not calls:
            continue
        try:
            await record(calls, budget.now)
        except Exception as error:
            logger.warning("Could not write %d calls (%s); trying again", len(calls), error)
            # Only what the next leader would read: a database down for hours is no pile.
            recent = budget.now() - KEEP_CALLS
            budget.journal = [c for c in calls if c[1] > recent] + (budget.journal or [])


async def _every(seconds: float, work: Callable[[], Awaitable[None]], what: str) -> None:
    while True:
        try:
            await work()
        except Exception as error:
            logger.warning("Failed %s (%s); trying again later", what, error)
        await asyncio.sleep(seconds)


async def _try(what: str, call: Awaitable[Any]) -> None:
    try:
        await call
    except TelegramError as error:
        logger.warning("Could not %s: %s", what, error)


async def _bounded(work: Awaitable[Any], what: str, seconds: float = STEP_SECONDS) -> None:
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        logger.warning("Gave up %s after %.1f s", what, seconds)
    except Exception as error:
        logger.warning("Failed %s: %s", what, error)


def _log_request(handler: Any) -> None:
    """Tornado's access log, quiet: a refused post (403, 400) at INFO, a failure at
    WARNING; the webhook's and the probes' every answer would drown the log."""
    status = handler.get_status()
    if status < 400:
        return
    level = logging.WARNING if status >= 500 else logging.INFO
    request = handler.request
    logger.log(level, "%s %s answered %d", request.method, request.path, status)


def serve(application: App, settings: Settings, leadership: Leadership) -> int:
    """Run until SIGINT or SIGTERM (or until the lead is lost); the exit status."""
    loop = asyncio.get_event_loop()
    process = Process(application, settings, leadership)
    try:
        return loop.run_until_complete(process.run())
    finally:
        loop.close()
