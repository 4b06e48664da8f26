"""Any game's page, opened from the group's table by direct link: its players play in their
seats, the group's other members watch, anyone else is refused; a player's private panel
waits while he plays on the page (issue #37)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.e2e.harness import Harness
from tests.e2e.test_miniapp import Page, hello, open_page, serving, signed
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeUser
from tests.miniapp.pages import served_fixture, table_in_group  # noqa: F401 (fixture)
from tests.miniapp.trust import card_codes


async def rank_game(h: Harness) -> tuple[int, FakeChat, FakeUser, FakeUser, FakeUser]:
    """A Rank game of Anna and Boris in a group where Cyril is a member who does not play."""
    game_id, (anna, boris), cyril, group = await table_in_group(h, "rank", onlooker="Cyril")
    return game_id, group, anna, boris, cyril


async def by_link(h: Harness, base: str, user: FakeUser, start_param: str) -> Page:
    """The page as the group's direct link opens it: no game in the address, the link's
    ``startapp`` signed into ``initData``."""
    page = await open_page(base)
    init_data = signed(h.api.token, user, start_param=start_param)
    await page.send({"t": "hello", "init_data": init_data, "game": None})
    return page


def table_link(h: Harness, group: FakeChat) -> str | None:
    markup = h.table(group).reply_markup or {}
    urls = [b.get("url") for row in markup.get("inline_keyboard", []) for b in row]
    return next((u for u in urls if u and u.startswith("https://t.me/")), None)


async def hands(h: Harness, game_id: int) -> list[set[str]]:
    room = h.app.bot_data["cardroom"]  # type: ignore[union-attr]
    snapshot = await room.play.snapshot(game_id)
    return [{c.code for c in snapshot.views[s].hand} for s in range(len(snapshot.seats))]


async def test_the_groups_table_links_to_the_page_and_a_member_watches_it_live(
    served: tuple[Harness, str],
) -> None:
    h, base = served
    game_id, group, anna, boris, cyril = await rank_game(h)
    assert table_link(h, group) == f"https://t.me/cardroom_bot/table?startapp=g{game_id}"

    # A player who opens it gets his seat: his hand, his moves when it is his move.
    mine = await by_link(h, base, anna, f"g{game_id}")
    await mine.until(lambda: bool(mine.of("state")))
    assert mine.view["seat"] == 0 and mine.view["key"] == "rank"
    assert card_codes(mine.view) >= (await hands(h, game_id))[0]

    # A member who does not play watches: the public table, no hand, no moves.
    watching = await by_link(h, base, cyril, f"g{game_id}")
    await watching.until(lambda: bool(watching.of("state")))
    view = watching.view
    assert view["seat"] is None and view["moves"] == []
    assert not card_codes(view) & set().union(*await hands(h, game_id))

    # His press is refused and changes nothing.
    version = view["version"]
    await watching.send({"t": "act", "code": "d", "seq": 1})
    await watching.until(lambda: bool(watching.of("error")))
    assert watching.of("error")[-1]["code"] == "watching"

    # He follows the game live: a move made in the chat reaches his page at once.
    mover = anna if h.panel_buttons(anna) else boris
    while not h.panel_buttons(mover):
        await h.tick(1.5)
    await press(h, mover, h.panel(mover), h.panel_buttons(mover)[0][0])
    await watching.until(lambda: watching.view["version"] > version)
    for frame in watching.of("state"):
        shown = card_codes(frame["view"])
        assert frame["view"]["moves"] == []
        assert not shown & (set().union(*await hands(h, game_id)))
    for page in (mine, watching):
        page.close()


async def test_no_link_without_the_apps_short_name(tmp_path: Path) -> None:
    async with serving(tmp_path, short_name=None) as (h, _base):
        _, group, _, _, _ = await rank_game(h)
        assert table_link(h, group) is None


@pytest.mark.parametrize("start_param", ["x1", "g0", "g01", "g1;drop", "g" + "9" * 30, ""])
async def test_a_crafted_link_is_refused(served: tuple[Harness, str], start_param: str) -> None:
    h, base = served
    await rank_game(h)
    page = await by_link(h, base, h.api.add_user("Eve", started=True), start_param)
    await page.until(lambda: page.closed)
    codes = [f["code"] for f in page.of("error")]
    assert codes in (["bad_link"], ["no_game"])
    assert not page.of("state")


async def test_someone_outside_the_group_may_not_watch(served: tuple[Harness, str]) -> None:
    h, base = served
    game_id, _, _, _, _ = await rank_game(h)
    stranger = h.api.add_user("Dora", started=True)
    for page in (
        await by_link(h, base, stranger, f"g{game_id}"),
        await hello(h, base, stranger, game_id),
    ):
        await page.until(lambda page=page: page.closed)
        assert [f["code"] for f in page.of("error")] == ["not_seated"]
        assert not page.of("state")


async def test_a_players_panel_waits_while_he_plays_on_the_page(
    served: tuple[Harness, str],
) -> None:
    h, base = served
    game_id, _, anna, boris, _ = await rank_game(h)
    while not (h.panel_buttons(anna) or h.panel_buttons(boris)):
        await h.tick(1.5)
    mover, waiting = (anna, boris) if h.panel_buttons(anna) else (boris, anna)
    page = await hello(h, base, waiting, game_id)
    await page.until(lambda: bool(page.of("state")))
    panel = h.panel(waiting)
    assert panel is not None
    before = (panel.text, orjson.dumps(panel.reply_markup))

    # The mover moves until the move is the waiting player's: his page shows it at once...
    for _ in range(5):
        if page.view["moves"]:
            break
        await press(h, mover, h.panel(mover), h.panel_buttons(mover)[0][0])
        await h.settle()
    assert page.view["moves"], "his move came"
    # ... and his panel was left as it was: the page shows what it would.
    panel = h.panel(waiting)
    assert panel is not None and (panel.text, orjson.dumps(panel.reply_markup)) == before

    # He closes the page: his panel is brought up to date, his move and all.
    page.close()
    await h.api.wait_until(lambda: bool(h.panel_buttons(waiting)), timeout=5)
    assert h.panel_buttons(waiting)


async def test_a_player_the_computer_plays_for_gets_his_panel_page_or_not(
    served: tuple[Harness, str],
) -> None:
    """The page tells him to take his seat back in the chat: his panel, with its button, is
    not held then."""
    h, base = served
    game_id, _, anna, boris, _ = await rank_game(h)
    page = await hello(h, base, boris, game_id)
    await page.until(lambda: bool(page.of("state")))
    for _ in range(40):
        if page.view["autopilot"]:
            break
        if h.panel_buttons(anna):
            await press(h, anna, h.panel(anna), h.panel_buttons(anna)[0][0])
        else:
            await h.tick(61)  # Boris lets his windows run out
        await h.settle()
    assert page.view["autopilot"], "the computer took his seat over"
    await h.api.wait_until(
        lambda: any("Take my seat back" in text for text, _ in h.panel_buttons(boris)),
        timeout=5,
    )
    page.close()
