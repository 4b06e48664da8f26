"""Davay-ka! on the one page for every game (issue #37), in a real browser against the real bot.

As ``tests/e2e/test_miniapp_browser.py`` does (the bot in-process, the page's Telegram script
the sandbox's stand-in, Debian's Chromium): a game played to its end through the pages, its
result and rating changes shown, and both pages following the rematch to the next game; a
member of the group who does not play watches it live from the group's direct link and is
never sent a hidden card; and at 390 px, with Russian and Croatian words, nothing is cut off or
overlapping and the card letters are the reader's. Without Playwright or Chromium these skip.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.games.davayka import make_state
from bot.games.davayka.state import DavaykaState
from bot.i18n import translator
from bot.services.types import REMATCHED
from bot.telegram.miniapp.views import faces
from tests.browser import (
    browser_fixture,  # noqa: F401  (the fixture)
    expect,
    open_page,
    seat_page,
)
from tests.e2e.harness import Harness
from tests.e2e.test_davayka_game import cards, game_state
from tests.e2e.test_miniapp_browser import (
    FLIP,
    READY,
    press,
    stall_with_every_height,
    table_fits,
)
from tests.fakes import FakeChat, FakeUser
from tests.miniapp.pages import (
    assert_watched_blind,
    served_fixture,  # noqa: F401  (the fixture)
    table_in_group,
    watch_url,
    write_state,
)
from tests.miniapp.trust import card_codes


async def a_group_game(h: Harness) -> tuple[int, FakeChat, FakeUser, FakeUser, FakeUser]:
    """Anna and Boris play Davay-ka! in a group where Cyril is a member who does not."""
    game_id, (anna, boris), cyril, group = await table_in_group(h, "davayka", onlooker="Cyril")
    return game_id, group, anna, boris, cyril


async def speak(h: Harness, user: FakeUser, language: str) -> None:
    """The player picks his language with /language in his private chat."""
    count = len(h.api.bot_messages(user))
    await h.api.send_text(user, None, "/language")
    await h.api.wait_until(lambda: len(h.api.bot_messages(user)) > count)
    await h.settle()
    picker = h.api.bot_messages(user)[-1]
    await h.api.press(user, picker, translator(language)("language.name"))
    await h.settle()


def one_move_game(now: float) -> DavaykaState:
    """A round waiting for Ready: once both are ready Anna's 5♦ and Boris's 9♠ start the
    centre piles, and Anna's one row card, 6♣, fits the 5♦: one tap and she has no cards."""
    return make_state(
        rows=[[cards("6c")], [cards("Kc")]],
        stocks=[cards("5d"), cards("9s Qd")],
        phase="ready",
        opened=now,
        idle_since=(now, now),
        last_press=(now, now),
        countdown=60.0,  # the round starts by the players' Ready, not by the clock
    )


def hidden(state: DavaykaState) -> set[str]:
    """The face-down cards: under every row pile's top, and every stock."""
    down = [card for row in state.rows for pile in row for card in pile[:-1]]
    down += [card for stock in state.stocks for card in stock]
    return {card.code for card in down}


# -- the tests -------------------------------------------------------------------------------


