"""Advantage's Mini App page in a real browser against the real bot (issue #37).

The bot runs in-process with its Mini App on a loopback port and the sandbox's stand-in for
Telegram's script (as in ``tests/e2e/test_miniapp_browser.py``). Two people play a whole game
by tapping what their pages show — a card, then the pile it lights up, or the Draw, Keep and
Pass buttons — while a third member of the group watches from the group's direct link; every
frame the onlooker is sent is checked against the stored state of that version: no private
card of either hand, nothing of the stock. On a phone's 390 px, with Russian and Croatian
words, no control of a crowded table is cut off or lies on another.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from bot.games.advantage import AdvantageState
from bot.games.cards import parse_card
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
from tests.miniapp.trust import card_codes

SHOTS = Path("/tmp")


def stored(h: Harness, game_id: int) -> tuple[int, dict[str, Any]]:
    """The game's version and state as the database holds them: the ground truth."""
    path = h.database_url.removeprefix("sqlite+aiosqlite:///")
    with sqlite3.connect(path) as db:
        version, state = db.execute(
            "SELECT version, state FROM games WHERE id = ?", (game_id,)
        ).fetchone()
    return int(version), json.loads(state)


def hidden_codes(state: dict[str, Any]) -> set[str]:
    """What an onlooker may not see: the stock and both hands' private cards."""
    return {*state["stock"], *(code for hand in state["private"] for code in hand)}


def cs(text: str) -> tuple[Any, ...]:
    return tuple(parse_card(code) for code in text.split())


def short_deal(now: float) -> AdvantageState:
    """A game part played: eight cards left in the stock, so that it ends in a few minutes
    of taps, with the rules' every phase still ahead (drops, draws, exchanges, pairs)."""
    return AdvantageState(
        dealer=1,
        stock=cs("2c 9d 4s Jh 6c Qd 3h 8s"),
        public=(cs("7h 9s Kd"), cs("5c Th 2s")),
        private=(cs("Ac"), cs("4d")),
        piles=(cs("Kh"), cs("3s 6s"), cs("5d")),
        pairs=(cs("Qs Qh"), ()),
        cycle=3,
        opened=now,
        turn_seconds=60.0,
    )


def crowded(now: float, phase: str = "exchange") -> AdvantageState:
    """A late position with many cards on the table: long hands, piles, pairs on both sides."""
    return AdvantageState(
        dealer=1,
        stock=cs("2c 9d"),
        public=(cs("7h 9s Kd 3c 8d Jc Tc 2h"), cs("5c Th 2s 6h 8h Ad Js 4c 7c Qc")),
        private=(cs("Ac 4d 9c"), cs("3d 6d 7d Ts")),
        piles=(cs("Kh 5s 9h 6c Ks"), cs("3s 6s"), cs("5d 4h Jd")),
        pairs=(cs("Qs Qh 2d 3h 5h 4s"), cs("8c 8s Kc Td 7s As")),
        phase=phase,
        to_move=0,
        drawn=parse_card("9c") if phase.endswith("drawn") else None,
        cycle=7,
        opened=now,
        turn_seconds=60.0,
    )


async def take_turn(player: Player, turn: int) -> None:
    """Do what the page offers: a lit card, then a lit pile; else a button (Draw, Keep,
    Pass). Now and then a player prefers a button to a card (Pass in an exchange)."""
    page = player.page
    cards = page.locator("#hand .card.legal")
    buttons = page.locator("#actions button")
    if await cards.count() and not (turn % 4 == 3 and await buttons.count()):
        await cards.nth(turn % await cards.count()).tap()
        targets = page.locator(".adv-pile.target .card.legal")
        await expect(targets.first).to_be_visible()
        await targets.nth(turn % await targets.count()).tap()
    else:
        await buttons.first.tap()


