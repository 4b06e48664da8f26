"""Your move reaches you, and the table stays in sight (issue #20).

An edit notifies nobody: a player who switched to another chat learns of his move only from a
message sent anew. The bot sends his panel anew (the old one deleted) when his move has waited
for him — no press of his since it came — for ``Publisher.ping_after`` seconds; here that is
shortened so that the tests wait a second or two of real time, not fifteen.
"""

from __future__ import annotations

import asyncio

from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import two_player_game
from tests.e2e.test_commands import say
from tests.e2e.test_leaving import computer_wins_for, game_id, room
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeMessage, FakeUser

#: Seconds a move waits for its player before his panel comes anew, in these tests.
PING = 1.0
#: How long the player who switched away takes to come back to his move.
AWAY = PING + 0.6


def ping_after(h: Harness, seconds: float = PING) -> None:
    room(h).publisher.ping_after = seconds


def sent_to(h: Harness, chat: FakeUser | FakeChat) -> int:
    """How many messages the bot has sent to a chat (deleted ones included)."""
    return sum(1 for m in h.api.messages(chat, include_deleted=True) if m.from_bot)


def panels(h: Harness, user: FakeUser) -> list[FakeMessage]:
    """The game panels in a player's private chat that are still there."""
    return [m for m in h.api.bot_messages(user) if "Your hand" in m.text]


def actions(h: Harness, user: FakeUser) -> list[str]:
    return [label for label, data in h.panel_buttons(user) if str(data).startswith("A:")]


def mover(h: Harness, players: list[FakeUser]) -> FakeUser | None:
    return next((p for p in players if actions(h, p)), None)


async def move(h: Harness, user: FakeUser) -> None:
    await press(h, user, h.panel(user), actions(h, user)[0])


async def test_an_idle_players_move_sends_his_panel_anew_once_and_the_old_one_goes(
    harness: Harness,
) -> None:
    h = harness
    ping_after(h)
    anna, boris, _group = await two_player_game(h)
    players = [anna, boris]
    # The game's first move came in a new message, which notified its player already: his
    # panel is not sent a second time (issue #35). He moves; the next move comes by an edit.
    starter = mover(h, players)
    assert starter is not None
    started = sent_to(h, starter)
    await asyncio.sleep(AWAY)
    await h.settle()
    assert sent_to(h, starter) == started, "the panel that notified him is not sent twice"
    await move(h, starter)
    first = mover(h, players)
    assert first is not None
    other = players[1 - players.index(first)]
    before = {p.id: sent_to(h, p) for p in players}
    (old,) = panels(h, first)

    await asyncio.sleep(AWAY)
    await h.settle()
    assert sent_to(h, first) == before[first.id] + 1, "his move notified him: a new message"
    (renewed,) = panels(h, first)
    assert renewed.message_id > old.message_id, "the old panel is gone, the new one is his"
    assert actions(h, first), "the new panel carries his moves"
    assert sent_to(h, other) == before[other.id], "the one waiting is not disturbed"

    # One per turn: waiting longer sends nothing more.
    await asyncio.sleep(AWAY)
    await h.settle()
    assert sent_to(h, first) == before[first.id] + 1
    # His move edits that panel in place; nothing piles up in his chat.
    await move(h, first)
    assert sent_to(h, first) == before[first.id] + 1
    assert [m.message_id for m in panels(h, first)] == [renewed.message_id]


async def play_one_quick_one_away(
    h: Harness, quick: FakeUser, away: FakeUser, away_turns: int
) -> int:
    """``quick`` moves at once whenever he may; ``away`` comes back to each of his turns
    after ``AWAY`` seconds. Returns the turns ``away`` had (each a run of his moves)."""
    players = [quick, away]
    turns, was = 0, None
    for _ in range(200):
        now = mover(h, players)
        assert now is not None, "a two-person game with nobody to move"
        if now is away and was is not away:
            turns += 1
            if turns > away_turns:
                return away_turns
            await asyncio.sleep(AWAY)
            await h.settle()
        await move(h, now)
        was = now
    raise AssertionError("too few turns")


async def test_the_one_who_switched_away_is_notified_each_turn_and_the_quick_one_never(
    harness: Harness,
) -> None:
    h = harness
    ping_after(h)
    anna, boris, group = await two_player_game(h)
    before = {p.id: sent_to(h, p) for p in (anna, boris)}
    group_before = sent_to(h, group)
    # If the deal gives him the first move, the panel that brought it was a new message: it
    # notified him already, and is his first turn's ping (issue #35).
    notified = 1 if mover(h, [anna, boris]) is boris else 0

    turns = await play_one_quick_one_away(h, anna, boris, away_turns=4)

    pinged = sent_to(h, boris) - before[boris.id]
    assert pinged == turns - notified, "one new panel per turn of his"
    assert sent_to(h, anna) == before[anna.id], "pressing at once, she is never pinged"
    assert sent_to(h, group) == group_before, "pings go to the player, not the group"
    assert len(panels(h, boris)) == len(panels(h, anna)) == 1


