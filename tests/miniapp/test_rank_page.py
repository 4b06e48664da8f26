"""Rank's Mini App page in a real browser against the real bot (issue #37).

The bot runs in-process with its Mini App on a loopback port (``serving``, the page using the
sandbox's stand-in for Telegram's script); Debian's Chromium, driven by Playwright, opens the
table page as each person would. Two players play a whole (short, laid-out) game by tapping
what their pages show — a card, a joker and the rank it names, Draw and the drawn card — while
a member of the group who is not playing watches through the group's direct link and is sent
no hidden card; and on a phone's 390 px, in Russian and Croatian, no control of a real table is
cut off or lies on another. Without Playwright or Chromium these tests skip.
"""

from __future__ import annotations

import re
from typing import Any

from bot.games.cards import parse_card
from bot.games.rank import RankState
from bot.games.rank.model import sort_hand
from tests.browser import (
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


def cards(text: str) -> tuple[Any, ...]:
    return tuple(parse_card(code) for code in text.split())


def short_game(now: float) -> RankState:
    """Two rounds (the limit) of four turns. Anna must play her 9♥ on the 8♣; Boris has
    nothing next to the 9, draws the 10♣ and plays it; Anna has nothing next to the 10: her
    joker names a queen and her K♦ follows it; Boris must play his Q♣ on the K♦. The round
    limit ends it: Anna, with one card left, wins."""
    return RankState(
        hands=(sort_hand(cards("9h XJ 3s Kd")), sort_hand(cards("Qc 5d 2h 6s"))),
        stock=cards("2c 3c Tc"),
        discard=cards("8c"),
        round_limit=2,
        dealer=1,
        opened=now,
        turn_seconds=600,
    )


def top(page: Any, code: str) -> Any:
    return page.locator(f"#game .rank-pile[data-top='{code}']")


async def test_two_pages_play_a_whole_game_while_a_member_watches_it_live(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, (anna, boris), carla, _ = await table_in_group(h, "rank")
    await write_state(h, game_id, short_game(h.clock()))
    # Carla opens the group's direct link: no game in the address, the signed start_param.
    players = await open_table(h, base, browser, game_id, (anna, boris), carla)
    one, two, looker = (player.page for player in players)

    for page in (one, two, looker):
        await expect(top(page, "8c")).to_be_visible()
    # Boris waits: he sees the pile's top, the others' counts and the round of the limit.
    await expect(two.locator("#game .rank-round")).to_have_text("Round 1 of 2")
    await expect(two.locator("#players .player[data-seat='0'] .facts")).to_contain_text("4 cards")
    await expect(two.locator("#hand .card")).to_have_count(4)
    await expect(two.locator("#hand .card.legal")).to_have_count(0)
    await expect(looker.locator("#hand .card")).to_have_count(0)
    await expect(looker.locator("#title")).to_contain_text("Watching")

    # 1. Anna must play her 9♥: the only card lit.
    await expect(one.locator("#hand .card.legal")).to_have_count(1)
    await expect(one.locator("#status.mine")).to_contain_text("Play a 7 or a 9 (any suit).")
    await one.locator("#hand .card.legal[data-card='9h']").tap()
    await expect(top(two, "9h")).to_be_visible()
    await expect(two.locator("#players .player[data-seat='0'] .facts")).to_contain_text("3 cards")

    # 2. Boris has nothing next to a 9: Draw; the 10♣ he drew is marked and may be played.
    await two.locator("#actions .rank-draw").tap()
    drawn = two.locator("#hand .card.drawn.legal[data-card='Tc']")
    await expect(drawn).to_be_visible()
    await expect(two.locator("#actions .rank-keep")).to_be_visible()
    await drawn.tap()
    await expect(top(one, "Tc")).to_be_visible()
    await expect(one.locator("#game .rank-round")).to_have_text("Round 2 of 2")

    # 3. Anna's joker: a tap offers the thirteen ranks; the queen, then her K♦ after it.
    await one.locator("#hand .card.joker.legal").tap()
    await expect(one.locator("#actions .rank-choice")).to_have_count(13)
    await one.locator("#actions .rank-choice[data-code='jQ']").tap()
    await expect(looker.locator("#game .rank-named[data-named='Q']")).to_be_visible()
    await expect(looker.locator("#game .rank-named")).to_have_text("as Q")
    await expect(one.locator("#actions .rank-end-turn")).to_be_visible()
    await one.locator("#hand .card.legal[data-card='Kd']").tap()
    await expect(top(two, "Kd")).to_be_visible()

    # 4. Boris must play his Q♣: the round limit ends the game, Anna first.
    await two.locator("#hand .card.legal[data-card='Qc']").tap()
    for page, word in ((one, "won"), (two, "lost")):
        await expect(page.locator("#result")).to_be_visible()
        await expect(page.locator("#result")).to_have_attribute("data-result", word)
        # Each rating moved: Anna's up, Boris's down.
        places = page.locator("#result .places li")
        await expect(places.nth(0)).to_have_text(re.compile(r"Anna · rating \d+\?? \(\+\d+\)"))
        await expect(places.nth(1)).to_have_text(re.compile(r"Boris · rating \d+\?? \(−\d+\)"))
    await expect(looker.locator("#result")).to_be_visible()

    # Carla followed every move, and was never sent a card but the pile's top.
    views = players[2].views
    assert [view["top"] for view in views][-1] == "Qc"
    assert {"8c", "9h", "Tc", "XJ", "Kd", "Qc"} <= {view["top"] for view in views}
    assert_watched_blind(views, lambda view: {view["top"]})
    assert all(view["hand"] == [] for view in views)
    assert [player.errors for player in players] == [[], [], []]


#: Every control, card and player shown, and the rank a joker names, by its code or card.
CONTROLS = controls(
    "button, .card, .player, .rank-named",
    "e.dataset.code || e.dataset.card || e.dataset.seat || e.className",
    outermost="button, .card, .player",
)


async def fitting(page: Any) -> int:
    """How many controls are shown, once none is cut off or lies on another."""
    return len(await controls_fit(page, CONTROLS))


def crowded(now: float) -> RankState:
    """Mid-game at four: Anna (Russian) to move on a joker named 10, holding eight cards and
    a joker of her own; Boris (Croatian) waits; the computers hold the rest."""
    return RankState(
        hands=(
            sort_hand(cards("2h 3s 4d 5c 6h 7s 8d XJ")),
            sort_hand(cards("Qc Qd 5d 2c 6s Kh")),
            sort_hand(cards("As 4c")),
            (),
        ),
        stock=cards("2s 3h 4h 5h 6d 7c 8c 9c 9d"),
        discard=cards("Tc 9h Ts XJ"),
        named_rank=10,
        out=(3,),
        round=7,
        round_limit=40,
        dealer=3,
        opened=now,
        turn_seconds=600,
    )


async def test_at_390_px_in_russian_and_croatian_nothing_is_cut_or_overlaps(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, (anna, boris), carla, _ = await table_in_group(
        h, "rank", languages=("ru", "hr"), computers=2
    )
    await write_state(h, game_id, crowded(h.clock()))
    players = await open_table(h, base, browser, game_id, (anna, boris), carla)
    one, two, looker = (player.page for player in players)
    for page in (one, two, looker):
        await expect(top(page, "XJ")).to_be_visible()
    await expect(one.locator("#game .rank-round")).to_have_text("Раунд 7 из 40")
    await expect(one.locator("#game .rank-named")).to_have_text("как 10")
    await expect(two.locator("#game .rank-named")).to_have_text("kao 10")
    await expect(two.locator("#players .player[data-seat='0'] .facts")).to_contain_text("8 karata")
    await expect(two.locator("#players .player[data-seat='3'] .facts")).to_contain_text("1")

    # Anna's turn: nothing next to the 10 — her joker, or Draw; Boris waits.
    await expect(one.locator("#actions .rank-draw")).to_be_visible()
    assert await fitting(one) >= 8 + 4 + 2 + 1
    assert await fitting(two) >= 6 + 4 + 2
    await one.screenshot(path="/tmp/rank-player-ru.png")
    await two.screenshot(path="/tmp/rank-waiting-hr.png")
    await looker.screenshot(path="/tmp/rank-onlooker.png")
    assert await fitting(looker) >= 4 + 2

    # She taps the joker: thirteen ranks in Russian letters, and Back.
    await one.locator("#hand .card.joker.legal").tap()
    await expect(one.locator("#actions .rank-choice")).to_have_count(13)
    await expect(one.locator("#actions .rank-choice[data-code='jQ']")).to_have_text("Д")
    await expect(one.locator("#status.mine")).to_contain_text("джокеру")
    assert await fitting(one) >= 8 + 13 + 1 + 4 + 2
    await one.screenshot(path="/tmp/rank-picker-ru.png")
    await one.locator("#actions .rank-back").tap()
    await expect(one.locator("#actions .rank-choice")).to_have_count(0)

    # She draws instead: the 9♦ fits the 10; it is marked, and Keep is offered beside it.
    await one.locator("#actions .rank-draw").tap()
    await expect(one.locator("#hand .card.drawn.legal[data-card='9d']")).to_be_visible()
    await expect(one.locator("#actions .rank-keep")).to_be_visible()
    assert await fitting(one) >= 9 + 1 + 4 + 2
    await one.screenshot(path="/tmp/rank-drawn-ru.png")
    assert [player.errors for player in players] == [[], [], []]
