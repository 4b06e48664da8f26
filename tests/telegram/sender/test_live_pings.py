"""Pings and new messages (issue #35, item 7): a panel that went out as a new message while
its player's move waited notified him already — no ping sends it a second time a moment
later; a move that came by an edit (which notifies nobody) is still pinged."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from random import Random
from typing import Any

from bot.games.rank import RANK
from tests.telegram.render.test_render import NOW, snapshot, state
from tests.telegram.sender.test_live import Remembered, StubBot, publisher

#: Seconds a move waits for its player before his panel comes anew, here.
PING = 0.05


class Bot(StubBot):
    """The stub, deleting too (a ping retires the panel it replaces)."""

    def __init__(self) -> None:
        super().__init__()
        self.deleted: list[int] = []

    async def _post(self, endpoint: str, data: dict[str, Any]) -> dict[str, Any]:
        if endpoint == "deleteMessage":
            self.deleted.append(data["message_id"])
            return {}
        return await super()._post(endpoint, data)


def sends_to(bot: StubBot, chat_id: int) -> int:
    return sum(1 for kind, chat, _ in bot.calls if kind == "send" and chat == chat_id)


async def test_a_panel_sent_as_a_new_message_is_not_pinged_for_the_move_it_shows() -> None:
    bot = Bot()
    pub = publisher(bot, Remembered(), clock=lambda: NOW)
    pub.ping_after = PING
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))  # Anna (user 100) to move
    pub.publish(game)
    await pub.drain()
    assert sends_to(bot, 100) == 1, "her first panel: a new message, which notifies her"

    await asyncio.sleep(PING * 4)
    await pub.drain()
    assert sends_to(bot, 100) == 1, "no second copy of the panel that notified her"


async def test_a_move_that_came_by_an_edit_is_still_pinged() -> None:
    bot = Bot()
    pub = publisher(bot, Remembered(), clock=lambda: NOW)
    pub.ping_after = PING
    rank = state("7h 9s", "Kd 6c 9c", "8c")
    pub.publish(snapshot(rank))
    await pub.drain()
    # Anna plays 7♥️: Boris's move comes to him by an edit of the panel he has.
    pub.pressed(100)
    played = RANK.apply(rank, 0, RANK.decode_action("p7h"), Random(1), NOW)
    pub.publish(replace(snapshot(played.state), version=4))
    await pub.drain()
    assert sends_to(bot, 101) == 1

    await asyncio.sleep(PING * 4)
    await pub.drain()
    assert sends_to(bot, 101) == 2, "his move waited for him: his panel comes anew"
    assert len(bot.deleted) == 1, "and the old one goes"
