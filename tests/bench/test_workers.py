"""The pieces of the multi-process bench (``python -m bench --only workers``, issue #29): the
balancer in front of the processes, the probes of their routes, the watch for two live panels,
the scripted players and the figures. No process is started here; the bench itself needs
PostgreSQL and minutes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench import workers_players
from bench.report import Target
from bench.workers import FULL, TARGETS, Scene, WorkersBench, fate
from bench.workers_balancer import SECRET_HEADER, Balancer, leader_of, parse_metrics
from bench.workers_players import PanelWatch, Press, ScriptedPlayer, Tempo, live_panels
from tests.fakes import FakeBotApi, FakeUser

PORTS = [7001, 7002, 7003]
Handler = Callable[[httpx.Request], httpx.Response]


def client(handler: Handler) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def some_updates(api: FakeBotApi, count: int) -> list[dict[str, Any]]:
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    for n in range(count):
        await api.send_text(anna, group, f"/help {n}")
    return api.update_log[-count:]


async def test_the_balancer_posts_each_update_to_the_next_process_in_turn() -> None:
    api = FakeBotApi(flood_limits=False)
    seen: list[tuple[int | None, dict[str, Any], str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append((request.url.port, body, request.headers.get(SECRET_HEADER)))
        return httpx.Response(200)

    balancer = Balancer(api, PORTS, "a-secret-of-the-bench", client=client(handler))
    updates = await some_updates(api, 5)
    deliveries = [await balancer.post(update) for update in updates]
    assert [port for port, _, _ in seen] == [7001, 7002, 7003, 7001, 7002]
    assert [body for _, body, _ in seen] == updates, "each update as the fake made it"
    assert {secret for _, _, secret in seen} == {"a-secret-of-the-bench"}
    assert [d.process for d in deliveries] == [0, 1, 2, 0, 1]
    assert [d.attempts for d in deliveries] == [1] * 5
    assert balancer.refusals == 0


async def test_a_process_that_refuses_or_is_down_is_passed_over_for_the_next() -> None:
    api = FakeBotApi(flood_limits=False)
    tried: list[int | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        tried.append(request.url.port)
        if request.url.port == 7001:
            raise httpx.ConnectError("refused", request=request)
        if request.url.port == 7002:
            return httpx.Response(503)
        return httpx.Response(200)

    balancer = Balancer(api, PORTS, "a-secret-of-the-bench", client=client(handler))
    told: list[int] = []
    balancer.after_200 = lambda delivery: told.append(delivery.process)
    (update,) = await some_updates(api, 1)
    delivery = await asyncio.wait_for(balancer.post(update), 5)
    assert tried == [7001, 7002, 7003]
    assert (delivery.process, delivery.attempts) == (2, 3)
    assert balancer.refusals == 2
    assert told == [2], "told right after the 200, with who answered"
    assert balancer.deliveries == {delivery.update_id: delivery}


async def test_when_every_process_refuses_the_post_is_tried_again_until_one_takes_it() -> None:
    api = FakeBotApi(flood_limits=False)
    tries = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal tries
        tries += 1
        return httpx.Response(200 if tries > 7 else 502)

    balancer = Balancer(api, PORTS, "a-secret-of-the-bench", client=client(handler))
    balancer.retry_every = 0.01
    (update,) = await some_updates(api, 1)
    delivery = await asyncio.wait_for(balancer.post(update), 5)
    assert delivery.attempts == 8
    assert delivery.process == 1, "the round goes on where it was: 7001, 7002, 7003, …, 7002"


async def test_the_pump_posts_only_what_the_fake_produced_since_in_order() -> None:
    api = FakeBotApi(flood_limits=False)
    (before,) = await some_updates(api, 1)
    posted: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        posted.append(json.loads(request.content)["update_id"])
        return httpx.Response(200)

    balancer = Balancer(api, PORTS, "a-secret-of-the-bench", client=client(handler))
    pumping = asyncio.create_task(balancer.pump(idle=0.001))
    after = await some_updates(api, 3)
    await api.wait_until(lambda: len(posted) == 3, timeout=5)
    pumping.cancel()
    assert posted == [u["update_id"] for u in after]
    assert before["update_id"] not in posted


async def test_the_leader_is_who_says_so_by_readyz_or_by_metrics() -> None:
    def by_metrics(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/metrics":
            leads = 1 if request.url.port == 7003 else 0
            return httpx.Response(
                200, text=f"# TYPE cardroom_leader gauge\ncardroom_leader {leads}\n"
            )
        return httpx.Response(404)

    def by_readyz(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/readyz":
            role = "leader" if request.url.port == 7002 else "standby"
            return httpx.Response(200, json={"ready": True, "role": role, "database": True})
        return httpx.Response(404)

    def today(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404)  # no such routes

    assert await leader_of(client(by_metrics), PORTS) == 2
    assert await leader_of(client(by_readyz), PORTS) == 1
    assert await leader_of(client(today), PORTS) is None


def test_metrics_are_summed_over_their_labels() -> None:
    text = (
        "# TYPE cardroom_updates_handled counter\n"
        "cardroom_updates_handled_total 12.0\n"
        "# TYPE cardroom_updates_taken counter\n"
        'cardroom_updates_taken_total{via="webhook"} 5.0\n'
        'cardroom_updates_taken_total{via="polling"} 2.0\n'
    )
    measured = parse_metrics(text)
    assert measured["cardroom_updates_handled_total"] == 12
    assert measured["cardroom_updates_taken_total"] == 7


# -- panels -----------------------------------------------------------------------------------


async def panel(api: FakeBotApi, user: FakeUser, *data: str, text: str = "Your hand") -> int:
    """The bot sends the user a message with one button per ``data``; its id."""
    keyboard = [[{"text": f"b{n}", "callback_data": d} for n, d in enumerate(data)]]
    status, body = await api.handle(
        "sendMessage",
        {"chat_id": user.id, "text": text, "reply_markup": {"inline_keyboard": keyboard}},
    )
    assert status == 200, body
    return int(body["result"]["message_id"])


async def test_live_panels_are_the_messages_with_armed_buttons_of_that_game() -> None:
    api = FakeBotApi(flood_limits=False)
    anna = api.add_user("Anna")
    await panel(api, anna, "A:5:3:p7s", "A:5:3:d")
    await panel(api, anna, "A:6:9:d")  # another game
    await panel(api, anna, "R:5")  # over: a rematch is no move
    joker = await panel(api, anna, "U:5:4:joker", "A:5:4:d")
    waiting = await panel(api, anna, "U:5:5:joker")
    status, _ = await api.handle(
        "editMessageReplyMarkup", {"chat_id": anna.id, "message_id": waiting}
    )
    assert status == 200  # its buttons taken off: nothing to press
    found = live_panels(api, anna, 5)
    assert [(p.version, len(p.actions), len(p.screens)) for p in found] == [(3, 2, 0), (4, 1, 1)]
    assert found[1].message_id == joker


async def test_the_watch_counts_each_time_a_player_has_two_live_panels_for_long() -> None:
    api = FakeBotApi(flood_limits=False)
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    watch = PanelWatch(api, grace=1.0)
    watch.follow([ScriptedPlayer(api, anna, 1, 5), ScriptedPlayer(api, boris, 2, 5)])
    await panel(api, anna, "A:5:3:d")
    await panel(api, boris, "A:5:3:d")
    watch.sample(0.0)
    assert watch.most == 0, "one live panel each"

    second = await panel(api, anna, "A:5:7:d")
    watch.sample(0.2)
    watch.sample(1.0)
    assert watch.most == 0, "a ping's new copy and the old one's deletion a moment apart"
    watch.sample(1.3)
    watch.sample(2.0)
    assert dict(watch.episodes) == {anna.id: 1}, "counted once, however long it lasts"
    await api.handle("deleteMessage", {"chat_id": anna.id, "message_id": second})
    watch.sample(2.5)
    await panel(api, anna, "A:5:8:d")
    watch.sample(3.0)
    watch.sample(4.5)
    assert dict(watch.episodes) == {anna.id: 2}
    assert watch.most == 2
    assert watch.longest == pytest.approx(1.8), "from 0.2 to 2.0"
    await panel(api, boris, "A:6:1:d")  # his other game's panel is no second panel of game 5
    watch.sample(9.0)
    watch.sample(12.0)
    assert watch.episodes[boris.id] == 0


# -- scripted players ------------------------------------------------------------------------


@pytest.fixture
def quick_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Players who press at once and are never slow."""
    monkeypatch.setattr(workers_players, "REACTION", (0.0, 0.0))
    monkeypatch.setattr(workers_players, "SLOW_SHARE", 0.0)


