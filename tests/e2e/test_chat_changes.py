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
