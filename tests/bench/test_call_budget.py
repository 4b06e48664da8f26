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
from bot.games.rank import RankView
from bot.services.types import GameSnapshot

#: Calls that count against Telegram's flood limits.
LIMITED = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto")
HUMANS = 3
SEED = 1
#: Limited calls per press over the whole game. With publisher intervals 0 every press costs
#: one table edit; a turn that passes costs the old actor's panel and the new actor's; a
#: waiting player's panel changes only with his own hand. This game measures 2.86 (567 calls
#: for 198 presses); editing every panel on every move, as before issue #10, cost 3.74.
BUDGET_PER_PRESS = 2.9


def _own(snapshot: GameSnapshot, seat: int) -> tuple[object, ...]:
    """What a waiting player's panel shows: his hand and whether he is out or pending."""
    view: RankView = snapshot.views[seat]
    return view.hand, seat in view.out, view.pending == seat


async def test_a_seeded_rank_game_edits_only_the_panels_whose_player_sees_a_change(
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
            before_snapshot = world.latest[game.game_id]
            press = await world.next_press(game, rng)
            assert press is not None, "a playing game with nobody to move"
            before = Counter(api.stats.by_chat)
            await world.process(press)
            await world.delivered(game)
            assert press.callback.answered and press.callback.text is None  # accepted
            presses += 1
            # At most one edit per message per press: table and panels, each in place. The
            # last press also sends the result to the group and each player's final panel
            # anew (they notify; an edit does not), the old panel deleted.
            grown = Counter(api.stats.by_chat) - before
            most = 1 if world.latest[game.game_id].status == "playing" else 3
            assert all(grown[chat] <= most for chat in chats), grown
            # A panel is edited only for the player who moved, the player(s) to move now,
            # and a player whose own cards or status changed (a pending last card settled).
            after_snapshot = world.latest[game.game_id]
            for seat, player in enumerate(game.players):
                if not grown[player.id]:
                    continue
                assert (
                    seat in before_snapshot.acting
                    or seat in after_snapshot.acting
                    or _own(before_snapshot, seat) != _own(after_snapshot, seat)
                    or after_snapshot.status != "playing"
                ), (presses, seat)
        limited = {method: api.stats.by_method[method] for method in LIMITED}
    finally:
        await world.stop()

    assert presses > 100  # a whole game, not a stub
    assert world.latest[game.game_id].status == "finished"
    # Nothing re-sent but the end (the result, each final panel), nothing edited to what it
    # already showed ("message is not modified"). Nobody is pinged: every press is within 2 s.
    assert limited["sendMessage"] == 1 + HUMANS and limited["sendPhoto"] == 0
    assert not api.stats.errors
    assert sum(limited.values()) / presses <= BUDGET_PER_PRESS, (limited, presses)
