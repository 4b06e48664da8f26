"""A whole game of Rank through the real bot and the fake Bot API, as players see it."""

from __future__ import annotations

from tests.e2e.harness import Harness
from tests.e2e.test_private_game import deal_solo
from tests.fakes import FakeCallback, FakeChat, FakeMessage, FakeUser, render_chat


async def press(h: Harness, user: FakeUser, message: object, button: str) -> FakeCallback:
    callback = await h.api.press(user, message, button)  # type: ignore[arg-type]
    await h.api.wait_until(lambda: callback.answered, timeout=10)
    await h.settle()
    return callback


async def open_lobby(h: Harness, group: FakeChat, creator: FakeUser) -> None:
    await h.api.send_text(creator, group, "/new rank")
    await h.api.wait_until(lambda: bool(h.api.bot_messages(group)))
    await h.settle()


async def play_to_the_end(h: Harness, group: FakeChat, humans: list[FakeUser]) -> int:
    """Each human presses his panel's first button when it has any; computers move on ticks."""
    presses = 0
    for _ in range(2000):
        if "Game over" in h.table(group).text:
            return presses
        moved = False
        for user in humans:
            buttons = h.panel_buttons(user)
            if not buttons:
                continue
            await press(h, user, h.panel(user), buttons[0][0])
            presses += 1
            moved = True
        if not moved:
            await h.tick(1.5)  # a computer's pause passes
    raise AssertionError("the game did not end")


async def test_three_player_game_with_deep_link_join_and_a_computer(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    boris = api.add_user("Boris")
    carla = api.add_user("Carla", started=False)
    group = api.add_group("Card club", admins=[anna], members=[boris, carla])

    await open_lobby(h, group, anna)
    lobby = h.table(group)
    assert "Rank" in lobby.text and "1. Anna" in lobby.text

    # Carla never opened the bot: Join answers with a deep link; following it joins her.
    answer = await press(h, carla, lobby, "✋ Join")
    assert answer.url is not None and answer.url.startswith("https://t.me/cardroom_bot?start=")
    assert "Carla" not in h.table(group).text
    await api.open_link(carla, answer.url)
    await api.wait_until(lambda: "You joined" in api.last_message(carla).text)
    await h.settle()
    assert "You joined" in api.last_message(carla).text
    assert "2. Carla" in h.table(group).text

    await press(h, anna, h.table(group), "🤖 Add computer")
    # The shortest round limit keeps the test quick: about 10 minutes → 25 rounds.
    await press(h, anna, h.table(group), "🔁 ~10 min of rounds")
    assert "25 rounds" in h.table(group).text

    refused = await press(h, boris, h.table(group), "▶️ Start")
    assert refused.text == "Only the player who opened the game or a chat admin can do that."
    await press(h, anna, h.table(group), "▶️ Start")
    table = h.table(group)
    assert table.message_id == lobby.message_id, "the lobby message becomes the table"
    assert "Round 1 of 25" in table.text
    assert h.panel(anna) is not None and h.panel(carla) is not None
    assert h.panel(boris) is None

    # A non-player sending a player's button data is refused; nothing changes.
    while not (h.panel_buttons(anna) or h.panel_buttons(carla)):
        await h.tick(1.5)  # the computer moves first
    mover = anna if h.panel_buttons(anna) else carla
    first = h.panel_buttons(mover)[0][1]
    before = h.table(group).text
    foreign = await api.press_data(boris, group, table.message_id, first)
    await api.wait_until(lambda: foreign.answered)
    await h.settle()
    assert foreign.text == "You are not playing in this game."
    assert h.table(group).text == before

    presses = await play_to_the_end(h, group, [anna, carla])
    assert presses > 3
    final = h.table(group)
    assert final.message_id == lobby.message_id
    assert "🥇" in final.text and "🔄 Rematch" in [b for row in api.buttons(final) for b, _ in row]
    assert "Game over" in h.panel(anna).text
    assert api.unanswered_callbacks() == []

    # No hand ever appears in the group.
    assert "Your hand" not in render_chat(api, group)

    await api.send_text(anna, group, "/history")
    await api.wait_until(lambda: "Last games here" in api.last_message(group).text)
    history = api.last_message(group).text
    assert "Anna" in history and "Carla" in history and "Boris" not in history


async def test_stale_press_and_garbage_data_change_nothing(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await open_lobby(h, group, anna)
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    mover = anna if h.panel_buttons(anna) else boris
    panel = h.panel(mover)
    assert panel is not None
    # A game action (not the joker's picker, which changes nothing in the game).
    label, old_data = next(b for b in h.panel_buttons(mover) if b[1].startswith("A:"))
    await press(h, mover, panel, label)
    table = h.table(group).text

    stale = await api.press_data(mover, mover, panel.message_id, old_data)
    garbage = await api.press_data(mover, mover, panel.message_id, "A:1:x:;DROP TABLE")
    await api.wait_until(lambda: stale.answered and garbage.answered)
    await h.settle()
    assert stale.text == "That button is out of date — use your latest message."
    assert garbage.text == "This button does not work any more."
    assert h.table(group).text == table
    assert api.unanswered_callbacks() == []


async def test_timeout_plays_for_the_absent_player(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await open_lobby(h, group, anna)
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    mover = "Anna" if h.panel_buttons(anna) else "Boris"
    await h.tick(61)
    assert f"⏰ {mover} ran out of time" in h.table(group).text


async def test_game_survives_a_restart_with_a_deadline_that_fell_due_meanwhile(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await open_lobby(h, group, anna)
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    table_id = h.table(group).message_id
    mover = "Anna" if h.panel_buttons(anna) else "Boris"

    await h.stop()
    h.clock.advance(120)  # the turn window closes while the bot is down
    await h.start()
    await h.settle()
    table = h.table(group)
    assert table.message_id == table_id, "the same table message goes on being edited"
    assert f"⏰ {mover} ran out of time" in table.text
    # And the game goes on: whoever is to move now has buttons.
    assert h.panel_buttons(anna) or h.panel_buttons(boris)


async def test_new_in_a_private_chat_deals_a_game_against_the_computer(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    await deal_solo(h, anna, "/new rank")  # its options first, then Deal
    await api.wait_until(lambda: h.panel(anna) is not None)

    def game() -> FakeMessage:
        """The game's one message in her chat (the table and her hand together)."""
        return next(m for m in reversed(api.bot_messages(anna)) if m.text.startswith("🎴"))

    assert "Round 1" in game().text and "🤖 Computer 1" in game().text
    for _ in range(500):
        if "Game over" in game().text:
            break
        buttons = h.panel_buttons(anna)
        if buttons:
            await press(h, anna, h.panel(anna), buttons[0][0])
        else:
            await h.tick(1.5)
    final = game()
    assert "Game over" in final.text and "rating" in final.text
    assert "🔄 Rematch" in [b for row in api.buttons(final) for b, _ in row]
    live = [m for m in api.bot_messages(anna) if m.text.startswith("🎴") and not m.deleted]
    assert live == [final], "its end came as a new message (it notifies), the old one gone"
