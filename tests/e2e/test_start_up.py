"""A start: timers at once, then a redraw of only the games whose messages may be behind."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from bot.app import GC_THRESHOLD, settle
from bot.storage.database import Database
from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import two_player_game
from tests.fakes import FakeBotApi

LIMITED = ("sendMessage", "editMessageText")


def sent(api: FakeBotApi) -> int:
    return sum(len(api.calls_of(method)) for method in LIMITED)


async def test_a_restart_after_everything_was_delivered_sends_nothing(harness: Harness) -> None:
    h = harness
    await two_player_game(h)
    await h.settle()
    before = sent(h.api)
    await h.stop()
    await h.start()
    await h.settle()
    assert sent(h.api) == before, "nothing was behind, so nothing is redrawn"


async def test_a_restart_redraws_a_game_whose_messages_were_behind(harness: Harness) -> None:
    h = harness
    anna, _boris, group = await two_player_game(h)
    await h.settle()
    await h.stop()
    # As if the bot died between committing a move and delivering it: the game is one
    # version ahead of what the chats show.
    db = Database.from_url(h.database_url)
    async with db.transaction() as session:
        await session.execute(text("UPDATE games SET shown_version = version - 1"))
    await db.close()
    before = sent(h.api)
    await h.start()
    await h.settle()
    assert sent(h.api) > before, "the game's table and panels were drawn again"
    assert "Round 1" in h.table(group).text
    assert h.panel(anna) is not None


@pytest.fixture
def restore_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_settling_freezes_what_lives_for_ever_and_makes_collections_rarer(
    restore_gc: None,
) -> None:
    settle()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == GC_THRESHOLD
