"""Your Trumps' Mini App page in a real browser against the real bot (issue #37).

Two people choose their trumps and play a game to its end by tapping their pages only (a
short position written in after the deal: a lead, a beat, a second card, a take and the last
card); a member of the group who is not seated opens the group's link and watches it live,
and no frame his page receives names a card he may not know; and on a phone's 390 px, with
Russian and Croatian words, no control of real states is cut off or lies on another. Without
Playwright or Chromium these tests skip (``.ci/install-browser`` installs Chromium).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from bot.games.cards import Suit, parse_card
from bot.games.trumps import TrumpsState
from bot.games.trumps.state import BEAT_OR_TAKE, LEAD
from tests.browser import (
    Player,
    browser_fixture,  # noqa: F401  (the fixture)
    controls,
    controls_fit,
    expect,
    open_table,
)
from tests.e2e.harness import Harness
from tests.miniapp.pages import (
    assert_watched_blind,
    served_fixture,  # noqa: F401  (the fixture)
    table_in_group,
    write_state,
)
from tests.telegram.render.test_trumps import CARD_TEXT


async def open_live(
    h: Harness,
    base: str,
    browser: Any,
    names: tuple[str, str] = ("Anna", "Boris"),
    languages: tuple[str, ...] = (),
) -> tuple[int, list[Player]]:
    """A game of two ``names`` in a group Cyril is a member of (each speaking his language of
    ``languages``): its id, and both players' pages, once they show the bot's view, and
    Cyril's."""
    game_id, players, cyril, _ = await table_in_group(
        h, "trumps", names, "Cyril", languages=languages
    )
    *pages, watcher = await open_table(h, base, browser, game_id, players, cyril, languages)
    for player in pages:
        await expect(player.page.locator("#app")).to_have_attribute("data-state", "live")
    return game_id, [*pages, watcher]


def cards(text: str) -> tuple[Any, ...]:
    return tuple(parse_card(code) for code in text.split())


def short_game(now: float) -> TrumpsState:
    """Anna (♥) leads; Boris (♠) beats her 6♣ with 7♣ and lays 8♦ on top; Anna takes the
    three; Boris leads his last card, 9♦, and wins."""
    return TrumpsState.from_hands(
        (cards("7s Ah 6c"), cards("7c 8d 9d")),
        (Suit.HEARTS, Suit.SPADES),
        phase=LEAD,
        to_move=0,
        dealer=1,
        moves=20,
        opened=now,
        turn_seconds=60.0,
    )


