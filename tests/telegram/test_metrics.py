"""What an operator sees: /healthz, /readyz and /metrics over a real tornado server, and the
metrics the bot reports through :mod:`bot.telegram.metrics`."""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application

from bot.telegram import metrics
from bot.telegram.metrics import REGISTRY, Readiness, Role, routes

Probe = Callable[[], Awaitable[Readiness]]
FD_DIR = Path("/proc/self/fd")


@asynccontextmanager
async def serving(probe: Probe) -> AsyncIterator[httpx.AsyncClient]:
    """The three routes on a port of their own, and a client that asks them."""
    sockets = bind_sockets(0, "127.0.0.1")
    port = sockets[0].getsockname()[1]
    server = HTTPServer(Application(routes(probe)))
    server.add_sockets(sockets)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield client
    finally:
        server.stop()
        await server.close_all_connections()


def answering(database: bool, role: Role) -> Probe:
    async def probe() -> Readiness:
        return Readiness(database=database, role=role)

    return probe


async def failing() -> Readiness:
    raise ConnectionRefusedError("the database is down")


async def hanging() -> Readiness:
    await asyncio.sleep(3600)
    raise AssertionError("never answered")


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


# -- the routes --------------------------------------------------------------------------------


async def test_healthz_answers_ok_while_the_loop_runs() -> None:
    async with serving(failing) as client:
        answer = await client.get("/healthz")
    assert answer.status_code == 200
    assert answer.text == "ok"


@pytest.mark.parametrize("role", ["leader", "standby"])
async def test_readyz_is_ready_for_a_leader_and_a_standby(role: Role) -> None:
    async with serving(answering(True, role)) as client:
        answer = await client.get("/readyz")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == {"ready": True, "role": role, "database": True, "connections": True}


async def test_readyz_is_not_ready_while_stopping() -> None:
    async with serving(answering(True, "stopping")) as client:
        answer = await client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json() == {
        "ready": False,
        "role": "stopping",
        "database": True,
        "connections": True,
        "reason": "stopping",
    }


async def test_readyz_is_not_ready_when_the_database_does_not_answer() -> None:
    async with serving(answering(False, "leader")) as client:
        answer = await client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json() == {
        "ready": False,
        "role": "leader",
        "database": False,
        "connections": True,
        "reason": "the database does not answer",
    }


async def test_readyz_counts_a_probe_that_raises_as_no_database() -> None:
    async with serving(failing) as client:
        answer = await client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json() == {
        "ready": False,
        "role": None,
        "database": False,
        "connections": True,
        "reason": "the database does not answer",
    }


async def test_readyz_gives_up_on_a_probe_that_hangs_after_two_seconds() -> None:
    async with serving(hanging) as client:
        started = time.monotonic()
        answer = await client.get("/readyz")
        took = time.monotonic() - started
    assert answer.status_code == 503
    assert answer.json() == {
        "ready": False,
        "role": None,
        "database": False,
        "connections": True,
        "reason": "the database did not answer within 2.0 s",
    }
    assert 1.9 <= took < 5


@pytest.mark.skipif(not FD_DIR.is_dir(), reason="open files are counted in /proc/self/fd")
async def test_readyz_is_not_ready_out_of_open_files_and_ready_again_once_some_are_freed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held: list[int] = []
    async with serving(answering(True, "leader")) as client:
        assert (await client.get("/readyz")).status_code == 200  # its connection is open now
        limit = len(os.listdir(FD_DIR)) + 100
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
        try:
            # 20 files left: enough to answer, fewer than a ready process keeps (32).
            while len(os.listdir(FD_DIR)) < limit - 20:
                held.append(os.open(os.devnull, os.O_RDONLY))
            caplog.set_level(logging.WARNING, "bot.telegram.metrics")
            answers = [await client.get("/readyz") for _ in range(5)]
            for fd in held:
                os.close(fd)
            held.clear()
            again = await client.get("/readyz")
        finally:
            for fd in held:
                os.close(fd)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    for answer in answers:
        assert answer.status_code == 503
        body = answer.json()
        assert body["ready"] is False and body["connections"] is False
        assert body["database"] is True and body["role"] == "leader"
        assert body["reason"].startswith("out of open files: ")
        assert body["reason"].endswith(f" of {limit} in use")
    said = [r for r in caplog.records if "open files" in r.getMessage()]
    assert len(said) == 1, "said once a minute, not at every probe"
    assert again.status_code == 200
    assert again.json() == {"ready": True, "role": "leader", "database": True, "connections": True}


