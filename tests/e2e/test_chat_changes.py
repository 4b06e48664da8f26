"""A group upgraded to a supergroup keeps its game; a bot removed cancels the group's games."""

from __future__ import annotations

from tests.e2e.harness import Harness
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press


async def test_upgraded_group_keeps_its_lobby(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", supergroup=False, admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    old_lobby = h.table(group)
    supergroup = api.migrate_group(group)
    await press(h, boris, old_lobby, "✋ Join")
    await api.wait_until(lambda: bool(api.bot_messages(supergroup)))
    await h.settle()
    lobby = h.table(supergroup)
    assert "1. Anna" in lobby.text and "2. Boris" in lobby.text
    assert "already a game open here" in await say(h, boris, supergroup, "/new rank")
    await press(h, anna, lobby, "▶️ Start")
    assert "Round 1" in h.table(supergroup).text


async def test_removing_the_bot_cancels_the_groups_games(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    await api.kick_bot(group)
    room = h.app.bot_data["cardroom"]  # type: ignore[union-attr]
    for _ in range(100):
        if await room.play.snapshot_in_topic(group.id, 0) is None:
            break
        await h.settle()
    assert await room.play.snapshot_in_topic(group.id, 0) is None
    await h.settle()
    dm = [m.text for m in api.bot_messages(anna)]
    assert any("was cancelled" in text for text in dm), dm


async def test_a_lobby_opened_in_the_new_supergroup_first_gives_way_to_the_moved_game(
    harness: Harness,
) -> None:
    """The group became a supergroup, and someone opened a lobby there before the bot heard
    of it: the game being played moves on, the new lobby is closed, and its table says why."""
    h, api = harness, harness.api
    anna, boris, clara = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Clara")
    group = api.add_group("Card club", supergroup=False, admins=[anna], members=[boris, clara])
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "▶️ Start")
    supergroup = api.migrate_group(group)
    await say(h, clara, supergroup, "/new rank")  # the bot has not heard of the move yet
    newcomer = h.table(supergroup)
    assert "a new game" in newcomer.text

    # The next move's table edit meets the old chat's end, and the bot moves the game.
    mover = anna if [d for _, d in h.panel_buttons(anna) if d.startswith("A:")] else boris
    move = next(label for label, d in h.panel_buttons(mover) if d.startswith("A:"))
    await press(h, mover, h.panel(mover), move)
    await api.wait_until(lambda: "closed" in (newcomer.text or ""), timeout=10)
    await h.settle()
    assert "The group became a supergroup, where another game was open" in newcomer.text
    table = h.table(supergroup)
    assert table.message_id != newcomer.message_id and "Round" in table.text
    room = h.app.bot_data["cardroom"]  # type: ignore[union-attr]
    playing = await room.play.snapshot_in_topic(supergroup.id, 0)
    assert playing is not None and playing.status == "playing"
