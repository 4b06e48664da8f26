"""Davay-ka!'s Mini App in a real browser against the real bot (issue #30, deliverable 6).

The bot runs in-process (as in ``test_miniapp``: PTB, services, SQLite, the fake Bot API) with
its Mini App served on a loopback port and the page's Telegram script switched to the
sandbox's stand-in, which reads ``initData`` from the address as Telegram's script does.
Debian's Chromium, driven by Playwright, opens the page as each player would: two players
play a whole (short) game against each other, tapping what their pages show; a forged, a
stale and a stranger's sign-in are refused on the page; and on a phone's 390 px no control of
a real game's table is cut off or lies on another. Without Playwright or Chromium these tests
skip (``.ci/install-browser`` installs Chromium).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from itertools import cycle
from typing import Any

from bot.games.davayka import make_state
from bot.games.davayka.state import DavaykaState
from tests.browser import (
    Player,
    browser_fixture,  # noqa: F401  (the fixture)
    controls,
    controls_fit,
    expect,
    open_page,
    playwright_api,
    seat_page,
)
from tests.e2e.harness import Harness
from tests.e2e.test_davayka_game import cards, game_state
from tests.e2e.test_miniapp import a_game, signed
from tests.miniapp.pages import (
    page_url,
    served_fixture,  # noqa: F401  (the fixture)
    write_state,
)

#: How soon a card one player taps must be seen landing on the other's page.
BLINK_SECONDS = 1.0

FORGED = "Telegram did not sign this page: open it from the bot's button."
STALE = "This page is over an hour old: open it again from the bot's button."
NOT_SEATED = "You are not playing in this game."
#: Davay-ka!'s two calls, as the page draws them (only while each is to be pressed).
READY, FLIP = "#actions .dk-ready", "#actions .dk-flip"


def pile(player: Player, index: int) -> Any:
    return player.page.locator(f"#hand .dk-pile[data-pile='{index}']")


async def picture(player: Player) -> dict[str, Any]:
    """What the page shows now (see ``PICTURE``)."""
    shown: dict[str, Any] = await player.page.evaluate(PICTURE)
    return shown


#: The table as drawn: the phase, the centre piles' top cards, both rows' top cards, the
#: row piles marked as fitting, whether Ready or «Давай-ка!» is shown, and the result.
PICTURE = """() => {
    const tops = (selector) => [...document.querySelectorAll(selector)]
        .map(e => e.dataset.top || '');
    return {
        phase: (document.querySelector('.dk-table') || {dataset: {}}).dataset.phase || '',
        centres: tops('.dk-centre-pile'),
        me: tops('#hand .dk-pile'),
        them: tops('.dk-them .dk-pile'),
        fits: [...document.querySelectorAll('#hand .dk-pile.fits')]
            .map(p => Number(p.dataset.pile)),
        ready: Boolean(document.querySelector('#actions .dk-ready')),
        flip: Boolean(document.querySelector('#actions .dk-flip')),
        result: document.querySelector('#result').hidden ? null
            : document.querySelector('#result').dataset.result || null,
    };
}"""


async def live(player: Player) -> None:
    """Until the page has drawn the bot's first view."""
    await expect(player.page.locator("#app")).to_have_attribute("data-state", "live")
    await expect(player.page.locator("#hand .dk-pile")).to_have_count(4)


def short_game(now: float) -> DavaykaState:
    """A round laid out and waiting for Ready, with three cards in each row and two in each
    stock (one starts his centre pile, one is for «Давай-ка!»): a whole game in five moves.

    Once both are ready, Anna's 5♦ and Boris's 9♠ start the centre piles. Anna plays 6♣ on the
    5♦, Boris 8♥ on the 9♠; then nobody can move (J♦ Q♥ against Boris's K♣ A♠, on 6♣ and 8♥):
    «Давай-ка!» turns Q♠ and Q♦ up. Anna's J♦ and Boris's K♣ now fit both queens (each asks
    which pile), then Anna's Q♥ fits J♦ or K♣: she is out of cards and wins.
    """
    return make_state(
        rows=[[cards("Jd 6c"), cards("Qh")], [cards("Kc 8h"), cards("As")]],
        stocks=[cards("5d Qs"), cards("9s Qd")],
        phase="ready",
        opened=now,
        idle_since=(now, now),
        last_press=(now, now),
        # Long enough that the round starts by the players' Ready, not by the clock.
        countdown=60.0,
    )


def stall_with_every_height(now: float) -> DavaykaState:
    """A stall in round 12 with piles of every height: «Давай-ка!» and its seconds."""
    return make_state(
        rows=[
            [cards("2c 3c 4c Kh"), cards("5c 6c Kd"), cards("7c Ks"), cards("Kc")],
            [cards("2d 3d 4d Qh"), cards("5d 6d Qd"), cards("7d Qs"), cards("Qc")],
        ],
        stocks=[cards("8c 9c Tc"), cards("8d 9d Td")],
        centres=[cards("2s 3s 4s 5s 6s 7s 8s 9s Ts Js Th"), cards("Ah 2h 3h 4h 5h")],
        phase="stall",
        round_no=12,
        rounds_won=(5, 6),
        opened=now + 60,  # the window stays open while the page is measured
        idle_since=(now, now),
        last_press=(now, now),
    )