async def test_two_pages_choose_trumps_and_play_to_the_end_while_the_group_watches(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    # Cyril opens the group's link: no ?game=, the game in start_param.
    game_id, (anna, boris, watcher) = await open_live(h, base, browser)
    pages = {"Anna": anna, "Boris": boris}
    await expect(watcher.page.locator("#app")).to_have_attribute("data-reader", "onlooker")

    # Trumps: the dealer's page offers all four suits, then the other's the three left.
    wanted = {"Anna": "h", "Boris": "s"}
    for _ in range(2):
        chooser = None
        for name, player in pages.items():
            if await player.page.locator(".suit-choice.legal").count():
                chooser = name
        assert chooser is not None
        legal = pages[chooser].page.locator(".suit-choice.legal")
        assert await legal.count() in (3, 4)
        await legal.and_(pages[chooser].page.locator(f"[data-suit='{wanted[chooser]}']")).tap()
        await expect(pages[chooser].page.locator(".suit-choice.legal")).to_have_count(0)
    for player in pages.values():
        await expect(player.page.locator("#hand .card")).to_have_count(18)
    await expect(watcher.page.locator(".player").first).to_contain_text("trumps ♥ · 18 cards")
    await expect(watcher.page.locator("#hand .card")).to_have_count(0)

    await write_state(h, game_id, short_game(h.clock()))
    ann, bor = pages["Anna"], pages["Boris"]
    await expect(ann.page.locator("#hand .card.legal")).to_have_count(3)
    await expect(ann.page.locator("#hand .card.own-trump")).to_have_count(1)

    # Anna leads 6♣; Boris's page offers only the 7♣ to beat it, and Take 1 card.
    await ann.page.locator("#hand [data-card='6c'].legal").tap()
    await expect(bor.page.locator("#hand .card.legal")).to_have_count(1)
    await expect(bor.page.locator(".action.take")).to_have_text("📥 Take 1 card")
    await expect(watcher.page.locator(".trumps .pile .card.facing")).to_have_attribute(
        "data-card", "6c"
    )
    await bor.page.locator("#hand [data-card='7c'].legal").tap()
    # Now any card goes on top: the 8♦.
    await expect(bor.page.locator("#hand .card.legal")).to_have_count(2)
    await bor.page.locator("#hand [data-card='8d'].legal").tap()
    # Anna faces 8♦: her A♥ (her trumps) beats it; she takes the three instead.
    await expect(ann.page.locator(".action.take")).to_have_text("📥 Take 3 cards")
    await expect(ann.page.locator("#hand .card.legal")).to_have_attribute("data-card", "Ah")
    await expect(ann.page.locator(".trumps .pile .card.takes")).to_have_count(3)
    await ann.page.locator(".action.take").tap()
    await expect(ann.page.locator("#hand .card")).to_have_count(5)
    await expect(watcher.page.locator(".trumps .pile .card.empty")).to_have_count(1)
    # Boris leads his last card and wins.
    await bor.page.locator("#hand [data-card='9d'].legal").tap()

    for player, word in ((bor, "won"), (ann, "lost")):
        result = player.page.locator("#result")
        await expect(result).to_be_visible()
        await expect(result).to_have_attribute("data-result", word)
        # The rating change is shown beside each place.
        await expect(result.locator(".places li").first).to_contain_text("Boris")
        assert re.search(r"[+−-]\d", await result.inner_text()), await result.inner_text()
    await expect(watcher.page.locator("#result")).to_be_visible()
    assert h.api.unanswered_callbacks() == []

    # Every frame the onlooker's page got names only cards that lay face up on the pile.
    assert len(watcher.views) >= 7, len(watcher.views)
    assert_watched_blind(watcher.views, lambda view: {"6c", "7c", "8d", "9d"})
    public_labels = {"6♣", "7♣", "8♦", "9♦"}
    for view in watcher.views:
        text = orjson.dumps(view).decode().replace("\ufe0f", "")
        assert set(CARD_TEXT.findall(text)) <= public_labels, text
    for player in (ann, bor, watcher):
        assert player.errors == []


#: Every control the page shows (buttons, the hand's cards, the suits), by card, suit or code.
CONTROLS = controls(
    "button, #hand .card, .suit-choice",
    "e.dataset.card || e.dataset.suit || e.dataset.code || e.textContent",
)


async def fitting(player: Player) -> list[str]:
    """The controls shown, once none is cut off at the side or lies on another (a long hand
    scrolls: what is below the screen's foot is not cut off)."""
    return await controls_fit(player.page, CONTROLS, below=False)


async def test_at_390_px_in_russian_and_croatian_no_control_is_cut_or_overlaps(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, (anna_page, boris_page, watcher) = await open_live(
        h, base, browser, ("Анна Каренина-Вронская", "Borislav Horvatić"), ("ru", "hr", "hr")
    )

    # Choosing trumps: the dealer's four suits.
    chooser = (
        anna_page if await anna_page.page.locator(".suit-choice.legal").count() else boris_page
    )
    await expect(chooser.page.locator(".suit-choice.legal")).to_have_count(4)
    assert len(await fitting(chooser)) == 4
    await chooser.page.screenshot(path="/tmp/trumps-choose.png")

    # Mid-game: Anna, with a long hand, faces a card on a tall pile, the backstop near.
    now = h.clock()
    hand = "6s 8s Ts Qs As 7h 9h Jh Kh 6d 7d 8d 9d Td Jd Qd 6c 7c 8c 9c Tc Jc Qc"
    state = TrumpsState.from_hands(
        (cards(hand), cards("7s 9s Js 8h Th Qh Ad")),
        (Suit.CLUBS, Suit.HEARTS),
        pile=cards("Kc Ac Ks Ah Kd"),
        phase=BEAT_OR_TAKE,
        to_move=0,
        dealer=0,
        moves=372,
        opened=now,
    )
    await write_state(h, game_id, state)
    await expect(anna_page.page.locator("#hand .card")).to_have_count(23)
    await expect(anna_page.page.locator(".action.take")).to_have_text("📥 Взять 3 карты")
    names = await fitting(anna_page)
    assert {"6c", "Qc", "k"} <= set(names) and len(names) == 24, names
    await expect(boris_page.page.locator(".trumps .hint")).to_contain_text("Анна")
    await fitting(boris_page)
    await expect(watcher.page.locator(".trumps .warning")).to_be_visible()
    await fitting(watcher)
    await anna_page.page.screenshot(path="/tmp/trumps-player.png", full_page=True)
    await watcher.page.screenshot(path="/tmp/trumps-onlooker.png", full_page=True)
    await boris_page.page.screenshot(path="/tmp/trumps-waiting.png", full_page=True)
    for player in (anna_page, boris_page, watcher):
        assert player.errors == []
