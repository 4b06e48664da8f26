"""Whole games of Your Trumps through the real bot and the fake Bot API, as players see them."""

from __future__ import annotations

import re

from bot.games.cards import Card, parse_card
from tests.e2e.harness import Harness
from tests.e2e.test_private_game import deal_solo
from tests.fakes import FakeCallback, FakeChat, FakeMessage, FakeUser

#: What only a panel says: its footer (the table says "To move:" and "🏁 Game over").
PANEL_MARKS = ("Your move", "Not your turn", "you finished")
#: What only a hand looks like: the panel's hand heading and its suit lines.
HAND_MARKS = re.compile(r"Your hand|^[♠♥♦♣]\ufe0f? ", re.MULTILINE)


async def press(h: Harness, user: FakeUser, message: FakeMessage, button: str) -> FakeCallback:
    callback = await h.api.press(user, message, button)
    await h.api.wait_until(lambda: callback.answered, timeout=10)
    await h.settle()
    return callback


def table(h: Harness, chat: FakeChat | FakeUser) -> FakeMessage:
    """The newest table (lobby, game or its end) in a group — or, in a private game's chat,
    its one message: the table and the hand together."""
    solo = isinstance(chat, FakeUser)
    return next(
        m
        for m in reversed(h.api.bot_messages(chat))
        if m.text.startswith(("🎴", "🚫"))
        and (solo or not any(mark in m.text for mark in PANEL_MARKS))
    )


def panel(h: Harness, user: FakeUser) -> FakeMessage | None:
    """The player's newest game panel in his private chat."""
    return next(
        (
            m
            for m in reversed(h.api.bot_messages(user))
            if m.text and any(mark in m.text for mark in PANEL_MARKS)
        ),
        None,
    )


def action_buttons(h: Harness, user: FakeUser) -> list[tuple[str, str]]:
    """The panel's game buttons as (label, engine action code)."""
    message = panel(h, user)
    if message is None:
        return []
    return [
        (label, data.split(":")[3])
        for row in h.api.buttons(message)
        for label, data in row
        if data and data.startswith("A:")
    ]


def my_trump(h: Harness, user: FakeUser) -> str | None:
    message = panel(h, user)
    found = re.search(r"Trumps: you ([♠♥♦♣])\ufe0f?", message.text or "") if message else None
    return found[1] if found else None


def choose(h: Harness, user: FakeUser) -> str | None:
    """The button a plain player presses: the cheapest beat, else Take; the lowest plain card."""
    buttons = action_buttons(h, user)
    if not buttons:
        return None
    codes = dict((code, label) for label, code in buttons)
    if any(code.startswith("t") for code in codes):
        return buttons[0][0]
    trump = my_trump(h, user)

    def cost(code: str) -> tuple[bool, int]:
        card: Card = parse_card(code[1:])
        return (card.suit is not None and card.suit.symbol == trump, card.rank)

    cards = sorted((code for code in codes if code.startswith("p")), key=cost)
    if cards:
        return codes[cards[0]]
    return codes["k"]


def cards_of(text: str) -> set[str]:
    return set(re.findall(r"(?:10|[2-9JQKA])[♠♥♦♣]", text))


def assert_no_hand_in(h: Harness, chat: FakeChat) -> None:
    """No version of any message in the group ever showed a hand."""
    for message in h.api.bot_messages(chat):
        for text in [message.text, *(v.text for v in message.history)]:
            assert not HAND_MARKS.search(text or ""), text


async def play_to_the_end(h: Harness, where: FakeChat | FakeUser, humans: list[FakeUser]) -> int:
    """Humans press their panels' buttons; a computer moves when its pause has passed."""
    presses = 0
    for _ in range(3000):
        if "Game over" in table(h, where).text:
            return presses
        moved = False
        for user in humans:
            label = choose(h, user)
            message = panel(h, user)
            if label is None or message is None:
                continue
            await press(h, user, message, label)
            presses += 1
            moved = True
        if not moved:
            await h.tick(1.5)
    raise AssertionError("the game did not end")


def final_checks(h: Harness, where: FakeChat | FakeUser, humans: list[FakeUser]) -> str:
    final = table(h, where)
    text = final.text
    assert "🥇" in text and ("🏆" in text or "🤝" in text)
    assert "🔄 Rematch" in [label for row in h.api.buttons(final) for label, _ in row]
    for user in humans:
        mine = panel(h, user)
        assert mine is not None and "Game over — you finished" in mine.text
        if where is not user:  # in a private game the table right above tells the result
            assert any(word in mine.text for word in ("you win!", "and wins.", "A draw:"))
        assert h.api.buttons(mine) == []
    assert h.api.unanswered_callbacks() == []
    return text