async def presses_of(player: ScriptedPlayer, count: int) -> list[Press]:
    tempo = Tempo()
    playing = asyncio.create_task(player.play(tempo, look_every=0.005))
    try:
        await pressed(player, count)
        await asyncio.sleep(0.05)
    finally:
        tempo.over = True
        playing.cancel()
    return player.presses


async def test_a_player_presses_his_bottom_panel_and_goes_up_only_when_refused(
    quick_hands: None,
) -> None:
    api = FakeBotApi(flood_limits=False)
    anna = api.add_user("Anna")
    upper = await panel(api, anna, "A:5:3:d")
    lower = await panel(api, anna, "A:5:2:d")  # a stale copy at the bottom
    player = ScriptedPlayer(api, anna, seed=1, game_id=5)
    (first,) = await presses_of(player, 1)
    assert (first.callback.message.message_id, first.version, first.code) == (lower, 2, "d")
    assert player.decision() is None, "pressed, answered by nobody yet: he waits"

    status, _ = await api.handle(
        "answerCallbackQuery",
        {"callback_query_id": first.callback.id, "text": "That button is out of date"},
    )
    assert status == 200
    decided = player.decision()
    assert decided is not None and decided.message_id == upper


async def pressed(player: ScriptedPlayer, count: int) -> None:
    await player.api.wait_until(lambda: len(player.presses) >= count, timeout=5)


