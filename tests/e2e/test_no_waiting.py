"""Nobody waits on anybody: a handler decides, answers and hands the rest to the sender, so no
account, group or topic can slow the bot for anyone else (issue #27)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.telegram.sender.budget import Limits, Priority
from bot.telegram.sender.replies import ReplyGate
from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.fakes import FakeBotApi, FakeChat, FakeMessage, FakeUser

BOARD = "B:rank:ch:0"


@pytest.fixture
async def strict(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with its production budget against Telegram's strict windows."""
    harness = Harness(FakeBotApi(flood_limits=True), sqlite_url(tmp_path), limits=Limits())
    await harness.start()
    yield harness
    await harness.stop()


def old_board(api: FakeBotApi, group: FakeChat) -> FakeMessage:
    """A board the bot posted a while ago (the bot's memory of it lost, as after a restart)."""
    message = api._new_message(group, api.bot)
    message.text = "🏆 Rank — best players here"
    message.reply_markup = {"inline_keyboard": [[{"text": "Next ▶️", "callback_data": BOARD}]]}
    return message


async def rank_game(h: Harness, group: FakeChat, players: list[FakeUser]) -> None:
    for player in players:
        await h.api.send_text(player, None, "/start")
    await h.api.send_text(players[0], group, "/new rank")
    await h.api.wait_until(lambda: any("a new game" in m.text for m in h.api.bot_messages(group)))
    await h.settle()
    for player in players[1:]:
        await press(h, player, h.table(group), "✋ Join")
    await press(h, players[0], h.table(group), "▶️ Start")


async def test_a_press_elsewhere_is_answered_while_300_board_presses_wait(
    strict: Harness,
) -> None:
    h, api = strict, strict.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    table = api.add_group("Card club", admins=[anna], members=[boris])
    await rank_game(h, table, [anna, boris])
    mallory = api.add_user("Mallory")
    storm = api.add_group("Storm", admins=[mallory])
    boards = [old_board(api, storm) for _ in range(300)]

    presses = [await api.press_data(mallory, storm, b.message_id, BOARD) for b in boards]
    panel = h.panel(anna) if h.panel(anna) and h.panel_buttons(anna) else h.panel(boris)
    mover = anna if panel is h.panel(anna) else boris
    assert panel is not None
    label, _ = next(b for b in h.panel_buttons(mover) if b[1] and b[1].startswith("A:"))
    move = await api.press(mover, panel, label)
    room = h.app.bot_data["cardroom"] if h.app else None
    assert room is not None
    # However loaded the machine (300 boards are 300 queries), the move is answered while
    # the storm's redraws still wait for their group's window — not after them.
    await api.wait_until(lambda: move.answered, timeout=60)
    assert room.notes.busy, "the board redraws still wait for the storm's group"
    assert room.notes.waiting <= room.notes.per_chat, "what waits is bounded"
    await api.wait_until(lambda: all(p.answered for p in presses), timeout=60)


async def test_information_a_busy_group_cannot_take_goes_to_the_askers_private_chat(
    strict: Harness,
) -> None:
    h, api = strict, strict.api
    assert h.app is not None
    room = h.app.bot_data["cardroom"]
    room.notes.divert_after, room.notes.drop_after = 0.3, 5.0
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    assert "Hi, Anna" in await say(h, anna, None, "/start")
    for _ in range(Limits().group_calls):  # the group's window is full: its games used it
        await room.publisher.budget.take(group.id, Priority.TABLE)
    before = len(api.bot_messages(group))
    await api.send_text(anna, group, "/help")
    await api.send_text(boris, group, "/rules rank")  # Boris never started the bot
    await api.wait_until(lambda: "From «Card club»" in api.bot_messages(anna)[-1].text)
    assert "/rules" in api.bot_messages(anna)[-1].text
    await asyncio.sleep(1.0)
    assert len(api.bot_messages(group)) == before, "the group sees nothing"
    assert api.bot_messages(boris) == [], "nowhere to go in time: dropped"


async def test_start_sends_a_panel_anew_only_when_it_is_buried(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await rank_game(h, group, [anna, boris])
    panel = h.panel(anna)
    assert panel is not None
    await say(h, anna, None, "/start")
    assert h.panel(anna) is panel and not panel.deleted, "in sight: only brought up to date"
    for n in range(5):
        await api.send_text(anna, None, f"hello {n}")
    await say(h, anna, None, "/start")
    await api.wait_until(lambda: h.panel(anna) is not panel)
    assert panel.deleted, "buried: it comes anew, the old one goes"
    renewed = h.panel(anna)
    for n in range(3):
        for m in range(5):
            await api.send_text(anna, None, f"again {n}.{m}")
        await say(h, anna, None, "/start")
    assert h.panel(anna) is renewed, "at most once a minute"


async def test_lobbies_opened_and_cancelled_in_a_loop_are_limited(harness: Harness) -> None:
    h, api = harness, harness.api
    assert h.app is not None
    h.app.bot_data["cardroom"].openings = ReplyGate(per_user=4, per_chat=8, per_private=10)
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, None, "/start")
    said = [await say(h, anna, group, command) for command in ["/new rank", "/cancel"] * 2]
    assert "enough new games" not in " ".join(said)
    assert "enough new games" in await say(h, anna, group, "/new rank")


async def test_an_aged_menu_answers_with_a_toast_and_costs_nothing(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, group, "/language")
    first = api.bot_messages(group)[-1]
    data = api.buttons(first)[0][0][1]
    await say(h, anna, group, "/language")
    await h.settle()
    assert api.buttons(first) == [], "replaced: its buttons went"
    calls = api.stats.by_chat_method.copy()
    pressed = await api.press_data(anna, group, first.message_id, str(data))  # an old client
    await api.wait_until(lambda: pressed.answered)
    await h.settle()
    assert pressed.text is not None and "expired" in pressed.text
    assert api.stats.by_chat_method == calls, "no call into the chat"
    # Ten minutes on, the newest one has aged too.
    menu = api.bot_messages(group)[-1]
    h.clock.advance(601)
    pressed = await api.press(anna, menu, api.buttons(menu)[0][0][0])
    await api.wait_until(lambda: pressed.answered)
    await h.settle()
    assert pressed.text is not None and "expired" in pressed.text
    assert api.buttons(menu) == []


async def test_a_members_standing_is_asked_once_a_minute_however_often_he_presses(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, None, "/start")
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    option = next(data for row in api.buttons(lobby) for _, data in row if ":o." in str(data))
    asked = len(api.calls_of("getChatMember"))
    for _ in range(5):  # Boris is neither the lobby's creator nor an admin
        refused = await api.press_data(boris, group, lobby.message_id, str(option))
        await api.wait_until(lambda pressed=refused: pressed.answered)
        assert refused.text is not None and "admin" in refused.text.lower()
    assert len(api.calls_of("getChatMember")) - asked == 1
