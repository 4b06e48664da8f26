"""What every game's page tests stand on (issue #37): the bot serving its Mini App, the
addresses Telegram opens, a game started from a group's lobby, a state written in, and the
check that an onlooker was sent no hidden card.

Nothing here needs a browser (``tests/browser.py`` holds what does), so that the socket tests
use it too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.services.types import GameSnapshot
from tests.e2e.harness import Harness
from tests.e2e.test_miniapp import serving, signed
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeUser
from tests.miniapp.trust import card_codes


@pytest.fixture(name="served")
async def served_fixture(tmp_path: Path) -> AsyncIterator[tuple[Harness, str]]:
    """The bot with its Mini App on a loopback port, the page using the sandbox's stand-in
    for Telegram's script (a module imports this to have ``served``)."""
    async with serving(tmp_path, stand_in=True) as running:
        yield running


def page_url(base: str, init_data: str, game_id: int | None = None) -> str:
    """The address Telegram opens: from a private panel with ``?game=``, from the group's
    direct link without it (the game is then the signed ``start_param``); the launch
    parameters in the fragment, ``initData`` encoded once more inside it."""
    query = "" if game_id is None else f"?game={game_id}"
    return (
        f"{base}/app/table{query}"
        f"#tgWebAppData={quote(init_data, safe='')}&tgWebAppVersion=8.0&tgWebAppPlatform=web"
    )


def seat_url(h: Harness, base: str, user: FakeUser, game_id: int, **signing: Any) -> str:
    """The page a player's private panel opens on his game."""
    return page_url(base, signed(h.api.token, user, **signing), game_id)


def watch_url(h: Harness, base: str, user: FakeUser, game_id: int, **signing: Any) -> str:
    """The page as the group's direct link opens it: no game in the address, the link's
    ``startapp`` signed into ``initData``."""
    return page_url(base, signed(h.api.token, user, start_param=f"g{game_id}", **signing))


def lobby_button(h: Harness, group: FakeChat, op: str) -> str:
    """The lobby's button for ``op`` (by its data: its words follow the chat's language)."""
    return next(
        data
        for row in h.api.buttons(h.table(group))
        for _, data in row
        if isinstance(data, str) and data.startswith("L:") and data.endswith(f":{op}")
    )


async def start_game(
    h: Harness, group: FakeChat, key: str, players: Sequence[FakeUser], computers: int = 0
) -> int:
    """A game of ``key`` in the group, opened and started by the first of ``players``, the
    others joined, ``computers`` in the seats after them: its id."""
    owner, *others = players
    await h.api.send_text(owner, group, f"/new {key}")
    await h.api.wait_until(lambda: bool(h.api.bot_messages(group)))
    await h.settle()
    for user in others:
        await press(h, user, h.table(group), lobby_button(h, group, "join"))
    for _ in range(computers):
        await press(h, owner, h.table(group), lobby_button(h, group, "bot"))
    await press(h, owner, h.table(group), lobby_button(h, group, "start"))
    await h.settle()
    assert h.app is not None
    game = await h.app.bot_data["cardroom"].play.snapshot_in_topic(group.id, 0)
    assert game is not None and game.game_key == key and game.status == "playing"
    assert [info.user_id for info in game.seats[: len(players)]] == [u.id for u in players]
    return int(game.game_id)


async def table_in_group(
    h: Harness,
    key: str,
    players: Sequence[str] = ("Anna", "Boris"),
    onlooker: str = "Carla",
    *,
    languages: Sequence[str] = (),
    computers: int = 0,
) -> tuple[int, list[FakeUser], FakeUser, FakeChat]:
    """A game of ``key`` in a group: ``players`` at the table (the first opened it), then
    ``computers``, and ``onlooker``, a member of the group who does not play; each speaks his
    language of ``languages`` (players first, English where none is given). The game's id,
    the players, the onlooker and the group."""
    spoken = [*languages, *["en"] * (len(players) + 1 - len(languages))]
    users = [
        h.api.add_user(name, started=True, language_code=language)
        for name, language in zip((*players, onlooker), spoken, strict=True)
    ]
    *seated, member = users
    group = h.api.add_group("Card club", admins=[seated[0]], members=[*seated[1:], member])
    game_id = await start_game(h, group, key, seated, computers)
    return game_id, seated, member, group


async def write_state(h: Harness, game_id: int, state: object) -> GameSnapshot:
    """Replace the game's state by ``state`` (as a step of its own) and publish it, as the
    bot does after a press: the pages open on the game see it at once."""
    assert h.app is not None
    room = h.app.bot_data["cardroom"]
    play = room.play
    async with play.locks.hold(game_id), play.db.transaction() as session:
        game = await play.store.load(session, game_id)
        snapshot: GameSnapshot = await play.store.commit_step(
            game, state, (), seat=None, source="rigged", action=None, now=h.clock()
        )
    room.publisher.publish(snapshot)
    return snapshot


def assert_watched_blind(
    views: Sequence[dict[str, Any]], face_up: Callable[[dict[str, Any]], set[str]]
) -> None:
    """Every view an onlooker was sent: no seat, nothing to press, and no card named but
    those ``face_up`` says the view shows to everyone."""
    assert views, "the onlooker was sent the game"
    for view in views:
        assert view["seat"] is None and view["moves"] == [], view
        named = card_codes(view)
        assert named <= face_up(view), (view.get("version"), named - face_up(view))