def test_a_process_that_cannot_open_a_file_has_none_left() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = metrics.open_files()
    assert files.left and files.limit == soft and files.error is None
    assert files.open is None or files.open > 3
    resource.setrlimit(resource.RLIMIT_NOFILE, (0, hard))  # not one more file
    try:
        none_left = metrics.open_files()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert not none_left.left
    assert none_left.shortage() == "cannot open a file (Too many open files)"
    assert not metrics.OpenFiles(open=1000, limit=1024).left
    assert metrics.OpenFiles(open=900, limit=1024).left
    assert not metrics.OpenFiles(open=1_000_000, limit=1_048_576).left  # a twentieth kept
    assert metrics.OpenFiles(open=None, limit=1024).left  # not counted: no /proc
    assert metrics.OpenFiles(open=5000, limit=resource.RLIM_INFINITY).left


async def test_metrics_lists_every_metric_in_prometheus_text_format() -> None:
    metrics.update_taken("webhook")
    async with serving(answering(True, "leader")) as client:
        answer = await client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == metrics.CONTENT_TYPE_LATEST
    assert answer.headers["content-type"].startswith("text/plain; version=")
    types = {
        "cardroom_updates_taken_total": "counter",
        "cardroom_updates_handled_total": "counter",
        "cardroom_inbox_lag_seconds": "gauge",
        "cardroom_telegram_calls_total": "counter",
        "cardroom_telegram_429_total": "counter",
        "cardroom_budget_wait_seconds": "histogram",
        "cardroom_table_lag_seconds": "histogram",
        "cardroom_live_games": "gauge",
        "cardroom_leader": "gauge",
        "cardroom_app_sockets": "gauge",
        "cardroom_app_sockets_capped_total": "counter",
        "cardroom_accept_failed_total": "counter",
    }
    lines = answer.text.splitlines()
    for name, kind in types.items():
        assert f"# TYPE {name} {kind}" in lines, name
    taken = next(line for line in lines if line.startswith('cardroom_updates_taken_total{via="w'))
    assert float(taken.split()[-1]) >= 1
    assert any(line.startswith('cardroom_updates_taken_total{via="polling"}') for line in lines)


# -- the metrics -------------------------------------------------------------------------------


def test_each_error_of_a_bot_api_call_has_its_outcome() -> None:
    assert metrics.outcome_of(None) == "ok"
    assert metrics.outcome_of(RetryAfter(3)) == "retry_after"
    assert metrics.outcome_of(Forbidden("bot was blocked by the user")) == "forbidden"
    # A BadRequest is a NetworkError to python-telegram-bot: it is not the network's fault.
    assert metrics.outcome_of(BadRequest("message is not modified")) == "bad_request"
    assert metrics.outcome_of(TimedOut()) == "network"
    assert metrics.outcome_of(NetworkError("connection reset")) == "network"
    assert metrics.outcome_of(ValueError("a bug")) == "error"


def test_a_429_is_a_call_and_a_429() -> None:
    calls = sample("cardroom_telegram_calls_total", method="sendSticker", outcome="retry_after")
    refusals = sample("cardroom_telegram_429_total")
    metrics.count_call("sendSticker", "retry_after")
    after = sample("cardroom_telegram_calls_total", method="sendSticker", outcome="retry_after")
    assert after == calls + 1
    assert sample("cardroom_telegram_429_total") == refusals + 1


def test_no_outcome_or_way_in_outside_the_known_few_makes_a_series() -> None:
    with pytest.raises(ValueError):
        metrics.count_call("sendMessage", "-100123")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        metrics.update_taken("carrier pigeon")  # type: ignore[arg-type]
    assert sample("cardroom_telegram_calls_total", method="sendMessage", outcome="-100123") == 0


def test_the_inbox_lag_grows_while_an_update_waits_and_is_zero_when_none_does() -> None:
    try:
        metrics.inbox_waiting(time.time() - 30)
        assert 30 <= sample("cardroom_inbox_lag_seconds") < 40
        metrics.inbox_waiting(time.time() - 90)
        assert 90 <= sample("cardroom_inbox_lag_seconds") < 100
    finally:
        metrics.inbox_waiting(None)
    assert sample("cardroom_inbox_lag_seconds") == 0


def test_leadership_live_games_and_handled_updates_are_reported() -> None:
    handled = sample("cardroom_updates_handled_total")
    lags = sample("cardroom_table_lag_seconds_count")
    within_one = sample("cardroom_table_lag_seconds_bucket", le="1.0")
    within_two = sample("cardroom_table_lag_seconds_bucket", le="2.0")
    metrics.leading(True)
    assert sample("cardroom_leader") == 1
    metrics.leading(False)
    assert sample("cardroom_leader") == 0
    metrics.live_games(7)
    assert sample("cardroom_live_games") == 7
    metrics.update_handled()
    assert sample("cardroom_updates_handled_total") == handled + 1
    metrics.table_shown(1.5)
    assert sample("cardroom_table_lag_seconds_count") == lags + 1
    assert sample("cardroom_table_lag_seconds_bucket", le="1.0") == within_one
    assert sample("cardroom_table_lag_seconds_bucket", le="2.0") == within_two + 1
