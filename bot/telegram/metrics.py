"""What an operator watches: Prometheus metrics, and the health routes.

The metrics live in a registry of our own, :data:`REGISTRY`, not in prometheus-client's
global one, so that a test may build as many applications as it likes in one process. The
rest of the bot reports through the small functions here, one line at each call site:
:func:`update_taken`, :func:`update_handled` and :func:`inbox_waiting` for the inbox,
:func:`count_call` (or :func:`telegram_call`) and :func:`waited` for the Bot API calls,
:func:`table_shown` for a table's lag, :func:`live_games` and :func:`leading`,
:func:`app_sockets` and :func:`app_socket_capped` for the Mini App's sockets, and
:func:`accept_failed` for connections the web server could not take.

Label values are bounded: a Bot API method name (from our own code), one of :data:`OUTCOMES`,
one of :data:`VIAS` — never a chat id or a user id, each of which would make a series of its
own.

The routes (:func:`routes`) are tornado handlers, served on a private listener of their own
(``HEALTH_HOST:HEALTH_PORT``, :meth:`bot.serve.Process.listen`), never beside the webhook and
the Mini App on the public port, where a catch-all proxy rule would publish them:
``/healthz`` answers while the event loop runs, ``/readyz`` asks a probe whether the database
answers and which role this process has, and counts whether the process has open files left
to open connections with (:func:`open_files`); ``/metrics`` is the registry in Prometheus'
text format.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, get_args

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter
from tornado.web import RequestHandler

from bot.telegram.tally import LogTally

logger = logging.getLogger(__name__)

#: The bot's metrics, and the process' own (CPU, memory, open files, garbage collection).
REGISTRY: Final = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)
GCCollector(registry=REGISTRY)

#: How an update reached the inbox.
Via = Literal["webhook", "polling", "app"]
#: How Telegram answered a Bot API call.
Outcome = Literal["ok", "retry_after", "forbidden", "bad_request", "network", "error"]
OUTCOMES: Final[tuple[Outcome, ...]] = get_args(Outcome)
VIAS: Final[tuple[Via, ...]] = get_args(Via)

_UPDATES_TAKEN = Counter(
    "cardroom_updates_taken_total",
    "Updates committed to the inbox, by how they came in.",
    ["via"],
    registry=REGISTRY,
)
_UPDATES_HANDLED = Counter(
    "cardroom_updates_handled_total",
    "Updates the leader has handled.",
    registry=REGISTRY,
)
_INBOX_LAG = Gauge(
    "cardroom_inbox_lag_seconds",
    "Age of the oldest update taken into the inbox but not handled yet (0 when none).",
    registry=REGISTRY,
)
_TELEGRAM_CALLS = Counter(
    "cardroom_telegram_calls_total",
    "Bot API calls, by method and by how Telegram answered.",
    ["method", "outcome"],
    registry=REGISTRY,
)
_TELEGRAM_429 = Counter(
    "cardroom_telegram_429_total",
    "Bot API calls Telegram refused with 429 (RetryAfter).",
    registry=REGISTRY,
)
_BUDGET_WAIT = Histogram(
    "cardroom_budget_wait_seconds",
    "How long a call into a chat waited for the chat's budget before it was sent.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0),
    registry=REGISTRY,
)
_TABLE_LAG = Histogram(
    "cardroom_table_lag_seconds",
    "From a game's change to its table being shown in the chat.",
    buckets=(0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0),
    registry=REGISTRY,
)
_LIVE_GAMES = Gauge(
    "cardroom_live_games",
    "Games being played or waiting in a lobby.",
    registry=REGISTRY,
)
_LEADER = Gauge(
    "cardroom_leader",
    "1 while this process leads (holds the lock and sends), 0 while it stands by.",
    registry=REGISTRY,
)
_APP_SOCKETS = Gauge(
    "cardroom_app_sockets",
    "Mini App sockets open in this process, signed in or not yet.",
    registry=REGISTRY,
)
_APP_SOCKETS_CAPPED = Counter(
    "cardroom_app_sockets_capped_total",
    "Mini App sockets closed by a cap: refused at opening (total: the process' cap; address: "
    "the cap on one address' sockets not signed in yet), or a player's oldest closed for his "
    "newest (player).",
    ["cap"],
    registry=REGISTRY,
)
_ACCEPT_FAILED = Counter(
    "cardroom_accept_failed_total",
    "Connections the web server could not accept for want of open files (each attempt).",
    registry=REGISTRY,
)

_GIVEN_UP = Counter(
    "cardroom_messages_given_up_total",
    "Messages the bot decided to send and gave up on: dropped past their time to live or "
    "crowded out (dropped), or a table or panel left behind after its retries (behind).",
    ["why"],
    registry=REGISTRY,
)

#: The caps a Mini App socket may meet (:func:`app_socket_capped`).
Cap = Literal["total", "address", "player"]
CAPS: Final[tuple[Cap, ...]] = get_args(Cap)

# Both ways in are shown from the start, at 0: rate() sees no increase in a series' first
# sample, so the first updates by a way not shown yet would go unseen.
for _via in VIAS:
    _UPDATES_TAKEN.labels(via=_via)
for _cap in CAPS:
    _APP_SOCKETS_CAPPED.labels(cap=_cap)
#: Why a message is given up (:func:`given_up`).
GiveUp = Literal["dropped", "behind"]
for _why in get_args(GiveUp):
    _GIVEN_UP.labels(why=_why)


# -- the inbox and the leader ------------------------------------------------------------------


def update_taken(via: Via) -> None:
    """An update was committed to the inbox (from a webhook post or from polling)."""
    if via not in VIAS:
        raise ValueError(f"an update comes in by {VIAS}, not {via!r}")
    _UPDATES_TAKEN.labels(via=via).inc()


def update_handled() -> None:
    """The leader has handled an update from the inbox."""
    _UPDATES_HANDLED.inc()


#: When the oldest update taken but not handled was taken (seconds since the epoch), if any.
_oldest_waiting: float | None = None


def inbox_waiting(taken_at: float | datetime | None) -> None:
    """The oldest update taken into the inbox but not handled yet was taken at ``taken_at``
    (seconds since the epoch, or an aware datetime); ``None``: none waits.

    The lag is measured when Prometheus asks, so that it keeps growing while nothing handles
    the inbox, rather than showing what it was when it was last reported.
    """
    global _oldest_waiting
    _oldest_waiting = taken_at.timestamp() if isinstance(taken_at, datetime) else taken_at


def _inbox_lag() -> float:
    oldest = _oldest_waiting
    return 0.0 if oldest is None else max(0.0, time.time() - oldest)


_INBOX_LAG.set_function(_inbox_lag)


def leading(leader: bool) -> None:
    """This process has become the leader (``True``) or stands by (``False``)."""
    _LEADER.set(1 if leader else 0)


def live_games(count: int) -> None:
    """``count`` games are being played or waiting in a lobby."""
    _LIVE_GAMES.set(count)


def table_shown(lag: float) -> None:
    """A table was shown ``lag`` seconds after the change of its game it shows."""
    _TABLE_LAG.observe(max(0.0, lag))


# -- the web server ----------------------------------------------------------------------------


def app_sockets(count: int) -> None:
    """``count`` Mini App sockets are open in this process."""
    _APP_SOCKETS.set(count)


def app_socket_capped(cap: Cap) -> None:
    """A Mini App socket was closed by ``cap`` (see ``cardroom_app_sockets_capped_total``)."""
    if cap not in CAPS:
        raise ValueError(f"a socket is capped by one of {CAPS}, not {cap!r}")
    _APP_SOCKETS_CAPPED.labels(cap=cap).inc()


def given_up(why: GiveUp) -> None:
    """A message the bot decided to send was given up (``cardroom_messages_given_up_total``)."""
    _GIVEN_UP.labels(why=why).inc()


def accept_failed() -> None:
    """The web server could not accept a connection: the process is out of open files."""
    _ACCEPT_FAILED.inc()


# -- Bot API calls -----------------------------------------------------------------------------


def outcome_of(error: BaseException | None) -> Outcome:
    """How a Bot API call went, from what it raised (``None``: it was answered)."""
    if error is None:
        return "ok"
    if isinstance(error, RetryAfter):
        return "retry_after"
    if isinstance(error, Forbidden):
        return "forbidden"
    # BadRequest is a NetworkError to python-telegram-bot: it is asked first.
    if isinstance(error, BadRequest):
        return "bad_request"
    if isinstance(error, NetworkError):  # TimedOut too
        return "network"
    return "error"


def count_call(method: str, outcome: Outcome) -> None:
    """A Bot API call of ``method`` (``sendMessage``) was answered with ``outcome``; a
    ``retry_after`` counts as a 429 too."""
    if outcome not in OUTCOMES:
        raise ValueError(f"a call's outcome is one of {OUTCOMES}, not {outcome!r}")
    _TELEGRAM_CALLS.labels(method=method, outcome=outcome).inc()
    if outcome == "retry_after":
        _TELEGRAM_429.inc()


@contextlib.contextmanager
def telegram_call(method: str) -> Iterator[None]:
    """Count the Bot API call made inside the block by how it ended; the error, if any, goes
    on. A call cancelled while it waited for its answer is not counted: it has none."""
    try:
        yield
    except Exception as error:
        count_call(method, outcome_of(error))
        raise
    count_call(method, "ok")


def waited(seconds: float) -> None:
    """A call into a chat waited ``seconds`` for the chat's budget before it was sent."""
    _BUDGET_WAIT.observe(max(0.0, seconds))


