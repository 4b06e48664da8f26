"""A send or an edit lost to the network is retried: tables and panels catch up by themselves.

The fake's transport fails the next call of a method with a network error (``NetworkError``
or ``TimedOut``), either before the call reaches the fake or after it took effect. The
publisher retries after a pause (``RETRY_DELAYS``) and renders the newest snapshot when it
does. These tests make no further move after a fault, so only the retry can repair what was
lost. The bot's clock is frozen, so what a message should say can be rendered here exactly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.i18n import translator
from bot.services.types import GameSnapshot
from bot.telegram.handlers import Cardroom
from bot.telegram.render import Content, panel_content, table_content
from tests.e2e import harness as e2e
from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_rank_game import press
from tests.fakes import Button, FakeBotApi, FakeChat, FakeMessage, FakeUser

RETRYING = "failed"  # "Delivery to chat … failed (…); retrying in 1 s"


@dataclass
class FrozenClock(e2e.TestClock):
    """The bot's time stands still unless a test moves it: renders are reproducible."""

    start: float = field(default_factory=time.time)

    def __call__(self) -> float:
        return self.start + self.offset


@dataclass
class Table:
    anna: FakeUser
    boris: FakeUser
    clara: FakeUser
    group: FakeChat
    other: FakeChat
    game_id: int


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    api = FakeBotApi(flood_limits=False)
    harness = Harness(api, sqlite_url(tmp_path), clock=FrozenClock())
    await harness.start()
    yield harness
    await harness.stop()


@pytest.fixture
async def lobby(harness: Harness) -> Table:
    """A Rank lobby of Anna (host) and Boris in one group; Clara sits in another group."""
    h, api = harness, harness.api
    anna, boris, clara = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Clara")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    other = api.add_group("Night owls", admins=[clara])
    await api.send_text(anna, group, "/new rank")
    await api.wait_until(lambda: bool(api.bot_messages(group)))
    await h.settle()
    await press(h, boris, h.table(group), "✋ Join")
    snapshot = await room(h).play.snapshot_in_topic(group.id, 0)
    assert snapshot is not None
    return Table(anna, boris, clara, group, other, snapshot.game_id)


@pytest.fixture
async def game(harness: Harness, lobby: Table) -> Table:
    await press(harness, lobby.anna, harness.table(lobby.group), "▶️ Start")
    return lobby


def room(h: Harness) -> Cardroom:
    assert h.app is not None
    found: Cardroom = h.app.bot_data["cardroom"]
    return found


async def snapshot_of(h: Harness, game_id: int) -> GameSnapshot:
    return await room(h).play.snapshot(game_id)


def shown(api: FakeBotApi, message: FakeMessage) -> tuple[str | None, list[list[Button]]]:
    """What a message says, as the bot sent it: its HTML and its buttons."""
    return message.raw_text, api.buttons(message)


def meant(content: Content) -> tuple[str | None, list[list[Button]]]:
    rows = [[(b.text, b.data or b.url or "") for b in row] for row in content.keyboard]
    return content.text, rows


async def assert_up_to_date(h: Harness, table: Table) -> GameSnapshot:
    """The table and every panel show exactly what the game's current state renders to."""
    api, now = h.api, h.clock()
    snapshot = await snapshot_of(h, table.game_id)
    assert snapshot.table_message_id is not None
    group_message = api.message(table.group, snapshot.table_message_id)
    expected = table_content(translator(snapshot.chat_language), snapshot, now)
    assert shown(api, group_message) == meant(expected)
    for seat in snapshot.seats:
        assert seat.user_id is not None and seat.dm_message_id is not None
        panel = api.message(seat.user_id, seat.dm_message_id)
        expected = panel_content(translator(seat.language), snapshot, seat.seat, now)
        assert shown(api, panel) == meant(expected), seat.name
    return snapshot


def panels(api: FakeBotApi, user: FakeUser) -> list[FakeMessage]:
    return [m for m in api.bot_messages(user) if "Your hand" in (m.text or "")]


def mover_action(h: Harness, table: Table) -> tuple[FakeUser, FakeMessage, str]:
    """The player whose move it is, his panel and the data of its first game button."""
    for user in (table.anna, table.boris):
        panel = h.panel(user)
        actions = [data for _, data in h.panel_buttons(user) if data.startswith("A:")]
        if panel is not None and actions:
            return user, panel, actions[0]
    raise AssertionError("nobody has a move")


def sends_to(api: FakeBotApi, chat: FakeChat | FakeUser) -> list[int]:
    """Indexes in the call log of every sendMessage to ``chat``."""
    chat_id = api.chat(chat).id
    return [
        index
        for index, call in enumerate(api.calls)
        if call.method == "sendMessage" and call.params.get("chat_id") == chat_id
    ]


def retries(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "bot.telegram.sender.live" and RETRYING in r.getMessage()
    ]


