"""Davay-ka!'s Mini App through the real bot: sockets signed by Telegram, presses judged as
button presses, every new state pushed to both pages at once (issue #30)."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import json
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.httpserver import HTTPServer
from tornado.web import Application
from tornado.websocket import WebSocketClientConnection, websocket_connect

from bot.services.types import StorageRefused
from bot.settings import TELEGRAM_WEB_APP_SCRIPT
from bot.telegram.miniapp.auth import secret_key
from bot.telegram.miniapp.server import MAX_FRAME
from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_davayka_game import start_game
from tests.fakes import FakeBotApi, FakeUser


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def signed(
    token: str,
    user: FakeUser,
    *,
    age: float = 0.0,
    start_param: str | None = None,
    language: str | None = None,
    **changes: str,
) -> str:
    """``initData`` as Telegram signs it for ``user`` (``start_param``: opened by a direct
    link's ``startapp``; ``changes``: fields changed after signing, as a forger would)."""
    person: dict[str, Any] = {"id": user.id, "first_name": user.first_name}
    if language is not None:
        person["language_code"] = language
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(person),
        "auth_date": str(int(time.time() - age)),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    fields["hash"] = hmac.new(secret_key(token), check.encode(), hashlib.sha256).hexdigest()
    fields.update(changes)
    return urlencode(fields)


class Page:
    """One Mini App page's socket: what it was sent, and what it sends."""

    def __init__(self, connection: WebSocketClientConnection) -> None:
        self.connection = connection
        self.frames: list[dict[str, Any]] = []
        self.closed = False
        self._reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            message = await self.connection.read_message()
            if message is None:
                self.closed = True
                return
            self.frames.append(orjson.loads(message))

    async def send(self, frame: dict[str, Any] | bytes | str) -> None:
        data = frame if isinstance(frame, bytes | str) else orjson.dumps(frame).decode()
        await self.connection.write_message(data, binary=isinstance(data, bytes))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["t"] == kind]

    @property
    def view(self) -> dict[str, Any]:
        return self.of("state")[-1]["view"]

    async def until(self, predicate: Any, seconds: float = 5.0) -> None:
        deadline = time.monotonic() + seconds
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"not met; frames: {self.frames[-3:]}")
            await asyncio.sleep(0.01)

    def close(self) -> None:
        self.connection.close()
        self._reading.cancel()


