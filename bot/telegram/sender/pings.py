"""Pings: a player whose move has waited for him is sent his panel anew, which notifies him.

An edit notifies nobody. So when a decision has waited :data:`PING_AFTER` seconds for its
player — no press of his since it came — his panel is sent as a new message (the old one
deleted), unless he turned pings off (``/pings``). A player thinking at his phone is not pinged:
a press of his since his move came says he is there (:meth:`Pings.pressed`). A panel that
reached him as a new message while his move waited notified him already: that is the move's
ping (the publisher cancels the one armed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.services.recent import Recent
from bot.services.types import GameSnapshot
from bot.telegram.sender.slots import Slot

#: A player whose move has waited this long for him — no press of his since it came — gets
#: his panel anew, which notifies him (an edit notifies nobody), unless he turned pings off.
#: A player thinking at his phone is not pinged: most moves take less than this.
PING_AFTER = 15.0
#: ... and never later than this share of his window, nor sooner than ``PING_AT_LEAST``.
PING_SHARE, PING_AT_LEAST = 1 / 3, 3.0
#: People whose last press is remembered (the most recent ones; one forgotten may be pinged
#: once while he is at his phone).
PRESSERS = 10_000

#: Sends a panel anew: the panel, its player, and when the move it waits for came.
Fire = Callable[[Slot, int, float], None]


class Pings:
    """When each player's move came to him, and the ping that follows if it waits."""

    def __init__(self, wall_clock: Callable[[], float]) -> None:
        #: How long a move waits for its player before his panel comes anew.
        self.after = PING_AFTER
        self.wall_clock = wall_clock
        #: When each person last pressed a button (loop time).
        self._pressed: Recent[int, float] = Recent(PRESSERS)

    def pressed(self, user_id: int) -> None:
        """The person pressed a button: he is at his phone (no ping for a while)."""
        self._pressed[user_id] = asyncio.get_running_loop().time()

    def pressed_since(self, user_id: int, at: float) -> bool:
        """Whether the person has pressed anything since ``at`` (loop time)."""
        return self._pressed.get(user_id, float("-inf")) >= at

    def follow(
        self,
        panel: Slot,
        snapshot: GameSnapshot,
        user_id: int,
        *,
        turn: bool,
        fire: Fire | None,
    ) -> None:
        """A new state of the panel's game: whether it is his move (``turn``) now, and since
        when; a new move of his arms its ping (``fire``; ``None``: he is not to be pinged).
        """
        loop = asyncio.get_running_loop()
        if turn and panel.turn_since is None:
            # He has had the move since now (or since an earlier change still on its way).
            panel.turn_since = loop.time()
        elif not turn:
            panel.turn_since = None
        # A new decision, and he has pressed since the last one came: this one waits for him
        # from now — a ping is due whoever moved last, himself too.
        if (
            turn
            and panel.turn_started is not None
            and panel.version != snapshot.version
            and self.pressed_since(user_id, panel.turn_started)
        ):
            self.cancel(panel)
            panel.turn_started = None
        if not turn:
            panel.turn_started = None
            self.cancel(panel)
        elif panel.turn_started is None:
            panel.turn_started = started = loop.time()
            if fire is not None:
                panel.ping = loop.call_later(self.delay(snapshot), fire, panel, user_id, started)

    def due(self, panel: Slot, user_id: int, started: float) -> bool:
        """Whether the ping armed at ``started`` is still due: the move it was for still
        waits for him, and he has pressed nothing since."""
        return panel.turn_started == started and not self.pressed_since(user_id, started)

    def notified(self, panel: Slot, waiting: float) -> None:
        """The panel went out as a new message, which notifies its player, while his move
        waited for him since ``waiting``: it showed that move, so his ping for it is spent —
        one sent a moment later would only show the same panel twice."""
        if panel.turn_started == waiting:
            self.cancel(panel)

    def delay(self, snapshot: GameSnapshot) -> float:
        """How long a new move waits for its player before his panel comes anew."""
        if snapshot.deadline_at is None:
            return self.after
        window = snapshot.deadline_at - self.wall_clock()
        return max(min(self.after, window * PING_SHARE), min(PING_AT_LEAST, self.after))

    @staticmethod
    def cancel(panel: Slot) -> None:
        if panel.ping is not None:
            panel.ping.cancel()
            panel.ping = None
