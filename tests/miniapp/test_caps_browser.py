"""What a player sees when a cap closes his page (issue #34), in a real browser against the real
bot, as in ``tests/e2e/test_miniapp_browser.py``: the page pushed out by his newer one says so
and stays closed (were it to come back, it would push the new one out in turn); the page turned
away while the process is full says so, and gets in once a place is free. Without Playwright or
Chromium these tests skip.
"""

from __future__ import annotations

from typing import Any

from bot.telegram.metrics import REGISTRY
from bot.telegram.miniapp.server import MiniApp, SocketCaps
from tests.browser import (
    browser_fixture,  # noqa: F401  (the fixture)
    expect,
    seat_page,
)
from tests.e2e.harness import Harness
from tests.e2e.test_miniapp import a_game
from tests.e2e.test_miniapp_browser import live
from tests.miniapp.pages import served_fixture  # noqa: F401  (the fixture)

ELSEWHERE = "You opened this table in another window: it is closed here."
BUSY = "Too many tables are open right now: trying again in a moment."


def refused() -> float:
    return REGISTRY.get_sample_value("cardroom_app_sockets_capped_total", {"cap": "total"}) or 0.0


def miniapp_of(h: Harness) -> MiniApp:
    assert h.app is not None
    miniapp = h.app.bot_data["cardroom"].miniapp
    assert isinstance(miniapp, MiniApp)
    return miniapp


async def test_a_page_pushed_out_by_the_players_newer_one_says_so_and_stays_closed(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    miniapp = miniapp_of(h)
    miniapp.caps = SocketCaps(total=100, per_player=1, unsigned_per_address=100)
    old = await seat_page(h, base, browser, anna, game_id)
    await live(old)
    new = await seat_page(h, base, browser, anna, game_id)
    await live(new)
    notice = old.page.locator("#notice")
    await expect(notice).to_have_text(ELSEWHERE)
    await expect(notice).to_be_visible()
    await expect(old.page.locator("#app")).to_have_attribute("data-state", "error")
    await old.page.wait_for_timeout(1500)  # a page that tries again does so within 0.6 s
    assert miniapp.open_sockets == 1
    await expect(new.page.locator("#app")).to_have_attribute("data-state", "live")
    await expect(old.page.locator("#notice")).to_have_text(ELSEWHERE)
    assert not old.errors and not new.errors


async def test_a_page_turned_away_while_full_says_so_and_gets_in_once_a_place_is_free(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, anna, boris = await a_game(h)
    miniapp = miniapp_of(h)
    miniapp.caps = SocketCaps(total=1, per_player=10, unsigned_per_address=100)
    first = await seat_page(h, base, browser, anna, game_id)
    await live(first)
    before = refused()
    turned_away = await seat_page(h, base, browser, boris, game_id)
    await expect(turned_away.page.locator("#toast")).to_have_text(BUSY)
    await turned_away.page.wait_for_timeout(3000)
    await expect(turned_away.page.locator("#app")).not_to_have_attribute("data-state", "live")
    # It tries again after a pause that grows (0.5 s, 1 s, 2 s… up to 10 s): no hammering.
    assert 2 <= refused() - before <= 4
    await first.page.close()
    await expect(turned_away.page.locator("#app")).to_have_attribute(
        "data-state", "live", timeout=15_000
    )
    assert miniapp.open_sockets == 1
    assert not turned_away.errors
