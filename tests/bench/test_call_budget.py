"""The Bot API calls of one whole seeded Rank game stay within budget (issue #10).

Deterministic: the deal is seeded, each press is chosen by a seeded generator among the legal
actions the bot last published, the bot's clock moves 2 s per press, and the publisher's
intervals are 0 with every press delivered before the next — so nothing depends on timing and
the count is the same on every machine. No time is measured here; ``python -m bench`` does that.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from random import Random

from bench.world import BenchClock, World, sqlite_url

#: Calls that count against Telegram's flood limits.
LIMITED = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto")
HUMANS = 3
SEED = 1
#: Limited calls per press over the whole game. With publisher intervals 0 the most is one
#: table edit and one edit per panel (1 + HUMANS = 4); this game measures 3.74 (740 edits for
#: 198 presses). Lower the budget when fewer panels are edited per move (issue #10).
BUDGET_PER_PRESS = 3.8


async def test_a_seeded_rank_game_edits_each_message_in_place_within_budget(
    tmp_path: Path,
) -> None:
    clock = BenchClock()
    world = World(sqlite_url(tmp_path), clock=clock, press_clock=clock)
    await world.start(run_jobs=False)
    try:
        game = await world.create_game("rank", HUMANS, seed=SEED)
        await world.room.publisher.drain()
        api = world.api
        # The start: one table and one panel per player, sent once.
        assert api.stats.by_method["sendMessage"] == 1 + HUMANS
        api.reset_stats()
        chats = [game.group.id, *(player.id for player in game.players)]
        rng = Random(SEED)
        presses = 0
        while world.latest[game.game_id].status == "playing":
            clock.advance(2.0)
            press = await world.next_press(game, rng)
            assert press is not None, "a playing game with nobody to move"
            before = Counter(api.stats.by_chat)
            await world.process(press)
            await world.delivered(game)
            assert press.callback.answered and press.callback.text is None  # accepted
            presses += 1
            # At most one edit per message per press: table and panels, each in place.
            grown = Counter(api.stats.by_chat) - before
            assert all(grown[chat] <= 1 for chat in chats), grown
        limited = {method: api.stats.by_method[method] for method in LIMITED}
    finally:
        await world.stop()

    assert presses > 100  # a whole game, not a stub
    assert world.latest[game.game_id].status == "finished"
    # Nothing re-sent, nothing edited to what it already showed ("message is not modified").
    assert limited["sendMessage"] == 0 and limited["sendPhoto"] == 0
    assert not api.stats.errors
    assert sum(limited.values()) / presses <= BUDGET_PER_PRESS, (limited, presses)
