"""A Davay-ka! start as its players see it in their private chats (issue #35, item 7).

A panel sent as a new message notifies its player: that is what a ping would do. So the
panel that brings a player his first decision of a game — Ready, in a countdown of a few
seconds — is not sent a second time a moment later by a ping, which for a second showed two
identical panels, both with their keyboards, until the older one was deleted.
"""

from __future__ import annotations

import asyncio

from tests.e2e.harness import Harness
from tests.e2e.test_davayka_game import PANEL_MARK, start_game
from tests.fakes import FakeUser

#: Seconds a decision waits for its player before his panel comes anew, in this test (the
#: bot's own is 15 s, or a third of a short window but at least 3 s: within the countdown).
PING = 0.5


def panels_sent(h: Harness, user: FakeUser) -> list[int]:
    """The ids of every game panel the bot has sent the player, deleted ones included."""
    return [
        m.message_id
        for m in h.api.messages(user, include_deleted=True)
        if m.from_bot and PANEL_MARK in (m.text or "")
    ]


async def test_the_start_of_a_davayka_game_brings_each_player_one_panel(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    assert h.app is not None
    h.app.bot_data["cardroom"].publisher.ping_after = PING
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await start_game(h, group, anna, boris)
    for player in (anna, boris):
        assert len(panels_sent(h, player)) == 1

    # Neither presses Ready for longer than a ping waits; the countdown (5 s) still runs.
    await asyncio.sleep(PING * 3)
    await h.settle()
    for player in (anna, boris):
        (panel,) = panels_sent(h, player)
        assert [
            m.message_id for m in api.bot_messages(player) if PANEL_MARK in (m.text or "")
        ] == [panel], "the panel that notified him stays his only one"
