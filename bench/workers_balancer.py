"""Telegram's side of several webhook processes: a round-robin balancer, and what each process
says about itself over HTTP.

:class:`Balancer` takes each update the fake Bot API produced (its ``update_log``, in order) and
posts it to the next process in turn, as Telegram posts a webhook — JSON with
``X-Telegram-Bot-Api-Secret-Token``. A process that refuses (no connection, a status other than
200, no answer in time) is passed over for the next one; when every one refuses, the post is
tried again a moment later, as Telegram retries a failed webhook. Each post that got its 200 is
a :class:`Delivery`: when, from which process, after how many tries.

The probes read the routes every process serves on its private health port (issues #29, #36;
never on the webhook's): ``/healthz``, ``/readyz`` (``{"ready", "role", "database"}``) and
``/metrics`` (Prometheus' text). Each
answers ``None`` where the route is missing or nothing answers, so the bench can say so and go
on with what it has.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bot.sandbox.bot_api import FakeBotApi

logger = logging.getLogger(__name__)

#: The secret header Telegram sends with every webhook post.
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: Seconds between two rounds of tries when every process refused a post.
RETRY_EVERY = 0.2
#: Seconds the balancer waits for a process to answer one post.
POST_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Delivery:
    """A webhook post that got its 200."""

    update_id: int
    #: The callback query's id when the update is a press.
    callback_id: str | None
    #: The index of the process that answered.
    process: int
    #: When the 200 came (``loop.time()``, the fake's clock).
    answered_at: float
    #: Posts it took: 1 when the first process in turn took it.
    attempts: int


class Balancer:
    """Posts the fake's updates to ``ports`` in turn; only those produced after it was made."""

    def __init__(
        self,
        api: FakeBotApi,
        ports: Sequence[int],
        secret: str,
        *,
        path: str = "/hook",
        client: httpx.AsyncClient | None = None,
        retry_every: float = RETRY_EVERY,
    ) -> None:
        self.api = api
        self.ports = list(ports)
        self.secret = secret
        self.path = path
        self.client = client or httpx.AsyncClient(timeout=POST_TIMEOUT)
        self.retry_every = retry_every
        self.posted = len(api.update_log)
        self.deliveries: dict[int, Delivery] = {}
        self._presses: dict[str, Delivery] = {}
        #: Posts a process refused (each try that failed).
        self.refusals = 0
        #: Told of each delivery right after its 200 (e.g. to kill the process that answered).
        self.after_200: Callable[[Delivery], None] | None = None
        self._next = 0

    async def post(self, update: dict[str, Any]) -> Delivery:
        """Post one update to the next process in turn, passing over any that refuses, until
        one answers 200."""
        loop = asyncio.get_running_loop()
        body = json.dumps(update)
        headers = {"Content-Type": "application/json", SECRET_HEADER: self.secret}
        attempts = 0
        while True:
            for _ in range(len(self.ports)):
                process = self._next
                self._next = (self._next + 1) % len(self.ports)
                attempts += 1
                url = f"http://127.0.0.1:{self.ports[process]}{self.path}"
                try:
                    response = await self.client.post(url, content=body, headers=headers)
                except httpx.HTTPError:
                    self.refusals += 1
                    continue
                if response.status_code != 200:
                    self.refusals += 1
                    continue
                callback = update.get("callback_query")
                delivery = Delivery(
                    int(update["update_id"]),
                    str(callback["id"]) if callback else None,
                    process,
                    loop.time(),
                    attempts,
                )
                self.deliveries[delivery.update_id] = delivery
                if delivery.callback_id is not None:
                    self._presses[delivery.callback_id] = delivery
                if self.after_200 is not None:
                    self.after_200(delivery)
                return delivery
            await asyncio.sleep(self.retry_every)

    async def pump(self, idle: float = 0.005) -> None:
        """Post every new update of the fake, one at a time, in order, until cancelled."""
        log = self.api.update_log
        while True:
            if self.posted < len(log):
                await self.post(log[self.posted])
                self.posted += 1
            else:
                await asyncio.sleep(idle)

    def delivery_of(self, callback_id: str) -> Delivery | None:
        """The delivery of the press with this callback id, if it got its 200."""
        return self._presses.get(callback_id)

    async def close(self) -> None:
        await self.client.aclose()


# -- what a process says about itself ----------------------------------------------------------


async def _get(client: httpx.AsyncClient, port: int, path: str) -> httpx.Response | None:
    """``GET`` a route of the process on ``port``; ``None`` when nothing answers there or the
    route does not exist (404, 405)."""
    try:
        response = await client.get(f"http://127.0.0.1:{port}{path}", timeout=2.0)
    except httpx.HTTPError:
        return None
    return None if response.status_code in (404, 405) else response


async def answers(client: httpx.AsyncClient, port: int) -> bool:
    """Whether the process serves HTTP on ``port`` at all (whatever ``/healthz`` says)."""
    try:
        await client.get(f"http://127.0.0.1:{port}/healthz", timeout=2.0)
    except httpx.HTTPError:
        return False
    return True


async def healthy(client: httpx.AsyncClient, port: int) -> bool | None:
    """``/healthz`` says 200 (``True``) or not; ``None``: no such route or no answer."""
    response = await _get(client, port, "/healthz")
    return None if response is None else response.status_code == 200


async def readiness(client: httpx.AsyncClient, port: int) -> dict[str, Any] | None:
    """``/readyz``'s JSON (its 503 too); ``None``: no such route, no answer, or not JSON."""
    response = await _get(client, port, "/readyz")
    if response is None or response.status_code not in (200, 503):
        return None
    try:
        answer = response.json()
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus' text as sums by sample name (label sets added together)."""
    sums: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            sums[sample.name] = sums.get(sample.name, 0.0) + float(sample.value)
    return sums


async def metrics(client: httpx.AsyncClient, port: int) -> dict[str, float] | None:
    """``/metrics`` by sample name; ``None``: no such route or no answer."""
    response = await _get(client, port, "/metrics")
    if response is None or response.status_code != 200:
        return None
    try:
        return parse_metrics(response.text)
    except ValueError:
        logger.warning("Unreadable /metrics on port %s", port)
        return None


async def leader_of(client: httpx.AsyncClient, ports: Sequence[int]) -> int | None:
    """The index of the process that says it leads — by ``/readyz``'s role, or ``/metrics``'
    ``cardroom_leader`` — or ``None`` when none says so."""
    for index, port in enumerate(ports):
        ready = await readiness(client, port)
        if ready is not None and ready.get("role") == "leader":
            return index
        measured = await metrics(client, port)
        if measured is not None and measured.get("cardroom_leader") == 1:
            return index
    return None
