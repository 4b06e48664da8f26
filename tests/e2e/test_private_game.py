"""A game against the computer in a private chat: its options before the deal, in one message
that becomes the game (issue #35, item 4); plain text there is pointed to /help (item 8)."""

from __future__ import annotations

from tests.e2e.harness import Harness
from tests.fakes import FakeCallback, FakeMessage, FakeUser


async def press(h: Harness, user: FakeUser, message: FakeMessage, button: str) -> FakeCallback:
    callback = await h.api.press(user, message, button)
    await h.api.wait_until(lambda: callback.answered, timeout=10)
    await h.settle()
    return callback


def game_message(h: Harness, user: FakeUser) -> FakeMessage:
    """The game's one message in his private chat (they open with 🎴)."""
    return next(m for m in reversed(h.api.bot_messages(user)) if m.text.startswith("🎴"))


def button_texts(h: Harness, message: FakeMessage) -> list[str]:
    return [text for row in h.api.buttons(message) for text, _ in row]


async def open_solo(h: Harness, user: FakeUser, command: str) -> FakeMessage:
    """``/new <game>`` in his private chat: the lobby that offers the options."""
    await h.api.send_text(user, None, command)
    await h.api.wait_until(lambda: any(m.text.startswith("🎴") for m in h.api.bot_messages(user)))
    await h.settle()
    return game_message(h, user)


async def deal_solo(h: Harness, user: FakeUser, command: str) -> FakeMessage:
    """``/new <game>`` in his private chat, then Deal (in whatever language he reads): the
    game, dealt with its solo options."""
    lobby = await open_solo(h, user, command)
    deal = next(text for row in h.api.buttons(lobby) for text, data in row if _deals(data))
    await press(h, user, lobby, deal)
    await h.api.wait_until(lambda: "🤖" in game_message(h, user).text and not _is_lobby(h, user))
    await h.settle()
    return game_message(h, user)


def _deals(data: object) -> bool:
    return isinstance(data, str) and data.startswith("L:") and data.endswith(":start")


def _is_lobby(h: Harness, user: FakeUser) -> bool:
    return any(_deals(data) for row in h.api.buttons(game_message(h, user)) for _, data in row)


async def test_rank_in_private_offers_a_short_round_limit_before_the_deal(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    lobby = await open_solo(h, anna, "/new rank")
    assert "Round 1" not in lobby.text, "nothing dealt yet"
    assert "🔁 25 rounds max" in lobby.text, "one person's sitting: the shortest game"
    assert "Anna" in lobby.text and "🤖 Computer 1" in lobby.text
    buttons = button_texts(h, lobby)
    assert "🃏 Deal" in buttons and any("Cancel" in b for b in buttons)
    assert not any("Join" in b for b in buttons), "nobody else joins a private game"

    # The round limit goes to its next choice, said at once and shown on the lobby.
    answer = await press(h, anna, lobby, "🔁 25 rounds max")
    assert answer.text == "🔁 50 rounds max"
    await api.wait_until(lambda: "🔁 50 rounds max" in button_texts(h, lobby))

    await press(h, anna, lobby, "🃏 Deal")
    await api.wait_until(lambda: "Round 1 of 50" in lobby.text)
    await h.settle()
    games = [m for m in api.bot_messages(anna) if m.text.startswith("🎴")]
    assert games == [lobby], "the lobby became the game: one message"
    assert "🃏 Deal" not in button_texts(h, lobby)


async def test_rank_in_private_deals_the_short_game_with_one_press(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    game = await deal_solo(h, anna, "/new rank")
    assert "Round 1 of 25" in game.text


async def test_progression_in_private_plays_to_100_unless_chosen_otherwise(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    lobby = await open_solo(h, anna, "/new progression")
    assert "100" in lobby.text and "200" not in lobby.text, lobby.text
    target = next(text for text in button_texts(h, lobby) if "100" in text)
    answer = await press(h, anna, lobby, target)
    assert answer.text is not None and "200" in answer.text


async def test_a_private_lobby_can_be_cancelled(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    lobby = await open_solo(h, anna, "/new rank")
    cancel = next(text for text in button_texts(h, lobby) if "Cancel" in text)
    await press(h, anna, lobby, cancel)
    await api.wait_until(lambda: "cancelled" in lobby.text)
    assert button_texts(h, lobby) == []


async def test_plain_text_in_private_is_pointed_to_help_once_in_a_while(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    await api.send_text(anna, None, "hello bot")
    await api.wait_until(lambda: bool(api.bot_messages(anna)), timeout=5)
    await h.settle()
    said = api.bot_messages(anna)
    assert len(said) == 1 and "/help" in said[0].text, [m.text for m in said]
    await api.send_text(anna, None, "are you there?")
    await api.send_text(anna, None, "/help")
    await api.wait_until(lambda: len(api.bot_messages(anna)) > 1, timeout=5)
    await h.settle()
    assert len(api.bot_messages(anna)) == 2, "the second text is not answered again; /help is"


async def test_plain_text_is_pointed_in_his_language(harness: Harness) -> None:
    api = harness.api
    ivan = api.add_user("Иван", language_code="ru")
    await api.send_text(ivan, None, "привет")
    await api.wait_until(lambda: bool(api.bot_messages(ivan)), timeout=5)
    assert "/help" in api.bot_messages(ivan)[0].text
    assert "команд" in api.bot_messages(ivan)[0].text
