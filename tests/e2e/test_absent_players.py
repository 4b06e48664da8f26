"""Nobody hangs a game: a player who misses turns or blocks the bot is played for."""

from __future__ import annotations

from tests.e2e.harness import Harness
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.fakes import FakeChat, FakeUser


async def two_player_game(h: Harness) -> tuple[FakeUser, FakeUser, FakeChat]:
    anna, boris = h.api.add_user("Anna"), h.api.add_user("Boris")
    group = h.api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    return anna, boris, group


async def play_a_little(h: Harness, players: list[FakeUser], rounds: int = 4) -> None:
    """Each player makes his first move offered, if he has one, ``rounds`` times over."""
    for _ in range(rounds):
        for player in players:
            actions = [b for b in h.panel_buttons(player) if b[1].startswith("A:")]
            if actions:
                await press(h, player, h.panel(player), actions[0][0])


async def anna_plays_boris_sleeps(h: Harness, anna: FakeUser, turns: int) -> None:
    for _ in range(turns):
        actions = [b for b in h.panel_buttons(anna) if b[1].startswith("A:")]
        if actions:
            await press(h, anna, h.panel(anna), actions[0][0])
        else:
            await h.tick(61)


async def test_two_missed_turns_hand_the_seat_to_the_computer_until_taken_back(
    harness: Harness,
) -> None:
    h = harness
    anna, boris, group = await two_player_game(h)
    for _ in range(12):
        if "Boris 💤" in h.table(group).text:
            break
        await anna_plays_boris_sleeps(h, anna, 1)
    table = h.table(group)
    said = [version.text or "" for version in table.history] + [table.text]
    assert any("😴 Boris is away: the computer plays for them" in text for text in said), said[-3:]
    panel = h.panel(boris)
    assert panel is not None and "the computer is playing for you" in panel.text
    assert [b for b, _ in h.panel_buttons(boris)] == ["🙋 Take my seat back"]
    # The computer plays Boris's turns: the game goes on without waiting a whole window.
    version_before = h.table(group).text
    await anna_plays_boris_sleeps(h, anna, 1)
    await h.tick(2)
    assert h.table(group).text != version_before

    answer = await press(h, boris, h.panel(boris), "🙋 Take my seat back")
    assert answer.text == "Welcome back! You play again from your next move."
    assert "👋 Boris is back" in h.table(group).text
    assert "💤" not in h.table(group).text


async def test_when_everyone_is_away_the_game_ends_with_the_standings(harness: Harness) -> None:
    h = harness
    anna, boris, group = await two_player_game(h)
    # Both play a little, then both stop: the game is past its first round.
    await play_a_little(h, [anna, boris])
    for _ in range(8):
        await h.tick(61)
        if "Everyone is away" in h.table(group).text:
            break
    table = h.table(group).text
    assert "Everyone is away: the game ends here — a loss for each person in it." in table
    assert "Game over" in table, table
    # Nobody stayed, so nobody won (issue #35): no gold, no draw — a loss for each.
    assert "🥇" not in table and "draw" not in table, table
    assert "🏳 Nobody won: nobody stayed to the end, so it is a loss for each." in table
    room = h.app.bot_data["cardroom"]  # type: ignore[union-attr]
    assert await room.play.snapshot_in_topic(group.id, 0) is None
    finished = await room.stats.history(group.id)  # the results were recorded
    assert finished, "the game is on the chat's record"


async def test_when_everyone_is_away_at_the_start_the_game_is_called_off(
    harness: Harness,
) -> None:
    h = harness
    _, _, group = await two_player_game(h)
    room = h.app.bot_data["cardroom"]  # type: ignore[union-attr]
    shown = await room.play.snapshot_in_topic(group.id, 0)
    assert shown is not None
    # Both block the bot before anyone has moved: there are no standings to speak of.
    for seat in (0, 1):
        snapshot = await room.play.unreachable(shown.game_id, seat)
        assert snapshot is not None
        room.publisher.publish(snapshot)
    await h.settle()
    assert "Everyone is away: the game is called off." in h.table(group).text
    assert await room.play.snapshot_in_topic(group.id, 0) is None


async def test_a_player_who_blocks_the_bot_is_played_for(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris, group = await two_player_game(h)
    await api.block_bot(boris)
    await anna_plays_boris_sleeps(h, anna, 3)
    await h.tick(2)
    assert "Boris 🚪" in h.table(group).text, "he left: blocked the bot"