# -- the routes --------------------------------------------------------------------------------

Role = Literal["leader", "standby", "stopping"]


@dataclass(frozen=True, slots=True)
class Readiness:
    """What the readiness probe found: whether the database answered, and this process' role
    (``stopping`` once SIGTERM has come: it takes no more work)."""

    database: bool
    role: Role

    @property
    def ready(self) -> bool:
        """Whether the process may be sent updates: its database answers and it is not
        stopping."""
        return self.database and self.role in ("leader", "standby")


Probe = Callable[[], Awaitable[Readiness]]
Route = tuple[str, type[RequestHandler], dict[str, Any]]

#: How long the readiness probe may take before the database counts as not answering.
READY_TIMEOUT: Final = 2.0
#: The open files a ready process has left: a twentieth of its limit, and never fewer than
#: these (a webhook post, a connection to Telegram or to the database: one file each). With
#: fewer, it is not ready: the balancer should send its work elsewhere until some are freed.
FILES_LEFT: Final = 32


@dataclass(frozen=True, slots=True)
class OpenFiles:
    """The files this process has open (``None``: not counted, where there is no
    ``/proc``), the most it may (the soft ``RLIMIT_NOFILE``), and why opening one more
    failed, if it did."""

    open: int | None
    limit: int
    error: str | None = None

    @property
    def left(self) -> bool:
        """Whether the process has files left to open connections with."""
        if self.error is not None:
            return False
        if self.open is None or self.limit < 0:  # not counted, or no limit (RLIM_INFINITY)
            return True
        return self.limit - self.open >= max(FILES_LEFT, self.limit // 20)

    def shortage(self) -> str:
        """What the process lacks, in a few words (for ``/readyz``'s ``reason``)."""
        if self.error is not None:
            return f"cannot open a file ({self.error})"
        return f"out of open files: {self.open} of {self.limit} in use"


def open_files() -> OpenFiles:
    """How many files this process has open, against its limit.

    Counted in ``/proc/self/fd`` (a few hundred microseconds for thousands of files): the
    listing itself needs a file, so a process with none left cannot list and says why. Where
    there is no ``/proc``, opening a socket is the test.
    """
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    try:
        count = len(os.listdir("/proc/self/fd"))
    except FileNotFoundError:
        try:
            socket.socket().close()
        except OSError as error:
            return OpenFiles(None, limit, error.strerror or str(error))
        return OpenFiles(None, limit)
    except OSError as error:  # EMFILE, ENFILE: this very listing found no file to open
        return OpenFiles(None, limit, error.strerror or str(error))
    return OpenFiles(count, limit)


#: ``/readyz`` asked while the process was out of files: said once a minute.
_out_of_files = LogTally(
    logger,
    logging.WARNING,
    "Not ready for want of open files (%d probes in %.0f s): %s (see ulimit -Hn and "
    "WEBAPP_MAX_SOCKETS)",
)


class HealthHandler(RequestHandler):
    """``/healthz``: ``200 ok`` as long as the event loop runs to answer it (liveness)."""

    def get(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish("ok")


class ReadyHandler(RequestHandler):
    """``/readyz``: 200 while the database answers, this process leads or stands by and it
    has open files left to open connections with (:func:`open_files`), 503 otherwise — both
    with ``{"ready": …, "role": …, "database": …, "connections": …}``, and when not ready the
    ``reason`` in words. A probe that fails or takes longer than ``timeout`` counts as the
    database not answering (its role is then ``null``: unknown)."""

    def initialize(self, probe: Probe, timeout: float = READY_TIMEOUT) -> None:
        self.probe = probe
        self.timeout = timeout

    async def get(self) -> None:
        answer: dict[str, Any]
        reasons: list[str] = []
        try:
            readiness = await asyncio.wait_for(self.probe(), self.timeout)
        except TimeoutError:
            logger.warning("The readiness probe took longer than %.1f s", self.timeout)
            answer = {"ready": False, "role": None, "database": False}
            reasons.append(f"the database did not answer within {self.timeout:.1f} s")
        except Exception as error:
            logger.warning("The readiness probe failed: %r", error)
            answer = {"ready": False, "role": None, "database": False}
            reasons.append("the database does not answer")
        else:
            answer = {
                "ready": readiness.ready,
                "role": readiness.role,
                "database": readiness.database,
            }
            if not readiness.database:
                reasons.append("the database does not answer")
            if readiness.role == "stopping":
                reasons.append("stopping")
        files = open_files()
        answer["connections"] = files.left
        if not files.left:
            answer["ready"] = False
            reasons.append(files.shortage())
            _out_of_files.add(files.shortage())
        if reasons:
            answer["reason"] = "; ".join(reasons)
        self.set_status(200 if answer["ready"] else 503)
        self.set_header("Cache-Control", "no-store")
        # A dict is written as JSON with its content type by tornado.
        self.finish(answer)


class MetricsHandler(RequestHandler):
    """``/metrics``: :data:`REGISTRY` in Prometheus' text format."""

    def get(self) -> None:
        self.set_header("Content-Type", CONTENT_TYPE_LATEST)
        self.set_header("Cache-Control", "no-store")
        self.finish(generate_latest(REGISTRY))


def routes(probe: Probe, *, timeout: float = READY_TIMEOUT) -> list[Route]:
    """The rules for a ``tornado.web.Application``: ``/healthz``, ``/readyz`` (asking
    ``probe``, which may take ``timeout`` seconds) and ``/metrics``."""
    return [
        (r"/healthz", HealthHandler, {}),
        (r"/readyz", ReadyHandler, {"probe": probe, "timeout": timeout}),
        (r"/metrics", MetricsHandler, {}),
    ]