async def decisions(api: FakeBotApi, name: str, seed: int, rounds: int = 5) -> list[str | None]:
    """What a player with ``seed`` presses on ``rounds`` decisions of six actions each, a new
    panel each time."""
    player = ScriptedPlayer(api, api.add_user(name), seed=seed, game_id=5)
    tempo = Tempo()
    playing = asyncio.create_task(player.play(tempo, look_every=0.005))
    try:
        for version in range(rounds):
            await panel(api, player.user, *(f"A:5:{version}:c{n}" for n in range(6)))
            await pressed(player, version + 1)
    finally:
        tempo.over = True
        playing.cancel()
    assert [press.version for press in player.presses] == list(range(rounds))
    return [press.code for press in player.presses]


async def test_the_same_seed_makes_the_same_decisions(quick_hands: None) -> None:
    api = FakeBotApi(flood_limits=False)
    anna = await decisions(api, "Anna", seed=7)
    assert await decisions(api, "Anna in the next scene", seed=7) == anna
    assert await decisions(api, "Boris", seed=8) != anna


# -- what became of a press, and the figures ---------------------------------------------------


class Actions:
    """The ``actions`` table as :func:`fate` asks it: whether a press's move is in it."""

    def __init__(self, applied: bool) -> None:
        self.applied = applied

    async def fetchval(self, *_args: object) -> int:
        return int(self.applied)


async def test_a_press_is_lost_when_it_got_a_200_but_no_answer_and_no_move() -> None:
    api = FakeBotApi(flood_limits=False)
    anna = api.add_user("Anna")
    message = await panel(api, anna, "A:5:3:d")
    callback = await api.press_data(anna, anna, message, "A:5:3:d")
    press = Press(callback, anna, 5, 3, "d", 0.0)
    balancer = Balancer(
        api, PORTS, "a-secret-of-the-bench", client=client(lambda r: httpx.Response(200))
    )
    assert await fate(Actions(False), balancer, press) == "unposted"
    await balancer.post(api.update_log[-1])
    assert await fate(Actions(False), balancer, press) == "lost"
    assert await fate(Actions(True), balancer, press) == "applied"
    await api.handle("answerCallbackQuery", {"callback_query_id": callback.id})
    assert await fate(Actions(False), balancer, press) == "answered"


def test_the_figures_compare_three_processes_with_one(tmp_path: Path) -> None:
    bench = WorkersBench(tmp_path, "postgresql+asyncpg://nobody@127.0.0.1/none", FULL)
    api = FakeBotApi(flood_limits=False)
    one = Scene(1, PanelWatch(api), moves=40, presses=40, too_many=0)
    two = Scene(2, PanelWatch(api), moves=30, presses=36, too_many=4, lost=1)
    three = Scene(3, PanelWatch(api), moves=20, presses=31, too_many=9, failover=1.5)
    two.watch.episodes.update({7: 3, 8: 1})
    three.watch.episodes.update({7: 2, 9: 2})
    three.killed_fates = {0.003: "lost", 0.02: "answered"}
    bench.scenes = [one, two, three]
    bench.stops = [0.2, 7.5, 0.4]
    bench.stop_mid_run = 7.5
    figures = {f.key: f for f in bench._figures()}
    assert figures["workers_moves_ratio"].value == 0.5
    assert figures["workers_429"].value == 13
    assert figures["workers_duplicate_live_panels"].value == 3, "one player's 3 times, with 2"
    assert figures["workers_lost_presses"].value == 1
    assert "3 ms: lost" in figures["workers_lost_presses"].what
    assert figures["failover_s"].value == 1.5
    assert figures["sigterm_stop_s"].value == 7.5
    assert set(figures) == set(TARGETS)
    assert TARGETS["workers_moves_ratio"] == Target(0.98, at_most=False)