async def test_a_game_played_on_the_pages_shows_its_result_and_both_follow_the_rematch(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, group, anna, boris, _ = await a_group_game(h)
    await write_state(h, game_id, one_move_game(h.clock()))
    anna_page = await seat_page(h, base, browser, anna, game_id)
    boris_page = await seat_page(h, base, browser, boris, game_id)
    for player in (anna_page, boris_page):
        await expect(player.page.locator("#hand .dk-pile")).to_have_count(4)
        # The other player's row carries his name; the counts stand under both names.
        other = "Boris" if player is anna_page else "Anna"
        await expect(player.page.locator(".dk-them .dk-name")).to_have_text(other)
        await expect(player.page.locator(".player .facts")).to_have_count(2)
        assert await press(player, READY)

    # Anna's 6♣ fits the 5♦ only: one tap plays it there, and she is out of cards.
    six = anna_page.page.locator("#hand .dk-pile[data-top='6c']")
    await expect(six).to_have_class(re.compile(r"\bfits\b"))
    await six.tap()
    for player, word in ((anna_page, "won"), (boris_page, "lost")):
        result = player.page.locator("#result")
        await expect(result).to_have_attribute("data-result", word)
        # The result names both players with their ratings' change.
        await expect(result.locator(".places li")).to_have_count(2)
        await expect(result.locator(".places")).to_have_text(re.compile(r"[+−-]\d+"))
        await expect(player.page.locator("#actions button")).to_have_count(0)
    _, state = await game_state(h, game_id)
    assert state.phase == "over" and state.winner == 0

    # A rematch, from the group's table: both pages follow to the next game — Anna's at the
    # tap of Next game, Boris's by itself, a moment after the result.
    await h.api.press(anna, h.table(group), "🔄 Rematch")
    await h.settle()
    await h.api.press(boris, h.table(group), "✋ Join")
    await h.settle()
    follow = anna_page.page.locator("#result .action.primary")
    await expect(follow).to_be_visible()
    await follow.click()
    assert h.app is not None
    finished = await h.app.bot_data["cardroom"].play.snapshot(game_id)
    rematch = finished.options[REMATCHED]
    for player in (anna_page, boris_page):
        await expect(player.page.locator("#result")).to_be_hidden(timeout=10_000)
        await expect(player.page.locator("#hand .dk-pile")).to_have_count(4)
        await expect(player.page.locator(".dk-table")).to_have_attribute("data-phase", "ready")
        await expect(player.page.locator(READY)).to_be_visible()
        games = {view["game"] for view in player.views}
        assert games == {game_id, rematch} and rematch != game_id, games
        assert player.view["game"] == rematch
        assert player.view["seat"] == (0 if player is anna_page else 1)
        assert player.errors == []


async def test_a_member_watches_live_from_the_groups_link_and_sees_no_hidden_card(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, _, anna, boris, cyril = await a_group_game(h)
    await write_state(h, game_id, one_move_game(h.clock()))
    watcher = await open_page(browser, watch_url(h, base, cyril, game_id), "Cyril")
    page = watcher.page
    await expect(page.locator("#app")).to_have_attribute("data-reader", "onlooker")
    await expect(page.locator("#title")).to_contain_text("Watching")
    # Both rows, each under its player's name; nothing to press.
    await expect(page.locator(".dk-them .dk-name")).to_have_text("Anna")
    await expect(page.locator(".dk-me .dk-name")).to_have_text("Boris")
    await expect(page.locator("#hand .dk-pile")).to_have_count(4)
    assert await page.locator("button").count() == 0
    await page.screenshot(path="/tmp/davayka-onlooker-ready.png")

    states: dict[int, set[str]] = {}
    version, state = await game_state(h, game_id)
    states[version] = hidden(state)
    players = [
        await seat_page(h, base, browser, anna, game_id),
        await seat_page(h, base, browser, boris, game_id),
    ]
    for player in players:
        await expect(player.page.locator(READY)).to_be_visible()
        assert await press(player, READY)
        version, state = await game_state(h, game_id)
        states[version] = hidden(state)
    await expect(page.locator(".dk-table")).to_have_attribute("data-phase", "play")
    await expect(page.locator(".dk-centre-pile[data-top='5d']")).to_be_visible()
    await page.screenshot(path="/tmp/davayka-onlooker-play.png")
    await players[0].page.locator("#hand .dk-pile[data-top='6c']").tap()
    await expect(page.locator("#result")).to_be_visible()
    await expect(page.locator("#result .outcome")).to_have_text("Result")
    version, state = await game_state(h, game_id)
    states[version] = hidden(state)

    assert len(watcher.views) >= 4, "the deal, two Ready, the move"
    # Only face-up cards are named: the tops of the rows' and the centre's piles.
    assert_watched_blind(
        watcher.views,
        lambda view: (
            {p["top"] for row in view.get("rows", []) for p in row}
            | {c["top"] for c in view.get("centres", [])}
        ),
    )
    checked = 0
    for view in watcher.views:
        if view["version"] in states:
            assert not card_codes(view) & states[view["version"]]
            checked += 1
    assert checked >= 3, "frames of known states were checked against them"
    assert watcher.errors == []


@pytest.mark.parametrize("languages", [("ru", "hr")])
async def test_at_390_px_in_russian_and_croatian_nothing_is_cut_or_overlaps(
    served: tuple[Harness, str], browser: Any, languages: tuple[str, str]
) -> None:
    h, base = served
    game_id, _, anna, boris, _ = await a_group_game(h)
    for user, language in zip((anna, boris), languages, strict=True):
        await speak(h, user, language)
    await write_state(h, game_id, one_move_game(h.clock()))
    pages = [
        await seat_page(h, base, browser, anna, game_id, language=languages[0]),
        await seat_page(h, base, browser, boris, game_id, language=languages[1]),
    ]
    for player, language in zip(pages, languages, strict=True):
        ready = translator(language)("app.ready")
        await expect(player.page.locator(READY)).to_have_text(ready)
        names = await table_fits(player)
        assert names == {"ready", "pile 0", "pile 1", "pile 2", "pile 3", "centre 0", "centre 1"}

    await write_state(h, game_id, stall_with_every_height(h.clock()))
    for player, language in zip(pages, languages, strict=True):
        t = translator(language)
        await expect(player.page.locator(FLIP)).to_have_text(t("app.flip"))
        await expect(player.page.locator("#status")).to_contain_text(t("app.stall"))
        names = await table_fits(player)
        assert "flip" in names and len(names) == 7, names
        # Card letters as the reader's chat writes them: his king is his language's.
        king = player.page.locator("#hand .dk-pile[data-pile='3'] .card .rank")
        top = "K" if player is pages[0] else "Q"
        await expect(king).to_have_text(faces(t)[top])
        await player.page.screenshot(path=f"/tmp/davayka-390-stall-{language}.png")
    assert faces(translator("ru"))["K"] != "K", "the Russian king is not an English K"
    for player in pages:
        assert player.errors == []