async def test_two_pages_play_a_whole_game_while_a_member_watches_and_sees_no_hidden_card(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, seated, carol, _ = await table_in_group(h, "advantage", onlooker="Carol")
    await write_state(h, game_id, short_deal(h.clock()))
    truth: dict[int, set[str]] = {}
    version, state = stored(h, game_id)
    truth[version] = hidden_codes(state)
    *players, onlooker = await open_table(h, base, browser, game_id, seated, carol)
    for reader in (*players, onlooker):
        await reader.until(lambda v: v.get("version") == version)
    await expect(onlooker.page.locator(".adv-pile")).to_have_count(4)  # the stock and three
    await expect(onlooker.page.locator("#hand .card")).to_have_count(0)

    for turn in range(400):
        if players[0].view.get("status") == "finished":
            break
        mover = next(p for p in players if p.view.get("moves"))
        before = mover.view["version"]
        await take_turn(mover, turn)
        await mover.until(lambda v, before=before: v["version"] > before)
        version, state = stored(h, game_id)
        truth[version] = hidden_codes(state)
        for reader in (*players, onlooker):
            await reader.until(lambda v, version=version: v["version"] >= version)
    else:
        raise AssertionError("the game did not end")

    for player in players:
        result = player.page.locator("#result")
        await expect(result).to_be_visible()
        await expect(result.locator(".outcome")).to_have_text(re.compile("You (won|lost)|draw"))
        await expect(result).to_contain_text(re.compile(r"rating \d+\?? \([+−-]\d+\)"))
        assert player.errors == []
    await expect(onlooker.page.locator("#result")).to_be_visible()

    # The onlooker followed every move live, and no frame held a card hidden from him.
    versions = [view["version"] for view in onlooker.views]
    assert len(set(versions)) > 15 and len(truth) > 15
    assert_watched_blind(onlooker.views, lambda view: card_codes(view) - truth[view["version"]])
    for view in onlooker.views:
        assert all(hand["private"] == [] for hand in view["hands"])
    assert onlooker.errors == []


async def test_on_a_phone_in_russian_and_croatian_no_control_is_cut_or_overlapping(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    for language, phase, names in (
        ("ru", "exchange", ("Anna", "Борис", "Карина")),
        ("hr", "drop_drawn", ("Ana", "Branimir", "Karla")),
    ):
        # Each speaks ``language``: a seat's page speaks its seat's language.
        game_id, (anna, _), carol, _ = await table_in_group(
            h, "advantage", names[:2], names[2], languages=(language,) * 3
        )
        await write_state(h, game_id, crowded(h.clock(), phase))
        version, _ = stored(h, game_id)
        # Anna's page as her panel opens it; the onlooker's signed in the group's language.
        player, onlooker = await open_table(
            h, base, browser, game_id, (anna,), carol, (None, language)
        )
        word = "Из колоды" if language == "ru" else "Iz špila"
        for reader in (player, onlooker):
            await reader.until(lambda v, version=version: v["version"] == version)
        page = player.page
        if phase == "exchange":
            # A card picked: the piles it may be swapped for light up, the line asks which.
            await page.locator("#hand .card.legal").first.tap()
            await expect(page.locator(".adv-pile.target")).not_to_have_count(0)
            await expect(page.locator("#hand .card.selected")).to_have_count(1)
        else:
            await expect(page.locator("#hand .card.adv-drawn")).to_have_attribute("data-tag", word)
        await expect(page.locator("#hand .adv-private")).to_have_count(3)
        await expect(onlooker.page.locator(".adv-side .stack .count").first).to_have_text("3")
        for reader, who in ((player, "player"), (onlooker, "onlooker")):
            await reader.page.screenshot(
                path=str(SHOTS / f"advantage-{who}-{language}.png"), full_page=True
            )
            # The table is taller than the screen: it scrolls, so nothing is cut off below.
            assert await controls_fit(reader.page, CONTROLS, below=False), who
            assert reader.errors == []
            await reader.page.context.close()


#: Every control and card on screen, and every line of words.
CONTROLS = controls(
    "#hand .card, #actions button, .adv-pile, .adv-side, .adv-info span, .player, #status",
    "e.className + ' ' + (e.textContent || '').slice(0, 30)",
    uncut=".card",
)
