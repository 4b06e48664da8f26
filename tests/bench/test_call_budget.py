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
#: waiting player's panel changes with his own hand and, since issue #35, with the table's top
#: card and the others' counts, which he needs to plan his next turn. This game measures 3.18
#: (398 calls for 125 presses); before issue #35, with waiting panels showing the hand only,
#: 2.86; editing every panel on every move whatever it showed, as before issue #10, cost 3.74.
BUDGET_PER_PRESS = 3.2


def _own(snapshot: GameSnapshot, seat: int) -> tuple[object, ...]:
    """What a waiting player's panel shows: his hand, whether he is out or pending, and —
    while he plays — the table's top card, the others' card counts and whose move it is
    (issue #35: he plans his next turn while he waits)."""
    view: RankView = snapshot.views[seat]
    table = () if seat in view.out else (view.top, view.hand_sizes, view.out, view.turn)
    return view.hand, seat in view.out, view.pending == seat, table


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
            # and a player whose panel shows a change: his own cards or status (a pending last
            # card settled), or, while he plays, the table's top card and the others' counts.
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