async def test_one_person_against_the_computer_in_a_group(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await api.send_text(anna, group, "/new trumps")
    await api.wait_until(lambda: bool(api.bot_messages(group)))
    await h.settle()
    lobby = table(h, group)
    assert "Your Trumps" in lobby.text and "1. Anna" in lobby.text
    assert "🎴 52-card deck: off" in lobby.text

    await press(h, anna, lobby, "🤖 Add computer")
    await press(h, anna, table(h, group), "▶️ Start")
    game = table(h, group)
    assert game.message_id == lobby.message_id, "the lobby message becomes the table"
    deal_line = next(line for line in game.text.splitlines() if "deals and chooses" in line)
    dealer = "Anna" if "Anna" in deal_line else "Computer"

    # Trumps: the dealer first, then the other player only from the three free suits.
    while not any(code.startswith("t") for _, code in action_buttons(h, anna)):
        await h.tick(1.5)
    suits = [label for label, _ in action_buttons(h, anna)]
    assert len(suits) == (4 if dealer == "Anna" else 3)
    assert set(suits) <= {"♠", "♥️", "♦️", "♣"}
    await press(h, anna, panel(h, anna), suits[0])
    while "trumps" not in table(h, group).text or "no trumps yet" in table(h, group).text:
        await h.tick(1.5)
    text = table(h, group).text
    assert f"Anna — trumps {suits[0]} · 18 cards" in text
    assert "🤖 Computer 1 — trumps" in text

    presses = await play_to_the_end(h, group, [anna])
    assert presses > 3
    final = final_checks(h, group, [anna])
    assert_no_hand_in(h, group)

    # Rematch: the loser deals (after a draw, the same dealer).
    draw = final.count("🥇") == 2
    loser = "Computer" if "🥇 Anna" in final else "Anna"
    expected = dealer if draw else loser
    await press(h, anna, table(h, group), "🔄 Rematch")
    rematch = table(h, group)
    assert rematch.message_id != lobby.message_id
    first_line = next(line for line in rematch.text.splitlines() if "deals and chooses" in line)
    assert expected in first_line


async def test_two_people_in_a_group(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris <b>")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await api.send_text(anna, group, "/new trumps")
    await api.wait_until(lambda: bool(api.bot_messages(group)))
    await h.settle()
    await press(h, boris, table(h, group), "✋ Join")
    await press(h, anna, table(h, group), "▶️ Start")

    # Whoever does not deal waits; the dealer chooses from all four suits.
    dealer = anna if action_buttons(h, anna) else boris
    other = boris if dealer is anna else anna
    assert [label for label, _ in action_buttons(h, dealer)] == ["♠", "♥️", "♦️", "♣"]
    assert action_buttons(h, other) == []
    assert "chooses a trump suit first" in panel(h, other).text
    await press(h, dealer, panel(h, dealer), "♥️")
    assert [label for label, _ in action_buttons(h, other)] == ["♠", "♦️", "♣"]
    assert "chose ♥️ as trumps" in panel(h, other).text
    await press(h, other, panel(h, other), "♣")
    text = table(h, group).text
    assert "trumps ♥️ · 18 cards" in text and "trumps ♣ · 18 cards" in text
    assert "Boris &lt;b&gt;" not in text and "Boris <b>" in text  # escaped once, shown as typed
    # The non-dealer leads, with every card of his hand on offer.
    assert len(action_buttons(h, other)) == 18
    assert "You lead" in panel(h, other).text

    presses = await play_to_the_end(h, group, [anna, boris])
    assert presses > 10
    final_checks(h, group, [anna, boris])
    assert_no_hand_in(h, group)


async def test_beat_then_second_card_then_take_as_the_panel_offers_them(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await api.send_text(anna, group, "/new trumps")
    await api.wait_until(lambda: bool(api.bot_messages(group)))
    await h.settle()
    await press(h, boris, table(h, group), "✋ Join")
    await press(h, anna, table(h, group), "▶️ Start")
    dealer = anna if action_buttons(h, anna) else boris
    leader = boris if dealer is anna else anna
    await press(h, dealer, panel(h, dealer), "♠")
    await press(h, leader, panel(h, leader), "♥️")

    # Lead, then the other player faces it: only beating cards, and Take with its count.
    await press(h, leader, panel(h, leader), action_buttons(h, leader)[0][0])
    facing = action_buttons(h, dealer)
    assert facing[-1] == ("📥 Take 1 card", "k")
    assert "or take 1 card" in table(h, group).text
    beaters = [label for label, code in facing if code.startswith("p")]
    if beaters:
        await press(h, dealer, panel(h, dealer), beaters[0])
        assert "Now lay one more card on top" in panel(h, dealer).text
        assert len(action_buttons(h, dealer)) == 17, "any card of the hand may go on top"
        assert "lays one more card on top" in table(h, group).text
        await press(h, dealer, panel(h, dealer), action_buttons(h, dealer)[0][0])
        assert "On top:" in table(h, group).text and "Pile: 3 cards" in table(h, group).text
    else:
        await press(h, dealer, panel(h, dealer), "📥 Take 1 card")
        assert "took" in table(h, group).text and "Pile: empty" in table(h, group).text
    assert api.unanswered_callbacks() == []


async def test_a_timeout_takes_for_the_absent_player(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await api.send_text(anna, group, "/new trumps")
    await api.wait_until(lambda: bool(api.bot_messages(group)))
    await h.settle()
    await press(h, anna, table(h, group), "🤖 Add computer")
    await press(h, anna, table(h, group), "▶️ Start")
    while not action_buttons(h, anna):
        await h.tick(1.5)
    await h.tick(61)
    assert "⏰ Anna ran out of time" in table(h, group).text


async def test_one_person_game_in_the_private_chat(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    await deal_solo(h, anna, "/new trumps")  # its options first, then Deal
    await api.wait_until(
        lambda: any("Your Trumps" in (m.text or "") for m in api.bot_messages(anna))
    )
    await h.settle()
    first = table(h, anna)
    # One message: the table and her hand together, where she acts.
    assert "🤖 Computer 1" in first.text and "Anna — " in first.text
    while not action_buttons(h, anna):
        await h.tick(1.5)
    mine = panel(h, anna)
    assert mine is first, "the table and the hand are one message"
    presses = await play_to_the_end(h, anna, [anna])
    assert presses > 3
    final = table(h, anna).text
    assert "🥇" in final and "🔄 Rematch" in str(h.api.buttons(table(h, anna)))
    live = [m for m in api.bot_messages(anna) if m.text.startswith("🎴") and not m.deleted]
    assert live == [table(h, anna)], "one message still; its end came anew, so it notifies"