@asynccontextmanager
async def serving(
    tmp_path: Path, *, stand_in: bool = False, short_name: str | None = "table"
) -> AsyncIterator[tuple[Harness, str]]:
    """The bot with its Mini App on a loopback port (``stand_in``: the page uses the
    sandbox's stand-in for Telegram's script, for a browser with no Telegram around it;
    ``short_name``: the app's, for the groups' direct links)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    script = f"{base}/app/static/web-app-stand-in.js" if stand_in else TELEGRAM_WEB_APP_SCRIPT
    harness = Harness(
        FakeBotApi(flood_limits=False),
        sqlite_url(tmp_path),
        webapp_url=base,
        webapp_script=script,
        webapp_short_name=short_name,
    )
    app = await harness.start()
    miniapp = app.bot_data["cardroom"].miniapp
    server = HTTPServer(Application(miniapp.routes(), websocket_max_message_size=MAX_FRAME))
    server.listen(port, "127.0.0.1")
    try:
        yield harness, base
    finally:
        server.stop()
        await server.close_all_connections()
        await harness.stop()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Harness, str]]:
    async with serving(tmp_path) as running:
        yield running


async def open_page(base: str, origin: str | None = None) -> Page:
    request = HTTPRequest(
        base.replace("http", "ws") + "/app/socket", headers={"Origin": origin or base}
    )
    return Page(await websocket_connect(request))


async def hello(h: Harness, base: str, user: FakeUser, game_id: int, **signing: Any) -> Page:
    page = await open_page(base)
    await page.send(
        {"t": "hello", "init_data": signed(h.api.token, user, **signing), "game": game_id}
    )
    return page


async def a_game(h: Harness) -> tuple[int, FakeUser, FakeUser]:
    # Both have started the bot: their Join is not held up by a greeting.
    anna = h.api.add_user("Anna", started=True)
    boris = h.api.add_user("Boris", started=True)
    group = h.api.add_group("Card club", admins=[anna], members=[boris])
    game_id = await start_game(h, group, anna, boris)
    return game_id, anna, boris


async def test_two_pages_see_each_press_at_once_and_the_panel_offers_the_app(
    served: tuple[Harness, str],
) -> None:
    h, base = served
    game_id, anna, boris = await a_game(h)
    panel = [m for m in h.api.bot_messages(anna) if m.reply_markup][-1]
    buttons = [b for row in panel.reply_markup["inline_keyboard"] for b in row]
    assert any(
        b.get("web_app", {}).get("url") == f"{base}/app/table?game={game_id}" for b in buttons
    )

    pages = [await hello(h, base, anna, game_id), await hello(h, base, boris, game_id)]
    for page, seat in zip(pages, (0, 1), strict=True):
        await page.until(lambda p=page: bool(p.of("state")))
        assert page.view["seat"] == seat
    if pages[0].view["phase"] == "ready":
        await pages[0].send({"t": "act", "code": "r", "seq": 1})
        await pages[1].send({"t": "act", "code": "r", "seq": 1})
        await pages[0].until(lambda: pages[0].view["phase"] == "play")
    # Whoever has a move makes it (a deal may open with none: both call «Давай-ка!»).
    mover, seq = None, 10
    for _ in range(8):
        await pages[0].until(lambda: pages[0].view["phase"] in ("play", "stall"))
        mover = next((page for page in pages if any(page.view["plays"].values())), None)
        if mover is not None:
            break
        before = pages[0].view["version"]
        for page in pages:
            seq += 1
            await page.send({"t": "act", "code": "f", "seq": seq})
        await pages[0].until(lambda b=before: pages[0].view["version"] > b)
    assert mover is not None, "eight flips and still no move"
    other = pages[1 - pages.index(mover)]
    view = mover.view
    before = view["version"]
    pile = next(int(p) for p, onto in view["plays"].items() if onto)
    await mover.send({"t": "act", "code": f"p{pile}x{view['round']}", "seq": 2})
    for page in pages:
        await page.until(lambda p=page: p.view["version"] > before)
    await mover.until(lambda: any(a["seq"] == 2 for a in mover.of("answer")))
    answer = next(a for a in mover.of("answer") if a["seq"] == 2)
    assert answer["ok"] is True
    moved = other.view["last_move"]
    assert moved is not None and moved["seat"] == view["seat"] and moved["pile"] == pile

    # A press from another round (an old page): "too late", and nothing changes.
    version = mover.view["version"]
    other_round = 99 if view["round"] != 99 else 98
    await mover.send({"t": "act", "code": f"p{pile}x{other_round}", "seq": 3})
    await mover.until(lambda: any(a.get("seq") == 3 for a in mover.frames))
    refused = next(f for f in mover.frames if f.get("seq") == 3)
    assert refused.get("ok") is False and refused.get("text")
    assert mover.view["version"] == version
    for page in pages:
        page.close()


async def test_the_view_holds_no_face_down_card(served: tuple[Harness, str]) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    page = await hello(h, base, anna, game_id)
    await page.until(lambda: bool(page.of("state")))
    view = page.view
    shown = {p["top"] for row in view["rows"] for p in row} | {c["top"] for c in view["centres"]}
    text = json.dumps(view)
    codes = {
        text[i + 1 : i + 3] for i in range(len(text) - 3) if text[i] == '"' and text[i + 3] == '"'
    }
    cards = {c for c in codes if c[0] in "23456789TJQKA" and c[1] in "shdc"}
    assert cards <= shown, "only face-up cards are named"
    page.close()


@pytest.mark.parametrize(
    ("signing", "code"),
    [
        ({"age": 2 * 3600}, "stale"),
        ({"hash": "0" * 64}, "forged"),
        ({"auth_date": "1"}, "forged"),  # changed after signing
    ],
)
async def test_a_forged_or_stale_sign_in_is_refused(
    served: tuple[Harness, str], signing: dict[str, Any], code: str
) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    page = await hello(h, base, anna, game_id, **signing)
    await page.until(lambda: page.closed)
    assert [f["code"] for f in page.of("error")] == [code]
    assert not page.of("state")


async def test_only_a_seated_player_is_let_in_and_only_from_the_page(
    served: tuple[Harness, str],
) -> None:
    h, base = served
    game_id, _, _ = await a_game(h)
    stranger = h.api.add_user("Cyril")
    page = await hello(h, base, stranger, game_id)
    await page.until(lambda: page.closed)
    assert [f["code"] for f in page.of("error")] == ["not_seated"]
    with pytest.raises(HTTPClientError) as refused:
        await open_page(base, origin="https://evil.example")
    assert refused.value.code == 403


async def test_bad_frames_get_a_short_error_and_change_nothing(
    served: tuple[Harness, str],
) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    page = await open_page(base)
    await page.send({"t": "act", "code": "r", "seq": 1})  # before signing in
    await page.send("not json")
    await page.send(b"\x00\x01")
    await page.until(lambda: len(page.of("error")) >= 3)
    assert [f["code"] for f in page.of("error")] == ["hello_first", "malformed", "malformed"]
    await page.send({"t": "hello", "init_data": signed(h.api.token, anna), "game": game_id})
    await page.until(lambda: bool(page.of("state")))
    version = page.view["version"]
    await page.send({"t": "act", "code": "x" * 40, "seq": 9})
    await page.send({"t": "act", "code": "zz", "seq": 10})
    await page.until(lambda: {f.get("seq") for f in page.frames} >= {9, 10})
    assert all(f.get("ok") is not True for f in page.frames if f.get("seq") in (9, 10))
    await page.send("x" * 10_000)  # over the frame cap: the socket is closed
    await page.until(lambda: page.closed)
    page2 = await hello(h, base, anna, game_id)
    await page2.until(lambda: bool(page2.of("state")))
    assert page2.view["version"] == version
    page2.close()


async def test_the_page_is_served_with_telegrams_script_and_a_strict_policy(
    served: tuple[Harness, str],
) -> None:
    _, base = served
    async with httpx.AsyncClient() as client:
        page = await client.get(f"{base}/app/table?game=1")
        script = await client.get(f"{base}/app/static/shell.js")
    assert page.status_code == 200 and script.status_code == 200
    assert '<script src="https://telegram.org/js/telegram-web-app.js">' in page.text
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self' https://telegram.org" in policy
    assert "connect-src 'self'" in policy


async def test_a_player_is_capped_in_presses_however_many_pages_he_opens(
    served: tuple[Harness, str],
) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    pages = [await hello(h, base, anna, game_id) for _ in range(2)]
    for page in pages:
        await page.until(lambda p=page: bool(p.of("state")))
    for seq in range(15):
        for page in pages:
            await page.send({"t": "act", "code": "r", "seq": seq})
    await asyncio.sleep(0.5)
    capped = [f for page in pages for f in page.of("error") if f["code"] == "too_fast"]
    assert len(capped) >= 30 - 12 - 8, "a burst of 12, then about 8 a second, for both pages"
    for page in pages:
        page.close()


async def test_a_page_is_never_sent_an_older_state_than_it_has(
    served: tuple[Harness, str],
) -> None:
    """With several processes a state may be heard late, after a newer one."""
    h, base = served
    game_id, anna, _ = await a_game(h)
    page = await hello(h, base, anna, game_id)
    await page.until(lambda: bool(page.of("state")))
    assert h.app is not None
    room = h.app.bot_data["cardroom"]
    now = await room.play.snapshot(game_id)
    room.miniapp.show_here(dataclasses.replace(now, version=now.version - 1))
    room.miniapp.show_here(now)
    await asyncio.sleep(0.2)
    assert [f["view"]["version"] for f in page.of("state")] == [now.version, now.version]
    page.close()


async def test_a_press_the_database_cannot_save_is_answered_in_words(
    served: tuple[Harness, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    page = await hello(h, base, anna, game_id)
    await page.until(lambda: bool(page.of("state")))
    assert h.app is not None
    play = h.app.bot_data["cardroom"].play

    async def refused(*_: object) -> None:
        raise StorageRefused("the disk is full")

    monkeypatch.setattr(play, "act", refused)
    await page.send({"t": "act", "code": "r", "seq": 7})
    await page.until(lambda: any(a["seq"] == 7 for a in page.of("answer")))
    answer = next(a for a in page.of("answer") if a["seq"] == 7)
    assert answer["ok"] is False and "cannot save" in answer["text"], answer
    page.close()
