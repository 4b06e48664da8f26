"""The deadline poller: a repeating job that moves on games whose window has closed.

Timers are rows (``games.deadline_at``), not jobs: this job only asks the database what is
due, so a restarted bot simply catches up.
"""

from __future__ import annotations

import logging

from telegram.ext import ContextTypes

from bot.telegram.handlers import cardroom

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.5


async def poll_deadlines(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Claim due games, apply their timeouts or computer moves, publish the results."""
    room = cardroom(context)
    for snapshot in await room.play.run_due():
        room.publisher.publish(snapshot)