async def unhurried(h: Harness, game_id: int) -> DavaykaState:
    """The game as dealt, but with a countdown of a minute: nothing happens by the clock
    while a test looks (the players' forfeit clocks run two minutes)."""
    _, state = await game_state(h, game_id)
    assert state.phase == "ready"
    state = replace(state, countdown=60.0, opened=h.clock())
    await write_state(h, game_id, state)
    return state


async def synced(one: Player, other: Player) -> None:
    """Until both pages draw the same table (each from his own side)."""
    deadline = time.monotonic() + 5
    while True:
        a, b = await picture(one), await picture(other)
        same = (a["phase"], a["centres"], a["me"], a["them"]) == (
            b["phase"],
            b["centres"],
            b["them"],
            b["me"],
        )
        if same:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the pages disagree: {one.name} {a}, {other.name} {b}")
        await asyncio.sleep(0.02)


async def tap_a_fitting_pile(player: Player, other: Player, index: int) -> float:
    """Tap the pile (and, when its card fits both centre piles, the left one) and wait
    until the other player's page shows the card landed: the seconds that took."""
    before = (await picture(other))["centres"]
    started = time.monotonic()
    await pile(player, index).tap()
    targets = player.page.locator(".dk-centre-pile.target")
    if await targets.count():
        await targets.first.tap()  # aiming: the card fits both piles, the page asks which
    await other.page.wait_for_function(
        """(before) => [...document.querySelectorAll('.dk-centre-pile')]
            .some((pile, i) => (pile.dataset.top || '') !== before[i])""",
        arg=before,
        polling=5,
        timeout=5000,
    )
    return time.monotonic() - started


async def press(player: Player, button: str) -> bool:
    """Press Ready or «Давай-ка!» and wait until the bot has taken it (the button goes);
    ``False`` when the button went before the tap (its window closed: a slow machine)."""
    locator = player.page.locator(button)
    try:
        await locator.tap(timeout=2000)
    except playwright_api.TimeoutError:
        if await locator.is_visible():
            raise
        return False
    await expect(locator).to_be_hidden()
    return True


# -- the tests -------------------------------------------------------------------------------