async def test_a_lost_panel_is_sent_again_while_other_chats_are_served(
    harness: Harness, lobby: Table, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    api.network_error_next("sendMessage")  # the first hand dealt never reaches Telegram
    start = await api.press(lobby.anna, h.table(lobby.group), "▶️ Start")
    await api.wait_until(lambda: start.answered and bool(retries(caplog)))
    # During the pause before the retry another group opens a lobby, and gets it at once.
    await api.send_text(lobby.clara, lobby.other, "/new trumps")
    await api.wait_until(lambda: bool(api.bot_messages(lobby.other)))
    missing = [u for u in (lobby.anna, lobby.boris) if not panels(api, u)]
    assert len(missing) == 1, "one hand is waiting for its retry"
    await h.settle()

    # The retry delivered it: one hand each, no copy, and it came after Clara's lobby.
    assert [len(panels(api, u)) for u in (lobby.anna, lobby.boris)] == [1, 1]
    assert sends_to(api, lobby.other)[0] < sends_to(api, missing[0])[-1]
    assert len(retries(caplog)) == 1
    snapshot = await assert_up_to_date(h, lobby)

    # The game goes on from the hand that came late.
    played = await press(h, *mover_action(h, lobby))
    assert played.text in (None, "")
    assert (await assert_up_to_date(h, lobby)).version == snapshot.version + 1


async def test_a_lost_edit_is_made_again_with_the_latest_state(
    harness: Harness, game: Table, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    before = await assert_up_to_date(h, game)
    for _ in range(3):
        api.network_error_next("editMessageText")
        await press(h, *mover_action(h, game))
    assert len(retries(caplog)) == 3
    after = await assert_up_to_date(h, game)
    assert after.version == before.version + 3
    # Every message was edited in place: nothing was sent anew.
    assert [len(panels(api, u)) for u in (game.anna, game.boris)] == [1, 1]
    assert len([m for m in api.bot_messages(game.group) if (m.text or "").startswith("🎴")]) == 1


async def test_an_edit_that_went_through_before_a_timeout_is_not_repeated_as_a_change(
    harness: Harness, game: Table, caplog: pytest.LogCaptureFixture
) -> None:
    h, api = harness, harness.api
    api.network_error_next("editMessageText", timeout=True, processed=True)
    await press(h, *mover_action(h, game))
    # The retry finds the message already as it should be: Telegram says "not modified".
    assert len(retries(caplog)) == 1
    assert api.stats.errors[("editMessageText", 400)] == 1
    await assert_up_to_date(h, game)


async def test_a_send_that_went_through_before_a_timeout_leaves_one_stale_copy(
    harness: Harness, lobby: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """What the publisher cannot know: a sendMessage that timed out may have been delivered.

    Telegram gives no way to ask, so the retry sends the panel again. The first copy stays
    as it was, never edited; its buttons carry the version it showed, so once the game moves
    on they are refused as stale and change nothing.
    """
    h, api = harness, harness.api
    api.network_error_next("sendMessage", timeout=True, processed=True)
    await press(h, lobby.anna, h.table(lobby.group), "▶️ Start")
    assert len(retries(caplog)) == 1
    copies = {u.first_name: panels(api, u) for u in (lobby.anna, lobby.boris)}
    assert sorted(len(c) for c in copies.values()) == [1, 2], copies
    orphan, live = next(c for c in copies.values() if len(c) == 2)
    assert shown(api, orphan) == shown(api, live)
    owner = lobby.anna if len(copies["Anna"]) == 2 else lobby.boris
    await assert_up_to_date(h, lobby)  # the bot keeps the second copy, and only that one

    # Play on until the owner's live panel has changed; the orphan never does.
    stale = [data for row in api.buttons(orphan) for _, data in row if data.startswith("A:")]
    for _ in range(3):
        await press(h, *mover_action(h, lobby))
    snapshot = await assert_up_to_date(h, lobby)
    assert orphan.history == [] and live.history != []
    if stale:
        refused = await api.press_data(owner, owner, orphan.message_id, stale[0])
        await api.wait_until(lambda: refused.answered)
        await h.settle()
        assert refused.text is not None and "out of date" in refused.text.lower()
        assert (await snapshot_of(h, lobby.game_id)).version == snapshot.version
        await api.wait_until(lambda: orphan.deleted)  # pressed once, the copy goes


async def test_a_lobby_whose_send_timed_out_after_telegram_took_it_keeps_one_live_copy(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The copy Telegram took but whose answer was lost is not the lobby: pressing it says
    so and removes it; the creator is seated all the same, and the live copy works."""
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna", started=False), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    api.start_bot(anna)  # she opened the bot's chat, but the bot has no record of it yet
    api.network_error_next("sendMessage", timeout=True, processed=True)  # her greeting
    await api.send_text(anna, group, "/new rank")
    await api.wait_until(lambda: bool(api.bot_messages(group)))
    await h.settle()
    lobby = h.table(group)
    assert "1. Anna" in lobby.text, "the creator is seated whatever became of her greeting"

    await api.send_text(anna, group, "/cancel")
    await api.wait_until(lambda: "was cancelled" in lobby.text)
    await h.settle()
    api.network_error_next("sendMessage", timeout=True, processed=True)  # the next lobby
    await api.send_text(anna, group, "/new rank")
    await api.wait_until(lambda: len(retries(caplog)) >= 1, timeout=10)
    await h.settle()
    copies = [m for m in api.bot_messages(group) if "a new game" in (m.text or "")]
    assert len(copies) == 2, "Telegram took the first send; the bot, not knowing, sent again"
    stray, live = copies
    answer = await press(h, boris, stray, "✋ Join")
    assert answer.text == "This message is out of date — use the newest one."
    await api.wait_until(lambda: stray.deleted)
    await press(h, boris, live, "✋ Join")
    assert "2. Boris" in live.text
