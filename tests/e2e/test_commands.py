"""The commands and the menus, as a user meets them."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.e2e.harness import Harness
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeUser


async def say(h: Harness, user: FakeUser, chat: FakeChat | None, text: str) -> str:
    """Send a command and return the bot's reply text."""
    target = chat if chat is not None else user
    count = len(h.api.bot_messages(target))
    await h.api.send_text(user, chat, text)
    await h.api.wait_until(lambda: len(h.api.bot_messages(target)) > count)
    await h.settle()
    return h.api.bot_messages(target)[-1].text


async def test_command_menus_are_registered_for_private_chats_and_groups(
    harness: Harness,
) -> None:
    scopes = {
        call["scope"]["type"]: call["commands"] for call in harness.api.calls_of("setMyCommands")
    }
    private = {c["command"] for c in scopes["all_private_chats"]}
    group = {c["command"] for c in scopes["all_group_chats"]}
    assert {"new", "rules", "stats", "top", "help", "language"} <= private
    assert {"new", "cancel", "rules", "top", "help"} <= group


async def test_help_rules_and_start(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    assert "/new" in await say(h, anna, None, "/start")
    assert "/rules" in await say(h, anna, None, "/help")
    rules = await say(h, anna, None, "/rules rank")
    assert "Rank" in rules and "joker" in rules
    picker = await say(h, anna, None, "/rules")
    assert "Which game" in picker
    message = api.bot_messages(anna)[-1]
    await press(h, anna, message, "Rank")
    assert "joker" in api.bot_messages(anna)[-1].text


async def test_bare_new_offers_the_games_and_cancel_ends_the_lobby(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    assert "Which game" in await say(h, anna, group, "/new")
    picker = api.bot_messages(group)[-1]
    await press(h, anna, picker, "Rank")
    lobby = h.table(group)
    assert "Rank — a new game" in lobby.text
    second = await say(h, boris, group, "/new rank")
    assert "already a game open here" in second
    refused = await say(h, boris, group, "/cancel")
    assert "Only the player who opened the game" in refused
    assert "cancelled" in await say(h, anna, group, "/cancel")
    assert "was cancelled" in lobby.text
    assert "Rank — a new game" in await say(h, boris, group, "/new rank")


async def test_cancel_during_a_game_keeps_its_last_table_above_the_line(harness: Harness) -> None:
    from tests.e2e.test_absent_players import two_player_game  # which imports this module

    h, api = harness, harness.api
    anna, _boris, group = await two_player_game(h)
    playing = h.table(group).text
    assert "Round 1" in playing and "To move" in playing
    assert "cancelled" in await say(h, anna, group, "/cancel")
    table = h.table(group)
    lines = table.text.splitlines()
    assert lines[-1] == "🚫 Rank was cancelled.", lines
    assert "Round 1" in table.text and "Anna" in table.text and "Boris" in table.text
    assert "To move" not in table.text, "nobody is to move any more"
    assert api.buttons(table) == []


async def test_old_menus_expire_instead_of_acting_on_a_chat_that_moved_on(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    assert "Which game" in await say(h, anna, group, "/new")
    picker = api.bot_messages(group)[-1]
    await say(h, anna, group, "/language")
    languages = api.bot_messages(group)[-1]
    h.clock.advance(11 * 60)
    for menu, button in ((picker, "Rank"), (languages, "Русский")):
        answer = await press(h, anna, menu, button)
        assert answer.text == "This menu has expired — send the command again.", button
    assert not any(m.text.startswith("🎴") for m in api.bot_messages(group)), "no lobby opened"
    assert "Which game" in await say(h, anna, group, "/new"), "still English: nothing changed"


async def test_a_lobby_option_says_its_new_value_at_once_and_reads_in_full(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    options = [row for row in api.buttons(lobby) if row[0][0].startswith(("⏱", "😴", "🔁"))]
    assert len(options) == 3 and all(len(row) == 1 for row in options), "one a row, in full"
    answer = await press(h, anna, lobby, options[0][0][0])
    assert answer.text is not None and answer.text.startswith("⏱")
    assert answer.text != options[0][0][0], "the new value, before the lobby is redrawn"
    assert answer.text in [text for row in api.buttons(h.table(group)) for text, _ in row]


async def test_unknown_game_and_empty_boards(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    assert "I do not know that game" in await say(h, anna, group, "/new chess")
    assert "Nobody has finished a game here yet" in await say(h, anna, group, "/top")
    assert "you have not finished a game yet" in await say(h, anna, group, "/stats")


async def test_a_flood_wait_is_retried_and_never_surfaces(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    api.fail_next("editMessageText", 429, "Too Many Requests: retry after 1", retry_after=1)
    await press(h, boris, h.table(group), "✋ Join")
    await api.wait_until(lambda: "2. Boris" in h.table(group).text, timeout=10)
    assert api.stats.errors[("editMessageText", 429)] == 1


async def test_a_reply_telegram_refuses_is_one_warning_line(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot was muted in the group (or removed a moment ago): the reply is refused, and
    the log says so in one line — the chat and the reason — not as a bug."""
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    refusal = "Bad Request: not enough rights to send text messages to the chat"
    api.fail_next("sendMessage", 400, refusal, chat_id=group)
    await api.send_text(anna, group, "/help")
    await api.wait_until(lambda: api.stats.errors[("sendMessage", 400)] == 1)
    await h.settle()
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    said = lines[0].getMessage()
    assert str(group.id) in said and "not enough rights" in said.lower()
    assert lines[0].exc_info is None


async def test_a_lobby_cancelled_while_its_creator_is_greeted_stays_cancelled(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The creator is greeted in his private chat before he is seated; a /cancel that gets in
    meanwhile wins, and nothing is left unhandled (a race a loaded machine showed)."""
    from bot.telegram.handlers.commands import SEAT_CREATOR

    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    assert h.app is not None
    follow_ups = h.app.bot_data["cardroom"].outbox.follow_ups
    seat = follow_ups[SEAT_CREATOR]

    async def greeted_while_cancelled(then: Any, said: Any) -> None:
        await h.api.send_text(anna, group, "/cancel")
        await h.api.wait_until(lambda: any("cancelled" in m.text for m in api.bot_messages(group)))
        await seat(then, said)

    monkeypatch.setitem(follow_ups, SEAT_CREATOR, greeted_while_cancelled)
    await api.send_text(anna, group, "/new rank")
    # A loaded machine may pause longer than settle's quiet moment anywhere in between.
    await api.wait_until(
        lambda: bool(api.bot_messages(group)) and "cancelled" in api.bot_messages(group)[0].text,
        timeout=10,
    )
    await h.settle()
    await api.wait_until(
        lambda: any("was cancelled" in m.text for m in api.bot_messages(group)), timeout=10
    )
    assert not any(m.text.startswith("🎴") for m in api.bot_messages(group)), "no open lobby"
    assert not [r for r in caplog.records if r.levelname == "ERROR"], "nothing unhandled"


async def test_a_game_picker_pressed_while_a_lobby_is_open_answers_with_a_toast(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, group, "/new")
    picker = api.bot_messages(group)[-1]
    await say(h, anna, group, "/new rank")
    before = len(api.bot_messages(group))
    answer = await api.press(anna, picker, "Rank")
    await api.wait_until(lambda: answer.answered)
    await h.settle()
    assert answer.text is not None and "already a game open" in answer.text
    assert len(api.bot_messages(group)) == before, "nothing posted into the group"


async def test_adding_and_removing_a_computer_answers_in_words(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, None, "/start")
    await say(h, anna, group, "/new rank")
    lobby = next(m for m in reversed(api.bot_messages(group)) if "a new game" in m.text)
    added = await api.press(anna, lobby, "🤖 Add computer")
    await api.wait_until(lambda: added.answered)
    await h.settle()
    assert added.text == "🤖 A computer takes a seat."
    removed = await api.press(anna, lobby, "Remove computer")
    await api.wait_until(lambda: removed.answered)
    assert removed.text == "🤖 A computer leaves its seat."