async def test_two_pages_play_a_whole_game_against_each_other(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, anna, boris = await a_game(h)
    await write_state(h, game_id, short_game(h.clock()))
    players = [
        await seat_page(h, base, browser, anna, game_id),
        await seat_page(h, base, browser, boris, game_id),
    ]
    #: Seconds from each player's accepted taps to the other's page showing it.
    seen_within: dict[str, list[float]] = {player.name: [] for player in players}
    for player in players:
        await live(player)
        await expect(player.page.locator(READY)).to_be_visible()

    # Each in turn does what his page offers: Ready, «Давай-ка!», or a pile it marks as
    # fitting; a player whose page offers nothing lets the other go on.
    turns = cycle([(players[0], players[1]), (players[1], players[0])])
    pressed = {READY: 0, FLIP: 0}
    for _ in range(40):
        shown = [await picture(p) for p in players]
        if all(s["result"] for s in shown):
            break
        player, other = next(turns)
        await synced(player, other)
        mine = await picture(player)
        if mine["ready"]:
            pressed[READY] += await press(player, READY)
        elif mine["flip"]:
            pressed[FLIP] += await press(player, FLIP)
        elif mine["fits"]:
            seen = await tap_a_fitting_pile(player, other, mine["fits"][0])
            seen_within[player.name].append(seen)
    else:
        raise AssertionError(f"the game did not end: {[await picture(p) for p in players]}")

    results = {p.name: p.page.locator("#result") for p in players}
    await expect(results["Anna"]).to_have_attribute("data-result", "won")
    await expect(results["Anna"].locator(".outcome")).to_have_text("You won!")
    await expect(results["Boris"]).to_have_attribute("data-result", "lost")
    await expect(results["Boris"].locator(".outcome")).to_have_text("You lost.")
    # Both pressed Ready (the countdown is a minute), and «Давай-ка!» within its 3 s window.
    assert pressed[READY] == 2 and pressed[FLIP] >= 1, pressed
    for player in players:
        # Each saw the other's card land, within a blink of the tap.
        assert len(seen_within[player.name]) >= 2, seen_within
        assert max(seen_within[player.name]) < BLINK_SECONDS, seen_within
        assert player.errors == []
        await expect(player.page.locator("#hand .dk-pile.fits")).to_have_count(0)

    _, state = await game_state(h, game_id)
    assert state.phase == "over" and state.winner == 0 and state.end_reason == "cards"
    assert h.app is not None
    snapshot = await h.app.bot_data["cardroom"].play.snapshot(game_id)
    assert snapshot.status == "finished"


async def test_a_forged_or_stale_sign_in_is_refused_on_the_page(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, anna, _ = await a_game(h)
    honest = signed(h.api.token, anna)
    digit = honest[-1]
    tampered = honest[:-1] + ("0" if digit != "0" else "1")  # the hash, one digit changed
    forged = await open_page(browser, page_url(base, tampered, game_id), "Anna")
    stale = await seat_page(h, base, browser, anna, game_id, age=2 * 3600)
    for player, words in ((forged, FORGED), (stale, STALE)):
        notice = player.page.locator("#notice")
        await expect(notice).to_have_text(words)
        await expect(notice).to_be_visible()
        await expect(player.page.locator("#app")).to_have_attribute("data-state", "error")
    await forged.page.wait_for_timeout(1000)  # a retry would have come within 0.6 s
    for player in (forged, stale):
        await expect(player.page.locator("#app")).to_have_attribute("data-state", "error")
        assert await player.page.locator(".dk-pile, .card").count() == 0, "no table is drawn"
        await expect(player.page.locator(READY)).to_be_hidden()


async def test_a_player_not_seated_gets_no_table_and_no_press(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, _, _ = await a_game(h)
    await unhurried(h, game_id)
    version, state = await game_state(h, game_id)
    cyril = h.api.add_user("Cyril", started=True)
    stranger = await seat_page(h, base, browser, cyril, game_id)
    notice = stranger.page.locator("#notice")
    await expect(notice).to_have_text(NOT_SEATED)
    await expect(notice).to_be_visible()
    await expect(stranger.page.locator("#app")).to_have_attribute("data-state", "error")
    assert await stranger.page.locator(".dk-pile, .card").count() == 0, "no table is drawn"

    # What a page of his could send, sent from his page all the same: his sign-in and a press
    # right behind it. Refused; the game does not move.
    frames: list[dict[str, Any]] = await stranger.page.evaluate(
        """(game) => new Promise((resolve) => {
            const frames = [];
            const socket = new WebSocket(`ws://${location.host}/app/socket`);
            socket.onopen = () => {
                socket.send(JSON.stringify(
                    {t: 'hello', init_data: Telegram.WebApp.initData, game}));
                socket.send(JSON.stringify({t: 'act', code: 'r', seq: 1}));
            };
            socket.onmessage = (event) => frames.push(JSON.parse(event.data));
            socket.onclose = () => resolve(frames);
            setTimeout(() => resolve(frames), 4000);
        })""",
        game_id,
    )
    assert frames, "the bot answered"
    assert {f["t"] for f in frames} == {"error"}, frames
    assert frames[0]["code"] == "not_seated"
    await asyncio.sleep(0.3)
    assert await game_state(h, game_id) == (version, state)


#: Every button and tappable pile the page shows, by what it is.
CONTROLS = controls(
    "button, #hand [data-pile], [data-centre]",
    """e.dataset.code ? {r: 'ready', f: 'flip'}[e.dataset.code] || e.dataset.code
                    : e.dataset.pile ? `pile ${e.dataset.pile}` : `centre ${e.dataset.centre}`""",
)


async def table_fits(player: Player) -> set[str]:
    """The names of Davay-ka!'s controls shown, once none is cut off or overlaps another."""
    return set(await controls_fit(player.page, CONTROLS))


async def test_at_390_px_no_control_of_a_real_table_is_cut_or_overlaps(
    served: tuple[Harness, str], browser: Any
) -> None:
    h, base = served
    game_id, anna, boris = await a_game(h)
    await unhurried(h, game_id)  # a real deal, waiting for the players' Ready
    players = [
        await seat_page(h, base, browser, anna, game_id),
        await seat_page(h, base, browser, boris, game_id),
    ]
    anna_page = players[0]
    await live(anna_page)
    await live(players[1])

    # The deal, waiting for Ready: Ready, four piles of hers, two centre places.
    await expect(anna_page.page.locator(READY)).to_be_visible()
    names = await table_fits(anna_page)
    assert "ready" in names and len(names) == 7, names

    # The round on, as dealt: no Ready; her piles and the two centre piles (and «Давай-ка!»
    # should the deal leave nobody a move).
    for player in players:
        assert await press(player, READY)
    await expect(anna_page.page.locator(".dk-table")).not_to_have_attribute("data-phase", "ready")
    names = await table_fits(anna_page)
    assert "ready" not in names and len(names - {"flip"}) == 6, names

    # A stall in a later round, with piles of every height: «Давай-ка!» and the countdown.
    await write_state(h, game_id, stall_with_every_height(h.clock()))
    await expect(anna_page.page.locator(FLIP)).to_be_visible()
    names = await table_fits(anna_page)
    assert "flip" in names and len(names) == 7, names
    for player in players:
        assert player.errors == []