async def test_pings_off_means_edits_only_and_on_again_brings_them_back(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    ping_after(h)
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    assert (await say(h, boris, None, "/pings")).startswith("🔕 Pings off")
    group = h.api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    before = sent_to(h, boris)

    await play_one_quick_one_away(h, anna, boris, away_turns=2)
    assert sent_to(h, boris) == before, "pings off: his panel is only edited"

    assert (await say(h, boris, None, "/pings")).startswith("🔔 Pings on")


async def chatter(h: Harness, user: FakeUser, group: FakeChat, lines: int) -> None:
    for number in range(lines):
        await h.api.send_text(user, group, f"so, about last night ({number})")
    await h.settle()


def tables(h: Harness, group: FakeChat) -> list[FakeMessage]:
    return [m for m in h.api.bot_messages(group) if (m.text or "").startswith("🎴")]


async def test_a_table_buried_under_ten_messages_comes_back_once(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    # The bot is an admin: it hears the chat's every message (see the next test otherwise);
    # it may not pin (see the test after that otherwise).
    group = api.add_group("Card club", admins=[anna], members=[boris], bot_admin=True)
    group.bot_can_pin_messages = False
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    players = [anna, boris]
    (table,) = tables(h, group)
    await chatter(h, boris, group, 10)
    assert api.messages(group)[-1].text.startswith("so, about"), "the table is out of sight"

    sends = sent_to(h, group)
    player = mover(h, players)
    assert player is not None
    await move(h, player)
    (back,) = tables(h, group)
    assert back.message_id > table.message_id and api.messages(group)[-1] is back
    assert sent_to(h, group) == sends + 1, "brought back once: sent anew, the old one deleted"
    # More moves edit it where it is now.
    for _ in range(3):
        player = mover(h, players)
        assert player is not None
        await move(h, player)
    assert tables(h, group) == [back] and sent_to(h, group) == sends + 1
    assert "Round" in back.text
    # Chatter cannot make the bot spend the group's budget on tables: once a minute at most.
    await chatter(h, boris, group, 10)
    player = mover(h, players)
    assert player is not None
    await move(h, player)
    assert tables(h, group) == [back] and sent_to(h, group) == sends + 1


async def test_a_command_shows_how_far_the_table_scrolled_when_the_bot_hears_no_chatter(
    harness: Harness,
) -> None:
    """In privacy mode the bot hears only commands, but message ids count every message: a
    command ten messages after the table says it is out of sight."""
    h, api = harness, harness.api
    anna, boris, group = await two_player_game(h)
    (table,) = tables(h, group)
    await chatter(h, boris, group, 9)
    await say(h, anna, group, "/help")
    player = mover(h, [anna, boris])
    assert player is not None
    await move(h, player)
    (back,) = tables(h, group)
    assert back.message_id > table.message_id
    assert api.messages(group)[-1] is back


async def test_the_end_of_a_group_game_is_a_message_with_places_and_rating_changes(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, boris, group = await two_player_game(h)
    await move(h, mover(h, [anna, boris]) or anna)
    result_before = [m for m in api.bot_messages(group) if m.text.startswith("🏁")]
    assert result_before == []
    panel_ids = {p.id: [m.message_id for m in panels(h, p)] for p in (anna, boris)}
    game = await game_id(h, group)

    await computer_wins_for(h, group, 0)  # Anna, seat 0, goes out first

    (result,) = [m for m in api.bot_messages(group) if m.text.startswith("🏁")]
    assert result.text.startswith("🏁 Rank · game 1 is over")
    assert api.messages(group)[-1] is result, "sent after the table: it notifies"
    lines = result.text.splitlines()
    assert any(line.startswith("🥇 Anna") and "(+" in line for line in lines), lines
    assert any(line.startswith("🥈 Boris") and "(−" in line for line in lines), lines
    for player in (anna, boris):
        (final,) = panels(h, player)
        assert final.message_id not in panel_ids[player.id], "each player is told anew"
        assert "Your rating in this game" in final.text
        assert "(+" in final.text or "(−" in final.text
    # Published again (a late press, a restart's catch-up): announced once only.
    room(h).publisher.publish(await room(h).play.snapshot(game))
    await h.settle()
    assert len([m for m in api.bot_messages(group) if m.text.startswith("🏁")]) == 1


async def test_a_decision_that_follows_ones_own_move_pings_too(harness: Harness) -> None:
    """A ping is due whenever a decision has waited for its player for the ping delay,
    whoever moved last — also when the move is his again right after his own press."""
    h = harness
    ping_after(h)
    anna, boris, _group = await two_player_game(h)
    players = [anna, boris]
    for _ in range(200):
        now = mover(h, players)
        assert now is not None, "a two-person game with nobody to move"
        await move(h, now)
        if mover(h, players) is now:
            break  # in Rank a drawn card that can be played is the drawer's to play
    else:
        raise AssertionError("the move never stayed with the same player")
    before = sent_to(h, now)
    await asyncio.sleep(AWAY)
    await h.settle()
    assert sent_to(h, now) == before + 1, "his next decision waited for him: a ping"


async def test_where_the_bot_may_pin_the_live_table_stays_pinned_and_is_unpinned_at_the_end(
    harness: Harness,
) -> None:
    """Buried once, the table comes back and is pinned (silently) where the bot may pin: from
    then on chatter cannot bury it, and nothing is sent anew; at the end it is unpinned."""
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris], bot_admin=True)
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    players = [anna, boris]
    assert group.pinned_message_ids == [], "in sight: no question, no pin"
    await chatter(h, boris, group, 10)
    player = mover(h, players)
    assert player is not None
    await move(h, player)
    await h.settle()
    (table,) = tables(h, group)
    assert group.pinned_message_ids == [table.message_id], "brought back, and pinned"
    pin = api.calls_of("pinChatMessage")[-1]
    assert pin.get("disable_notification") in (True, "true"), "pinned silently"
    await chatter(h, boris, group, 10)
    sends = sent_to(h, group)
    player = mover(h, players)
    assert player is not None
    await move(h, player)
    assert tables(h, group) == [table], "pinned, it is in sight: edited where it is"
    assert sent_to(h, group) == sends
    await say(h, anna, group, "/cancel")
    await h.settle()
    assert group.pinned_message_ids == [], "the game is over: unpinned"
