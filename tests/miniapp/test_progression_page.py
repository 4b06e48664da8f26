"""Progression's Mini App page in a real browser against the real bot (issue #37).

The bot runs in-process with its Mini App on a loopback port (``serving``, the page using the
sandbox's stand-in for Telegram's script); Debian's Chromium, driven by Playwright, opens the
table page as each person would. Anna plays the last deal of a match against two computers by
tapping what her page shows — a card, where it goes, the card she takes — until the result
and her rating's change show, while a member of the group who is not playing watches through
the group's direct link and is sent no hidden card; and on a phone's 390 px, in Russian and
Croatian, no control of a real table (a turn, the score sheet) is cut off or lies on another.
Without Playwright or Chromium these tests skip.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bot.games.cards import Card, parse_cards
from bot.games.progression import ProgressionState, build_state, score_sheet
from tests.browser import (
    browser_fixture,  # noqa: F401  (the fixture)
    controls,
    controls_fit,
    expect,
    open_table,
)
from tests.e2e.harness import Harness
from tests.e2e.test_progression_game import tick
from tests.miniapp.pages import (
    assert_watched_blind,
    served_fixture,  # noqa: F401  (the fixture)
    table_in_group,
    write_state,
)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text.split()))


def last_deal(now: float) -> ProgressionState:
    """Deal 5 of a match to 100, four cards left in the draw pile: Anna (95 points) already
    has K J 2 6 7 8 of spades (+33), so the deal's end wins her the match; the computers are
    far behind. Her 9♠ and 10♠ fit that stack."""
    return build_state(
        [cards("9s Ts 2h 3h 4d"), cards("5c 6c 7c 8c 9c"), cards("5d 6d 7d 8d 9d")],
        stacks=[[cards("Ks Js 2s 6s 7s 8s"), (), (), ()], [(), (), (), ()], [(), (), (), ()]],
        draw=cards("2c 3c 4c Tc"),
        totals=(95, 10, 20),
        target=100,
        deal=5,
        to_move=0,
        opened=now,
        turn_seconds=600,
    )


async def test_a_whole_match_end_through_the_page_while_a_member_watches(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, (anna,), carla, _ = await table_in_group(h, "progression", ("Anna",), computers=2)
    start = last_deal(h.clock())
    await write_state(h, game_id, start)
    players = await open_table(h, base, browser, game_id, (anna,), carla)
    one, looker = (player.page for player in players)

    for page in (one, looker):
        await expect(page.locator("#game .p-heading")).to_have_text("Deal 5 · to 100 points")
        await expect(page.locator("#game .p-draw .count")).to_have_text("4")
        row = page.locator("#game .p-row[data-seat='0'] .p-cell[data-suit='s']")
        await expect(row).to_contain_text("K J 2 6 7 8")
        await expect(row.locator(".p-score")).to_have_text("+33")
    await expect(looker.locator("#title")).to_contain_text("Watching")
    await expect(looker.locator("#hand .card")).to_have_count(0)
    await expect(one.locator("#hand .card")).to_have_count(5)
    await expect(one.locator("#game .p-prompt")).to_have_text("Play a card: tap it.")

    # Her first turn, tap by tap: the 9♠ is lifted, its own stack says what it adds, a tap on
    # the button plays it; then the draw pile.
    await one.locator("#hand .card.legal[data-card='9s']").tap()
    await expect(one.locator("#hand .card.selected[data-card='9s']")).to_be_visible()
    own = one.locator("#actions button[data-code='m9s']")
    await expect(own).to_have_text("My stack ♠ (+27)")
    await expect(one.locator("#game .p-cell.p-target[data-suit='s']")).to_be_visible()
    await own.tap()
    await expect(
        looker.locator("#game .p-row[data-seat='0'] .p-cell[data-suit='s']")
    ).to_contain_text("K J 2 6 7 8 9")
    await expect(one.locator("#game .p-prompt")).to_contain_text("Take a card")
    await one.locator("#game .p-draw .card.legal").tap()
    await expect(looker.locator("#game .p-draw .count")).to_have_text("3")

    # Then on: the computers move on the clock; she plays a lit card where the page offers
    # first, and takes what it lights, until the match is over.
    taps = 2
    for _ in range(80):
        if await one.locator("#result").is_visible():
            break
        hand = one.locator("#hand .card.legal")
        takes = one.locator("#game .p-centre .card.legal")
        nexts = one.locator("#actions button[data-code='n']")
        if await hand.count():
            await hand.first.tap()
            await one.locator("#actions button.action").first.tap()
            taps += 2
        elif await takes.count():
            await takes.first.tap()
            taps += 1
        elif await nexts.count():
            await nexts.first.tap()
            taps += 1
        else:
            await tick(h, 1.5)  # a computer's move
        await one.wait_for_timeout(60)
    else:
        raise AssertionError("the match did not end")

    result = one.locator("#result")
    await expect(result).to_have_attribute("data-result", "won")
    await expect(result.locator(".places")).to_contain_text("Anna")
    # Her rating moved, as the group's result says it.
    await expect(result.locator(".places")).to_contain_text(re.compile(r"rating \d+\?? \(\+\d+\)"))
    # The score sheet of the last deal: her before, her deal and her new total.
    sheet = one.locator("#game .p-sheet-table tr[data-seat='0']")
    await expect(sheet.locator(".p-before")).to_have_text("95")
    await expect(looker.locator("#result")).to_be_visible()
    assert taps >= 4

    # Carla followed every move, and was never sent a card but those on the stacks.
    views = players[1].views
    assert len(views) >= 4
    assert views[-1]["status"] == "finished"
    assert_watched_blind(views, on_the_stacks)
    assert all(view["hand"] is None for view in views)
    assert [player.errors for player in players] == [[], []]


def on_the_stacks(view: dict[str, Any]) -> set[str]:
    """The cards a view shows everyone: on the stacks, in the middle, on the score sheet."""
    shown = {c for s in view["stacks"] for stack in s for c in stack}
    shown |= {c for stack in view["middle"] for c in stack}
    if view["sheet"]:
        shown |= {c for row in view["sheet"]["rows"] for s in row["stacks"] for c in s}
    return shown


#: Every control, card, player and stack shown, by its code, card or suit.
CONTROLS = controls(
    "button, .card, .player, .p-cell, .p-sheet",
    "e.dataset.code || e.dataset.card || e.dataset.suit || e.className",
    outermost="button, .card, .player, .p-cell, .p-sheet",
)


SHEET_CUT = """() => [...document.querySelectorAll('.p-sheet-table td, .p-sheet-table th.p-num')]
    .filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)"""


async def fitting(page: Any) -> int:
    """How many controls are shown, once none is cut off or lies on another."""
    return len(await controls_fit(page, CONTROLS))


def crowded(now: float) -> ProgressionState:
    """Deal 3, mid-deal: long stacks everywhere (one of all thirteen spades), a full middle,
    Anna (Russian) to play; Boris (Croatian) waits."""
    return build_state(
        [cards("Th 9h Qd 3c 5c"), cards("4h 5h 6h 7h 8h"), cards("2d 3d 4d 5d 6d")],
        stacks=[
            [cards("As Ks Qs Js 2s 3s 4s 5s 6s 7s 8s 9s Ts"), cards("Ah Kh"), (), cards("Jc")],
            [(), cards("Qh Jh 2h 3h"), cards("Kd Jd 7d 8d 9d"), cards("Ac Kc 4c 6c 7c")],
            [(), (), cards("Ad"), cards("Qc 8c")],
        ],
        public=[(), (), cards("Td"), cards("9c Tc 2c")],
        draw=cards("2h 3h"),
        totals=(-120, 185, 47),
        target=200,
        deal=3,
        to_move=0,
        opened=now,
        turn_seconds=600,
    )


async def test_at_390_px_in_russian_and_croatian_nothing_is_cut_or_overlaps(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, (anna, boris), carla, _ = await table_in_group(
        h, "progression", languages=("ru", "hr"), computers=1
    )
    state = crowded(h.clock())
    await write_state(h, game_id, state)
    players = await open_table(h, base, browser, game_id, (anna, boris), carla)
    one, two, looker = (player.page for player in players)
    await expect(one.locator("#game .p-heading")).to_have_text("Раздача 3 · до 200 очков")
    await expect(two.locator("#game .p-heading")).to_have_text("Dijeljenje 3 · do 200 bodova")
    await expect(looker.locator("#game .p-row")).to_have_count(3)
    # Ranks in the reader's letters: Russian Т К Д В, Croatian A K D B.
    spades = "#game .p-row[data-seat='0'] .p-cell[data-suit='s'] .p-ranks"
    await expect(one.locator(spades)).to_have_text("Т К Д В 2 3 4 5 6 7 8 9 10")
    await expect(two.locator("#players .player[data-seat='0'] .facts")).to_contain_text("−120")

    assert await fitting(one) >= 5 + 5 + 12 + 3
    assert await fitting(two) >= 5 + 12 + 3
    assert await fitting(looker) >= 5 + 12 + 3
    await one.screenshot(path="/tmp/progression-player-ru.png")
    await two.screenshot(path="/tmp/progression-waiting-hr.png")
    await looker.screenshot(path="/tmp/progression-onlooker.png")

    # She lifts her 10♥: her own ♥ stack (A K) and the middle are offered, both fit.
    await one.locator("#hand .card.legal[data-card='Th']").tap()
    await expect(one.locator("#actions button.action")).to_have_count(2)
    await expect(one.locator("#actions button[data-code='mTh']")).to_have_text(
        "Моя стопка ♥ (+30)"
    )
    assert await fitting(one) >= 5 + 5 + 12 + 3 + 2
    await one.screenshot(path="/tmp/progression-where-ru.png")

    # Between deals: the score sheet, in both languages, and the Next button.
    ended = replace(state, hands=((), (), ()), draw=())
    sheet = score_sheet(ended)
    totals = tuple(row.total for row in sheet.rows)
    between = replace(
        ended, phase="between_deals", sheet=sheet, totals=totals, ready=(False, False, True)
    )
    await write_state(h, game_id, between)
    await expect(one.locator("#game .p-sheet-table tr[data-seat='0'] .p-dealt")).to_have_text(
        "+160"
    )
    await expect(two.locator("#game .p-sheet-table th.p-num").nth(4)).to_have_text("Prije")
    await expect(two.locator("#actions button[data-code='n']")).to_be_visible()
    for page in (one, two, looker):
        assert await fitting(page) >= 3
        # Every number of the sheet and its columns' words are whole (a long name may be cut).
        cut = await page.evaluate(SHEET_CUT)
        assert cut == [], cut
    await one.screenshot(path="/tmp/progression-sheet-ru.png")
    await two.screenshot(path="/tmp/progression-sheet-hr.png")
    await two.locator("#actions button[data-code='n']").tap()
    await expect(one.locator("#players .player[data-seat='1'] .facts")).to_contain_text("готов")
    assert [player.errors for player in players] == [[], [], []]
