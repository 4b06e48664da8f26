"""The Mini App's sockets are capped (issue #34): in all, per address while not signed in, and
per player once signed in — each socket is an open file, and a process out of files can reach
neither Telegram nor its database.

Through the real bot (PTB, services, SQLite, the fake Bot API) with its Mini App on a loopback
port, as in ``tests/e2e/test_miniapp.py``; the caps are set low on the running Mini App.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from bot.settings import Settings
from bot.telegram.metrics import REGISTRY
from bot.telegram.miniapp import server
from bot.telegram.miniapp.server import MiniApp, SocketCaps
from tests.e2e.harness import Harness
from tests.e2e.test_davayka_game import start_game
from tests.e2e.test_miniapp import Page, a_game, hello, open_page, serving, signed
from tests.fakes import FakeUser

SERVER_LOG = "bot.telegram.miniapp.server"
#: The close codes the page reads: 4000 "try again later", 4001 "do not come back".
RETRY, FINAL = 4000, 4001
ELSEWHERE = "You opened this table in another window: it is closed here."


def miniapp_of(h: Harness) -> MiniApp:
    assert h.app is not None
    miniapp = h.app.bot_data["cardroom"].miniapp
    assert isinstance(miniapp, MiniApp)
    return miniapp


def capped(cap: str) -> float:
    return REGISTRY.get_sample_value("cardroom_app_sockets_capped_total", {"cap": cap}) or 0.0


async def until(predicate: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("not met")
        await asyncio.sleep(0.01)


async def refused(page: Page, code: str, close_code: int) -> None:
    """``page`` was sent one error, ``code`` with words, and closed with ``close_code``."""
    await page.until(lambda: page.closed)
    errors = page.of("error")
    assert [e["code"] for e in errors] == [code], page.frames
    assert errors[0]["text"] and errors[0]["text"] != f"app.error.{code}"
    assert page.connection.close_code == close_code
    assert not page.of("state")


async def live(page: Page) -> None:
    await page.until(lambda: bool(page.of("state")))


async def test_past_the_process_cap_a_socket_is_refused_in_words_and_may_come_back_later(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as (h, base):
        game_id, anna, _ = await a_game(h)
        miniapp = miniapp_of(h)
        miniapp.caps = SocketCaps(total=3, per_player=10, unsigned_per_address=100)
        before = capped("total")
        # Open before they sign in, and counted from then on.
        pages = [await open_page(base) for _ in range(3)]
        await until(lambda: miniapp.open_sockets == 3)
        caplog.set_level(logging.INFO, SERVER_LOG)
        turned_away = [await open_page(base) for _ in range(20)]
        for page in turned_away:
            await refused(page, "busy", RETRY)
        assert capped("total") == before + 20
        said = [r for r in caplog.records if r.name == SERVER_LOG]
        assert len(said) == 1, "once a minute, with a count: not a line per socket"
        assert said[0].levelno == logging.WARNING and "WEBAPP_MAX_SOCKETS" in said[0].message

        # A place freed is a place taken: the page that tries again gets in.
        pages[0].close()
        await until(lambda: miniapp.open_sockets == 2)
        again = await hello(h, base, anna, game_id)
        await live(again)
        assert miniapp.open_sockets == 3
        for page in [*pages[1:], again]:
            page.close()
        await until(lambda: miniapp.open_sockets == 0)


async def test_a_refused_socket_that_never_closes_is_dropped_within_about_a_second(
    tmp_path: Path,
) -> None:
    """A flood that ignores the close must not keep the files it opened (tornado waits 5 s)."""
    async with serving(tmp_path) as (h, base):
        miniapp = miniapp_of(h)
        miniapp.caps = SocketCaps(total=1, per_player=10, unsigned_per_address=100)
        page = await open_page(base)
        await until(lambda: miniapp.open_sockets == 1)
        host, port = base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            (
                f"GET /app/socket HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {base}\r\n\r\n"
            ).encode()
        )
        started = time.monotonic()
        heard = await asyncio.wait_for(reader.read(), 5)  # all it is sent, until it is dropped
        took = time.monotonic() - started
        writer.close()
        assert heard.startswith(b"HTTP/1.1 101") and b'"busy"' in heard
        assert 0.8 <= took < 2.5
        page.close()


async def test_sockets_not_signed_in_are_capped_per_address_and_signing_in_frees_a_place(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as (h, base):
        game_id, anna, boris = await a_game(h)
        miniapp = miniapp_of(h)
        miniapp.caps = SocketCaps(total=100, per_player=10, unsigned_per_address=2)
        before = capped("address")
        first, second = await open_page(base), await open_page(base)
        await until(lambda: miniapp.open_sockets == 2)
        third = await open_page(base)
        await refused(third, "busy", RETRY)
        assert capped("address") == before + 1

        # Signed in, a socket counts for its player, not for its address.
        await first.send({"t": "hello", "init_data": signed_for(h, anna), "game": game_id})
        await live(first)
        fourth = await hello(h, base, boris, game_id)
        await live(fourth)
        assert miniapp.open_sockets == 3
        for page in (first, second, fourth):
            page.close()
        await until(lambda: miniapp.open_sockets == 0)


async def test_past_his_cap_a_player_keeps_his_newest_pages_and_the_oldest_is_told_why(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as (h, base):
        game_id, anna, boris = await a_game(h)
        # Anna plays a second game, in another group: her cap counts across games.
        cyril = h.api.add_user("Cyril", started=True)
        other_group = h.api.add_group("Chess club", admins=[anna], members=[cyril])
        await start_game(h, other_group, anna, cyril)
        assert h.app is not None
        other_game = max(game for game, _ in await h.app.bot_data["cardroom"].play.open_ids())
        assert other_game != game_id
        miniapp = miniapp_of(h)
        miniapp.caps = SocketCaps(total=100, per_player=2, unsigned_per_address=100)
        before = capped("player")
        boris_page = await hello(h, base, boris, game_id)
        oldest = await hello(h, base, anna, game_id)
        await live(oldest)
        newer = await hello(h, base, anna, other_game)
        await live(newer)
        newest = await hello(h, base, anna, game_id)
        await live(newest)

        # Told why, and closed as final: the page must not come back and push the new one out.
        await oldest.until(lambda: oldest.closed)
        assert [e["code"] for e in oldest.of("error")] == ["elsewhere"]
        assert oldest.of("error")[0]["text"] == ELSEWHERE
        assert oldest.connection.close_code == FINAL
        assert capped("player") == before + 1
        await until(lambda: miniapp.open_sockets == 3)

        # The pages kept still play, and Boris was never touched.
        assert not newer.closed and not newest.closed and not boris_page.closed
        await live(boris_page)
        version = newest.view["version"]
        await newest.send({"t": "act", "code": "r", "seq": 1})
        await newest.until(lambda: any(a.get("seq") == 1 for a in newest.of("answer")))
        await boris_page.until(lambda: boris_page.view["version"] > version)
        for page in (newer, newest, boris_page):
            page.close()
        await until(lambda: miniapp.open_sockets == 0)


async def test_a_page_closed_while_it_signs_in_pushes_none_of_its_players_pages_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sign-in that waits for the database may outlive its socket (its time to say hello
    ran out meanwhile): it must not count for the player then, nor close his live page."""
    async with serving(tmp_path) as (h, base):
        game_id, anna, _ = await a_game(h)
        miniapp = miniapp_of(h)
        miniapp.caps = SocketCaps(total=100, per_player=1, unsigned_per_address=100)
        playing = await hello(h, base, anna, game_id)
        await live(playing)

        reading, go_on = asyncio.Event(), asyncio.Event()
        read = miniapp.snapshot

        async def slow_snapshot(game: int) -> Any:
            reading.set()
            await go_on.wait()
            return await read(game)

        miniapp.snapshot = slow_snapshot
        monkeypatch.setattr(server, "HELLO_SECONDS", 0.2)
        late = await hello(h, base, anna, game_id)
        await asyncio.wait_for(reading.wait(), 5)
        await late.until(lambda: bool(late.of("error")))
        assert [e["code"] for e in late.of("error")] == ["hello_first"]
        go_on.set()  # the game read: the sign-in goes on, on a socket being closed
        await late.until(lambda: late.closed)
        miniapp.snapshot = read
        await until(lambda: miniapp.open_sockets == 1)
        await asyncio.sleep(0.1)
        assert not playing.closed and not playing.of("error")
        assert not late.of("state")
        playing.close()


async def test_the_settings_cap_the_running_mini_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBAPP_MAX_SOCKETS", "50")
    monkeypatch.setenv("WEBAPP_SOCKETS_PER_PLAYER", "2")
    monkeypatch.setenv("WEBAPP_UNSIGNED_SOCKETS_PER_ADDRESS", "4")
    async with serving(tmp_path) as (h, _):
        assert miniapp_of(h).caps == SocketCaps(total=50, per_player=2, unsigned_per_address=4)


def test_the_caps_default_to_the_settings_defaults_and_keep_half_the_files_free() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    caps = SocketCaps()
    assert (
        settings.webapp_max_sockets,
        settings.webapp_sockets_per_player,
        settings.webapp_unsigned_sockets_per_address,
    ) == (caps.total, caps.per_player, caps.unsigned_per_address)
    # 1,024 open files (a common soft limit): the sockets may take 512 of them.
    assert caps.within(1024) == SocketCaps(total=512)
    assert caps.within(1_048_576) == caps
    assert caps.within(-1) == caps  # no limit at all


def signed_for(h: Harness, user: FakeUser) -> str:
    return signed(h.api.token, user)
