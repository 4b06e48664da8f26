"""A process that takes the lead (a restart, or a standby after the leader died) takes up the
games as their players see them: no message is edited or sent again for nothing, and the
player whose move it is is still pinged."""

from __future__ import annotations

import asyncio

from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import two_player_game
from tests.e2e.test_notifications import AWAY, PING, mover, panels, sent_to


async def test_a_new_leader_takes_up_shown_games_without_a_call_and_still_pings(
    harness: Harness,
) -> None:
    h = harness
    anna, boris, group = await two_player_game(h)
    players = [anna, boris]
    await h.settle()
    first = mover(h, players)
    assert first is not None
    (old,) = panels(h, first)

    await h.stop()
    calls_before = len(h.api.calls)
    h.ping_after = PING  # the new leader's pings, armed as it takes the games up
    await h.start()
    await h.settle()
    edits = [c for c in h.api.calls[calls_before:] if c.method.startswith(("edit", "send"))]
    assert edits == [], "everything was shown already: taken up without a call"

    before = sent_to(h, first)
    await asyncio.sleep(AWAY)
    await h.settle()
    assert sent_to(h, first) == before + 1, "his move still pings him after the takeover"
    (renewed,) = panels(h, first)
    assert renewed.message_id > old.message_id
    assert group is not None
